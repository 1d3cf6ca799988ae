"""A bot's paddle: the unit presses it itself, with a human-like reaction.

When a showdown is armed with ``bots`` (docs/protocol.md), a bot plays each of
those sides. At every GO, :class:`VirtualPaddles` draws each bot's reaction
from :func:`bot_reactions` (the human model of
:mod:`firmware_host.people.reactions`, with the bot's own median) on the
core's random generator, and places a *virtual edge*: a deadline at clock
time GO + reaction that feeds ``(side, GO tick + reaction, pressed)`` into the
core's inbox, the way a pin callback feeds a real edge. So the decision rules
(:mod:`firmware_host.core.decide`) see it exactly as a real press with that
tick, on real pins as on mock pins; docs/timing.md has the rules.

- A bot never false-starts: its edge comes after GO, never under the unit's
  ``timing.min_reaction_ms``, and it never holds its paddle down.
- Each round draws again: a near-tie re-run gets new reactions.
- Its edges belong to the round: a new countdown, a cancel or a fault drops
  those still to come (the core cancels :data:`BOT_DEADLINES` with its own).
  A bot that has not pressed by the decision may still press while the cards
  fly; that adds its reaction time to the result, as for a person.
- When both sides are bots, nobody is there to press the timer button: the
  unit starts the countdown itself ``timing.bot_start_s`` after arming.

Pin ticks are float seconds on every backend the unit supports (lgpio,
RPi.GPIO, mock), so a tick plus a reaction in seconds is a tick.

>>> import random
>>> from firmware_host.core.deadlines import Deadlines
>>> pressed, deadlines = [], Deadlines()
>>> press = lambda side, tick: pressed.append((side, tick))
>>> bots = VirtualPaddles(deadlines, random.Random(1), press)
>>> bots.go({"b": 230.0}, go_tick=10.0, go_time=10.0)
{'b': 251942}
>>> bots.planned
{'b': 10.251942}
>>> name, action = deadlines.pop_due(now=11.0); action(); name, pressed
('bot:b', [('b', 10.251942)])
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping

from firmware_host.core.deadlines import Deadlines
from firmware_host.people.reactions import HUMAN, Reactions
from firmware_host.protocol import SIDES, Side

__all__ = ["VirtualPaddles", "bot_reactions", "BOT_DEADLINES"]

log = logging.getLogger(__name__)

_PRESS: dict[Side, str] = {side: f"bot:{side}" for side in SIDES}
_START = "bot:start"
#: The deadlines of the virtual paddles: each bot's press, and the start of a
#: showdown of two bots.
BOT_DEADLINES = (*_PRESS.values(), _START)


def bot_reactions(reaction_ms: float) -> Reactions:
    """A bot's reaction model: the human one (:data:`~firmware_host.people.reactions.HUMAN`)
    with median ``reaction_ms``; a bot quicker than people's floor (150 ms) gets
    its median as its floor.

    >>> bot_reactions(120).min_ms, bot_reactions(400).min_ms, bot_reactions(400).median_ms
    (120, 150.0, 400)
    """
    return Reactions(median_ms=reaction_ms, min_ms=min(HUMAN.min_ms, reaction_ms))


class VirtualPaddles:
    """The bots' paddles of one core. ``deadlines`` are the core's,
    ``rng`` its random generator, and ``press(side, tick)`` feeds a press
    edge into its inbox. Call everything on the core's thread."""

    def __init__(
        self,
        deadlines: Deadlines,
        rng: random.Random,
        press: Callable[[Side, float], None],
    ):
        self._deadlines = deadlines
        self._rng = rng
        self._press = press
        self._ticks: dict[Side, float] = {}  # each bot's edge of this round, by side

    @property
    def planned(self) -> dict[Side, float]:
        """The pin tick of each bot's edge still to come this round, by side."""
        return {side: tick for side, tick in self._ticks.items() if _PRESS[side] in self._deadlines}

    def armed(
        self,
        bots: Mapping[Side, float],
        now: float,
        start_after_s: float,
        start: Callable[[], object],
    ) -> None:
        """A showdown was armed: if bots play both sides, ``start()`` runs
        ``start_after_s`` from ``now`` (unless :meth:`armed_over` comes first)."""
        if all(side in bots for side in SIDES):
            self._deadlines.schedule(_START, now + start_after_s, start)

    def armed_over(self) -> None:
        """The showdown is no longer armed: it started, or was cancelled."""
        self._deadlines.cancel(_START)

    def go(
        self,
        bots: Mapping[Side, float],
        *,
        go_tick: float,
        go_time: float,
        min_reaction_ms: int = 0,
    ) -> dict[Side, int]:
        """GO came at pin tick ``go_tick``, clock time ``go_time``: draw each
        bot's reaction (never under ``min_reaction_ms``) and place its edge.
        Returns the reactions drawn, in whole microseconds."""
        drawn: dict[Side, int] = {}
        for side in SIDES:
            if side not in bots:
                continue
            reaction_us = max(
                bot_reactions(bots[side]).reaction_us(self._rng), min_reaction_ms * 1000
            )
            seconds = reaction_us / 1_000_000
            tick = self._ticks[side] = go_tick + seconds
            self._deadlines.schedule(
                _PRESS[side],
                go_time + seconds,
                lambda side=side, tick=tick: self._press(side, tick),
            )
            log.debug("bot on side %s presses %d us after GO", side, reaction_us)
            drawn[side] = reaction_us
        return drawn

    def round_over(self) -> None:
        """Drop the edges still to come (a new countdown, the end of the showdown)."""
        self._deadlines.cancel(*_PRESS.values())
        self._ticks.clear()
