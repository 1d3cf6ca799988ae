"""Tables the game's hot path reads instead of computing: which cards may be
played on what, and the pre-built actions ``legal_actions()`` hands out.

Everything is indexed by plain card code (see ``engine.core.cards``), so the game
keeps its hands and piles as lists of ints and never builds an object to answer
"what may be played?".

>>> from engine.core.cards import Card
>>> [str(a) for a in PLAIN_PLAYS[Card.parse("W")]]
['W=R', 'W=Y', 'W=G', 'W=B']
>>> red_five = 0 << 5 | 5  # match key: colour << 5 | rank of the top card
>>> PLAYABLE[red_five][Card.parse("B5")], PLAYABLE[red_five][Card.parse("B6")]
(True, False)
"""

from __future__ import annotations

from engine.core.actions import _PLAYS, Action
from engine.core.cards import CARD, COLOURS, POINTS_BY_CODE, WILD_COLOUR

__all__ = ["PLAIN_PLAYS", "UNO_PLAYS", "PLAYABLE", "POINTS", "DRAW", "KEEP", "CHALLENGE",
           "ACCEPT", "CATCHES", "DRAW_ONLY", "DRAW_AND_CATCH", "RESULTS", "COLOUR_CHOICES"]


def _build_play_tables():
    plain, with_uno = [()] * len(CARD), [()] * len(CARD)
    for (card, colour, uno), action in _PLAYS.items():
        if uno:
            with_uno[card] += (action,)
        else:
            plain[card] += (action,)
    both = [p + u for p, u in zip(plain, with_uno)]
    return plain, both


def _build_playable():
    tables = [None] * (4 * 32)
    for colour in range(4):
        for rank in range(16):
            low = [c is not None and ((c >> 5 & 7) in (colour, WILD_COLOUR) or (c & 31) == rank)
                   for c in CARD[:256]]
            # The Showdown bits (above bit 8) do not matter. A list, not bytes:
            # indexing a list is the faster of the two in CPython 3.11.
            tables[colour << 5 | rank] = low * (len(CARD) // 256)
    return tables


#: By card code: the card's plays (a wild once per colour), and the same
#: followed by the plays that call UNO (offered to a player holding two cards).
PLAIN_PLAYS, UNO_PLAYS = _build_play_tables()
#: By match key ``colour << 5 | rank`` of the top card: a list, by card code,
#: True where that card may be played on it.
PLAYABLE = _build_playable()
#: By card code: the card's points at the end of a round.
POINTS = POINTS_BY_CODE
DRAW, KEEP = Action.draw(), Action.keep()
CHALLENGE, ACCEPT = Action.challenge(), Action.accept()
CATCHES = tuple(Action.catch(p) for p in range(32))
#: The tails of a turn's legal actions: ``draw`` alone, or ``draw, catch P``.
DRAW_ONLY = (DRAW,)
DRAW_AND_CATCH = tuple((DRAW, catch) for catch in CATCHES)
RESULTS = tuple(Action.showdown_result(p) for p in range(32))
COLOUR_CHOICES = tuple(Action.choose_colour(c) for c in COLOURS)
