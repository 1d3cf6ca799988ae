"""The browser table under attack: a black-box probe of a real ``showdown table``.

    .venv/bin/python benchmarks/table_chaos.py [--seconds 180] [--quick] [--seed 1]
                                               [--json FILE] [--record FILE]

It starts ``python -m engine table --unit sim`` (the live simulated unit, ``--pace 0.3``, a
free loopback port, ``--save`` on a small tmpfs of its own when it may mount one)
and plays a match on it through everything below, as people would: the host's
display (the host key it printed; it deals the next round, starts the next match
and pings the table 10 times a second) and two phones (the room code; each acts
from its own private view), with two of the table's bots. Everything goes through
the server's port, as an attacker on the Wi-Fi would send it. The phases:

1. **slowloris**: the table started under an open-file limit of 1,024; 1,100
   half-open HTTP requests from one address, held and opened again when closed;
   ``GET /`` from another address and a new display must still be answered,
   and the log must hold no "Too many open files" line.
2. **flood**: 200 sockets that flood pings and never read (table_flood's flooders).
3. **displays**: the table restarted (``--resume``) under a limit of 4,096;
   1,000 displays open (table_displays' silent farm), then closed: its memory.
4. **kills**: SIGKILLs at seeded moments (a random one, at a showdown's result,
   in the middle of a showdown), each followed by ``--resume``.
5. **full disk**: the tmpfs filled until a save fails: every screen must show
   "the table cannot save" and the move must not be applied; the host's retry is
   refused while the disk is full; space freed, the retry goes on. Then the disk
   fills while a showdown is fought: its verdict is shown (the unit's result
   event) and its save fails; the table is SIGKILLed, space freed, resumed: it
   fights that showdown id again, and the verdict must be the same. Skipped (and
   said) when no tmpfs can be mounted (not root).
6. **forged**: act ids replayed (and after a ``--resume``), acts for another seat
   or without one, host commands without the key, a wrong key, wrong room codes,
   the host's own starts out of bounds (a billion bots), binary, huge, nested,
   malformed and invalid UTF-8 frames, 180 fuzzed messages (seeded) from six
   sockets at once, another ``Origin`` or ``Host``: each must be refused, and the
   table serve on (``table_chaos_forged.py``).

Every view and unit event each page is shown goes to a ``Book``
(``table_chaos_book.py``), which counts moves shown then lost (after a kill, a
failed save, from one view to the next) and showdown verdicts that changed
(between two views or across a resume). Figures: the display's round trip
p50/p99 per phase, the server's RSS, those two counts, refusals per kind and
crashes (tracebacks in the log, exits nobody asked for). Exit status 0 only when
moves lost, verdicts changed, forgeries accepted and crashes are all 0, the
probe itself met no problem (a page stuck, an error of its own) and every
phase ran (a skipped disk phase is said, not a failure). ``--quick`` is the
same, smaller (200 displays, two kills, short phases: about 40 s). The figures
and the pages' views are this process's; the attackers run in processes of
their own (``--slowloris``, table_flood's ``--flooders``, table_displays' ``--farm``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the sibling benchmarks' helpers

from benchmarks import table_chaos_attacks as attacks  # noqa: E402
from benchmarks.table_bench import percentile  # noqa: E402
from benchmarks.table_chaos_book import Book  # noqa: E402
from benchmarks.table_chaos_pages import (  # noqa: E402
    STUCK_S,
    Page,
    Pings,
    host,
    phone,
    pinger,
    seat_everyone,
)
from benchmarks.table_displays import Farm, open_fds  # noqa: E402
from benchmarks.table_served import (  # noqa: E402
    READY_LINE,
    BenchError,
    free_port,
    memory_kb,
    printed_access,
)

#: The table's pacing: a bot's move, a showdown shown before and after (seconds).
PACE_S = 0.3
TMPFS_SIZE = "4m"
#: Each phase's share of --seconds (what is left goes to starting and restarts).
SHARES = {"slowloris": 0.14, "flood": 0.1, "displays": 0.05, "kills": 0.2, "forged": 0.05}


class TableProcess:
    """``showdown table`` as a process: started, killed, resumed; one log for all
    of its runs (``epoch`` counts them)."""

    def __init__(self, workdir: Path, save: Path, seed: int):
        self.log_path = workdir / "server.log"
        self.save = save
        self.seed = seed
        self.port = free_port()
        self.epoch = 0
        self.process: subprocess.Popen | None = None
        self.access: tuple[str, str] = ("", "")
        self.unasked_exits = 0
        self.notes: list[str] = []

    def start(self, *, resume: bool, nofile: int) -> float:
        """Start it (under an open-file limit of ``nofile``); the seconds until it listens."""
        began = time.monotonic()
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        command = [sys.executable, "-m", "engine", "table", "--unit", "sim"]
        command += ["--listen", f"127.0.0.1:{self.port}"]
        command += ["--pace", str(PACE_S), "--seed", str(self.seed), "--save", str(self.save)]
        command += ["--seats", "4", "--max-connections", "1200"]
        command += ["--resume"] if resume else []

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.epoch += 1
        with open(self.log_path, "a") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, preexec_fn=limit
            )
        deadline = time.monotonic() + STUCK_S
        while READY_LINE not in (said := self.log_since(offset)):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"the table did not start: {said[-2000:]}")
            time.sleep(0.02)
        access = printed_access(said)
        if access is None:
            raise BenchError(f"the table printed no host URL or room code: {said[-2000:]}")
        self.access = access
        self.notes += [line for line in said.splitlines() if "WARNING" in line][:3]
        return time.monotonic() - began

    def stop(self, how: signal.Signals = signal.SIGINT) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is not None and how is not signal.SIGKILL:
            self.unasked_exits += 1
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(how)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        self.process = None

    def log_since(self, offset: int = 0) -> str:
        with open(self.log_path, errors="replace") as log:
            log.seek(offset)
            return log.read()

    def log_size(self) -> int:
        return self.log_path.stat().st_size

    def rss_mb(self) -> float:
        assert self.process is not None
        return memory_kb(self.process.pid)["rss_kb"] / 1024


# -- the probe ---------------------------------------------------------------------------


@dataclass
class Probe:
    args: argparse.Namespace
    table: TableProcess
    book: Book
    rng: random.Random
    tmpfs: Path | None
    phase: str = "setup"
    stopping: bool = False
    hold_lobby: bool = False
    pings: Pings = field(default_factory=Pings)
    pages: list[Page] = field(default_factory=list)
    phases: dict[str, dict[str, Any]] = field(default_factory=dict)
    legit_refusals: Counter = field(default_factory=Counter)
    forged: dict[str, dict[str, int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def display(self) -> Page:
        return self.pages[0]

    @property
    def phones(self) -> list[Page]:
        return self.pages[1:]

    def seconds(self, phase: str) -> float:
        return max(2.0, self.args.seconds * SHARES.get(phase, 0.05))

    def moves(self) -> int:
        """The log lines the display was shown so far (a move a line)."""
        return self.display.lines

    def forgery(self, kind: str, refused: bool) -> None:
        counts = self.forged.setdefault(kind, {"refused": 0, "accepted": 0})
        counts["refused" if refused else "accepted"] += 1
        if not refused:
            self.problems.append(f"a forgery was not refused: {kind}")


# -- the phases --------------------------------------------------------------------------


@contextlib.contextmanager
def phase(probe: Probe, name: str) -> Iterator[dict[str, Any]]:
    """A phase's figures: its time, the moves shown, the server's memory before and after."""
    probe.phase = name
    figures: dict[str, Any] = {"ran": False, "rss_before_mb": round(probe.table.rss_mb(), 1)}
    probe.phases[name] = figures
    began, moves, log = time.monotonic(), probe.moves(), probe.table.log_size()
    try:
        yield figures
        figures["ran"] = not figures.get("problems")
    except BenchError as exc:
        figures.setdefault("problems", []).append(str(exc))
    finally:
        probe.phase = f"after {name}"
        figures["seconds"] = round(time.monotonic() - began, 1)
        figures["log_lines"] = probe.table.log_since(log).count("\n")
        figures["moves_shown"] = max(0, probe.moves() - moves)
        if probe.table.process is not None:
            figures["rss_after_mb"] = round(probe.table.rss_mb(), 1)


def check(figures: dict[str, Any], ok: bool, what: str) -> None:
    if not ok:
        figures.setdefault("problems", []).append(what)


async def helper(probe: Probe, script: str, *options: str) -> dict[str, Any]:
    """Another process of this probe (its attackers): what it printed, as JSON."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(ROOT / "benchmarks" / script), *options, stdout=subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(process.communicate(), STUCK_S * 5)
    return json.loads(out)


