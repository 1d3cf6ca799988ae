"""What the venue league's end-to-end test runs, as a venue runs it: ``showdown
league`` and ``showdown-unit uplink`` as processes, and the recount the
standings must equal, made from the units' journals and the table's match
book alone (not with the league's code).

Every process's output goes to a log file in the test's folder; a process
that exits early fails the wait with its log. Waits have a generous overall
limit (a safety net for a hung process, never a timing assertion).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from firmware_host.service.journal import Journal
from tests.league_servers import Mosquitto, free_port, wait_for_port

__all__ = [
    "VENUE",
    "Process",
    "league_process",
    "uplink_process",
    "Recount",
    "recount",
    "standings_rows",
    "counted",
    "players_of",
]

ROOT = Path(__file__).resolve().parent.parent
VENUE = "bar-1"
STOP_S = 20.0


@dataclass
class Process:
    """A child process and the file its output goes to."""

    process: subprocess.Popen
    log: Path
    url: str = ""

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def check_alive(self, what: str) -> None:
        if self.process.poll() is not None:
            raise AssertionError(
                f"{what} exited with {self.process.returncode}:\n{self.log_text()[-3000:]}"
            )

    def stop(self) -> int:
        """SIGTERM (a clean stop, as systemd stops it); SIGKILL if it hangs."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(STOP_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait(STOP_S)


def _spawn(argv: list[str], log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, *argv],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@contextlib.contextmanager
def league_process(broker: Mosquitto, folder: Path) -> Iterator[Process]:
    """``showdown league`` on a free loopback port, its SQLite db in ``folder``;
    yielded once its pages listen (``url``), stopped with SIGTERM after."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    argv = ["-m", "engine", "league", "--broker", broker.url, "--venue", VENUE]
    argv += ["--db", f"sqlite:{folder / 'league.sqlite3'}", "--listen", f"127.0.0.1:{port}"]
    log = folder / "league.log"
    league = Process(_spawn(argv, log), log, f"http://127.0.0.1:{port}")
    try:
        wait_for_port(port, league.process, "showdown league", log)
        yield league
    finally:
        league.stop()


@contextlib.contextmanager
def uplink_process(
    broker: Mosquitto,
    folder: Path,
    unit: str,
    *,
    journal: Path,
    matches: Path | None = None,
) -> Iterator[Process]:
    """``showdown-unit uplink`` for ``unit`` (its state in ``folder``), reading
    ``journal`` and, if given, the table's match book ``matches``."""
    folder.mkdir(parents=True, exist_ok=True)
    argv = ["-m", "firmware_host", "-v", "uplink", "--broker", broker.url, "--venue", VENUE]
    argv += ["--unit", unit, "--journal", str(journal), "--state", str(folder)]
    # Quick reads and resends: the test waits for the league, not for a poll.
    argv += ["--poll", "0.05", "--resend-after", "1", "--status-every", "1"]
    if matches is not None:
        argv += ["--matches", str(matches)]
    log = folder / f"uplink-{unit}.log"
    uplink = Process(_spawn(argv, log), log)
    try:
        yield uplink
    finally:
        uplink.stop()


@dataclass(frozen=True)
class Recount:
    """What the standings must say of one player (a person or a bot)."""

    wins: int = 0
    losses: int = 0
    showdowns: int = 0
    false_starts: int = 0
    matches: int = 0
    match_wins: int = 0

    def add(self, other: Recount) -> Recount:
        return Recount(*(a + b for a, b in zip(self.row(), other.row(), strict=True)))

    def row(self) -> tuple[int, ...]:
        """In the standings page's column order (Wins .. Match wins, less the times)."""
        return (
            self.wins,
            self.losses,
            self.showdowns,
            self.false_starts,
            self.matches,
            self.match_wins,
        )


def recount(journals: list[Path], books: list[Path]) -> tuple[dict[tuple[str, bool], Recount], int]:
    """Per ``(player, bot)``, from the journals' rows and the books' matches as
    they are on disk; and how many results that is (what the league must store)."""
    tally: dict[tuple[str, bool], Recount] = {}
    results = 0

    def count(key: tuple[str, bool], **figures: int) -> None:
        tally[key] = tally.get(key, Recount()).add(Recount(**figures))

    for path in journals:
        with Journal(path, readonly=True) as journal:
            rows = journal.history(10_000)["results"]
        for row in rows:
            results += 1
            for side in "ab":
                won, lost = row["winner"] == side, row["loser"] == side
                count(
                    (row["players"][side], side in row["bots"]),
                    wins=won,
                    losses=lost,
                    showdowns=1,
                    false_starts=lost and row["reason"] == "false_start",
                )
    for path in books:
        with contextlib.closing(sqlite3.connect(path)) as db:
            bodies = [json.loads(body) for (body,) in db.execute("SELECT body FROM matches")]
        for body in bodies:
            results += 1
            for player in body["players"]:
                won = player["name"] in body["winners"]
                count((player["name"], player["bot"]), matches=1, match_wins=won)
    return tally, results


def standings_rows(page) -> dict[tuple[str, bool], tuple[int, ...]]:
    """The standings table as the page shows it: ``(player, bot)`` -> the
    counted columns (Wins, Losses, Showdowns, False starts, Matches, Match wins)."""
    rows = page.locator("#standings tbody tr").evaluate_all(
        """trs => trs.map(tr => [tr.dataset.player, !!tr.querySelector('.badge.bot'),
             [...tr.querySelectorAll('td.num')].map(td => td.textContent)])"""
    )
    shown = {}
    for player, bot, cells in rows:
        # cells: rank, wins, losses, showdowns, false starts, median, best, matches, match wins
        wanted = [cells[i] for i in (1, 2, 3, 4, 7, 8)]
        shown[(player, bot)] = tuple(int(text) for text in wanted)
    return shown


def counted(tally: dict[tuple[str, bool], Recount]) -> dict[tuple[str, bool], tuple[int, ...]]:
    return {key: figures.row() for key, figures in tally.items()}


def players_of(tally: dict[tuple[str, bool], Recount]) -> Counter:
    """How many players are people and how many bots."""
    return Counter("bot" if bot else "person" for _, bot in tally)
