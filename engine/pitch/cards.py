"""Pitch's cards: 52 plus two distinguishable jokers, each a two-letter ``str``.

A card is its code: rank ``23456789TJQKA`` then suit ``CDHS`` (``AH``, ``TD``,
``2C``), or ``HJ``/``LJ`` for the high and low joker. Once trump is named the
trump suit has 16 cards (RULES.md R3): A K Q J, the off-jack (the jack of the
other suit of the trump's colour), the high joker, the low joker, then 10 to 2.
Every other card is dead. Tables per trump make each question a dict look-up.

>>> trump_order("H")
('AH', 'KH', 'QH', 'JH', 'JD', 'HJ', 'LJ', 'TH', '9H', '8H', '7H', '6H', '5H', '4H', '3H', '2H')
>>> is_trump("JD", "H"), is_trump("JC", "H"), point_value("3H", "H"), parse_card("10h")
(True, False, 3, 'TH')
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.game.errors import NotationError

__all__ = [
    "RANKS",
    "SUITS",
    "HIGH_JOKER",
    "LOW_JOKER",
    "JOKERS",
    "DECK",
    "CARD_COUNT",
    "POINTS_IN_HAND",
    "SUIT_NAMES",
    "parse_card",
    "suit_of",
    "rank_of",
    "off_jack",
    "is_trump",
    "trump_order",
    "trump_rank",
    "point_value",
    "trumps_of",
    "sort_hand",
]

#: Ranks low to high.
RANKS = "23456789TJQKA"
SUITS = ("C", "D", "H", "S")
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
HIGH_JOKER = "HJ"
LOW_JOKER = "LJ"
JOKERS = (HIGH_JOKER, LOW_JOKER)
#: The 54 cards in a fixed order: clubs, diamonds, hearts, spades (2 to ace each), the jokers.
DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + JOKERS
CARD_COUNT = len(DECK)
#: The points in a hand's trumps (R8), before any burn.
POINTS_IN_HAND = 10

_OTHER_OF_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}
_CARDS = frozenset(DECK)


def parse_card(text: str) -> str:
    """The card ``text`` names (case-insensitive; ``10H`` is ``TH``); NotationError otherwise.

    >>> parse_card("hj"), parse_card("qs")
    ('HJ', 'QS')
    >>> parse_card("1H")
    Traceback (most recent call last):
    ...
    engine.game.errors.NotationError: '1H' is not a card (e.g. AH, TD, 2C, HJ, LJ)
    """
    if isinstance(text, str):
        code = text.strip().upper()
        if code.startswith("10") and len(code) == 3:
            code = "T" + code[2]
        if code in _CARDS:
            return code
    raise NotationError(f"{text!r} is not a card (e.g. AH, TD, 2C, HJ, LJ)")


def suit_of(card: str) -> str | None:
    """The card's printed suit, None for a joker."""
    return None if card in JOKERS else card[1]


def rank_of(card: str) -> str | None:
    """The card's printed rank letter, None for a joker."""
    return None if card in JOKERS else card[0]


def off_jack(trump: str) -> str:
    """The jack of the other suit of the trump's colour: ``off_jack("H") == "JD"``."""
    return "J" + _OTHER_OF_COLOUR[trump]


def _order(trump: str) -> tuple[str, ...]:
    high = [r + trump for r in "AKQJ"]
    low = [r + trump for r in "T98765432"]
    return (*high, off_jack(trump), HIGH_JOKER, LOW_JOKER, *low)


_ORDERS = {s: _order(s) for s in SUITS}
#: trump -> {card: rank}, 15 for the ace down to 0 for the 2.
RANK_TABLES: dict[str, dict[str, int]] = {
    s: {card: 15 - i for i, card in enumerate(order)} for s, order in _ORDERS.items()
}
_POINT_RANKS = {"A": 1, "J": 1, "T": 1, "2": 1, "3": 3}


def _points(trump: str) -> dict[str, int]:
    table = {card: _POINT_RANKS.get(card[0], 0) for card in _ORDERS[trump]}
    table[off_jack(trump)] = table[HIGH_JOKER] = table[LOW_JOKER] = 1
    return table


#: trump -> {trump card: its points} (R8).
POINT_TABLES: dict[str, dict[str, int]] = {s: _points(s) for s in SUITS}


def is_trump(card: str, trump: str) -> bool:
    """Whether ``card`` belongs to the trump suit ``trump`` (jokers and off-jack included)."""
    return card in RANK_TABLES[trump]


def trump_order(trump: str) -> tuple[str, ...]:
    """The 16 trumps of ``trump``, high to low."""
    return _ORDERS[trump]


def trump_rank(card: str, trump: str) -> int:
    """15 for the trump ace ... 0 for the 2; ValueError for a non-trump.

    >>> trump_rank("AH", "H"), trump_rank("LJ", "S"), trump_rank("2D", "D")
    (15, 9, 0)
    """
    try:
        return RANK_TABLES[trump][card]
    except KeyError:
        raise ValueError(f"{card} is not a trump when {SUIT_NAMES[trump]} are trump") from None


def point_value(card: str, trump: str) -> int:
    """What ``card`` scores with ``trump`` trump: 1 (A, J, off-jack, jokers, 10, 2), 3, or 0."""
    return POINT_TABLES[trump].get(card, 0)


def trumps_of(cards: Iterable[str], trump: str) -> list[str]:
    """The trumps among ``cards``, in their order."""
    ranks = RANK_TABLES[trump]
    return [c for c in cards if c in ranks]


_PLAIN_ORDER = {card: i for i, card in enumerate(reversed(DECK))}


def sort_hand(cards: Iterable[str], trump: str | None) -> tuple[str, ...]:
    """``cards`` sorted: before trump, jokers then spades, hearts, diamonds, clubs
    (each high to low); with ``trump``, trumps high to low, then the dead cards.

    >>> sort_hand(["2C", "HJ", "AS", "JD"], None)
    ('HJ', 'AS', 'JD', '2C')
    >>> sort_hand(["2C", "HJ", "AS", "JD"], "H")
    ('JD', 'HJ', 'AS', '2C')
    """
    if trump is None:
        return tuple(sorted(cards, key=_PLAIN_ORDER.__getitem__))
    ranks = RANK_TABLES[trump]
    return tuple(
        sorted(cards, key=lambda c: (-ranks[c], 0) if c in ranks else (1, _PLAIN_ORDER[c]))
    )
