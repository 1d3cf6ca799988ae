"""What a WebSocket of the table may send and how far behind it may fall.

Every socket of the site (the room's ``/ws``, the unit panel's ``/panel/ws``)
reads through :func:`read_messages`: each frame is checked before anything
parses it (:class:`FrameCheck`): a binary frame, a frame over
:data:`MAX_MESSAGE_BYTES` and a flood (over :class:`MessageRate`) are refused
to the sender alone, ``{"type": "refused", "id": null, "message": ...}``, and
the rest handed on as text; a message nested too deeply for Python's parser is
refused the same way; a sender that goes on flooding is closed (1008). The
frames the WebSocket protocol itself cannot read (invalid UTF-8: 1007, over
``Limits.ws_max_size``: 1009) never get here: the transport closes those
(transport.py).

:class:`Outbox` is one connection's queue of what waits to be sent, bounded in
bytes and in age while its socket is blocked (the peer does not read what it
was sent): a reader that falls further behind is closed (1013; the server,
server.py). All of it is sans-IO but :func:`read_messages`; the clock
is passed in.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import inspect
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from engine.apps.table.limits import Limits, RefusalLog

__all__ = [
    "MAX_MESSAGE_BYTES",
    "FLOOD_CLOSE_CODE",
    "BEHIND_CLOSE_CODE",
    "refusal",
    "MessageRate",
    "FrameCheck",
    "PeerRates",
    "Outbox",
    "read_messages",
]

log = logging.getLogger(__name__)

#: The largest message the table reads (its own are under 1 KiB); a larger
#: frame (up to ``Limits.ws_max_size``) is refused without being parsed.
MAX_MESSAGE_BYTES = 4096
#: Close codes (RFC 6455): a sender that floods breaks the table's policy; a
#: reader too far behind is told to come back later (a page reconnects and
#: gets the whole view anew).
FLOOD_CLOSE_CODE = 1008
BEHIND_CLOSE_CODE = 1013
NESTED_TEXT = "malformed JSON: nested too deeply"
BINARY_TEXT = "the table takes JSON text frames, not binary ones"


def refusal(message: str) -> str:
    """A refusal of a frame, as sent: JSON text."""
    return json.dumps({"type": "refused", "id": None, "message": message})


class MessageRate:
    """A token bucket per connection: ``rate`` messages a second after a burst
    of ``burst``. Messages over it are dropped; the dropped ones fill a second,
    smaller bucket (a quarter of the burst: ``patience``), which drains at the
    same rate: when it overflows, the sender went on flooding after it was
    told, and is to be closed. A sender a little over the rate is only dropped from."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]):
        self.rate, self.burst, self.clock = rate, burst, clock
        self.patience = max(1, burst // 4)
        self.tokens = float(burst)
        self.overflow = 0.0
        self.dropped = 0  # in all
        self._at = clock()
        self._told = False  # this flood has had its refusal

    def take(self) -> str:
        """``"ok"``: read it; ``"refuse"``: the first dropped of a flood (say so);
        ``"drop"``: dropped unread; ``"close"``: the flood went on."""
        now = self.clock()
        elapsed, self._at = max(0.0, now - self._at), now
        self.tokens = min(float(self.burst), self.tokens + elapsed * self.rate)
        self.overflow = max(0.0, self.overflow - elapsed * self.rate)
        if self.tokens >= 1:
            self.tokens -= 1
            if self.overflow == 0:
                self._told = False
            return "ok"
        self.dropped += 1
        self.overflow += 1
        if self.overflow > self.patience:
            return "close"
        if self._told:
            return "drop"
        self._told = True
        return "refuse"

    def words(self) -> str:
        return (
            f"too many messages: a connection may send {self.rate:g} a second "
            f"({self.burst} at once); the ones over that are dropped unread"
        )


class PeerRates:
    """The message budget of each address, shared by all its WebSockets
    (``Limits.peer_message_rate``): a :class:`MessageRate` per peer, held while
    the peer has a socket open (``open``/``close``), so the table keeps nothing
    of an address that has gone."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic):
        self.limits, self.clock = limits, clock
        self._rates: dict[str, tuple[MessageRate, int]] = {}

    def __len__(self) -> int:
        return len(self._rates)

    def open(self, peer: str) -> MessageRate:
        rate, sockets = self._rates.get(peer, (None, 0))
        if rate is None:
            limits = self.limits
            rate = MessageRate(limits.peer_message_rate, limits.peer_message_burst, self.clock)
        self._rates[peer] = (rate, sockets + 1)
        return rate

    def close(self, peer: str) -> None:
        rate, sockets = self._rates[peer]
        if sockets > 1:
            self._rates[peer] = (rate, sockets - 1)
        else:
            del self._rates[peer]


class FrameCheck:
    """One socket's frame checks: ``check(message)`` with an ASGI
    ``websocket.receive`` message gives ``("text", text)`` to hand on,
    ``("refuse", words)``, ``("drop", "")`` or ``("close", why)``. A message
    must pass the socket's own rate and, given ``peer_rate``, its address's."""

    def __init__(
        self,
        limits: Limits,
        clock: Callable[[], float] = time.monotonic,
        peer_rate: MessageRate | None = None,
    ):
        self.rate = MessageRate(limits.message_rate, limits.message_burst, clock)
        self.peer_rate = peer_rate

    def check(self, message: dict[str, Any]) -> tuple[str, str]:
        verdict = self.rate.take()
        if verdict == "ok" and self.peer_rate is not None:
            verdict = self.peer_rate.take()
            if verdict == "refuse":
                return "refuse", (
                    f"too many messages from your address: its connections may send "
                    f"{self.peer_rate.rate:g} a second together ({self.peer_rate.burst} at "
                    "once); the ones over that are dropped unread"
                )
            if verdict == "close":
                return "close", (
                    f"its address kept sending over {self.peer_rate.rate:g} messages a "
                    f"second ({self.peer_rate.dropped} dropped)"
                )
        if verdict == "refuse":
            return "refuse", self.rate.words()
        if verdict == "drop":
            return "drop", ""
        if verdict == "close":
            return "close", (
                f"it kept sending over {self.rate.rate:g} messages a second "
                f"({self.rate.dropped} dropped)"
            )
        text = message.get("text")
        if text is None:
            return "refuse", BINARY_TEXT
        size = len(text) if text.isascii() else len(text.encode())
        if size > MAX_MESSAGE_BYTES:
            return "refuse", (
                f"a message is at most {MAX_MESSAGE_BYTES} bytes, not {size}: refused unread"
            )
        return "text", text


class Outbox:
    """What waits to be sent to one connection, oldest first, with its size in
    bytes (the text's length: the table's messages are ASCII JSON) and when
    each was queued; the sender peeks, sends, then pops, so the one being sent
    counts until its socket took it. ``behind`` says why the reader is too far
    behind (then close it), or None: ask it while the socket is blocked (a
    burst queued at once is no reader's fault)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic):
        self.limits, self.clock = limits, clock
        self.queue: collections.deque[tuple[str, float]] = collections.deque()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.queue)

    def put(self, text: str) -> None:
        self.queue.append((text, self.clock()))
        self.bytes += len(text)

    def behind(self) -> str | None:
        if not self.queue:
            return None
        behind_s = self.clock() - self.queue[0][1]
        if self.bytes > self.limits.outbox_bytes or behind_s > self.limits.outbox_s:
            return (
                f"it fell {self.bytes} bytes and {behind_s:.1f} s behind "
                f"(the limits: {self.limits.outbox_bytes} bytes, {self.limits.outbox_s:g} s)"
            )
        return None

    def peek(self) -> str:
        return self.queue[0][0]

    def pop(self) -> str:
        text, _ = self.queue.popleft()
        self.bytes -= len(text)
        return text

    def clear(self) -> None:
        self.queue.clear()
        self.bytes = 0


async def read_messages(
    ws: Any,
    handle: Callable[[str], Awaitable[None] | None],
    refuse: Callable[[str], None],
) -> None:
    """Read ``ws`` (a Starlette WebSocket, accepted) until it closes: each
    frame that passes :class:`FrameCheck` goes to ``handle`` (awaited when it
    returns an awaitable); each refusal (encoded, see :func:`refusal`) to
    ``refuse``, which sends it to this socket alone. A flood that goes on is
    closed (1008) and logged. The limits, the log, the clock and the peers'
    shared budgets (``peer_rates``) are the site's (``create_app``'s ``app.state``)."""
    state = ws.app.state
    limits: Limits = getattr(state, "limits", None) or Limits()
    refusals: RefusalLog = getattr(state, "refusals", None) or RefusalLog(log)
    clock = getattr(state, "clock", None) or time.monotonic
    peer = ws.client.host if ws.client else "?"
    peers: PeerRates | None = getattr(state, "peer_rates", None)
    check = FrameCheck(limits, clock, None if peers is None else peers.open(peer))
    try:
        await _read(ws, handle, refuse, check, refusals, peer)
    finally:
        if peers is not None:
            peers.close(peer)


async def _read(ws, handle, refuse, check: FrameCheck, refusals: RefusalLog, peer: str) -> None:
    path = ws.url.path
    while True:
        # One message per turn of the loop: its answer goes out before the next
        # is read, and a socket with much queued does not hold the loop.
        await asyncio.sleep(0)
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        verdict, text = check.check(message)
        if verdict == "text":
            try:
                done = handle(text)
                if inspect.isawaitable(done):
                    await done
            except RecursionError:  # parsed, or answered, deeper than Python goes
                refuse(refusal(NESTED_TEXT))
        elif verdict == "refuse":
            refuse(refusal(text))
        elif verdict == "close":
            refusals.note("flood", peer, f"closed the WebSocket {path} from {peer}: {text}")
            # The server may have closed it meanwhile (a reader too far behind):
            # Starlette refuses a second close, and there is nothing left to say.
            with contextlib.suppress(RuntimeError, OSError):
                await ws.close(FLOOD_CLOSE_CODE, "too many messages")
            return
