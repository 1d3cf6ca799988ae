"""Phones as paddles: the decision of a showdown fought on two phones (sans-IO).

With no unit at the table, each player's phone is a big paddle. The server
names a GO instant in its own clock; each phone shows GO at that instant by
its estimate of the server clock (``static/clock.js``), stamps each tap on its
own clock and reports the tap's *reaction*: the tap's time minus the moment
that phone really showed GO, both on the phone's clock. So an error in the
phone's clock offset only moves when GO was shown, never the reaction. Each
phone reports its clock's *uncertainty* too (half the best round trip, plus
drift): two reactions closer than the sum of the two uncertainties cannot be
told apart and are a tie.

This module takes those reports in and gives a verdict out, with plain
numbers and no I/O (the glue is ``engine.apps.table.phone_port``). The rules
follow the unit's (docs/timing.md, "The decision"):

- a tap before that phone showed GO is a **false start**: the offender loses;
  two false starts: the earlier loses, unless they are within the summed
  uncertainty (a tie);
- otherwise the earlier reaction wins, the other loses;
- two reactions closer than the two uncertainties summed (and never closer
  than ``tie_threshold_us``, the unit's own floor) are a **tie**: the
  countdown runs again, counted; after ``max_reruns`` re-runs a further tie is
  void and fought again too (the game needs a loser), counted as a void;
  after ``max_voids`` voids (a slow link's uncertainty can blur most taps
  together) a further tie is **called on the measured times**, the faster
  reaction winning, and the verdict says so; only an exact tie is fought again;
- nobody taps within ``timeout_us`` of GO: a **timeout**, fought again;
  one taps and the other does not: the tapper wins, the other's reaction None;
- a phone that never answers (``None`` for its report) decides nothing: the
  round is **missing** that player, and the table asks the host (a bot
  presses for them, or a verdict by hand). No reaction is ever invented.

A bot presses as the unit's virtual paddle does (:func:`bot_tap`): its median
reaction in the shared model (``firmware_host.people.reactions``), never early,
exact (uncertainty 0: the server stamps it against its own GO).

>>> from engine.units.ports import ShowdownRequest
>>> fight = PhoneShowdown(ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "Bob", 2))
>>> fight.record({0: Tap(231_000, 3_000), 2: Tap(262_000, 4_000)}).kind
'decided'
>>> fight.outcome.winner, fight.outcome.margin_us, fight.outcome.detail
(0, 31000, 'Ann faster by 31.0 ms')
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping

from engine.units.ports import ShowdownOutcome, ShowdownRequest
from firmware_host.people.reactions import HUMAN, Reactions
from firmware_host.people.words import apart, ms, plural, reruns_text
from firmware_host.protocol import Reason

__all__ = [
    "Tap",
    "RoundResult",
    "judge_round",
    "PhoneShowdown",
    "bot_tap",
    "go_instant",
    "DEFAULT_TIMEOUT_US",
]

#: How long after GO a tap still counts (the unit's ``response_timeout_s``, 5 s).
DEFAULT_TIMEOUT_US = 5_000_000


@dataclasses.dataclass(frozen=True)
class Tap:
    """A phone's report of one round: ``reaction_us`` is its first tap minus the
    moment it showed GO, on its own clock (negative: before GO, a false start;
    None: no tap within the timeout); ``uncertainty_us`` its clock's
    uncertainty at the time (0 for a bot, pressed by the server)."""

    reaction_us: int | None
    uncertainty_us: int = 0

    def __post_init__(self) -> None:
        if self.uncertainty_us < 0:
            raise ValueError(f"uncertainty_us must be >= 0, not {self.uncertainty_us}")


@dataclasses.dataclass(frozen=True)
class RoundResult:
    """How one countdown ended: ``kind`` is ``decided`` (``loser`` and
    ``reason`` set), ``tie`` (``gap_us`` the gap, fought again), ``timeout``
    (nobody tapped, fought again) or ``missing`` (``missing``: the players
    whose phone never answered; the host decides)."""

    kind: str
    loser: int | None = None
    reason: Reason | None = None
    reaction_us: Mapping[int, int | None] = dataclasses.field(default_factory=dict)
    margin_us: int | None = None
    gap_us: int | None = None
    missing: tuple[int, ...] = ()


def judge_round(
    request: ShowdownRequest,
    taps: Mapping[int, Tap | None],
    *,
    timeout_us: int = DEFAULT_TIMEOUT_US,
    tie_threshold_us: int = 0,
) -> RoundResult:
    """One round's verdict from the two players' reports (None: never answered)."""
    players = request.players
    missing = tuple(p for p in players if taps.get(p) is None)
    if missing:
        return RoundResult("missing", missing=missing)
    reports = {p: taps[p] for p in players}
    reaction: dict[int, int | None] = {}
    for p, tap in reports.items():
        assert tap is not None
        late = tap.reaction_us is not None and tap.reaction_us > timeout_us
        reaction[p] = None if late else tap.reaction_us
    pressed = [p for p in players if reaction[p] is not None]
    if not pressed:
        return RoundResult("timeout", reaction_us=reaction)
    if len(pressed) == 1:
        (only,) = pressed
        too_soon = (reaction[only] or 0) < 0
        loser = only if too_soon else request.other(only)
        reason = Reason.FALSE_START if too_soon else Reason.FASTER
        return RoundResult("decided", loser, reason, _measured(reaction, too_soon))
    a, b = players
    ra, rb = reaction[a], reaction[b]
    assert ra is not None and rb is not None
    early = [p for p in players if (reaction[p] or 0) < 0]
    if len(early) == 1:
        return RoundResult("decided", early[0], Reason.FALSE_START, dict.fromkeys(players))
    gap = abs(ra - rb)
    blur = max(tie_threshold_us, sum(t.uncertainty_us for t in reports.values() if t))
    if gap == 0 or gap < blur:
        return RoundResult("tie", reaction_us=reaction, gap_us=gap)
    first = a if ra < rb else b
    if early:  # two false starts: the earlier offender loses
        return RoundResult("decided", first, Reason.FALSE_START, dict.fromkeys(players))
    return RoundResult("decided", request.other(first), Reason.FASTER, reaction, gap)


def _called_on_times(request: ShowdownRequest, tie: RoundResult) -> RoundResult:
    """A tie decided on the reactions as measured: the earlier of two false
    starts loses, else the slower reaction."""
    a, b = request.players
    ra, rb = tie.reaction_us[a], tie.reaction_us[b]
    assert ra is not None and rb is not None and ra != rb
    first = a if ra < rb else b
    if ra < 0 and rb < 0:
        return RoundResult("decided", first, Reason.FALSE_START, dict.fromkeys(request.players))
    return RoundResult("decided", request.other(first), Reason.FASTER, tie.reaction_us, tie.gap_us)


def _measured(reaction: Mapping[int, int | None], early: bool) -> dict[int, int | None]:
    return dict.fromkeys(reaction) if early else dict(reaction)


class PhoneShowdown:
    """A showdown's rounds on the phones, until one decides it.

    :meth:`record` takes each round's reports and says how it ended; after a
    ``decided`` round :attr:`outcome` is the :class:`ShowdownOutcome` (ties and
    timeouts counted in it). :meth:`decide_by_hand` takes the host's verdict
    when a phone never answered.
    """

    def __init__(
        self,
        request: ShowdownRequest,
        *,
        timeout_us: int = DEFAULT_TIMEOUT_US,
        tie_threshold_us: int = 0,
        max_reruns: int = 3,
        max_voids: int = 2,
    ):
        if max_reruns < 0 or max_voids < 0 or timeout_us <= 0 or tie_threshold_us < 0:
            raise ValueError(
                "need max_reruns >= 0, max_voids >= 0, timeout_us > 0, tie_threshold_us >= 0"
            )
        self.request = request
        self.timeout_us = timeout_us
        self.tie_threshold_us = tie_threshold_us
        self.max_reruns = max_reruns
        self.max_voids = max_voids
        self.called_on_times = False  # a tie past max_voids, decided on the measured times
        self.ties: list[int] = []  # each tie's gap, in order
        self.voids = 0  # ties beyond max_reruns: void, fought again
        self.timeouts = 0
        self.outcome: ShowdownOutcome | None = None

    @property
    def reruns(self) -> int:
        """Near-tie re-runs so far (a void tie counts as one too)."""
        return len(self.ties)

    def record(self, taps: Mapping[int, Tap | None]) -> RoundResult:
        """One round's reports; ValueError once the showdown is decided."""
        if self.outcome is not None:
            raise ValueError(f"showdown {self.request.showdown_id} is decided already")
        result = judge_round(
            self.request, taps, timeout_us=self.timeout_us, tie_threshold_us=self.tie_threshold_us
        )
        if result.kind == "tie" and result.gap_us and self.voids >= self.max_voids:
            result = _called_on_times(self.request, result)
            self.called_on_times = True
        if result.kind == "tie":
            assert result.gap_us is not None
            if len(self.ties) >= self.max_reruns:
                self.voids += 1
            self.ties.append(result.gap_us)
        elif result.kind == "timeout":
            self.timeouts += 1
        elif result.kind == "decided":
            assert result.loser is not None and result.reason is not None
            self.outcome = self._outcome(result)
        return result

    def decide_by_hand(self, loser: int, reason: Reason = Reason.FASTER) -> ShowdownOutcome:
        """The host's verdict (a phone never answered): no reaction measured."""
        if loser not in self.request.players:
            raise ValueError(f"player {loser} is not in showdown {self.request.showdown_id}")
        by_hand = RoundResult("decided", loser, reason, dict.fromkeys(self.request.players))
        self.outcome = self._outcome(by_hand, "entered by hand")
        return self.outcome

    def _outcome(self, result: RoundResult, how: str = "") -> ShowdownOutcome:
        request = self.request
        assert result.loser is not None and result.reason is not None
        loser, winner = result.loser, request.other(result.loser)
        if how:
            detail = f"{request.name(winner)} won, {how}"
        elif result.reason is Reason.FALSE_START:
            detail = f"false start by {request.name(loser)}"
        elif result.margin_us is None:
            detail = f"{request.name(winner)} tapped, {request.name(loser)} did not"
        else:
            detail = f"{request.name(winner)} faster by {ms(result.margin_us)}"
        fought = []
        if self.ties:
            gaps = ", ".join(apart(gap) for gap in self.ties)
            fought.append(f"{reruns_text(len(self.ties))} ({gaps})")
        if self.voids:
            fought.append(f"{plural(self.voids, 'void tie')} fought again")
        if self.timeouts:
            fought.append(plural(self.timeouts, "timeout"))
        if fought:
            detail += f", after {', '.join(fought)}"
        if self.called_on_times:
            detail += "; called on the measured times, closer than the phones' clocks can tell"
        return ShowdownOutcome(
            loser,
            winner,
            result.reason,
            dict(result.reaction_us) or dict.fromkeys(request.players),
            result.margin_us,
            len(self.ties),
            detail,
        )


def bot_tap(median_ms: float, rng: random.Random, reactions: Reactions = HUMAN) -> Tap:
    """A bot's press, as the unit's virtual paddle makes it: one draw from the
    shared model with the bot's median, never early, exact."""
    model = dataclasses.replace(
        reactions,
        median_ms=median_ms,
        min_ms=min(reactions.min_ms, median_ms),
        max_ms=max(reactions.max_ms, median_ms),
        false_start_rate=0.0,
    )
    return Tap(model.reaction_us(rng), 0)


def go_instant(
    now_s: float,
    rng: random.Random,
    *,
    lead_s: float = 1.0,
    steps: int = 3,
    step_s: float = 1.0,
    hold_min_s: float = 0.5,
    hold_max_s: float = 2.5,
) -> tuple[float, float]:
    """When the countdown starts and when GO is, in server seconds: ``lead_s``
    for the phones to hear of it, ``steps`` countdown steps, then a hold drawn
    from ``rng`` (seeded), as the unit's (``UNIT_PACE``), so nobody can time GO."""
    start = now_s + lead_s
    return start, start + steps * step_s + rng.uniform(hold_min_s, hold_max_s)
