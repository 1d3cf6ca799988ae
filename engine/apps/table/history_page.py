"""The history page of the browser table: each player's reaction times, wins,
losses and false starts, from the unit's journal or from the table's own book.

An add-on of :func:`~engine.apps.table.server.create_app` (``routes()`` and
``running()``):

- ``GET /history``: the page (``static/history.html`` and ``history.js``: the
  charts are SVG drawn in the page, nothing fetched from elsewhere);
- ``GET /history.json[?limit=N]``: the figures
  (:func:`~engine.units.unit_history.history_document`), read from the source
  at each request: a unit's journal over a link of its own
  (:class:`~engine.units.unit_history.UnitHistory`) or the
  :class:`~engine.units.unit_history.HistoryBook` of a table with no unit.
  ``limit`` is how many of the latest showdowns (1 to 1000, default 1000).

Every failure is JSON with a message, never a traceback: a bad ``limit`` is
400, a unit that cannot be read (off, a wrong token, ...) is 502 with what to
do, anything else 500 with what went wrong. One read at a time: pages opened
together wait for each other rather than each take one of the unit's client
slots.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from engine.apps.table.server import STATIC
from engine.game.errors import UnitProblem
from engine.units.unit_history import DEFAULT_LIMIT, MAX_LIMIT, History, history_document

__all__ = ["HistoryPage", "HistorySource", "history_answer"]

log = logging.getLogger(__name__)

_NO_CACHE = {"Cache-Control": "no-store"}


class HistorySource(Protocol):
    """Where the rows come from: ``history(limit)`` (may block) and a few
    words for where that is (``source``)."""

    @property
    def source(self) -> str: ...

    def history(self, limit: int) -> History: ...


def _limit(text: str | None) -> int:
    if text is None or text == "":
        return DEFAULT_LIMIT
    if not text.isdigit() or not 1 <= int(text) <= MAX_LIMIT:
        raise ValueError(f"limit must be a whole number from 1 to {MAX_LIMIT}, not {text!r}")
    return int(text)


async def history_answer(
    source: HistorySource, limit_text: str | None, lock: asyncio.Lock | None = None
) -> tuple[int, dict[str, Any]]:
    """The HTTP status and the JSON body of ``/history.json``; the source is
    read in a worker thread (a unit's link blocks)."""
    try:
        limit = _limit(limit_text)
    except ValueError as exc:
        return 400, {"error": str(exc), "what_to_do": f"Ask for 1 to {MAX_LIMIT} showdowns."}
    try:
        async with lock or contextlib.nullcontext():
            history = await asyncio.to_thread(source.history, limit)
    except UnitProblem as problem:
        return 502, {
            "error": str(problem),
            "what_to_do": problem.what_to_do,
            "source": source.source,
        }
    except Exception as exc:  # a bug: said in the page and logged, the server keeps serving
        log.exception("reading the history from %s failed", source.source)
        return 500, {
            "error": f"the history could not be read from {source.source}: {exc}",
            "what_to_do": "See the table server's log.",
            "source": source.source,
        }
    return 200, history_document(history)


class HistoryPage:
    """The history page, on ``source`` (see the module docstring)."""

    def __init__(self, source: HistorySource):
        self.source = source
        self._lock: asyncio.Lock | None = None

    def routes(self) -> list[BaseRoute]:
        async def page(request: Request) -> Response:
            return FileResponse(STATIC / "history.html", headers={"Cache-Control": "no-cache"})

        async def data(request: Request) -> Response:
            status, body = await history_answer(
                self.source, request.query_params.get("limit"), self._lock
            )
            return JSONResponse(body, status_code=status, headers=_NO_CACHE)

        return [
            Route("/history", page, name="history"),
            Route("/history.json", data, name="history_json"),
        ]

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Nothing runs beside the server; the lock belongs to its event loop."""
        self._lock = asyncio.Lock()
        try:
            yield
        finally:
            self._lock = None
