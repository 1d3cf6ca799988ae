"""The results journal: every verdict exactly once, kept in SQLite.

A showdown with a launch is journaled as two records. The decision (who won,
the reaction times; ``launch`` "pending") is committed to disk the moment it
is made, before the motor runs; the launch outcome follows when the launcher
stops. A decision whose outcome never came (the unit crashed or lost power
mid-launch) is closed by :meth:`Journal.recover` at the next start as launch
"interrupted", with the last card count the sensor reported. A showdown with
no launch (timeout, void tie) is one complete record (:meth:`Journal.record`).

Recording is idempotent: the same content again is a no-op, different content
under a known showdown id is a :class:`JournalConflictError`. So an engine
that lost the link can fetch what it missed, and a known showdown id is
answered from here instead of being run twice.

Beside each row the journal keeps, in the same transaction, what the
per-name figures count (schema version 4; :mod:`journal_figures` says what
and why), so ``history`` reads only the rows it returns and the figures
kept, whatever the journal's length, and ``--player`` finds its showdowns
through an index of the casefolded names.

A Journal is used from the one thread that opened it (sqlite3's default
check). Only one daemon may write a journal: it holds a :class:`JournalLock`
first. Readers (``history``, ``journal check``) open it read-only and take no
lock.

>>> journal = Journal(":memory:", clock=lambda: 1764525851.0)
>>> decision = {"showdown_id": "sd-1", "players": {"a": "Ann", "b": "Bob"},
...             "winner": "b", "loser": "a", "reason": "faster", "tie_reruns": 0,
...             "reaction_us": {"a": 263000, "b": 241000}, "margin_us": 22000,
...             "cards": 2, "launch": "pending", "cards_counted": None, "bots": []}
>>> journal.record_decision(decision)
True
>>> journal.record_cards("sd-1", 1)
>>> journal.get("sd-1")["launch"], journal.get("sd-1")["cards_counted"]
('pending', 1)
>>> journal.record_outcome("sd-1", "launched", 2)
>>> journal.get("sd-1")["launch"], journal.get("sd-2")
('launched', None)
>>> journal.player_stats("bob")
{'Bob': {'showdowns': 1, 'median_reaction_us': 241000, 'best_reaction_us': 241000,
         'false_starts': 0, 'wins': 1, 'losses': 0}}
>>> journal.player_names()
['Ann', 'Bob']
>>> journal.close()
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import json
import logging
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from firmware_host.core.result import Result
from firmware_host.protocol import Launch
from firmware_host.protocol.words import noun, plural
from firmware_host.service import journal_figures as kept
from firmware_host.service.journal_figures import FIGURES_SCHEMA, FiguresDamaged, RowDamaged
from firmware_host.service.journal_figures import casefold as _casefold

__all__ = [
    "Journal",
    "JournalEntry",
    "JournalReport",
    "JournalLock",
    "JournalError",
    "JournalConflictError",
    "JournalDamagedError",
    "JournalLockedError",
    "default_journal_path",
    "folder_problem",
    "SCHEMA_VERSION",
    "FILENAME",
]

log = logging.getLogger(__name__)

#: Kept in ``PRAGMA user_version``; a journal newer than this is refused.
SCHEMA_VERSION = 4
FILENAME = "results.sqlite3"
#: What a launch can end as (``pending`` is no end).
OUTCOMES = tuple(outcome for outcome in Launch if outcome is not Launch.PENDING)

_SCHEMA = [
    """CREATE TABLE results (
        entry INTEGER PRIMARY KEY,      -- the order showdowns were decided in
        showdown_id TEXT NOT NULL UNIQUE,
        recorded_at REAL NOT NULL,      -- when the decision was recorded, Unix seconds
        player_a TEXT NOT NULL,
        player_b TEXT NOT NULL,
        body TEXT NOT NULL,             -- the result as decided, canonical JSON
        launch TEXT,                    -- the launch outcome; NULL while the launch runs
        cards_counted INTEGER,          -- the card sensor's count: the latest, then the final
        outcome_at REAL,                -- when the outcome was recorded
        key_a TEXT,                     -- player_a casefolded (version 4)
        key_b TEXT                      -- player_b casefolded
    )""",
    "CREATE INDEX results_player_a ON results (player_a)",
    "CREATE INDEX results_player_b ON results (player_b)",
    *FIGURES_SCHEMA,
]

#: Version 1 kept the whole result in ``body``; version 2 adds the outcome
#: columns, filled from each old body (module-level so a test can break it).
_V1_TO_V2 = [
    "ALTER TABLE results ADD COLUMN launch TEXT",
    "ALTER TABLE results ADD COLUMN cards_counted INTEGER",
    "ALTER TABLE results ADD COLUMN outcome_at REAL",
]

#: Version 3 results carry ``bots`` (the sides a bot played); a version 2
#: body gains ``"bots": []`` (people played both sides: bots came with version 3).
_NO_BOTS: list[str] = []

#: Version 4 keeps each row's figures beside it (journal_figures) and the
#: players' names casefolded in ``key_a``/``key_b``.
_V3_TO_V4 = [
    "ALTER TABLE results ADD COLUMN key_a TEXT",
    "ALTER TABLE results ADD COLUMN key_b TEXT",
    *FIGURES_SCHEMA,
]

_COLUMNS = {  # what a reader selects, per schema version
    1: "entry, showdown_id, recorded_at, body, NULL, NULL",
    2: "entry, showdown_id, recorded_at, body, launch, cards_counted",
    3: "entry, showdown_id, recorded_at, body, launch, cards_counted",
    4: "entry, showdown_id, recorded_at, body, launch, cards_counted",
}


# -- errors and values ------------------------------------------------------------------


class JournalError(RuntimeError):
    """The journal cannot be opened or used; the message names the file."""


class JournalConflictError(JournalError, ValueError):
    """A result was recorded again with different content."""


class JournalDamagedError(JournalError):
    """SQLite found the file damaged, or a row is not a valid result. The
    message ends with the command that reports the damage (given ``path``);
    ``detail`` is the message without it."""

    def __init__(self, detail: str, path=None):
        hint = "" if path is None else f" (run: showdown-unit journal check --journal {path})"
        super().__init__(detail + hint)
        self.detail = detail


class JournalLockedError(JournalError):
    """Another unit daemon holds the journal's lock."""


