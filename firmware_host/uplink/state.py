"""The uplink's own state file: how far the league has acknowledged each source.

SQLite, one file per venue and unit name in the ``--state`` folder (beside the
journal by default). Per source: the cursor (every entry up to it is done) and
the entries done above it. Written after each ack, so a restart resends only
what was not acked; a lost write (a power cut) only means a few results are
sent again, which the league takes as the same result.

>>> state = UplinkState(":memory:")
>>> state.save({"journal": (3, {5, 7})})
>>> state.load()
({'journal': 3}, {'journal': {5, 7}})
>>> state.close()
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Mapping, Set
from pathlib import Path

from firmware_host.uplink.errors import UplinkError

__all__ = ["UplinkState", "state_path"]

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS cursors (source TEXT PRIMARY KEY, entry INTEGER NOT NULL)",
    """CREATE TABLE IF NOT EXISTS done_above (
        source TEXT NOT NULL, entry INTEGER NOT NULL, PRIMARY KEY (source, entry)
    )""",
]


def state_path(folder: str | os.PathLike, venue: str, unit: str) -> Path:
    """The state file of one venue and unit name in ``folder``.

    >>> state_path("/var/lib/uno-showdown-uplink", "bar-1", "unit-2")
    PosixPath('/var/lib/uno-showdown-uplink/uplink-bar-1-unit-2.sqlite3')
    """
    return Path(folder) / f"uplink-{venue}-{unit}.sqlite3"


class UplinkState:
    """The cursors of one uplink, in their file; :meth:`close` is safe twice."""

    def __init__(self, path: str | os.PathLike):
        self.path = path
        self._db: sqlite3.Connection | None = None
        try:
            if str(path) != ":memory:":
                Path(path).parent.mkdir(mode=0o700, exist_ok=True)
            # One thread at a time uses it, not always the one that opened it.
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            for statement in _SCHEMA:
                self._db.execute(statement)
        except (OSError, sqlite3.Error) as exc:
            self.close()
            raise UplinkError(f"{path}: cannot open the uplink's state file: {exc}") from None

    def load(self) -> tuple[dict[str, int], dict[str, set[int]]]:
        """(cursor per source, entries done above it per source)."""
        db = self._open()
        cursors = dict(db.execute("SELECT source, entry FROM cursors").fetchall())
        above: dict[str, set[int]] = {}
        for source, entry in db.execute("SELECT source, entry FROM done_above"):
            if entry > cursors.get(source, 0):
                above.setdefault(source, set()).add(entry)
        return cursors, above

    def save(self, sources: Mapping[str, tuple[int, Set[int]]]) -> None:
        """The cursor and the entries done above it, of each source given, in
        one transaction."""
        db = self._open()
        try:
            db.execute("BEGIN")
            for source, (cursor, above) in sources.items():
                db.execute(
                    "INSERT INTO cursors (source, entry) VALUES (?, ?) "
                    "ON CONFLICT (source) DO UPDATE SET entry = excluded.entry",
                    (source, cursor),
                )
                db.execute("DELETE FROM done_above WHERE source = ?", (source,))
                db.executemany(
                    "INSERT INTO done_above (source, entry) VALUES (?, ?)",
                    [(source, entry) for entry in sorted(above)],
                )
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise UplinkError(f"{self.path}: cannot keep the uplink's state: {exc}") from None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            raise UplinkError(f"{self.path}: the state file is closed")
        return self._db

    def __enter__(self) -> UplinkState:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
