"""A unit's results as the history page reads them, and each player's figures from them.

The unit keeps every showdown in its journal and sends the latest with the
protocol's ``history`` command (docs/protocol.md): results newest first, each
with ``recorded_at``, and ``damaged``, the journal entries it skipped because
they could not be read. This module turns that reply into plain rows
(:class:`HistoryRow`) and the rows into each player's figures
(:class:`PlayerHistory`): the reaction time of every showdown in order, their
distribution in bins, wins, losses, false starts, the median and the best.

- A reaction time counts, as in the unit's own figures, when the press came at
  or after GO in a showdown that was not a false start.
- A side a bot played (the unit pressed its paddle; a result's ``bots``)
  counts for that name among the bots, never among the people: a bot's times
  never go into a person's median. A name that played both ways is in both.
- A row this end cannot read is skipped and said (``History.skipped``), as
  the unit skips a damaged journal entry (``History.damaged``): the others
  still count.

Two sources give the same rows: :class:`UnitHistory` fetches a unit's
journal over the link (:class:`~engine.units.unit_link.UnitLink`, with its
token), and :class:`HistoryBook` is what a table with no unit (``--unit sim``
or ``manual``) records each showdown into, as ``(request, outcome)``.

>>> book = HistoryBook(now=lambda: 1764525851.0)
>>> request = ShowdownRequest("m1:r1:s1", 0, 1, "Ann", "bot2", 2, bots={1: 250})
>>> book.record(request, ShowdownOutcome(0, 1, Reason.FASTER, {0: 263000, 1: 241000}, 22000))
>>> people, bots = player_histories(book.history().rows)
>>> people["Ann"].summary
'Ann: 1 showdown, 0 wins, 1 loss, 0 false starts; median reaction 263.0 ms, best 263.0 ms.'
>>> bots["bot2"].summary
'bot2 (bot): 1 showdown, 1 win, 0 losses, 0 false starts; median reaction 241.0 ms, best 241.0 ms.'
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import math
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from engine.game.errors import UnitProblem, UnitUnreachable, UnitVersionError
from engine.units.ports import ShowdownOutcome, ShowdownRequest, UnitPort
from engine.units.unit_link import (
    SWITCHED_ON,
    AuthFailed,
    CommandRefused,
    LinkLost,
    Port,
    UnitLink,
    VersionMismatch,
)
from engine.units.unit_replies import Malformed, check_reply
from firmware_host.people.words import ms, noun, plural
from firmware_host.protocol import Reason

__all__ = [
    "HistoryRow",
    "History",
    "Point",
    "Bin",
    "PlayerHistory",
    "parse_history",
    "player_histories",
    "reaction_bins",
    "history_document",
    "check_limit",
    "UnitHistory",
    "HistoryBook",
    "MAX_LIMIT",
    "DEFAULT_LIMIT",
    "OUTCOMES",
]

#: The most results one ``history`` request may ask for (the protocol's limit).
MAX_LIMIT = 1000
#: How many results the history page asks for unless told.
DEFAULT_LIMIT = 1000
#: How a showdown ended for one player: won, lost (slower), lost by a false
#: start of theirs, or no loser at all (a timeout, a void tie).
OUTCOMES = ("won", "lost", "false_start", "undecided")
#: The widths a histogram's bins may have, in ms: the first that gives at most
#: ``MAX_BINS`` bins is used.
BIN_WIDTHS_MS = (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)
MAX_BINS = 12
#: What marks a bot's name in words.
BOT_MARK = " (bot)"
_SIDES = ("a", "b")
#: The URLs of a unit on the network, where a second link is a second client.
_NETWORK_SCHEMES = ("socket://", "rfc2217://")


# -- rows ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class HistoryRow:
    """One showdown of the history: when the unit recorded it (ISO 8601 UTC,
    ``2025-11-30T18:04:11Z``), its id, the players by side, the sides a bot
    played, the verdict and each side's reaction (us after GO, None if it
    never pressed)."""

    recorded_at: str
    showdown_id: str
    players: Mapping[str, str]
    bots: tuple[str, ...]
    winner: str | None
    loser: str | None
    reason: Reason
    reaction_us: Mapping[str, int | None]
    cards: int

    @classmethod
    def from_result(cls, item: Any) -> HistoryRow:
        """The row of one result of a ``history`` reply; ValueError naming
        the field if it is not one. A unit from before bots sends no
        ``bots``: people played both sides."""
        if not isinstance(item, Mapping):
            raise ValueError(f"not a result but {type(item).__name__}")
        if "recorded_at" not in item:
            raise ValueError("missing field 'recorded_at'")
        recorded_at = item["recorded_at"]
        if not isinstance(recorded_at, str) or _parse_time(recorded_at) is None:
            raise ValueError(
                f"field 'recorded_at' must be a time like 2025-11-30T18:04:11Z, not {recorded_at!r}"
            )
        result = {key: value for key, value in item.items() if key != "recorded_at"}
        try:
            check_reply("result", {"result": result})
        except Malformed as exc:
            text = str(exc).replace("field 'result.", "field '")
            raise ValueError(text.replace("field 'result' ", "the result ")) from None
        return cls(
            recorded_at=recorded_at,
            showdown_id=result["showdown_id"],
            players={side: result["players"][side] for side in _SIDES},
            bots=tuple(result.get("bots") or ()),
            winner=result["winner"],
            loser=result["loser"],
            reason=Reason(result["reason"]),  # checked above: one of the protocol's
            reaction_us={side: result["reaction_us"][side] for side in _SIDES},
            cards=result["cards"],
        )

    def outcome(self, side: str) -> str:
        """How it ended for ``side``: one of :data:`OUTCOMES`."""
        if self.winner == side:
            return "won"
        if self.loser == side:
            return "false_start" if self.reason is Reason.FALSE_START else "lost"
        return "undecided"

    def timed_us(self, side: str) -> int | None:
        """``side``'s reaction if it counts (a press at or after GO, not in a false start)."""
        reaction = self.reaction_us[side]
        if self.reason is Reason.FALSE_START or reaction is None or reaction < 0:
            return None
        return reaction