@dataclass(frozen=True)
class JournalEntry:
    """One recorded result and when the unit recorded it (Unix seconds)."""

    recorded_at: float
    result: dict[str, Any]

    @property
    def recorded_at_iso(self) -> str:
        """UTC, to the second: ``2025-11-30T18:04:11Z``."""
        moment = datetime.fromtimestamp(self.recorded_at, UTC)
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class JournalReport:
    """What :meth:`Journal.check` found. ``rows``: the rows read; ``pending``:
    showdown ids decided with no launch outcome yet; ``damaged``: entry
    numbers of rows that are not a valid result; ``sqlite_messages``: what
    SQLite's integrity check reported (or the error that stopped it);
    ``figures``: where the figures kept beside the rows (version 4,
    journal_figures) disagree with them, one sentence each."""

    path: str
    ok: bool
    rows: int
    pending: tuple[str, ...]
    damaged: tuple[int, ...]
    sqlite_messages: tuple[str, ...]
    schema_version: int
    figures: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "ok": self.ok,
            "rows": self.rows,
            "pending": list(self.pending),
            "damaged": list(self.damaged),
            "sqlite_messages": list(self.sqlite_messages),
            "schema_version": self.schema_version,
            "figures": list(self.figures),
        }

    def __str__(self) -> str:
        problems = len(self.damaged) + len(self.sqlite_messages) + len(self.figures)
        verdict = "ok" if self.ok else f"{plural(problems, 'problem')} found"
        upgrade = (
            f" (the daemon upgrades it to {SCHEMA_VERSION})"
            if self.schema_version < SCHEMA_VERSION
            else ""
        )
        lines = [
            f"{self.path}: {verdict}",
            f"  schema version {self.schema_version}{upgrade}, {self.rows} rows",
            f"  launches pending: {', '.join(self.pending) or 'none'}",
            f"  damaged rows: {_entries_text(self.damaged) or 'none'}",
            f"  kept figures: {self._figures_text()}",
        ]
        shown = self.sqlite_messages[:10]
        lines.append(f"  SQLite: {'ok' if not shown else shown[0]}")
        lines += [f"    {message}" for message in shown[1:]]
        if len(self.sqlite_messages) > len(shown):
            lines.append(f"    ... and {len(self.sqlite_messages) - len(shown)} more")
        return "\n".join(lines)

    def _figures_text(self) -> str:
        if self.schema_version < 4:
            return "none (kept from version 4 on)"
        return "; ".join(self.figures) or "ok"


def _entries_text(entries) -> str:
    """``entry 17`` or ``entries 3, 17``."""
    if not entries:
        return ""
    return f"{noun(len(entries), 'entry', 'entries')} {', '.join(map(str, entries))}"


_Damaged = RowDamaged  # a row whose body is not a valid result; the message says why


class _Refused(Exception):
    """A write the journal's content does not allow; the message says why."""


def default_journal_path(
    configured: str, *, mock: bool, environ: Mapping[str, str] | None = None
) -> Path:
    """Where the journal lives: ``journal.path`` if set; else a temp dir for a
    unit on mock pins (bench results stay out of the real history); else
    ``$STATE_DIRECTORY`` (systemd's ``StateDirectory=``); else
    ``$XDG_STATE_HOME/uno-showdown`` (``~/.local/state/uno-showdown``).

    >>> default_journal_path("", mock=False, environ={"STATE_DIRECTORY": "/var/lib/uno-showdown"})
    PosixPath('/var/lib/uno-showdown/results.sqlite3')
    >>> default_journal_path("", mock=False, environ={"HOME": "/home/pi"})
    PosixPath('/home/pi/.local/state/uno-showdown/results.sqlite3')
    """
    env = os.environ if environ is None else environ
    if configured:
        return Path(configured).expanduser()
    if mock:
        user = os.getuid() if hasattr(os, "getuid") else "user"
        return Path(tempfile.gettempdir()) / f"uno-showdown-mock-{user}" / FILENAME
    if env.get("STATE_DIRECTORY"):
        # systemd passes one directory per StateDirectory= entry, colon-separated.
        return Path(env["STATE_DIRECTORY"].split(":")[0]) / FILENAME
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "uno-showdown" / FILENAME
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return home / ".local" / "state" / "uno-showdown" / FILENAME


def _canonical(result: Mapping[str, Any]) -> str:
    # ASCII: any str at all can be stored, and equal dicts give equal text.
    return json.dumps(result, sort_keys=True, separators=(",", ":"), allow_nan=False)


# What the launch outcome may add to a decision: besides the launch itself,
# the timing of a press that came after the decision (the loser's reaction).
_AFTER_THE_DECISION = ("launch", "cards_counted", "reaction_us", "margin_us")


def _decision(result: Mapping[str, Any]) -> str:
    """The verdict part of a result (all but the launch and the timing), as canonical JSON."""
    return _canonical(
        {key: value for key, value in result.items() if key not in _AFTER_THE_DECISION}
    )


