"""Reading what the uplink sends: the unit's journal and the table's match book.

Both are SQLite files another program writes. They are opened read-only
(``mode=ro``), with no lock, and closed after each read, so the unit never
waits for the uplink. A file that is not there yet is "nothing yet". Rows come
in ``entry`` order; a journal row whose launch is still running (``launch`` is
NULL) stops the read there, so results leave in the order the unit decided
them. A row that is not a valid result is skipped (said once, with why) and
never sent.

A WAL journal can only be read where SQLite can make its ``-shm`` file, which
a read-only folder (the uplink's systemd unit) forbids while the unit daemon
is stopped and the file is closed. Then it is read as ``immutable``, and the
read is thrown away if a ``-wal`` file appeared meanwhile (a writer started).
"""

from __future__ import annotations

import abc
import contextlib
import json
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from firmware_host.people.words import result_line
from firmware_host.protocol.league import WireError, encode, match_message, showdown_message
from firmware_host.service.journal_figures import RowDamaged
from firmware_host.service.journal_rows import merged
from firmware_host.service.journal_schema import COLUMNS, SCHEMA_VERSION
from firmware_host.uplink.errors import SourceError
from firmware_host.uplink.outbox import Outgoing

__all__ = ["Reading", "JournalSource", "MatchBookSource", "JOURNAL", "MATCHES"]

#: The sources' names, as the state file keeps their cursors.
JOURNAL, MATCHES = "journal", "matches"


@dataclass
class Reading:
    """What one read found after the entry it was asked for."""

    items: list[Outgoing] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (entry, why)
    upto: int = 0  # the last entry read: the next read starts after it
    waiting: bool = False  # stopped at a row that is not final yet
    full: bool = False  # stopped at the limit: there may be more
    entries: int | None = None  # rows in the file; None: no file yet


class _SqliteSource(abc.ABC):
    """A table another program writes, read in ``entry`` order."""

    name = ""
    what = ""

    def __init__(self, path: str | os.PathLike, venue: str, unit: str):
        self.path, self.venue, self.unit = Path(path), venue, unit

    def read(self, after: int, done: frozenset[int] = frozenset(), limit: int = 200) -> Reading:
        """The rows after entry ``after`` (at most ``limit``), less ``done``."""
        reading = Reading(upto=after)
        if not self.path.exists():
            return reading
        try:
            with self._connection() as (db, immutable):
                self._read(db, after, done, limit, reading)
                if immutable and Path(f"{self.path}-wal").exists():
                    return Reading(upto=after)  # a writer started meanwhile: read again later
        except sqlite3.Error as exc:
            if not self.path.exists():
                return Reading(upto=after)  # gone between the check and the open
            raise SourceError(f"{self.path}: cannot read {self.what}: {exc}") from None
        return reading

    @contextlib.contextmanager
    def _connection(self) -> Iterator[tuple[sqlite3.Connection, bool]]:
        db = self._open("mode=ro")
        immutable = False
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            db.close()
            # A WAL file closed by its writer, in a folder we may not write: no -shm to make.
            if "readonly" not in str(exc) or Path(f"{self.path}-wal").exists():
                raise
            db, immutable = self._open("mode=ro&immutable=1"), True
        try:
            yield db, immutable
        finally:
            db.close()

    def _open(self, query: str) -> sqlite3.Connection:
        uri = f"file:{urllib.parse.quote(str(self.path.resolve()))}?{query}"
        return sqlite3.connect(uri, uri=True, timeout=1.0, isolation_level=None)

    @abc.abstractmethod
    def _read(self, db, after: int, done: frozenset[int], limit: int, reading: Reading) -> None:
        """Up to ``limit`` rows after entry ``after`` (those in ``done`` skipped)
        into ``reading``: each source reads its own table."""

    def _finish(self, reading: Reading, rows: int, limit: int) -> None:
        reading.full = rows >= limit and not reading.waiting


class JournalSource(_SqliteSource):
    """The unit's results journal (firmware_host.service.journal_schema)."""

    name, what = JOURNAL, "the journal"

    def _read(self, db, after: int, done: frozenset[int], limit: int, reading: Reading) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise SourceError(
                f"{self.path}: journal version {version} is newer than this uplink "
                f"reads ({SCHEMA_VERSION}): update the uplink"
            )
        if version not in COLUMNS:
            return  # a new file, its schema not written yet
        db.execute("BEGIN")  # one state of the file for the rows and the count
        try:
            rows = db.execute(
                f"SELECT {COLUMNS[version]} FROM results WHERE entry > ? ORDER BY entry LIMIT ?",
                (after, limit),
            ).fetchall()
            reading.entries = db.execute("SELECT count(*) FROM results").fetchone()[0]
        finally:
            db.execute("COMMIT")
        for entry, showdown_id, recorded_at, body, launch, counted in rows:
            if version >= 2 and launch is None:
                reading.waiting = True  # its launch is running: this one first
                break
            reading.upto = entry
            if entry in done:
                continue
            try:
                result = merged(showdown_id, body, launch, counted, schema_version=version)
                message = showdown_message(self.venue, self.unit, entry, recorded_at, result)
            except (RowDamaged, WireError) as exc:
                reading.skipped.append((entry, str(exc)))
                continue
            reading.items.append(
                Outgoing(
                    self.name,
                    entry,
                    message["id"],
                    encode(message),
                    recorded_at,
                    result_line(result),
                )
            )
        self._finish(reading, len(rows), limit)


class MatchBookSource(_SqliteSource):
    """The browser table's finished matches (league.MATCH_BOOK_SCHEMA)."""

    name, what = MATCHES, "the match book"

    def _read(self, db, after: int, done: frozenset[int], limit: int, reading: Reading) -> None:
        there = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'matches'"
        ).fetchone()
        if not there:
            return  # the table has not written its first match yet
        db.execute("BEGIN")
        try:
            rows = db.execute(
                "SELECT entry, match_id, finished_at, body FROM matches WHERE entry > ? "
                "ORDER BY entry LIMIT ?",
                (after, limit),
            ).fetchall()
            reading.entries = db.execute("SELECT count(*) FROM matches").fetchone()[0]
        finally:
            db.execute("COMMIT")
        for entry, match_id, finished_at, body in rows:
            reading.upto = entry
            if entry in done:
                continue
            try:
                item = self._item(entry, match_id, finished_at, body)
            except WireError as exc:
                reading.skipped.append((entry, str(exc)))
                continue
            reading.items.append(item)
        self._finish(reading, len(rows), limit)

    def _item(self, entry: int, match_id, finished_at, body) -> Outgoing:
        try:
            match = json.loads(body)
        except (TypeError, ValueError):
            raise WireError("its body is not JSON") from None
        if not isinstance(match, dict):
            raise WireError(f"its body is not a match but a {type(match).__name__}")
        if match.get("match_id") != match_id:
            raise WireError(f"its body is the match {match.get('match_id')!r}")
        if isinstance(finished_at, bool) or not isinstance(finished_at, (int, float)):
            raise WireError(f"finished_at must be Unix seconds, not {finished_at!r}")
        try:
            message = match_message(
                self.venue,
                self.unit,
                entry,
                finished_at,
                match_id,
                game=match["game"],
                players=match["players"],
                winners=match["winners"],
                rounds=match["rounds"],
            )
        except (KeyError, TypeError) as exc:
            raise WireError(f"not a match: {exc!r}") from None
        winners = ", ".join(message["body"]["winners"])
        summary = f"{match_id}: {message['body']['game']}, won by {winners}"
        return Outgoing(self.name, entry, message["id"], encode(message), finished_at, summary)
