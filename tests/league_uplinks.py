"""Simulated units for the league's outage test and its load benchmark.

A :class:`Fleet` is N units of one venue, each with its own journal (written
with :class:`~firmware_host.service.journal.Journal`, as the unit daemon
writes it) and the REAL uplink (:class:`firmware_host.uplink.service.Uplink`)
run in a thread of its own. :meth:`Fleet.write` records showdowns round-robin
into the journals, in the calling thread, as the units would decide them.
:class:`LeagueProcess` is ``python -m engine league`` in a process of its own,
to be SIGKILLed and started again. :func:`recount` builds the standings from
the units' journals alone, with none of the league's code, so a test can say
the league counted each result once.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from firmware_host.service.journal import Journal
from firmware_host.uplink import build_config
from firmware_host.uplink.service import Uplink
from tests.league_server_helpers import wait_for

__all__ = [
    "PLAYERS",
    "result",
    "Fleet",
    "LeagueProcess",
    "recount",
    "db_rows",
    "league_standings",
    "wait_until",
]

ROOT = Path(__file__).resolve().parents[1]
VENUE = "bar-1"
#: Who plays: people and two bots, so the standings keep both apart.
PLAYERS = (
    ("Ann", False),
    ("Bob", False),
    ("Cleo", False),
    ("Dev", False),
    ("Eli", False),
    ("Fay", False),
    ("Robo", True),
    ("Zap", True),
)
#: Fast enough for a test; the benchmark passes its own.
UPLINK_SETTINGS = {"poll_s": 0.1, "resend_after_s": 1.0, "status_every_s": 5.0, "clash_wait_s": 2.0}


def result(unit: int, n: int) -> dict[str, Any]:
    """Showdown ``n`` of unit number ``unit``: the same every run, a mix of
    faster wins, false starts and timeouts among :data:`PLAYERS`."""
    # (unit + n) and (unit + 3n + 1) differ by an odd number: never one player twice.
    (a, a_bot), (b, b_bot) = PLAYERS[(unit + n) % 8], PLAYERS[(unit + 3 * n + 1) % 8]
    kind = n % 10
    reaction_a, reaction_b = (
        150_000 + (unit * 7919 + n * 104_729) % 250_000,
        180_000 + n % 97 * 1000,
    )
    winner: str | None = "a"
    loser: str | None = "b"
    reason, launch = "faster", "launched"
    if kind == 7:
        reason, reaction_b = "false_start", -40_000  # b pressed before GO
    elif kind == 9:
        winner, loser, reason, launch = None, None, "timeout", "none"
        reaction_a = reaction_b = None  # type: ignore[assignment]
    elif reaction_b < reaction_a:
        winner, loser = "b", "a"
    return {
        "showdown_id": f"sd-{n}",
        "players": {"a": a, "b": b},
        "bots": [side for side, bot in (("a", a_bot), ("b", b_bot)) if bot],
        "winner": winner,
        "loser": loser,
        "reason": reason,
        "tie_reruns": 0,
        "reaction_us": {"a": reaction_a, "b": reaction_b},
        "margin_us": None,
        "cards": 2,
        "launch": launch,
        "cards_counted": None,
    }


class _Running:
    """One uplink run in a thread; an exception it raised is kept for stop()."""

    def __init__(self, uplink: Uplink):
        self.uplink = uplink
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name=f"uplink-{uplink.config.unit}")
        self.thread.start()

    def _run(self) -> None:
        try:
            self.uplink.run()
        except BaseException as exc:  # kept, and raised again by stop()
            self.error = exc

    def stop(self) -> BaseException | None:
        if not self.thread.is_alive():
            return self.error
        self.uplink.request_stop()
        self.thread.join(30)
        self.uplink.close()
        return self.error if not self.thread.is_alive() else RuntimeError("uplink did not stop")


class Fleet:
    """``count`` units of ``venue`` with their journals in ``folder``, each
    with the real uplink to the broker at ``broker`` (``HOST:PORT``)."""

    def __init__(
        self,
        folder: Path,
        broker: str,
        count: int,
        *,
        venue: str = VENUE,
        settings: dict[str, Any] | None = None,
        logins: dict[str, Path] | None = None,
    ):
        self.folder, self.broker, self.venue = folder, broker, venue
        self.logins = logins or {}  # unit name -> its broker password file
        self.names = [f"unit-{index + 1}" for index in range(count)]
        self.journals = [folder / name / "results.sqlite3" for name in self.names]
        self.settings = {**UPLINK_SETTINGS, **(settings or {})}
        self.written = [0] * count  # showdowns recorded per unit
        self.recorded_at: dict[str, float] = {}  # result id -> when its journal write returned
        self._running: list[_Running] = []

    def start(self) -> Fleet:
        for name, path in zip(self.names, self.journals, strict=True):
            path.parent.mkdir(parents=True, exist_ok=True)
            Journal(path).close()  # the unit daemon made it: the uplink reads it from the start
            config = build_config(
                {
                    "broker": self.broker,
                    "venue": self.venue,
                    "unit": name,
                    "state": str(path.parent / "uplink"),
                    **self.settings,
                    **self._login(name),
                }
            )
            self._running.append(_Running(Uplink(config, path, host=f"pi-{name}")))
        return self

    def _login(self, name: str) -> dict[str, str]:
        if name not in self.logins:
            return {}
        return {"username": name, "password_file": str(self.logins[name])}

    def write(
        self,
        total: int,
        *,
        per_second: float | None = None,
        on_written: Callable[[int], None] | None = None,
    ) -> None:
        """Records ``total`` more showdowns, round-robin over the units (in
        this thread), at most ``per_second`` of them a second when given;
        ``on_written(k)`` after the k-th (the caller's hook for a kill)."""
        for path in self.journals:  # before start(): a unit that decided before its uplink ran
            path.parent.mkdir(parents=True, exist_ok=True)
        journals = [Journal(path) for path in self.journals]
        started = time.monotonic()
        try:
            for k in range(1, total + 1):
                index = sum(self.written) % len(journals)
                n = self.written[index] + 1
                journals[index].record(result(index, n))
                self.recorded_at[f"{self.names[index]}:sd-{n}"] = time.time()
                self.written[index] = n
                if on_written is not None:
                    on_written(k)
                if per_second is not None:
                    ahead = started + k / per_second - time.monotonic()
                    if ahead > 0:
                        threading.Event().wait(ahead)  # pacing the load, not waiting for a timer
        finally:
            for journal in journals:
                journal.close()

    def ready(self) -> bool:
        """Every uplink is connected and past its name check: sending."""
        return all(uplink._phase == "ready" for uplink in self.uplinks)  # its loop's own state

    @property
    def uplinks(self) -> list[Uplink]:
        return [running.uplink for running in self._running]

    def acked(self) -> int:
        """Results every league ack named so far, over the fleet."""
        return sum(uplink.outbox.counts.acked for uplink in self.uplinks)

    def resent(self) -> int:
        """Sends after a result's first: each a copy the league may see twice."""
        return sum(uplink.outbox.counts.resent for uplink in self.uplinks)

    def drained(self, upto: list[int] | None = None) -> bool:
        """Every unit's cursor is at what it wrote (or at ``upto``, per unit):
        all acked, in order."""
        marks = upto or self.written
        return all(
            uplink.outbox.cursor("journal") >= mark
            for uplink, mark in zip(self.uplinks, marks, strict=True)
        )

    def stop(self) -> None:
        """Stops every uplink (their counts stay readable); safe twice."""
        errors = [error for running in self._running if (error := running.stop()) is not None]
        if errors:
            raise errors[0]


class LeagueProcess:
    """``python -m engine league`` on the broker, storing into ``db``;
    ``options``: more of its command line (a login, say)."""

    def __init__(
        self, folder: Path, broker: str, web_port: int, db: str, options: Iterable[str] = ()
    ):
        self.folder, self.broker, self.web_port, self.db = folder, broker, web_port, db
        self.options = list(options)
        self.url = f"http://127.0.0.1:{web_port}"
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> LeagueProcess:
        self.starts += 1
        log = self.folder / f"league-{self.starts}.log"
        argv = [sys.executable, "-m", "engine", "league", "--broker", self.broker]
        argv += ["--db", self.db, "--listen", f"127.0.0.1:{self.web_port}", *self.options]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        # Subscribed, not only serving: a result sent before then would wait
        # for its resend.
        wait_until(lambda: self._figures_or_none() is not None, "the league's pages", every=0.3)
        wait_until(
            lambda: self.get("/figures.json")["broker"] == "connected", "subscribed", every=0.3
        )
        return self

    def _figures_or_none(self) -> dict | None:
        assert self.process is not None and self.process.poll() is None, self.output()
        try:
            return self.get("/figures.json")
        except OSError:
            return None

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=10) as answer:
            return json.loads(answer.read())

    def output(self) -> str:
        return "".join(log.read_text() for log in sorted(self.folder.glob("league-*.log")))

    def kill(self) -> None:
        """SIGKILL: no last batch, no ack, no close."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> int | None:
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.terminate()
        try:
            return self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.kill()
            return None


def wait_until(check: Callable[[], Any], what: str, timeout: float = 60.0, every=0.05) -> Any:
    """``check()``'s first true value, polled; AssertionError naming ``what``
    after ``timeout`` (a safety limit: the event comes long before)."""
    return wait_for(check, what, timeout, every)


def db_rows(db: str, query: str) -> list[tuple]:
    """Rows of ``query`` on the league's database (``sqlite:PATH`` or a
    PostgreSQL URL), read with its own driver, none of the league's code."""
    if db.startswith("sqlite:"):
        import sqlite3

        with contextlib.closing(sqlite3.connect(db.removeprefix("sqlite:"))) as connection:
            return connection.execute(query).fetchall()
    import psycopg

    with psycopg.connect(db) as connection:
        return connection.execute(query).fetchall()


