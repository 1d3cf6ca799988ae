"""The opponents' plays since the search bot's last decision, and whether a
world agrees with HeuristicBot having made them.

``Belief`` (engine.uno.belief) records each play it can tell apart as a
``SeenPlay``: who played which card from its hand, on what top, with which
hand sizes around the table. In a world, that player's hand then was its hand
now plus the card, so ``heuristic_would`` can ask whether HeuristicBot would
have played it: a card no other playable card outscores (HeuristicBot's own
scores, as engine.uno.playout_heuristic's ``best_play`` keeps them), and for a
wild whose colour was seen, the colour held most in the rest. The search bot
keeps a world that disagrees only by chance (its plan's ``misfit``): soft, so
an opponent who plays otherwise (a person) is not misread badly.

>>> from engine.uno.cards import Card, Colour, Rank
>>> from engine.uno.tables import match_key
>>> r5 = match_key(Colour.RED, Rank.FIVE)
>>> played_r9 = SeenPlay(1, int(Card.parse("R9")), None, r5, (5, 5, 5, 5), 1)
>>> heuristic_would(played_r9, [int(Card.parse(c)) for c in ("R1", "R2", "B3")])
True
>>> heuristic_would(played_r9, [int(Card.parse(c)) for c in ("B5", "B1", "B2")])
False
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from engine.uno.bots import HeuristicBot
from engine.uno.cards import COLOUR_MASK, COLOUR_SHIFT, POINTS_BY_CODE, RANK_MASK, WILD_COLOUR, Rank
from engine.uno.playout_heuristic import best_colour
from engine.uno.tables import PLAYABLE

__all__ = ["SeenPlay", "heuristic_would"]

_WD4 = int(Rank.WILD_DRAW_FOUR)
_REVERSE = int(Rank.REVERSE)
_ACTION_RANKS = frozenset(map(int, (Rank.DRAW_TWO, Rank.SKIP, Rank.REVERSE)))
_DANGER = HeuristicBot.DANGER_CARDS


class SeenPlay(NamedTuple):
    """``player`` played ``card`` (a code) from its hand on the match key
    ``key``, naming ``named`` (a wild's colour, None when not seen or not a
    wild), the hand sizes then ``sizes`` (its own before the play) and the
    play's ``direction``."""

    player: int
    card: int
    named: int | None
    key: int
    sizes: tuple[int, ...]
    direction: int


def _score(card: int, held: list[int], danger: bool, next_small: bool, players: int) -> float:
    """HeuristicBot's score of playing ``card`` (playout_heuristic.best_play's)."""
    rank = card & RANK_MASK
    colour = card >> COLOUR_SHIFT & COLOUR_MASK
    if colour == WILD_COLOUR:
        if rank == _WD4:
            return 300.0 if next_small else (100.0 if danger else -100.0)
        return 100.0 if danger else -100.0
    score = 10 * held[colour] + POINTS_BY_CODE[card] / 10
    if rank in _ACTION_RANKS:
        useful = rank != _REVERSE or players == 2
        score += (200 if useful else 50) if next_small else -20
    return score


def heuristic_would(play: SeenPlay, hand_after: Sequence[int]) -> bool:
    """Whether HeuristicBot, holding ``hand_after`` and ``play.card``, could have
    made ``play`` (a tie of scores counts: the hand's order is not seen)."""
    hand = [*hand_after, play.card]
    playable = PLAYABLE[play.key]
    held = [0, 0, 0, 0, 0]
    for c in hand:
        held[c >> COLOUR_SHIFT & COLOUR_MASK] += 1
    top_colour = play.key >> COLOUR_SHIFT
    honest = top_colour != WILD_COLOUR and held[top_colour] > 0
    if honest and play.card & RANK_MASK == _WD4:
        return False  # it holds the colour: HeuristicBot never plays this one
    sizes, me, players = play.sizes, play.player, len(play.sizes)
    danger = any(size <= _DANGER for p, size in enumerate(sizes) if p != me)
    next_small = sizes[(me + play.direction) % players] <= _DANGER
    mine = _score(play.card, held, danger, next_small, players)
    for c in hand:
        outscores = playable[c] and _score(c, held, danger, next_small, players) > mine
        if outscores and not (honest and c & RANK_MASK == _WD4):
            return False
    return play.named is None or best_colour(hand_after) == play.named
