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

import contextlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from firmware_host.people.words import plural
from firmware_host.service import journal_check, journal_rows
from firmware_host.service import journal_figures as kept
from firmware_host.service import journal_schema as schema
from firmware_host.service.journal_check import JournalReport, entries_text
from firmware_host.service.journal_errors import (
    JournalConflictError,
    JournalDamagedError,
    JournalError,
    JournalLockedError,
)
from firmware_host.service.journal_figures import RowDamaged
from firmware_host.service.journal_figures import casefold as _casefold
from firmware_host.service.journal_files import (
    FILENAME,
    JournalLock,
    default_journal_path,
    folder_problem,
    make_folder,
)
from firmware_host.service.journal_reads import JournalEntry, JournalReads
from firmware_host.service.journal_schema import COLUMNS, SCHEMA_VERSION, canonical

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

# -- errors ----------------------------------------------------------------------------


_Damaged = RowDamaged  # a row whose body is not a valid result; the message says why


class _Refused(Exception):
    """A write the journal's content does not allow; the message says why."""


def _is_damage(exc: sqlite3.Error) -> bool:
    primary = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # extended codes keep it low
    return primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


# -- the journal ------------------------------------------------------------------------


class Journal(JournalReads):
    """Showdown results in an SQLite file, created with its schema on first use.

    A writable open checks the file (``PRAGMA quick_check``), upgrades an
    older journal (version 1 to 3) in place and reads again the rows another
    program changed. ``readonly=True`` opens an existing journal (of any
    version) for reading only and creates nothing (not even WAL side files
    when the unit is not running), so ``showdown-unit history`` never
    changes the daemon's file or its owner. ``live=True`` (read-only): the
    daemon writes the file meanwhile (the server's own reader), so it is read
    through the WAL, never as an immutable file, whatever files are there
    when it opens. ``clock`` gives the Unix time stamped on each record.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        readonly: bool = False,
        live: bool = False,
        clock: Callable[[], float] = time.time,
    ):
        self.path = Path(path) if str(path) != ":memory:" else path
        self._file = None if path == ":memory:" else Path(path)  # None: in memory
        self.readonly = readonly
        self.live = live
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
            mode = "mode=ro" if self.live or wal.exists() else "mode=ro&immutable=1"
            return sqlite3.connect(
                f"{self._file.resolve().as_uri()}?{mode}", uri=True, isolation_level=None
            )
        make_folder(self._file, self.path)
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
        schema.create(self._open_db())
        if emptied:
            log.warning(
                "%s: the journal file was empty (0 bytes): any results it held "
                "are gone; starting a new journal",
                self.path,
            )

    def _upgrade(self, version: int) -> None:
        """Version 1, 2 or 3 to the current one, inside the caller's transaction."""
        rows = self._open_db().execute("SELECT COUNT(*) FROM results").fetchone()[0]
        schema.upgrade(self._open_db(), version, self._merged)
        log.info(
            "%s: journal upgraded from schema version %d to %d (%d rows)",
            self.path,
            version,
            SCHEMA_VERSION,
            rows,
        )

    def _keep_unchecked(self) -> None:
        """At a writable open: :meth:`_read_unchecked`."""
        if self.schema_version < 4:
            return
        with self._transaction():
            self._read_unchecked(self._open_db())

    def _read_unchecked(self, db) -> None:
        """Read again, in the caller's transaction, the rows another program
        changed since the journal last did (``unchecked``), so that readers
        can use the kept figures again (at a writable open, and with each write)."""
        entries = [row[0] for row in db.execute("SELECT entry FROM unchecked")]
        for entry in entries:
            kept.keep(db, entry, self._merged)
        if entries:
            log.info(
                "%s: %s changed by another program read again (%s)",
                self.path,
                plural(len(entries), "row"),
                entries_text(entries),
            )

    # -- writing ------------------------------------------------------------------------

    def record_decision(self, result: Mapping[str, Any]) -> bool:
        """Store a showdown's decision (``Result.to_dict()`` with launch
        "pending"), on disk before this returns. True if new; False if that
        decision is already recorded; JournalConflictError if another is."""
        showdown_id, players = journal_rows.valid(result)
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
                    canonical(result),
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
        journal_rows.check_count(counted, optional=False)
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
        if launch not in journal_rows.OUTCOMES:
            raise ValueError(
                f"launch must be one of {', '.join(journal_rows.OUTCOMES)}, not {launch!r}"
            )
        journal_rows.check_count(cards_counted, optional=True)
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
        showdown_id, players = journal_rows.valid(result)
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
                        canonical(result),
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
                f"SELECT {COLUMNS[2]} FROM results WHERE launch IS NULL ORDER BY entry"
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

    def _same_decision(
        self, showdown_id: str, body: str, result: Mapping[str, Any], *, timing_too: bool = False
    ) -> None:
        try:
            decided = json.loads(body)
            same = journal_rows.decision(decided) == journal_rows.decision(result)
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
        timing = journal_rows.later_timing(decided, reaction_us, margin_us)
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
                (canonical({**body, **timing}), showdown_id),
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
                self._read_unchecked(db)
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

    # -- checking -----------------------------------------------------------------------

    def check(self) -> JournalReport:
        """SQLite's ``integrity_check`` and every row read and validated (journal_check)."""
        return journal_check.check(
            self._open_db(), str(self.path), self.schema_version, self._merged
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
