"""The table's app driven through ASGI in a test's own event loop, without a
server: its lifespan, plain GETs, and WebSockets whose every message the test
sends and reads (as uvicorn's websockets-sansio would hand them over)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

__all__ = ["Asgi", "AsgiSocket", "HOST"]

#: The Host a test's requests name unless told: the table's default address.
HOST = "127.0.0.1:8700"
#: How long a test waits for the app's next message before it fails (a safety
#: net only: every awaited message comes at once or never).
WAIT_S = 5.0


def _headers(host: str | None, extra: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    pairs = ([("host", host)] if host is not None else []) + extra
    return [(name.lower().encode(), value.encode("latin-1")) for name, value in pairs]


class Asgi:
    """``async with Asgi(app) as site:`` runs the app's lifespan around the block."""

    def __init__(self, app: Any, client: tuple[str, int] = ("127.0.0.1", 50000)):
        self.app, self.client = app, client
        self._to_app: asyncio.Queue = asyncio.Queue()
        self._from_app: asyncio.Queue = asyncio.Queue()
        self._task: asyncio.Task | None = None

    async def __aenter__(self) -> Asgi:
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self._task = asyncio.create_task(self.app(scope, self._to_app.get, self._from_app.put))
        await self._to_app.put({"type": "lifespan.startup"})
        started = await asyncio.wait_for(self._from_app.get(), WAIT_S)
        assert started["type"] == "lifespan.startup.complete", started
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._to_app.put({"type": "lifespan.shutdown"})
        await asyncio.wait_for(self._from_app.get(), WAIT_S)
        assert self._task is not None
        await asyncio.wait_for(self._task, WAIT_S)

    def _scope(self, kind: str, path: str, host: str | None, headers: list) -> dict[str, Any]:
        path, _, query = path.partition("?")
        scope: dict[str, Any] = {
            "type": kind,
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "scheme": "http" if kind == "http" else "ws",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": _headers(host, headers),
            "server": ("127.0.0.1", 8700),
            "client": self.client,
            "state": {},
        }
        if kind == "http":
            scope["method"] = "GET"
        else:
            scope["subprotocols"] = []
            scope["extensions"] = {"websocket.http.response": {}}
        return scope

    async def get(
        self, path: str, *, host: str | None = HOST, headers: list[tuple[str, str]] = ()
    ) -> tuple[int, dict[str, str], bytes]:
        """GET ``path``: (status, headers with lower-case names, body)."""
        sent: list[dict] = []
        requested: list[bool] = []
        done = asyncio.Event()

        async def receive():
            if not requested:
                requested.append(True)
                return {"type": "http.request", "body": b"", "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                done.set()

        scope = self._scope("http", path, host, list(headers))
        await asyncio.wait_for(self.app(scope, receive, send), WAIT_S)
        start = sent[0]
        head = {k.decode().lower(): v.decode("latin-1") for k, v in start["headers"]}
        return start["status"], head, b"".join(m.get("body", b"") for m in sent[1:])

    async def websocket(
        self, path: str = "/ws", *, host: str | None = HOST, headers: list[tuple[str, str]] = ()
    ) -> AsgiSocket:
        """Open a WebSocket: the app's answer to the handshake is ``socket.answer``."""
        socket = AsgiSocket()
        scope = self._scope("websocket", path, host, list(headers))
        socket.task = asyncio.create_task(self.app(scope, socket.receive, socket.from_app.put))
        await socket.to_app.put({"type": "websocket.connect"})
        socket.answer = await socket.next()
        if socket.answer["type"] == "websocket.http.response.start":
            body = await socket.next()
            socket.answer = {**socket.answer, "body": body["body"]}
        return socket


class AsgiSocket:
    """One WebSocket through ASGI: what the test sends, what the app sends."""

    def __init__(self) -> None:
        self.to_app: asyncio.Queue = asyncio.Queue()
        self.from_app: asyncio.Queue = asyncio.Queue()
        self.task: asyncio.Task | None = None
        self.answer: dict[str, Any] = {}

    async def receive(self) -> dict[str, Any]:
        """The app's ``receive``: the next message the test sent, after one turn
        of the loop (as a server hands them over: one read at a time, the loop
        going round between two)."""
        await asyncio.sleep(0)
        return await self.to_app.get()

    @property
    def accepted(self) -> bool:
        return self.answer.get("type") == "websocket.accept"

    async def next(self) -> dict[str, Any]:
        return await asyncio.wait_for(self.from_app.get(), WAIT_S)

    async def send(self, text: str | None = None, *, data: bytes | None = None) -> None:
        message = {"type": "websocket.receive", "text": text} if data is None else None
        await self.to_app.put(message or {"type": "websocket.receive", "bytes": data})

    async def send_json(self, message: dict) -> None:
        await self.send(json.dumps(message))

    async def json(self) -> dict[str, Any]:
        """The next message the app sends, parsed (a close fails the test)."""
        message = await self.next()
        assert message["type"] == "websocket.send", message
        return json.loads(message["text"])

    async def until(self, kind: str) -> dict[str, Any]:
        """The app's next message of ``type`` ``kind``, past the others."""
        while (message := await self.json())["type"] != kind:
            pass
        return message

    async def close(self) -> None:
        await self.to_app.put({"type": "websocket.disconnect", "code": 1000})
        assert self.task is not None
        await asyncio.wait_for(self.task, WAIT_S)
