"""One link to a Showdown unit: bytes through pyserial, messages through the protocol.

``UnitLink(url)`` opens ``serial.serial_for_url(url)``, so the same code reaches
a serial device (``/dev/ttyUSB0``, ``/dev/serial0``) or a unit on the network
(``socket://127.0.0.1:7700``). It says ``auth`` (if given a token) and
``hello``, then offers two blocking calls with deadlines:

    link.call(cmd, **args) -> WireData          # the reply's data; CommandRefused on ok: false
    link.next_event(timeout_s) -> Event | EventGap | None

Events that arrive while a call waits for its reply are kept for
``next_event``: at most MAX_QUEUED_EVENTS of them, read in at most
MAX_QUEUED_EVENT_BYTES (a showdown makes about 20 small ones). More is a flood,
:class:`UnitFlooding`. Each reply and event the engine uses is checked against
what the unit sends (:mod:`engine.units.unit_replies`); one out of shape is a
:class:`ProtocolViolation` naming the command or event and the field. Lines the
unit could not read (its ``"id": null`` errors), replies to ids nobody waits for
(a reply that came after its deadline included) and lines this end cannot use
are passed over: they belong to nobody. The first NOISE_LINES_LOGGED are
logged, then only their count, at most every NOISE_SUMMARY_EVERY_S seconds.

Anything that breaks the link (the port fails, the unit closes it, floods it
or breaks the protocol, a reply does not come within ``reply_timeout_s``)
raises :class:`LinkLost`; the caller decides whether to reconnect. A flood or a
violation also closes the link: nothing more from it is trusted.

No threads: the port is opened non-blocking and
the link waits for input with ``select`` on its file descriptor, at most
``poll_s`` at a time (a port without one is polled every ``poll_s``). pyserial's
blocking reads would not do: a socket:// read waits for its whole size or the
timeout, and its ``in_waiting`` says only 0 or 1.

pyserial is imported when a link opens, so ``import engine`` stays light.
"""

from __future__ import annotations

import collections
import dataclasses
import errno
import logging
import re
import select
import time
from collections.abc import Callable
from typing import Any, Protocol

# The errors live with the engine's others; imported here, where they are raised.
from engine.game.errors import (
    AuthFailed,
    CommandRefused,
    LinkLost,
    ProtocolViolation,
    UnitFlooding,
    VersionMismatch,
)
from engine.units.unit_replies import Malformed, WireData, check_event, check_reply
from firmware_host.protocol import (
    ClientConnection,
    ErrorReply,
    Event,
    EventGap,
    ProtocolError,
    Reply,
)

__all__ = [
    "UnitLink",
    "LinkLost",
    "UnitFlooding",
    "ProtocolViolation",
    "CommandRefused",
    "VersionMismatch",
    "AuthFailed",
    "open_serial_url",
    "ConnectFailure",
    "check_unit_url",
    "connect_failure",
    "Port",
    "MAX_QUEUED_EVENTS",
    "MAX_QUEUED_EVENT_BYTES",
]

log = logging.getLogger(__name__)

#: Events a link keeps unread; one more is a flood (a showdown makes about 20).
MAX_QUEUED_EVENTS = 1000
#: Bytes of lines read while events wait unread; more is a flood.
MAX_QUEUED_EVENT_BYTES = 1_048_576
#: Lines the engine cannot use that are logged one by one; after that, their count,
#: at most every NOISE_SUMMARY_EVERY_S seconds (and when the link closes).
NOISE_LINES_LOGGED = 5
NOISE_SUMMARY_EVERY_S = 5.0


class Port(Protocol):
    """What the link uses of a port: pyserial's, or a test's scripted one.
    ``fileno()`` may raise (AttributeError, OSError, ValueError) for a port
    with no file descriptor: the link polls it instead."""

    def fileno(self) -> int: ...

    def read(self, size: int, /) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


def open_serial_url(url: str, *, baudrate: int, timeout: float, write_timeout: float) -> Port:
    """``serial.serial_for_url`` with the link's settings (pyserial is imported
    only now). ``timeout=0`` makes reads return what is there at once."""
    import serial

    port: Port = serial.serial_for_url(  # pyserial ships no types: its port is Any
        url, baudrate=baudrate, timeout=timeout, write_timeout=write_timeout
    )
    return port


