"""The web server of the browser table: Starlette on uvicorn, one WebSocket per page.

The thin shell around a sans-IO room (:class:`TableRoom`: the table or the companion): it
serves the pages and the static files, feeds each WebSocket's messages to the
room and sends each connection what the room has for it, and runs the match's
machines (:class:`Runner`): the bots, after a pacing delay so people can follow;
the showdowns, on the unit port in a worker thread (``run_showdown`` blocks)
while the server keeps serving; the next round, after a pause. A unit port's
hooks (a ``RemoteUnit``'s ``table`` and ``say``, called from the worker thread)
are handed to the room on the event loop's thread.

Routes: ``/`` the display, ``/phone`` (and ``/join``) the phone page,
``/static/...``, ``/qr.svg`` (the join URL as a QR code), ``/favicon.ico``,
``/ws`` the WebSocket.

What the server refuses, and where: the ``Host`` and ``Origin`` checks and the
security headers are middleware over the whole site (guard.py); each
WebSocket's frames are checked and rate-limited before the room reads them
(frames.py), and what it is sent waits in a bounded outbox (a reader too far
behind is closed); the connection caps, the request timeout and the frames
the WebSocket protocol cannot read are uvicorn's protocols, subclassed
(transport.py); every figure is one :class:`~engine.apps.table.limits.Limits`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, cast

import segno
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from engine.apps.table.frames import BEHIND_CLOSE_CODE, Outbox, PeerRates, read_messages
from engine.apps.table.guard import Hosts
from engine.apps.table.limits import Limits, RefusalLog, fit_to_fd_limit
from engine.apps.table.setup import host_forms
from engine.apps.table.site import GuardedSite
from engine.apps.table.transport import uvicorn_config
from engine.game.errors import UnitProblem
from engine.units.ports import ShowdownOutcome, ShowdownRequest, UnitPort
from firmware_host.people.console import CommandError

__all__ = [
    "create_app",
    "serve",
    "Runner",
    "UnitHooks",
    "Addon",
    "TableRoom",
    "ClaimingRoom",
    "STATIC",
]

log = logging.getLogger(__name__)

#: The pages, scripts and styles, served as they are (no build step).
STATIC = Path(__file__).resolve().parent / "static"


#: What /panel says when there is no unit to draw (``--unit manual``, a serial unit).
NO_PANEL = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>No unit panel</title><link rel="stylesheet" href="/static/table.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml"></head>
<body class="display"><main><section class="panel"><h1>No unit panel</h1>
<p>This table has no unit to draw: its showdowns are reported by hand
(<code>--unit manual</code>), or its unit is on a serial line, which the game's link holds.
Start the table with <code>--unit sim</code> or <code>--unit socket://HOST:PORT</code>
to see the unit here.</p><p><a href="/">Back to the table</a></p></section></main></body></html>
"""


class TableRoom(Protocol):
    """What the server and its runner ask of a room: the table's
    (``engine.apps.table.room.Room``) and the companion's
    (``engine.apps.table.companion.CompanionRoom``). Sans-IO, see room.py."""

    unit: UnitPort
    join_url: str
    on_change: Callable[[], None] | None
    host_paused: bool
    clock: Callable[[], float]

    def connect(self, peer: str = "") -> Any: ...
    def disconnect(self, conn: Any) -> None: ...
    def receive(self, conn: Any, text: str) -> None: ...
    def take(self, conn: Any) -> list[str]: ...
    def next_task(self) -> str | None: ...
    def bot_step(self) -> None: ...
    def next_round(self) -> None: ...
    def showdown_request(self) -> ShowdownRequest: ...
    def hold_showdown(self) -> None: ...
    def finish_showdown(self, outcome: ShowdownOutcome) -> None: ...
    def pause(self, problem: str) -> None: ...
    def unit_event(self, name: str, data: dict[str, Any]) -> None: ...
    def unit_said(self, text: str) -> None: ...
    def next_deadline(self) -> float | None: ...
    def run_due(self) -> None: ...


class ClaimingRoom(TableRoom, Protocol):
    """A room whose bots claim out of turn (UNO Party!: the table's ``Room``):
    its ``next_task`` may say ``"claims"``."""

    def claim_delay(self) -> float: ...
    def claims_position(self) -> str: ...
    def claims_step(self) -> None: ...