async def fresh_display(probe: Probe, address: str) -> bool:
    """A new spectator's display connects and is shown the table."""
    page = Page(probe, f"new display {address}", address, display=False)
    page.hello = lambda: {"type": "hello", "role": "display"}  # type: ignore[method-assign]
    task = asyncio.create_task(page.run())
    try:
        await page.until(lambda: page.view is not None, "a new display's view", 20)
        return True
    except BenchError:
        return False
    finally:
        task.cancel()
        del probe.book.pages[page.name]


async def slowloris(probe: Probe) -> None:
    with phase(probe, "slowloris") as figures:
        seconds = probe.seconds("slowloris")
        offset = probe.table.log_size()
        attack = asyncio.create_task(
            helper(
                probe, "table_chaos.py", "--slowloris", str(probe.table.port), "--for", str(seconds)
            )
        )
        gets: Counter = Counter()
        fresh = 0
        await asyncio.sleep(min(2.0, seconds / 3))
        while not attack.done():
            gets[await asyncio.to_thread(attacks.get_status, probe.table.port, "127.0.0.6")] += 1
            fresh += await fresh_display(probe, f"127.0.0.{20 + fresh % 200}")
            await asyncio.sleep(0.5)
        figures["attacker"] = await attack
        said = probe.table.log_since(offset)
        figures.update(
            get_answers={str(k): v for k, v in gets.items()},
            new_displays_shown=fresh,
            too_many_open_files_lines=said.count("Too many open files"),
        )
        check(figures, set(gets) == {200}, f"GET / was not always answered 200: {dict(gets)}")
        check(figures, fresh > 0, "no new display was shown the table")
        check(figures, figures["too_many_open_files_lines"] == 0, "Too many open files")
        check(figures, probe.pings.unanswered["slowloris"] == 0, "the display lost pings")


