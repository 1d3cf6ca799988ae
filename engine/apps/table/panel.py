"""The unit panel: the unit drawn live in a browser, its paddles pressed on a mock unit.

:class:`UnitPanel` is an add-on of the table's server (``create_app(...,
addons=[panel])``, see :class:`~engine.apps.table.server.Addon`): it serves
``/panel`` (``static/panel.html``, an SVG of the unit drawn by
``static/panel.js``) and the WebSocket ``/panel/ws``. It is fed one of two ways:

- ``UnitPanel(UnitWatcher(url, token=token))``: a unit on the network, watched
  over a link of the panel's own (:mod:`engine.units.watch`), run in a thread
  while the server runs. A page's press goes to the unit as a bench command,
  which a unit on mock pins carries out and one with real pins refuses.
- ``UnitPanel()`` and ``LiveSimulatedUnit(..., table=panel.table(hooks))``: the
  simulated unit's events pass through the panel on their way to the room's
  hooks; the panel keeps its ``outputs`` events (the room never sees them)
  and shows the state and the verdict. The simulated people press for
  themselves: a page's press is refused, with a message saying so.

Each page gets ``{"type": "panel", ...}`` (:meth:`UnitPanel.view`) when it
connects and after every change (only the newest: a page that lags skips to
it); a message it sends that is refused gets ``{"type": "refused",
"message": ...}``, to that page only. A page says ``{"type": "hello",
"host_key": KEY|null}`` (answered ``{"type": "welcome", "host": bool}``, with
a ``message`` when the key is wrong) and sends ``{"type": "press", "side":
"a"|"b"}``, ``{"type": "release", "side": ...}`` or ``{"type": "timer"}``.

A press is a host control: only a page whose hello gave the host's key (the
room's ``host_gate``: the panel opened from the host's display carries the key
on in its URL fragment) presses; any other page only watches, and its presses
are refused in words (:data:`PANEL_HOST_ONLY`). The key is checked again at
each press, so a replaced key stops working at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from engine.apps.table.access import HOST_ONLY, HostGate
from engine.apps.table.frames import read_messages
from engine.apps.table.server import STATIC
from engine.game.errors import CommandRefused, LinkLost
from engine.units.live_sim import idle_outputs
from engine.units.remote import Table
from engine.units.watch import UnitWatcher
from firmware_host.people.words import verdict
from firmware_host.protocol import SIDES, Event, EventName

__all__ = ["UnitPanel", "PanelPage", "SIM_PRESS_TEXT", "PANEL_HOST_ONLY", "COMMAND_TIMEOUT_S"]

log = logging.getLogger(__name__)

#: Why a page cannot press a paddle of the simulated unit.
SIM_PRESS_TEXT = (
    "The simulated unit presses its own paddles: the panel presses a paddle only on a "
    "unit on mock pins (showdown-unit run --mock, then showdown table --unit socket://HOST:PORT)."
)
#: Why a page without the host's key cannot press.
PANEL_HOST_ONLY = (
    f"this panel only watches: pressing is a host control, and {HOST_ONLY} "
    "and the unit panel from its page"
)
#: How long a page's press may wait for the unit's answer.
COMMAND_TIMEOUT_S = 10.0
_MESSAGES = ("hello", "press", "release", "timer")
_USAGE = 'a panel message is a JSON object like {"type": "press", "side": "a"}'


class PanelPage:
    """One open panel page: its peer, the host key its hello gave, the newest
    view to send and its own messages (a welcome, refusals)."""

    def __init__(self, peer: str = "") -> None:
        self.peer = peer
        self.host_key: str | None = None
        self.wake = asyncio.Event()
        self.view: str | None = None  # the newest view, not sent yet
        self.outbox: list[str] = []


class UnitPanel:
    """The unit panel add-on; see the module docstring. ``leds`` is the
    countdown bar's length until the unit says otherwise; ``gate`` the room's
    host key (``room.host_gate``; None: no page presses)."""

    def __init__(
        self, watcher: UnitWatcher | None = None, *, leds: int = 3, gate: HostGate | None = None
    ):
        self.watcher = watcher
        self.gate = gate
        self._view: dict[str, Any] = {
            "type": "panel",
            "unit": watcher.url if watcher is not None else "the simulated unit",
            "simulated": watcher is None,
            "connected": watcher is None,
            "problem": None,
            "bench": False,
            "state": "idle",
            "outputs": idle_outputs(leds),
            "players": None,
            "verdict": None,
        }
        if watcher is not None:
            self._view["problem"] = f"Connecting to the unit at {watcher.url}..."
            watcher.listener = self
        self._pages: set[PanelPage] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    def __repr__(self) -> str:
        return f"UnitPanel({self._view['unit']!r})"

    def view(self) -> dict[str, Any]:
        """What every page is sent: ``unit`` (its URL, or "the simulated
        unit"), ``simulated``, ``connected``, ``problem`` (null, or what went
        wrong and what to do), ``bench`` (a page's press works), ``state``
        (the unit's), ``outputs`` (the protocol's object), ``players`` (the
        armed showdown's ``{"a": name, "b": name}``) and ``verdict`` (the
        last result's, in the unit's words)."""
        return dict(self._view)

    # -- fed by a simulated unit ---------------------------------------------------------

    def table(self, inner: Table | None = None) -> Table:
        """A ``table`` hook for a LiveSimulatedUnit: its ``outputs`` events
        go to the panel, every other event to the panel and on to ``inner``
        (the room's UnitHooks)."""
        return _Tap(self, inner)

    # -- fed by a watcher (its thread) or the tap (the unit's thread) ----------------------

    def connected(self, hello: dict, status: dict) -> None:
        self._soon(self._connected, hello, status)

    def outputs(self, outputs: dict | None) -> None:
        self._soon(self._update, outputs=outputs)

    def event(self, event: Event) -> None:
        self._soon(self._event, event.name, dict(event.data))

    def lost(self, problem: str, retrying: bool) -> None:
        self._soon(self._update, connected=False, problem=problem)

    def _soon(self, fn: Callable[..., None], *args: Any, **kwargs: Any) -> None:
        """Run ``fn`` on the server's event loop (now, if this is it)."""
        loop = self._loop
        if loop is None or threading.get_ident() == self._loop_thread:
            fn(*args, **kwargs)
        else:
            loop.call_soon_threadsafe(lambda: fn(*args, **kwargs))

    def _connected(self, hello: dict, status: dict) -> None:
        showdown = status.get("showdown") or {}
        self._update(
            connected=True,
            problem=None,
            bench="bench" in hello.get("capabilities", ()),
            state=status["state"],
            outputs=status.get("outputs"),
            players=showdown.get("players"),
            verdict=None if status.get("last_result") is None else verdict(status["last_result"]),
        )

    def _event(self, name: str, data: dict) -> None:
        if name == EventName.STATE:
            self._update(state=data["state"])
        elif name == EventName.ARMED:
            self._update(players=data["players"], verdict=None)
        elif name == EventName.RESULT:
            self._update(verdict=verdict(data))

    def _update(self, **changes: Any) -> None:
        if all(self._view.get(key) == value for key, value in changes.items()):
            return
        self._view.update(changes)
        text = json.dumps(self._view)
        for page in self._pages:
            page.view = text
            page.wake.set()

    # -- the add-on ----------------------------------------------------------------------

    def routes(self) -> list[BaseRoute]:
        async def page(request: Request) -> Response:
            return FileResponse(STATIC / "panel.html", headers={"Cache-Control": "no-cache"})

        return [Route("/panel", page, name="panel"), WebSocketRoute("/panel/ws", self._socket)]

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        watching = None
        if self.watcher is not None:
            watching = asyncio.create_task(asyncio.to_thread(self.watcher.run), name="unit-watcher")
        try:
            yield
        finally:
            if self.watcher is not None and watching is not None:
                self.watcher.close()
                with contextlib.suppress(Exception):
                    await watching
            self._loop = None

    async def _socket(self, ws: WebSocket) -> None:
        await ws.accept()
        page = PanelPage(ws.client.host if ws.client else "")
        page.view = json.dumps(self._view)
        page.wake.set()
        self._pages.add(page)

        async def send() -> None:
            while True:
                await page.wake.wait()
                page.wake.clear()
                while page.outbox:
                    await ws.send_text(page.outbox.pop(0))
                if page.view is not None:
                    text, page.view = page.view, None
                    await ws.send_text(text)

        def refuse(text: str) -> None:
            page.outbox.append(text)
            page.wake.set()

        async def handle(text: str) -> None:
            refused = await self.receive(text, page)
            if refused is not None:
                refuse(json.dumps({"type": "refused", "id": None, "message": refused}))

        sender = asyncio.create_task(send())
        try:
            await read_messages(ws, handle, refuse)  # the site's frame checks and rate
        except WebSocketDisconnect:
            pass  # the page went away: nothing to answer, the finally tidies up
        finally:
            self._pages.discard(page)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    async def receive(self, text: str | bytes, page: PanelPage | None = None) -> str | None:
        """Carry out a message of ``page``; None, or why it is refused."""
        try:
            message = json.loads(text)
        except (ValueError, UnicodeDecodeError) as exc:
            return f"not JSON ({exc}): {_USAGE}"
        if not isinstance(message, dict):
            return f"not an object: {_USAGE}"
        kind = message.get("type")
        if kind not in _MESSAGES:
            return (
                f"unknown message type {json.dumps(kind)}: "
                "the panel takes hello, press, release and timer"
            )
        if kind == "hello":
            return self._hello(page, message.get("host_key"))
        side = str(message.get("side"))
        if kind != "timer" and message.get("side") not in SIDES:
            return f'{kind}: field "side" must be "a" or "b", not {json.dumps(message.get("side"))}'
        if page is None or self.gate is None or not self.gate.holds(page.host_key):
            return PANEL_HOST_ONLY
        if self.watcher is None:
            return SIM_PRESS_TEXT
        if kind == "press":
            future = self.watcher.press(side)
        elif kind == "release":
            future = self.watcher.release(side)
        else:
            future = self.watcher.timer()
        try:
            await asyncio.wait_for(asyncio.wrap_future(future), COMMAND_TIMEOUT_S)
        except CommandRefused as exc:
            return f"{kind}: {exc.message}"
        except LinkLost as exc:
            return f"{kind}: {exc}"
        except TimeoutError:
            return f"{kind}: the unit did not answer within {COMMAND_TIMEOUT_S:g} s"
        return None

    def _hello(self, page: PanelPage | None, key: object) -> str | None:
        """A page says who it is: the host's key makes its presses count."""
        if page is None:
            return "hello: no page to greet"
        host, note = (False, None) if self.gate is None else self.gate.check(key, page.peer)
        page.host_key = key if host and isinstance(key, str) else None
        welcome: dict[str, Any] = {"type": "welcome", "host": host}
        if note is not None:
            welcome["message"] = note
        page.outbox.append(json.dumps(welcome))
        page.wake.set()
        return None


class _Tap:
    """A simulated unit's ``table`` hook through the panel (see :meth:`UnitPanel.table`)."""

    def __init__(self, panel: UnitPanel, inner: Table | None):
        self.panel, self.inner = panel, inner

    def armed(self, link, request, unit_id: str) -> None:
        if self.inner is not None:
            self.inner.armed(link, request, unit_id)

    def event(self, link, event: Event) -> None:
        if event.name == EventName.OUTPUTS:
            self.panel.outputs(dict(event.data))
            return
        self.panel.event(event)
        if self.inner is not None:
            self.inner.event(link, event)
