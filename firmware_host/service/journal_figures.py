"""What the journal keeps beside its results so that ``history`` costs what it returns.

``history`` answers with the latest results and every name's figures over the
whole journal (showdowns, wins, losses, false starts, the median and the best
reaction time). Reading every row to make them took 1.85 s at 100,000 rows.
Since schema version 4 the journal keeps, in the same transaction as each
write (so exactly as durable as the result itself):

- ``figures``: one row per side of each valid result, what that side counts
  for: the name as the result has it and casefolded, whether a bot played
  it, won, lost, a false start, and the reaction time that counts (a press
  at or after GO in a showdown that was not a false start), else NULL. It
  is made in Python from the result as validated (:func:`side_figures`), the
  one place that says what counts.
- ``tallies``: per (bot or person, name) the running sums of those figures,
  and ``reaction_ms``: per name how many counted reactions fell in each
  whole millisecond. SQL triggers on ``figures`` add and subtract them, so
  they can never drift from the rows they sum: SQLite keeps both in the
  same transaction, whoever writes.
- ``damaged``: the entries whose row is not a valid result, and why.
- ``unchecked``: entries changed since the journal last read them. Triggers
  on ``results`` fill it on every insert and update, whoever makes them (the
  journal itself clears it for what it writes, in the same transaction), so
  a row changed by another program (``sqlite3`` by hand, an old tool) is
  known: until the journal reads those rows again (a writable open, or the
  daemon's next write), readers make the figures the long way, from every
  row, and the answer stays exact.

Why these and not plain SQL aggregates over the rows, or running tallies
alone: ``GROUP BY`` over 200,000 sides costs about 50 ms, and a median over
the sorted reactions (``OFFSET``) walks half of them, another 45 ms, both
growing with the journal. Running sums alone cannot give a median. So the
sums are kept (O(names) to read), the best time is the first entry of an
index on ``figures`` (bot, name, reaction_us), and the median is found in
two steps: the millisecond it falls in from ``reaction_ms`` (O(milliseconds
with a press), a few hundred per name), then the reactions within that
millisecond from the same index (O(presses in it)). Each reading is thus
independent of the journal's length, and it is exact: the reactions
themselves decide, as ``statistics.median`` over all of them would.

The ``results`` rows themselves gain ``key_a`` and ``key_b``, the players'
names casefolded (Unicode, as names are compared), each with an index, so
``--player`` finds its showdowns newest first without reading any other.

>>> side_figures(7, {"players": {"a": "Ann", "b": "Bob"}, "bots": ["b"], "winner": "b",
...     "loser": "a", "reason": "faster", "reaction_us": {"a": 263000, "b": 241000}})
[(7, 'a', 'Ann', 'ann', 0, 0, 1, 0, 263000), (7, 'b', 'Bob', 'bob', 1, 1, 0, 0, 241000)]
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping
from itertools import groupby
from operator import itemgetter
from typing import Any

from firmware_host.protocol import Reason

__all__ = [
    "FIGURES_SCHEMA",
    "FIGURES_TABLES",
    "FIGURES_INDEXES",
    "FIGURES_TRIGGERS",
    "RowDamaged",
    "FiguresDamaged",
    "newest",
    "known_damaged",
    "side_figures",
    "keep",
    "keep_all",
    "kept_figures",
    "tally",
    "casefold",
    "Merged",
    "check_kept",
]

first = itemgetter(0)

#: The largest integer SQLite stores; a reaction beyond it is not counted.
_MAX_INT = 2**63 - 1

#: Version 4's tables beside ``results`` (see the module's docstring).
FIGURES_TABLES = [
    """CREATE TABLE figures (           -- one row per side of each valid result
        entry INTEGER NOT NULL,         -- results.entry
        side TEXT NOT NULL,             -- 'a' or 'b'
        name TEXT NOT NULL,             -- the player's name as the result has it
        name_key TEXT NOT NULL,         -- the name casefolded
        bot INTEGER NOT NULL,           -- 1: a bot played this side
        won INTEGER NOT NULL,
        lost INTEGER NOT NULL,
        false_start INTEGER NOT NULL,   -- 1: this side lost on a false start
        reaction_us INTEGER,            -- the reaction time that counts, else NULL
        PRIMARY KEY (entry, side)
    ) WITHOUT ROWID""",
    """CREATE TABLE tallies (           -- the sums of figures, per name (kept by triggers)
        bot INTEGER NOT NULL,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL,
        showdowns INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        losses INTEGER NOT NULL,
        false_starts INTEGER NOT NULL,
        timed INTEGER NOT NULL,         -- reactions that count
        PRIMARY KEY (bot, name)
    ) WITHOUT ROWID""",
    """CREATE TABLE reaction_ms (       -- counted reactions per whole millisecond (triggers)
        bot INTEGER NOT NULL,
        name TEXT NOT NULL,
        ms INTEGER NOT NULL,
        presses INTEGER NOT NULL,
        PRIMARY KEY (bot, name, ms)
    ) WITHOUT ROWID""",
    """CREATE TABLE damaged (           -- entries that are not a valid result
        entry INTEGER PRIMARY KEY,
        why TEXT NOT NULL
    )""",
    "CREATE TABLE unchecked (entry INTEGER PRIMARY KEY)  -- changed since last read",
]

#: Their indexes, and those of the casefolded names.
FIGURES_INDEXES = [
    "CREATE INDEX figures_reactions ON figures (bot, name, reaction_us)",
    "CREATE INDEX tallies_keys ON tallies (name_key)",
    "CREATE INDEX results_key_a ON results (key_a)",
    "CREATE INDEX results_key_b ON results (key_b)",
]

#: The triggers that keep the tallies and mark the rows changed.
FIGURES_TRIGGERS = [
    """CREATE TRIGGER figures_added AFTER INSERT ON figures BEGIN
        INSERT INTO tallies VALUES (NEW.bot, NEW.name, NEW.name_key, 1, NEW.won, NEW.lost,
                                    NEW.false_start, NEW.reaction_us IS NOT NULL)
            ON CONFLICT DO UPDATE SET showdowns = showdowns + 1, wins = wins + excluded.wins,
                losses = losses + excluded.losses,
                false_starts = false_starts + excluded.false_starts,
                timed = timed + excluded.timed;
        INSERT INTO reaction_ms
            SELECT NEW.bot, NEW.name, NEW.reaction_us / 1000, 1 WHERE NEW.reaction_us IS NOT NULL
            ON CONFLICT DO UPDATE SET presses = presses + 1;
    END""",
    """CREATE TRIGGER figures_removed AFTER DELETE ON figures BEGIN
        UPDATE tallies SET showdowns = showdowns - 1, wins = wins - OLD.won,
            losses = losses - OLD.lost, false_starts = false_starts - OLD.false_start,
            timed = timed - (OLD.reaction_us IS NOT NULL)
            WHERE bot = OLD.bot AND name = OLD.name;
        DELETE FROM tallies WHERE bot = OLD.bot AND name = OLD.name AND showdowns <= 0;
        UPDATE reaction_ms SET presses = presses - 1
            WHERE bot = OLD.bot AND name = OLD.name AND ms = OLD.reaction_us / 1000;
        DELETE FROM reaction_ms
            WHERE bot = OLD.bot AND name = OLD.name AND ms = OLD.reaction_us / 1000
            AND presses <= 0;
    END""",
    """CREATE TRIGGER results_added AFTER INSERT ON results BEGIN
        INSERT OR IGNORE INTO unchecked VALUES (NEW.entry);
    END""",
    """CREATE TRIGGER results_changed AFTER UPDATE ON results BEGIN
        INSERT OR IGNORE INTO unchecked VALUES (OLD.entry);
        INSERT OR IGNORE INTO unchecked VALUES (NEW.entry);
    END""",
    """CREATE TRIGGER results_removed AFTER DELETE ON results BEGIN
        DELETE FROM figures WHERE entry = OLD.entry;
        DELETE FROM damaged WHERE entry = OLD.entry;
        DELETE FROM unchecked WHERE entry = OLD.entry;
    END""",
]

#: All of version 4's, for a new journal.
FIGURES_SCHEMA = [*FIGURES_TABLES, *FIGURES_INDEXES, *FIGURES_TRIGGERS]

#: The columns of a results row that :func:`keep` reads: ``merged`` gets them.
ROW = "entry, showdown_id, player_a, player_b, body, launch, cards_counted"


class RowDamaged(ValueError):
    """A row whose body is not a valid result; the message says why."""


class FiguresDamaged(ValueError):
    """The kept figures do not add up (a damaged file); the message says where."""


def casefold(name):
    """A name as it is compared: Unicode case folding (SQLite's NOCASE knows only ASCII)."""
    return name.casefold() if isinstance(name, str) else name


def _counted(reaction) -> int | None:
    if isinstance(reaction, bool) or not isinstance(reaction, int):
        return None
    return reaction if 0 <= reaction <= _MAX_INT else None


def side_figures(entry: int, result: Mapping[str, Any]) -> list[tuple]:
    """The ``figures`` rows of a valid result: (entry, side, name, name_key,
    bot, won, lost, false_start, reaction_us) for each side."""
    false_start = result["reason"] == Reason.FALSE_START
    rows = []
    for side in ("a", "b"):
        name = result["players"][side]
        lost = result["loser"] == side
        rows.append(
            (
                entry,
                side,
                name,
                casefold(name),
                int(side in result["bots"]),
                int(result["winner"] == side),
                int(lost),
                int(false_start and lost),
                None if false_start else _counted(result["reaction_us"][side]),
            )
        )
    return rows


Merged = Callable[[str, Any, "str | None", "int | None"], dict]


def keep(db, entry: int, merged: Merged) -> None:
    """Make what is kept for ``entry`` (its keys, figures or damage) agree with
    its row as it is now, inside the caller's transaction; a row that is gone
    keeps nothing. ``merged(showdown_id, body, launch, cards_counted)`` is the
    valid result of a row, or RowDamaged."""
    db.execute("DELETE FROM figures WHERE entry = ?", (entry,))
    db.execute("DELETE FROM damaged WHERE entry = ?", (entry,))
    row = db.execute(f"SELECT {ROW} FROM results WHERE entry = ?", (entry,)).fetchone()
    if row is not None:
        _keep_row(db, row, merged)
    db.execute("DELETE FROM unchecked WHERE entry = ?", (entry,))


def _keep_row(db, row, merged: Merged) -> None:
    entry, showdown_id, player_a, player_b, body, launch, counted = row
    keys = (casefold(player_a), casefold(player_b))
    db.execute(
        "UPDATE results SET key_a = ?, key_b = ? WHERE entry = ? "
        "AND (key_a IS NOT ? OR key_b IS NOT ?)",
        (*keys, entry, *keys),
    )
    try:
        result = merged(showdown_id, body, launch, counted)
    except RowDamaged as exc:
        db.execute("INSERT INTO damaged VALUES (?, ?)", (entry, str(exc)))
        return
    db.executemany(
        "INSERT INTO figures VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", side_figures(entry, result)
    )


def keep_all(db, merged: Merged, *, batch: int = 5000) -> None:
    """What is kept for every row, in the caller's transaction (the upgrade
    to version 4): ``FIGURES_TABLES`` are there and empty, the keys filled,
    and neither the indexes nor the triggers made yet. The figures go in a
    batch of rows at a time, the tallies are summed from them once (faster
    than a trigger per row), then the indexes and the triggers are made."""
    rows = db.execute(f"SELECT {ROW} FROM results ORDER BY entry")
    while chunk := rows.fetchmany(batch):
        figures, damaged = [], []
        for entry, showdown_id, _, _, body, launch, counted in chunk:
            try:
                result = merged(showdown_id, body, launch, counted)
            except RowDamaged as exc:
                damaged.append((entry, str(exc)))
                continue
            figures += side_figures(entry, result)
        db.executemany("INSERT INTO figures VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", figures)
        db.executemany("INSERT INTO damaged VALUES (?, ?)", damaged)
    db.execute(
        "INSERT INTO tallies SELECT bot, name, name_key, COUNT(*), SUM(won), SUM(lost), "
        "SUM(false_start), COUNT(reaction_us) FROM figures GROUP BY bot, name"
    )
    db.execute(
        "INSERT INTO reaction_ms SELECT bot, name, reaction_us / 1000, COUNT(*) FROM figures "
        "WHERE reaction_us IS NOT NULL GROUP BY 1, 2, 3"
    )
    for statement in (*FIGURES_INDEXES, *FIGURES_TRIGGERS):
        db.execute(statement)


# -- reading ---------------------------------------------------------------------------


def newest(db, columns: str, key: str | None):
    """The rows of ``results`` (``columns``), newest first, read as they are
    taken: every row, or those where either player's name casefolds to
    ``key`` (the two key indexes, merged)."""
    if key is None:
        return db.execute(f"SELECT {columns} FROM results ORDER BY entry DESC")
    return db.execute(
        f"SELECT {columns} FROM results WHERE key_a = ? "
        f"UNION SELECT {columns} FROM results WHERE key_b = ? ORDER BY entry DESC",
        (key, key),
    )


def known_damaged(db, key: str | None) -> dict[int, str]:
    """The entries kept as damaged, and why: all, or those of rows where
    either player's name casefolds to ``key``."""
    rows = db.execute(
        "SELECT damaged.entry, why, key_a, key_b FROM damaged "
        "JOIN results ON results.entry = damaged.entry"
    )
    return {entry: why for entry, why, key_a, key_b in rows if key is None or key in (key_a, key_b)}


def kept_figures(db, key: str | None) -> tuple[dict, dict]:
    """The figures of people and of bots (``history``'s ``players`` and
    ``bots``) from what is kept: every name, or the names whose casefold is
    ``key``. Call it inside a read transaction, so every query sees one state."""
    where, params = ("WHERE name_key = ?", (key,)) if key is not None else ("", ())
    rows = db.execute(
        f"SELECT bot, name, showdowns, wins, losses, false_starts, timed FROM tallies {where}",
        params,
    ).fetchall()
    people: dict[str, dict] = {}
    bots: dict[str, dict] = {}
    for bot, name, showdowns, wins, losses, false_starts, timed in sorted(
        rows, key=lambda row: row[1]
    ):
        (bots if bot else people)[name] = {
            "showdowns": showdowns,
            "median_reaction_us": _median(db, bot, name, timed),
            "best_reaction_us": _best(db, bot, name) if timed else None,
            "false_starts": false_starts,
            "wins": wins,
            "losses": losses,
        }
    return people, bots


def _best(db, bot: int, name: str) -> int:
    return db.execute(
        "SELECT reaction_us FROM figures WHERE bot = ? AND name = ? AND reaction_us IS NOT NULL "
        "ORDER BY reaction_us LIMIT 1",
        (bot, name),
    ).fetchone()[0]


def _median(db, bot: int, name: str, timed: int) -> int | None:
    """The median of a name's ``timed`` counted reactions, rounded as
    ``round(statistics.median(...))``: the millisecond holding the middle one
    from ``reaction_ms``, then the middle one (two, for an even count) from the
    index, from that millisecond on."""
    if not timed:
        return None
    middle = (timed - 1) // 2  # the lower middle, counted from 0
    found = db.execute(
        "SELECT ms, total - presses FROM (SELECT ms, presses, SUM(presses) OVER "
        "(ORDER BY ms) AS total FROM reaction_ms WHERE bot = ? AND name = ?) "
        "WHERE total > ? ORDER BY ms LIMIT 1",
        (bot, name, middle),
    ).fetchone()
    if found is None:
        raise FiguresDamaged(f"the reactions kept for {name!r} do not add up to {timed}")
    ms, before = found
    values = [
        row[0]
        for row in db.execute(
            "SELECT reaction_us FROM figures WHERE bot = ? AND name = ? AND reaction_us >= ? "
            "ORDER BY reaction_us LIMIT ? OFFSET ?",
            (bot, name, ms * 1000, 2 - timed % 2, middle - before),
        )
    ]
    if not values:
        raise FiguresDamaged(f"the reactions kept for {name!r} do not add up to {timed}")
    return round(statistics.median(values))


def tally(results: Iterable[Mapping[str, Any]], key: str | None) -> tuple[dict, dict]:
    """The figures of people and of bots made from ``results`` themselves
    (every side, or the sides whose name casefolds to ``key``): the long way,
    for a journal whose figures are not kept (an older version read-only, or
    rows another program changed), and what ``journal check`` compares the
    kept figures with."""
    tallies: tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]] = ({}, {})
    for result in results:
        for _, _, name, name_key, bot, won, lost, false_start, reaction in side_figures(0, result):
            if key is not None and name_key != key:
                continue
            kept = tallies[bot].setdefault(
                name,
                {"showdowns": 0, "reactions": [], "false_starts": 0, "wins": 0, "losses": 0},
            )
            kept["showdowns"] += 1
            kept["wins"] += won
            kept["losses"] += lost
            kept["false_starts"] += false_start
            if reaction is not None:
                kept["reactions"].append(reaction)
    people, bots = (_figures(kind) for kind in tallies)
    return people, bots


