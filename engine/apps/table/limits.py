"""What the table's web server allows each client, and how it says no.

:class:`Limits` holds every figure (one frozen value, given by ``showdown table``
to :func:`~engine.apps.table.server.create_app`, which keeps it in
``app.state.limits`` for :func:`~engine.apps.table.server.serve`):
connections open at once (HTTP and WebSocket together) and per peer, the time
a request has to arrive whole, HTTP keep-alive, the largest WebSocket frame,
each socket's message rate, how far behind a reader may fall, and how long a
peer may take nothing of what it is sent.

:func:`fit_to_fd_limit` is the start-up check, as Redis fits ``maxclients``:
a cap the process's open-file limit cannot hold raises the soft limit toward
the hard one, or else lowers the cap, with a warning.
:class:`ConnectionGate` counts the open connections (the transport asks it at
accept). :class:`RefusalLog` writes the refusals to the log, one line per kind
and peer and at most one every 10 s (the next says how many it left out), so
that nobody can fill the journal by being refused.
"""

from __future__ import annotations

import dataclasses
import logging
import resource
import time
from collections import Counter
from collections.abc import Callable, Hashable

__all__ = [
    "Limits",
    "FD_RESERVE",
    "fit_to_fd_limit",
    "ConnectionGate",
    "RefusalLog",
]

log = logging.getLogger(__name__)
#: Where the refusals are logged (the peer in each line).
refused_log = logging.getLogger("engine.apps.table.refused")

#: Open files the table needs besides its connections: stdio, the listening
#: sockets, the event loop's own, the save file, the unit's links, imports.
FD_RESERVE = 64
#: Fewer connections than this and the table is no use (a display, a phone, their pages).
_MIN_CONNECTIONS = 16


@dataclasses.dataclass(frozen=True)
class Limits:
    """The figures; the defaults fit a real table (16 phones, a few displays,
    the panel and history pages, each browser's few extra HTTP connections)
    several times over. A benchmark that opens 1,000 displays from one host
    raises ``max_connections`` and ``max_per_peer`` (``--max-connections``,
    ``--max-per-peer``)."""

    #: Connections open at once, HTTP and WebSocket together; one more is closed at accept.
    max_connections: int = 512
    #: Connections open at once from one address.
    max_per_peer: int = 64
    #: A request (its headers and any body) must arrive whole within this
    #: time of its connection or of its first byte (slowloris).
    header_timeout_s: float = 10.0
    #: An idle HTTP keep-alive connection is closed after this.
    keep_alive_s: float = 5.0
    #: A WebSocket frame larger than this closes the socket (1009); frames over
    #: ``MAX_MESSAGE_BYTES`` (frames.py) and up to this are refused unread.
    ws_max_size: int = 16 * 1024
    #: Messages a second each WebSocket may send, after a burst of ``message_burst``.
    message_rate: float = 20.0
    message_burst: int = 40
    #: Messages a second all the WebSockets of one address may send together,
    #: after a burst of ``peer_message_burst``: many sockets from one device
    #: cost the table no more than this (a real device sends under one a second).
    peer_message_rate: float = 40.0
    peer_message_burst: int = 80
    #: New connections a second one address may open, after a burst of
    #: ``connect_burst`` (a page load is a few, a reconnect one): a device that
    #: opens sockets as fast as it can costs the table a handshake at this rate.
    connect_rate: float = 5.0
    connect_burst: int = 40
    #: A reader that falls this far behind (bytes not yet handed to its
    #: socket, or the oldest of them waiting this long) is closed (1013).
    outbox_bytes: int = 256 * 1024
    outbox_s: float = 30.0
    #: A peer that acknowledges nothing sent to it for this long is dropped
    #: (TCP_USER_TIMEOUT: a window it never opens, a phone gone from the Wi-Fi).
    send_timeout_s: float = 30.0
    #: On Ctrl-C or SIGTERM the requests and sockets still open get this long to
    #: finish, then are cancelled and the table stops (uvicorn would wait for ever).
    stop_wait_s: float = 5.0

    def __post_init__(self) -> None:
        for name in (
            "max_connections",
            "max_per_peer",
            "ws_max_size",
            "message_burst",
            "peer_message_burst",
            "connect_burst",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a whole number >= 1, not {value!r}")
        for name in (
            "header_timeout_s",
            "keep_alive_s",
            "message_rate",
            "peer_message_rate",
            "connect_rate",
            "outbox_s",
            "send_timeout_s",
            "stop_wait_s",
        ):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be more than 0, not {getattr(self, name)!r}")
        if self.outbox_bytes < self.ws_max_size:
            raise ValueError(
                f"outbox_bytes ({self.outbox_bytes}) must hold a whole frame "
                f"(ws_max_size {self.ws_max_size})"
            )


def fit_to_fd_limit(
    limits: Limits,
    *,
    getrlimit: Callable[[int], tuple[int, int]] = resource.getrlimit,
    setrlimit: Callable[[int, tuple[int, int]], None] = resource.setrlimit,
) -> Limits:
    """``limits`` with a connection cap the open-file limit holds (each
    connection is a file, plus :data:`FD_RESERVE`). The soft limit is raised
    toward the hard one when it is too low; when that is not enough (or not
    allowed), the cap is lowered to what fits, with a warning. ValueError when
    fewer than 16 connections would fit."""
    needed = limits.max_connections + FD_RESERVE
    soft, hard = getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return limits
    goal = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if goal > soft:
        try:
            setrlimit(resource.RLIMIT_NOFILE, (goal, hard))
        except (OSError, ValueError) as exc:  # not allowed (a seccomp filter, a container)
            log.info("cannot raise the open-file limit from %d to %d: %s", soft, goal, exc)
        else:
            soft = goal
    if soft >= needed:
        return limits
    fits = soft - FD_RESERVE
    if fits < _MIN_CONNECTIONS:
        raise ValueError(
            f"the open-file limit is {soft} (ulimit -n): room for {max(fits, 0)} connections, "
            f"fewer than the {_MIN_CONNECTIONS} a table needs; raise it (ulimit -n, or "
            "LimitNOFILE= in the service)"
        )
    log.warning(
        "the open-file limit is %d (ulimit -n; the hard limit %s): the table takes at most "
        "%d connections at once, not %d; raise it (ulimit -n, LimitNOFILE= in the service) "
        "or lower --max-connections",
        soft,
        "unlimited" if hard == resource.RLIM_INFINITY else hard,
        fits,
        limits.max_connections,
    )
    return dataclasses.replace(limits, max_connections=fits)


class ConnectionGate:
    """The connections open now, in all and per peer, and how fast each peer
    opens new ones (a token bucket per address, ``connect_rate`` after a burst
    of ``connect_burst``). ``admit`` at accept (None: admitted; else why not, in
    words); ``release`` when it closes (once or more: only the first counts)."""

    #: Buckets kept at most before the full ones (of peers with nothing open) are swept.
    SWEEP_AT = 1024

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic):
        self.limits = limits
        self.clock = clock
        self.open = 0
        self.per_peer: Counter[str] = Counter()
        self._peers: dict[Hashable, str] = {}
        self._buckets: dict[str, tuple[float, float]] = {}  # peer: (tokens, when)

    def admit(self, key: Hashable, peer: str) -> str | None:
        limits = self.limits
        if self.open >= limits.max_connections:
            return (
                f"{self.open} connections are open, the most the table takes "
                f"(--max-connections {limits.max_connections})"
            )
        if self.per_peer[peer] >= limits.max_per_peer:
            return (
                f"{peer} has {self.per_peer[peer]} connections open, the most one address "
                f"may have (--max-per-peer {limits.max_per_peer})"
            )
        tokens = self._tokens(peer)
        if tokens < 1:
            return (
                f"{peer} opens connections faster than {limits.connect_rate:g} a second "
                f"({limits.connect_burst} at once)"
            )
        self._buckets[peer] = (tokens - 1, self.clock())
        self._peers[key] = peer
        self.open += 1
        self.per_peer[peer] += 1
        return None

    def release(self, key: Hashable) -> None:
        peer = self._peers.pop(key, None)
        if peer is None:
            return
        self.open -= 1
        self.per_peer[peer] -= 1
        if not self.per_peer[peer]:
            del self.per_peer[peer]
        if len(self._buckets) > self.SWEEP_AT:
            self._sweep()

    def _tokens(self, peer: str) -> float:
        burst = float(self.limits.connect_burst)
        tokens, when = self._buckets.get(peer, (burst, self.clock()))
        return min(burst, tokens + (self.clock() - when) * self.limits.connect_rate)

    def _sweep(self) -> None:
        """Forget the peers with nothing open whose bucket has filled again:
        memory for addresses that have gone, bounded."""
        burst = self.limits.connect_burst
        for peer in [p for p in self._buckets if p not in self.per_peer]:
            if self._tokens(peer) >= burst:
                del self._buckets[peer]


