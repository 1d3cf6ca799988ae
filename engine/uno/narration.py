"""UNO's narration: the events a decision of classic, Showdown or Party! produces.

The match (engine.match) is the same for every game; this module is what it
says of an UNO decision. Events (``MatchEvent(kind, round, data)``; ``data``
holds plain values; the match adds match_start's ``players``, round_end's
``winner``, ``points`` and ``scores``, and the ``showdown``, ``match_end`` and
``claim_lost`` events of every game):

=============  ==========================================================================
kind           data
=============  ==========================================================================
match_start    players (names), variant, target, house_rules
round_start    dealer, first (who decides first), top, colour, hand_sizes, scores, notation
play           player, action, card, colour (the colour now), uno, cards_left,
               draws ({player: cards} drawn by others because of it)
draw           player, action, cards (drawn), can_play (the drawn card)
keep           player, action
accept         player, action, cards
challenge      player, action, offender, succeeded, drew (who drew), cards
catch          player, action, caught, cards
colour         player, action, colour
face           player, action, opponent, count
round_end      winner, points, scores, hand_sizes
speed          player, action, card, top (the card it was played on), right (identical:
               played; else taken back and a card drawn), uno, cards_left, drew (cards
               the player drew), draws, next (who is to act now)
point_taken    player (who played the Point Taken; the pointing opens), waiting
pointed        player (a choice is in; never whom it points at)
pointing       player (who played the Point Taken), choices ({player: target}, all
               revealed at once), draws
pile_start     player (who played the Wild Pile Up), flipped (the mini pile's cards,
               bottom first), colour, next (who must add first)
pile_add       player, action, card, uno, cards_left, next (who must add or take now)
pile_take      player, action, cards (the mini pile), draws
link           player, linked ([a, b], the pair now linked)
=============  ==========================================================================

In UNO Party! ``draws`` ({player: cards}) is added to draw, accept, challenge
and catch too: everyone whose hand grew by the decision, linked draws included
(in a ``play`` it never includes the player, whose hand shrank). The ``play``
of a Point Taken, Wild Pile Up or Wild Drawn Together is followed by
``point_taken``, ``pile_start`` (when a pile starts) or ``link`` (when it links);
a card added to a mini pile is ``pile_add``, not ``play``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.game.interface import Narrated
from engine.uno.actions import Action, ActionKind
from engine.uno.cards import Card, Colour, Rank
from engine.uno.game import Game, Phase
from engine.uno.party import PartyGame
from engine.uno.party_notation import PartyState

__all__ = ["UnoNarration", "NARRATION", "EVENT_KINDS", "PARTY_EVENT_KINDS", "CLAIM_KINDS"]

#: The events of an UNO match (with the match's own, engine.match.events).
EVENT_KINDS = (
    "match_start",
    "round_start",
    "play",
    "draw",
    "keep",
    "accept",
    "challenge",
    "catch",
    "colour",
    "face",
    "showdown",
    "round_end",
    "match_end",
)
#: The events only UNO Party! has.
PARTY_EVENT_KINDS = (
    "speed",
    "point_taken",
    "pointed",
    "pointing",
    "pile_start",
    "pile_add",
    "pile_take",
    "link",
    "claim_lost",
)
#: What a player may claim out of turn in UNO Party!.
CLAIM_KINDS = (ActionKind.SPEED_PLAY, ActionKind.CATCH)

_KIND_WORDS = {
    ActionKind.PLAY: "play",
    ActionKind.DRAW: "draw",
    ActionKind.KEEP: "keep",
    ActionKind.ACCEPT: "accept",
    ActionKind.CHALLENGE: "challenge",
    ActionKind.CATCH: "catch",
    ActionKind.CHOOSE_COLOUR: "colour",
    ActionKind.CHOOSE_SHOWDOWN: "face",
}
# UNO Party! adds ``draws`` (linked draws included) to these events.
_PARTY_DRAWS = (ActionKind.DRAW, ActionKind.ACCEPT, ActionKind.CHALLENGE, ActionKind.CATCH)

UnoGame = Game | PartyGame


@dataclasses.dataclass(frozen=True)
class _Before:
    """What the events of a decision need to know of the position before it."""

    hand_sizes: tuple[int, ...]
    phase: Phase
    top: Card
    offender: int  # who played last: a challenge's offender
    pile: tuple[Card, ...] = ()
    pointer: int | None = None
    choices: dict[int, int] = dataclasses.field(default_factory=dict)


class UnoNarration:
    """The events of UNO decisions (engine.game.interface.Narration)."""

    # The events' data: plain values of mixed types by key (engine.match.events).
    def match_start(self, game: UnoGame) -> dict[str, Any]:
        return {
            "variant": game.variant.name,
            "target": game.target,
            "house_rules": str(game.house_rules),
        }

    def round_start(self, game: UnoGame) -> dict[str, Any]:
        return {
            "dealer": game.dealer,
            "first": game.to_act,
            "top": str(game.top_card),
            "colour": _text(game.colour),
            "hand_sizes": list(game.hand_sizes),
            "scores": list(game.scores),
            "notation": game.notation(),
        }

    def round_end(self, game: UnoGame) -> dict[str, Any]:
        return {"hand_sizes": list(game.hand_sizes)}

    def before(self, game: UnoGame, player: int, action: Action) -> _Before:
        offender = (player - game.direction) % game.players
        if not isinstance(game, PartyGame):
            return _Before(game.hand_sizes, game.phase, game.top_card, offender)
        choices: dict[int, int] = {}
        if action.kind is ActionKind.POINT and game.waiting_for == (player,):
            # The last choice: everyone's are revealed with it.
            state = PartyState.parse(game.notation(reveal=True).split(" ")[16], game.players)
            choices = {p: c for p, c in enumerate(state.pointing or ()) if isinstance(c, int)}
            if action.player is not None:  # a point names its player
                choices[player] = action.player
        return _Before(
            game.hand_sizes, game.phase, game.top_card, offender, game.pile, game.pointer, choices
        )

    def after(self, game: UnoGame, player: int, action: Action, before: object) -> list[Narrated]:
        assert isinstance(before, _Before)  # what before() returned
        after = game.hand_sizes
        was = before.hand_sizes
        # A card played left the hand: a player who also drew (linked to whom a
        # Draw Two hit) drew that much more than the hand grew.
        played = action.kind is ActionKind.PLAY or (
            action.kind is ActionKind.SPEED_PLAY and action.card == before.top
        )
        gone = [int(played and p == player) for p in range(game.players)]
        grew = {
            p: after[p] - was[p] + gone[p]
            for p in range(game.players)
            if after[p] + gone[p] > was[p]
        }
        data: dict[str, Any] = {"player": player, "action": str(action)}
        if isinstance(game, PartyGame):
            return _party_events(game, action, data, grew, before)
        return [_event(game, action, data, grew, before.offender)]


def _party_events(
    game: PartyGame, action: Action, data: dict[str, Any], grew: dict[int, int], before: _Before
) -> list[Narrated]:
    player = data["player"]
    kind = action.kind
    after = game.hand_sizes
    if kind is ActionKind.PLAY and before.phase is Phase.PILE:
        more = dict(card=str(action.card), uno=action.uno, cards_left=after[player])
        return [("pile_add", {**data, **more, "next": game.to_act})]
    if kind is ActionKind.PLAY:
        events = [_event(game, action, data, grew, before.offender)]
        rank = action.card.rank if action.card is not None else None
        if rank is Rank.POINT_TAKEN and game.phase is Phase.POINT:
            events.append(("point_taken", {"player": player, "waiting": list(game.waiting_for)}))
        elif rank is Rank.WILD_PILE_UP and game.phase is Phase.PILE:
            flipped = [str(c) for c in game.pile]
            colour, to_act = _text(game.pile_colour), game.to_act
            pile = {"player": player, "flipped": flipped, "colour": colour, "next": to_act}
            events.append(("pile_start", pile))
        elif rank is Rank.WILD_DRAWN_TOGETHER and action.link is not None:
            events.append(("link", {"player": player, "linked": list(action.link)}))
        return events
    if kind is ActionKind.SPEED_PLAY:
        card = action.card
        speed = {
            **data,
            "card": str(card),
            "top": str(before.top),
            "right": card == before.top,
            "uno": action.uno,
            "cards_left": after[player],
            "drew": grew.get(player, 0),
            "draws": grew,
            "next": game.to_act,
        }
        return [("speed", speed)]
    if kind is ActionKind.POINT:
        pointed: list[Narrated] = [("pointed", {"player": player})]
        if game.phase is not Phase.POINT:  # the last choice: all revealed at once
            reveal = {"player": before.pointer, "choices": before.choices, "draws": grew}
            pointed.append(("pointing", reveal))
        return pointed
    if kind is ActionKind.TAKE_PILE:
        return [("pile_take", {**data, "cards": [str(c) for c in before.pile], "draws": grew})]
    return [_event(game, action, data, grew, before.offender, party=True)]


def _event(
    game: UnoGame,
    action: Action,
    data: dict[str, Any],
    grew: dict[int, int],
    offender: int,
    party: bool = False,
) -> Narrated:
    player = data["player"]
    kind = action.kind
    if kind is ActionKind.PLAY:
        data.update(
            card=str(action.card),
            colour=_text(game.colour),
            uno=action.uno,
            cards_left=game.hand_sizes[player],
            draws=grew,
        )
    elif kind is ActionKind.DRAW:
        data.update(cards=grew.get(player, 0), can_play=game.drawn_card is not None)
    elif kind is ActionKind.ACCEPT:
        data.update(cards=grew.get(player, 0))
    elif kind is ActionKind.CHALLENGE:
        # A good challenge leaves the challenger to play on.
        succeeded = not game.round_over and game.current == player
        drew = offender if succeeded else player
        data.update(offender=offender, succeeded=succeeded, drew=drew, cards=grew.get(drew, 0))
    elif kind is ActionKind.CATCH:
        caught = action.player
        data.update(caught=caught, cards=0 if caught is None else grew.get(caught, 0))
    elif kind is ActionKind.CHOOSE_COLOUR:
        data.update(colour=str(action.colour))
    elif kind is ActionKind.CHOOSE_SHOWDOWN:
        data.update(opponent=action.player, count=action.count)
    if party and kind in _PARTY_DRAWS:
        data.update(draws=grew)
    return (_KIND_WORDS[kind], data)


def _text(value: Colour | Card | None) -> str | None:
    return None if value is None else str(value)


NARRATION = UnoNarration()