class Runner:
    """Runs the match's machines for ``room`` on the event loop: bots after
    ``pace_s``, showdowns in a worker thread, the next round after
    ``round_pause_s``; UNO Party!'s bots claim out of turn after their
    reaction time (``room.claim_delay()``; at once with ``pace_s`` 0), while the
    people's phones claim whenever their taps arrive; the room's own timers
    (``room.next_deadline()``, on ``room.clock``: a lobby seat whose phone is
    away) are run when due (``room.run_due()``). ``wake()`` whenever the room
    changed."""

    def __init__(self, room: TableRoom, *, pace_s: float = 0.8, round_pause_s: float = 5.0):
        self.room = room
        self.pace_s = pace_s
        self.round_pause_s = round_pause_s
        self._wake = asyncio.Event()

    def wake(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        while True:
            try:
                await self._next()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a bug must not leave the table stalled without a word
                log.exception("the table's runner failed")
                self.room.pause(f"The game is paused: the server failed: {exc!r}")

    async def _next(self) -> None:
        """Do what the match needs next, or wait for a change or the room's next deadline."""
        room = self.room
        room.run_due()
        task = room.next_task()
        if task is None:
            await self._idle()
        elif task == "bot":
            await asyncio.sleep(self.pace_s)
            if room.next_task() == "bot":  # the host may have changed things meanwhile
                room.bot_step()
        elif task == "claims":
            claiming = cast(ClaimingRoom, room)
            position = claiming.claims_position()
            if self.pace_s > 0:
                await asyncio.sleep(claiming.claim_delay())
            # A phone may have claimed meanwhile: then the bots react to the new position.
            if room.next_task() == "claims" and claiming.claims_position() == position:
                claiming.claims_step()
        elif task == "showdown":
            await self._showdown()
        elif task == "next_round":
            await self._round_pause()
            if room.next_task() == "next_round":
                room.next_round()

    async def _idle(self) -> None:
        """Wait for a change, or until the room's next deadline (its clock's time)."""
        deadline = self.room.next_deadline()
        if deadline is None:
            await self._wake.wait()
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(0.0, deadline - self.room.clock()))
        self._wake.clear()

    async def _round_pause(self) -> None:
        """Wait ``round_pause_s`` for people to read the round's end, unless the
        host deals the next round first (then what it needs starts at once)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.round_pause_s
        while self.room.next_task() == "next_round" and (left := deadline - loop.time()) > 0:
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), left)

    async def _showdown(self) -> None:
        room = self.room
        request = room.showdown_request()
        await asyncio.sleep(self.pace_s)  # the display shows who faces whom first
        if room.host_paused:  # paused meanwhile: it waits, armed, until resumed
            room.hold_showdown()
            return
        try:
            outcome = await in_daemon_thread(room.unit.run_showdown, request)
        except UnitProblem as problem:
            room.pause(f"The game is paused: {problem}. What to do: {problem.what_to_do}")
            return
        except Exception as exc:  # a port's bug must not stop the table: pause, say what
            log.exception("the unit port failed")
            room.pause(f"The game is paused: the unit port failed: {exc}")
            return
        room.finish_showdown(outcome)
        await asyncio.sleep(self.pace_s)  # the verdict stays up a moment


def in_daemon_thread(function, *args) -> asyncio.Future:
    """``function(*args)`` in a daemon thread, awaited like ``asyncio.to_thread``.

    Not the default executor: ``asyncio.run`` waits for its threads when the
    server stops, and a showdown (or a RemoteUnit reconnecting to a unit that
    is down, for up to a minute) would hold up Ctrl-C and systemd's stop. A
    showdown cut short this way never reached ``finish_showdown``: the save
    file has the match before it, and ``--resume`` runs it again."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future = loop.create_future()

    def settle(result, error) -> None:
        if future.done():  # cancelled: the server is stopping
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        try:
            result, error = function(*args), None
        except BaseException as exc:  # handed to the awaiting task
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="table-showdown", daemon=True).start()
    return future


class UnitHooks:
    """A RemoteUnit's ``table`` and ``say`` hooks: each call, made in the worker
    thread, is handed to the room on the event loop (``bind`` it first)."""

    def __init__(self) -> None:
        self.room: TableRoom | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def bind(self, room: TableRoom, loop: asyncio.AbstractEventLoop) -> None:
        self.room, self.loop = room, loop

    def _call(self, method: str, *args: Any) -> None:
        if self.room is not None and self.loop is not None:
            self.loop.call_soon_threadsafe(getattr(self.room, method), *args)

    def armed(self, link, request, unit_id: str) -> None:
        self._call("unit_event", "armed", {"showdown_id": unit_id, "cards": request.cards})

    def event(self, link, event) -> None:
        self._call("unit_event", str(event.name), dict(event.data))

    def say(self, text: str) -> None:
        self._call("unit_said", text)

    def paddle(self, message: dict[str, Any]) -> None:
        """A message of the phones' port (``phone_port``) for the display and the phones."""
        self._call("paddle_message", message)


