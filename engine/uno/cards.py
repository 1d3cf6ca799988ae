"""Cards: colours, ranks and the Card value with its text form.

A card is an ``int`` (its *code*) so the engine can keep hands as lists of ints
and look everything up in flat tables; ``Card`` is the int subclass that gives
it a name and a text form. Codes pack three fields::

    code = showdown << SHOWDOWN_SHIFT | colour << COLOUR_SHIFT | rank

with colour 0-3 (red, yellow, green, blue) or WILD_COLOUR (4) for a wild card,
rank 0-31 (0-9 numbers, then the action ranks, then UNO Party's cards)
and showdown 0 (no symbol) or the number on the Showdown symbol (1-7). The
fields' masks and shifts are named below (``RANK_MASK``, ``COLOUR_SHIFT``...);
the logic uses those names, never the bare numbers.

Text forms: colour letter + rank (``R5``, ``B+2`` draw two, ``YR`` reverse,
``GS`` skip), wilds ``W``, ``W+4``, ``WS`` (Wild Showdown), and ``!n`` for a
Showdown symbol with number n (``R7!2``). UNO Party! adds ``RP`` (Point Taken,
coloured), ``WP`` (Wild Pile Up) and ``WT`` (Wild Drawn Together).

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
from typing import cast

from engine.game.errors import NotationError

__all__ = [
    "Colour",
    "Rank",
    "Card",
    "COLOURS",
    "WILD_COLOUR",
    "CARD_COUNT",
    "CODE_MASK",
    "RANK_MASK",
    "COLOUR_SHIFT",
    "COLOUR_MASK",
    "SHOWDOWN_SHIFT",
    "SHOWDOWN_MASK",
    "FACE_MASK",
    "NUMBER_TEST_MASK",
    "LAST_NUMBER_RANK",
    "FIRST_WILD_RANK",
    "WILD_RANKS",
    "PARTY_RANKS",
    "MAX_SHOWDOWN",
    "CARD",
    "REAL_CARD",
    "TEXT",
]


#: The colours' letters, by colour number.
_LETTERS = "RYGB"


class Colour(enum.IntEnum):
    """The four card colours; ``str()`` is the letter used in every text form."""

    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3

    def __str__(self) -> str:
        return _LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Colour:
        """``Colour.parse("G")`` -> ``Colour.GREEN``."""
        index = _LETTERS.find(text) if len(text) == 1 else -1
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
    # UNO Party!'s cards (engine.uno.party): Point Taken is coloured, the other two wild.
    POINT_TAKEN = 16
    WILD_PILE_UP = 17
    WILD_DRAWN_TOGETHER = 18


COLOURS = tuple(Colour)
#: The colour field of a wild card's code.
WILD_COLOUR = 4

# The fields of a card code (see the module docstring), as the tables and the
# hot path read them: ``code & RANK_MASK``, ``code >> COLOUR_SHIFT & COLOUR_MASK``,
# ``code >> SHOWDOWN_SHIFT``.
#: Bits 0-4: the rank.
RANK_MASK = 0x1F
#: Bits 5-7: the colour (0-3, or WILD_COLOUR).
COLOUR_SHIFT = 5
COLOUR_MASK = 0x7
#: Bits 8-10: the number on the Showdown symbol (0: none).
SHOWDOWN_SHIFT = 8
SHOWDOWN_MASK = 0x700
#: Bits 0-7, colour and rank: a code less its Showdown number. For a coloured
#: card this is also its match key (see ``engine.uno.tables.PLAYABLE``).
FACE_MASK = 0xFF
#: Rank and Showdown number: ``code & NUMBER_TEST_MASK <= LAST_NUMBER_RANK`` holds
#: exactly for a number card without a Showdown symbol (the game's fast path).
NUMBER_TEST_MASK = SHOWDOWN_MASK | RANK_MASK
#: Size of the code space, 11 bits (every table indexed by card code has this length).
CARD_COUNT = 1 << 11
#: All the bits: ``card & CODE_MASK`` is a Card's code as a plain int (the piles
#: and hands hold plain ints; this is faster than ``int(card)``).
CODE_MASK = CARD_COUNT - 1
#: The highest Showdown number, and so the most cards a showdown puts at stake.
MAX_SHOWDOWN = 7

# Rank boundaries, as plain ints (comparing with an IntEnum member is slower):
# ranks up to LAST_NUMBER_RANK are the number cards, then the coloured action
# cards (Draw Two, Reverse, Skip), and from FIRST_WILD_RANK on the wilds of a
# classic or Showdown deck (Game's fast tests). UNO Party!'s ranks come after
# those and Point Taken among them is coloured: engine.uno.party tests the colour
# field for wildness.
LAST_NUMBER_RANK = int(Rank.NINE)
FIRST_WILD_RANK = int(Rank.WILD)

_RANK_TEXT = {
    **{r: str(int(r)) for r in Rank if r <= LAST_NUMBER_RANK},
    Rank.DRAW_TWO: "+2",
    Rank.REVERSE: "R",
    Rank.SKIP: "S",
    Rank.WILD: "W",
    Rank.WILD_DRAW_FOUR: "W+4",
    Rank.WILD_SHOWDOWN: "WS",
    Rank.POINT_TAKEN: "P",
    Rank.WILD_PILE_UP: "WP",
    Rank.WILD_DRAWN_TOGETHER: "WT",
}
_POINTS = {
    **{r: int(r) for r in Rank if r <= LAST_NUMBER_RANK},
    Rank.DRAW_TWO: 20,
    Rank.REVERSE: 20,
    Rank.SKIP: 20,
    Rank.WILD: 50,
    Rank.WILD_DRAW_FOUR: 50,
    Rank.WILD_SHOWDOWN: 40,
    Rank.POINT_TAKEN: 20,
    Rank.WILD_PILE_UP: 50,
    Rank.WILD_DRAWN_TOGETHER: 50,
}
#: The ranks of the wild cards (colour field WILD_COLOUR).
WILD_RANKS = (
    Rank.WILD,
    Rank.WILD_DRAW_FOUR,
    Rank.WILD_SHOWDOWN,
    Rank.WILD_PILE_UP,
    Rank.WILD_DRAWN_TOGETHER,
)
#: The ranks only UNO Party! deals (Point Taken is coloured, though numbered
#: after the wilds: test a card's wildness by its colour field, not its rank).
PARTY_RANKS = (Rank.POINT_TAKEN, Rank.WILD_PILE_UP, Rank.WILD_DRAWN_TOGETHER)


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
        if showdown and (wild or not 1 <= showdown <= MAX_SHOWDOWN):
            raise NotationError(
                f"a Showdown number must be 1-{MAX_SHOWDOWN} on a coloured card, not {showdown}"
            )
        code = (
            showdown << SHOWDOWN_SHIFT
            | (WILD_COLOUR if colour is None else int(colour)) << COLOUR_SHIFT
            | rank
        )
        return cast(Card, CARD[code])  # a real card's code: the checks above hold

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
        colour = self >> COLOUR_SHIFT & COLOUR_MASK
        return None if colour == WILD_COLOUR else COLOURS[colour]

    @property
    def rank(self) -> Rank:
        return Rank(self & RANK_MASK)

    @property
    def number(self) -> int | None:
        """0-9 for a number card, else None."""
        rank = self & RANK_MASK
        return rank if rank <= LAST_NUMBER_RANK else None

    @property
    def showdown(self) -> int:
        """The number on the Showdown symbol (cards to load), 0 if none."""
        return self >> SHOWDOWN_SHIFT

    @property
    def is_wild(self) -> bool:
        return self >> COLOUR_SHIFT & COLOUR_MASK == WILD_COLOUR

    @property
    def points(self) -> int:
        """What the card scores in an opponent's hand at the end of a round."""
        return _POINTS[Rank(self & RANK_MASK)]

    def __str__(self) -> str:
        return TEXT[self]

    def __repr__(self) -> str:
        return f"Card.parse({TEXT[self]!r})"

    def __format__(self, spec: str) -> str:
        return format(TEXT[self], spec)