#: What to do when the unit may be off or its daemon down (only for these causes).
SWITCHED_ON = "Check that the unit is switched on and its daemon is running (showdown-unit run)"
#: The forms a unit's address takes.
URL_FORMS = (
    "Give the unit as socket://HOST:PORT (a unit on the network, e.g. "
    "socket://127.0.0.1:7700) or as a serial device path (e.g. /dev/ttyUSB0)."
)
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
#: The URL schemes of pyserial's that reach a unit; the others (loop://, spy://...) are
#: for tests and debugging, and still work.
_KNOWN_SCHEMES = ("socket", "rfc2217", "loop", "spy", "alt", "hwgrep", "cp2110")


@dataclasses.dataclass(frozen=True)
class ConnectFailure:
    """Why a link could not be opened: ``cause`` is one word (``url``,
    ``refused``, ``unknown_host``, ``timeout``, ``no_device``, ``permission``,
    ``other``), ``message`` what happened (the LinkLost raised says it) and
    ``what_to_do`` the next step. A bad URL (``permanent``) will never work:
    trying again is pointless."""

    cause: str
    message: str
    what_to_do: str

    @property
    def permanent(self) -> bool:
        return self.cause == "url"


def check_unit_url(url: str) -> ConnectFailure | None:
    """None if ``url`` has a form that can reach a unit (a serial device path,
    ``socket://HOST:PORT`` or another of pyserial's URLs), else what is wrong.

    >>> check_unit_url("socket://127.0.0.1:7700") is None
    True
    >>> check_unit_url("tcp://10.0.0.5:7700").message
    '"tcp://" is not a way to reach a unit'
    >>> check_unit_url("socket://unit.local").message
    '"socket://unit.local" has no port: a unit on the network is socket://HOST:PORT'
    """
    scheme = _SCHEME.match(url)
    if scheme is None:
        return None  # a device path
    name = scheme.group(1).lower()
    if name not in _KNOWN_SCHEMES:
        return ConnectFailure("url", f'"{scheme.group(0)}" is not a way to reach a unit', URL_FORMS)
    if name != "socket":
        return None
    address = url[scheme.end() :].split("?", 1)[0]
    host, colon, port = address.rpartition(":")
    if not colon or not host:
        return ConnectFailure(
            "url", f'"{url}" has no port: a unit on the network is socket://HOST:PORT', URL_FORMS
        )
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        return ConnectFailure(
            "url", f'"{url}": the port must be a number from 1 to 65535, not "{port}"', URL_FORMS
        )
    return None


def connect_failure(url: str, exc: Exception) -> ConnectFailure:
    """What an exception opening ``url`` means, and what to do about it."""
    text = str(exc)
    address = url.split("://", 1)[-1].split("?", 1)[0]
    if isinstance(exc, ValueError):  # pyserial could not read the URL
        return ConnectFailure("url", f'"{url}" is not a unit\'s address ({text})', URL_FORMS)
    if "Connection refused" in text or f"[Errno {errno.ECONNREFUSED}]" in text:
        return ConnectFailure(
            "refused",
            f"connection refused: nothing listens at {address}",
            f"{SWITCHED_ON}, and that it listens on that address and port "
            "(server.listen in its config), then retry.",
        )
    if "Name or service not known" in text or "name resolution" in text or "[Errno -" in text:
        host = address.rpartition(":")[0] or address
        return ConnectFailure(
            "unknown_host",
            f"unknown host {host!r}: no address found for it",
            "Check the host name in the URL (or give the unit's IP address) and this "
            "machine's network, then retry.",
        )
    if "timed out" in text:
        return ConnectFailure(
            "timeout",
            f"no answer from {address} (timed out)",
            f"{SWITCHED_ON}, and the network between here and the unit, then retry.",
        )
    if "No such file or directory" in text:
        return ConnectFailure(
            "no_device",
            f"no serial device {url}",
            "Check that the cable is plugged in and the device path is right "
            "(ls /dev/ttyUSB* /dev/ttyACM* /dev/serial*), then retry.",
        )
    if "Permission denied" in text:
        return ConnectFailure(
            "permission",
            f"no permission to open {url}",
            "Add your user to the group that owns the device (usually dialout: "
            "sudo adduser $USER dialout, then log in again), then retry.",
        )
    return ConnectFailure("other", text, f"{SWITCHED_ON}, and the cable or network, then retry.")


class _NoiseLog:
    """Logs the lines a link passes over: the first few, then only how many."""

    def __init__(self, url: str, clock: Callable[[], float]):
        self.url, self.clock = url, clock
        self.seen = 0
        self.unlogged = 0
        self.since: float | None = None  # when the unlogged count started

    def passed_over(self, text: str) -> None:
        self.seen += 1
        if self.seen <= NOISE_LINES_LOGGED:
            log.warning("%s: %s", self.url, text)
            return
        self.unlogged += 1
        now = self.clock()
        if self.since is None:
            self.since = now
        elif now - self.since >= NOISE_SUMMARY_EVERY_S:
            self.flush()
            self.since = now

    def flush(self) -> None:
        if self.unlogged:
            log.warning(
                "%s: passed over %d more lines the engine cannot use", self.url, self.unlogged
            )
            self.unlogged = 0


