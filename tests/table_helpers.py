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

from playwright.sync_api import TimeoutError as PlaywrightTimeout

__all__ = ["Frames", "card_lists", "has_key", "tapped", "free_port", "served"]


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
    import uvicorn

    from engine.apps.table.transport import uvicorn_config

    server = uvicorn.Server(uvicorn_config(app))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])))
    thread.start()
    try:
        for _ in range(500):
            if server.started:
                break
            threading.Event().wait(0.01)
        assert server.started, "the server did not start"
        yield
    finally:
        server.should_exit = True
        thread.join(10)
