"""The table's uvicorn: what it does at the socket, before any request reaches the app.

:func:`uvicorn_config` builds the one uvicorn ``Config`` of the table, for
``serve`` and for the tests' ``served`` alike, from the app's
:class:`~engine.apps.table.limits.Limits` (``app.state.limits``). uvicorn 0.54
has no header timeout and no connection cap at accept, so its two protocol
classes are subclassed here:

- :class:`TableH11Protocol` (HTTP): each connection is counted at accept
  (:class:`~engine.apps.table.limits.ConnectionGate`: the cap in all and per
  peer; one over is closed at once, and logged); a request must arrive whole
  (headers and any body) within ``header_timeout_s`` of its connection or of
  its first byte, or the connection is closed (slowloris).
- :class:`TableWebSocketProtocol` (uvicorn's websockets-sansio, which a
  WebSocket upgrade hands the connection to): it keeps the connection's place
  in the count; it parses only as far ahead of the app as :data:`AHEAD`
  messages (uvicorn parses all a read brings, 256 KiB of tiny frames queued
  for the app at once: a flood's memory), the rest waiting unparsed with
  reading paused until the app reads on; a text frame that is not UTF-8 fails
  the connection with 1007, and a frame the protocol cannot read (over
  ``ws_max_size``: 1009; a protocol error: 1002) closes it, each in one log
  line with the peer, never a traceback (uvicorn logs one for invalid UTF-8);
  the app's close of a flood (1008) or of a reader too far behind (1013) ends
  the connection at once, after its close frame (uvicorn waits 10 s for the
  peer's answer, parsing all it goes on sending), or drops it when the peer
  reads nothing (its socket's buffer full: uvicorn's ``send`` would wait for
  it to drain, for ever).

Every accepted socket gets ``TCP_USER_TIMEOUT`` (``Limits.send_timeout_s``): a
peer that acknowledges nothing the table sends for that long (a window it never
opens by reading, a phone gone from the Wi-Fi) is dropped by the kernel, so
that no connection waits for ever on a peer that does not read.

uvicorn's own ``Server header`` is left out, ``X-Forwarded-For`` is not
believed (a reverse proxy's clients are all the proxy), and keep-alive
follows ``keep_alive_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any, cast

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from engine.apps.table.guard import SECURITY_HEADERS
from engine.apps.table.limits import ConnectionGate, Limits, RefusalLog

__all__ = [
    "Shell",
    "TableConfig",
    "TableH11Protocol",
    "TableWebSocketProtocol",
    "uvicorn_config",
    "AHEAD",
]

#: Messages parsed ahead of the app; the rest of what arrived waits unparsed.
AHEAD = 2
#: How much of what arrived is parsed at a time (a few of the table's messages:
#: a read of tiny frames parsed whole holds the loop for milliseconds).
_FEED_BYTES = 512
#: Close codes after which the connection ends at once: the peer broke the
#: table's policy (a flood) or is told to come back (too far behind).
_FAIL_CODES = (1008, 1013)


class Shell:
    """What the two protocol classes share for one server: the limits, the
    connection count, the refusals' log."""

    def __init__(self, limits: Limits, refusals: RefusalLog):
        self.limits = limits
        self.gate = ConnectionGate(limits)
        self.refusals = refusals


class TableConfig(uvicorn.Config):
    """uvicorn's Config, carrying the :class:`Shell` to the protocols."""

    def __init__(self, app: Any, *, shell: Shell, **kwargs: Any):
        super().__init__(app, **kwargs)
        self.shell = shell


def uvicorn_config(
    app: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8700,
    limits: Limits | None = None,
) -> TableConfig:
    """The table's uvicorn Config for ``app`` (made by ``create_app``): its
    limits (``app.state.limits`` unless given), the protocol classes above."""
    limits = limits or app.state.limits
    shell = Shell(limits, app.state.refusals)
    return TableConfig(
        app,
        shell=shell,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        http=TableH11Protocol,
        ws=TableWebSocketProtocol,
        ws_max_size=limits.ws_max_size,
        # No permessage-deflate: each socket's compressor costs about 43 KB and
        # compresses the one shared view again for every socket (95 us each a
        # change, docs/performance.md); views are a few KB on a LAN.
        ws_per_message_deflate=False,
        timeout_keep_alive=limits.keep_alive_s,  # an int in uvicorn's hints; a float works
        timeout_graceful_shutdown=limits.stop_wait_s,  # the same
        server_header=False,
        proxy_headers=False,
    )


def _peer(transport: asyncio.BaseTransport) -> str:
    address = get_remote_addr(cast(asyncio.Transport, transport))
    return address[0] if address else "?"


class _Summarised:
    """uvicorn's logger for one connection, its warnings (a request that is not
    HTTP, an upgrade it does not know) summarised as refusals of that peer."""

    def __init__(self, logger: Any, protocol: TableH11Protocol):
        self._logger, self._protocol = logger, protocol

    def warning(self, message: str, *args: Any, **kwargs: Any) -> None:
        peer = self._protocol.peer
        text = message % args if args else message
        self._protocol.shell.refusals.note(
            f"http {text}", peer, f"refused a request from {peer}: {text}"
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self._logger, name)