class UnitLink:
    """A connection to the unit at ``url``; see the module docstring.

    ``open_port(url, baudrate=, timeout=, write_timeout=)`` makes the port
    (default :func:`open_serial_url`; tests pass a scripted one). ``clock``
    measures the reply deadline; ``sleep`` waits on a port with no file descriptor.
    """

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115200,
        token: str | None = None,
        reply_timeout_s: float = 5.0,
        poll_s: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        open_port: Callable[..., Port] | None = None,
    ):
        self.url = url
        self.baudrate = baudrate
        self.token = token
        self.reply_timeout_s = reply_timeout_s
        self.poll_s = poll_s
        self.clock = clock
        self.sleep = sleep
        self._open_port = open_port or open_serial_url
        self._port: Port | None = None
        self._fileno: int | None = None
        self._conn: ClientConnection | None = None
        self._events: collections.deque[tuple[float, Event | EventGap]] = collections.deque()
        self._queued_bytes = 0  # bytes read since the event queue was last empty
        self._replies: dict[int | float | str, Reply | ErrorReply | ProtocolError] = {}
        self._noise = _NoiseLog(url, clock)
        #: The unit's hello reply: version, unit (name, software, ...), capabilities, seq.
        self.hello: WireData | None = None
        #: When the event ``next_event`` returned last was read off the link (``clock``).
        self.last_arrival: float | None = None
        #: Why the last ``open`` could not open the port (None: it could).
        self.failure: ConnectFailure | None = None

    @property
    def is_open(self) -> bool:
        return self._port is not None

    @property
    def queued_events(self) -> int:
        """How many events (and gaps) wait for ``next_event``."""
        return len(self._events)

    def open(self) -> WireData:
        """Open the port, authenticate, agree the version; returns the hello
        reply. Raises LinkLost (cannot open: ``failure`` says why and what to
        do; or no answer), VersionMismatch, AuthFailed."""
        if self._port is not None:
            raise RuntimeError(f"the link to {self.url} is already open")
        self.failure = check_unit_url(self.url)
        if self.failure is not None:
            raise LinkLost(self.failure.message)
        try:
            port = self._open_port(
                self.url, baudrate=self.baudrate, timeout=0, write_timeout=self.reply_timeout_s
            )
        except (OSError, ValueError) as exc:  # pyserial's SerialException is an OSError
            self.failure = connect_failure(self.url, exc)
            raise LinkLost(self.failure.message) from None
        self._port = port
        try:
            self._fileno = port.fileno()
        except (AttributeError, OSError, ValueError):
            self._fileno = None
        self._conn = ClientConnection()
        self._events.clear()
        self._queued_bytes = 0
        self._replies.clear()
        try:
            if self.token is not None:
                try:
                    self.call("auth", token=self.token)
                except CommandRefused as exc:
                    raise AuthFailed(
                        f"the unit at {self.url} refused the token: {exc.message}"
                    ) from None
            try:
                self.hello = self.call("hello")
            except CommandRefused as exc:
                if exc.code == "unsupported_version":
                    raise VersionMismatch(
                        f"the unit at {self.url} and this engine share no "
                        f"protocol version: {exc.message}"
                    ) from None
                if exc.code == "unauthorized":  # no auth was sent: the unit wants a token
                    raise AuthFailed(
                        f"the unit at {self.url} asks for a token and none was given"
                    ) from None
                raise LinkLost(f"hello refused: {exc.code}: {exc.message}") from None
        except BaseException:
            self.close()
            raise
        log.info("connected to %s: %s", self.url, self.hello.get("unit"))
        return self.hello

    def close(self) -> None:
        """Close the port; safe to call twice."""
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except OSError as exc:
                log.debug("closing %s: %s", self.url, exc)
        if self._conn is not None:
            for error in self._conn.receive_eof():
                log.debug("%s: %s", self.url, error)
            self._conn = None
        self._events.clear()
        self._queued_bytes = 0
        self._noise.flush()

    def _opened(self) -> tuple[Port, ClientConnection]:
        """The open port and its protocol connection; LinkLost if the link is closed."""
        if self._port is None or self._conn is None:
            raise LinkLost(f"the link to {self.url} is not open")
        return self._port, self._conn

    def _broken(self, error: LinkLost) -> LinkLost:
        """Close the link (a flood or a violation: nothing more from it is
        trusted) and return ``error`` to raise."""
        self.close()
        return error

    # -- requests and events -------------------------------------------------------

    def send(self, cmd: str, **args: Any) -> int:  # Any: JSON values, as the protocol
        """Send a request without waiting; returns its id (see :meth:`wait_reply`)."""
        port, conn = self._opened()
        request_id, data = conn.send_request(cmd, **args)
        log.debug("%s > %s", self.url, data.rstrip(b"\n").decode("utf-8", "replace"))
        try:
            port.write(data)
        except OSError as exc:
            raise LinkLost(f"write failed: {exc}") from None
        return request_id

    def wait_reply(self, request_id: int, cmd: str) -> WireData:
        """The reply to ``request_id``: its data, or CommandRefused; LinkLost
        if none comes within ``reply_timeout_s``."""
        deadline = self.clock() + self.reply_timeout_s
        while request_id not in self._replies:
            if self.clock() >= deadline:
                if self._conn is not None:
                    self._conn.pending.pop(request_id, None)  # a late reply is nobody's
                raise LinkLost(f"no reply to {cmd} within {self.reply_timeout_s:g} s")
            self._pump()
        reply = self._replies.pop(request_id)
        if isinstance(reply, Reply):
            # The connection fills in the request's command when the reply comes.
            replied_to = cmd if reply.cmd is None else reply.cmd
            try:
                return check_reply(replied_to, reply.data)
            except Malformed as exc:
                raise self._broken(ProtocolViolation(f"reply to {replied_to}", str(exc))) from None
        # An ErrorReply, or a ProtocolError for a hello reply with a version we lack.
        raise CommandRefused(cmd, reply.code, reply.message)

    def call(self, cmd: str, **args: Any) -> WireData:  # Any: JSON values
        """Send a request and wait for its reply (see :meth:`wait_reply`)."""
        return self.wait_reply(self.send(cmd, **args), cmd)

    def next_event(self, timeout_s: float) -> Event | EventGap | None:
        """The next event (or gap) from the unit, or None after ``timeout_s``."""
        deadline = self.clock() + timeout_s
        while not self._events:
            if self._port is None:
                raise LinkLost(f"the link to {self.url} is not open")
            if self.clock() >= deadline:
                return None
            self._pump()
        self.last_arrival, item = self._events.popleft()
        if not self._events:
            self._queued_bytes = 0
        return item

    def _pump(self) -> None:
        """Wait at most ``poll_s`` for input; file what came."""
        port, conn = self._opened()
        try:
            if (
                self._fileno is not None
                and not select.select([self._fileno], [], [], self.poll_s)[0]
            ):
                return
            data = port.read(65536)
        except OSError as exc:  # SerialException: "socket disconnected", a pty gone...
            text = str(exc)
            raise LinkLost(
                text if text.startswith("read failed") else f"read failed: {text}"
            ) from None
        if not data:
            if self._fileno is None:
                self.sleep(self.poll_s)
            return
        for item in conn.receive_data(data):
            if isinstance(item, (Event, EventGap)):
                log.debug("%s < %s", self.url, item)
                self._queue(item)
            elif isinstance(item, (Reply, ErrorReply)) and item.id is not None:
                log.debug("%s < %s", self.url, item)
                self._replies[item.id] = item
            elif isinstance(item, ProtocolError) and item.code == "unsupported_version":
                self._replies[item.request_id] = item
            elif isinstance(item, ErrorReply):
                # The unit could not read some line (noise on the wire): nobody's reply.
                self._noise.passed_over(
                    f"the unit could not read a line: {item.code}: {item.message}"
                )
            else:
                self._noise.passed_over(f"passed over a line from the unit: {item}")
        if self._events:
            self._queued_bytes += len(data)
            if self._queued_bytes > MAX_QUEUED_EVENT_BYTES:
                raise self._broken(
                    UnitFlooding(
                        f"the unit is flooding the link: more than {MAX_QUEUED_EVENT_BYTES} bytes "
                        "of events waiting to be read"
                    )
                )

    def _queue(self, item: Event | EventGap) -> None:
        if isinstance(item, Event):
            try:
                item = Event(item.name, item.seq, check_event(item.name, item.data))
            except Malformed as exc:
                raise self._broken(ProtocolViolation(f"{item.name} event", str(exc))) from None
        if len(self._events) >= MAX_QUEUED_EVENTS:
            raise self._broken(
                UnitFlooding(
                    f"the unit is flooding the link: more than {MAX_QUEUED_EVENTS} events waiting "
                    "to be read"
                )
            )
        self._events.append((self.clock(), item))
