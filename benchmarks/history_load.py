"""The unit daemon while ``history`` requests loop, with a big journal: how long
``status``, ``showdown``, ``start`` and ``cancel`` take on another connection, idle
and under the loop, and how long a ``history`` itself takes, at each journal size.

    .venv/bin/python benchmarks/history_load.py [--rows 1000,10000,100000] [--repeat 10]
                                                [--idle-s 5] [--load-s 15] [--seed 1] [--json]

For each size a journal of that many results is written first, straight into
SQLite as schema version 3 wrote its rows (one transaction, a few seconds for
100,000), then opened once for writing with this checkout's own ``Journal``,
which upgrades it to this checkout's schema (the time is reported: for version
4 it is the one-off upgrade that makes the kept figures). The results are a
seeded mix: eight people and two bots, reactions of 150 to 450 ms, some false
starts, timeouts and void ties. Then a real ``showdown-unit run --mock`` daemon
(tests/daemon_helpers.py: mock pins, ``-v`` logging to a file, loopback TCP)
serves that journal, and three phases run against it:

1. **history alone**: one client sends each kind of ``history`` request
   (``limit`` 1, 50 and 1000, without and with ``player``) ``--repeat`` times,
   one at a time, and times each reply (to its newline, not parsed);
2. **idle**: one client alternates a ``status`` with a showdown cycle
   (``showdown`` to arm a new id, ``start``, ``cancel``) for ``--idle-s``,
   timing each round trip;
3. **under load**: the same for ``--load-s``, while another process, on a
   connection of its own, sends those history requests in a loop, one after
   another, as fast as they are answered.

The clients send pre-encoded lines and read to the reply's newline (events,
which every client gets, are skipped), with TCP_NODELAY; the history loop runs
in a process of its own, so its reading never holds this process's GIL.
The countdown is 3 s a step, so a ``cancel`` always lands in the countdown and
no showdown ever runs. Percentiles: p99 is the value 99 % of the samples are
at or under (the largest of a phase with under 100 samples).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import multiprocessing
import random
import socket
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_host.service.journal import SCHEMA_VERSION, Journal
from tests.daemon_helpers import running_daemon

#: Each kind of history request: (limit, player).
KINDS = [(1, None), (50, None), (1000, None), (1, "ann"), (50, "Ann"), (1000, "ANN")]
PEOPLE = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
BOTS = ["Bot-150", "Bot-300"]
CONFIG = "[timing]\ncountdown_step_s = 3.0\n"

#: The schema of version 3, as the unit created it (tests/test_journal_migration.py).
V3_SCHEMA = """
CREATE TABLE results (
    entry INTEGER PRIMARY KEY,
    showdown_id TEXT NOT NULL UNIQUE,
    recorded_at REAL NOT NULL,
    player_a TEXT NOT NULL,
    player_b TEXT NOT NULL,
    body TEXT NOT NULL,
    launch TEXT,
    cards_counted INTEGER,
    outcome_at REAL
);
CREATE INDEX results_player_a ON results (player_a);
CREATE INDEX results_player_b ON results (player_b);
PRAGMA user_version = 3;
"""


# -- the journal ----------------------------------------------------------------------


def a_result(rng: random.Random, n: int) -> dict:
    """One showdown's result, as Result.to_dict() makes it (launch as finished)."""
    bots = [side for side in "ab" if rng.random() < 0.15]
    names = rng.sample(PEOPLE, 2)
    players = {side: rng.choice(BOTS) if side in bots else names[i] for i, side in enumerate("ab")}
    if players["a"] == players["b"]:
        players["b"] = names[1]
    kind = rng.random()
    reaction: dict[str, int | None] = {side: rng.randrange(150_000, 450_000) for side in "ab"}
    winner: str | None
    loser: str | None
    if kind < 0.05:
        loser = rng.choice("ab")
        winner = "b" if loser == "a" else "a"
        reason, reaction = "false_start", {loser: -rng.randrange(1_000, 200_000), winner: None}
    elif kind < 0.08:
        winner = loser = None
        reason, reaction = "timeout", {"a": None, "b": None}
    elif kind < 0.10:
        winner = loser = None
        reason, reaction["b"] = "tie_void", reaction["a"]
    else:
        first, second = reaction["a"] or 0, reaction["b"] or 0
        if first == second:
            reaction["b"] = second = second + 1
        winner = "a" if first < second else "b"
        loser = "b" if winner == "a" else "a"
        reason = "faster"
    a, b = reaction["a"], reaction["b"]
    cards = rng.randrange(1, 5)
    return {
        "showdown_id": f"m{n // 20}-r{n % 20}",
        "players": players,
        "bots": bots,
        "winner": winner,
        "loser": loser,
        "reason": reason,
        "tie_reruns": 0,
        "reaction_us": reaction,
        "margin_us": abs(a - b) if a is not None and b is not None else None,
        "cards": cards,
        "launch": "launched" if loser else "none",
        "cards_counted": None,
    }


