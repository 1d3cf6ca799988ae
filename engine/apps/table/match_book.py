"""The table's book of finished matches: who played, who won, the scores.

``showdown table --results PATH`` keeps one row per finished match in a
SQLite file (``MATCH_BOOK_SCHEMA`` of the league's wire,
:mod:`firmware_host.protocol.league`), which the uplink beside the table
reads and sends to the venue league, as it sends the unit's journal. A
match is written once, when it is over, under its match id: a resumed table
or a second look at the same finished match adds nothing.

>>> import tempfile, os
>>> book = MatchBook(os.path.join(tempfile.mkdtemp(), "matches.sqlite3"))
>>> body = {"match_id": "m1a2b3c4d", "game": "classic", "rounds": 3, "winners": ["Ann"],
...         "players": [{"name": "Ann", "bot": False, "score": 512},
...                     {"name": "bot1", "bot": True, "score": 140}]}
>>> book.record(body, finished_at=1764525851.0), book.record(body, finished_at=1764525999.0)
(True, False)
>>> [(entry, match_id) for entry, match_id, _, _ in book.rows()]
[(1, 'm1a2b3c4d')]
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from firmware_host.protocol.league import MATCH_BOOK_SCHEMA, encode

__all__ = ["MatchBook", "match_body"]


class MatchBook:
    """The book at ``path`` (created with its folder's permission, WAL so
    that the uplink reads while the table writes). OSError in words when the
    file cannot be opened."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(MATCH_BOOK_SCHEMA)
            self._db.commit()
        except sqlite3.Error as exc:
            raise OSError(f"{self.path}: cannot keep the match results there: {exc}") from None

    def record(self, body: dict[str, Any], *, finished_at: float) -> bool:
        """Write a finished match (:func:`match_body`); False if its match id
        was written before (nothing changes)."""
        try:
            with self._db:
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO matches (match_id, finished_at, body) VALUES (?, ?, ?)",
                    (body["match_id"], finished_at, encode(body).decode()),
                )
        except sqlite3.Error as exc:
            raise OSError(f"{self.path}: cannot write the match result: {exc}") from None
        return cursor.rowcount == 1

    def rows(self) -> list[tuple[int, str, float, str]]:
        """Every row, ``(entry, match_id, finished_at, body)``, in order."""
        return self._db.execute(
            "SELECT entry, match_id, finished_at, body FROM matches ORDER BY entry"
        ).fetchall()

    def close(self) -> None:
        self._db.close()


def match_body(
    game: Any, *, match_id: str, variant: str, names: Sequence[str], bots: Sequence[bool]
) -> dict[str, Any]:
    """A finished match as the book and the league keep it, from the game
    interface alone (``scores`` per seat, ``teams``, ``match_winner``): the
    winners are every seat of the winning team."""
    winner = game.match_winner
    if winner is None:
        raise ValueError("the match is not over")
    team = next(team for team in game.teams if winner in team)
    return {
        "match_id": match_id,
        "game": variant,
        "rounds": game.round,
        "winners": [names[seat] for seat in team],
        "players": [
            {"name": name, "bot": bot, "score": score}
            for name, bot, score in zip(names, bots, game.scores, strict=True)
        ],
    }
