"""UNO Party!'s rules as two functions over a ``PartyFacts``: what a player may
do now (``legal_for``) and what a legal action does (``apply_action``), plus the
consistency checks (``problems``). docs/notation.md describes each rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

from engine.uno.actions import (
    ACCEPT,
    CATCH,
    CHALLENGE,
    CHOOSE_COLOUR,
    DRAW,
    KEEP,
    PLAY,
    POINT,
    SPEED_PLAY,
    TAKE_PILE,
    Action,
)
from engine.uno.cards import (
    COLOUR_MASK,
    COLOUR_SHIFT,
    COLOURS,
    LAST_NUMBER_RANK,
    RANK_MASK,
    REAL_CARD,
    WILD_COLOUR,
    Rank,
)
from engine.uno.game import Phase
from engine.uno.party_facts import PartyFacts
from engine.uno.party_notation import NO_PART, WAITING
from engine.uno.party_rules import (
    POINT_CAP,
    colour_of,
    party_wild_draw_four_is_legal,
)
from engine.uno.rules import LOST_CHALLENGE_CARDS

__all__ = ["legal_for", "card_plays", "apply_action", "problems"]

# Phase's members as module names: one read off the enum class costs several
# times a global's, and these are read at every decision.
_PLAYING, _DRAWN, _PENALTY, _CHOOSING, _PILE, _POINTING, _OVER = (
    Phase.PLAY,
    Phase.DRAWN,
    Phase.PENALTY,
    Phase.CHOOSE_COLOUR,
    Phase.PILE,
    Phase.POINT,
    Phase.ROUND_OVER,
)

_DRAW_TWO, _REVERSE, _SKIP = int(Rank.DRAW_TWO), int(Rank.REVERSE), int(Rank.SKIP)
_WD4, _POINT_TAKEN = int(Rank.WILD_DRAW_FOUR), int(Rank.POINT_TAKEN)
_PILE_UP, _DRAWN_TOGETHER = int(Rank.WILD_PILE_UP), int(Rank.WILD_DRAWN_TOGETHER)
_DRAW, _KEEP, _TAKE = Action.draw(), Action.keep(), Action.take()
_CHALLENGE, _ACCEPT = Action.challenge(), Action.accept()
# Every card's speed plays, (plain, with UNO), by card code: the out-of-turn
# actions are most of what legal_moves() builds, for every player after every
# decision, and a lookup is much cheaper than Action.speed().
_SPEED_PLAYS: dict[int, tuple[Action, Action]] = {
    code: (Action.speed(card), Action.speed(card, uno=True))
    for code, card in enumerate(REAL_CARD)
    if card is not None
}
# The same for a coloured card played on one's turn (or added to a pile): (plain, with UNO).
_COLOURED_PLAYS: dict[int, tuple[Action, Action]] = {
    code: (Action.play(card), Action.play(card, uno=True))
    for code, card in enumerate(REAL_CARD)
    if card is not None and not card.is_wild
}


def _distinct(hand: list[int]) -> list[int]:
    seen: list[int] = []
    for card in hand:
        if card not in seen:
            seen.append(card)
    return seen


def playable(game: PartyFacts, card: int) -> bool:
    """A card matches the colour in force, or the top card's rank (a coloured
    top), or is wild."""
    colour = colour_of(card)
    if colour == WILD_COLOUR or colour == game._colour:
        return True
    top = game._discard[-1]
    return colour_of(top) != WILD_COLOUR and top & RANK_MASK == card & RANK_MASK


def card_plays(game: PartyFacts, player: int, card: int, uno_too: bool) -> Iterator[Action]:
    """The ways to play ``card`` on a turn (each once more with ``uno``)."""
    c = REAL_CARD[card]
    rank = card & RANK_MASK
    for uno in (False, True) if uno_too else (False,):
        if rank == _PILE_UP:
            yield Action.play(c, uno=uno)
        elif rank == _DRAWN_TOGETHER:
            links = _links(game, player)
            for colour in COLOURS:
                if not links:
                    yield Action.play(c, colour, uno=uno)
                for link in links:
                    yield Action.play(c, colour, uno=uno, link=link)
        elif colour_of(card) == WILD_COLOUR:
            for colour in COLOURS:
                yield Action.play(c, colour, uno=uno)
        else:
            yield _COLOURED_PLAYS[card][uno]


def _links(game: PartyFacts, player: int) -> list[tuple[int, int]]:
    if game._link is not None and game._house.relink == "keep":
        return []  # the first link stays: the card names its colour only
    n = game._n
    return [
        (a, b)
        for a in range(n)
        for b in range(a + 1, n)
        if game._house.link_self or player not in (a, b)
    ]


def _catch(game: PartyFacts, player: int) -> list[Action]:
    target = game.catchable
    return [Action.catch(target)] if target is not None and target != player else []


def legal_for(game: PartyFacts, player: int) -> Iterator[Action]:
    phase = game._phase
    if phase is _OVER:
        return
    hand = game._hands[player]
    if phase is _POINTING:
        choices = game._choices
        assert choices is not None  # the pointing phase holds the choices (check_invariants)
        if choices[player] == WAITING:
            for target in range(game._n):
                if target != player and game._hands[target]:
                    yield Action.point(target)
        yield from _catch(game, player)
        return
    if player != game.current:
        if game.speed_window and hand:
            top = game._discard[-1]
            for card in _distinct(hand):
                right = card == top
                if right and len(hand) == 1 and not game._house.speed_out:
                    continue
                plain, with_uno = _SPEED_PLAYS[card]
                yield plain
                if right and len(hand) == 2:
                    yield with_uno
        yield from _catch(game, player)
        return
    uno_too = len(hand) == 2
    if phase is _PLAYING:
        for card in _distinct(hand):
            if playable(game, card):
                yield from card_plays(game, player, card, uno_too)
        yield from _catch(game, player)
        yield _DRAW
    elif phase is _DRAWN:
        yield from card_plays(game, player, hand[-1], uno_too)
        yield _KEEP
        yield from _catch(game, player)
    elif phase is _PENALTY:
        yield _CHALLENGE
        yield _ACCEPT
        yield from _catch(game, player)
    elif phase is _CHOOSING:
        for colour in COLOURS:
            yield Action.choose_colour(colour)
    elif phase is _PILE:
        pile_colour = game.pile_colour
        addable = False
        for card in _distinct(hand):
            if colour_of(card) in (WILD_COLOUR, pile_colour):
                addable = True
                yield Action.play(REAL_CARD[card])
                if uno_too:
                    yield Action.play(REAL_CARD[card], uno=True)
        if not addable or game._house.pile_refuse:
            yield _TAKE
        yield from _catch(game, player)


def apply_action(game: PartyFacts, action: Action, player: int) -> None:
    # Each action has the fields of its kind (Action's docstring: a play its
    # card, a catch or a point its player): the casts here say so to mypy, whose
    # Action has them all optional (in _play, _speed and _add_to_pile, where a
    # cast's call would cost every play, an ignore comment says it).
    kind = action.kind
    if kind is PLAY:
        if game._phase is _PILE:
            _add_to_pile(game, action, player)
        else:
            _play(game, action, player)
    elif kind is SPEED_PLAY:
        _speed(game, action, player)
    elif kind is DRAW:
        _draw_instead(game, player)
    elif kind is KEEP:
        game.current, game._phase = game._next(player), _PLAYING
    elif kind is CATCH:
        game._draw_cards(cast(int, action.player), game._house.uno_penalty)
        game._catchable = -1
    elif kind is POINT:
        _point(game, cast(int, action.player), player)
    elif kind is TAKE_PILE:
        _take(game, player)
    elif kind is ACCEPT:
        _accept(game, player)
    elif kind is CHALLENGE:
        _challenge(game, player)
    elif kind is CHOOSE_COLOUR:
        game._colour = int(cast(int, action.colour))
        game._phase = _PLAYING


def _play(game: PartyFacts, action: Action, p: int) -> None:
    card = int(action.card)  # type: ignore[arg-type]  # a play has its card
    hand = game._hands[p]
    rank = card & RANK_MASK
    colour_before = game._colour
    hand.remove(card)
    game._legality.card_removed(p, hand, card)
    game._discard.append(card)
    if len(hand) == 1 and not action.uno:
        game._catchable = p
    out = not hand
    game._phase = _PLAYING
    if rank <= LAST_NUMBER_RANK:
        # The commonest play, written out: a number card; the turn passes on.
        game._colour = card >> COLOUR_SHIFT & COLOUR_MASK
        game.current = (p + game._direction) % game._n
        if out:
            game._end_round(p)
        return
    game._colour = colour_of(card) if action.colour is None else int(action.colour)
    d = game._direction
    if rank == _PILE_UP:
        game._colour = colour_before
        if _play_pile_up(game, p, out):
            return
    elif rank == _DRAWN_TOGETHER and action.link is not None:
        game._link = action.link
    elif rank == _POINT_TAKEN:
        _open_pointing(game, p)
        return
    elif rank == _WD4:
        game._wd4_legal = party_wild_draw_four_is_legal(
            hand, colour_before, game._house.wd4_all_wilds
        )
        game._pending = 4
        game.current, game._phase = game._next(p), _PENALTY
        return
    steps = 1
    if rank == _REVERSE:
        if game._n == 2:
            steps = 2
        else:
            game._direction = d = -d
    elif rank == _SKIP:
        steps = 2
    elif rank == _DRAW_TWO:
        game._draw_cards(game._next(p), 2)
        steps = 2
    game.current = game._next(p, steps)
    if out:
        game._end_round(p)


def _play_pile_up(game: PartyFacts, p: int, out: bool) -> bool:
    """A Wild Pile Up played: the mini pile starts (True), or, with nothing to
    flip, the turn passes as after any card (False)."""
    if out and game._house.pile_out == "at_once":
        game._end_round(p)
        return True
    if not _start_pile(game):
        return False
    if out:
        game._out = p
    nxt = _next_in_pile(game, p)
    if nxt is None:
        game._end_round(p)
    else:
        game.current, game._phase = nxt, _PILE
    return True


def _open_pointing(game: PartyFacts, p: int) -> None:
    """A Point Taken played: everyone points (the card's player too, by default)
    who has someone to point at: a player who has gone out is no target."""
    holding = sum(1 for hand in game._hands if hand)  # someone else holds cards: q has a target
    takes_part: list[int | str] = [
        WAITING
        if (q != p or game._house.pointer_points) and holding - (1 if hand else 0) > 0
        else NO_PART
        for q, hand in enumerate(game._hands)
    ]
    game._choices = takes_part
    game.current, game._phase = p, _POINTING
    if WAITING not in takes_part:
        _resolve_pointing(game)


def _speed(game: PartyFacts, action: Action, p: int) -> None:
    card = int(action.card)  # type: ignore[arg-type]  # a play has its card
    hand = game._hands[p]
    if card != game._discard[-1]:  # wrong: the card stays, the player draws one
        game._draw_cards(p, 1)
        return
    if game._phase is _DRAWN:
        game._phase = _PLAYING  # the drawn card simply stays in that hand
    hand.remove(card)
    game._legality.card_removed(p, hand, card)
    game._discard.append(card)
    if len(hand) == 1 and not action.uno:
        game._catchable = p
    game.current, game._phase = game._next(p), _PLAYING
    if not hand:
        game._end_round(p)


def _draw_instead(game: PartyFacts, p: int) -> None:
    drawn = 0
    limit = game._house.DRAW_UNTIL_MAX if game._house.draw_until_playable else 1
    hand = game._hands[p]
    playable_card = False
    while drawn < limit:
        got = game._draw_cards(p, 1, linked=False)
        if not got:
            break
        drawn += 1
        if playable(game, hand[-1]):
            playable_card = True
            break
    if drawn and game._link is not None and p in game._link:
        other = game._link[0] + game._link[1] - p
        game._draw_cards(other, drawn, linked=False)
    if playable_card:
        game._phase = _DRAWN
    else:
        game.current = game._next(p)


def _accept(game: PartyFacts, p: int) -> None:
    offender = game._next(p, -1)
    game._draw_cards(p, game._pending)
    game._pending, game._wd4_legal = 0, None
    game.current, game._phase = game._next(p), _PLAYING
    if not game._hands[offender]:
        game._end_round(offender)


def _challenge(game: PartyFacts, p: int) -> None:
    offender = game._next(p, -1)
    legal, game._wd4_legal = game._wd4_legal, None
    pending, game._pending = game._pending, 0
    game._phase = _PLAYING
    if not legal:
        game._draw_cards(offender, pending)  # the challenger then plays their turn
        return
    game._draw_cards(p, pending + LOST_CHALLENGE_CARDS)
    game.current = game._next(p)
    if not game._hands[offender]:
        game._end_round(offender)


# -- Point Taken -------------------------------------------------------------------


def _point(game: PartyFacts, target: int, p: int) -> None:
    choices = game._choices
    assert choices is not None  # a point is legal only while the choices are open
    choices[p] = target
    if WAITING not in choices:
        _resolve_pointing(game)


def _resolve_pointing(game: PartyFacts) -> None:
    choices = game._choices
    assert choices is not None  # called by _point, once the last choice is in
    n = game._n
    own = [min(sum(1 for c in choices if c == q), POINT_CAP) for q in range(n)]
    extra = [0] * n
    if game._link is not None:
        a, b = game._link
        extra[a], extra[b] = own[b], own[a]
        if game._house.cap_linked:
            extra[a] = min(extra[a], POINT_CAP - own[a])
            extra[b] = min(extra[b], POINT_CAP - own[b])
    pointer = game.current
    game._choices, game._phase = None, _PLAYING
    for q in range(n):
        if game._hands[q] or q != pointer:
            game._draw_cards(q, own[q] + extra[q], linked=False)
    game.current = game._next(pointer)
    if not game._hands[pointer]:
        game._end_round(pointer)


# -- Wild Pile Up ------------------------------------------------------------------


def _start_pile(game: PartyFacts) -> bool:
    """Flip cards until a non-wild; False (nothing happens) if none can be flipped."""
    flipped: list[int] = []
    while game._draw or game._reshuffle():
        card = game._draw.pop()
        if colour_of(card) != WILD_COLOUR:
            if game._house.pile_wilds:
                game._pile = [*flipped, card]
            else:
                game._discard[-1:-1] = flipped
                game._pile = [card]
            game._colour = colour_of(card)
            return True
        flipped.append(card)
    game._discard[-1:-1] = flipped
    return False


def _next_in_pile(game: PartyFacts, p: int) -> int | None:
    """The next player after ``p`` who holds cards (None: nobody does)."""
    for steps in range(1, game._n + 1):
        q = game._next(p, steps)
        if game._hands[q] and q != p:
            return q
    return None


def _add_to_pile(game: PartyFacts, action: Action, p: int) -> None:
    card = int(action.card)  # type: ignore[arg-type]  # a play has its card
    hand = game._hands[p]
    hand.remove(card)
    game._legality.card_removed(p, hand, card)
    game._pile.append(card)
    if len(hand) == 1 and not action.uno:
        game._catchable = p
    if not hand:
        if game._house.pile_out == "at_once":
            game._end_round(p)
            return
        if game._out is None:
            game._out = p
    nxt = _next_in_pile(game, p)
    if nxt is None:  # nobody left to take it
        game._end_round(cast(int, game._out))  # pile_out=finish: someone went out
    else:
        game.current = nxt


def _take(game: PartyFacts, p: int) -> None:
    pile, game._pile = game._pile, []
    game._hands[p] += pile
    game._legality.hand_changed(p)
    if game._house.pile_is_draw and game._link is not None and p in game._link:
        other = game._link[0] + game._link[1] - p
        if game._hands[other]:
            game._draw_cards(other, len(pile), linked=False)
    game.current, game._phase = game._next(p), _PLAYING
    if game._out is not None:
        winner, game._out = game._out, None
        game._end_round(winner)


# -- consistency ---------------------------------------------------------------------


def problems(game: PartyFacts) -> list[str]:
    found = game._seating_problems(game._all_cards())
    n = game._n
    if not game._discard:
        found.append("the discard pile is empty")
        return found
    top = game._discard[-1]
    phase = game._phase
    if (game._colour == WILD_COLOUR) != (phase is _CHOOSING):
        found.append("the colour is unnamed outside the colour phase or named in it")
    if colour_of(top) != WILD_COLOUR and game._colour not in (WILD_COLOUR, colour_of(top)):
        found.append("a coloured top card with another colour in force")
    if phase is _PENALTY and (top & RANK_MASK != _WD4 or game._wd4_legal is None):
        found.append("a penalty needs a Wild Draw Four on top")
    if (phase is _PILE) != bool(game._pile):
        found.append("a mini pile exists exactly in the pile phase")
    if game._pile and (top & RANK_MASK != _PILE_UP or game.pile_colour is None):
        found.append("a mini pile needs a Wild Pile Up on top and a coloured card in it")
    if game._pile and game.pile_colour is not None and game._colour != game.pile_colour:
        found.append("the colour in force is the pile's")
    if game._out is not None and (phase is not _PILE or game._hands[game._out]):
        found.append("out= names a player who went out during a pile up")
    if (phase is _POINTING) != (game._choices is not None):
        found.append("pointing choices exist exactly in the point phase")
    if game._choices is not None:
        if top & RANK_MASK != _POINT_TAKEN or WAITING not in game._choices:
            found.append("pointing needs a Point Taken on top and a choice still to make")
        if any(c == p for p, c in enumerate(game._choices)):
            found.append("nobody points at themself")
    if phase is _DRAWN and not game._hands[game.current]:
        found.append("drawn phase with an empty hand")
    if phase is _OVER and game._hands[game.current]:
        found.append("the round's winner still holds cards")
    if game.round_over != (phase is _OVER):
        found.append("round_over disagrees with the phase")
    if game._catchable >= n:
        found.append("uno player out of range")
    if game._link is not None and not (0 <= game._link[0] < game._link[1] < n):
        found.append("the link names players out of range")
    return found
