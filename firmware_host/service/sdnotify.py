"""Tell systemd how the daemon is doing: sd_notify in the standard library.

Under ``Type=notify`` systemd hands the service a Unix datagram socket in
``$NOTIFY_SOCKET``; each message is one datagram of ``KEY=VALUE`` lines. Outside
systemd the variable is unset and every call here does nothing, so the daemon
calls the same methods on a laptop as on the Pi.

A notification must never hurt the daemon: the socket is non-blocking (a busy
PID 1 costs a dropped message, not a stalled event loop), and a failed send is
logged once and otherwise ignored.

>>> notifier = Notifier.from_environ({})       # not under systemd
>>> notifier.enabled, notifier.ready(), notifier.watchdog_interval()
(False, False, None)
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Mapping

__all__ = ["Notifier", "WatchdogPacer"]

log = logging.getLogger(__name__)


def _monotonic_us() -> int:
    # systemd compares MONOTONIC_USEC with its own CLOCK_MONOTONIC reading.
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


class Notifier:
    """Sends state changes to systemd's notification socket.

    ``address`` is the ``NOTIFY_SOCKET`` value: a path, or ``@name`` for the
    abstract namespace; ``None`` or ``""`` makes a notifier that does nothing.
    ``watchdog_usec`` is ``WATCHDOG_USEC`` as systemd set it (``None``: no
    watchdog). ``monotonic_us`` is the clock for ``MONOTONIC_USEC``.
    Every method returns True when a datagram was sent.
    """

    def __init__(
        self,
        address: str | None,
        *,
        watchdog_usec: int | None = None,
        monotonic_us: Callable[[], int] = _monotonic_us,
    ):
        self.address = address or None
        self._target = _socket_address(self.address) if self.address else None
        if self.address and self._target is None:
            log.warning(
                "NOTIFY_SOCKET=%r is not a path or @abstract name; not notifying systemd",
                self.address,
            )
        self._watchdog_usec = watchdog_usec if watchdog_usec and watchdog_usec > 0 else None
        self._monotonic_us = monotonic_us
        self._sock: socket.socket | None = None
        self._failed_before = False

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Notifier:
        """The notifier systemd asked for in ``environ`` (default ``os.environ``).

        The watchdog counts only if ``WATCHDOG_PID`` is unset or is this process:
        a child that inherited the environment must not ping for its parent.
        """
        env = os.environ if environ is None else environ
        usec = _positive_int(env.get("WATCHDOG_USEC"))
        pid = env.get("WATCHDOG_PID")
        if pid is not None and _positive_int(pid) != os.getpid():
            usec = None
        return cls(env.get("NOTIFY_SOCKET"), watchdog_usec=usec)

    @property
    def enabled(self) -> bool:
        """True when there is a socket to send to."""
        return self._target is not None

    def ready(self, status: str | None = None) -> bool:
        """Start-up is done (``READY=1``); systemd starts ordering units after us."""
        fields = {"READY": "1"}
        if status is not None:
            fields["STATUS"] = status
        return self.send(fields)

    def status(self, text: str) -> bool:
        """A one-line status for ``systemctl status``."""
        return self.send({"STATUS": text})

    def watchdog(self) -> bool:
        """The loop is alive (``WATCHDOG=1``)."""
        return self.send({"WATCHDOG": "1"})

    def stopping(self) -> bool:
        """Shutdown has begun (``STOPPING=1``)."""
        return self.send({"STOPPING": "1"})

    def reloading(self) -> bool:
        """A reload has begun; send :meth:`ready` when it is done.

        ``MONOTONIC_USEC`` is what systemd >= 253 needs for ``Type=notify-reload``;
        older versions and plain ``Type=notify`` ignore it.
        """
        return self.send({"RELOADING": "1", "MONOTONIC_USEC": str(self._monotonic_us())})

    def watchdog_interval(self) -> float | None:
        """Seconds between ``WATCHDOG=1`` pings (half of ``WATCHDOG_USEC``), or
        None when systemd wants no pings from this process."""
        if not self.enabled or self._watchdog_usec is None:
            return None
        return self._watchdog_usec / 2 / 1_000_000

    def send(self, fields: Mapping[str, str]) -> bool:
        """Send ``fields`` as one datagram; False if not sent (logged once)."""
        if self._target is None:
            return False
        # A newline in a value would start a new KEY=VALUE line: flatten it.
        lines = (f"{key}={' '.join(str(value).splitlines())}" for key, value in fields.items())
        data = "\n".join(lines).encode("utf-8", "replace")
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
                self._sock.setblocking(False)
            self._sock.sendto(data, self._target)
        except OSError as exc:
            if not self._failed_before:
                self._failed_before = True
                log.warning(
                    "cannot notify systemd at %s: %s (further failures are logged at debug level)",
                    self.address,
                    exc,
                )
            else:
                log.debug("cannot notify systemd at %s: %s", self.address, exc)
            return False
        return True

    def close(self) -> None:
        """Close the socket; safe to call twice. A later send reopens it."""
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def __repr__(self) -> str:
        return f"Notifier({self.address!r}, watchdog_interval={self.watchdog_interval()!r})"


class WatchdogPacer:
    """Paces ``WATCHDOG=1`` from the event loop's own deadlines.

    The loop includes :meth:`next_deadline` in its wait and calls :meth:`poll`
    each time round, so the pings stop exactly when the loop stops turning and
    systemd restarts a hung daemon. No extra thread, which would keep pinging
    for a dead loop. ``clock`` returns seconds (the loop's monotonic clock).

    >>> now = [100.0]
    >>> pacer = WatchdogPacer(Notifier(None), lambda: now[0])
    >>> pacer.next_deadline() is None, pacer.due(), pacer.poll()
    (True, False, False)
    """

    def __init__(self, notifier: Notifier, clock: Callable[[], float]):
        self.notifier = notifier
        self.clock = clock
        self.interval = notifier.watchdog_interval()
        # The first ping is due at once: systemd's timer is already running.
        self._deadline = clock() if self.interval is not None else None

    def next_deadline(self) -> float | None:
        """Clock time by which the loop must call :meth:`poll`; None: never."""
        return self._deadline

    def due(self) -> bool:
        """True when a ping is due now."""
        return self._deadline is not None and self.clock() >= self._deadline

    def kick(self) -> bool:
        """Ping now and set the next deadline one interval from now."""
        if self.interval is None:
            return False
        self._deadline = self.clock() + self.interval
        return self.notifier.watchdog()

    def poll(self) -> bool:
        """Ping if due; True if a ping was sent."""
        return self.kick() if self.due() else False


def _socket_address(address: str) -> bytes | None:
    if address.startswith("@"):
        return b"\0" + os.fsencode(address[1:])
    if address.startswith("/"):
        return os.fsencode(address)
    return None


def _positive_int(text: str | None) -> int | None:
    try:
        value = int(text) if text is not None else None
    except ValueError:
        return None
    return value if value is not None and value > 0 else None
