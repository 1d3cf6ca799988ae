"""The legit pages of the chaos probe (``benchmarks/table_chaos.py``): the host's
display and the phones, each on a socket of its own device, that play a match
through everything the probe does to the table, and keep in its ``Book`` every
view and unit event they are shown.

- :class:`Page`: one page; it says hello, keeps what it is sent, connects again
  whenever its socket closes (a restart), as the table's pages do.
- :func:`pinger`: the host's display pings the table 10 times a second
  (:class:`Pings`: each ping's phase and round trip).
- :func:`host`: the host's display deals the next round and starts the next match.
- :func:`phone`: a person's phone acts from its own view, at a thumb's pace.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from benchmarks.table_bench import BenchError
from benchmarks.table_chaos_book import Book, new_lines

__all__ = [
    "Page",
    "Pings",
    "ProbeLike",
    "pinger",
    "host",
    "phone",
    "seat_everyone",
    "MATCH",
    "STUCK_S",
]


class ProbeLike(Protocol):
    """What the pages and the forger read of the probe (benchmarks.table_chaos.Probe,
    which imports these modules: a protocol keeps the imports pointing one way)."""

    table: Any  # benchmarks.table_chaos.TableProcess
    book: Book
    rng: random.Random
    phase: str
    stopping: bool
    hold_lobby: bool
    pings: Pings
    legit_refusals: Counter[str]
    problems: list[str]

    @property
    def display(self) -> Page: ...

    @property
    def phones(self) -> list[Page]: ...

    def forgery(self, kind: str, refused: bool) -> None: ...


#: How long one step may take before the run is called stuck (not a timing check).
STUCK_S = 60.0
PINGS_PER_S = 10.0
#: The host's start: the two phones and two of the table's bots.
MATCH = {"type": "host", "cmd": "start", "bots": 2, "target": 500}


class Page:
    """One page of the table (a display or a phone) on a socket of its own
    device: it says hello, keeps every message it is shown (in the book), and
    connects again whenever the socket closes (a restart, a close)."""

    def __init__(self, probe: ProbeLike, name: str, address: str, display: bool):
        self.probe, self.name, self.address, self.display = probe, name, address, display
        self.view: dict[str, Any] | None = None
        self.epoch = 0
        self.secret: str | None = None
        self.seat: int | None = None
        self.ws: Any = None
        self.changed = asyncio.Event()
        self.refusals: list[tuple[Any, str]] = []
        self.pongs: dict[Any, float] = {}
        self.results = 0
        self.armed = 0
        self.connects = 0
        self.prefix = f"p{random.Random(name).randrange(10**6)}"
        self.counter = 0
        self.acts: list[tuple[str, float]] = []  # (id, when) of each act sent
        self.forged_ids: set[str] = set()  # the ids of its own forgeries (replays)
        self.lines = 0  # the log lines it was shown, one after another
        #: The log it was shown before the first view that could not save, and that view.
        self.paused_at: tuple[list[str], dict[str, Any]] | None = None
        probe.book.page(name, display=display)

    def hello(self) -> dict[str, Any]:
        if self.display:
            return {"type": "hello", "role": "display", "host_key": self.probe.table.access[0]}
        return {"type": "hello", "role": "phone", "secret": self.secret}

    async def run(self) -> None:
        from websockets.asyncio.client import connect

        port = self.probe.table.port
        while not self.probe.stopping:
            try:
                async with connect(
                    f"ws://127.0.0.1:{port}/ws",
                    origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
                    local_addr=(self.address, 0),
                    max_size=None,
                    proxy=None,
                    ping_interval=None,
                    open_timeout=10,
                ) as ws:
                    self.ws, self.epoch = ws, self.probe.table.epoch
                    self.connects += 1
                    await ws.send(json.dumps(self.hello()))
                    async for text in ws:
                        self.receive(json.loads(text))
            except Exception as exc:  # a refused connect, a close: it connects again
                if not isinstance(exc, (OSError, TimeoutError)) and not _closed(exc):
                    self.probe.problems.append(f"{self.name}: {exc!r}")
            self.ws = None
            self.probe.pings.lost_with_socket(self)
            await asyncio.sleep(0.1)

    def receive(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "view":
            before, self.view = self.view, message["view"]
            self.lines += new_lines((before or {}).get("log") or [], self.view.get("log") or [])
            if self.view.get("cannot_save") and not (before or {}).get("cannot_save"):
                self.paused_at = ((before or {}).get("log") or [], self.view)
            self.probe.book.view(self.name, self.epoch, self.view, self.probe.phase)
        elif kind == "welcome":
            self.seat = message.get("seat")
            self.secret = message.get("secret") or self.secret
        elif kind == "event":
            name, data = message.get("name", ""), message.get("data") or {}
            if name in ("armed", "result"):
                self.probe.book.event(self.name, self.epoch, name, data)
                self.results += name == "result"
                self.armed += name == "armed"
        elif kind == "refused":
            self.refusals.append((message.get("id"), message.get("message", "")))
            if message.get("id") not in self.forged_ids:
                self.probe.legit_refusals[_gist(message.get("message", ""))] += 1
        elif kind == "pong":
            self.probe.pings.answered(message.get("id"))
        self.changed.set()

    async def send(self, message: dict[str, Any]) -> bool:
        ws = self.ws
        if ws is None:
            return False
        try:
            await ws.send(json.dumps(message))
        except Exception:  # a closed socket: it connects again
            return False
        return True

    async def act(self, action: str) -> str:
        self.counter += 1
        act_id = f"{self.prefix}-{self.counter}"
        if await self.send({"type": "act", "action": action, "id": act_id}):
            self.acts.append((act_id, time.monotonic()))
        return act_id

    async def until(
        self, predicate: Callable[..., Any], what: str, timeout: float = STUCK_S
    ) -> Any:
        deadline = time.monotonic() + timeout
        while not (got := predicate()):
            left = deadline - time.monotonic()
            if left <= 0:
                raise BenchError(f"{self.name}: stuck {timeout:.0f} s waiting for {what}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.5))
        return got


def _closed(exc: BaseException) -> bool:
    return "ConnectionClosed" in type(exc).__name__


def _gist(message: str) -> str:
    """A refusal's words without what varies (ids, names, numbers): its kind."""
    return "".join("#" if c.isdigit() else c for c in message.split(":")[0])[:70]


