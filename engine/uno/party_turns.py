"""The UNO Party! player to act's legal actions, as (player, action) pairs from
tables made once: what ``party_play.legal_for`` says of that player, in its
order, without building an action per decision.

``party_play.legal_for`` is the rule; this is the same answer by another road,
asked at every decision (``party_legality``), and held to the rule by the tests.
A Wild Drawn Together is most of the difference: it offers every colour with
every pair of players to link, 112 actions at 8 players and 480 at 16.
"""

from __future__ import annotations

from itertools import repeat

from engine.uno.actions import Action
from engine.uno.cards import (
    COLOUR_MASK,
    COLOUR_SHIFT,
    COLOURS,
    RANK_MASK,
    REAL_CARD,
    WILD_COLOUR,
    Rank,
)
from engine.uno.game import Phase
from engine.uno.party_facts import PartyFacts
from engine.uno.party_notation import WAITING
from engine.uno.party_play import card_plays, legal_for
from engine.uno.party_rules import colour_of

__all__ = ["turn_pairs", "pointing_pairs"]

# Phase's members as module names: one read off the enum class costs several
# times a global's, and these are read at every decision.
_PLAYING, _DRAWN, _PENALTY, _CHOOSING, _PILE = (
    Phase.PLAY,
    Phase.DRAWN,
    Phase.PENALTY,
    Phase.CHOOSE_COLOUR,
    Phase.PILE,
)

Pairs = tuple[tuple[int, Action], ...]

_DRAWN_TOGETHER = int(Rank.WILD_DRAWN_TOGETHER)
_DRAW, _KEEP, _TAKE = Action.draw(), Action.keep(), Action.take()
_CHALLENGE, _ACCEPT = Action.challenge(), Action.accept()
_DRAWS = tuple(((seat, _DRAW),) for seat in range(32))  # each seat's draw, as one pair

# (player, card, with UNO too, and for a Wild Drawn Together what its links
# depend on: the players, link_self, a link kept) -> the ways to play it.
_LINKED_PLAYS: dict[tuple[int, int, bool, int, bool, bool], Pairs] = {}
# (card, with UNO too, players, the seat if it may not link itself else -1, a
# link kept) -> the actions themselves, shared by the seats.
_LINKED_ACTIONS: dict[tuple[int, bool, int, int, bool], tuple[Action, ...]] = {}
# The same for every other card: by seat, then with UNO too or not, then by card.
_PLAYS: tuple[tuple[dict[int, Pairs], dict[int, Pairs]], ...] = tuple(({}, {}) for _ in range(32))
# (player, card, with UNO too) -> adding it to a mini pile.
_ADDS: dict[tuple[int, int, bool], Pairs] = {}
_COLOURS: dict[int, Pairs] = {}
# By colour << _ABOVE_RANK | rank + 1: ranks are 5 bits, so rank + 1 (-1, a wild
# on top, is 0) takes 6.
_PLAYABLE: dict[int, frozenset[int]] = {}
_ABOVE_RANK = 6
# (player, players, who has no cards) -> the points a player may make.
_POINTS: dict[tuple[int, int, tuple[int, ...]], Pairs] = {}


def _playable(colour: int, rank: int) -> frozenset[int]:
    """The card codes playable on ``colour`` in force and a top card of ``rank``
    (-1: a wild on top), as ``party_play.playable`` says."""
    key = colour << _ABOVE_RANK | rank + 1
    found = _PLAYABLE.get(key)
    if found is None:
        if not _BY_COLOUR:
            for code, card in enumerate(REAL_CARD):
                if card is not None:
                    _BY_COLOUR.setdefault(colour_of(code), set()).add(code)
                    _BY_RANK.setdefault(code & RANK_MASK, set()).add(code)
        found = _PLAYABLE[key] = frozenset(
            _BY_COLOUR[WILD_COLOUR] | _BY_COLOUR.get(colour, set()) | _BY_RANK.get(rank, set())
        )
    return found


# Every card code by its colour field and by its rank: what _playable unites.
_BY_COLOUR: dict[int, set[int]] = {}
_BY_RANK: dict[int, set[int]] = {}


