"""Standings kept as results arrive: the tallies one batch adds, and the median
read back from a reaction histogram.

Every outcome of a stored result adds to four summary rows of its player
(name and bot flag): its venue and day, its venue on every day, every venue
on its day, and every venue on every day (:data:`ALL` stands for "every").
A standings read, whatever its filters, then reads exactly one row per
player, sorted and cut to the limit: no grouping and no median at read time,
so it takes the same time at 100 results as at a million.

The median is kept in the row too: each row holds its player's reaction
histogram in 1 ms buckets (:func:`pack_histogram`: a few hundred bytes), and a
batch that adds to a row reads it, adds, and writes it back with its new
median, the lower median of the measured reactions floored to the
millisecond (``median_us`` is a whole number of milliseconds, in µs).

Pure Python, no database: the store backends run the SQL.

>>> from firmware_host.protocol.league import Outcome
>>> tally = Tally()
>>> tally.add(Outcome("Ann", False, "win", False, 231_400), "showdown")
>>> tally.add(Outcome("Ann", False, "loss", True, None), "showdown")
>>> (tally.showdowns, tally.wins, tally.losses, tally.false_starts, tally.reactions, tally.best_us)
(2, 1, 1, 1, 1, 231400)
>>> median_us({231: 1, 240: 2, 300: 1})
240000
>>> unpack_histogram(pack_histogram({231: 1, 240: 2}))
{231: 1, 240: 2}
"""

from __future__ import annotations

import re
import sys
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware_host.protocol.league import Outcome, ResultMessage, clean_place

__all__ = [
    "ALL",
    "STANDING_FIELDS",
    "MAX_REACTION_US",
    "Tally",
    "TallyKey",
    "tally_batch",
    "median_us",
    "reaction_bucket",
    "pack_histogram",
    "unpack_histogram",
    "check_filters",
    "sort_key",
]

#: The venue or day of a summary row that counts every venue, or every day.
#: No venue (:func:`clean_place`) and no day (``YYYY-MM-DD``) can be spelled so.
ALL = "*"
#: What :meth:`Store.standings` gives for each player, in this order.
STANDING_FIELDS = (
    "player",
    "bot",
    "showdowns",
    "wins",
    "losses",
    "false_starts",
    "reactions",
    "median_us",
    "best_us",
    "matches",
    "match_wins",
)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
#: (venue, day, player, bot) of a summary row.
TallyKey = tuple[str, str, str, bool]
#: The longest reaction a store takes (about 36 minutes): a bucket and its count
#: are kept in 32 bits, and the wire itself sets no bound.
MAX_REACTION_US = 2**31 - 1


@dataclass
class Tally:
    """What one player's summary row counts (or what a batch adds to it)."""

    showdowns: int = 0
    wins: int = 0
    losses: int = 0
    false_starts: int = 0
    reactions: int = 0  # measured reactions: what the median and best are of
    best_us: int | None = None
    matches: int = 0
    match_wins: int = 0
    histogram: dict[int, int] = field(default_factory=dict)  # ms bucket -> reactions

    @property
    def median_us(self) -> int | None:
        return median_us(self.histogram)

    def merge(self, other: Tally) -> None:
        """Adds what ``other`` counts to this one."""
        self.showdowns += other.showdowns
        self.wins += other.wins
        self.losses += other.losses
        self.false_starts += other.false_starts
        self.reactions += other.reactions
        if other.best_us is not None and (self.best_us is None or other.best_us < self.best_us):
            self.best_us = other.best_us
        self.matches += other.matches
        self.match_wins += other.match_wins
        for ms, count in other.histogram.items():
            self.histogram[ms] = self.histogram.get(ms, 0) + count

    def add(self, outcome: Outcome, kind: str) -> None:
        if kind == "match":
            # A match counts in matches alone: its seats have no showdown figures.
            self.matches += 1
            self.match_wins += outcome.outcome == "win"
            return
        self.showdowns += 1
        self.wins += outcome.outcome == "win"
        self.losses += outcome.outcome == "loss"
        self.false_starts += outcome.false_start
        if outcome.reaction_us is not None:
            self.reactions += 1
            if self.best_us is None or outcome.reaction_us < self.best_us:
                self.best_us = outcome.reaction_us
            ms = reaction_bucket(outcome.reaction_us)
            self.histogram[ms] = self.histogram.get(ms, 0) + 1


def reaction_bucket(reaction_us: int) -> int:
    """The histogram bucket of a reaction: its whole milliseconds."""
    return reaction_us // 1000


def tally_batch(messages: Iterable[ResultMessage]) -> dict[TallyKey, Tally]:
    """The additions of ``messages`` (each stored for the first time) to every
    summary row they touch, at the four levels."""
    rows: dict[TallyKey, Tally] = {}
    for message in messages:
        day = message.day
        levels = ((message.venue, day), (message.venue, ALL), (ALL, day), (ALL, ALL))
        for outcome in message.outcomes:
            for venue, level_day in levels:
                key = (venue, level_day, outcome.player, outcome.bot)
                rows.setdefault(key, Tally()).add(outcome, message.kind)
    return rows


def median_us(histogram: Mapping[int, int]) -> int | None:
    """The lower median of a histogram (ms bucket -> count), in µs (floored
    to the ms); None for an empty one."""
    total = sum(histogram.values())
    if total == 0:
        return None
    wanted, running = (total + 1) // 2, 0
    for ms in sorted(histogram):
        running += histogram[ms]
        if running >= wanted:
            return ms * 1000
    raise AssertionError("unreachable: the running count reaches the total")


def pack_histogram(histogram: Mapping[int, int]) -> bytes:
    """A histogram as bytes: (ms, count) pairs in ms order, 32-bit little-endian."""
    pairs = array("I", [number for ms in sorted(histogram) for number in (ms, histogram[ms])])
    if sys.byteorder == "big":
        pairs.byteswap()
    return pairs.tobytes()


def unpack_histogram(packed: bytes) -> dict[int, int]:
    pairs = array("I")
    pairs.frombytes(bytes(packed))
    if sys.byteorder == "big":
        pairs.byteswap()
    return dict(zip(pairs[::2], pairs[1::2], strict=True))


def check_filters(venue: str | None, day: str | None, bots: bool | None, limit: int) -> None:
    """ValueError (with words) for a standings filter that is not one."""
    if venue is not None:
        clean_place(venue, "venue")
    if day is not None and (not isinstance(day, str) or not _DAY.fullmatch(day)):
        raise ValueError(f"day must be YYYY-MM-DD, not {day!r}")
    if bots not in (None, True, False):
        raise ValueError(f"bots must be true, false or none, not {bots!r}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000:
        raise ValueError(f"limit must be a whole number from 1 to 10000, not {limit!r}")


def sort_key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """The standings order: wins (most first), then best reaction (fastest
    first, none last), then match wins, then name; the SQL sorts the same way."""
    best = row["best_us"]
    return (
        -row["wins"],
        best is None,
        best or 0,
        -row["match_wins"],
        row["player"],
        row["bot"],
    )