def build_journal(path: Path, rows: int, seed: int) -> dict:
    """A journal of ``rows`` results at ``path``, written by SQL as version 3
    wrote them, then opened for writing by this checkout (its upgrade)."""
    rng = random.Random(seed)
    started = time.perf_counter()
    db = sqlite3.connect(path)
    db.executescript(V3_SCHEMA)
    t0 = 1_764_525_851.0
    records = []
    for n in range(1, rows + 1):
        result = a_result(rng, n)
        decided = {**result, "launch": "pending"} if result["loser"] else result
        body = json.dumps(decided, sort_keys=True, separators=(",", ":"), allow_nan=False)
        at = t0 + 60 * n
        records.append(
            (
                n,
                result["showdown_id"],
                at,
                result["players"]["a"],
                result["players"]["b"],
                body,
                result["launch"],
                None,
                at + 2,
            )
        )
    db.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", records)
    db.commit()
    db.close()
    written = time.perf_counter() - started
    started = time.perf_counter()
    Journal(path).close()  # this checkout's writable open: its upgrade, if any
    opened = time.perf_counter() - started
    return {
        "rows": rows,
        "write_s": round(written, 2),
        "first_open_s": round(opened, 2),
        "bytes": path.stat().st_size,
        "schema_version": SCHEMA_VERSION,
    }


# -- clients ------------------------------------------------------------------------------


class Link:
    """A TCP client that sends pre-encoded lines and reads up to each reply's
    newline, skipping events."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = bytearray()
        self.ids = itertools.count(1)
        self.call(b'{"id":0,"cmd":"hello","version":1}\n')

    def _line(self) -> bytes:
        while (end := self.buffer.find(b"\n")) < 0:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("the daemon closed the link")
            self.buffer += chunk
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        return line

    def call(self, line: bytes) -> bytes:
        self.sock.sendall(line)
        while (reply := self._line()).startswith(b'{"event"'):
            pass
        return reply

    def timed(self, cmd: str, **args) -> tuple[float, bytes]:
        line = json.dumps({"id": next(self.ids), "cmd": cmd, **args}).encode() + b"\n"
        started = time.perf_counter()
        reply = self.call(line)
        return time.perf_counter() - started, reply

    def close(self) -> None:
        self.sock.close()


def history_request(limit: int, player: str | None) -> dict:
    return {"limit": limit, **({"player": player} if player else {})}


def kind_name(limit: int, player: str | None) -> str:
    return f"limit {limit}" + (f", player {player!r}" if player else "")


def history_loop(port: int, started, stop, out) -> None:
    """In a process of its own: history requests of every kind, one after
    another, until ``stop`` is set (``started`` once the first is answered);
    puts {kind: [seconds, ...]} on ``out``, or {"error": why}."""
    try:
        link = Link(port)
        times: dict[str, list[float]] = {kind_name(*kind): [] for kind in KINDS}
        for limit, player in itertools.cycle(KINDS):
            if stop.is_set():
                break
            took, reply = link.timed("history", **history_request(limit, player))
            if b'"ok":true' not in reply[:40]:
                raise RuntimeError(f"history failed: {reply[:200]!r}")
            times[kind_name(limit, player)].append(took)
            started.set()
        link.close()
        out.put(times)
    except Exception as exc:
        out.put({"error": f"{type(exc).__name__}: {exc}"})
        started.set()


def cycles(link: Link, seconds: float, tag: str) -> dict[str, list[float]]:
    """``status``, then ``showdown`` (a new id), ``start``, ``cancel``, again
    and again for ``seconds``; each round trip's time, per command."""
    times: dict[str, list[float]] = {"status": [], "showdown": [], "start": [], "cancel": []}
    deadline = time.perf_counter() + seconds
    for n in itertools.count():
        if time.perf_counter() >= deadline:
            break
        for cmd, args in (
            ("status", {}),
            (
                "showdown",
                {"showdown_id": f"{tag}-{n}", "cards": 1, "players": {"a": "Ann", "b": "Bob"}},
            ),
            ("start", {}),
            ("cancel", {}),
        ):
            took, reply = link.timed(cmd, **args)
            if b'"ok":true' not in reply[:40]:
                raise RuntimeError(f"{cmd} failed: {reply[:200]!r}")
            times[cmd].append(took)
    return times


