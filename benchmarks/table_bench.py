"""The browser table, measured from outside: bytes per page load, the server's
memory with a display and many phones connected, and tap-to-display latency.

    .venv/bin/python benchmarks/table_bench.py [--phones 16] [--taps 500] [--repeat 1]
                                               [--variant showdown] [--seed 1] [--json]

Each run starts the real ``showdown table`` (``python -m engine table --unit sim``) as a
subprocess on a free loopback port, ``--pace 0`` and a temporary ``--save``, so
the server is measured as a user runs it (the match saved after every action).

- **Bytes per page load**: each page and everything it loads (the stylesheets,
  scripts, images and icons its HTML names, the modules its scripts import, one
  level after another, the files its CSS names), each counted once per page, as
  served and gzipped (level 6); the report says whether the server compresses
  (``Content-Encoding`` on a request that accepts gzip).
- **Memory**: the server's VmRSS (and VmHWM, the peak) from ``/proc/PID/status``:
  idle (nothing connected, no page fetched yet), with a display and the phones
  connected (the table has at most 10 seats: the first 10 phones take a seat,
  the others stay connected as phones without one), once the match has started,
  after the first round was played, and at the end.
- **Tap-to-display latency**: the phone whose turn it is sends one of its legal
  actions, taken from its own view (a seeded choice, plays before draws), and
  the clock stops when the display's socket receives the first view that
  differs from the one it had: the view that reflects the tap. Only people sit
  at the table (no bot pacing), each page from a loopback address of its own
  (127.0.0.2, .3, ...: one device a page, as the table's per-address limits
  expect); a page sends at most 10 messages a second (a fast thumb; a tap's
  clock starts after that wait); each tap waits until the table is still (the
  display and the acting phone hold the same public view) before it is sent.
  Rounds over are dealt at once by the display's ``next_round``; a match over
  is started again. A run times ``--taps`` taps, and more if no round has
  ended by then (the memory after a played round is read when the first
  ends). Both clocks are this process's ``time.monotonic()``; the display's
  timestamp is taken when its reader task gets the frame.

The WebSocket clients are ``websockets`` (asyncio) in this one process and offer
permessage-deflate, as browsers do. The server's CPU time per tap is read from
``/proc/PID/stat``. With ``--repeat N`` each run is a fresh server; the report
gives every run and the medians over runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the sibling modules

from benchmarks.table_pages import page_weight, pages, references  # noqa: E402
from benchmarks.table_served import (  # noqa: E402
    BenchError,
    Served,
    cpu_s,
    free_port,
    memory_kb,
    printed_access,
    table_server,
)

__all__ = [
    "BenchError",
    "Served",
    "cpu_s",
    "free_port",
    "main",
    "memory_kb",
    "percentile",
    "printed_access",
    "references",
    "report",
    "verdicts",
]

#: The issue's targets.
TARGET_RSS_MB = 70.0
TARGET_P99_MS = 50.0
TARGET_PAGE_KB = 150.0
#: A table's seats at most (engine.apps.table.room).
MAX_SEATS = 10
#: When the server's memory is read, in order (after_round: when the first round is over).
MOMENTS = ("idle", "connected", "match_started", "after_round", "end")
#: How long one step of the table may take before the run is called stuck (not a timing check).
STUCK_S = 20.0

T = TypeVar("T")


# -- the table, played over WebSockets -------------------------------------------------------


#: Messages a page sends a second at most (a fast thumb; the table's own limit
#: is twice that, engine.apps.table.limits.Limits.message_rate).
SEND_RATE = 10.0
#: A message's type, read without parsing the rest (the server puts it first).
_TYPE = re.compile(r'\{\s*"type"\s*:\s*"(\w+)"')


class Peer:
    """One WebSocket client: a display or a phone. Its reader task keeps the raw
    frames (the display: every frame with its arrival time) and parses nothing."""

    def __init__(self, name: str, ws: Any, activity: asyncio.Event, keep_all: bool = False):
        self.name = name
        self.ws = ws
        self.activity = activity
        self.keep_all = keep_all
        self.inbox: list[tuple[float, str]] = []  # (monotonic arrival, text), display only
        self.last_view: str | None = None
        self.welcome: dict[str, Any] | None = None
        self.refused: list[str] = []
        self.frames = 0
        self.bytes = 0
        self._parsed: tuple[str | None, dict[str, Any] | None] = (None, None)
        self._last_sent = -1.0
        self.reader = asyncio.create_task(self._read(), name=f"read-{name}")

    async def _read(self) -> None:
        async for text in self.ws:
            now = time.monotonic()
            assert isinstance(text, str)
            self.frames += 1
            self.bytes += len(text)
            if self.keep_all:
                self.inbox.append((now, text))
            kind = _TYPE.match(text)
            if kind is None:
                raise BenchError(f"{self.name} received a message without a type first: {text!r}")
            if kind[1] == "view":
                self.last_view = text
            elif kind[1] == "welcome":
                self.welcome = json.loads(text)
            elif kind[1] == "refused":
                self.refused.append(json.loads(text)["message"])
            self.activity.set()

    def view(self) -> dict[str, Any] | None:
        """The latest view this peer received (parsed once)."""
        text, parsed = self._parsed
        if text is not self.last_view:
            parsed = None if self.last_view is None else json.loads(self.last_view)["view"]
            self._parsed = (self.last_view, parsed)
        return parsed

    async def send(self, message: dict[str, Any]) -> None:
        """Send ``message``, at most :data:`SEND_RATE` a second from this page:
        a person taps no faster, and the table refuses a page far faster."""
        await self.pace()
        self._last_sent = time.monotonic()
        await self.ws.send(json.dumps(message))

    async def pace(self) -> None:
        """Wait until this page may send again (a tap's clock starts after it)."""
        wait = self._last_sent + 1 / SEND_RATE - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)