@dataclass
class Pings:
    """The host display's pings: each one's phase and round trip."""

    sent: dict[int, tuple[float, str, Page]] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict)
    unanswered: Counter = field(default_factory=Counter)
    number: int = 0

    def answered(self, ping_id: Any) -> None:
        sent = self.sent.pop(ping_id, None)
        if sent is not None:
            self.times.setdefault(sent[1], []).append((time.monotonic() - sent[0]) * 1000)

    def lost_with_socket(self, page: Page) -> None:
        for ping_id, (_, phase, by) in list(self.sent.items()):
            if by is page:
                del self.sent[ping_id]
                self.unanswered[phase] += 1


async def pinger(probe: ProbeLike) -> None:
    display = probe.display
    while not probe.stopping:
        if display.ws is not None:
            probe.pings.number += 1
            n = probe.pings.number
            probe.pings.sent[n] = (time.monotonic(), probe.phase, display)
            await display.send({"type": "ping", "id": n})
        await asyncio.sleep(1 / PINGS_PER_S)


async def host(probe: ProbeLike) -> None:
    """The host's display deals the next round and starts the next match."""
    display, done = probe.display, None
    while not probe.stopping:
        await display.until(lambda d=done: display.view is not d or probe.stopping, "a view", 1e9)
        view = done = display.view
        if view is None or view.get("paused") or view.get("host_paused"):
            continue
        if view["phase"] == "over":
            await display.send({"type": "host", "cmd": "next_round"})
        elif view["phase"] == "match_over" or (view["phase"] == "lobby" and not probe.hold_lobby):
            await display.send(MATCH)


async def phone(probe: ProbeLike, page: Page, rng: random.Random) -> None:
    """A person's phone: acts from its own view when it is asked to, at a thumb's pace."""
    acted_on: dict[str, Any] | None = None
    refused = 0
    while not probe.stopping:
        await page.until(lambda a=acted_on: page.view is not a or probe.stopping, "a view", 1e9)
        if len(page.refusals) > refused:  # refused (a race, a pause): it may act again
            refused, acted_on = len(page.refusals), None
        view = page.view
        you = None if view is None else view.get("you")
        if view is None or not you or not you.get("legal") or view.get("paused"):
            acted_on = view
            continue
        await asyncio.sleep(rng.uniform(0.05, 0.3))
        if page.view is not view:
            continue
        legal = [a["action"] for a in you["legal"]]
        await page.act(rng.choice([a for a in legal if a not in ("draw", "keep")] or legal))
        acted_on = view


async def seat_everyone(probe: ProbeLike) -> None:
    display, code = probe.display, probe.table.access[1]
    await display.until(lambda: display.view is not None, "the display's first view")
    for seat, page in enumerate(probe.phones):
        await page.until(lambda p=page: p.view is not None, "the phone's first view")
        await page.send({"type": "join", "seat": seat, "name": f"Phone {seat}", "code": code})
        await page.until(lambda p=page: p.seat is not None, "a seat")
    await display.send(MATCH)
    await display.until(lambda: (display.view or {}).get("turn") is not None, "the first turn")
