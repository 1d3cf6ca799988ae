"""The Store in SQL, shared by the SQLite and PostgreSQL backends.

A backend says how to connect, how a transaction begins and which errors are
its driver's (:class:`SqlStore`'s hooks); the statements here are written once,
with ``?`` placeholders (PostgreSQL's backend turns them into ``%s``).

Writes run one batch at a time behind a lock (the server's ingest thread is
the only writer; the lock also covers a second caller); reads take a
connection of their own from a small pool, so the web server's worker threads
read while a batch is written.
"""

from __future__ import annotations

import abc
import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from engine.league.standings import (
    ALL,
    MAX_REACTION_US,
    STANDING_FIELDS,
    Tally,
    TallyKey,
    check_filters,
    pack_histogram,
    tally_batch,
    unpack_histogram,
)
from engine.league.store import CONFLICT, Store, StoreError
from firmware_host.protocol.league import ResultMessage, Status, clean_place

__all__ = ["SqlStore", "Pool"]

#: How many ids one ``IN (...)`` names (SQLite's limit on variables is far above).
_CHUNK = 500
#: What of a refusal's reason and topic is kept: a forged message may be long.
_REASON_CHARS, _TOPIC_CHARS = 500, 300
#: The columns of a standings row that a Tally counts, in the Tally's order.
_TALLY_FIELDS = (
    "showdowns",
    "wins",
    "losses",
    "false_starts",
    "reactions",
    "best_us",
    "matches",
    "match_wins",
)
_TALLY_COLUMNS = ", ".join(_TALLY_FIELDS)
#: BIGINT's largest: a seq beyond it cannot be stored.
_MAX_SEQ = 2**63 - 1
_UNIT_FIELDS = (
    "venue",
    "unit",
    "state",
    "host",
    "version",
    "fault",
    "status_at",
    "figures",
    "results",
    "last_result_id",
    "last_result_at",
    "refusals",
    "last_refusal",
    "last_refusal_at",
)


class Pool:
    """Connections to one database, lent one caller at a time: a thread takes
    one, uses it and gives it back; a broken one is closed, not given back."""

    def __init__(
        self,
        connect: Callable[[], Any],
        is_broken: Callable[[Any], bool],
        keep: int = 8,
    ):
        self._connect, self._is_broken, self._keep = connect, is_broken, keep
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._closed = False

    @contextlib.contextmanager
    def connection(self) -> Iterator[Any]:
        with self._lock:
            if self._closed:
                raise StoreError("the store is closed")
            connection = self._idle.pop() if self._idle else None
        if connection is None:
            connection = self._connect()
        try:
            yield connection
        finally:
            with self._lock:
                keep = not self._closed and len(self._idle) < self._keep
                if keep and not self._is_broken(connection):
                    self._idle.append(connection)
                    connection = None
            if connection is not None:
                with contextlib.suppress(Exception):
                    connection.close()

    def close(self) -> None:
        with self._lock:
            self._closed, idle, self._idle = True, self._idle, []
        for connection in idle:
            with contextlib.suppress(Exception):
                connection.close()


