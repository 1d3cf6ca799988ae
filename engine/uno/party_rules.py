"""UNO Party!'s rule choices and deck: the ``PartyRules`` house rules, the
packaged 224-card deck, and when a Wild Draw Four is legal.

The game itself is ``engine.uno.party.PartyGame``; docs/notation.md lists every
house rule with its default and why.

>>> rules = PartyRules.parse("first=once,pile_out=at_once,uno=4")
>>> rules.first_action, rules.pile_out, rules.uno_penalty, str(rules)
('once', 'at_once', 4, 'first=once,pile_out=at_once,uno=4')
>>> str(PartyRules())
'-'
>>> len(load_party_deck())
224
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine.game.errors import DeckError, NotationError
from engine.uno.cards import (
    COLOUR_MASK,
    COLOUR_SHIFT,
    COLOURS,
    LAST_NUMBER_RANK,
    RANK_MASK,
    WILD_COLOUR,
    Card,
    Rank,
)
from engine.uno.deck_file import read_deck_file

__all__ = [
    "PartyRules",
    "load_party_deck",
    "party_wild_draw_four_is_legal",
    "colour_of",
    "is_number",
    "POINT_CAP",
]

#: Most cards a player draws for being pointed at (Point Taken).
POINT_CAP = 5

_FIRST_ACTION = ("flip", "once")
_PILE_OUT = ("finish", "at_once")
_RELINK = ("move", "keep")

# name in the notation -> (field, kind): kind is "bool", "int" or a tuple of words.
_OPTIONS: dict[str, tuple[str, str | tuple[str, ...]]] = {
    "first": ("first_action", _FIRST_ACTION),
    "draw_closes_speed": ("draw_closes_speed", "bool"),
    "speed_out": ("speed_out", "bool"),
    "pointer_points": ("pointer_points", "bool"),
    "pile_wilds": ("pile_wilds", "bool"),
    "pile_refuse": ("pile_refuse", "bool"),
    "pile_out": ("pile_out", _PILE_OUT),
    "pile_is_draw": ("pile_is_draw", "bool"),
    "link_self": ("link_self", "bool"),
    "relink": ("relink", _RELINK),
    "cap_linked": ("cap_linked", "bool"),
    "wd4_all_wilds": ("wd4_all_wilds", "bool"),
    "uno": ("uno_penalty", "int"),
    "until": ("draw_until_playable", "bool"),
}
_NAMES = {field: name for name, (field, _) in _OPTIONS.items()}


@dataclasses.dataclass(frozen=True)
class PartyRules:
    """UNO Party!'s house rules; the defaults are the rules as the engine reads
    them (docs/notation.md says why each). In notation each non-default one is
    written ``name=value`` (``yes``/``no`` for a yes-no rule), ``-`` for none.

    first_action         "flip": cover a first action card until a number shows;
                         "once": flip one more card only, whatever it is
    draw_closes_speed    drawing closes the speed-play window
    speed_out            a player may go out by a speed play
    pointer_points       the player of Point Taken points too
    pile_wilds           flipped wilds join the mini pile (else: under the top discard)
    pile_refuse          a player may take the pile though they could add to it
    pile_out             going out during a pile up: "finish" the pile first, or
                         "at_once" (the pile is set aside in the discard pile)
    pile_is_draw         taking the pile counts as a draw for a linked player
    link_self            the player of Wild Drawn Together may link themselves
    relink               a second Drawn Together "move"s the link, or "keep"s the first
    cap_linked           Point Taken's 5-card cap also bounds the linked draw
    wd4_all_wilds        Wild Pile Up and Wild Drawn Together in hand also make a
                         Wild Draw Four illegal (a plain Wild always does)
    uno_penalty          cards drawn when caught without UNO
    draw_until_playable  a draw goes on until a playable card, at most 10
    """

    first_action: str = "flip"
    draw_closes_speed: bool = False
    speed_out: bool = True
    pointer_points: bool = True
    pile_wilds: bool = True
    pile_refuse: bool = False
    pile_out: str = "finish"
    pile_is_draw: bool = False
    link_self: bool = True
    relink: str = "move"
    cap_linked: bool = False
    wd4_all_wilds: bool = False
    uno_penalty: int = 2
    draw_until_playable: bool = False

    #: Party! offers no stacking (for code that asks any house rules).
    stacking = False
    #: Most cards a player draws under ``draw_until_playable``.
    DRAW_UNTIL_MAX = 10

    def __post_init__(self) -> None:
        for field, kind in _OPTIONS.values():
            value = getattr(self, field)
            if kind == "bool" and not isinstance(value, bool):
                raise ValueError(f"{field} must be True or False, not {value!r}")
            if isinstance(kind, tuple) and value not in kind:
                raise ValueError(f"{field} must be one of {', '.join(kind)}, not {value!r}")
        if (
            not isinstance(self.uno_penalty, int)
            or isinstance(self.uno_penalty, bool)
            or not 0 <= self.uno_penalty <= 20
        ):
            raise ValueError(f"uno_penalty must be 0-20, not {self.uno_penalty!r}")

    def __str__(self) -> str:
        parts = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value != f.default:
                if isinstance(value, bool):
                    value = "yes" if value else "no"
                parts.append(f"{_NAMES[f.name]}={value}")
        return ",".join(parts) or "-"

    @classmethod
    def parse(cls, text: str) -> PartyRules:
        """The house rules as ``str()`` writes them (``-`` for all defaults)."""
        if text == "-":
            return cls()
        # The keyword arguments of mixed types (bool, int, str): __post_init__ checks them.
        options: dict[str, Any] = {}
        try:
            for part in text.split(","):
                name, _, value = part.partition("=")
                if name in ("stack", "stacking"):
                    raise ValueError("stacking is not offered in UNO Party!")
                if name not in _OPTIONS or not value:
                    raise ValueError(f"unknown option {part!r}")
                field, kind = _OPTIONS[name]
                if field in options:
                    raise ValueError(f"{name} given twice")
                if kind == "bool":
                    if value not in ("yes", "no"):
                        raise ValueError(f"{name}={value}: expected yes or no")
                    options[field] = value == "yes"
                elif kind == "int":
                    if not value.isdigit():
                        raise ValueError(f"{name}={value}: expected a whole number")
                    options[field] = int(value)
                else:
                    options[field] = value
            return cls(**options)
        except ValueError as exc:
            raise NotationError(
                f"invalid Party! house rules {text!r}: {exc} (options: "
                + ", ".join(f"{name}=" for name in _OPTIONS)
                + ")"
            ) from None


def colour_of(card: int) -> int:
    """A card code's colour field (WILD_COLOUR for a wild)."""
    return card >> COLOUR_SHIFT & COLOUR_MASK


