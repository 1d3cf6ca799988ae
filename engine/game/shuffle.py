"""The seeded shuffle every UNO game of the engine uses.

Each shuffle seeds a fresh generator with ``seed << SHUFFLE_COUNT_BITS | count``
(the game's seed and how many shuffles it made before), so a game read back
from its notation, which carries both, shuffles exactly as the original would
(docs/notation.md).

>>> cards = list(range(6))
>>> seeded_shuffle(cards, seed=7, count=0)
>>> cards
[5, 1, 3, 2, 4, 0]
"""

from __future__ import annotations

import _random  # random.Random's C base: the same generator, seeded without random.py's Python
import struct
from typing import TypeVar

__all__ = ["seeded_shuffle", "SHUFFLE_COUNT_BITS"]

#: Bits of the seed word that count the shuffles before this one.
SHUFFLE_COUNT_BITS = 32
# One unsigned key of _KEY_BYTES bytes ("I") per card.
_KEY_BYTES = struct.calcsize("I")
_KEY_BITS = 8 * _KEY_BYTES

T = TypeVar("T")


def seeded_shuffle(cards: list[T], *, seed: int, count: int) -> None:
    """Shuffle ``cards`` in place as the ``count``-th shuffle of a game seeded ``seed``.

    A Fisher-Yates shuffle fed by one getrandbits() call: random.shuffle draws
    each number through Python code and takes twice as long. The generator is
    ``random.Random(seed << SHUFFLE_COUNT_BITS | count)``'s, made as its C base
    class ``_random.Random`` (random.Random.seed hands an int straight to it):
    the same numbers, a microsecond or two less.
    """
    n = len(cards)
    rng = _random.Random(seed << SHUFFLE_COUNT_BITS | count)
    bits = rng.getrandbits(_KEY_BITS * n)
    keys = struct.unpack(f"<{n}I", bits.to_bytes(_KEY_BYTES * n, "little"))
    for i in range(n - 1, 0, -1):
        j = keys[i] % (i + 1)  # bias below 1e-7 with 32-bit keys
        cards[i], cards[j] = cards[j], cards[i]
