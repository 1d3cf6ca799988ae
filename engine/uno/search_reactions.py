"""How fast each player presses the unit's paddle, as the search bot believes:
a lognormal reaction per player (the shape of firmware_host.people.reactions'
model), its median learnt from the reaction times seen at the table.

Until a player has been seen, their median is the prior (a person's, 230 ms);
each reaction seen moves the estimate of the log-median like one more sample
after ``PRIOR_WEIGHT`` samples of the prior. The chance that one player
presses before another is then that of one lognormal being under the other.

>>> model = ReactionModel()
>>> model.chance_first(0, 1)
0.5
>>> for ms in (300, 320, 310, 290, 305, 315):
...     model.saw(1, ms)
>>> round(model.median_ms(1))
279
>>> round(model.chance_first(0, 1), 2)
0.82
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from engine.game.agents import DEFAULT_REACTION_MS

__all__ = ["ReactionModel", "PRIOR_WEIGHT", "SPREAD"]

#: The spread of one person's reactions (the log's standard deviation), as the
#: simulated people's (firmware_host.people.reactions.HUMAN).
SPREAD = 0.15
#: How many reactions the prior median counts for.
PRIOR_WEIGHT = 3.0


class ReactionModel:
    """Each player's reaction median: a prior, then the reactions seen."""

    def __init__(self, prior_ms: float = DEFAULT_REACTION_MS) -> None:
        self.prior_log = math.log(prior_ms)
        self._sums: dict[int, float] = {}
        self._counts: dict[int, int] = {}
        self._known: dict[int, float] = {}

    def __repr__(self) -> str:
        medians = {p: round(self.median_ms(p)) for p in sorted({*self._counts, *self._known})}
        return f"ReactionModel({medians})"

    def know(self, player: int, median_ms: float) -> None:
        """``player``'s median is known (the bot's own)."""
        self._known[player] = math.log(median_ms)

    def saw(self, player: int, reaction_ms: float) -> None:
        """One reaction of ``player``'s, seen at the table."""
        self._sums[player] = self._sums.get(player, 0.0) + math.log(reaction_ms)
        self._counts[player] = self._counts.get(player, 0) + 1

    def saw_showdown(self, reactions_ms: Mapping[int, float | None]) -> None:
        """A showdown's reactions by player (None: that player did not press)."""
        for player, ms in reactions_ms.items():
            if ms is not None and ms > 0:
                self.saw(player, ms)

    def _log_median(self, player: int) -> float:
        known = self._known.get(player)
        if known is not None:
            return known
        count = self._counts.get(player, 0)
        total = self._sums.get(player, 0.0) + PRIOR_WEIGHT * self.prior_log
        return total / (count + PRIOR_WEIGHT)

    def median_ms(self, player: int) -> float:
        return math.exp(self._log_median(player))

    def chance_first(self, player: int, other: int) -> float:
        """The chance that ``player`` presses before ``other`` (who then loses)."""
        gap = self._log_median(other) - self._log_median(player)
        return 0.5 * (1.0 + math.erf(gap / (2.0 * SPREAD)))
