"""The results journal: every showdown result, kept in SQLite.

The unit records a result here before it reports it, so an engine that lost
the link can fetch what it missed, and a showdown id that is already known is
answered from here instead of being run twice. ``record`` is idempotent: the
same result again is a no-op, a different result under a known id is an error.

A Journal is used from the one thread that opened it (sqlite3's default
check); the daemon opens it on, and only calls it from, its event loop thread.
Each ``record`` is committed to disk (WAL with ``synchronous=FULL``) before it
returns.

>>> journal = Journal(":memory:", clock=lambda: 1764525851.0)
>>> journal.record({"showdown_id": "sd-1", "players": {"a": "Ann", "b": "Bob"},
...                 "winner": "b", "loser": "a", "reason": "faster",
...                 "reaction_us": {"a": 263000, "b": 241000}})
True
>>> journal.get("sd-1")["winner"], journal.get("sd-2")
('b', None)
>>> journal.player_stats("Bob")
{'Bob': {'showdowns': 1, 'median_reaction_us': 241000, 'best_reaction_us': 241000, 'false_starts': 0, 'wins': 1, 'losses': 0}}
>>> journal.close()
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

__all__ = [
    "Journal", "JournalEntry", "JournalError", "JournalConflictError",
    "default_journal_path", "SCHEMA_VERSION", "FILENAME",
]

log = logging.getLogger(__name__)

#: Kept in ``PRAGMA user_version``; a journal newer than this is refused.
SCHEMA_VERSION = 1
FILENAME = "results.sqlite3"

_SCHEMA = """
CREATE TABLE results (
    entry INTEGER PRIMARY KEY,          -- the order results were recorded in
    showdown_id TEXT NOT NULL UNIQUE,
    recorded_at REAL NOT NULL,          -- Unix time, seconds
    player_a TEXT NOT NULL,
    player_b TEXT NOT NULL,
    body TEXT NOT NULL                  -- the result dict, as canonical JSON
);
CREATE INDEX results_player_a ON results (player_a);
CREATE INDEX results_player_b ON results (player_b);
"""


class JournalError(RuntimeError):
    """The journal cannot be opened or used; the message names the file."""


class JournalConflictError(JournalError, ValueError):
    """A result was recorded again with different content."""


@dataclass(frozen=True)
class JournalEntry:
    """One recorded result and when the unit recorded it (Unix seconds)."""

    recorded_at: float
    result: dict[str, Any]

    @property
    def recorded_at_iso(self) -> str:
        """UTC, to the second: ``2025-11-30T18:04:11Z``."""
        moment = datetime.fromtimestamp(self.recorded_at, timezone.utc)
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def default_journal_path(configured: str, *, mock: bool,
                         environ: Mapping[str, str] | None = None) -> Path:
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


class Journal:
    """Showdown results in an SQLite file, created with its schema on first use.

    ``readonly=True`` opens an existing journal for reading only and creates
    nothing (not even WAL side files when the unit is not running), so
    ``showdown-unit history`` never changes the daemon's file or its owner.
    ``clock`` gives the Unix time stamped on each record.
    """

    def __init__(self, path: str | os.PathLike, *, readonly: bool = False,
                 clock: Callable[[], float] = time.time):
        self.path = Path(path) if str(path) != ":memory:" else path
        self.readonly = readonly
        self._clock = clock
        self._db: sqlite3.Connection | None = None
        try:
            self._db = self._connect()
            self._check_schema()
        except sqlite3.Error as exc:
            self.close()
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from None
        except JournalError:
            self.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        if self.path == ":memory:":
            return sqlite3.connect(":memory:")
        if self.readonly:
            if not self.path.exists():
                raise JournalError(f"{self.path}: no journal there")
            # With no -wal file the unit is not running and everything is in
            # the main file: read it as immutable, so SQLite creates no side
            # files (which would belong to whoever ran this).
            wal = self.path.with_name(self.path.name + "-wal")
            mode = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
            return sqlite3.connect(f"{self.path.resolve().as_uri()}?{mode}", uri=True)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot create its folder: "
                               f"{exc.strerror or exc}") from None
        db = sqlite3.connect(self.path)
        mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if mode != "wal":
            log.warning("%s: SQLite would not use WAL (journal_mode is %s)", self.path, mode)
        # FULL: in WAL mode, NORMAL may lose the last commits on power loss.
        db.execute("PRAGMA synchronous=FULL")
        return db

    def _check_schema(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise JournalError(f"{self.path}: journal schema version {version} is newer than "
                               f"this software understands ({SCHEMA_VERSION})")
        if version == SCHEMA_VERSION:
            return
        tables = [row[0] for row in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        if tables:
            raise JournalError(f"{self.path}: not a results journal (it has tables "
                               f"{', '.join(tables)} and no schema version)")
        if self.readonly:
            raise JournalError(f"{self.path}: the journal is empty (no schema yet)")
        with self._db:
            self._db.executescript(_SCHEMA + f"PRAGMA user_version = {SCHEMA_VERSION};")

    # -- writing --------------------------------------------------------------------

    def record(self, result: Mapping[str, Any]) -> bool:
        """Store one result dict (``Result.to_dict()``), committed before this
        returns. True if it is new; False if that showdown id was already
        recorded with identical content; JournalConflictError if with other
        content."""
        showdown_id, players = self._identity(result)
        body = _canonical(result)
        db = self._open_db()
        try:
            with db:
                db.execute("INSERT INTO results (showdown_id, recorded_at, player_a, player_b, "
                           "body) VALUES (?, ?, ?, ?, ?)",
                           (showdown_id, self._clock(), players["a"], players["b"], body))
            return True
        except sqlite3.IntegrityError:
            pass
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot record {showdown_id!r}: {exc}") from None
        known = db.execute("SELECT body FROM results WHERE showdown_id = ?",
                           (showdown_id,)).fetchone()[0]
        if known != body:
            raise JournalConflictError(
                f"showdown {showdown_id!r} is already recorded with a different result")
        return False

    @staticmethod
    def _identity(result: Mapping[str, Any]) -> tuple[str, dict]:
        if not isinstance(result, Mapping):
            raise ValueError(f"a result must be a dict, not {type(result).__name__}")
        showdown_id, players = result.get("showdown_id"), result.get("players")
        if not isinstance(showdown_id, str) or not showdown_id:
            raise ValueError(f"a result needs a showdown_id string, not {showdown_id!r}")
        if (not isinstance(players, Mapping)
                or not all(isinstance(players.get(side), str) for side in "ab")):
            raise ValueError(f"a result needs players {{'a': name, 'b': name}}, not {players!r}")
        for text in (showdown_id, players["a"], players["b"]):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:   # a lone surrogate: SQLite cannot store it
                raise ValueError(f"a result's names must be valid text, not {text!r}") from None
        return showdown_id, players

    # -- reading --------------------------------------------------------------------

    def get(self, showdown_id: str) -> dict[str, Any] | None:
        """The result recorded for ``showdown_id``, or None."""
        row = self._open_db().execute("SELECT body FROM results WHERE showdown_id = ?",
                                      (showdown_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def entries(self, limit: int = 50, player: str | None = None) -> list[JournalEntry]:
        """The last ``limit`` results, newest first, with their times;
        ``player``: only showdowns that name took part in (exact match)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a whole number >= 1, not {limit!r}")
        where, params = self._where(player)
        rows = self._open_db().execute(
            f"SELECT recorded_at, body FROM results {where} ORDER BY entry DESC LIMIT ?",
            (*params, limit))
        return [JournalEntry(at, json.loads(body)) for at, body in rows]

    def recent(self, limit: int = 50, player: str | None = None) -> list[dict[str, Any]]:
        """The last ``limit`` result dicts, newest first (see ``entries``)."""
        return [entry.result for entry in self.entries(limit, player)]

    def player_stats(self, player: str | None = None) -> dict[str, dict[str, Any]]:
        """Per player name, over every recorded showdown: ``showdowns``,
        ``median_reaction_us`` and ``best_reaction_us`` (None with no timed
        press), ``false_starts``, ``wins``, ``losses``. A reaction counts when
        it is a press at or after GO in a showdown that was not a false start.
        ``player``: that player only ({} if unknown)."""
        where, params = self._where(player)
        tallies: dict[str, dict[str, Any]] = {}
        for (body,) in self._open_db().execute(f"SELECT body FROM results {where}", params):
            result = json.loads(body)
            for side in ("a", "b"):
                name = result["players"][side]
                if player is not None and name != player:
                    continue
                tally = tallies.setdefault(name, {"showdowns": 0, "reactions": [],
                                                  "false_starts": 0, "wins": 0, "losses": 0})
                tally["showdowns"] += 1
                tally["wins"] += result.get("winner") == side
                tally["losses"] += result.get("loser") == side
                if result.get("reason") == "false_start":
                    tally["false_starts"] += result.get("loser") == side
                    continue
                reaction = (result.get("reaction_us") or {}).get(side)
                if isinstance(reaction, int) and not isinstance(reaction, bool) and reaction >= 0:
                    tally["reactions"].append(reaction)
        stats = {}
        for name in sorted(tallies):
            tally = tallies[name]
            reactions = tally.pop("reactions")
            stats[name] = {
                "showdowns": tally["showdowns"],
                "median_reaction_us": round(statistics.median(reactions)) if reactions else None,
                "best_reaction_us": min(reactions) if reactions else None,
                "false_starts": tally["false_starts"],
                "wins": tally["wins"],
                "losses": tally["losses"],
            }
        return stats

    def history(self, limit: int = 50, player: str | None = None) -> dict[str, Any]:
        """The ``history`` document (protocol reply and ``history --json``):
        ``{"results": [...], "players": {...}}``, each result with its
        ``recorded_at`` time (ISO 8601, UTC)."""
        results = [{"recorded_at": entry.recorded_at_iso, **entry.result}
                   for entry in self.entries(limit, player)]
        return {"results": results, "players": self.player_stats(player)}

    @staticmethod
    def _where(player: str | None) -> tuple[str, tuple]:
        if player is None:
            return "", ()
        return "WHERE player_a = ? OR player_b = ?", (player, player)

    # -- closing --------------------------------------------------------------------

    def _open_db(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"{self.path}: the journal is closed")
        return self._db

    def close(self) -> None:
        """Close the file; safe to call twice."""
        db, self._db = self._db, None
        if db is not None:
            db.close()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._db is None else ("read-only" if self.readonly else "open")
        return f"<Journal {str(self.path)!r} {state}>"
