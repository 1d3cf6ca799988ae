"""A small server for the paddles in a real browser (tests and benchmarks/paddle_clock.py):
the static files, a page that is one paddle (seat from ?seat=N) and a /ws that answers
clock pings and hands each paddle_tap to a PhonePaddles port fought in a thread."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

STATIC = Path(__file__).resolve().parents[1] / "engine" / "apps" / "table" / "static"

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/static/paddle.css"></head><body>
<script type="module">
import { Paddles } from "/static/paddle.js";
const seat = Number(new URLSearchParams(location.search).get("seat"));
const ws = new WebSocket(`ws://${location.host}/ws`);
const link = { send(m) { if (ws.readyState !== 1) return false; ws.send(JSON.stringify(m)); return true; } };
const paddles = new Paddles(link, () => seat);
window.paddles = paddles;
window.seen = [];
ws.addEventListener("open", () => { ws.send(JSON.stringify({ type: "hello", seat })); paddles.startClock(); });
ws.addEventListener("message", (e) => { const m = JSON.parse(e.data); window.seen.push(m.type); paddles.handle(m); });
</script></body></html>"""

#: Wraps the page's WebSocket: every frame each way waits DELAY ms plus up to JITTER ms
#: (window.__delay / window.__jitter, set by the caller's init script before this one).
DELAY_SCRIPT = """(() => {
  const Real = window.WebSocket;
  const wait = () => (window.__delay || 0) + Math.random() * (window.__jitter || 0);
  // a socket keeps its frames in order (TCP): a frame is never due before the one before it
  const due = (socket, way) => {
    const at = Math.max(socket[way] || 0, performance.now() + wait());
    socket[way] = at;
    return Math.max(0, at - performance.now());
  };
  class Delayed extends Real {
    send(data) {
      setTimeout(() => { if (this.readyState === 1) Real.prototype.send.call(this, data); },
        due(this, "__out"));
    }
    addEventListener(type, fn, options) {
      if (type !== "message") return super.addEventListener(type, fn, options);
      return super.addEventListener("message", (event) => {
        const copy = new MessageEvent("message", { data: event.data });
        setTimeout(() => fn.call(this, copy), due(this, "__in"));
      }, options);
    }
  }
  window.WebSocket = Delayed;
})();"""


class PaddleServer:
    """The sockets by seat; ``send`` (the port's) broadcasts from any thread."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queues: dict[int, asyncio.Queue] = {}
        self.port: Any = None
        self.rounds = 0  # the paddle_round messages the port sent
        self.sent = threading.Condition()

    def send(self, message: dict[str, Any]) -> None:
        loop = self.loop
        assert loop is not None
        with self.sent:
            self.rounds += message["type"] == "paddle_round"
            self.sent.notify_all()
        for queue in list(self.queues.values()):
            loop.call_soon_threadsafe(queue.put_nowait, message)

    async def _socket(self, ws: WebSocket) -> None:
        await ws.accept()
        self.loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        hello = await ws.receive_json()
        while hello.get("type") != "hello":  # a page that pinged first
            hello = await ws.receive_json()
        seat = int(hello["seat"])
        self.queues[seat] = queue

        async def pump() -> None:
            while True:
                await ws.send_json(await queue.get())

        pumping = asyncio.create_task(pump())
        try:
            while True:
                message = await ws.receive_json()
                if message.get("type") == "ping":
                    pong = {
                        "type": "pong",
                        "id": message["id"],
                        "server_ms": time.monotonic() * 1000,
                    }
                    queue.put_nowait(pong)
                elif message.get("type") == "paddle_tap" and self.port is not None:
                    self.port.report(seat, message)
        except WebSocketDisconnect:
            return  # the page went away: its socket's work is done
        finally:
            pumping.cancel()
            self.queues.pop(seat, None)

    def wait_past(self, rounds: int, done: Any) -> None:
        """Until the port sent more than ``rounds`` rounds, or ``done()``."""
        with self.sent:
            self.sent.wait_for(lambda: self.rounds > rounds or done(), timeout=30)

    def app(self) -> Starlette:
        async def page(request):
            return HTMLResponse(PAGE)

        return Starlette(
            routes=[
                Route("/", page),
                Mount("/static", StaticFiles(directory=STATIC)),
                WebSocketRoute("/ws", self._socket),
            ]
        )


@contextlib.contextmanager
def serving(app: Starlette, sock: socket.socket) -> Iterator[None]:
    """``app`` served by a plain uvicorn in a thread on ``sock`` until the block ends."""
    import uvicorn

    from tests.table_helpers import uvicorn_serving

    config = uvicorn.Config(app, log_level="warning", ws="websockets-sansio")
    with uvicorn_serving(config, sock, "the paddles' server"):
        yield