def _figures(tallies: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each name's tally as its figures, names in order."""
    stats = {}
    for name in sorted(tallies):
        kept = tallies[name]
        reactions = kept["reactions"]
        stats[name] = {
            "showdowns": kept["showdowns"],
            "median_reaction_us": round(statistics.median(reactions)) if reactions else None,
            "best_reaction_us": min(reactions) if reactions else None,
            "false_starts": kept["false_starts"],
            "wins": kept["wins"],
            "losses": kept["losses"],
        }
    return stats


# -- checking --------------------------------------------------------------------------


def check_kept(db, rows: Iterable[tuple[int, list[tuple] | None]]) -> list[str]:
    """What disagrees between the kept figures and the rows (for ``journal
    check``). ``rows``: (entry, its :func:`side_figures`, or None if it is
    damaged) for every row in entry order, read along with the kept figures.
    A row another program changed (``unchecked``) is not held against them.
    Each problem is one sentence."""
    unchecked = {row[0] for row in db.execute("SELECT entry FROM unchecked")}
    kept_rows = db.execute("SELECT * FROM figures ORDER BY entry, side")
    groups = (
        (entry, [tuple(row) for row in group]) for entry, group in groupby(kept_rows, key=first)
    )
    stale, damaged = [], []
    waiting = next(groups, None)
    for entry, expected in rows:
        while waiting is not None and waiting[0] < entry:  # figures of no row
            stale.append(waiting[0])
            waiting = next(groups, None)
        found: list[tuple] = []
        if waiting is not None and waiting[0] == entry:
            found, waiting = waiting[1], next(groups, None)
        if expected is None:
            damaged.append(entry)
        if found != (expected or []) and entry not in unchecked:
            stale.append(entry)
    while waiting is not None:
        stale.append(waiting[0])
        waiting = next(groups, None)
    problems = []
    if stale:
        problems.append(f"the figures of {_entries(sorted(stale))} differ from the results")
    marked = {row[0] for row in db.execute("SELECT entry FROM damaged")}
    unmarked = sorted((set(damaged) ^ marked) - unchecked)
    if unmarked:
        problems.append(f"{_entries(unmarked)} kept as damaged or not, wrongly")
    summed = db.execute(
        "SELECT bot, name, name_key, COUNT(*), SUM(won), SUM(lost), SUM(false_start), "
        "COUNT(reaction_us) FROM figures GROUP BY bot, name ORDER BY bot, name"
    ).fetchall()
    if summed != db.execute("SELECT * FROM tallies ORDER BY bot, name").fetchall():
        problems.append("the tallies differ from the sums of the figures")
    per_ms = db.execute(
        "SELECT bot, name, reaction_us / 1000, COUNT(*) FROM figures "
        "WHERE reaction_us IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
    ).fetchall()
    if per_ms != db.execute("SELECT * FROM reaction_ms ORDER BY bot, name, ms").fetchall():
        problems.append("the reactions per millisecond differ from the figures")
    return problems


def _entries(entries: list[int]) -> str:
    shown = ", ".join(map(str, entries[:10]))
    more = f" and {len(entries) - 10} more" if len(entries) > 10 else ""
    return f"{'entry' if len(entries) == 1 else 'entries'} {shown}{more}"