def is_number(card: int) -> bool:
    """A number card (0-9): the only top card that opens the speed-play window."""
    return colour_of(card) != WILD_COLOUR and card & RANK_MASK <= LAST_NUMBER_RANK


def party_wild_draw_four_is_legal(hand: Iterable[int], colour: int, all_wilds: bool) -> bool:
    """Whether a Wild Draw Four was legal in Party!: the ``hand`` it left (card
    codes) holds no card of ``colour`` and no Wild (nor, with ``all_wilds``, a
    Wild Pile Up or Wild Drawn Together).

    >>> from engine.uno.cards import Colour
    >>> codes = lambda *texts: [int(Card.parse(t)) for t in texts]
    >>> party_wild_draw_four_is_legal(codes("B1", "WP"), Colour.RED, False)
    True
    >>> party_wild_draw_four_is_legal(codes("B1", "W"), Colour.RED, False)
    False
    >>> party_wild_draw_four_is_legal(codes("B1", "WP"), Colour.RED, True)
    False
    """
    for card in hand:
        card_colour = card >> COLOUR_SHIFT & COLOUR_MASK
        if card_colour == colour:
            return False
        if card_colour == WILD_COLOUR:
            rank = card & RANK_MASK
            if rank == Rank.WILD or (
                all_wilds and rank in (Rank.WILD_PILE_UP, Rank.WILD_DRAWN_TOGETHER)
            ):
                return False
    return True


_DECK_KEYS = {
    "coloured_sets": None,
    "point_taken": Rank.POINT_TAKEN,
    "wild": Rank.WILD,
    "wild_draw_four": Rank.WILD_DRAW_FOUR,
    "wild_pile_up": Rank.WILD_PILE_UP,
    "wild_drawn_together": Rank.WILD_DRAWN_TOGETHER,
}


def load_party_deck(path: str | Path | None = None) -> tuple[Card, ...]:
    """The Party! deck from a deck file (``engine/uno/data/party_deck.toml`` by default)."""
    data, name = read_deck_file(path, "party_deck.toml", _DECK_KEYS)
    counts = {}
    for key in _DECK_KEYS:
        value = data.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 20:
            raise DeckError(f"{name}: {key}: must be a whole number 0-20, not {value!r}")
        counts[key] = value
    cards: list[Card] = []
    for colour in COLOURS:
        one_set = [Card.of(colour, Rank.ZERO)] + [
            Card.of(colour, rank) for rank in Rank if Rank.ONE <= rank <= Rank.SKIP for _ in (1, 2)
        ]
        cards += one_set * counts["coloured_sets"]
        cards += [Card.of(colour, Rank.POINT_TAKEN)] * counts["point_taken"]
    for key, rank in _DECK_KEYS.items():
        if rank is not None and rank != Rank.POINT_TAKEN:
            cards += [Card.of(None, rank)] * counts[key]
    return tuple(cards)
