"""UNO's cards for a terminal: the code a player types, with its colour and a
symbol and its words, so a card is never a bare code on a colour terminal.

``styled(card, True)`` colours the card (ANSI SGR: red, yellow, green, blue, or
bold for a wild) and puts its colour's symbol and its words beside the code; with
``False`` (the output is not a terminal, or ``NO_COLOR`` is set: ``use_colour``)
it is the code alone, as logs, pipes and screen readers have always read it.

>>> styled(Card.parse("R7"), False), styled(Card.parse("R7"), True)
('R7', '\\x1b[1;31m●R7 red 7\\x1b[0m')
>>> styled(Card.parse("W+4"), True)
'\\x1b[1;35m★W+4 Wild Draw Four\\x1b[0m'
>>> use_colour(True, {"NO_COLOR": "1"}), use_colour(True, {}), use_colour(False, {})
(False, True, False)
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.uno.cards import Card
from engine.uno.words import card_name

__all__ = ["styled", "use_colour", "SYMBOLS"]

#: Each colour's ANSI colour and a symbol beside it (never colour alone): by letter.
_SGR = {"R": "1;31", "Y": "1;33", "G": "1;32", "B": "1;34", None: "1;35"}
#: The symbols: a shape per colour, so a colour-blind player reads the shape.
SYMBOLS = {"R": "●", "Y": "▲", "G": "■", "B": "◆", None: "★"}


def use_colour(is_tty: bool, environ: Mapping[str, str]) -> bool:
    """Colour only on a terminal, and never with ``NO_COLOR`` set (no-color.org)."""
    return is_tty and not environ.get("NO_COLOR")


def styled(card: Card, colour: bool) -> str:
    """The card as a terminal shows it: coloured, with a symbol and words, or its code."""
    if not colour:
        return str(card)
    letter = None if card.colour is None else str(card.colour)
    return f"\x1b[{_SGR[letter]}m{SYMBOLS[letter]}{card} {card_name(card)}\x1b[0m"