class RefusalLog:
    """Refusals in the log (WARNING), summarised: the first of a kind from a
    peer is logged at once; the same again from that peer within ``window_s``
    is counted, and the next line logged for it says how many were left out.
    At most ``per_kind`` lines of one kind (all peers) are logged per window;
    the others are counted the same way, for the kind."""

    def __init__(
        self,
        logger: logging.Logger | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        window_s: float = 10.0,
        per_kind: int = 20,
    ):
        self.logger = logger or refused_log
        self.clock = clock
        self.window_s = window_s
        self.per_kind = per_kind
        self._last: dict[tuple[str, str], list[float]] = {}  # (kind, peer): [when, left out]
        self._kinds: dict[str, list[float]] = {}  # kind: [window start, lines, left out]

    def note(self, kind: str, peer: str, line: str) -> bool:
        """Log ``line`` (a refusal of ``kind`` from ``peer``) unless it was said
        lately; True when it was logged."""
        now = self.clock()
        last = self._last.get((kind, peer))
        if last is not None and now - last[0] < self.window_s:
            last[1] += 1
            return False
        window = self._kinds.setdefault(kind, [now, 0, 0])
        if now - window[0] >= self.window_s:
            window[:] = [now, 0, window[2]]
        if window[1] >= self.per_kind:
            window[2] += 1
            return False
        window[1] += 1
        more = []
        if last is not None and last[1]:
            more.append(f"{last[1]:g} more like it from {peer} before this")
        if window[2]:
            more.append(f"{window[2]:g} more of this kind from other peers before this")
            window[2] = 0
        self.logger.warning("%s%s", line, f" ({'; '.join(more)})" if more else "")
        self._forget(now)
        self._last[(kind, peer)] = [now, 0]
        return True

    def _forget(self, now: float) -> None:
        if len(self._last) > 1024:
            old = [key for key, (when, _) in self._last.items() if now - when >= self.window_s]
            for key in old:
                del self._last[key]