def _later_timing(decided: Mapping[str, Any], reaction_us, margin_us) -> dict | None:
    """The decision's timing with what presses after it added, or None if
    ``reaction_us``/``margin_us`` would change what the decision measured
    (only a side it had no press for, and a margin it had not, may be filled in)."""
    before = decided.get("reaction_us") or {}
    if not isinstance(reaction_us, Mapping) or set(reaction_us) != {"a", "b"}:
        return None
    for side in "ab":
        if before.get(side) is not None and reaction_us[side] != before[side]:
            return None
    if decided.get("margin_us") is not None and margin_us != decided["margin_us"]:
        return None
    return {"reaction_us": dict(reaction_us), "margin_us": margin_us}


def _check_count(counted, *, optional: bool) -> None:
    if counted is None and optional:
        return
    if isinstance(counted, bool) or not isinstance(counted, int) or counted < 0:
        raise ValueError(
            f"cards_counted must be a whole number >= 0"
            f"{' or None' if optional else ''}, not {counted!r}"
        )


def _is_damage(exc: sqlite3.Error) -> bool:
    primary = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # extended codes keep it low
    return primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


# -- the journal ------------------------------------------------------------------------


class Journal:
    """Showdown results in an SQLite file, created with its schema on first use.

    A writable open checks the file (``PRAGMA quick_check``) and upgrades a
    version 1 journal in place. ``readonly=True`` opens an existing journal
    (version 1 or 2) for reading only and creates nothing (not even WAL side
    files when the unit is not running), so ``showdown-unit history`` never
    changes the daemon's file or its owner. ``clock`` gives the Unix time
    stamped on each record.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        readonly: bool = False,
        clock: Callable[[], float] = time.time,
    ):
        self.path = Path(path) if str(path) != ":memory:" else path
        self._file = None if path == ":memory:" else Path(path)  # None: in memory
        self.readonly = readonly
        self.schema_version = SCHEMA_VERSION
        self._clock = clock
        self._db: sqlite3.Connection | None = None
        try:
            emptied = self._emptied()
            self._db = self._connect()
            if not readonly:
                self._quick_check()
            self._check_schema(emptied)
            if not readonly:
                self._keep_unchecked()
        except sqlite3.Error as exc:
            self.close()
            raise self._error("cannot open the journal", exc) from None
        except JournalError:
            self.close()
            raise

    def _emptied(self) -> bool:
        """The file is there with 0 bytes and no WAL: whatever it held is gone."""
        if self._file is None or not self._file.exists():
            return False
        wal = self._file.with_name(self._file.name + "-wal")
        return self._file.stat().st_size == 0 and (not wal.exists() or wal.stat().st_size == 0)

    def _connect(self) -> sqlite3.Connection:
        db = self._open_connection()
        # Names match without regard to case (Unicode, not only ASCII as NOCASE).
        db.create_function("casefold", 1, _casefold, deterministic=True)
        return db

    def _open_connection(self) -> sqlite3.Connection:
        # isolation_level=None: the journal says BEGIN and COMMIT itself.
        if self._file is None:
            return sqlite3.connect(":memory:", isolation_level=None)
        if self.readonly:
            if not self._file.exists():
                raise JournalError(f"{self.path}: no journal there")
            # With no -wal file the unit is not running and everything is in
            # the main file: read it as immutable, so SQLite creates no side
            # files (which would belong to whoever ran this).
            wal = self._file.with_name(self._file.name + "-wal")
            mode = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
            return sqlite3.connect(
                f"{self._file.resolve().as_uri()}?{mode}", uri=True, isolation_level=None
            )
        _make_folder(self._file, self.path)
        db = sqlite3.connect(self._file, isolation_level=None)
        mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if mode != "wal":
            log.warning("%s: SQLite would not use WAL (journal_mode is %s)", self.path, mode)
        # FULL: in WAL mode, NORMAL may lose the last commits on power loss.
        db.execute("PRAGMA synchronous=FULL")
        return db

    def _quick_check(self) -> None:
        found = [row[0] for row in self._open_db().execute("PRAGMA quick_check")]
        if found != ["ok"]:
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            raise JournalDamagedError(
                f"{self.path}: the journal is damaged: {found[0]}{more}", self.path
            )

    def _check_schema(self, emptied: bool) -> None:
        version = self._version()
        if version == 0 and self.readonly:
            self._refuse_unversioned()
            if emptied:
                raise JournalError(f"{self.path}: the journal file is empty (0 bytes)")
            raise JournalError(f"{self.path}: the journal is empty (no schema yet)")
        if version < SCHEMA_VERSION and not self.readonly:
            with self._transaction():
                version = self._version()  # again: another connection may have done it
                if version == 0:
                    self._create(emptied)
                else:
                    self._upgrade(version)
            version = SCHEMA_VERSION
        self.schema_version = version

    def _version(self) -> int:
        version = self._open_db().execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"{self.path}: journal schema version {version} is newer than "
                f"this software understands ({SCHEMA_VERSION})"
            )
        return version

    def _refuse_unversioned(self) -> None:
        tables = [
            row[0]
            for row in self._open_db().execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
            )
        ]
        if tables:
            raise JournalError(
                f"{self.path}: not a results journal (it has tables "
                f"{', '.join(tables)} and no schema version)"
            )

    def _create(self, emptied: bool) -> None:
        self._refuse_unversioned()
        db = self._open_db()
        for statement in _SCHEMA:
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        if emptied:
            log.warning(
                "%s: the journal file was empty (0 bytes): any results it held "
                "are gone; starting a new journal",
                self.path,
            )

    def _upgrade(self, version: int) -> None:
        """Version 1, 2 or 3 to the current one, inside the caller's transaction."""
        rows = self._open_db().execute("SELECT COUNT(*) FROM results").fetchone()[0]
        if version == 1:
            self._upgrade_from_v1()
        if version <= 2:
            self._upgrade_from_v2()
        self._upgrade_from_v3()
        self._open_db().execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        log.info(
            "%s: journal upgraded from schema version %d to %d (%d rows)",
            self.path,
            version,
            SCHEMA_VERSION,
            rows,
        )

    def _upgrade_from_v2(self) -> None:
        """Every body gains ``"bots": []``: a version 2 unit had no bots."""
        db = self._open_db()
        for entry, body in db.execute("SELECT entry, body FROM results").fetchall():
            try:
                result = json.loads(body)
            except (TypeError, ValueError):
                continue  # a damaged row stays damaged; readers skip it
            if not isinstance(result, dict) or "bots" in result:
                continue
            db.execute(
                "UPDATE results SET body = ? WHERE entry = ?",
                (_canonical({**result, "bots": _NO_BOTS}), entry),
            )

    def _upgrade_from_v3(self) -> None:
        """The casefolded names and every row's figures (journal_figures)."""
        db = self._open_db()
        for statement in _V3_TO_V4:
            db.execute(statement)
        kept.keep_all(db, self._merged)

    def _keep_unchecked(self) -> None:
        """Read again the rows another program changed since the journal last
        did (``unchecked``), so that readers can use the kept figures again."""
        if self.schema_version < 4:
            return
        with self._transaction():
            db = self._open_db()
            entries = [row[0] for row in db.execute("SELECT entry FROM unchecked")]
            for entry in entries:
                kept.keep(db, entry, self._merged)
        if entries:
            log.info(
                "%s: %s changed by another program read again (%s)",
                self.path,
                plural(len(entries), "row"),
                _entries_text(entries),
            )

    def _upgrade_from_v1(self) -> None:
        db = self._open_db()
        for statement in _V1_TO_V2:
            db.execute(statement)
        rows = db.execute("SELECT entry, recorded_at, body FROM results").fetchall()
        for entry, recorded_at, body in rows:
            try:
                result = json.loads(body)
                launch, counted = result["launch"], result["cards_counted"]
            except (TypeError, ValueError, KeyError):
                continue  # a damaged row stays damaged; readers skip it
            db.execute(
                "UPDATE results SET launch = ?, cards_counted = ?, outcome_at = ? WHERE entry = ?",
                (launch, counted, recorded_at, entry),
            )

    # -- writing ------------------------------------------------------------------------

    def record_decision(self, result: Mapping[str, Any]) -> bool:
        """Store a showdown's decision (``Result.to_dict()`` with launch
        "pending"), on disk before this returns. True if new; False if that
        decision is already recorded; JournalConflictError if another is."""
        showdown_id, players = self._valid(result)
        if result["launch"] != "pending":
            raise ValueError(
                f"a decision has launch 'pending', not {result['launch']!r} "
                f"(record() takes a finished result)"
            )
        with self._writing(f"cannot record the decision of {showdown_id!r}") as db:
            known = self._row(db, showdown_id)
            if known is not None:
                self._same_decision(showdown_id, known[0], result, timing_too=True)
                return False
            added = db.execute(
                "INSERT INTO results (showdown_id, recorded_at, player_a, player_b, body, "
                "cards_counted, key_a, key_b) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    showdown_id,
                    self._clock(),
                    players["a"],
                    players["b"],
                    _canonical(result),
                    result["cards_counted"],
                    _casefold(players["a"]),
                    _casefold(players["b"]),
                ),
            )
            kept.keep(db, added.lastrowid, self._merged)
            return True

    def record_cards(self, showdown_id: str, counted: int) -> None:
        """The card sensor's count so far in a running launch. It survives a
        crash of this process but not necessarily a power cut: the commit
        skips the fsync (``synchronous=NORMAL``, in WAL mode)."""
        _check_count(counted, optional=False)
        with self._writing(
            f"cannot record the card count of {showdown_id!r}", synchronous="NORMAL"
        ) as db:
            known = self._row(db, showdown_id)
            if known is None:
                raise _Refused("no decision recorded for it")
            if known[1] is not None:
                raise _Refused(f"its launch already ended ({known[1]})")
            db.execute(
                "UPDATE results SET cards_counted = ? WHERE showdown_id = ?", (counted, showdown_id)
            )
            self._keep(db, showdown_id)

    def record_outcome(
        self,
        showdown_id: str,
        launch: str,
        cards_counted: int | None,
        *,
        reaction_us: Mapping[str, int | None] | None = None,
        margin_us: int | None = None,
    ) -> None:
        """How the launch of a recorded decision ended, on disk before this
        returns. ``reaction_us``/``margin_us``: the timing as it stands now,
        when a press came after the decision (the loser's, while the cards
        flew); it may only fill in what the decision had not measured. The
        same outcome again is a no-op; another is a JournalConflictError."""
        if launch not in OUTCOMES:
            raise ValueError(f"launch must be one of {', '.join(OUTCOMES)}, not {launch!r}")
        _check_count(cards_counted, optional=True)
        with self._writing(f"cannot record the launch outcome of {showdown_id!r}") as db:
            known = self._row(db, showdown_id)
            if known is None:
                raise _Refused("no decision recorded for it")
            body, known_launch, known_count = known
            if known_launch is None:
                timing = None
                if reaction_us is not None:
                    timing = self._timing(showdown_id, body, reaction_us, margin_us)
                self._finish(db, showdown_id, launch, cards_counted, timing=timing)
            elif (known_launch, known_count) != (launch, cards_counted):
                raise JournalConflictError(
                    f"showdown {showdown_id!r} already has the launch outcome {known_launch!r} "
                    f"(cards_counted {known_count}), "
                    f"not {launch!r} (cards_counted {cards_counted})"
                )

    def record(self, result: Mapping[str, Any]) -> bool:
        """Store a finished result (launch not "pending") in one step, on disk
        before this returns: a showdown with no launch, or the outcome of a
        recorded decision. True if something new was recorded; False if that
        result is already recorded; JournalConflictError if another is."""
        showdown_id, players = self._valid(result)
        if result["launch"] == "pending":
            raise ValueError(
                "record() takes a finished result, not launch 'pending' (use record_decision)"
            )
        with self._writing(f"cannot record {showdown_id!r}") as db:
            known = self._row(db, showdown_id)
            if known is None:
                now = self._clock()
                added = db.execute(
                    "INSERT INTO results (showdown_id, recorded_at, player_a, player_b, "
                    "body, launch, cards_counted, outcome_at, key_a, key_b) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        showdown_id,
                        now,
                        players["a"],
                        players["b"],
                        _canonical(result),
                        result["launch"],
                        result["cards_counted"],
                        now,
                        _casefold(players["a"]),
                        _casefold(players["b"]),
                    ),
                )
                kept.keep(db, added.lastrowid, self._merged)
                return True
            body, launch, counted = known
            self._same_decision(showdown_id, body, result)
            if launch is None:
                timing = self._timing(showdown_id, body, result["reaction_us"], result["margin_us"])
                self._finish(
                    db, showdown_id, result["launch"], result["cards_counted"], timing=timing
                )
                return True
            if (launch, counted) != (result["launch"], result["cards_counted"]):
                raise JournalConflictError(
                    f"showdown {showdown_id!r} is already recorded with a different result"
                )
            return False

    def recover(self) -> list[dict[str, Any]]:
        """Close every decision that has no launch outcome as "interrupted",
        keeping the last card count recorded (else the decision's own). Call
        it once at start, before serving. Returns those results, merged."""
        recovered, now = [], self._clock()
        with self._writing("cannot recover interrupted launches") as db:
            rows = db.execute(
                f"SELECT {_COLUMNS[2]} FROM results WHERE launch IS NULL ORDER BY entry"
            ).fetchall()
            for entry, showdown_id, _, body, _, counted in rows:
                try:
                    result = self._merged(showdown_id, body, "interrupted", counted)
                except _Damaged as exc:
                    self._warn_damaged({entry: str(exc)})
                    continue
                self._finish(db, showdown_id, "interrupted", counted, now)
                recovered.append(result)
        return recovered

    def _valid(self, result: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
        """The id and players of a valid result dict; ValueError if it is not one."""
        if not isinstance(result, Mapping):
            raise ValueError(f"a result must be a dict, not {type(result).__name__}")
        showdown_id, players = result.get("showdown_id"), result.get("players")
        if not isinstance(showdown_id, str) or not showdown_id:
            raise ValueError(f"a result needs a showdown_id string, not {showdown_id!r}")
        if not isinstance(players, Mapping) or not all(
            isinstance(players.get(side), str) for side in "ab"
        ):
            raise ValueError(f"a result needs players {{'a': name, 'b': name}}, not {players!r}")
        for text in (showdown_id, players["a"], players["b"]):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate: SQLite cannot store it
                raise ValueError(f"a result's names must be valid text, not {text!r}") from None
        try:
            Result.from_dict(dict(result))
            _canonical(result)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a valid result: {exc}") from None
        _check_count(result["cards_counted"], optional=True)
        return showdown_id, players

    def _same_decision(
        self, showdown_id: str, body: str, result: Mapping[str, Any], *, timing_too: bool = False
    ) -> None:
        try:
            decided = json.loads(body)
            same = _decision(decided) == _decision(result)
            if timing_too:
                same = same and all(
                    decided.get(key) == result[key] for key in ("reaction_us", "margin_us")
                )
        except (TypeError, ValueError, AttributeError):
            raise JournalDamagedError(
                f"{self.path}: the result of {showdown_id!r} is damaged: its body is not JSON",
                self.path,
            ) from None
        if not same:
            raise JournalConflictError(
                f"showdown {showdown_id!r} is already recorded with a different result"
            )

    def _timing(self, showdown_id: str, body: str, reaction_us, margin_us) -> dict:
        decided = json.loads(body)
        timing = _later_timing(decided, reaction_us, margin_us)
        if timing is None:
            raise JournalConflictError(
                f"showdown {showdown_id!r}: the launch outcome may only add the timing of "
                f"presses after the decision, not change {decided.get('reaction_us')} "
                f"(margin {decided.get('margin_us')}) to {reaction_us} (margin {margin_us})"
            )
        return timing

    def _finish(
        self,
        db,
        showdown_id: str,
        launch: str,
        counted: int | None,
        at: float | None = None,
        *,
        timing: dict | None = None,
    ) -> None:
        """Close a decision with its launch outcome; ``timing`` adds the
        presses that came after it to its body (the verdict stays as decided)."""
        when = self._clock() if at is None else at
        if timing is not None:
            body = json.loads(self._row(db, showdown_id)[0])
            db.execute(
                "UPDATE results SET body = ? WHERE showdown_id = ?",
                (_canonical({**body, **timing}), showdown_id),
            )
        db.execute(
            "UPDATE results SET launch = ?, cards_counted = ?, outcome_at = ? "
            "WHERE showdown_id = ?",
            (launch, counted, when, showdown_id),
        )
        self._keep(db, showdown_id)

    def _keep(self, db, showdown_id: str) -> None:
        """The kept figures of a row just changed (journal_figures), in its transaction."""
        (entry,) = db.execute(
            "SELECT entry FROM results WHERE showdown_id = ?", (showdown_id,)
        ).fetchone()
        kept.keep(db, entry, self._merged)

    @staticmethod
    def _row(db, showdown_id: str):
        return db.execute(
            "SELECT body, launch, cards_counted FROM results WHERE showdown_id = ?", (showdown_id,)
        ).fetchone()

    @contextlib.contextmanager
    def _writing(self, doing: str, *, synchronous: str = "FULL"):
        """One write transaction; any SQLite error (or a _Refused from the
        body) becomes a JournalError saying ``doing``."""
        db = self._open_db()
        if self.readonly:
            raise JournalError(f"{self.path}: {doing}: the journal is open read-only")
        try:
            with self._transaction(synchronous):
                yield db
        except _Refused as exc:
            raise JournalError(f"{self.path}: {doing}: {exc.args[0]}") from None
        except sqlite3.ProgrammingError:
            raise  # a mistake in the calling code, not the file
        except sqlite3.Error as exc:
            raise self._error(doing, exc) from None

    @contextlib.contextmanager
    def _transaction(self, synchronous: str = "FULL"):
        db = self._open_db()
        if synchronous != "FULL":  # not allowed inside a transaction
            db.execute(f"PRAGMA synchronous={synchronous}")
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                raise
        finally:
            if synchronous != "FULL":
                db.execute("PRAGMA synchronous=FULL")

    def _error(self, doing: str, exc: sqlite3.Error) -> JournalError:
        if _is_damage(exc):
            return JournalDamagedError(f"{self.path}: {doing}: {exc}", self.path)
        return JournalError(f"{self.path}: {doing}: {exc}")

    # -- reading ------------------------------------------------------------------------

    def get(self, showdown_id: str) -> dict[str, Any] | None:
        """The result recorded for ``showdown_id`` (launch "pending" while its
        launch runs), or None. JournalDamagedError if its row is damaged."""
        with self._reading() as db:
            row = db.execute(
                f"SELECT {_COLUMNS[self.schema_version]} FROM results WHERE showdown_id = ?",
                (showdown_id,),
            ).fetchone()
        if row is None:
            return None
        entry, _, _, body, launch, counted = row
        try:
            return self._merged(showdown_id, body, launch, counted)
        except _Damaged as exc:
            raise JournalDamagedError(
                f"{self.path}: the result of {showdown_id!r} (entry {entry}) is damaged: {exc}",
                self.path,
            ) from None

    def entries(self, limit: int = 50, player: str | None = None) -> list[JournalEntry]:
        """The last ``limit`` results, newest first, with their times;
        ``player``: only showdowns that name took part in (in any case:
        "ann" is "Ann"). A damaged row is skipped with a warning."""
        _check_limit(limit)
        damaged: dict[int, str] = {}
        entries = self._read(limit, player, damaged, figures=False)[0]
        self._warn_damaged(damaged)
        return entries

    def recent(self, limit: int = 50, player: str | None = None) -> list[dict[str, Any]]:
        """The last ``limit`` result dicts, newest first (see ``entries``)."""
        return [entry.result for entry in self.entries(limit, player)]

    def player_stats(self, player: str | None = None) -> dict[str, dict[str, Any]]:
        """Per player name, over every showdown a person played: ``showdowns``,
        ``median_reaction_us`` and ``best_reaction_us`` (None with no timed
        press), ``false_starts``, ``wins``, ``losses``. A reaction counts when
        it is a press at or after GO in a showdown that was not a false start.
        ``player``: that player only, in any case ({} if unknown). A side a
        bot played counts in :meth:`bot_stats`, never here."""
        damaged: dict[int, str] = {}
        stats = self._read(0, player, damaged)[1]
        self._warn_damaged(damaged)
        return stats

    def bot_stats(self, player: str | None = None) -> dict[str, dict[str, Any]]:
        """:meth:`player_stats` of the bots: per name, the showdowns a bot
        played under it (the unit pressed its paddle)."""
        damaged: dict[int, str] = {}
        stats = self._read(0, player, damaged)[2]
        self._warn_damaged(damaged)
        return stats

    def player_names(self) -> list[str]:
        """Every name in the journal, people and bots, sorted without regard to case."""
        with self._reading() as db:
            rows = db.execute("SELECT player_a FROM results UNION SELECT player_b FROM results")
            return sorted((row[0] for row in rows), key=lambda name: (name.casefold(), name))

    def history(self, limit: int = 50, player: str | None = None) -> dict[str, Any]:
        """The ``history`` document (protocol reply and ``history --json``):
        ``{"results": [...], "players": {...}, "bots": {...}, "damaged": [...]}``,
        each result with its ``recorded_at`` time (ISO 8601, UTC); ``players``
        the figures of people, ``bots`` those of the bots (kept apart: a bot's
        times never go into people's medians); ``damaged``: the entry numbers of
        rows skipped because they are not a valid result. ``player`` matches
        names in any case.

        It reads the ``limit`` rows it returns and the figures kept beside
        them (journal_figures), never the other rows: ``damaged`` names the
        rows known to be damaged (found when they were written, upgraded or
        read again after another program changed them) and any met on the
        way; ``journal check`` reads every row. Only a journal of an older
        version (read-only) or with rows another program changed since the
        daemon last opened it is read whole, as before version 4."""
        _check_limit(limit)
        damaged: dict[int, str] = {}
        entries, players, bots = self._read(limit, player, damaged)
        self._warn_damaged(damaged)
        results = [{"recorded_at": entry.recorded_at_iso, **entry.result} for entry in entries]
        return {"results": results, "players": players, "bots": bots, "damaged": sorted(damaged)}

    def _read(
        self, limit: int, player: str | None, damaged: dict[int, str], *, figures: bool = True
    ) -> tuple[list[JournalEntry], dict, dict]:
        """The newest ``limit`` valid results (0: none) and, with ``figures``,
        those of people and of bots, all from one state of the file; the
        damaged rows skipped go into ``damaged`` (with ``figures``, every one
        known)."""
        key = None if player is None else _casefold(player)
        with self._reading() as db, self._snapshot(db):
            if not self._figures_kept(db):
                entries = self._newest(self._scan(player, damaged, newest_first=True), limit)
                if not figures:
                    return entries, {}, {}
                people, bots = kept.tally((r for _, r in self._scan(player, damaged)), key)
                return entries, people, bots
            if figures:
                damaged.update(kept.known_damaged(db, key))
            rows = self._valid_rows(kept.newest(db, _COLUMNS[4], key), damaged)
            entries = self._newest(rows, limit)
            people, bots = kept.kept_figures(db, key) if figures else ({}, {})
            return entries, people, bots

    def _figures_kept(self, db) -> bool:
        """The figures kept beside the rows can be used: version 4, and no row
        changed by another program since the daemon last read them."""
        if self.schema_version < 4:
            return False
        return not db.execute("SELECT EXISTS (SELECT 1 FROM unchecked)").fetchone()[0]

    @staticmethod
    def _newest(rows, limit: int) -> list[JournalEntry]:
        entries: list[JournalEntry] = []
        if limit:
            with contextlib.closing(rows):
                for recorded_at, result in rows:
                    entries.append(JournalEntry(recorded_at, result))
                    if len(entries) == limit:
                        break
        return entries

    def _valid_rows(
        self, rows, damaged: dict[int, str]
    ) -> Generator[tuple[float, dict[str, Any]], None, None]:
        """(recorded_at, merged result) of each valid row of ``rows`` (those in
        ``damaged`` are skipped unread); a damaged one goes into ``damaged``."""
        for entry, showdown_id, recorded_at, body, launch, counted in rows:
            if entry in damaged:
                continue
            try:
                result = self._merged(showdown_id, body, launch, counted)
            except _Damaged as exc:
                damaged[entry] = str(exc)
                continue
            yield recorded_at, result

    def _scan(
        self, player: str | None, damaged: dict[int, str], *, newest_first: bool = False
    ) -> Generator[tuple[float, dict[str, Any]], None, None]:
        """Every row, the long way (no figures kept): (recorded_at, merged
        result) per valid row; each damaged row's entry number and why go
        into ``damaged``."""
        where: str = ""
        params: tuple[str, ...] = ()
        if player is not None:
            key = _casefold(player)
            where = "WHERE casefold(player_a) = ? OR casefold(player_b) = ?"
            params = (key, key)
        order = "DESC" if newest_first else "ASC"
        rows = self._open_db().execute(
            f"SELECT {_COLUMNS[self.schema_version]} FROM results {where} ORDER BY entry {order}",
            params,
        )
        yield from self._valid_rows(rows, damaged)

    def _merged(
        self, showdown_id: str, body, launch: str | None, counted: int | None
    ) -> dict[str, Any]:
        """The result of one row: its body with the launch outcome (version
        2), checked to be a valid result; _Damaged if it is not."""
        try:
            result = json.loads(body)
        except (TypeError, ValueError):
            raise _Damaged("its body is not JSON") from None
        if not isinstance(result, dict):
            raise _Damaged(f"its body is not a result but a {type(result).__name__}")
        if self.schema_version >= 2:
            result = {**result, "launch": launch or "pending", "cards_counted": counted}
        if self.schema_version < 3 and "bots" not in result:
            result = {**result, "bots": _NO_BOTS}  # read-only, not upgraded: no bots then
        try:
            Result.from_dict(result)
        except (TypeError, ValueError) as exc:
            raise _Damaged(f"not a valid result: {exc}") from None
        if not all(isinstance(name, str) for name in result["players"].values()):
            raise _Damaged(f"not a valid result: players must be names, not {result['players']}")
        if result["showdown_id"] != showdown_id:
            raise _Damaged(f"its body is the result of {result['showdown_id']!r}")
        return result

    def _warn_damaged(self, damaged: dict[int, str]) -> None:
        for entry in sorted(damaged):
            log.warning("%s: entry %d skipped, it is damaged: %s", self.path, entry, damaged[entry])

    @contextlib.contextmanager
    def _reading(self):
        db = self._open_db()
        try:
            yield db
        except sqlite3.ProgrammingError:
            raise  # a mistake in the calling code, not the file
        except sqlite3.Error as exc:
            raise self._error("cannot read the journal", exc) from None
        except FiguresDamaged as exc:
            raise JournalDamagedError(
                f"{self.path}: cannot read the journal: {exc}", self.path
            ) from None

    @staticmethod
    @contextlib.contextmanager
    def _snapshot(db):
        """One read transaction: every query in it sees the same state of the file."""
        db.execute("BEGIN")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")  # it only read: nothing to keep

    # -- checking -----------------------------------------------------------------------

    def check(self) -> JournalReport:
        """SQLite's ``integrity_check`` and every row read and validated."""
        db = self._open_db()
        messages = []
        try:
            messages += [row[0] for row in db.execute("PRAGMA integrity_check") if row[0] != "ok"]
        except sqlite3.Error as exc:
            messages.append(str(exc))
        rows, pending, damaged = 0, [], []

        def each_row():
            """(entry, its figures, or None if damaged) per row, in order."""
            nonlocal rows
            for entry, showdown_id, _, body, launch, counted in db.execute(
                f"SELECT {_COLUMNS[self.schema_version]} FROM results ORDER BY entry"
            ):
                rows += 1
                try:
                    result = self._merged(showdown_id, body, launch, counted)
                except _Damaged:
                    damaged.append(entry)
                    yield entry, None
                    continue
                if result["launch"] == "pending":
                    pending.append(showdown_id)
                yield entry, kept.side_figures(entry, result)

        figures: list[str] = []
        try:
            if self.schema_version >= 4:
                figures = kept.check_kept(db, each_row())
            else:
                collections.deque(each_row(), maxlen=0)
        except sqlite3.Error as exc:
            messages.append(f"reading the rows stopped after {rows}: {exc}")
            if self.schema_version >= 4:
                figures = ["not checked: the rows could not all be read"]
        return JournalReport(
            path=str(self.path),
            ok=not (messages or damaged or figures),
            rows=rows,
            pending=tuple(pending),
            damaged=tuple(damaged),
            sqlite_messages=tuple(messages),
            schema_version=self.schema_version,
            figures=tuple(figures),
        )

    # -- closing ------------------------------------------------------------------------

    def _open_db(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"{self.path}: the journal is closed")
        return self._db

    def close(self) -> None:
        """Close the file; safe to call twice."""
        db, self._db = self._db, None
        if db is not None:
            db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._db is None else ("read-only" if self.readonly else "open")
        return f"<Journal {str(self.path)!r} {state}>"


def _check_limit(limit) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a whole number >= 1, not {limit!r}")


def folder_problem(path: str | os.PathLike) -> str | None:
    """Why a writable :class:`Journal` at ``path`` could not make its folder,
    in the words of the JournalError it would raise, or None; creates nothing
    (for ``check-config``). A journal path creates at most its last folder."""
    if str(path) == ":memory:":
        return None
    file = Path(path)
    folder = file.parent
    if folder.is_dir() or _made_whole(folder):
        return None
    parent = folder.parent
    if not parent.is_dir():
        why = "is not a folder" if parent.exists() else "does not exist"
        return (
            f"{file}: cannot create its folder: {parent} {why} "
            f"(only the journal's own folder is created: check the path)"
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{file}: cannot create its folder: {parent} is not writable"
    return None


def _made_whole(folder: Path) -> bool:
    """The default places (:func:`default_journal_path`) are made with their
    parents, as XDG's ``~/.local/state`` may be missing."""
    return folder in {default_journal_path("", mock=mock).parent for mock in (False, True)}


def _make_folder(file: Path, shown) -> None:
    """The journal's folder: at most its last directory is created, so a
    mistyped path cannot make folders anywhere (:func:`folder_problem`)."""
    folder = file.parent
    if folder.is_dir():
        return
    whole = _made_whole(folder)
    parent = folder.parent
    if not whole and not parent.is_dir():
        why = "is not a folder" if parent.exists() else "does not exist"
        raise JournalError(
            f"{shown}: cannot create its folder: {parent} {why} "
            f"(only the journal's own folder is created: check the path)"
        )
    try:
        folder.mkdir(parents=whole, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise JournalError(f"{shown}: cannot create its folder: {exc.strerror or exc}") from None


# -- one daemon per journal -------------------------------------------------------------


class JournalLock:
    """One unit daemon per journal: an exclusive ``flock`` on
    ``<journal>.lock``, a file of its own next to the journal (SQLite closes
    and reopens the database's descriptors, which would drop a POSIX lock on
    it). The lock file holds the daemon's pid, for the message another daemon
    gets. It is left in place on release; a lock file nobody holds is free.

    >>> with JournalLock(":memory:") as lock:
    ...     lock.held()
    True
    """

    def __init__(self, journal_path: str | os.PathLike):
        self.journal_path = journal_path if str(journal_path) == ":memory:" else Path(journal_path)
        self.path = None if self.journal_path == ":memory:" else Path(f"{journal_path}.lock")
        self._fd: int | None = None
        self._memory_held = False

    def acquire(self) -> JournalLock:
        """Take the lock, or JournalLockedError naming the pid that holds it."""
        if self.path is None:
            self._memory_held = True
            return self
        if self._fd is not None:
            return self
        try:
            _make_folder(self.path, self.journal_path)
            while True:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    pid = self._holder(fd)
                    os.close(fd)
                    raise JournalLockedError(
                        f"{self.journal_path}: in use by another unit daemon ({pid})"
                    ) from None
                if self._same_file(self.path, fd):
                    break
                os.close(fd)  # deleted or replaced before we locked it: again
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as exc:
            raise JournalError(
                f"{self.path}: cannot take the journal's lock: {exc.strerror or exc}"
            ) from None
        self._fd = fd
        return self

    @staticmethod
    def _holder(fd: int) -> str:
        try:
            return f"pid {int(os.pread(fd, 32, 0).decode().strip())}"
        except (OSError, ValueError):
            return "pid unknown"

    @staticmethod
    def _same_file(path: Path, fd: int) -> bool:
        try:
            on_disk, ours = os.stat(path), os.fstat(fd)
        except OSError:
            return False
        return (on_disk.st_dev, on_disk.st_ino) == (ours.st_dev, ours.st_ino)

    def held(self) -> bool:
        """True while our lock still guards the path: False once released, or
        if someone deleted or replaced the lock file (another daemon could
        then take a new one)."""
        if self.path is None:
            return self._memory_held
        return self._fd is not None and self._same_file(self.path, self._fd)

    def release(self) -> None:
        """Let go of the lock; safe to call twice."""
        fd, self._fd = self._fd, None
        self._memory_held = False
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> JournalLock:
        return self.acquire()

    def __exit__(self, *exc_info) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"<JournalLock {str(self.journal_path)!r} {'held' if self.held() else 'free'}>"
