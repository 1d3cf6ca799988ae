"""Pitch's cards, phases and choices as ints, for the playouts (engine.pitch.playout_fast).

A card is its index in ``DECK`` (0-51: the suits C D H S, 2 to ace each; 52
the high joker, 53 the low one), a suit its index in ``SUITS``. The tables per
trump are lists indexed by card code, so each question is a list look-up.

>>> DECK[CODE["AH"]], RANKS[SUITS.index("H")][CODE["JD"]], POINTS[0][CODE["3C"]]
('AH', 11, 3)
>>> [DECK[c] for c in ORDERS[SUITS.index("H")][:6]]
['AH', 'KH', 'QH', 'JH', 'JD', 'HJ']
"""

from __future__ import annotations

from engine.pitch.cards import (
    DECK,
    HIGH_JOKER,
    LOW_JOKER,
    POINT_TABLES,
    RANK_TABLES,
    SUITS,
    trump_order,
)
from engine.pitch.state import Phase

__all__ = [
    "CODE",
    "HJ",
    "LJ",
    "RANKS",
    "POINTS",
    "ORDERS",
    "LOW_FIRST",
    "MOST_POINTS",
    "BID",
    "TRUMP",
    "STOCK",
    "BURN",
    "PLAY",
    "OVER",
    "PHASE_CODE",
    "PASS",
    "REDEAL",
    "KEEP",
    "GIVE",
]

#: card text -> its code.
CODE = {card: i for i, card in enumerate(DECK)}
HJ, LJ = CODE[HIGH_JOKER], CODE[LOW_JOKER]
#: trump suit -> card code -> its rank (15 the ace ... 0 the 2), -1 for a dead card.
RANKS = tuple([RANK_TABLES[s].get(c, -1) for c in DECK] for s in SUITS)
#: trump suit -> card code -> its points (R8).
POINTS = tuple([POINT_TABLES[s].get(c, 0) for c in DECK] for s in SUITS)
#: trump suit -> its 16 trumps' codes, high to low.
ORDERS = tuple(tuple(CODE[c] for c in trump_order(s)) for s in SUITS)

#: trump suit -> trump code -> the heuristic's ``(points > 0, rank)`` as one int
#: (min: the lowest card, a blank before a point) ...
LOW_FIRST = tuple(
    [(POINTS[t][c] > 0) * 16 + RANKS[t][c] for c in range(len(DECK))] for t in range(4)
)
#: ... and its ``(points, -rank)`` (max: the most points, the lowest of them).
MOST_POINTS = tuple(
    [POINTS[t][c] * 16 + 15 - RANKS[t][c] for c in range(len(DECK))] for t in range(4)
)

# The phases as ints, in Phase's order.
BID, TRUMP, STOCK, BURN, PLAY, OVER = range(6)
PHASE_CODE = {phase: i for i, phase in enumerate(Phase)}
assert list(PHASE_CODE) == [
    Phase.BID,
    Phase.TRUMP,
    Phase.STOCK,
    Phase.BURN,
    Phase.PLAY,
    Phase.OVER,
]
#: A bid choice is a bid's value (4 to 11) or one of these two; a stock choice one of KEEP, GIVE.
PASS, REDEAL = 0, -1
KEEP, GIVE = 1, 0