# -- figures ------------------------------------------------------------------------------


def summary(samples: list[float]) -> dict:
    """n, median, p99 and max, in milliseconds."""
    if not samples:
        return {"n": 0}
    ordered = sorted(samples)
    p99 = ordered[max(0, -(-len(ordered) * 99 // 100) - 1)]
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered) * 1000, 3),
        "p99_ms": round(p99 * 1000, 3),
        "max_ms": round(ordered[-1] * 1000, 3),
    }


def one_size(rows: int, args) -> dict:
    with tempfile.TemporaryDirectory(prefix="history-load-") as tmp:
        built = build_journal(Path(tmp) / "results.sqlite3", rows, args.seed)
        with running_daemon(tmp, config_text=CONFIG) as daemon:
            link = Link(daemon.port)
            for kind in KINDS:  # warm up: the connections, the page cache
                link.timed("history", **history_request(*kind))
            cycles(link, 0.5, "warm")
            history = {}
            for limit, player in KINDS:
                samples, size = [], 0
                for _ in range(args.repeat):
                    took, reply = link.timed("history", **history_request(limit, player))
                    samples.append(took)
                    size = len(reply) + 1
                history[kind_name(limit, player)] = {**summary(samples), "reply_bytes": size}
            idle = cycles(link, args.idle_s, "idle")
            context = multiprocessing.get_context("spawn")
            started, stop, out = context.Event(), context.Event(), context.Queue()
            loop = context.Process(target=history_loop, args=(daemon.port, started, stop, out))
            loop.start()
            with contextlib.ExitStack() as cleanup:
                cleanup.callback(loop.join, 60)
                cleanup.callback(stop.set)
                if not started.wait(120):
                    raise RuntimeError("the history loop never got a reply")
                loaded = cycles(link, args.load_s, "load")
                stop.set()
                in_loop = out.get(timeout=120)
            if "error" in in_loop:
                raise RuntimeError(f"the history loop failed: {in_loop['error']}")
            link.close()
    return {
        "journal": built,
        "history_alone": history,
        "idle": {cmd: summary(samples) for cmd, samples in idle.items()},
        "under_history_loop": {cmd: summary(samples) for cmd, samples in loaded.items()},
        "history_in_the_loop": {kind: summary(samples) for kind, samples in in_loop.items()},
    }


def report(figures: dict) -> str:
    lines = [f"history_load: {figures['command']}", ""]
    for size in figures["sizes"]:
        journal = size["journal"]
        lines.append(
            f"== {journal['rows']:,} rows: written in {journal['write_s']} s, first writable "
            f"open {journal['first_open_s']} s (schema {journal['schema_version']}), "
            f"{journal['bytes'] / 1e6:.1f} MB"
        )
        lines.append("  history alone, one at a time:")
        for kind, s in size["history_alone"].items():
            lines.append(
                f"    {kind:<24} median {s['median_ms']:9.1f} ms  p99 {s['p99_ms']:9.1f} ms"
                f"  ({s['n']} requests, reply {s['reply_bytes']:,} bytes)"
            )
        lines.append("  round trips on another connection: idle | under the history loop")
        for cmd in ("status", "showdown", "start", "cancel"):
            i, u = size["idle"][cmd], size["under_history_loop"][cmd]
            lines.append(
                f"    {cmd:<9} median {i['median_ms']:8.3f} | {u['median_ms']:9.3f} ms   "
                f"p99 {i['p99_ms']:8.3f} | {u['p99_ms']:9.3f} ms   (n {i['n']} | {u['n']})"
            )
        answered = sum(s["n"] for s in size["history_in_the_loop"].values())
        lines.append(f"  history requests answered in the loop: {answered}")
        for kind, s in size["history_in_the_loop"].items():
            if s["n"]:
                lines.append(f"    {kind:<24} median {s['median_ms']:9.1f} ms  (n {s['n']})")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows", default="1000,10000,100000", help="journal sizes, comma-separated"
    )
    parser.add_argument("--repeat", type=int, default=10, help="each kind of history, alone")
    parser.add_argument("--idle-s", type=float, default=5.0, help="seconds of idle round trips")
    parser.add_argument("--load-s", type=float, default=15.0, help="seconds under the loop")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    sizes = [int(text.replace("_", "")) for text in args.rows.split(",")]
    figures = {
        "command": " ".join(["benchmarks/history_load.py", *(argv or sys.argv[1:])]),
        "sizes": [one_size(rows, args) for rows in sizes],
    }
    print(json.dumps(figures, indent=1) if args.json else report(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
