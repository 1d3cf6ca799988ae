"""HeuristicBot's choices on a playout's ints (engine.uno.playout), compiled by
mypyc with the kernel that calls them (``make build``).

Each function here decides exactly as ``engine.uno.bots.HeuristicBot`` does
through its ``PlayerView``, from the same facts (its own hand, everyone's hand
sizes, the discard pile, the colour, the scores), but on card codes and the
playout's int decisions (engine.uno.playout_codes): the playout's API test
(tests/test_uno_playout.py) replays both and compares every decision.

>>> from engine.uno.cards import Card
>>> best_colour([Card.parse("B1"), Card.parse("G5"), Card.parse("B2")])
3
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from engine.uno.bots import HeuristicBot
from engine.uno.cards import (
    COLOUR_MASK,
    COLOUR_SHIFT,
    POINTS_BY_CODE,
    RANK_MASK,
    WILD_COLOUR,
    Rank,
)
from engine.uno.playout_codes import CARD_BITS, COLOUR_SHIFT_PLAY, UNO_BIT

__all__ = ["best_colour", "best_play", "held_colour_chance", "showdown_face", "CHALLENGE_AT"]

_WD4 = int(Rank.WILD_DRAW_FOUR)
_REVERSE = int(Rank.REVERSE)
_ACTION_RANKS = frozenset(map(int, (Rank.DRAW_TWO, Rank.SKIP, Rank.REVERSE)))
_DANGER = HeuristicBot.DANGER_CARDS
_CLOSE_CARDS = HeuristicBot.CLOSE_CARDS
_CLOSE_SCORE = HeuristicBot.CLOSE_SCORE
#: HeuristicBot's default challenge threshold (its constructor's default).
CHALLENGE_AT = 1 / 3


def best_colour(cards: Iterable[int]) -> int:
    """The colour held most among ``cards`` (ties: most points, then R, Y, G, B)."""
    count = [0, 0, 0, 0, 0]
    points = [0, 0, 0, 0, 0]
    for card in cards:
        colour = card >> COLOUR_SHIFT & COLOUR_MASK
        count[colour] += 1
        points[colour] += POINTS_BY_CODE[card]
    best = 0
    for colour in (1, 2, 3):
        if (count[colour], points[colour]) > (count[best], points[best]):
            best = colour
    return best


def best_play(
    plays: Sequence[int],
    me: int,
    hands: list[list[int]],
    top: int,
    direction: int,
    drawn: bool,
) -> int | None:
    """HeuristicBot's play among ``plays`` (ints, in legal order: with the UNO
    calls when the hand holds two cards), or None to draw, keep or accept.
    ``top`` is the game's match key, ``drawn`` whether the player decides on the
    card just drawn."""
    if not plays:
        return None
    hand = hands[me]
    if len(hand) == 2:
        plays = [a for a in plays if a & UNO_BIT]  # always call UNO
    held = [0, 0, 0, 0, 0]  # the hand's cards by colour field
    for c in hand:
        held[c >> COLOUR_SHIFT & COLOUR_MASK] += 1
    colour = top >> COLOUR_SHIFT
    if colour != WILD_COLOUR and held[colour]:
        # Only honest Wild Draw Fours: holding the colour makes it challengeable.
        plays = [a for a in plays if a & RANK_MASK != _WD4]
        if not plays:
            return None
    n = len(hands)
    danger = False
    for p in range(n):
        if p != me and len(hands[p]) <= _DANGER:
            danger = True
            break
    if drawn and (plays[0] & CARD_BITS) >> COLOUR_SHIFT == WILD_COLOUR and not danger:
        return None  # a drawn wild is kept for later
    next_small = len(hands[(me + direction) % n]) <= _DANGER
    best = plays[0]
    best_score = -math.inf
    for action in plays:
        card = action & CARD_BITS
        rank = card & RANK_MASK
        card_colour = card >> COLOUR_SHIFT & COLOUR_MASK
        score: float
        if card_colour == WILD_COLOUR:
            if rank == _WD4:
                score = 300.0 if next_small else (100.0 if danger else -100.0)
            else:
                score = 100.0 if danger else -100.0
        else:
            score = 10 * held[card_colour] + POINTS_BY_CODE[card] / 10
            if rank in _ACTION_RANKS:
                useful = rank != _REVERSE or n == 2
                score += (200 if useful else 50) if next_small else -20
        if score > best_score:
            best, best_score = action, score
    card = best & CARD_BITS
    if card >> COLOUR_SHIFT == WILD_COLOUR:
        rest = list(hand)
        rest.remove(card)
        return card | best_colour(rest) << COLOUR_SHIFT_PLAY | best & UNO_BIT
    return best


def held_colour_chance(
    me: int,
    hands: list[list[int]],
    discard: list[int],
    direction: int,
    deck_colours: Sequence[int],
    deck_size: int,
) -> float | None:
    """HeuristicBot.held_colour_chance: the chance that whoever just played a
    Wild Draw Four still holds the colour it covered, from what ``me`` sees.
    ``deck_colours`` counts the variant's deck by colour."""
    if len(discard) < 2:
        return None
    covered = discard[-2] >> COLOUR_SHIFT & COLOUR_MASK
    if covered == WILD_COLOUR:
        return None
    hand = hands[me]
    seen = 0
    for c in hand:
        if c >> COLOUR_SHIFT & COLOUR_MASK == covered:
            seen += 1
    for c in discard:
        if c >> COLOUR_SHIFT & COLOUR_MASK == covered:
            seen += 1
    total = deck_size - len(hand) - len(discard)
    of_colour = deck_colours[covered] - seen
    held = min(len(hands[(me - direction) % len(hands)]), total)
    return 1 - math.comb(total - of_colour, held) / math.comb(total, held)


def showdown_face(
    me: int, hands: list[list[int]], scores: list[int], target: int, low: int, high: int
) -> tuple[int, int]:
    """HeuristicBot.choose_showdown: (opponent, cards) for a Wild Showdown."""
    n = len(hands)
    opponent = min((p for p in range(n) if p != me), key=lambda p: (len(hands[p]), -scores[p], p))
    close = len(hands[opponent]) <= _CLOSE_CARDS or scores[opponent] >= _CLOSE_SCORE * target
    return opponent, high if close else low