def _plays(game: PartyFacts, player: int, card: int, uno_too: bool) -> Pairs:
    """The ways ``player`` may play ``card`` on their turn, as pairs."""
    if card & RANK_MASK == _DRAWN_TOGETHER:
        house = game._house
        kept = game._link is not None and house.relink == "keep"
        key = player, card, uno_too, game._n, house.link_self, kept
        found = _LINKED_PLAYS.get(key)
        if found is None:
            # The actions are every seat's alike unless a player may not link
            # themself: made once, then paired with each seat (480 at 16 players).
            seat = -1 if house.link_self else player
            same = card, uno_too, game._n, seat, kept
            actions = _LINKED_ACTIONS.get(same)
            if actions is None:
                actions = _LINKED_ACTIONS[same] = tuple(card_plays(game, player, card, uno_too))
            found = _LINKED_PLAYS[key] = tuple(zip(repeat(player), actions))
        return found
    table = _PLAYS[player][uno_too]
    found = table.get(card)
    if found is None:
        found = table[card] = _pairs(game, player, card, uno_too)
    return found


def _pairs(game: PartyFacts, player: int, card: int, uno_too: bool) -> Pairs:
    return tuple((player, a) for a in card_plays(game, player, card, uno_too))


def _add(player: int, card: int, uno_too: bool) -> Pairs:
    key = player, card, uno_too
    found = _ADDS.get(key)
    if found is None:
        one = REAL_CARD[card]
        adds = [Action.play(one)] + ([Action.play(one, uno=True)] if uno_too else [])
        found = _ADDS[key] = tuple((player, a) for a in adds)
    return found


def _choose_colour(player: int) -> Pairs:
    found = _COLOURS.get(player)
    if found is None:
        found = _COLOURS[player] = tuple((player, Action.choose_colour(c)) for c in COLOURS)
    return found


def turn_pairs(game: PartyFacts, distinct: tuple[int, ...], catch: Pairs) -> Pairs:
    """The player to act's (player, action) pairs outside the pointing:
    ``distinct`` is their hand's distinct cards in order, ``catch`` their catch
    as a pair, or nothing."""
    p = game.current
    hand = game._hands[p]
    uno_too = len(hand) == 2
    phase = game._phase
    moves: list[tuple[int, Action]] = []
    if phase is _PLAYING:
        top = game._discard[-1]
        # A coloured top card's rank matches; a wild's rank matches nothing.
        rank = top & RANK_MASK if top >> COLOUR_SHIFT & COLOUR_MASK != WILD_COLOUR else -1
        colour = game._colour
        playable = _PLAYABLE.get(colour << _ABOVE_RANK | rank + 1) or _playable(colour, rank)
        known = _PLAYS[p][uno_too].get
        for card in filter(playable.__contains__, distinct):
            # The table first, written out: most plays are of cards seen before.
            moves += known(card) or _plays(game, p, card, uno_too)
        moves += catch
        moves += _DRAWS[p]
    elif phase is _DRAWN:
        moves += _plays(game, p, hand[-1], uno_too)
        moves.append((p, _KEEP))
        moves += catch
    elif phase is _PENALTY:
        moves += ((p, _CHALLENGE), (p, _ACCEPT))
        moves += catch
    elif phase is _CHOOSING:
        return _choose_colour(p)
    elif phase is _PILE:
        pile_colour = game.pile_colour
        addable = False
        for card in distinct:
            if colour_of(card) in (WILD_COLOUR, pile_colour):
                addable = True
                moves += _add(p, card, uno_too)
        if not addable or game._house.pile_refuse:
            moves.append((p, _TAKE))
        moves += catch
    else:  # the pointing and the round's end: the rule itself
        return tuple((p, a) for a in legal_for(game, p))
    return tuple(moves)


def pointing_pairs(game: PartyFacts, player: int, catch: Pairs, empty: tuple[int, ...]) -> Pairs:
    """``player``'s pairs while everyone points: whom they may point at (anyone
    else who holds cards: not those in ``empty``), unless they have chosen,
    then their ``catch``."""
    choices = game._choices
    assert choices is not None  # the pointing phase holds the choices (check_invariants)
    if choices[player] != WAITING:
        return catch
    key = player, game._n, empty
    found = _POINTS.get(key)
    if found is None:
        found = _POINTS[key] = tuple(
            (player, Action.point(t)) for t in range(game._n) if t != player and t not in empty
        )
    return found + catch