class Addon(Protocol):
    """A part of the site beside the room's pages (the unit panel, the history
    page): its routes, and what runs while the server does."""

    def routes(self) -> list[BaseRoute]: ...

    def running(self) -> contextlib.AbstractAsyncContextManager[None]: ...


class _Link:
    """One open ``/ws`` socket: its bounded :class:`~engine.apps.table.frames.Outbox`
    (what ``pending`` gives: the room's messages for it, taken whenever the room
    changed) and the task that sends it. A reader too far behind (what queued
    while a send waited for its socket) is closed."""

    def __init__(
        self,
        ws: WebSocket,
        pending: Callable[[], list[str]],
        *,
        limits: Limits,
        refusals: RefusalLog,
        clock: Callable[[], float],
    ):
        self.ws, self.pending, self.refusals = ws, pending, refusals
        self.outbox = Outbox(limits, clock)
        self.wake = asyncio.Event()
        self.closing = False
        self.blocked = False  # a send is waiting for the socket
        self.peer = ws.client.host if ws.client else "?"
        self.sender = asyncio.create_task(self._send(), name="table-sender")
        self.closer: asyncio.Task | None = None

    def pull(self) -> None:
        """Queue what the room has for this connection (JSON texts, encoded once
        by the room: a view shared by many connections is one string)."""
        for message in self.pending():
            self.put(message)

    def refuse(self, text: str) -> None:
        """A refusal of a frame, after what the room queued before it."""
        self.pull()
        self.put(text)

    def put(self, text: str) -> None:
        if self.closing:
            return
        self.outbox.put(text)
        # Only while a send waits for the socket (its peer does not read) is
        # what queues up behind it the reader's fault; a burst is sent at once.
        behind = self.outbox.behind() if self.blocked else None
        if behind is None:
            self.wake.set()
            return
        self.closing = True
        self.outbox.clear()
        self.refusals.note(
            "behind", self.peer, f"closed the WebSocket /ws from {self.peer}: {behind}"
        )
        self.sender.cancel()
        self.closer = asyncio.create_task(self._close(), name="table-closer")

    async def _close(self) -> None:
        with contextlib.suppress(Exception):  # it may have gone meanwhile
            await self.ws.close(BEHIND_CLOSE_CODE, "too far behind: reconnect")

    async def _send(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.outbox:
                self.blocked = True  # cleared at once unless the send waits
                await self.ws.send_text(self.outbox.peek())
                self.blocked = False
                self.outbox.pop()

    async def stop(self) -> None:
        self.closing = True
        self.sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.sender


def create_app(
    room: TableRoom,
    *,
    pace_s: float = 0.8,
    round_pause_s: float = 5.0,
    hooks: UnitHooks | None = None,
    display_page: str = "display.html",
    addons: Sequence[Addon] = (),
    limits: Limits | None = None,
    hosts: Hosts | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Starlette:
    """The app for one table; ``/`` serves ``display_page`` from the static files.
    ``limits`` are what each client is allowed (kept in ``app.state.limits``
    for :func:`serve`); ``hosts`` the names it answers to (the loopback names
    by default); ``clock`` times the message rates, the outboxes and the log's
    summaries."""
    limits = limits or Limits()
    hosts = hosts or Hosts()
    refusals = RefusalLog(clock=clock)
    runner = Runner(room, pace_s=pace_s, round_pause_s=round_pause_s)
    links: dict[Any, _Link] = {}  # each connection's link, while open
    sockets: dict[Any, WebSocket] = {}  # each connection's socket, while open
    flushing: list[bool] = []  # a flush is due on the loop

    def flush() -> None:
        flushing.clear()
        # Only the connections with something waiting (a room's Connection keeps
        # its ``outbox``; one without the attribute is pulled every time).
        for link in [link for conn, link in links.items() if getattr(conn, "outbox", True)]:
            link.pull()

    def changed() -> None:
        runner.wake()
        if not flushing:  # once per turn of the loop, however many changes it saw
            flushing.append(True)
            app.state.loop.call_soon(flush)

    websocket = _socket_endpoint(room, links, sockets, limits, refusals, clock)
    routes = [
        *_page_routes(room, display_page),
        WebSocketRoute("/ws", websocket),
        *(route for addon in addons for route in addon.routes()),
        Route("/panel", _no_panel),  # only reached when no add-on serves the panel
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = GuardedSite(
        routes=routes,
        lifespan=_lifespan(room, runner, hooks, addons, changed),
        hosts=hosts,
        refusals=refusals,
    )
    app.state.room = room
    app.state.runner = runner
    app.state.sockets = sockets  # for a test or an add-on that must close one
    app.state.limits = limits  # for serve, and every socket of the site (frames.py)
    app.state.refusals = refusals
    app.state.clock = clock
    app.state.peer_rates = PeerRates(limits, clock)  # each address's budget, all its sockets
    return app


def _lifespan(
    room: TableRoom,
    runner: Runner,
    hooks: UnitHooks | None,
    addons: Sequence[Addon],
    changed: Callable[[], None],
) -> Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]]:
    """The app's lifespan: the room told of its changes, the hooks bound to the
    loop, the Runner and the add-ons running while the app serves."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.loop = asyncio.get_running_loop()
        room.on_change = changed
        if hooks is not None:
            hooks.bind(room, app.state.loop)
        task = asyncio.create_task(runner.run(), name="table-runner")
        try:
            async with contextlib.AsyncExitStack() as stack:
                for addon in addons:
                    await stack.enter_async_context(addon.running())
                yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return lifespan


@functools.lru_cache(maxsize=16)
def qr_svg(url: str) -> bytes:
    """``url`` as an SVG QR code, made once per address: every display asks
    for it at each load, and making one takes milliseconds on the event loop."""
    out = io.BytesIO()
    segno.make(url).save(out, kind="svg", scale=8, border=2)
    return out.getvalue()


def _page_routes(room: TableRoom, display_page: str) -> list[BaseRoute]:
    """The pages: the display (``display_page``), the phone's (``/phone``,
    ``/join``), the phone page's address as a QR code, the icon."""

    def page(name: str):
        async def endpoint(request: Request) -> Response:
            return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

        return endpoint

    async def qr(request: Request) -> Response:
        svg = qr_svg(room.join_url or str(request.url_for("phone")))
        return Response(svg, media_type="image/svg+xml")

    async def favicon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    async def forms(request: Request) -> Response:
        """The host form's fields of the games that describe them (setup.host_forms)."""
        return JSONResponse(host_forms(), headers={"Cache-Control": "no-cache"})

    return [
        Route("/", page(display_page), name="display"),
        Route("/phone", page("phone.html"), name="phone"),
        Route("/join", page("phone.html"), name="join"),
        Route("/qr.svg", qr, name="qr"),
        Route("/favicon.ico", favicon, name="favicon"),
        Route("/forms.json", forms, name="forms"),
    ]