def recount(journals: Iterable[Path]) -> dict[tuple[str, bool], dict[str, Any]]:
    """The standings by (player, bot) from the journals alone: showdowns,
    wins, losses, false starts, measured reactions, the best and the lower
    median (floored to the ms, as the league keeps its histogram)."""
    tallies: dict[tuple[str, bool], dict[str, Any]] = {}
    reactions: dict[tuple[str, bool], list[int]] = {}
    for path in journals:
        with Journal(path, readonly=True) as journal:
            rows = journal.recent(limit=10**9)
        for row in rows:
            for side in ("a", "b"):
                key = (row["players"][side], side in row["bots"])
                tally = tallies.setdefault(
                    key, {"showdowns": 0, "wins": 0, "losses": 0, "false_starts": 0}
                )
                tally["showdowns"] += 1
                tally["wins"] += row["winner"] == side
                tally["losses"] += row["loser"] == side
                false_start = row["reason"] == "false_start" and row["loser"] == side
                tally["false_starts"] += false_start
                reaction = row["reaction_us"][side]
                if not false_start and reaction is not None and reaction >= 0:
                    reactions.setdefault(key, []).append(reaction)
    for key, tally in tallies.items():
        measured = sorted(reactions.get(key, []))
        tally["reactions"] = len(measured)
        tally["best_us"] = measured[0] if measured else None
        lower_median = measured[(len(measured) + 1) // 2 - 1] if measured else None
        tally["median_us"] = None if lower_median is None else lower_median // 1000 * 1000
    return tallies


def league_standings(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, bool], dict[str, Any]]:
    """The league's standings rows (``players=all``) in :func:`recount`'s shape."""
    fields = ("showdowns", "wins", "losses", "false_starts", "reactions", "best_us", "median_us")
    return {(row["player"], row["bot"]): {f: row[f] for f in fields} for row in rows}
