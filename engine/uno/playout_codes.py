"""The integer decisions a playout makes, read from the game's own action tables.

A playout (engine.uno.playout) never builds an ``Action``: it chooses among
small ints. A play is its card code, plus the named colour of a wild at
``COLOUR_SHIFT_PLAY`` and ``UNO_BIT`` when it calls UNO; the other decisions
are the negative constants below. The tables are read from
``engine.uno.tables`` (the lists ``legal_actions()`` hands out), so a
playout offers the same plays in the same order as the game does.

>>> from engine.uno.cards import Card
>>> [str(action_of(code)) for code in PLAYS_UNO[Card.parse("R5")]]
['R5', 'R5 uno']
>>> str(action_of(PLAYS[Card.parse("W")][2]))
'W=G'
"""

from __future__ import annotations

from engine.uno.actions import Action
from engine.uno.cards import CARD_COUNT
from engine.uno.tables import PLAIN_PLAYS, UNO_PLAYS

__all__ = [
    "UNO_BIT",
    "COLOUR_SHIFT_PLAY",
    "CARD_BITS",
    "DRAW",
    "KEEP",
    "CHALLENGE",
    "ACCEPT",
    "CATCH_BASE",
    "PLAYS",
    "PLAYS_UNO",
    "play_code",
    "action_of",
]

#: A play's card code takes the low 11 bits; the colour a wild names sits above them.
CARD_BITS = CARD_COUNT - 1
COLOUR_SHIFT_PLAY = 11
#: Set on a play that calls UNO.
UNO_BIT = 1 << 14

DRAW = -1
KEEP = -2
CHALLENGE = -3
ACCEPT = -4
#: ``CATCH_BASE - player``: catch that player (who did not call UNO).
CATCH_BASE = -10


def play_code(action: Action) -> int:
    """The int of a play action (``action.kind`` is PLAY)."""
    code = int(action.card or 0)
    if action.colour is not None:
        code |= int(action.colour) << COLOUR_SHIFT_PLAY
    if action.uno:
        code |= UNO_BIT
    return code


#: By card code: the card's plays as ints, in ``PLAIN_PLAYS``' order (a
#: card's first play is its own code: no colour named, no UNO called) ...
PLAYS: list[tuple[int, ...]] = [tuple(map(play_code, plays)) for plays in PLAIN_PLAYS]
#: ... and in ``UNO_PLAYS``' (offered to a player holding two cards).
PLAYS_UNO: list[tuple[int, ...]] = [tuple(map(play_code, plays)) for plays in UNO_PLAYS]

_BY_CODE = {play_code(action): action for plays in (*PLAIN_PLAYS, *UNO_PLAYS) for action in plays}


def action_of(code: int) -> Action:
    """The game's Action for a playout's int decision (turn and penalty
    decisions; a colour, a face and a showdown result are logged as Actions
    by the playout itself)."""
    if code >= 0:
        return _BY_CODE[code]
    if code == DRAW:
        return Action.draw()
    if code == KEEP:
        return Action.keep()
    if code == CHALLENGE:
        return Action.challenge()
    if code == ACCEPT:
        return Action.accept()
    return Action.catch(CATCH_BASE - code)
