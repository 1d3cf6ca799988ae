"""How two people at the unit press their paddles: the one model every simulation uses.

The unit's simulator (``showdown-unit simulate``, and the end of ``showdown-unit
demo``), the engine's simulated unit port (``SimulatedUnit``) and the engine
demo's simulated table (``SimulatedTable``) all draw the presses from a
:class:`Reactions`, with a ``random.Random`` they are given, so a seed replays
the same showdowns.

One showdown's two presses: the faster player's reaction after GO is
lognormal (median ``median_ms``, shape ``spread``: the log of the time is
normal with that standard deviation), kept between ``min_ms`` and ``max_ms``.
The other presses later by the absolute value of a normal with
``gap_sd_ms``; now and then instead by a hair (a *near-tie*, 20-180 µs: under
the unit's 200 µs tie threshold, so it runs the countdown again) or by a
*photo finish* (0.3-3 ms). A countdown is a *false start* (somebody presses
before GO) with ``false_start_rate``; where in the countdown is the user's to
say, as it depends on the unit's timing.

The defaults (:data:`HUMAN`) are people reacting to a light they are waiting
for: median 230 ms, nine in ten between 180 and 295 ms, never under 150 ms
(no one reacts faster; the unit's optional ``min_reaction_ms`` rule is 100 ms).

>>> import random
>>> rng = random.Random(1)
>>> HUMAN.presses_us(rng)
(251942, 286433)
>>> fast = Reactions(median_ms=25, min_ms=15, gap_sd_ms=4)    # a test rig's quick hands
>>> 15_000 <= fast.reaction_us(rng) <= 1_500_000
True
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

__all__ = ["Reactions", "HUMAN", "NEAR_TIE_US", "PHOTO_FINISH_US"]

#: How far apart a near-tie's presses are (µs, both ends included).
NEAR_TIE_US = (20, 180)
#: How far apart a photo finish's presses are (µs, both ends included).
PHOTO_FINISH_US = (300, 3_000)


@dataclass(frozen=True)
class Reactions:
    """Two people's presses after GO; see the module docstring."""

    median_ms: float = 230.0
    spread: float = 0.15
    min_ms: float = 150.0
    max_ms: float = 1_500.0
    gap_sd_ms: float = 25.0
    false_start_rate: float = 0.04
    near_tie_rate: float = 0.03
    photo_finish_rate: float = 0.05

    def __post_init__(self) -> None:
        if not 0 < self.min_ms <= self.median_ms <= self.max_ms:
            raise ValueError(
                f"need 0 < min_ms <= median_ms <= max_ms, not {self.min_ms:g}, "
                f"{self.median_ms:g}, {self.max_ms:g}"
            )
        if self.spread < 0 or self.gap_sd_ms < 0:
            raise ValueError(
                f"spread and gap_sd_ms must be >= 0, not {self.spread:g} and {self.gap_sd_ms:g}"
            )
        rates = (self.false_start_rate, self.near_tie_rate, self.photo_finish_rate)
        if not all(0 <= rate <= 1 for rate in rates) or sum(rates[1:]) > 1:
            raise ValueError(
                f"the rates must be 0-1 (near-tie and photo finish together at "
                f"most 1), not {', '.join(f'{rate:g}' for rate in rates)}"
            )

    def reaction_us(self, rng: random.Random) -> int:
        """One person's reaction after GO, in whole microseconds."""
        drawn = rng.lognormvariate(math.log(self.median_ms), self.spread)
        return round(min(self.max_ms, max(self.min_ms, drawn)) * 1000)

    def gap_us(self, rng: random.Random) -> int:
        """How much later the slower of two people presses, in whole microseconds."""
        luck = rng.random()
        if luck < self.near_tie_rate:
            return rng.randint(*NEAR_TIE_US)
        if luck < self.near_tie_rate + self.photo_finish_rate:
            return rng.randint(*PHOTO_FINISH_US)
        return round(abs(rng.gauss(0.0, self.gap_sd_ms)) * 1000)

    def presses_us(self, rng: random.Random) -> tuple[int, int]:
        """One showdown's two presses after GO, faster first, in whole microseconds."""
        first = self.reaction_us(rng)
        return first, first + self.gap_us(rng)

    def false_start(self, rng: random.Random) -> bool:
        """Whether this countdown is a false start."""
        return rng.random() < self.false_start_rate


#: People at the unit, as every simulation draws them unless told otherwise.
HUMAN = Reactions()
