"""The league's pages and JSON: Starlette, served by uvicorn (league_cmd.py).

Routes::

    /                 the standings page (filters in its query: venue, day, players)
    /units            the units page: online, offline, fault, last result, refusals
    /standings.json   ?venue=V&day=YYYY-MM-DD&players=people|bots|all&limit=N
    /units.json       ?venue=V: the units, and the topics naming no unit that
                      messages were refused on
    /figures.json     the totals, and the broker link's state
    /ws               a WebSocket: {"type": "changed", "what": [...]} after each
                      stored batch and status change; the pages fetch again
    /static/...       the pages' scripts and styles (table.css is the table's own)

It is served as the browser table is (engine.apps.table.transport's uvicorn
config: connection caps, the request timeout, the WebSocket frame checks).
Every store read runs in a worker thread (``run_in_threadpool``), never on the
event loop. A bad query parameter is a 400 with ``{"error": "..."}`` in words;
a database that fails a read, a 503 the same way.
:class:`Changes` carries the ingest thread's news to the open WebSockets; a
burst of batches reaches a slow page as one message.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import re
import threading
from collections.abc import AsyncIterator, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from engine.apps.table.guard import Hosts
from engine.apps.table.limits import Limits, RefusalLog
from engine.apps.table.site import GuardedSite
from engine.league.store import StoreError
from firmware_host.protocol.league import WireError, clean_place

__all__ = ["create_app", "Changes", "QueryError", "STATIC", "TABLE_STATIC"]

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
#: The browser table's styles and icon, served as they are: one look for both.
TABLE_STATIC = Path(__file__).resolve().parents[1] / "apps" / "table" / "static"
PLAYERS = {"people": False, "bots": True, "all": None}
MAX_LIMIT = 1000
RECENT = 20
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class LeagueStore(Protocol):
    """The read side of engine.league.store's Store, as the pages use it."""

    def standings(
        self,
        *,
        venue: str | None = None,
        day: str | None = None,
        bots: bool | None = False,
        limit: int = 100,
    ) -> list[dict[str, Any]]: ...
    def units(self) -> list[dict[str, Any]]: ...
    def refused_topics(self, limit: int = 20) -> list[dict[str, Any]]: ...
    def figures(self) -> dict[str, Any]: ...
    def recent(self, limit: int = 20, venue: str | None = None) -> list[dict[str, Any]]: ...
    def venues(self) -> list[str]: ...
    def days(self, venue: str | None = None) -> list[str]: ...


class QueryError(ValueError):
    """A query parameter the pages cannot use: the message says which and why."""


# -- the news to the pages ------------------------------------------------------------


class _Listener:
    def __init__(self) -> None:
        self.pending: set[str] = set()
        self.ready = asyncio.Event()


class Changes:
    """What changed, from any thread, to every open WebSocket.

    :meth:`notify` may be called from the ingest's thread; the event loop's
    side is bound at the app's start (:meth:`bind`). What arrives before it is
    dropped: no page is open yet."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listeners: set[_Listener] = set()
        self._lock = threading.Lock()
        self.broker: str | None = None  # "connected", "reconnecting"; None: no ingest

    def bind(self, loop: asyncio.AbstractEventLoop | None) -> None:
        with self._lock:
            self._loop = loop

    def notify(self, what: Iterable[str]) -> None:
        """Tell the pages ``what`` changed (``results``, ``units``, ``broker``)."""
        news = frozenset(what)
        with self._lock:
            loop = self._loop
        if loop is None or not news:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: the server stopped
            loop.call_soon_threadsafe(self._fan_out, news)

    @property
    def listeners(self) -> int:
        """How many pages are listening now."""
        return len(self._listeners)

    def broker_link(self, up: bool) -> None:
        """The ingest's link to the broker came up or went down."""
        self.broker = "connected" if up else "reconnecting"
        self.notify({"broker"})

    def _fan_out(self, news: frozenset[str]) -> None:
        for listener in self._listeners:
            listener.pending |= news
            listener.ready.set()

    @contextlib.contextmanager
    def listening(self) -> Any:
        listener = _Listener()
        self._listeners.add(listener)
        try:
            yield listener
        finally:
            self._listeners.discard(listener)


# -- query parameters -------------------------------------------------------------------


def _params(query: Mapping[str, str], allowed: tuple[str, ...]) -> dict[str, str]:
    unknown = sorted(set(query) - set(allowed))
    if unknown:
        takes = ", ".join(allowed) if allowed else "no parameters"
        raise QueryError(f"unknown parameter {unknown[0]!r}: this takes {takes}")
    return {key: query[key] for key in allowed if query.get(key, "") != ""}


def _venue(params: dict[str, str]) -> str | None:
    if "venue" not in params:
        return None
    try:
        return clean_place(params["venue"], "venue")
    except WireError as exc:
        raise QueryError(str(exc)) from None


def _day(params: dict[str, str]) -> str | None:
    day = params.get("day")
    if day is None:
        return None
    try:
        if not _DAY.fullmatch(day):
            raise ValueError
        datetime.date.fromisoformat(day)
    except ValueError:
        raise QueryError(f"day must be a date as YYYY-MM-DD (UTC), not {day[:40]!r}") from None
    return day


