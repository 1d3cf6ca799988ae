"""The order in which claims out of turn made on one position are applied.

engine.match's ``Match.claim_round`` and the UNO Party! playouts
(engine.uno.party_playout_heuristic) both order claims with ``claim_order``,
so a seeded playout draws from its rng exactly as a match does.

>>> import random
>>> claim_order([230.0, 230.0, 150.0], random.Random(1))
[2, 1, 0]
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = ["CLAIM_JITTER", "claim_order"]

#: Sigma of the log-normal factor on each claim's reaction_ms (about +-20 %).
CLAIM_JITTER = 0.2


def claim_order(reaction_ms: Sequence[float], rng: random.Random) -> list[int]:
    """The claims' indexes, fastest first: each claim's reaction_ms times
    ``rng.lognormvariate(0, CLAIM_JITTER)``, ties by ``rng.random()``, both
    drawn claim by claim in the order given (nothing drawn for no claims)."""
    timed = sorted(
        (
            (ms * rng.lognormvariate(0.0, CLAIM_JITTER), rng.random(), i)
            for i, ms in enumerate(reaction_ms)
        ),
        key=lambda entry: entry[:2],
    )
    return [i for _, _, i in timed]
