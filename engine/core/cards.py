"""Cards: colours, ranks and the Card value with its text form.

A card is an ``int`` (its *code*) so the engine can keep hands as lists of ints
and look everything up in flat tables; ``Card`` is the int subclass that gives
it a name and a text form. Codes pack three fields::

    code = showdown << 8 | colour << 5 | rank

with colour 0-3 (red, yellow, green, blue) or 4 for a wild card, rank 0-31
(0-9 numbers, then the action ranks, room left for UNO Party's cards) and
showdown 0 (no symbol) or the number on the Showdown symbol (1-7).

Text forms: colour letter + rank (``R5``, ``B+2`` draw two, ``YR`` reverse,
``GS`` skip), wilds ``W``, ``W+4``, ``WS`` (Wild Showdown), and ``!n`` for a
Showdown symbol with number n (``R7!2``).

>>> card = Card.parse("B+2")
>>> card.colour, card.rank, card.points
(<Colour.BLUE: 3>, <Rank.DRAW_TWO: 10>, 20)
>>> str(Card.parse("R7!2")), Card.parse("R7!2").showdown
('R7!2', 2)
>>> Card.parse("WS").is_wild
True
"""

from __future__ import annotations

import enum

from engine.core.errors import NotationError

__all__ = [
    "Colour",
    "Rank",
    "Card",
    "COLOURS",
    "WILD_COLOUR",
    "CARD_COUNT",
]


class Colour(enum.IntEnum):
    """The four card colours; ``str()`` is the letter used in every text form."""

    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3

    def __str__(self) -> str:
        return "RYGB"[self]

    @classmethod
    def parse(cls, text: str) -> Colour:
        """``Colour.parse("G")`` -> ``Colour.GREEN``."""
        index = "RYGB".find(text) if len(text) == 1 else -1
        if index < 0:
            raise NotationError(f"invalid colour {text!r}: expected one of R, Y, G, B")
        return cls(index)


class Rank(enum.IntEnum):
    """What is printed on a card besides its colour."""

    ZERO = 0
    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    DRAW_TWO = 10
    REVERSE = 11
    SKIP = 12
    WILD = 13
    WILD_DRAW_FOUR = 14
    WILD_SHOWDOWN = 15


COLOURS = tuple(Colour)
#: The colour field of a wild card's code.
WILD_COLOUR = 4
#: Size of the code space (every table indexed by card code has this length).
CARD_COUNT = 1 << 11

_RANK_TEXT = {**{r: str(int(r)) for r in Rank if r <= 9},
              Rank.DRAW_TWO: "+2", Rank.REVERSE: "R", Rank.SKIP: "S",
              Rank.WILD: "W", Rank.WILD_DRAW_FOUR: "W+4", Rank.WILD_SHOWDOWN: "WS"}
_POINTS = {**{r: int(r) for r in Rank if r <= 9},
           Rank.DRAW_TWO: 20, Rank.REVERSE: 20, Rank.SKIP: 20,
           Rank.WILD: 50, Rank.WILD_DRAW_FOUR: 50, Rank.WILD_SHOWDOWN: 40}
WILD_RANKS = (Rank.WILD, Rank.WILD_DRAW_FOUR, Rank.WILD_SHOWDOWN)


class Card(int):
    """One card face. Compare cards with cards; the int value is the code.

    Build one with ``Card.parse(text)`` or ``Card.of(colour, rank, showdown)``;
    both return the same shared instance for the same face.

    >>> Card.of(Colour.RED, Rank.FIVE) == Card.parse("R5")
    True
    >>> Card.parse("W+4").colour is None
    True
    >>> f"{Card.parse('YR')}"
    'YR'
    """

    __slots__ = ()

    @classmethod
    def of(cls, colour: Colour | None, rank: Rank, showdown: int = 0) -> Card:
        """The card with this colour (None for a wild), rank and Showdown number."""
        rank = Rank(rank)
        wild = rank in WILD_RANKS
        if wild != (colour is None):
            raise NotationError(f"{rank.name} {'takes no' if wild else 'needs a'} colour")
        if showdown and (wild or not 1 <= showdown <= 7):
            raise NotationError(f"a Showdown number must be 1-7 on a coloured card, not {showdown}")
        code = showdown << 8 | (WILD_COLOUR if wild else int(colour)) << 5 | rank
        return CARD[code]

    @classmethod
    def parse(cls, text: str) -> Card:
        """The card written as ``text`` (``R5``, ``B+2``, ``W+4``, ``G3!1``...)."""
        try:
            return _BY_TEXT[text]
        except (KeyError, TypeError):
            raise NotationError(
                f"invalid card {text!r}: expected e.g. R5, B+2, YR, GS, W, W+4, WS or R7!2"
            ) from None

    @property
    def colour(self) -> Colour | None:
        """The card's colour; None for a wild card."""
        colour = self >> 5 & 7
        return None if colour == WILD_COLOUR else COLOURS[colour]

    @property
    def rank(self) -> Rank:
        return Rank(self & 31)

    @property
    def number(self) -> int | None:
        """0-9 for a number card, else None."""
        rank = self & 31
        return rank if rank <= 9 else None

    @property
    def showdown(self) -> int:
        """The number on the Showdown symbol (cards to load), 0 if none."""
        return self >> 8

    @property
    def is_wild(self) -> bool:
        return self >> 5 & 7 == WILD_COLOUR

    @property
    def points(self) -> int:
        """What the card scores in an opponent's hand at the end of a round."""
        return _POINTS[Rank(self & 31)]

    def __str__(self) -> str:
        return TEXT[self]

    def __repr__(self) -> str:
        return f"Card.parse({TEXT[self]!r})"

    def __format__(self, spec: str) -> str:
        return format(TEXT[self], spec)


def _build():
    card = [None] * CARD_COUNT
    text = [""] * CARD_COUNT
    for showdown in range(8):
        for colour in range(5):
            for rank in Rank:
                if (colour == WILD_COLOUR) != (rank in WILD_RANKS):
                    continue
                if showdown and colour == WILD_COLOUR:
                    continue
                code = showdown << 8 | colour << 5 | rank
                card[code] = int.__new__(Card, code)
                prefix = "" if colour == WILD_COLOUR else "RYGB"[colour]
                text[code] = prefix + _RANK_TEXT[rank] + (f"!{showdown}" if showdown else "")
    return card, text


#: The shared Card instance for each code (None where no card has that code).
CARD, TEXT = _build()
#: Points by card code (0 where no card has that code).
POINTS_BY_CODE = [0 if c is None else c.points for c in CARD]
_BY_TEXT = {t: c for c, t in zip(CARD, TEXT) if t}