def _build() -> tuple[list[Card | None], list[str]]:
    card: list[Card | None] = [None] * CARD_COUNT
    text = [""] * CARD_COUNT
    for showdown in range(MAX_SHOWDOWN + 1):
        for colour in range(WILD_COLOUR + 1):
            for rank in Rank:
                if (colour == WILD_COLOUR) != (rank in WILD_RANKS):
                    continue
                if showdown and colour == WILD_COLOUR:
                    continue
                code = showdown << SHOWDOWN_SHIFT | colour << COLOUR_SHIFT | rank
                card[code] = int.__new__(Card, code)
                prefix = "" if colour == WILD_COLOUR else _LETTERS[colour]
                text[code] = prefix + _RANK_TEXT[rank] + (f"!{showdown}" if showdown else "")
    return card, text


#: The shared Card instance for each code (None where no card has that code).
CARD, TEXT = _build()
#: CARD for the codes a game holds (hands, piles and the unit hold real cards'
#: codes only): the same list, typed without the None of the codes of no card.
#: A cast, once here: a check on each lookup would cost the hot path.
REAL_CARD = cast("list[Card]", CARD)
#: Points by card code (0 where no card has that code).
POINTS_BY_CODE = [0 if c is None else c.points for c in CARD]
_BY_TEXT = {t: c for c, t in zip(CARD, TEXT, strict=True) if c is not None}
