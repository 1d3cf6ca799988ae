"""The journal's reading half: one result, the newest ones, the figures per
name, the ``history`` document, and how a damaged row is skipped and said.

:class:`JournalReads` is the half of :class:`~firmware_host.service.journal.Journal`
that only reads; the writing half (the decision, the card count, the
outcome, recovery, the transactions) is ``journal.py``. Each query runs
inside :meth:`~JournalReads._reading`, which turns SQLite's errors into the
journal's own; with the figures kept beside the rows (schema version 4,
:mod:`journal_figures`), ``history`` reads only the rows it returns.

>>> JournalEntry(1764525851.0, {}).recorded_at_iso
'2025-11-30T18:04:11Z'
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable, Generator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from firmware_host.service import journal_figures as kept
from firmware_host.service import journal_rows
from firmware_host.service.journal_errors import JournalDamagedError, JournalError
from firmware_host.service.journal_figures import FiguresDamaged, RowDamaged
from firmware_host.service.journal_figures import casefold as _casefold
from firmware_host.service.journal_schema import COLUMNS

__all__ = ["JournalReads", "JournalEntry"]

# The journal's one logger: a damaged row read here is said as the journal says it.
log = logging.getLogger("firmware_host.service.journal")

_Damaged = RowDamaged  # a row whose body is not a valid result; the message says why


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


class JournalReads:
    """The reading half of :class:`~firmware_host.service.journal.Journal`,
    which sets what is named below."""

    path: str | os.PathLike | Path
    schema_version: int

    # The Journal's, declared for the type checker only.
    _open_db: Callable[[], sqlite3.Connection]
    _error: Callable[[str, sqlite3.Error], JournalError]

    def get(self, showdown_id: str) -> dict[str, Any] | None:
        """The result recorded for ``showdown_id`` (launch "pending" while its
        launch runs), or None. JournalDamagedError if its row is damaged."""
        with self._reading() as db:
            row = db.execute(
                f"SELECT {COLUMNS[self.schema_version]} FROM results WHERE showdown_id = ?",
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
            rows = self._valid_rows(kept.newest(db, COLUMNS[4], key), damaged)
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
            f"SELECT {COLUMNS[self.schema_version]} FROM results {where} ORDER BY entry {order}",
            params,
        )
        yield from self._valid_rows(rows, damaged)

    def _merged(
        self, showdown_id: str, body, launch: str | None, counted: int | None
    ) -> dict[str, Any]:
        """The result of one row (journal_rows.merged); _Damaged if it is not one."""
        return journal_rows.merged(
            showdown_id, body, launch, counted, schema_version=self.schema_version
        )

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


def _check_limit(limit) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a whole number >= 1, not {limit!r}")
