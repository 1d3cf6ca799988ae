"""The journal's schema: its versions, a new journal's tables, and the upgrade of an older one.

Version 1 kept the whole result in ``body``; version 2 put the launch outcome
in columns of its own; version 3 results carry ``bots``; version 4 keeps each
row's figures beside it (:mod:`~firmware_host.service.journal_figures`) and
the players' names casefolded in ``key_a``/``key_b``. An upgrade runs inside
the caller's transaction: all of it or nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from firmware_host.service import journal_figures
from firmware_host.service.journal_figures import FIGURES_SCHEMA, FIGURES_TABLES

__all__ = ["SCHEMA_VERSION", "SCHEMA", "COLUMNS", "NO_BOTS", "canonical", "create", "upgrade"]

#: Kept in ``PRAGMA user_version``; a journal newer than this is refused.
SCHEMA_VERSION = 4

#: A new journal's tables, indexes and triggers.
SCHEMA = [
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
V1_TO_V2 = [
    "ALTER TABLE results ADD COLUMN launch TEXT",
    "ALTER TABLE results ADD COLUMN cards_counted INTEGER",
    "ALTER TABLE results ADD COLUMN outcome_at REAL",
]

#: Version 3 results carry ``bots`` (the sides a bot played); a version 2
#: body gains ``"bots": []`` (people played both sides: bots came with version 3).
NO_BOTS: list[str] = []

#: Version 4 keeps each row's figures beside it (journal_figures) and the
#: players' names casefolded in ``key_a``/``key_b``.
V3_TO_V4 = [
    "ALTER TABLE results ADD COLUMN key_a TEXT",
    "ALTER TABLE results ADD COLUMN key_b TEXT",
    "UPDATE results SET key_a = casefold(player_a), key_b = casefold(player_b)",
    *FIGURES_TABLES,
]

#: What a reader selects, per schema version.
COLUMNS = {
    1: "entry, showdown_id, recorded_at, body, NULL, NULL",
    2: "entry, showdown_id, recorded_at, body, launch, cards_counted",
    3: "entry, showdown_id, recorded_at, body, launch, cards_counted",
    4: "entry, showdown_id, recorded_at, body, launch, cards_counted",
}


def canonical(result: Mapping[str, Any]) -> str:
    """A result as it is stored: canonical JSON."""
    # ASCII: any str at all can be stored, and equal dicts give equal text.
    return json.dumps(result, sort_keys=True, separators=(",", ":"), allow_nan=False)


def create(db) -> None:
    """A new journal's schema, in the caller's transaction."""
    for statement in SCHEMA:
        db.execute(statement)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def upgrade(db, version: int, merged: journal_figures.Merged) -> None:
    """Version 1, 2 or 3 to the current one, in the caller's transaction.
    ``merged``: the journal's valid result of a row (for the figures kept)."""
    if version == 1:
        upgrade_from_v1(db)
    if version <= 2:
        upgrade_from_v2(db)
    upgrade_from_v3(db, merged)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def upgrade_from_v1(db) -> None:
    """The outcome columns, filled from each old body."""
    for statement in V1_TO_V2:
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


def upgrade_from_v2(db) -> None:
    """Every body gains ``"bots": []``: a version 2 unit had no bots."""
    for entry, body in db.execute("SELECT entry, body FROM results").fetchall():
        try:
            result = json.loads(body)
        except (TypeError, ValueError):
            continue  # a damaged row stays damaged; readers skip it
        if not isinstance(result, dict) or "bots" in result:
            continue
        db.execute(
            "UPDATE results SET body = ? WHERE entry = ?",
            (canonical({**result, "bots": NO_BOTS}), entry),
        )


def upgrade_from_v3(db, merged: journal_figures.Merged) -> None:
    """The casefolded names (``casefold`` is the journal connection's own
    function) and every row's figures (journal_figures)."""
    for statement in V3_TO_V4:
        db.execute(statement)
    journal_figures.keep_all(db, merged)