def _players(params: dict[str, str]) -> str:
    players = params.get("players", "people")
    if players not in PLAYERS:
        raise QueryError(f"players must be people, bots or all, not {players[:40]!r}")
    return players


def _limit(params: dict[str, str]) -> int:
    text = params.get("limit", "100")
    if not text.isdigit() or not 1 <= int(text) <= MAX_LIMIT:
        raise QueryError(f"limit must be a whole number from 1 to {MAX_LIMIT}, not {text[:40]!r}")
    return int(text)


def _bad(exc: QueryError) -> JSONResponse:
    return JSONResponse({"error": str(exc)}, status_code=400)


# -- the app ------------------------------------------------------------------------------


def create_app(
    store: LeagueStore,
    changes: Changes | None = None,
    *,
    limits: Limits | None = None,
    hosts: Hosts | None = None,
) -> Starlette:
    """The league's site over ``store``; ``changes`` carries the ingest's news
    to the pages (a new, silent one if None). ``limits`` are the table's
    (engine.apps.table.limits): the league is served by the table's uvicorn
    (``uvicorn_config``), with its connection caps and request timeout.
    ``hosts``: the names it answers to, as the table's (engine.apps.table.guard:
    the loopback names by default); a request naming another host is refused,
    and every answer carries the table's security headers."""
    changes = changes if changes is not None else Changes()

    async def standings(request: Request) -> Response:
        try:
            params = _params(request.query_params, ("venue", "day", "players", "limit"))
            venue, day, players = _venue(params), _day(params), _players(params)
            limit = _limit(params)
        except QueryError as exc:
            return _bad(exc)

        def read() -> dict[str, Any]:
            return {
                "venue": venue,
                "day": day,
                "players": players,
                "standings": store.standings(
                    venue=venue, day=day, bots=PLAYERS[players], limit=limit
                ),
                "recent": store.recent(RECENT, venue=venue),
                "venues": store.venues(),
                "days": store.days(venue),
            }

        return JSONResponse(await run_in_threadpool(read))

    async def units(request: Request) -> Response:
        try:
            venue = _venue(_params(request.query_params, ("venue",)))
        except QueryError as exc:
            return _bad(exc)

        def read() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            return store.units(), store.refused_topics(RECENT)

        rows, topics = await run_in_threadpool(read)
        if venue is not None:
            rows = [row for row in rows if row.get("venue") == venue]
        return JSONResponse(
            {"venue": venue, "broker": changes.broker, "units": rows, "refused_topics": topics}
        )

    async def figures(request: Request) -> Response:
        try:
            _params(request.query_params, ())
        except QueryError as exc:
            return _bad(exc)
        totals = await run_in_threadpool(store.figures)
        return JSONResponse({**totals, "broker": changes.broker})

    async def news(websocket: WebSocket) -> None:
        await websocket.accept()
        with changes.listening() as listener:
            reader = asyncio.ensure_future(_until_closed(websocket))
            try:
                while not reader.done():
                    waiting = asyncio.ensure_future(listener.ready.wait())
                    await asyncio.wait({reader, waiting}, return_when=asyncio.FIRST_COMPLETED)
                    waiting.cancel()
                    if listener.ready.is_set():
                        listener.ready.clear()
                        what, listener.pending = sorted(listener.pending), set()
                        await websocket.send_json({"type": "changed", "what": what})
            except (WebSocketDisconnect, RuntimeError, OSError):
                pass  # the page went away mid-send
            finally:
                reader.cancel()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        changes.bind(asyncio.get_running_loop())
        try:
            yield
        finally:
            changes.bind(None)

    routes = [
        Route("/", _page("league.html")),
        Route("/units", _page("units.html")),
        Route("/standings.json", standings),
        Route("/units.json", units),
        Route("/figures.json", figures),
        WebSocketRoute("/ws", news),
        Route("/static/table.css", _file(TABLE_STATIC / "table.css")),
        Route("/favicon.ico", _file(TABLE_STATIC / "favicon.svg", "image/svg+xml")),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    refusals = RefusalLog()
    app = GuardedSite(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={StoreError: _store_failed},
        hosts=hosts,
        refusals=refusals,
        site="league",
    )
    app.state.changes = changes
    app.state.limits = limits or Limits()  # for the table's uvicorn_config
    app.state.refusals = refusals
    return app


async def _until_closed(websocket: WebSocket) -> None:
    """Read (and ignore) what the page sends, until it closes."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return


async def _store_failed(request: Request, exc: Exception) -> Response:
    """The database failed a read: a 503 in words (the next fetch may work), logged."""
    log.warning("could not read the league's store for %s: %s", request.url.path, exc)
    return JSONResponse({"error": f"the league's database failed: {exc}"}, status_code=503)


def _page(name: str) -> Any:
    async def page(request: Request) -> Response:
        return FileResponse(STATIC / name, media_type="text/html")

    return page


def _file(path: Path, media_type: str | None = None) -> Any:
    async def serve(request: Request) -> Response:
        return FileResponse(path, media_type=media_type)

    return serve
