"""A showdown's :class:`~firmware_host.core.result.Result`, built from what the core knows.

Pure functions: the showdown (its id, players, cards, tie re-runs), the
round's first presses and GO tick, the :class:`~firmware_host.core.decide.Decision`
and the launch go in; a Result comes out. The core calls them when a decision
goes to the recorder and when a showdown ends.

>>> from types import SimpleNamespace
>>> from firmware_host.core.decide import decide
>>> diff = lambda later, earlier: later - earlier
>>> presses, go_tick = {"a": 10.25, "b": 10.2315}, 10.0
>>> decision = decide(presses, go_tick, ticks_diff=diff, tie_threshold_us=200)
>>> showdown = SimpleNamespace(showdown_id="sd-1", players={"a": "Ann", "b": "Bob"},
...                            cards=2, tie_reruns=0, bots={})
>>> launch, verified = launch_outcome(cards=2, counted=2, sensor=True)
>>> print(result_of(showdown, decision, presses, go_tick, launch=launch, cards_counted=2,
...                 ticks_diff=diff))
sd-1: Bob (side B) beat Ann (side A), faster by 18.5 ms; 2 cards launched
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from firmware_host.core.decide import Decision, Outcome, measure
from firmware_host.core.result import Result
from firmware_host.core.showdown import Showdown
from firmware_host.protocol import Launch

__all__ = ["result_of", "launch_outcome"]


def result_of(
    showdown: Showdown,
    decision: Decision,
    presses: Mapping[str, float | None],
    go_tick: float | None,
    *,
    launch: Launch,
    cards_counted: int | None,
    ticks_diff: Callable[[float, float], float],
) -> Result:
    """The Result of ``showdown`` as decided by ``decision``, its launch so far
    being ``launch``. The reaction times are measured again from ``presses``:
    a press that came after the decision (while the cards fly) adds that
    side's time, and never changes the verdict."""
    reaction_us, margin_us = measure(presses, go_tick, ticks_diff=ticks_diff)
    return Result(
        showdown_id=showdown.showdown_id,
        players=dict(showdown.players),
        winner=decision.winner,
        loser=decision.loser,
        reason=Outcome(decision.outcome).reason,
        tie_reruns=showdown.tie_reruns,
        reaction_us=reaction_us,
        margin_us=margin_us,
        cards=showdown.cards,
        launch=launch,
        cards_counted=cards_counted,
        bots=tuple(showdown.bots),
    )


def launch_outcome(cards: int, counted: int, *, sensor: bool) -> tuple[Launch, bool]:
    """How a launch that ran its course ended, and whether the card sensor
    verified it: without a sensor, launched (unverified); with one, launched
    if it counted every card, else a jam.

    >>> launch_outcome(3, 0, sensor=False), launch_outcome(3, 2, sensor=True)
    (('launched', False), ('jam', False))
    """
    verified = sensor and counted >= cards
    return (Launch.JAM if sensor and not verified else Launch.LAUNCHED), verified
