"""Why an action is not legal, in the players' words (IllegalActionError's text).

The words name only what the actor named or what the table sees: never a
hidden card the actor did not name.

>>> from engine.pitch.game import PitchGame
>>> game = PitchGame.new(seed=7, dealer=3)
>>> why_illegal(game, Action.parse("bid 4"), 1)
"player 1 cannot bid 4: it is player 0's turn to bid"
>>> game.apply(Action.parse("bid 6"))
>>> why_illegal(game, Action.parse("bid 5"), 1)
'player 1 cannot bid 5: bid higher than 6'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.pitch.actions import MOON, PLAIN_TEN, Action, Kind
from engine.pitch.cards import POINT_TABLES, RANK_TABLES, SUIT_NAMES

if TYPE_CHECKING:
    from engine.pitch.state import PitchState

__all__ = ["why_illegal", "reason"]

_PHASE_DOING = {
    "bid": "to bid",
    "trump": "to name trump",
    "stock": "to take or give the stock",
    "burn": "to burn",
    "play": "to play",
}


def why_illegal(game: PitchState, action: object, seat: int | None) -> str:
    """The whole message: who cannot do what, and why."""
    who = "nobody" if seat is None else f"player {seat}"
    return f"{who} cannot {action}: {reason(game, action, seat)}"


def reason(game: PitchState, action: object, seat: int | None) -> str:
    """Why ``seat`` may not take ``action`` now (the reason alone)."""
    if not isinstance(action, Action):
        return f"{type(action).__name__} is not a Pitch action"
    if game.round_over:
        return "the hand is over" if game.match_winner is None else "the match is over"
    to_act = game.to_act
    doing = _PHASE_DOING[game.phase.value]
    if seat is None or seat != to_act:
        return f"it is player {to_act}'s turn {doing}"
    phase = game.phase.value
    if phase == "bid":
        return _bid_reason(game, action)
    if phase == "trump":
        return "name the trump suit (trump C, D, H or S)"
    if phase == "stock":
        return "keep the rest of the stock or give it unseen to your partner (keep, give)"
    if phase == "burn":
        return _burn_reason(game, action, seat)
    return _play_reason(game, action, seat)


def _bid_reason(game: PitchState, action: Action) -> str:
    kind, rules = action.kind, game.rules
    if kind is Kind.REDEAL:
        if not rules.misdeal:
            return "a redeal needs the misdeal house rule"
        return "a redeal needs a hand with no face card and no point card"
    if kind not in (Kind.BID, Kind.PASS):
        return "it is the bidding: bid or pass"
    if action.value == PLAIN_TEN and not rules.ten_bid:
        return "there is no plain 10 bid: bid moon to take all 10 points"
    stuck = game.to_act == game.dealer and game.high_bid is None
    if stuck:
        return (
            "the dealer is stuck: bid 4"
            if rules.stuck == "four"
            else ("the dealer is stuck: bid 4 or more")
        )
    high = game.high_bid
    if kind is Kind.BID and high is not None:
        name = "the moon" if high == MOON else ("10" if high == PLAIN_TEN else str(high))
        if game.to_act == game.dealer and rules.dealer_equal:
            return f"bid at least {name}"
        return f"bid higher than {name}"
    return "that bid is not allowed now"


def _burn_reason(game: PitchState, action: Action, seat: int) -> str:
    if action.kind is not Kind.BURN:
        return f"you hold {game.trumps_in_hand(seat)} trumps: burn one (burn CARD) down to 6"
    card = action.card
    trump = game.trump
    assert trump is not None
    if card not in game.hand(seat):
        return f"you do not hold {card}"
    if card not in RANK_TABLES[trump]:
        return f"{card} is not a trump: burn a trump"
    if game.rules.burn == "protected" and POINT_TABLES[trump][card]:
        return "you may not burn a point card while you hold a trump worth no point"
    return "burn the other joker (the jokers are unmarked)"


def _play_reason(game: PitchState, action: Action, seat: int) -> str:
    if action.kind is not Kind.PLAY:
        return "it is trick play: play a trump (play CARD)"
    card = action.card
    trump = game.trump
    assert trump is not None
    if card not in game.hand(seat):
        return f"you do not hold {card}"
    if card not in RANK_TABLES[trump]:
        return f"{card} is not a trump: you must play a trump ({SUIT_NAMES[trump]} are trump)"
    return "play the other joker (the jokers are unmarked)"