class TableH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the connection count and the request
    timeout, its warnings summarised and its own 400 with the table's headers;
    see the module docstring."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any):
        super().__init__(config, *args, **kwargs)
        self.shell: Shell = cast(TableConfig, config).shell
        self.logger = cast(Any, _Summarised(self.logger, self))
        self.peer = "?"
        self.refused = False
        self.upgraded = False
        self.request_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.peer = _peer(transport)
        why = self.shell.gate.admit(transport, self.peer)
        if why is not None:
            self.refused = True
            self.shell.refusals.note(
                "capacity", self.peer, f"refused a connection from {self.peer}: {why}"
            )
            transport.abort()
            return
        sock = transport.get_extra_info("socket")
        if sock is not None and hasattr(socket, "TCP_USER_TIMEOUT"):
            with contextlib.suppress(OSError):  # not TCP (a Unix socket in a test)
                sock.setsockopt(
                    socket.IPPROTO_TCP,
                    socket.TCP_USER_TIMEOUT,
                    int(self.shell.limits.send_timeout_s * 1000),
                )
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.refused:
            return
        self._disarm()
        self.shell.gate.release(self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.upgraded:
            return
        # A request has begun but not ended (its headers or its body are still
        # coming): the clock runs; a request whole (or none) stops it.
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            if self.request_timer is None:
                self._arm()
        else:
            self._disarm()

    def on_response_complete(self) -> None:
        self._disarm()  # keep-alive's own timeout runs until the next request begins
        super().on_response_complete()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self.upgraded = True
        self._disarm()  # the WebSocket protocol has the connection now
        super().handle_websocket_upgrade(event)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request that is not HTTP, with the table's headers."""
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"connection", b"close"),
            *SECURITY_HEADERS,
        ]
        event = h11.Response(status_code=400, headers=headers, reason=b"Bad Request")
        for output in (
            self.conn.send(event),
            self.conn.send(h11.Data(data=msg.encode("ascii"))),
            self.conn.send(h11.EndOfMessage()),
        ):
            if output:
                self.transport.write(output)
        self.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self.request_timer = self.loop.call_later(
            self.shell.limits.header_timeout_s, self._request_timed_out
        )

    def _disarm(self) -> None:
        if self.request_timer is not None:
            self.request_timer.cancel()
            self.request_timer = None

    def _request_timed_out(self) -> None:
        self.request_timer = None
        if self.transport.is_closing():
            return
        self.shell.refusals.note(
            "timeout",
            self.peer,
            f"closed a connection from {self.peer}: no whole request within "
            f"{self.shell.limits.header_timeout_s:g} s",
        )
        self.transport.abort()


class TableWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol, counted, parsing only a little
    ahead of the app, with frame errors in one line and the app's closes of a
    flood or a laggard at once; see the module docstring."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any):
        super().__init__(config, *args, **kwargs)
        self.shell: Shell = cast(TableConfig, config).shell
        self.unparsed = bytearray()

    def connection_lost(self, exc: Exception | None) -> None:
        self.shell.gate.release(self.transport)
        self.unparsed.clear()
        super().connection_lost(exc)

    @property
    def peer(self) -> str:
        return self.client[0] if self.client else "?"

    # -- parsing no further ahead of the app than it reads ---------------------------------

    def data_received(self, data: bytes) -> None:
        self.unparsed += data
        self._feed()

    def _feed(self) -> None:
        while self.unparsed and not self.transport.is_closing():
            if self.queue.qsize() >= AHEAD and not self.close_sent:
                break  # what follows waits for the app (after a close: its answer, parsed)
            piece = bytes(self.unparsed[:_FEED_BYTES])
            del self.unparsed[:_FEED_BYTES]
            super().data_received(piece)
        if self.unparsed and not self.read_paused and not self.transport.is_closing():
            self.read_paused = True
            self.transport.pause_reading()

    async def receive(self) -> Any:
        message = await self.queue.get()
        if self.unparsed and self.queue.qsize() < AHEAD:
            self._feed()
        if self.read_paused and self.queue.empty() and not self.unparsed:
            self.read_paused = False
            self.transport.resume_reading()
        return message

    # -- frames it cannot read: one line each ------------------------------------------------

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
            try:
                data.decode()
            except UnicodeDecodeError as exc:
                self.frames = []
                self.conn.fail(1007, f"invalid UTF-8 at byte {exc.start}")
                self.handle_parser_exception()
                return
        super().send_receive_event_to_app()

    def handle_parser_exception(self) -> None:
        close = self.conn.close_sent
        if close is not None:
            path = getattr(self, "request", None)
            where = f" {path.path}" if path is not None else ""
            self.shell.refusals.note(
                f"frame {close.code}",
                self.peer,
                f"closed the WebSocket{where} from {self.peer}: {close.code} "
                f"{close.reason or 'a frame it could not read'}",
            )
        super().handle_parser_exception()

    # -- the app's close of a flood or a laggard: at once --------------------------------------

    async def send(self, message: Any) -> None:
        if (
            message["type"] != "websocket.close"
            or message.get("code") not in _FAIL_CODES
            or not self.handshake_complete
            or self.close_sent
            or self.disconnected
        ):
            await super().send(message)
            return
        code, reason = message["code"], message.get("reason") or ""
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        self.close_sent = True
        self.unparsed.clear()
        if not self.writable.is_set():
            # The peer reads nothing: a close frame would wait behind all it
            # never read. Drop the connection (the app has its disconnect).
            self.transport.abort()
            return
        self.conn.send_close(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.transport.close()  # no wait for its answer: it broke the rules or lags
