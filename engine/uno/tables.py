"""Tables the game's hot path reads instead of computing: which cards may be
played on what, and the pre-built actions ``legal_actions()`` hands out.

Everything is indexed by plain card code (see ``engine.uno.cards``), so the game
keeps its hands and piles as lists of ints and never builds an object to answer
"what may be played?".

>>> from engine.uno.cards import Card, Colour, Rank
>>> [str(a) for a in PLAIN_PLAYS[Card.parse("W")]]
['W=R', 'W=Y', 'W=G', 'W=B']
>>> red_five = match_key(Colour.RED, Rank.FIVE)  # what the top card asks for
>>> PLAYABLE[red_five][Card.parse("B5")], PLAYABLE[red_five][Card.parse("B6")]
(True, False)
"""

from __future__ import annotations

from typing import cast

from engine.uno.actions import _PLAYS, Action
from engine.uno.cards import (
    CARD,
    COLOUR_MASK,
    COLOUR_SHIFT,
    COLOURS,
    POINTS_BY_CODE,
    RANK_MASK,
    SHOWDOWN_SHIFT,
    WILD_COLOUR,
    Rank,
)
from engine.uno.notation import PHASES
from engine.uno.rules import Effect, card_effects

__all__ = [
    "PLAIN_PLAYS",
    "UNO_PLAYS",
    "PLAYABLE",
    "POINTS",
    "DRAW",
    "KEEP",
    "CHALLENGE",
    "ACCEPT",
    "CATCHES",
    "DRAW_ONLY",
    "DRAW_AND_CATCH",
    "RESULTS",
    "COLOUR_CHOICES",
    "PLAYER_SLOTS",
    "match_key",
    "EFFECTS",
    "PASS_TURN",
]

#: Players the per-player tables (CATCHES, RESULTS...) cover: 0-31, room to
#: spare (a variant seats at most 10).
PLAYER_SLOTS = 32


def match_key(colour: int, rank: int) -> int:
    """What a top card asks the next card to match: its colour (the named one
    for a wild; WILD_COLOUR while a first wild's is unnamed) and its rank. The
    game keeps this as ``Game._top``; it indexes PLAYABLE."""
    return colour << COLOUR_SHIFT | rank


#: What a card does, as the plain tuple ``Game._play`` unpacks (a tuple, not a
#: NamedTuple: unpacking an exact tuple is the faster): turns, reverses, cards
#: (its draws, or its penalty when the phase is ``penalty``), names_colour,
#: challengeable, phase (the index of its word in notation.PHASES) and the row
#: of its effect as a last card (None: the same). The fields are rules.Effect's.
EffectRow = tuple[int, bool, int, bool, bool, int, "EffectRow | None"]
#: The row of ``Effect()``, a card that only passes the turn on (a number
#: card): ``Game._play`` knows it by identity and takes a short way for it.
PASS_TURN: EffectRow = (1, False, 0, False, False, PHASES.index("play"), None)


def _effect_row(effect: Effect) -> EffectRow:
    if effect == Effect():
        return PASS_TURN
    return (
        effect.turns,
        effect.reverses,
        effect.draws or effect.penalty,
        effect.names_colour,
        effect.challengeable,
        PHASES.index(effect.then),
        None if effect.last_card is None else _effect_row(effect.last_card),
    )


def _effects_by_rank(two_players: bool, stacking: bool) -> tuple[EffectRow, ...]:
    effects = card_effects(two_players=two_players, stacking=stacking)
    return tuple(_effect_row(effects[rank]) for rank in Rank)  # Rank runs 0, 1, 2...


def _build_play_tables() -> tuple[list[tuple[Action, ...]], list[tuple[Action, ...]]]:
    plain: list[tuple[Action, ...]] = [()] * len(CARD)
    with_uno: list[tuple[Action, ...]] = [()] * len(CARD)
    for (card, _colour, uno), action in _PLAYS.items():
        if uno:
            with_uno[card] += (action,)
        else:
            plain[card] += (action,)
    both = [p + u for p, u in zip(plain, with_uno, strict=True)]
    return plain, both


def _build_playable() -> list[list[bool]]:
    tables: list[list[bool] | None] = [None] * match_key(len(COLOURS), 0)
    faces = 1 << SHOWDOWN_SHIFT  # the codes without a Showdown number
    for colour in COLOURS:
        for rank in Rank:
            low = [
                c is not None
                and (
                    (c >> COLOUR_SHIFT & COLOUR_MASK) in (colour, WILD_COLOUR)
                    or (c & RANK_MASK) == rank
                )
                for c in CARD[:faces]
            ]
            # The Showdown number does not matter: the same list for each. A
            # list, not bytes: indexing a list is the faster of the two in CPython 3.11.
            tables[match_key(colour, rank)] = low * (len(CARD) // faces)
    # The keys of no card's face (ranks past the last) stay None; nothing reads
    # them, so the cast drops the None from the type.
    return cast("list[list[bool]]", tables)


#: By card code: the card's plays (a wild once per colour), and the same
#: followed by the plays that call UNO (offered to a player holding two cards).
PLAIN_PLAYS, UNO_PLAYS = _build_play_tables()
#: By match key (``match_key(colour, rank)``) of the top card: a list, by card
#: code, True where that card may be played on it.
PLAYABLE = _build_playable()
#: By card code: the card's points at the end of a round.
POINTS = POINTS_BY_CODE
DRAW, KEEP = Action.draw(), Action.keep()
CHALLENGE, ACCEPT = Action.challenge(), Action.accept()
CATCHES = tuple(Action.catch(p) for p in range(PLAYER_SLOTS))
#: The tails of a turn's legal actions: ``draw`` alone, or ``draw, catch P``.
DRAW_ONLY = (DRAW,)
DRAW_AND_CATCH = tuple((DRAW, catch) for catch in CATCHES)
RESULTS = tuple(Action.showdown_result(p) for p in range(PLAYER_SLOTS))
COLOUR_CHOICES = tuple(Action.choose_colour(c) for c in COLOURS)
#: By (two players, stacking house rule), then by rank: what each card does
#: (``rules.card_effects``) as an EffectRow.
EFFECTS: dict[tuple[bool, bool], tuple[EffectRow, ...]] = {
    (two_players, stacking): _effects_by_rank(two_players, stacking)
    for two_players in (False, True)
    for stacking in (False, True)
}