class SqlStore(Store):
    """The statements of every Store method; a backend adds the connection."""

    #: ``sqlite`` or ``postgresql``: which statements of the schema to run.
    dialect: str
    #: After ``ORDER BY player``: code-point order in both databases.
    name_order = ""

    def __init__(self, label: str, clock: Callable[[], float] = time.time):
        self._label, self._clock = label, clock
        self._write_lock = threading.Lock()
        self._pool = Pool(self._connect_checked, self._is_broken)

    # -- the backend's hooks -------------------------------------------------------

    @abc.abstractmethod
    def _connect(self) -> Any:
        """A new DB-API connection (autocommit: transactions are explicit)."""

    @abc.abstractmethod
    def _transaction(self, connection: Any, write: bool) -> contextlib.AbstractContextManager[Any]:
        """A transaction on ``connection``; a write one excludes every other
        writer of the database (another process's too) until it ends."""

    @abc.abstractmethod
    def _driver_errors(self) -> tuple[type[BaseException], ...]:
        """The driver's errors, turned into StoreError."""

    def _is_broken(self, connection: Any) -> bool:
        return False

    def _sql(self, statement: str) -> str:
        return statement

    # -- plumbing ------------------------------------------------------------------

    def _connect_checked(self) -> Any:
        try:
            return self._connect()
        except self._driver_errors() as exc:
            raise StoreError(f"cannot connect to {self._label!r}: {_first_line(exc)}") from exc

    @contextlib.contextmanager
    def _using(self, write: bool = False) -> Iterator[Any]:
        """A connection in a transaction; the driver's errors as StoreError."""
        lock = self._write_lock if write else contextlib.nullcontext()
        try:
            with (
                lock,
                self._pool.connection() as connection,
                self._transaction(connection, write),
            ):
                yield _Runner(connection, self._sql)
        except self._driver_errors() as exc:
            raise StoreError(f"{self._label!r}: {_first_line(exc)}") from exc

    def create_schema(self, statements: Sequence[str], version: int) -> None:
        with self._using(write=True) as db:
            for statement in statements:
                db.execute(statement)
            rows = db.all("SELECT value FROM league_meta WHERE key = 'schema'")
            if not rows:
                db.execute(
                    "INSERT INTO league_meta (key, value) VALUES ('schema', ?)", (str(version),)
                )
            elif int(rows[0][0]) > version:
                raise StoreError(
                    f"{self._label!r} holds schema {rows[0][0]}, newer than this "
                    f"league's {version}: upgrade uno-showdown"
                )

    # -- writes --------------------------------------------------------------------

    def store(self, messages: Sequence[ResultMessage]) -> list[tuple[str, str | None]]:
        if not messages:
            return []
        with self._using(write=True) as db:
            known = self._stored_raws(db, {(m.venue, m.id) for m in messages})
            replies: list[tuple[str, str | None]] = []
            new: list[ResultMessage] = []
            conflicts: Counter[tuple[str, str]] = Counter()  # refused, per (venue, unit)
            last_reason: dict[tuple[str, str], str] = {}
            for message in messages:
                raw = known.get((message.venue, message.id))
                out_of_range = _out_of_range(message)
                if out_of_range is not None:
                    replies.append((message.id, out_of_range))
                    conflicts[(message.venue, message.unit)] += 1
                    last_reason[(message.venue, message.unit)] = out_of_range
                elif raw is None:
                    # The first of the batch's copies is stored; the others compare with it.
                    known[(message.venue, message.id)] = message.raw
                    new.append(message)
                    replies.append((message.id, None))
                elif raw == message.raw:
                    replies.append((message.id, None))
                else:
                    replies.append((message.id, CONFLICT))
                    conflicts[(message.venue, message.unit)] += 1
                    last_reason[(message.venue, message.unit)] = CONFLICT
            self._insert(db, new)
            now = self._clock()
            for place, count in sorted(conflicts.items()):
                self._count_refusal(db, *place, last_reason[place], now, count)
        return replies

    def _stored_raws(self, db: _Runner, keys: set[tuple[str, str]]) -> dict[tuple[str, str], bytes]:
        found: dict[tuple[str, str], bytes] = {}
        for venue, id_, raw in self._select_keyed(
            db, "results", ("venue", "id", "raw"), ("venue", "id"), sorted(keys)
        ):
            found[(venue, id_)] = bytes(raw)
        return found

    def _select_keyed(
        self,
        db: _Runner,
        table: str,
        wanted: Sequence[str],
        columns: Sequence[str],
        keys: Sequence[Sequence[Any]],
    ) -> list[Any]:
        """The ``wanted`` columns of the rows of ``table`` whose ``columns`` are
        one of ``keys``: a row
        value ``IN (VALUES ...)``, a chunk at a time (PostgreSQL's backend joins
        arrays instead: one statement, whatever the count)."""
        found = []
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start : start + _CHUNK]
            marks = ", ".join(f"({', '.join('?' for _ in columns)})" for _ in chunk)
            found += db.all(
                f"SELECT {', '.join(wanted)} FROM {table} "
                f"WHERE ({', '.join(columns)}) IN (VALUES {marks})",
                [field for key in chunk for field in key],
            )
        return found

    def _insert(self, db: _Runner, new: list[ResultMessage]) -> None:
        if not new:
            return
        now = self._clock()
        db.many(
            "INSERT INTO results (venue, id, unit, kind, seq, at, day, raw, stored_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [(m.venue, m.id, m.unit, m.kind, m.seq, m.at, m.day, m.raw, now) for m in new],
        )
        db.many(
            "INSERT INTO outcomes (venue, result_id, seat, unit, day, at, kind, player, bot, "
            "outcome, false_start, reaction_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    m.venue,
                    m.id,
                    seat,
                    m.unit,
                    m.day,
                    m.at,
                    m.kind,
                    o.player,
                    o.bot,
                    o.outcome,
                    o.false_start,
                    o.reaction_us,
                )
                for m in new
                for seat, o in enumerate(m.outcomes)
            ],
        )
        self._add_to_standings(db, tally_batch(new))
        per_unit: dict[tuple[str, str], list[ResultMessage]] = {}
        for message in new:
            per_unit.setdefault((message.venue, message.unit), []).append(message)
        rows = []
        for (venue, unit), stored in sorted(per_unit.items()):
            last = max(stored, key=lambda m: (m.at, m.seq))
            matches = sum(m.kind == "match" for m in stored)
            rows.append((venue, unit, len(stored), matches, last.id, last.at))
        db.many(
            "INSERT INTO units (venue, unit, results, matches, last_result_id, last_result_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (venue, unit) DO UPDATE SET "
            "results = units.results + excluded.results, "
            "matches = units.matches + excluded.matches, "
            "last_result_id = CASE WHEN units.last_result_at IS NULL "
            "OR excluded.last_result_at >= units.last_result_at "
            "THEN excluded.last_result_id ELSE units.last_result_id END, "
            "last_result_at = CASE WHEN units.last_result_at IS NULL "
            "OR excluded.last_result_at >= units.last_result_at "
            "THEN excluded.last_result_at ELSE units.last_result_at END",
            rows,
        )

    def _add_to_standings(self, db: _Runner, batch: dict[TallyKey, Tally]) -> None:
        """Reads the rows the batch adds to, adds, writes them back with their
        new medians (the write lock is held: nobody else writes meanwhile)."""
        keys = sorted(batch)
        rows: dict[TallyKey, Tally] = {}
        for venue, day, player, bot, *counts, packed in self._select_keyed(
            db,
            "standings",
            ("venue", "day", "player", "bot", *_TALLY_FIELDS, "histogram"),
            ("venue", "day", "player", "bot"),
            keys,
        ):
            counted: dict[str, Any] = dict(zip(_TALLY_FIELDS, counts, strict=True))
            rows[(venue, day, player, bool(bot))] = Tally(
                **counted, histogram=unpack_histogram(packed)
            )
        for key in keys:
            rows.setdefault(key, Tally()).merge(batch[key])
        self._write_rows(
            db,
            "standings",
            ("venue", "day", "player", "bot", *_TALLY_FIELDS, "median_us", "histogram"),
            ("venue", "day", "bot", "player"),
            [
                (
                    *key,
                    *(getattr(rows[key], field) for field in _TALLY_FIELDS),
                    rows[key].median_us,
                    pack_histogram(rows[key].histogram),
                )
                for key in keys
            ],
        )

    def _write_rows(
        self,
        db: _Runner,
        table: str,
        columns: Sequence[str],
        key: Sequence[str],
        rows: Sequence[Sequence[Any]],
    ) -> None:
        """Writes ``rows`` whole into ``table``, over any row of the same ``key``
        (PostgreSQL's backend copies them in first: far fewer round trips)."""
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
        db.many(
            f"INSERT INTO {table} ({', '.join(columns)}) "
            f"VALUES ({', '.join('?' for _ in columns)}) "
            f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}",
            rows,
        )

    def _count_refusal(
        self, db: _Runner, venue: str, unit: str, reason: str, at: float, count: int = 1
    ) -> None:
        db.execute(
            "INSERT INTO units (venue, unit, refusals, last_refusal, last_refusal_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (venue, unit) DO UPDATE SET "
            "refusals = units.refusals + excluded.refusals, "
            "last_refusal = excluded.last_refusal, last_refusal_at = excluded.last_refusal_at",
            (venue, unit, count, reason[:_REASON_CHARS], at),
        )

    def record_refusal(
        self, venue: str | None, unit: str | None, topic: str, reason: str, at: float
    ) -> None:
        reason = str(reason)[:_REASON_CHARS]
        with self._using(write=True) as db:
            if venue is not None and unit is not None:
                self._count_refusal(db, venue, unit, reason, float(at))
                return
            db.execute(
                "INSERT INTO topic_refusals (topic, refusals, last_refusal, last_refusal_at) "
                "VALUES (?, 1, ?, ?) ON CONFLICT (topic) DO UPDATE SET "
                "refusals = topic_refusals.refusals + 1, "
                "last_refusal = excluded.last_refusal, last_refusal_at = excluded.last_refusal_at",
                (str(topic)[:_TOPIC_CHARS], reason, float(at)),
            )

    def record_status(self, status: Status) -> None:
        figures = json.dumps(status.figures, sort_keys=True, default=str)
        with self._using(write=True) as db:
            db.execute(
                "INSERT INTO units (venue, unit, state, host, version, fault, status_at, figures) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (venue, unit) DO UPDATE SET "
                "state = excluded.state, host = excluded.host, version = excluded.version, "
                "fault = excluded.fault, status_at = excluded.status_at, "
                "figures = excluded.figures",
                (
                    status.venue,
                    status.unit,
                    status.state,
                    status.host,
                    status.version,
                    status.fault,
                    status.at,
                    figures,
                ),
            )

    # -- reads ---------------------------------------------------------------------

    def standings(
        self,
        *,
        venue: str | None = None,
        day: str | None = None,
        bots: bool | None = False,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        check_filters(venue, day, bots, limit)
        where = "venue = ? AND day = ?"
        params: list[Any] = [venue or ALL, day or ALL]
        if bots is not None:
            where += " AND bot = ?"
            params.append(bots)
        with self._using() as db:
            rows = db.all(
                "SELECT player, bot, showdowns, wins, losses, false_starts, reactions, median_us, "
                f"best_us, matches, match_wins FROM standings WHERE {where} "
                "ORDER BY wins DESC, best_us IS NULL, best_us, match_wins DESC, "
                f"player{self.name_order}, bot LIMIT ?",
                [*params, limit],
            )
        standings = []
        for row in rows:
            standing = dict(zip(STANDING_FIELDS, row, strict=True))
            standing["bot"] = bool(standing["bot"])
            standings.append(standing)
        return standings

    def units(self) -> list[dict[str, Any]]:
        with self._using() as db:
            rows = db.all(f"SELECT {', '.join(_UNIT_FIELDS)} FROM units ORDER BY venue, unit")
        units = []
        for row in rows:
            unit = dict(zip(_UNIT_FIELDS, row, strict=True))
            unit["figures"] = json.loads(unit["figures"]) if unit["figures"] else {}
            units.append(unit)
        return units

    def figures(self) -> dict[str, Any]:
        with self._using() as db:
            # The units' counts, not COUNT(*) of results: as cheap at any size.
            results, matches = db.all(
                "SELECT COALESCE(SUM(results), 0), COALESCE(SUM(matches), 0) FROM units"
            )[0]
            kinds = {"showdown": int(results) - int(matches), "match": int(matches)}
            states = dict(
                db.all("SELECT COALESCE(state, 'unknown'), COUNT(*) FROM units GROUP BY 1")
            )
            unit_refusals, units, venues = db.all(
                "SELECT COALESCE(SUM(refusals), 0), COUNT(*), COUNT(DISTINCT venue) FROM units"
            )[0]
            topic_refusals = db.all("SELECT COALESCE(SUM(refusals), 0) FROM topic_refusals")[0][0]
            players = db.all(
                "SELECT COUNT(*) FROM standings WHERE venue = ? AND day = ?", (ALL, ALL)
            )[0][0]
        return {
            "results": int(results),
            "kinds": kinds,
            "units": int(units),
            "states": {s: int(states.get(s, 0)) for s in ("online", "offline", "fault", "unknown")},
            "venues": int(venues),
            "players": int(players),
            "refusals": int(unit_refusals) + int(topic_refusals),
            "refusals_without_unit": int(topic_refusals),
        }

    def refused_topics(self, limit: int = 20) -> list[dict[str, Any]]:
        """The topics naming no unit that messages were refused on, newest first."""
        with self._using() as db:
            rows = db.all(
                "SELECT topic, refusals, last_refusal, last_refusal_at FROM topic_refusals "
                "ORDER BY last_refusal_at DESC, topic LIMIT ?",
                (limit,),
            )
        fields = ("topic", "refusals", "last_refusal", "last_refusal_at")
        return [dict(zip(fields, row, strict=True)) for row in rows]

    def recent(self, limit: int = 20, venue: str | None = None) -> list[dict[str, Any]]:
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise ValueError(f"limit must be a whole number from 1 to 1000, not {limit!r}")
        where, params = "", []
        if venue is not None:
            where, params = "WHERE venue = ?", [clean_place(venue, "venue")]
        with self._using() as db:
            rows = db.all(
                "SELECT venue, id, unit, kind, seq, at, day, raw FROM results "
                f"{where} ORDER BY at DESC, stored_at DESC, id DESC LIMIT ?",
                [*params, limit],
            )
            seats: dict[tuple[str, str], list[dict[str, Any]]] = {}
            for v, ids, marks in _by_venue({(row[0], row[1]) for row in rows}):
                for id_, player, bot, outcome, false_start, reaction in db.all(
                    "SELECT result_id, player, bot, outcome, false_start, reaction_us "
                    f"FROM outcomes WHERE venue = ? AND result_id IN ({marks}) ORDER BY seat",
                    [v, *ids],
                ):
                    seats.setdefault((v, id_), []).append(
                        {
                            "player": player,
                            "bot": bool(bot),
                            "outcome": outcome,
                            "false_start": bool(false_start),
                            "reaction_us": reaction,
                        }
                    )
        recent = []
        for v, id_, unit, kind, seq, at, day, raw in rows:
            body = json.loads(bytes(raw))["body"]
            recent.append(
                {
                    "id": id_,
                    "venue": v,
                    "unit": unit,
                    "kind": kind,
                    "seq": seq,
                    "at": at,
                    "day": day,
                    "outcomes": seats.get((v, id_), []),
                    "body": body,
                }
            )
        return recent

    def venues(self) -> list[str]:
        with self._using() as db:
            rows = db.all("SELECT DISTINCT venue FROM units WHERE results > 0")
        return sorted(row[0] for row in rows)

    def days(self, venue: str | None = None) -> list[str]:
        if venue is not None:
            clean_place(venue, "venue")
        with self._using() as db:
            rows = db.all(
                "SELECT DISTINCT day FROM standings WHERE venue = ? AND day <> ?",
                (venue or ALL, ALL),
            )
        return sorted(row[0] for row in rows)

    def close(self) -> None:
        self._pool.close()


class _Runner:
    """One connection's statements, with the backend's placeholders."""

    def __init__(self, connection: Any, sql: Callable[[str], str]):
        self.connection, self._sql = connection, sql

    def execute(self, statement: str, params: Sequence[Any] = ()) -> None:
        self.connection.execute(self._sql(statement), params)

    def all(self, statement: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(self.connection.execute(self._sql(statement), params).fetchall())

    def many(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self.connection.cursor().executemany(self._sql(statement), rows)


def _out_of_range(message: ResultMessage) -> str | None:
    """Why a result that the wire takes cannot be stored, if it cannot."""
    if message.seq > _MAX_SEQ:
        return f"seq out of range (over {_MAX_SEQ})"
    for outcome in message.outcomes:
        if outcome.reaction_us is not None and outcome.reaction_us > MAX_REACTION_US:
            return f"reaction_us out of range (over {MAX_REACTION_US} µs, about 36 minutes)"
    return None


def _by_venue(keys: set[tuple[str, str]]) -> Iterator[tuple[str, list[str], str]]:
    """(venue, ids, their ``?`` marks) for the (venue, id) keys, a chunk at a time."""
    venues: dict[str, list[str]] = {}
    for venue, id_ in sorted(keys):
        venues.setdefault(venue, []).append(id_)
    for venue, ids in venues.items():
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            yield venue, chunk, ", ".join("?" for _ in chunk)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