def _socket_endpoint(
    room: TableRoom,
    links: dict[Any, _Link],
    sockets: dict[Any, WebSocket],
    limits: Limits,
    refusals: RefusalLog,
    clock: Callable[[], float],
) -> Callable[[WebSocket], Awaitable[None]]:
    """The ``/ws`` endpoint: one connection of the room per page, its link (and
    socket) in ``links`` (``sockets``) while it is open."""

    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        conn = room.connect(peer=ws.client.host if ws.client else "")
        sockets[conn] = ws
        link = links[conn] = _Link(
            ws, lambda: room.take(conn), limits=limits, refusals=refusals, clock=clock
        )
        link.pull()
        try:
            await read_messages(ws, lambda text: handle(conn, link, text), link.refuse)
        except WebSocketDisconnect:
            pass  # the page went away: nothing to answer, the finally tidies up
        finally:
            links.pop(conn, None)
            sockets.pop(conn, None)
            await link.stop()
            room.disconnect(conn)

    def handle(conn: Any, link: _Link, text: str) -> None:
        room.receive(conn, text)
        link.pull()  # its own answer (a pong, a refusal) now, not at the next flush

    return websocket


async def _no_panel(request: Request) -> Response:
    return HTMLResponse(NO_PANEL, status_code=404)


def serve(app: Starlette, host: str, port: int) -> None:
    """Serve ``app`` until Ctrl-C or SIGTERM (uvicorn shuts down cleanly), with
    the limits of ``app.state.limits`` fitted to the open-file limit first."""
    try:
        limits = fit_to_fd_limit(app.state.limits)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    uvicorn.Server(uvicorn_config(app, host=host, port=port, limits=limits)).run()