async def flood(probe: Probe) -> None:
    with phase(probe, "flood") as figures:
        seconds = probe.seconds("flood")
        figures["attacker"] = await helper(
            probe,
            "table_flood.py",
            *("--flooders", str(probe.table.port), "--sockets", "200", "--rate", "0"),
            *("--seconds", str(seconds), "--reconnect-s", "1.0", "--nice", "10"),
        )
        check(figures, probe.pings.unanswered["flood"] == 0, "the display lost pings")


async def restart(probe: Probe, how: signal.Signals, nofile: int = 4096) -> float:
    """Stop the table (``how``) and start it again with ``--resume``; back once the
    display is shown the table by the new process."""
    was, probe.phase = probe.phase, f"{probe.phase}: restart"
    probe.table.stop(how)
    took = probe.table.start(resume=True, nofile=nofile)
    display, epoch = probe.display, probe.table.epoch
    await display.until(lambda: display.epoch == epoch and display.view, "the resumed view")
    probe.phase = was
    return took


async def displays(probe: Probe) -> None:
    await restart(probe, signal.SIGINT)  # room for 1,000 displays: a limit of 4,096
    with phase(probe, "displays") as figures:
        pid = probe.table.process.pid  # type: ignore[union-attr]
        fds = open_fds(pid)
        farm = Farm(probe.table.port, probe.args.displays, False)
        _, began, opened = await farm.said()
        figures["opened"] = probe.args.displays
        figures["open_s"] = round(float(opened) - float(began), 2)
        figures["rss_open_mb"] = round(probe.table.rss_mb(), 1)
        await asyncio.sleep(probe.seconds("displays"))  # play goes on with them open
        farm.tell("close")
        await farm.said()
        farm.process.wait()
        deadline = time.monotonic() + STUCK_S
        while open_fds(pid) > fds + 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)  # the server's own closing: waited for, not timed
        figures["rss_closed_mb"] = round(probe.table.rss_mb(), 1)
        check(figures, probe.pings.unanswered["displays"] == 0, "the display lost pings")