def public(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a display and a phone share of a view: all but the hand and the log
    with the cards its lines name (a phone is sent only the log's newest lines)."""
    mine = ("you", "log", "log_cards")
    return None if view is None else {k: v for k, v in view.items() if k not in mine}


def percentile(ordered: list[float], fraction: float) -> float:
    """The nearest-rank percentile of sorted samples."""
    return ordered[max(0, min(len(ordered) - 1, int(len(ordered) * fraction + 0.5) - 1))]


class Table:
    """A display and the phones on one server, and the waiting between them."""

    def __init__(self, port: int, compression: str | None):
        self.url = f"ws://127.0.0.1:{port}/ws"
        self.compression = compression
        self.activity = asyncio.Event()
        self.display: Peer
        self.phones: list[Peer] = []
        self.extensions: str | None = None
        self._devices = 0

    async def connect(self, name: str, keep_all: bool = False) -> Peer:
        """A page of a device of its own: each connection comes from an address
        of its own on loopback (127.0.0.2, .3, ...), as each phone at a table
        does, so the table's per-address limits see one device a page."""
        from websockets.asyncio.client import connect

        self._devices += 1
        device = f"127.0.{self._devices // 250}.{self._devices % 250 + 2}"
        ws = await connect(
            self.url,
            compression=self.compression,
            proxy=None,
            max_size=None,
            local_addr=(device, 0),
        )
        if ws.response is not None:
            self.extensions = ws.response.headers.get("Sec-WebSocket-Extensions")
        return Peer(name, ws, self.activity, keep_all)

    async def until(
        self, predicate: Callable[[], T | None], what: str, timeout: float = STUCK_S
    ) -> T:
        """Wait until ``predicate()`` returns neither None nor False (it is checked
        after every frame) and return what it returned (a seat 0 counts)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (result := predicate()) is None or result is False:
            self.activity.clear()
            for peer in (self.display, *self.phones):
                if peer.refused:
                    raise BenchError(f"{peer.name} was refused: {peer.refused}")
                if peer.reader.done():
                    raise BenchError(f"{peer.name}'s socket closed: {peer.reader.exception()!r}")
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise BenchError(f"stuck for {timeout:.0f} s waiting for {what}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.activity.wait(), remaining)
        return result

    def settled(self) -> int | None:
        """The seat whose turn it is once the table is still: the display's view
        has a turn, and that seat's phone holds the same public view. None otherwise."""
        view = self.display.view()
        if view is None or view["paused"] is not None or view["turn"] is None:
            return None
        seat = view["turn"]
        phone = self.phones[seat].view()
        if phone is None or public(phone) != public(view) or not phone["you"]["legal"]:
            return None
        return int(seat)

    def round_over(self) -> bool:
        view = self.display.view()
        return view is not None and view["phase"] in ("over", "match_over")

    async def close(self) -> None:
        for peer in (self.display, *self.phones):
            await peer.ws.close()
            with contextlib.suppress(Exception):
                await peer.reader


async def seat_everyone(table: Table, phones: int, host_key: str, code: str) -> int:
    """Connect the host's display and ``phones`` phones; the first ones (up to the
    table's seats) take a seat with the room code. How many are seated."""
    seated = min(phones, MAX_SEATS)
    table.display = await table.connect("display", keep_all=True)
    await table.display.send({"type": "hello", "role": "display", "host_key": host_key})
    for n in range(phones):
        phone = await table.connect(f"phone {n}")
        table.phones.append(phone)
        await phone.send({"type": "hello", "role": "phone", "secret": None})
        if n < seated:
            await phone.send({"type": "join", "seat": n, "name": f"Player {n}", "code": code})
    await table.until(
        lambda: all(
            p.welcome is not None and p.welcome["seat"] == (n if n < seated else None)
            for n, p in enumerate(table.phones)
        ),
        "every phone's welcome",
    )
    await table.until(
        lambda: all(
            (v := p.view()) is not None and sum(s["kind"] == "person" for s in v["seats"]) == seated
            for p in (table.display, *table.phones)
        ),
        "every connection's lobby view with the people seated",
    )
    return seated


async def tap(table: Table, rng: random.Random, tap_id: int) -> tuple[float, int]:
    """The phone whose turn it is acts; the time until the display receives the
    view that reflects it, and that view's size in bytes. Then wait for the
    table to be still again (or the round to be over)."""
    seat = await table.until(table.settled, "a person's turn")
    phone, display = table.phones[seat], table.display
    you = phone.view()
    assert you is not None
    legal = [a["action"] for a in you["you"]["legal"]]
    action = rng.choice([a for a in legal if a not in ("draw", "keep")] or legal)
    before = display.view()
    await phone.pace()
    del display.inbox[:]  # everything before the tap
    sent = time.monotonic()
    await phone.send({"type": "act", "action": action, "id": tap_id})

    def reflected() -> tuple[float, str] | None:
        while display.inbox:
            arrived, text = display.inbox.pop(0)
            message = json.loads(text)
            if message["type"] == "view" and message["view"] != before:
                return arrived, text
        return None

    arrived, text = await table.until(reflected, f"the display to show {action!r}")
    await table.until(
        lambda: table.settled() is not None or table.round_over(),
        "the table to settle after a tap",
    )
    return arrived - sent, len(text)


async def play(
    port: int,
    pid: int,
    *,
    phones: int,
    taps: int,
    seed: int,
    variant: str,
    target: int,
    compression: str | None,
    host_key: str,
    code: str,
) -> dict[str, Any]:
    """Seat the phones, start the match, time ``taps`` taps (more if no round has ended)."""
    rng = random.Random(seed)
    table = Table(port, compression)
    memory: dict[str, dict[str, int]] = {}
    seated = await seat_everyone(table, phones, host_key, code)
    everyone = (table.display, *table.phones)
    memory["connected"] = memory_kb(pid)
    start = {"type": "host", "cmd": "start", "variant": variant, "target": target}
    await table.display.send(start)
    await table.until(table.settled, "the first turn")
    memory["match_started"] = memory_kb(pid)

    bytes_before = sum(p.bytes for p in everyone)
    cpu_before = cpu_s(pid)
    started = time.monotonic()
    client_cpu = time.process_time()
    timed = await _timed_taps(table, rng, pid, start, taps, memory)
    elapsed = time.monotonic() - started
    client_cpu = time.process_time() - client_cpu
    server_cpu = cpu_s(pid) - cpu_before
    received = sum(p.bytes for p in everyone) - bytes_before
    memory["end"] = memory_kb(pid)
    extensions = table.extensions
    await table.close()
    return {
        "connected": {
            "display": 1,
            "phones": phones,
            "seated": seated,
            "unseated": phones - seated,
        },
        "websocket_extensions": extensions,
        "memory": memory,
        **_tap_figures(timed, elapsed, server_cpu, client_cpu, received),
    }


class _Timed(NamedTuple):
    """The taps timed: each one's latency (s) and display view (bytes); the
    rounds and the matches ended meanwhile."""

    latencies: list[float]
    view_bytes: list[int]
    rounds_ended: int
    matches_ended: int


async def _timed_taps(
    table: Table,
    rng: random.Random,
    pid: int,
    start: dict[str, Any],
    taps: int,
    memory: dict[str, dict[str, int]],
) -> _Timed:
    """``taps`` taps timed (more if no round has ended: the memory after a round
    is read when the first ends); a round over is dealt, a match over started again."""
    latencies: list[float] = []
    view_bytes: list[int] = []
    rounds_ended = matches_ended = 0
    while len(latencies) < taps or "after_round" not in memory:
        if table.round_over():
            memory.setdefault("after_round", memory_kb(pid))
            rounds_ended += 1
            if (table.display.view() or {})["phase"] == "over":
                await table.display.send({"type": "host", "cmd": "next_round"})
            else:
                matches_ended += 1
                await table.display.send(start)
            await table.until(table.settled, "the first turn of the next round")
            continue
        latency, size = await tap(table, rng, len(latencies))
        latencies.append(latency)
        view_bytes.append(size)
    return _Timed(latencies, view_bytes, rounds_ended, matches_ended)


def _tap_figures(
    timed: _Timed, elapsed: float, server_cpu: float, client_cpu: float, received: int
) -> dict[str, Any]:
    """The taps' figures in the report's fields."""
    ordered = sorted(timed.latencies)
    count = len(ordered)
    view_bytes = timed.view_bytes
    return {
        "taps": count,
        "rounds_ended": timed.rounds_ended,
        "matches_ended": timed.matches_ended,
        "latency_ms": {
            "median": statistics.median(ordered) * 1e3,
            "p90": percentile(ordered, 0.90) * 1e3,
            "p99": percentile(ordered, 0.99) * 1e3,
            "max": ordered[-1] * 1e3,
        },
        "taps_per_s": count / elapsed,
        "server_cpu_ms_per_tap": server_cpu / count * 1e3,
        "client_cpu_ms_per_tap": client_cpu / count * 1e3,
        "display_view_bytes": {"median": statistics.median(view_bytes), "max": max(view_bytes)},
        "received_bytes_per_tap": received / count,
    }


# -- one run, several runs, the report -------------------------------------------------------


def one_run(args: argparse.Namespace, seed: int) -> dict[str, Any]:
    seats = max(2, min(args.phones, MAX_SEATS))
    port = args.port or free_port()
    with (
        tempfile.TemporaryDirectory(prefix="table-bench-") as tmp,
        table_server(Path(tmp), port, seats=seats, seed=seed) as server,
    ):
        time.sleep(args.settle_s)  # let start-up finish before reading the idle figure
        idle = memory_kb(server.pid)
        base = f"http://127.0.0.1:{port}"
        weights = {name: page_weight(base, path) for name, path in pages(base).items()}
        result = asyncio.run(
            play(
                port,
                server.pid,
                phones=args.phones,
                taps=args.taps,
                seed=seed,
                variant=args.variant,
                target=args.target,
                compression=None if args.no_deflate else "deflate",
                host_key=server.host_key,
                code=server.code,
            )
        )
        result["memory"] = {"idle": idle, **result["memory"]}
        result["pages"] = weights
    return result


def machine() -> dict[str, Any]:
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model"):
                model = value.strip()
                break
    return {"nproc": os.cpu_count(), "cpu": model, "python": sys.version.split()[0]}


def medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median over runs of each headline figure."""

    def med(values: Iterator[float]) -> float:
        return float(statistics.median(values))

    pages = list(runs[0]["pages"])
    return {
        "rss_mb": {
            m: med(r["memory"][m]["rss_kb"] / 1024 for r in runs)
            for m in MOMENTS
            if all(m in r["memory"] for r in runs)
        },
        "hwm_mb": med(r["memory"]["end"]["hwm_kb"] / 1024 for r in runs),
        "latency_ms": {k: med(r["latency_ms"][k] for r in runs) for k in runs[0]["latency_ms"]},
        "page_kb": {n: med(r["pages"][n]["bytes"] / 1000 for r in runs) for n in pages},
        "page_gzip_kb": {n: med(r["pages"][n]["gzip_bytes"] / 1000 for r in runs) for n in pages},
        "server_cpu_ms_per_tap": med(r["server_cpu_ms_per_tap"] for r in runs),
    }


def verdicts(summary: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, bool]:
    connected = ("match_started", "after_round", "end")
    return {
        "rss_under_70_mb": all(
            r["memory"][m]["rss_kb"] / 1024 < TARGET_RSS_MB
            for r in runs
            for m in connected
            if m in r["memory"]
        ),
        "p99_under_50_ms": summary["latency_ms"]["p99"] < TARGET_P99_MS,
        "pages_under_150_kb": all(
            kb < TARGET_PAGE_KB and not r["pages"][name]["external"]
            for r in runs
            for name, kb in ((n, p["bytes"] / 1000) for n, p in r["pages"].items())
        ),
    }


def report(figures: dict[str, Any]) -> str:
    runs, summary, args = figures["runs"], figures["median"], figures["arguments"]
    first = runs[0]
    c = first["connected"]
    m = figures["machine"]
    lines = [
        f"showdown table on 127.0.0.1, --pace 0, {args['variant']} to {args['target']}; "
        f"{len(runs)} run(s) of {args['taps']} taps; machine: {m['nproc']} cores, {m['cpu']}, "
        f"Python {m['python']}; load average {figures['load_before']} before, "
        f"{figures['load_after']} after",
        f"connected: 1 display and {c['phones']} phones: {c['seated']} seated (a table has at "
        f"most {MAX_SEATS} seats), {c['unseated']} connected as phones without a seat; "
        f"WebSocket extensions: {first['websocket_extensions'] or 'none'}",
        "",
        "Bytes per page load (each file once per page; the target is under "
        f"{TARGET_PAGE_KB:.0f} KB):",
    ]
    lines += _page_lines(first["pages"])
    lines += _memory_lines(runs, summary)
    lines += _latency_lines(runs, summary)
    lines += [
        "",
        "Targets: "
        + "; ".join(f"{name}: {'met' if ok else 'NOT met'}" for name, ok in figures["met"].items()),
    ]
    return "\n".join(lines)


def _page_lines(pages: dict[str, Any]) -> list[str]:
    """The report's lines of bytes per page load (one run's)."""
    lines: list[str] = []
    for name, page in pages.items():
        files = ", ".join(f"{f['url']} {f['bytes']:,}" for f in page["files"])
        lines.append(
            f"  {name:<10} {page['path']:<24} {page['bytes'] / 1000:6.1f} KB as served, "
            f"{page['gzip_bytes'] / 1000:5.1f} KB gzipped ({len(page['files'])} files: {files})"
            + (f"; EXTERNAL: {page['external']}" if page["external"] else "")
        )
    compresses = any(p["compressed_by_server"] for p in pages.values())
    lines.append(
        "  the server "
        + (
            "compresses (gzip) when asked"
            if compresses
            else "does not compress (no Content-Encoding on a request accepting gzip); "
            "the gzip figures are what compression would give"
        )
    )
    return lines


def _memory_lines(runs: list[dict[str, Any]], summary: dict[str, Any]) -> list[str]:
    """The report's lines of the server's memory, run by run and the medians."""
    lines: list[str] = []
    lines += ["", "Server memory, VmRSS MB (target under 70 MB with a display and 16 phones):"]
    lines.append("  run " + "".join(f"{moment:>15}" for moment in MOMENTS) + "   VmHWM")
    for n, run in enumerate(runs, 1):
        lines.append(
            f"  {n:<3} "
            + "".join(
                f"{run['memory'][m]['rss_kb'] / 1024:15.1f}" if m in run["memory"] else f"{'-':>15}"
                for m in MOMENTS
            )
            + f"{run['memory']['end']['hwm_kb'] / 1024:8.1f}"
        )
    rss = summary["rss_mb"]
    lines.append(
        "  median over runs: "
        + ", ".join(f"{m} {mb:.1f}" for m, mb in rss.items())
        + f"; VmHWM {summary['hwm_mb']:.1f} MB"
    )
    return lines


def _latency_lines(runs: list[dict[str, Any]], summary: dict[str, Any]) -> list[str]:
    """The report's lines of tap-to-display latency, run by run and the medians."""
    lines: list[str] = []
    lines += [
        "",
        f"Tap-to-display latency, ms (target p99 under {TARGET_P99_MS:.0f} ms on loopback):",
        "  run   taps rounds   median      p90      p99      max   taps/s  CPU/tap: server"
        "  client  view bytes",
    ]
    for n, run in enumerate(runs, 1):
        lat = run["latency_ms"]
        lines.append(
            f"  {n:<3} {run['taps']:6} {run['rounds_ended']:6} {lat['median']:8.2f} "
            f"{lat['p90']:8.2f} {lat['p99']:8.2f} {lat['max']:8.2f} {run['taps_per_s']:8.1f} "
            f"{run['server_cpu_ms_per_tap']:11.2f} ms {run['client_cpu_ms_per_tap']:5.2f} ms "
            f"{run['display_view_bytes']['median']:11,.0f}"
        )
    lat = summary["latency_ms"]
    lines += [
        f"  median over runs: median {lat['median']:.2f}, p90 {lat['p90']:.2f}, "
        f"p99 {lat['p99']:.2f}, max {lat['max']:.2f} ms",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--phones", type=int, default=16, help="phones connected (default 16)")
    parser.add_argument(
        "--taps",
        type=int,
        default=500,
        help="taps timed per run, at least (default 500): a run goes on until a round has ended",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs, each on a fresh server")
    parser.add_argument("--seed", type=int, default=1, help="the table's and the taps' seed")
    parser.add_argument("--variant", choices=("showdown", "classic"), default="showdown")
    parser.add_argument("--target", type=int, default=500, help="the match's target points")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: free)")
    parser.add_argument(
        "--settle-s", type=float, default=1.0, help="wait after start-up before the idle figure"
    )
    parser.add_argument(
        "--no-deflate", action="store_true", help="offer no permessage-deflate (browsers do)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.phones < 2:
        parser.error("--phones must be at least 2: a match needs two people (no bots here)")
    if args.taps < 1 or args.repeat < 1:
        parser.error("--taps and --repeat must be at least 1")
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    try:
        runs = [one_run(args, args.seed + n) for n in range(args.repeat)]
    except BenchError as exc:
        print(f"table_bench: {exc}", file=sys.stderr)
        return 1
    summary = medians(runs)
    figures = {
        "arguments": vars(args),
        "machine": machine(),
        "load_before": load_before,
        "load_after": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "runs": runs,
        "median": summary,
        "met": verdicts(summary, runs),
    }
    print(json.dumps(figures, indent=1) if args.json else report(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
