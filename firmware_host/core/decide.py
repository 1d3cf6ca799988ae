"""Who slammed first: the pure decision rules, from edge ticks alone.

Nothing here reads a clock, a pin or a queue: each function takes the first
press tick of each side, the GO tick and the pin backend's ``ticks_diff``,
and returns values. :class:`~firmware_host.core.machine.ShowdownCore` calls
:func:`decide` when a round has settled; docs/timing.md states the rules and
tests/test_machine_decide.py pins them down.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from firmware_host.protocol import SIDES, Reason, Side, TextEnum

__all__ = ["Outcome", "Decision", "decide", "measure", "is_early"]


class Outcome(TextEnum):
    """How one round ended. A tie is a round's outcome, not a showdown's: it is
    re-run, or the showdown ends void (:attr:`reason`).

    >>> Outcome.FALSE_START.reason, Outcome.TIE.reason
    ('false_start', 'tie_void')
    """

    FASTER = "faster"
    FALSE_START = "false_start"
    TIE = "tie"
    TIMEOUT = "timeout"

    @property
    def reason(self) -> Reason:
        """The showdown's reason when it ends on this outcome."""
        return Reason.TIE_VOID if self is Outcome.TIE else Reason(self.value)


@dataclass(frozen=True)
class Decision:
    """How a round ended. For a false start ``loser`` is the offender: the
    only place the unit works out who jumped (the arrow points where this says)."""

    outcome: Outcome
    winner: Side | None = None
    loser: Side | None = None
    reaction_us: dict = field(default_factory=lambda: dict.fromkeys(SIDES))
    margin_us: int | None = None


# The sides as module globals: on Python 3.11 ``Side.A`` is a slow attribute
# lookup, and decide() is on the path from a paddle's edge to the verdict.
_A, _B = SIDES


def _us(seconds: float) -> int:
    return round(seconds * 1_000_000)


def _ns(seconds: float) -> int:
    # Thresholds compare whole nanoseconds: float noise in a tick difference
    # (100.1 - 100.0 = 0.09999999999999432) cannot move a press across them.
    return round(seconds * 1_000_000_000)


def is_early(
    tick: float,
    go_tick: float | None,
    *,
    ticks_diff: Callable[[float, float], float],
    min_reaction_ms: int = 0,
) -> bool:
    """A false start: no GO yet, a tick before the GO tick, or less than
    ``min_reaction_ms`` after it. A press on the GO tick itself is valid."""
    if go_tick is None:
        return True
    reaction = ticks_diff(tick, go_tick)
    return reaction < 0 or _ns(reaction) < min_reaction_ms * 1_000_000


def measure(
    presses: Mapping[str, float | None],
    go_tick: float | None,
    *,
    ticks_diff: Callable[[float, float], float],
) -> tuple[dict, int | None]:
    """Each side's reaction in whole microseconds from the GO tick (None: no
    press, or no GO), and the gap between the two presses (None unless both)."""
    reaction_us = {
        side: None
        if (tick := presses[side]) is None or go_tick is None
        else _us(ticks_diff(tick, go_tick))
        for side in SIDES
    }
    margin_us = None
    a, b = presses[_A], presses[_B]
    if a is not None and b is not None:
        margin_us = abs(_us(ticks_diff(b, a)))
    return reaction_us, margin_us


def decide(
    presses: Mapping[str, float | None],
    go_tick: float | None,
    *,
    ticks_diff: Callable[[float, float], float],
    tie_threshold_us: int,
    min_reaction_ms: int = 0,
) -> Decision:
    """Decide a round from each side's first press tick (None: no press) and
    the GO tick (None: GO never came).

    A press is early (a false start) if GO had not come, if its tick is
    before the GO tick, or if it came less than ``min_reaction_ms`` after GO.
    Early presses beat valid ones to the blame: the earliest early press is
    the offender. Otherwise the earliest press wins. Two presses (both valid,
    or both early) closer than ``tie_threshold_us``, or on the same tick, are
    a tie. Gaps are compared in whole nanoseconds so float noise cannot move
    a press across the threshold.

    >>> diff = lambda later, earlier: later - earlier
    >>> decide({"a": 10.2315, "b": 10.25}, 10.0, ticks_diff=diff, tie_threshold_us=200)
    Decision(outcome='faster', winner='a', loser='b',
             reaction_us={'a': 231500, 'b': 250000}, margin_us=18500)
    >>> decide({"a": 10.2, "b": 9.9999}, 10.0, ticks_diff=diff, tie_threshold_us=200).loser
    'b'
    """
    reaction_us, margin_us = measure(presses, go_tick, ticks_diff=ticks_diff)
    # Each side that pressed, and its tick.
    pressed = {side: tick for side in SIDES if (tick := presses[side]) is not None}
    if not pressed:
        return Decision(Outcome.TIMEOUT, reaction_us=reaction_us)
    early = [
        side
        for side, tick in pressed.items()
        if is_early(tick, go_tick, ticks_diff=ticks_diff, min_reaction_ms=min_reaction_ms)
    ]
    contenders = early or list(pressed)
    if len(contenders) == 1:
        first = contenders[0]
    else:
        gap = ticks_diff(pressed[_B], pressed[_A])
        gap_ns = abs(_ns(gap))
        if gap_ns == 0 or gap_ns < tie_threshold_us * 1000:
            return Decision(Outcome.TIE, reaction_us=reaction_us, margin_us=margin_us)
        first = _A if gap > 0 else _B
    other = _B if first is _A else _A
    if early:
        return Decision(
            Outcome.FALSE_START,
            winner=other,
            loser=first,
            reaction_us=reaction_us,
            margin_us=margin_us,
        )
    return Decision(
        Outcome.FASTER, winner=first, loser=other, reaction_us=reaction_us, margin_us=margin_us
    )
