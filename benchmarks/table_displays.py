"""Many displays on one table: what a connection arriving costs, what a change
costs with them open, and the memory they hold and give back.

    .venv/bin/python benchmarks/table_displays.py [--displays 1000] [--taps 100]
                                                  [--deflate] [--tree DIR] [--json]

It starts the real ``showdown table`` (``python -m engine table``, ``--unit sim --pace 0``,
two seats, a temporary ``--save``: every change saved and fsync'd, as a user
runs it) from ``--tree`` (default: this checkout; another tree, e.g. an older
commit unpacked with ``git archive``, measures that code side by side), then:

- two phones take the seats and a **watched display** (a ``websockets`` client
  that parses what it gets) opens first; the host starts a match of the two
  people (no bots, no pacing);
- **opening**: ``--displays`` more displays connect one after another, each
  a minimal WebSocket client of this script's own that says hello and reads
  every frame (answering the server's pings) without parsing it, so the
  clients cost the machine little; the time from the first connect until every
  one of them received its view, and the server's memory before and after;
- **a change's latency**: ``--taps`` times, the phone whose turn it is plays
  one of its legal actions (seeded) once the table is still; the watched
  display's latency is from the send until it receives the view that differs,
  and the fan-out's is until the last of the displays received a frame;
- **closing**: every display closes; the server's memory once its open file
  descriptors are back to what they were before the displays opened.

``--deflate``: the clients offer permessage-deflate, as browsers do, and the
server compresses every frame for each connection. The server's memory is
VmRSS from ``/proc/PID/status``; its CPU per tap from ``/proc/PID/stat``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import random
import resource
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the sibling benchmark's helpers

from benchmarks.table_bench import (  # noqa: E402
    BenchError,
    cpu_s,
    free_port,
    memory_kb,
    percentile,
    printed_access,
)

READY_LINE = "Ctrl-C stops the table."
#: How long one step may take before the run is called stuck (not a timing check).
STUCK_S = 600.0


@contextlib.contextmanager
def table_server(
    tree: Path, workdir: Path, port: int, seed: int
) -> Iterator[tuple[int, tuple[str, str] | None]]:
    """``showdown table`` from ``tree`` on 127.0.0.1:``port``: its pid, and the
    host key and room code it printed (None: a tree from before them)."""
    log_path = workdir / "server.log"
    command = [sys.executable, "-m", "engine", "table", "--unit", "sim"]
    command += ["--listen", f"127.0.0.1:{port}"]
    command += ["--pace", "0", "--seats", "2", "--seed", str(seed)]
    command += ["--save", str(workdir / "table.json")]
    helped = subprocess.run(
        [sys.executable, "-m", "engine", "table", "--help"],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
    ).stdout
    if "--max-connections" in helped:  # a tree with connection caps: room for them all
        command += ["--max-connections", "5000"]
    env = {**os.environ, "PYTHONPATH": str(tree)}  # the tree's engine, not the installed one
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=tree, env=env, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while READY_LINE not in log_path.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"the table did not start: {log_path.read_text()}")
            time.sleep(0.05)
        while True:
            try:
                import socket

                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise BenchError("the table did not listen") from None
                time.sleep(0.05)
        yield process.pid, printed_access(log_path.read_text(errors="replace"))
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class Silent:
    """A display that reads every frame and parses none: a WebSocket client in
    a few lines (RFC 6455): the handshake, hello, pongs to the server's pings."""

    def __init__(self, fanout: Fanout, address: str = "127.0.0.1"):
        self.fanout = fanout
        self.address = address  # its own device's (the table limits each address)
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter
        self.task: asyncio.Task | None = None
        self.frames = 0

    async def open(self, port: int, deflate: bool) -> None:
        self.reader, self.writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(self.address, 0)
        )
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: http://127.0.0.1:{port}\r\n"
        )
        if deflate:
            request += "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
        self.writer.write((request + "\r\n").encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise BenchError(f"a display was not let in: {head[:200]!r}")
        self.send(1, json.dumps({"type": "hello", "role": "display"}).encode())
        self.task = asyncio.create_task(self._read())

    def send(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
        else:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
        self.writer.write(header + mask + masked)

    async def _read(self) -> None:
        read = self.reader.readexactly
        while True:
            first, second = await read(2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await read(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await read(8))
            payload = await read(length)
            opcode = first & 0x0F
            if opcode == 9:  # ping
                self.send(10, payload)
            elif opcode == 8:
                return
            elif opcode in (1, 2, 0):
                self.frames += 1
                self.fanout.arrived(self)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()


class Fanout:
    """When the silent displays receive a frame: the first arrival of each since
    :meth:`expect`, and an event once every one of them has one."""

    def __init__(self) -> None:
        self.waiting: set[Silent] = set()
        self.last = 0.0
        self.done = asyncio.Event()

    def expect(self, displays: list[Silent]) -> None:
        self.waiting = set(displays)
        self.done.clear()

    def arrived(self, display: Silent) -> None:
        if display in self.waiting:
            self.waiting.discard(display)
            if not self.waiting:
                self.last = time.monotonic()
                self.done.set()


class Watched:
    """A websockets client that parses what it gets (the watched display, the phones)."""

    def __init__(self, ws: Any, changed: asyncio.Event):
        self.ws = ws
        self.view: dict[str, Any] | None = None
        self.welcome: dict[str, Any] | None = None
        self.changed = changed  # shared: a wait may be on several peers' views
        self.arrived = 0.0
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for text in self.ws:
            message = json.loads(text)
            if message["type"] == "view":
                if message["view"] != self.view:
                    self.view, self.arrived = message["view"], time.monotonic()
                    self.changed.set()
            elif message["type"] == "welcome":
                self.welcome = message
                self.changed.set()

    async def until(self, predicate: Any, what: str) -> None:
        deadline = time.monotonic() + STUCK_S
        while not predicate():
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise BenchError(f"stuck waiting for {what}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))


#: Set by every parsed peer's message (see Watched.until).
_ACTIVITY: list[asyncio.Event] = []


def device(number: int) -> str:
    """The loopback address of display ``number``'s device (127.0.1.1 on): a
    device a display, as the table's per-address limits expect."""
    return f"127.0.{1 + number // 250}.{1 + number % 250}"


_WATCHED = iter(range(2, 250))  # the watched pages' devices: 127.0.0.2 on


async def watched(port: int, hello: dict[str, Any], deflate: bool) -> Watched:
    from websockets.asyncio.client import connect

    ws = await connect(
        f"ws://127.0.0.1:{port}/ws",
        local_addr=(f"127.0.0.{next(_WATCHED)}", 0),
        compression="deflate" if deflate else None,
        proxy=None,
        max_size=None,
        origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
    )
    if not _ACTIVITY:
        _ACTIVITY.append(asyncio.Event())
    peer = Watched(ws, _ACTIVITY[0])
    await peer.send(hello)
    return peer


class Farm:
    """The silent displays, in a process of their own (``--farm``), so that
    their reading never delays the watched display's: told on its stdin
    (``expect``, ``close``), it answers on its stdout when every display got a
    frame (``all T``, T its ``time.monotonic()``: the same clock in every
    process) and when they are closed."""

    def __init__(self, port: int, displays: int, deflate: bool):
        command = [sys.executable, __file__, "--farm", str(displays), "--port", str(port)]
        self.process = subprocess.Popen(
            [*command, *(["--deflate"] if deflate else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    async def said(self) -> list[str]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(self.process.stdout.readline), STUCK_S)
        if not line:
            raise BenchError(f"the displays' process stopped ({self.process.wait()})")
        return line.split()

    def tell(self, what: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(what + "\n")
        self.process.stdin.flush()


async def farm(port: int, displays: int, deflate: bool) -> None:
    """``--farm``: open the silent displays, then do what stdin says."""
    fanout = Fanout()
    silent = [Silent(fanout, device(n)) for n in range(displays)]
    fanout.expect(silent)
    began = time.monotonic()
    for one in silent:
        await one.open(port, deflate)
    await fanout.done.wait()
    print("opened", began, fanout.last, flush=True)
    loop = asyncio.get_running_loop()
    while True:
        line = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
        if line == "expect":
            fanout.expect(silent)
            print("ready", flush=True)
            await fanout.done.wait()
            print("all", fanout.last, flush=True)
        elif line == "close" or not line:
            for one in silent:
                await one.close()
            print("closed", flush=True)
            return


async def measure(
    port: int, pid: int, args: argparse.Namespace, access: tuple[str, str] | None
) -> dict[str, Any]:
    rng = random.Random(args.seed)
    key, code = access or (None, None)  # the host's display; the phones join with the code
    host = {"type": "hello", "role": "display", "host_key": key}
    display = await watched(port, host, args.deflate)
    phones = [await watched(port, {"type": "hello", "role": "phone"}, args.deflate) for _ in "ab"]
    for seat, phone in enumerate(phones):
        await phone.send({"type": "join", "seat": seat, "name": f"Player {seat}", "code": code})
        await phone.until(
            lambda p=phone: p.welcome is not None and p.welcome["seat"] is not None, "a seat"
        )
    await display.send({"type": "host", "cmd": "start", "bots": 0})
    await display.until(
        lambda: display.view is not None and display.view["turn"] is not None, "a turn"
    )
    figures: dict[str, Any] = {"before_kb": memory_kb(pid)["rss_kb"]}
    fds = open_fds(pid)
    displays = Farm(port, args.displays, args.deflate)
    _, began, opened = await displays.said()
    figures["open_s"] = float(opened) - float(began)
    figures["open_kb"] = memory_kb(pid)["rss_kb"]
    late = await watched(port, {"type": "hello", "role": "display"}, args.deflate)
    await late.until(lambda: late.view == display.view, "the last display's view")

    cpu_before = cpu_s(pid)
    latencies, lates, spreads = await _timed_taps(display, late, phones, displays, rng, args.taps)
    figures["taps"] = len(latencies)
    figures["server_cpu_ms_per_tap"] = (cpu_s(pid) - cpu_before) / max(1, len(latencies)) * 1000
    figures["latency_ms"] = summary(latencies)
    figures["last_display_ms"] = summary(lates)
    figures["fanout_ms"] = summary(spreads)
    figures["view_bytes"] = len(json.dumps(display.view))

    await _close_and_reopen(port, pid, args, displays, fds, figures)
    figures["per_display_kb"] = (figures["open_kb"] - figures["before_kb"]) / max(1, args.displays)
    for peer in (display, late, *phones):
        await peer.ws.close()
    return figures


async def _timed_taps(
    display: Watched,
    late: Watched,
    phones: list[Watched],
    displays: Farm,
    rng: random.Random,
    taps: int,
) -> tuple[list[float], list[float], list[float]]:
    """``taps`` taps timed: until the display shows each, until the last display
    does, until every display of the farm did (a round over is dealt first)."""
    latencies: list[float] = []
    lates: list[float] = []
    spreads: list[float] = []
    ids = 0
    while len(latencies) < taps:
        await display.until(lambda: settled(display, phones) is not None, "a person's turn")
        turn = settled(display, phones)
        view = display.view
        if turn is None or turn < 0 or view is None:  # the round is over: deal the next
            cmd = "start" if view is not None and view["phase"] == "match_over" else "next_round"
            displays.tell("expect")
            await displays.said()
            await display.send({"type": "host", "cmd": cmd, "bots": 0})
            await display.until(lambda v=view: display.view is not v, "the next round")
            await displays.said()
            continue
        you = phones[turn].view
        assert you is not None
        legal = [a["action"] for a in you["you"]["legal"]]
        action = rng.choice([a for a in legal if a not in ("draw", "keep")] or legal)
        displays.tell("expect")
        await displays.said()  # ready
        late_view = late.view
        ids += 1
        sent = time.monotonic()
        await phones[turn].send({"type": "act", "action": action, "id": f"bench{turn}-{ids}"})
        await display.until(lambda b=view: display.view is not b, "the tap on the display")
        latencies.append(display.arrived - sent)
        await late.until(lambda b=late_view: late.view is not b, "the tap on the last display")
        lates.append(late.arrived - sent)
        _, last = await displays.said()
        spreads.append(float(last) - sent)
    return latencies, lates, spreads


async def _close_and_reopen(
    port: int, pid: int, args: argparse.Namespace, displays: Farm, fds: int, figures: dict[str, Any]
) -> None:
    """The farm's displays closed, then as many opened and closed again: the
    server's memory after each (in ``figures``)."""
    displays.tell("close")
    await displays.said()
    displays.process.wait()
    deadline = time.monotonic() + STUCK_S
    while open_fds(pid) > fds + 1 and time.monotonic() < deadline:  # the late display's
        await asyncio.sleep(0.1)  # the server's own work: waited for, not timed
    figures["closed_kb"] = memory_kb(pid)["rss_kb"]
    # again: what the first ones gave back is what the next ones take (RSS does not
    # shrink: the allocator keeps freed pages for the process), nothing more
    again = Farm(port, args.displays, args.deflate)
    await again.said()
    figures["reopened_kb"] = memory_kb(pid)["rss_kb"]
    again.tell("close")
    await again.said()
    again.process.wait()
    while open_fds(pid) > fds + 1 and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    figures["closed_again_kb"] = memory_kb(pid)["rss_kb"]


def settled(display: Watched, phones: list[Watched]) -> int | None:
    """The seat to act once its phone holds the display's position."""
    view = display.view
    if view is None or view["turn"] is None:
        return None if view is None or view["phase"] not in ("over", "match_over") else -1
    phone = phones[view["turn"]].view
    if phone is None or phone["top"] != view["top"] or not phone["you"]["legal"]:
        return None
    if phone["seats"] != view["seats"]:
        return None
    return int(view["turn"])


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    if not ordered:
        return {}
    return {
        "p50": statistics.median(ordered) * 1000,
        "p90": percentile(ordered, 0.9) * 1000,
        "p99": percentile(ordered, 0.99) * 1000,
        "max": ordered[-1] * 1000,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--displays", type=int, default=1000)
    parser.add_argument("--taps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deflate", action="store_true")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree to serve from")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--farm", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.farm is not None:  # the silent displays' own process (see Farm)
        asyncio.run(farm(args.port, args.farm, args.deflate))
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < args.displays + 100:  # this process and the server (it inherits it) hold them all
        if hard != resource.RLIM_INFINITY and hard < args.displays + 100:
            raise BenchError(f"--displays {args.displays}: the open file limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (args.displays + 100, hard))
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        with table_server(args.tree.resolve(), Path(tmp), port, args.seed) as (pid, access):
            figures = asyncio.run(measure(port, pid, args, access))
    figures.update(tree=str(args.tree), displays=args.displays, deflate=args.deflate)
    if args.json:
        print(json.dumps(figures))
    else:
        lat, fan = figures["latency_ms"], figures["fanout_ms"]
        print(
            f"{args.displays} displays ({'deflate' if args.deflate else 'no deflate'}), "
            f"tree {args.tree}:\n"
            f"  opened in {figures['open_s']:.2f} s; RSS {figures['before_kb'] / 1024:.1f} MB "
            f"-> {figures['open_kb'] / 1024:.1f} MB open "
            f"({figures['per_display_kb']:.1f} KB a display) -> "
            f"{figures['closed_kb'] / 1024:.1f} MB closed; opened and closed again: "
            f"{figures['reopened_kb'] / 1024:.1f} -> {figures['closed_again_kb'] / 1024:.1f} MB\n"
            f"  {figures['taps']} taps: watched display p50 {lat['p50']:.1f} ms, "
            f"p99 {lat['p99']:.1f} ms; the one opened last p50 "
            f"{figures['last_display_ms']['p50']:.1f} ms; all displays p50 {fan['p50']:.1f} ms, "
            f"p99 {fan['p99']:.1f} ms; server CPU {figures['server_cpu_ms_per_tap']:.1f} ms/tap; "
            f"view {figures['view_bytes']} B"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
