"""The Store on SQLite: one file, for one bar on one Pi (the default).

WAL mode, so the web server's readers never wait for the ingest thread's
writes; ``synchronous=FULL``, so a batch the league has acked survives a
power cut as well as a crash. A write transaction is ``BEGIN IMMEDIATE``: it
takes the file's write lock before it reads what is stored, so two processes
on one file cannot both store one id. Connections come from a small pool,
one per caller at a time (:class:`~engine.league.store_sql.Pool`).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from engine.league.schema import SCHEMA_VERSION, statements
from engine.league.store import StoreError
from engine.league.store_sql import SqlStore

__all__ = ["SqliteStore"]

#: How long a writer waits for another process's write lock before it fails.
BUSY_TIMEOUT_S = 30.0


class SqliteStore(SqlStore):
    dialect = "sqlite"

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time):
        self.path = Path(path)
        label = f"sqlite:{path}"
        if str(path) in ("", ":memory:") or str(path).startswith("file:"):
            raise StoreError(
                f"cannot open {label!r}: give a file path (an in-memory database "
                "is not shared by the server's threads)"
            )
        if self.path.is_dir():
            raise StoreError(f"cannot open {label!r}: it is a folder, not a file")
        if not self.path.parent.is_dir():
            raise StoreError(f"cannot open {label!r}: no folder {str(self.path.parent)!r}")
        super().__init__(label, clock)
        try:
            self.create_schema(statements(self.dialect), SCHEMA_VERSION)
        except BaseException:
            self.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = FULL")
        except BaseException:
            connection.close()
            raise
        return connection

    @contextlib.contextmanager
    def _transaction(self, connection: Any, write: bool) -> Iterator[None]:
        connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

    def _driver_errors(self) -> tuple[type[BaseException], ...]:
        return (sqlite3.Error,)
