"""The league's tables, one schema for SQLite and PostgreSQL.

``results`` holds every stored result once under its (venue, id): an id is
unique in its venue (``<unit>:<showdown id>``), two venues may each have a
``unit-1``. It keeps its canonical bytes (what a
resend is compared with); ``outcomes`` its rows per player (what a naive
recount or a Grafana panel reads). ``standings`` is kept up to date as
results arrive (:mod:`engine.league.standings`): one row per (venue, day,
bot, player) at four levels, ``*`` standing for every venue or every day,
with its median and the 1 ms reaction histogram it is kept from. ``units`` is the last
status of each (venue, unit) and its counts; ``topic_refusals`` counts what
was refused from a topic that names no unit.

The two dialects differ in one type: bytes (``BLOB``, ``BYTEA``).
Booleans are ``BOOLEAN`` in both (SQLite keeps 0 and 1).
"""

from __future__ import annotations

__all__ = ["SCHEMA_VERSION", "statements"]

#: Written in ``league_meta``; a database of a newer version is refused by name.
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS league_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    venue TEXT NOT NULL,
    id TEXT NOT NULL,
    unit TEXT NOT NULL,
    kind TEXT NOT NULL,
    seq BIGINT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    day TEXT NOT NULL,
    raw {bytes} NOT NULL,
    stored_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (venue, id)
);
CREATE INDEX IF NOT EXISTS results_by_at ON results (at);
CREATE INDEX IF NOT EXISTS results_by_venue_at ON results (venue, at);
CREATE TABLE IF NOT EXISTS outcomes (
    venue TEXT NOT NULL,
    result_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    unit TEXT NOT NULL,
    day TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    kind TEXT NOT NULL,
    player TEXT NOT NULL,
    bot BOOLEAN NOT NULL,
    outcome TEXT NOT NULL,
    false_start BOOLEAN NOT NULL,
    reaction_us BIGINT,
    PRIMARY KEY (venue, result_id, seat),
    FOREIGN KEY (venue, result_id) REFERENCES results (venue, id)
);
CREATE INDEX IF NOT EXISTS outcomes_by_at ON outcomes (at);
CREATE TABLE IF NOT EXISTS standings (
    venue TEXT NOT NULL,
    day TEXT NOT NULL,
    bot BOOLEAN NOT NULL,
    player TEXT NOT NULL,
    showdowns BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    losses BIGINT NOT NULL,
    false_starts BIGINT NOT NULL,
    reactions BIGINT NOT NULL,
    best_us BIGINT,
    median_us BIGINT,
    matches BIGINT NOT NULL,
    match_wins BIGINT NOT NULL,
    histogram {bytes} NOT NULL,
    PRIMARY KEY (venue, day, bot, player)
);
CREATE TABLE IF NOT EXISTS units (
    venue TEXT NOT NULL,
    unit TEXT NOT NULL,
    state TEXT,
    host TEXT,
    version TEXT,
    fault TEXT,
    status_at DOUBLE PRECISION,
    figures TEXT,
    results BIGINT NOT NULL DEFAULT 0,
    matches BIGINT NOT NULL DEFAULT 0,
    last_result_id TEXT,
    last_result_at DOUBLE PRECISION,
    refusals BIGINT NOT NULL DEFAULT 0,
    last_refusal TEXT,
    last_refusal_at DOUBLE PRECISION,
    PRIMARY KEY (venue, unit)
);
CREATE TABLE IF NOT EXISTS topic_refusals (
    topic TEXT PRIMARY KEY,
    refusals BIGINT NOT NULL,
    last_refusal TEXT NOT NULL,
    last_refusal_at DOUBLE PRECISION NOT NULL
);
"""

_TYPES = {"sqlite": {"bytes": "BLOB"}, "postgresql": {"bytes": "BYTEA"}}


def statements(dialect: str) -> list[str]:
    """The schema's statements for ``sqlite`` or ``postgresql``, one by one."""
    text = _SCHEMA.format(**_TYPES[dialect])
    return [statement.strip() for statement in text.split(";") if statement.strip()]
