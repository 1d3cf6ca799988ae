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
  in the count; a text frame that is not UTF-8 fails the connection with 1007,
  and a frame the protocol cannot read (over ``ws_max_size``: 1009; a
  protocol error: 1002) closes it, each in one log line with the peer, never a
  traceback (uvicorn logs one for invalid UTF-8); and a close asked for while
  the peer reads nothing (its socket's buffer full: uvicorn's ``send`` would
  wait for it to drain, for ever) drops the connection at once.

uvicorn's own ``Server header`` is left out, ``X-Forwarded-For`` is not
believed (a reverse proxy's clients are all the proxy), and keep-alive
follows ``keep_alive_s``.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from engine.apps.table.limits import ConnectionGate, Limits, RefusalLog

__all__ = ["Shell", "TableConfig", "TableH11Protocol", "TableWebSocketProtocol", "uvicorn_config"]


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
        timeout_keep_alive=limits.keep_alive_s,  # an int in uvicorn's hints; a float works
        server_header=False,
        proxy_headers=False,
    )


def _peer(transport: asyncio.BaseTransport) -> str:
    address = get_remote_addr(cast(asyncio.Transport, transport))
    return address[0] if address else "?"


class TableH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the connection count and the request
    timeout; see the module docstring."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any):
        super().__init__(config, *args, **kwargs)
        self.shell: Shell = cast(TableConfig, config).shell
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
    """uvicorn's websockets-sansio protocol, counted, with frame errors in one
    line and a close that does not wait for a reader that reads nothing."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any):
        super().__init__(config, *args, **kwargs)
        self.shell: Shell = cast(TableConfig, config).shell

    def connection_lost(self, exc: Exception | None) -> None:
        self.shell.gate.release(self.transport)
        super().connection_lost(exc)

    @property
    def peer(self) -> str:
        return self.client[0] if self.client else "?"

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

    async def send(self, message: Any) -> None:
        if (
            message["type"] == "websocket.close"
            and self.handshake_complete
            and not self.close_sent
            and not self.disconnected
            and not self.writable.is_set()
        ):
            # The peer reads nothing: a close frame would wait behind what it
            # never read. Drop the connection (the app sees the disconnect).
            code = message.get("code") or 1000
            self.queue.put_nowait(
                {"type": "websocket.disconnect", "code": code, "reason": message.get("reason", "")}
            )
            self.close_sent = True
            self.transport.abort()
            return
        await super().send(message)
