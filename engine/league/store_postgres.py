"""The Store on PostgreSQL (psycopg 3): a league of venues, and Grafana beside it.

The schema is created if missing. A write transaction first takes a
transaction-scoped advisory lock (:data:`WRITE_LOCK`), so two league servers
on one database store one batch at a time and never both store one id; reads
take no lock and never wait for a write. Connections come from a small pool,
one per caller at a time; a connection the server dropped is closed, not
reused, and the next call opens a new one (the caller sees one StoreError).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import psycopg

from engine.league.schema import SCHEMA_VERSION, statements
from engine.league.store import safe_url
from engine.league.store_sql import SqlStore

__all__ = ["PostgresStore", "WRITE_LOCK"]

#: The advisory lock of the league's writers ("uno-league" in ASCII).
WRITE_LOCK = 0x756E6F2D6C656167
#: The array type of each key column the store looks rows up by.
_ARRAY_TYPES = {
    "venue": "text[]",
    "id": "text[]",
    "day": "text[]",
    "player": "text[]",
    "bot": "boolean[]",
}
#: How long a connection attempt may take before it fails with words.
CONNECT_TIMEOUT_S = 10


class PostgresStore(SqlStore):
    dialect = "postgresql"
    # Names sort by code point, as in SQLite and Python, whatever the database's locale.
    name_order = ' COLLATE "C"'

    def __init__(self, url: str, clock: Callable[[], float] = time.time):
        self._url = url
        super().__init__(safe_url(url), clock)
        try:
            self.create_schema(statements(self.dialect), SCHEMA_VERSION)
        except BaseException:
            self.close()
            raise

    def _connect(self) -> psycopg.Connection[Any]:
        return psycopg.connect(self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)

    @contextlib.contextmanager
    def _transaction(self, connection: Any, write: bool) -> Iterator[None]:
        with connection.transaction():
            if write:
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            yield

    def _driver_errors(self) -> tuple[type[BaseException], ...]:
        return (psycopg.Error,)

    def _is_broken(self, connection: Any) -> bool:
        return bool(connection.closed or connection.broken)

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s")

    def _select_keyed(
        self,
        db: Any,
        table: str,
        wanted: Sequence[str],
        columns: Sequence[str],
        keys: Sequence[Sequence[Any]],
    ) -> list[Any]:
        # One array a key column, joined: one short statement, planned once, for any count.
        if not keys:
            return []
        arrays = ", ".join(f"?::{_ARRAY_TYPES[column]}" for column in columns)
        return list(
            db.all(
                f"SELECT {', '.join(f't.{name}' for name in wanted)} FROM {table} AS t "
                f"JOIN unnest({arrays}) AS k ({', '.join(columns)}) "
                f"ON {' AND '.join(f't.{column} = k.{column}' for column in columns)}",
                [list(values) for values in zip(*keys, strict=True)],
            )
        )

    def _write_rows(
        self,
        db: Any,
        table: str,
        columns: Sequence[str],
        key: Sequence[str],
        rows: Sequence[Sequence[Any]],
    ) -> None:
        # COPY into a scratch table emptied at commit, then one INSERT ... SELECT:
        # one round trip for the rows instead of one statement each.
        if not rows:
            return
        names = ", ".join(columns)
        scratch = f"{table}_batch"
        db.execute(
            f"CREATE TEMPORARY TABLE IF NOT EXISTS {scratch} "
            f"(LIKE {table} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
        )
        with db.connection.cursor().copy(f"COPY {scratch} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
        db.execute(
            f"INSERT INTO {table} ({names}) SELECT {names} FROM {scratch} "
            f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}"
        )
