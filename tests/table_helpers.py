"""What the browser table's tests share: the frames a page receives, searches
for cards and keys in them, a tap that may miss, and the app served by uvicorn
in a thread on a free loopback port, with the protections ``showdown table``
serves it with (the same uvicorn Config: engine.apps.table.transport)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

__all__ = ["Frames", "card_lists", "has_key", "tapped", "free_port", "served", "RawWebSocket"]


class Frames:
    """Every WebSocket frame a page (or the pages it is told to ``watch``)
    receives, parsed; and the script errors they raise."""

    def __init__(self, page):
        self.messages: list[dict] = []
        self.errors: list[str] = []
        self.watch(page)

    def watch(self, page) -> None:
        page.on("websocket", self._socket)
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _socket(self, ws):
        ws.on("framereceived", lambda payload: self.messages.append(json.loads(payload)))

    def views(self) -> list[dict]:
        return [m["view"] for m in self.messages if m.get("type") == "view"]


def card_lists(value) -> list[list[str]]:
    """Every list of cards ({"text": ...} objects) anywhere inside ``value``."""
    found: list[list[str]] = []
    if isinstance(value, dict):
        for item in value.values():
            found += card_lists(item)
    elif isinstance(value, list):
        if value and all(isinstance(v, dict) and "text" in v for v in value):
            found.append(sorted(v["text"] for v in value))
        for item in value:
            found += card_lists(item)
    return found


def has_key(value, key: str) -> bool:
    """Whether ``key`` is a key of any object anywhere inside ``value``."""
    if isinstance(value, dict):
        return key in value or any(has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(has_key(v, key) for v in value)
    return False


def tapped(locator) -> bool:
    try:
        locator.tap(timeout=2000)
    except PlaywrightTimeout:
        return False
    return True


@contextlib.contextmanager
def free_port() -> Iterator[tuple[socket.socket, str]]:
    """A bound loopback socket on a free port, and its ``http://`` URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock, f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


@contextlib.contextmanager
def served(app, sock: socket.socket) -> Iterator[None]:
    """Serve ``app`` (``create_app``'s) on ``sock`` with uvicorn in a thread until
    the block ends, configured as ``serve`` configures it (its limits, the
    connection caps, the request timeout, the frame checks)."""
    from engine.apps.table.transport import uvicorn_config

    with uvicorn_serving(uvicorn_config(app), sock, "the server"):
        yield


@contextlib.contextmanager
def uvicorn_serving(
    config, sock: socket.socket, what: str
) -> Iterator[tuple[Any, threading.Thread]]:
    """A uvicorn server of ``config`` in a thread on ``sock``, started before the
    block and stopped after it (forced, if it has not stopped in 10 s); ``what``
    names it if it does not start. Yields the server and its thread."""
    import uvicorn

    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])))
    thread.start()
    try:
        for _ in range(500):
            if server.started:
                break
            threading.Event().wait(0.01)
        assert server.started, f"{what} did not start"
        yield server, thread
    finally:
        server.should_exit = True
        thread.join(10)
        server.force_exit = True
        thread.join(10)


class RawWebSocket:
    """A WebSocket client on a plain blocking socket (websockets' sans-IO
    ClientProtocol), for the frames a browser never sends: invalid UTF-8, a
    frame too large; and for a reader that reads nothing until told. ``host``
    and ``origin`` are the handshake's headers; ``rcvbuf`` the socket's
    receive buffer; ``source`` the local address to connect from."""

    def __init__(
        self,
        port: int,
        path: str = "/ws",
        *,
        host: str | None = None,
        origin: str | None = None,
        rcvbuf: int | None = None,
        source: str = "127.0.0.1",
        timeout: float = 10.0,
    ):
        from websockets.client import ClientProtocol
        from websockets.uri import parse_uri

        self.sock = socket.socket()
        if rcvbuf is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)  # a safety net: every read below ends sooner
        self.sock.bind((source, 0))
        self.sock.connect(("127.0.0.1", port))
        self.protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}{path}"), max_size=None)
        request = self.protocol.connect()
        if host is not None:
            request.headers["Host"] = host
        if origin is not None:
            request.headers["Origin"] = origin
        self.protocol.send_request(request)
        self._flush()
        self.response: Any = None  # the handshake's answer (websockets' Response)
        self.frames: list = []
        while self.response is None:
            if not self._read():
                raise ConnectionResetError("the server closed the connection before answering")
            for event in self.protocol.events_received():
                if hasattr(event, "status_code"):
                    self.response = event
                else:
                    self.frames.append(event)

    @property
    def status(self) -> int:
        return self.response.status_code

    def _flush(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                self.sock.sendall(data)

    def _read(self) -> bool:
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            data = b""
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        return bool(data)

    def send_text(self, text: str | bytes) -> None:
        self.protocol.send_text(text.encode() if isinstance(text, str) else text)
        self._flush()

    def send_binary(self, data: bytes) -> None:
        self.protocol.send_binary(data)
        self._flush()

    def next_text(self) -> str:
        """The next text message the server sends (its pings answered)."""
        from websockets.frames import Opcode

        while True:
            while self.frames:
                frame = self.frames.pop(0)
                if frame.opcode is Opcode.TEXT:
                    return frame.data.decode()
                if frame.opcode is Opcode.CLOSE:
                    raise AssertionError(f"closed: {self.protocol.close_rcvd}")
            if not self._read():
                raise AssertionError("the server closed the connection")
            self.frames += self.protocol.events_received()
            self._flush()  # pongs, a close's answer

    def closed(self) -> tuple[int, str, list[str]]:
        """Read until the server closes: (its close code, or 1006 for a
        connection dropped without one; the reason; the text messages before)."""
        from websockets.frames import Opcode

        texts: list[str] = []
        ended = False
        while True:
            for frame in [*self.frames, *self.protocol.events_received()]:
                if frame.opcode is Opcode.TEXT:
                    texts.append(frame.data.decode())
            self.frames = []
            close = self.protocol.close_rcvd
            if close is not None:
                return close.code, close.reason, texts
            if ended:
                return 1006, "", texts
            ended = not self._read()

    def close(self) -> None:
        self.sock.close()