def _parse_time(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclasses.dataclass(frozen=True)
class History:
    """What a source gave: ``rows`` newest first; ``damaged``, the journal
    entries the unit skipped; ``skipped``, why each row this end could not
    read was left out; ``source``, where it came from; ``limit``, how many
    were asked for (as many rows as that: older ones may exist)."""

    rows: tuple[HistoryRow, ...]
    source: str
    limit: int
    damaged: tuple[int, ...] = ()
    skipped: tuple[str, ...] = ()

    @property
    def more(self) -> bool:
        """Whether older showdowns than these may exist (the limit was reached)."""
        return len(self.rows) + len(self.skipped) >= self.limit


def parse_history(document: Mapping[str, Any], *, source: str, limit: int) -> History:
    """A ``history`` reply (or :meth:`HistoryBook.document`) as a :class:`History`;
    a row that is not a valid result is skipped, with why.

    >>> history = parse_history({"results": [{"showdown_id": "g1"}], "damaged": [4]},
    ...                         source="the unit", limit=50)
    >>> history.rows, history.damaged, history.skipped
    ((), (4,), ("row 1 (g1): missing field 'recorded_at'",))
    """
    rows, skipped = [], []
    for index, item in enumerate(document.get("results") or (), 1):
        try:
            rows.append(HistoryRow.from_result(item))
        except ValueError as exc:
            named = item.get("showdown_id") if isinstance(item, Mapping) else None
            label = f"row {index} ({named})" if isinstance(named, str) else f"row {index}"
            skipped.append(f"{label}: {exc}")
    damaged = document.get("damaged") or ()
    return History(
        rows=tuple(rows),
        source=source,
        limit=limit,
        damaged=tuple(entry for entry in damaged if isinstance(entry, int)),
        skipped=tuple(skipped),
    )


# -- figures ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Point:
    """One showdown of one player: its number among the player's showdowns
    (1 the oldest), when, its id, the reaction that counts (None: none), the
    outcome (:data:`OUTCOMES`), the result's reason and the opponent."""

    n: int
    recorded_at: str
    showdown_id: str
    reaction_us: int | None
    outcome: str
    reason: Reason
    against: str
    against_bot: bool

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Bin:
    """A histogram bin: reactions from ``from_us`` (included) to ``to_us`` (not)."""

    from_us: int
    to_us: int
    count: int

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def reaction_bins(reactions_us: Iterable[int], max_bins: int = MAX_BINS) -> tuple[Bin, ...]:
    """The reactions counted in bins of one round width (5, 10, 20, 25, 50,
    100, ... ms, the narrowest that needs at most ``max_bins``), from the bin
    of the fastest to the bin of the slowest, empty bins included.

    >>> [(b.from_us // 1000, b.to_us // 1000, b.count)
    ...  for b in reaction_bins([201000, 263000, 241000, 249999])]
    [(200, 210, 1), (210, 220, 0), (220, 230, 0), (230, 240, 0), (240, 250, 2), (250, 260, 0), \
(260, 270, 1)]
    """
    values = sorted(reactions_us)
    if not values:
        return ()
    low, high = values[0], values[-1]
    width = 0
    for width_ms in BIN_WIDTHS_MS:
        width = width_ms * 1000
        if high // width - low // width + 1 <= max_bins:
            break
    else:  # wider than every round width allows: whole seconds
        width = math.ceil((high - low + 1) / max_bins / 1_000_000) * 1_000_000
    start = low // width * width
    counts = collections.Counter((value - start) // width for value in values)
    size = (high - start) // width + 1
    return tuple(
        Bin(start + i * width, start + (i + 1) * width, counts.get(i, 0)) for i in range(size)
    )


@dataclasses.dataclass(frozen=True)
class PlayerHistory:
    """One name's figures over the rows, as a person or as a bot (``bot``)."""

    name: str
    bot: bool
    showdowns: int
    wins: int
    losses: int
    false_starts: int
    undecided: int
    median_reaction_us: int | None
    best_reaction_us: int | None
    points: tuple[Point, ...]
    bins: tuple[Bin, ...]

    @property
    def timed(self) -> list[int]:
        """The reactions that count, oldest first."""
        return [p.reaction_us for p in self.points if p.reaction_us is not None]

    @property
    def summary(self) -> str:
        """The figures in one sentence: the charts' text alternative."""
        counts = [
            plural(self.showdowns, "showdown"),
            plural(self.wins, "win"),
            plural(self.losses, "loss", "losses"),
            plural(self.false_starts, "false start"),
        ]
        if self.undecided:
            counts.append(f"{self.undecided} without a loser")
        name = self.name + (BOT_MARK if self.bot else "")
        timed = self.timed
        if not timed:
            return f"{name}: {', '.join(counts)}; no timed press yet."
        spread = ""
        if len(timed) > 1:
            spread = (
                f" ({plural(len(timed), 'timed press', 'timed presses')}, from "
                f"{ms(min(timed))} to {ms(max(timed))})"
            )
        return (
            f"{name}: {', '.join(counts)}; median reaction {ms(self.median_reaction_us)}, "
            f"best {ms(self.best_reaction_us)}{spread}."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "bot": self.bot,
            "showdowns": self.showdowns,
            "wins": self.wins,
            "losses": self.losses,
            "false_starts": self.false_starts,
            "undecided": self.undecided,
            "median_reaction_us": self.median_reaction_us,
            "best_reaction_us": self.best_reaction_us,
            "summary": self.summary,
            "points": [point.to_dict() for point in self.points],
            "bins": [b.to_dict() for b in self.bins],
        }


def player_histories(
    rows: Sequence[HistoryRow],
) -> tuple[dict[str, PlayerHistory], dict[str, PlayerHistory]]:
    """The people's figures and the bots', per name (names in order, without
    regard to case), from ``rows`` newest first as a source gives them."""
    found: tuple[dict[str, list[Point]], dict[str, list[Point]]] = ({}, {})
    for row in reversed(rows):  # oldest first
        for side in _SIDES:
            other = "b" if side == "a" else "a"
            points = found[side in row.bots].setdefault(row.players[side], [])
            points.append(
                Point(
                    n=len(points) + 1,
                    recorded_at=row.recorded_at,
                    showdown_id=row.showdown_id,
                    reaction_us=row.timed_us(side),
                    outcome=row.outcome(side),
                    reason=row.reason,
                    against=row.players[other],
                    against_bot=other in row.bots,
                )
            )
    people, bots = (
        {name: _figures(name, kind is found[1], kind[name]) for name in _in_order(kind)}
        for kind in found
    )
    return people, bots


def _in_order(names: Iterable[str]) -> list[str]:
    return sorted(names, key=lambda name: (name.casefold(), name))


def _figures(name: str, bot: bool, points: list[Point]) -> PlayerHistory:
    outcomes = collections.Counter(point.outcome for point in points)
    timed = [p.reaction_us for p in points if p.reaction_us is not None]
    return PlayerHistory(
        name=name,
        bot=bot,
        showdowns=len(points),
        wins=outcomes["won"],
        losses=outcomes["lost"] + outcomes["false_start"],
        false_starts=outcomes["false_start"],
        undecided=outcomes["undecided"],
        median_reaction_us=round(statistics.median(timed)) if timed else None,
        best_reaction_us=min(timed) if timed else None,
        points=tuple(points),
        bins=reaction_bins(timed),
    )


def history_document(history: History) -> dict[str, Any]:
    """What the history page reads (``/history.json``): where from, how many
    showdowns, what was skipped, and the people's and the bots' figures."""
    people, bots = player_histories(history.rows)
    notes = list(history.skipped)
    if history.damaged:
        count = len(history.damaged)
        notes.append(
            f"{count} damaged journal {noun(count, 'row')} skipped on the unit "
            f"({noun(count, 'entry', 'entries')} {', '.join(map(str, history.damaged))}): "
            "run showdown-unit journal check on the unit"
        )
    return {
        "source": history.source,
        "limit": history.limit,
        "showdowns": len(history.rows),
        "more": history.more,
        "first_at": history.rows[-1].recorded_at if history.rows else None,
        "last_at": history.rows[0].recorded_at if history.rows else None,
        "damaged": list(history.damaged),
        "skipped": list(history.skipped),
        "notes": notes,
        "people": [figures.to_dict() for figures in people.values()],
        "bots": [figures.to_dict() for figures in bots.values()],
    }


def check_limit(limit: int) -> int:
    """``limit`` if a ``history`` request may ask for that many, else ValueError."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be a whole number from 1 to {MAX_LIMIT}, not {limit!r}")
    return limit


# -- the sources -----------------------------------------------------------------------


class UnitHistory:
    """A unit's journal, fetched over a link of its own at each :meth:`history`
    (``url`` and ``token`` as for :class:`~engine.units.remote.RemoteUnit`;
    the table's own link stays free for its showdowns). Every failure is a
    :class:`~engine.game.errors.UnitProblem` saying what happened and what to
    do: unreachable, no or a wrong token, no common protocol version, the
    ``history`` command refused, a reply out of shape or too late.

    A serial line has room for one peer: while the table fights its
    showdowns over a serial device, a second link there would take the
    other's bytes. So a unit on a serial device is refused (said, with what
    to do) unless ``serial_ok`` (nobody else holds the line)."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        baudrate: int = 115200,
        reply_timeout_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        open_port: Callable[..., Port] | None = None,
        serial_ok: bool = False,
    ):
        self.url = url
        self.token = token
        self.serial_ok = serial_ok
        # UnitLink's keyword arguments, of mixed types.
        self._link_options: dict[str, Any] = dict(
            baudrate=baudrate,
            token=token,
            reply_timeout_s=reply_timeout_s,
            clock=clock,
            sleep=sleep,
            open_port=open_port,
        )

    def __repr__(self) -> str:
        return f"UnitHistory({self.url!r})"

    @property
    def source(self) -> str:
        return f"the unit at {self.url}"

    def history(self, limit: int = DEFAULT_LIMIT) -> History:
        """The unit's latest ``limit`` results (blocking: call it in a worker thread)."""
        check_limit(limit)
        if not self.serial_ok and not self.url.lower().startswith(_NETWORK_SCHEMES):
            raise UnitProblem(
                f"the history cannot be read from the unit at {self.url} while the table "
                "fights its showdowns there: a serial line has room for one peer",
                url=self.url,
                what_to_do=(
                    "Read it on the unit (showdown-unit history), or connect the table to the "
                    "unit over the network (--unit socket://HOST:PORT)."
                ),
            )
        link = UnitLink(self.url, **self._link_options)
        try:
            link.open()
            document = link.call("history", limit=limit)
        except LinkLost as exc:
            failure = link.failure
            what_to_do = (
                failure.what_to_do
                if failure is not None
                else f"{SWITCHED_ON}, and the cable or network, then retry."
            )
            raise UnitUnreachable(
                f"cannot read the history of the unit at {self.url}: {exc}",
                url=self.url,
                what_to_do=what_to_do,
            ) from None
        except AuthFailed as exc:
            raise UnitProblem(
                str(exc),
                url=self.url,
                what_to_do=(
                    "Give the table the unit's token: --token-file FILE, where FILE holds the "
                    "token of the unit's server.token_file (on a Pi, /etc/uno-showdown/token)."
                ),
            ) from None
        except VersionMismatch as exc:
            raise UnitVersionError(
                str(exc),
                url=self.url,
                what_to_do="Update the older of the table and the unit.",
            ) from None
        except CommandRefused as exc:
            raise UnitProblem(
                f"the unit at {self.url} refused history: {exc.message} ({exc.code})",
                url=self.url,
                what_to_do="Check the unit's log.",
            ) from None
        finally:
            link.close()
        return parse_history(document, source=self.source, limit=limit)


class HistoryBook:
    """The history of a table with no unit: each showdown the table fights
    (:meth:`record`, or a port wrapped with :meth:`recording`) becomes a row
    of the same shape as a unit's, side ``a`` the challenger and ``b`` the
    opponent as on a unit, the players in ``request.bots`` marked as bots.
    Kept in memory (the latest ``capacity``), for this server's life.
    ``now`` gives the time of each record (Unix seconds). Safe to record
    from the worker thread and read from the event loop."""

    def __init__(
        self,
        *,
        capacity: int = MAX_LIMIT,
        now: Callable[[], float] = time.time,
        source: str = "this table's showdowns (no unit: kept until the server stops)",
    ):
        self.now = now
        self.source = source
        self._results: collections.deque[dict[str, Any]] = collections.deque(maxlen=capacity)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._results)

    def record(self, request: ShowdownRequest, outcome: ShowdownOutcome) -> None:
        """Keep the showdown ``request`` and how it ended."""
        outcome.check(request)
        side = {request.challenger: "a", request.opponent: "b"}
        moment = datetime.fromtimestamp(self.now(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        result = {
            "recorded_at": moment,
            "showdown_id": request.showdown_id,
            "players": {"a": request.challenger_name, "b": request.opponent_name},
            "bots": sorted(side[player] for player in request.bots),
            "winner": side[outcome.winner],
            "loser": side[outcome.loser],
            "reason": outcome.reason,
            "tie_reruns": outcome.tie_reruns,
            "reaction_us": {side[p]: outcome.reaction_us.get(p) for p in request.players},
            "margin_us": outcome.margin_us,
            "cards": request.cards,
            "launch": "launched",
            "cards_counted": None,
        }
        with self._lock:
            self._results.appendleft(result)

    def document(self, limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
        """The latest ``limit`` results, newest first, as a unit's ``history`` reply has them."""
        check_limit(limit)
        with self._lock:
            results = [dict(result) for result in itertools.islice(self._results, limit)]
        return {"results": results, "damaged": []}

    def history(self, limit: int = DEFAULT_LIMIT) -> History:
        return parse_history(self.document(limit), source=self.source, limit=limit)

    def recording(self, port: UnitPort) -> UnitPort:
        """``port``, with every showdown it fights recorded here."""
        return _Recording(port, self)


class _Recording:
    """A unit port that records each outcome of ``port`` in ``book``; every
    other attribute is ``port``'s (its hooks, its ``hello``, ...)."""

    def __init__(self, port: UnitPort, book: HistoryBook):
        self.port = port
        self.book = book

    def __getattr__(self, name: str) -> Any:
        if name in ("port", "book"):  # not set yet (a copy being made)
            raise AttributeError(name)
        return getattr(self.port, name)

    def __repr__(self) -> str:
        return f"{self.port!r}, recorded"

    def run_showdown(self, request: ShowdownRequest) -> ShowdownOutcome:
        outcome = self.port.run_showdown(request)
        self.book.record(request, outcome)
        return outcome