async def kill_moment(probe: Probe, kind: str) -> str:
    """Wait for the moment of a kill of ``kind``; what the moment was."""
    display, rng = probe.display, probe.rng
    if kind == "random":
        await asyncio.sleep(rng.uniform(0.5, 3.0))
        return kind
    seen = display.results if kind == "at a result" else display.armed
    wait_s = probe.seconds("kills") / probe.args.kills
    try:
        await display.until(
            lambda: (display.results if kind == "at a result" else display.armed) > seen,
            kind,
            timeout=wait_s,
        )
    except BenchError:
        return f"{kind} (none came in {wait_s:.0f} s: then)"
    if kind == "mid-showdown":
        await asyncio.sleep(rng.uniform(0.2, 3.0))
    return kind


async def kills(probe: Probe) -> None:
    with phase(probe, "kills") as figures:
        kinds = (["mid-showdown", "at a result", "random"] * probe.args.kills)[: probe.args.kills]
        probe.rng.shuffle(kinds)
        figures["kills"], figures["restart_s"] = [], []
        for kind in kinds:
            figures["kills"].append(await kill_moment(probe, kind))
            moves = probe.moves()
            figures["restart_s"].append(round(await restart(probe, signal.SIGKILL), 2))
            await probe.display.until(lambda m=moves: probe.moves() > m, "play after a resume")


def fill(directory: Path) -> Path:
    """A file that takes every byte left on ``directory``'s file system."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        chunk = 1 << 20
        while chunk:
            try:
                os.write(fd, b"\0" * chunk)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                chunk //= 2
    finally:
        os.close(fd)
    return filler


async def full_disk(probe: Probe) -> None:
    if probe.tmpfs is None:
        probe.phases["full_disk"] = {"ran": False, "skipped": probe.args.no_tmpfs_reason}
        return
    with phase(probe, "full_disk") as figures:
        display = probe.display
        display.paused_at = None
        told = [len(page.refusals) for page in probe.pages]
        filler = await asyncio.to_thread(fill, probe.tmpfs)
        # the next move's save fails: every screen pauses, the move is not applied
        before, shown = await display.until(lambda: display.paused_at, "the pause")
        for page in probe.pages:
            await page.until(lambda p=page: _cannot_save(p.view), f"{page.name}'s pause")
        figures["paused_with"] = shown["paused"]
        figures["move_not_applied"] = shown["log"] == before
        check(figures, figures["move_not_applied"], "the move whose save failed was shown")
        figures["senders_told"] = [
            words
            for page, n in zip(probe.pages, told, strict=True)
            for _, words in page.refusals[n:]
            if "cannot save" in words
        ][:2]
        n = len(display.refusals)
        await display.send({"type": "host", "cmd": "retry"})
        await display.until(lambda: len(display.refusals) > n, "the retry refused")
        figures["retry_while_full"] = display.refusals[-1][1]
        check(figures, "cannot save" in display.refusals[-1][1], "a retry on a full disk")
        filler.unlink()
        moves = probe.moves()
        await display.send({"type": "host", "cmd": "retry"})
        await display.until(lambda: not (display.view or {}).get("cannot_save"), "the retry")
        await display.until(lambda: probe.moves() > moves, "play after the retry")
        figures["verdict_refought"] = await verdict_then_kill(probe)


async def verdict_then_kill(probe: Probe) -> dict[str, Any]:
    """The disk fills while a showdown is fought: its verdict is shown (the unit's
    result event), its save fails, the table is killed, space is freed, and the
    resumed table fights that showdown id again: the book holds both verdicts."""
    display, tmpfs = probe.display, probe.tmpfs
    assert tmpfs is not None
    armed = display.armed
    await display.until(lambda: display.armed > armed, "a showdown armed")
    results = display.results
    filler = await asyncio.to_thread(fill, tmpfs)
    await display.until(
        lambda: display.results > results and _cannot_save(display.view),
        "a verdict shown and its save failed",
    )
    filler.unlink()
    await restart(probe, signal.SIGKILL)
    again = display.results
    await display.until(lambda: display.results > again, "the showdown fought again")
    return {"results_shown_before_and_after_the_kill": display.results - results}


def _cannot_save(view: dict[str, Any] | None) -> bool:
    """Whether ``view`` shows the pause of a table that cannot save, in words."""
    return bool(view and view.get("cannot_save") and "the table cannot save" in view["paused"])


async def forged(probe: Probe) -> None:
    from benchmarks.table_chaos_forged import forge_all

    with phase(probe, "forged") as figures:
        await forge_all(probe, restart)
        figures["kinds"] = len(probe.forged)
        served = await asyncio.to_thread(attacks.get_status, probe.table.port, "127.0.0.6")
        check(figures, served == 200, "GET / after the forgeries")
        moves = probe.moves()
        await probe.display.until(lambda: probe.moves() > moves, "play after the forgeries")


# -- one run -----------------------------------------------------------------------------


@contextlib.contextmanager
def save_place(workdir: Path, args: argparse.Namespace) -> Iterator[Path | None]:
    """A small tmpfs for the save file (root only), unmounted after; None if none."""
    place = workdir / "disk"
    place.mkdir()
    args.no_tmpfs_reason = None
    if os.geteuid() != 0:
        args.no_tmpfs_reason = "not root: no tmpfs to fill (the full-disk phase is skipped)"
        yield None
        return
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE}", "tmpfs", str(place)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        args.no_tmpfs_reason = f"mount failed: {mounted.stderr.strip()} (phase skipped)"
        yield None
        return
    try:
        yield place
    finally:
        subprocess.run(["umount", "-l", str(place)], check=False)


async def play_through(probe: Probe) -> None:
    probe.pages = [Page(probe, "display", "127.0.0.2", display=True)]
    probe.pages += [Page(probe, f"phone {n}", f"127.0.0.{3 + n}", display=False) for n in (0, 1)]
    tasks = [asyncio.create_task(page.run()) for page in probe.pages]
    try:
        await seat_everyone(probe)
        tasks.append(asyncio.create_task(pinger(probe)))
        tasks.append(asyncio.create_task(host(probe)))
        for n, page in enumerate(probe.phones):
            tasks.append(
                asyncio.create_task(phone(probe, page, random.Random(probe.args.seed + n)))
            )
        for run in (slowloris, flood, displays, kills, full_disk, forged):
            await run(probe)
        probe.phase = "end"
        await asyncio.sleep(0.5)
    finally:
        probe.stopping = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def run(args: argparse.Namespace) -> dict[str, Any]:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the attackers' sockets
    with (
        tempfile.TemporaryDirectory(prefix="table-chaos-") as tmp,
        save_place(Path(tmp), args) as tmpfs,
    ):
        save = (tmpfs or Path(tmp)) / "table.json"
        table = TableProcess(Path(tmp), save, args.seed)
        record = open(args.record, "w") if args.record else None  # noqa: SIM115
        probe = Probe(args, table, Book(record=record), random.Random(args.seed), tmpfs)
        began = time.monotonic()
        try:
            table.start(resume=False, nofile=1024)
            asyncio.run(play_through(probe))
        except BenchError as exc:
            probe.problems.append(str(exc))
        finally:
            table.stop()
            if record is not None:
                record.close()
        log = table.log_since()
        return figures_of(probe, log, time.monotonic() - began)


def figures_of(probe: Probe, log: str, seconds: float) -> dict[str, Any]:
    for name, times in probe.pings.times.items():
        ordered = sorted(times)
        if name not in probe.phases:
            continue  # setting up, restarting between phases
        probe.phases[name].update(
            pings=len(ordered),
            pings_unanswered=probe.pings.unanswered[name],
            rtt_p50_ms=round(statistics.median(ordered), 2),
            rtt_p99_ms=round(percentile(ordered, 0.99), 2),
        )
    book = probe.book.figures()
    crashes = log.count("Traceback (most recent call last)") + probe.table.unasked_exits
    accepted = sum(c["accepted"] for c in probe.forged.values())
    ran = all(p.get("ran") or p.get("skipped") for p in probe.phases.values() if "ran" in p)
    ran = ran and {"slowloris", "flood", "displays", "kills", "full_disk", "forged"} <= set(
        probe.phases
    )
    return {
        "seconds": round(seconds, 1),
        "load_average": os.getloadavg()[0],
        "server_starts": probe.table.epoch,
        "server_notes": probe.table.notes,
        "phases": probe.phases,
        **book,
        "crashes": crashes,
        "forgeries_accepted": accepted,
        "refusals": probe.forged,
        "legit_refusals": dict(probe.legit_refusals.most_common(12)),
        "problems": probe.problems[:20],
        "every_phase_ran": ran,
        "ok": ran
        and not book["moves_lost"]
        and not book["verdicts_changed"]
        and not crashes
        and not accepted
        and not probe.problems,
    }


def report(figures: dict[str, Any]) -> str:
    lines = [
        f"table_chaos: {figures['seconds']} s, {figures['server_starts']} server starts, "
        f"load average {figures['load_average']:.1f}",
        "phase        ran   s     moves  rtt p50 ms  p99 ms  pings (unanswered)  "
        "RSS MB before/after",
    ]
    for name, f in figures["phases"].items():
        if "skipped" in f:
            lines.append(f"{name:<12} skipped: {f['skipped']}")
            continue
        lines.append(
            f"{name:<12} {'yes' if f.get('ran') else 'NO ':<4} {f.get('seconds', 0):>5} "
            f"{f.get('moves_shown', 0):>6} {f.get('rtt_p50_ms', 0):>10} "
            f"{f.get('rtt_p99_ms', 0):>7} "
            f"{f.get('pings', 0):>7} ({f.get('pings_unanswered', 0)})"
            f"{f.get('rss_before_mb', ''):>12} / {f.get('rss_after_mb', '')}"
        )
        for problem in f.get("problems", []):
            lines.append(f"             problem: {problem}")
    lines += [
        f"views recorded {figures['views']}, log checks {figures['log_checks']} "
        f"({figures['log_checks_unverifiable']} could not tell), showdowns seen "
        f"{figures['showdowns_seen']} (their verdict seen before and after a restart: "
        f"{figures['showdowns_seen_across_a_restart']}; armed before a kill and fought "
        f"after it: {figures['showdowns_armed_across_a_restart']})",
        f"moves shown then lost: {figures['moves_lost']} (must be 0)",
        f"verdicts changed: {figures['verdicts_changed']} (must be 0)",
        f"forgeries accepted: {figures['forgeries_accepted']} (must be 0); refused per kind: "
        + ", ".join(f"{k} {v['refused']}" for k, v in figures["refusals"].items()),
        f"crashes (tracebacks, exits nobody asked for): {figures['crashes']} (must be 0)",
        f"the legit pages' refusals: {figures['legit_refusals']}",
        *(f"problem: {p}" for p in figures["problems"]),
        "OK" if figures["ok"] else "FAILED",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=180.0, help="the budget (180 s)")
    parser.add_argument("--quick", action="store_true", help="every phase, small (about 40 s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--displays", type=int, default=1000)
    parser.add_argument("--kills", type=int, default=6)
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--record", type=Path, help="every view and event, as JSON lines")
    parser.add_argument("--slowloris", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--for", dest="for_s", type=float, default=10.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.slowloris:
        print(json.dumps(attacks.run_slowloris(args.slowloris, 1100, args.for_s)))
        return 0
    if args.quick:
        args.seconds, args.displays, args.kills = 20.0, 200, 2
    figures = run(args)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    print(report(figures))
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
