"""Pitch's narration: the events a decision of a hand produces (public facts only).

=============  ==========================================================================
kind           data
=============  ==========================================================================
match_start    players (names), variant, target, house_rules
round_start    dealer, round, first (who bids first), team_scores, notation (public)
bid            player, action, bid (int; None for a pass)
redeal         player (who asked: the misdeal rule), dealer
pitcher        player, bid (the bidding is over)
trump          player, suit, off_jack
refill         counts (cards drawn per seat; None where the house rule hides them)
stock          player (the pitcher), kept, receiver, count
burn           player, card (None when burned face down)
play           player, action, card
trick          winner, cards ([[seat, card], ...]), points
out            player (no trump left: sits out the rest of the hand)
round_end      winner, points, scores, pitcher, contract, taken, made, moon,
               team_scores, burned_points
=============  ==========================================================================

A ``trump`` is followed by ``refill``, a play that ends a trick by ``trick``;
``out`` follows whatever action left a seat without trumps while tricks go on
(at the first lead too).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.game.interface import Narrated
from engine.pitch.actions import Action, Kind
from engine.pitch.cards import off_jack
from engine.pitch.game import Phase, PitchGame

__all__ = ["PitchNarration", "NARRATION", "EVENT_KINDS"]

EVENT_KINDS = (
    "match_start",
    "round_start",
    "bid",
    "redeal",
    "pitcher",
    "trump",
    "refill",
    "stock",
    "burn",
    "play",
    "trick",
    "out",
    "round_end",
    "match_end",
)


@dataclasses.dataclass(frozen=True)
class _Before:
    phase: Phase
    out: tuple[bool, ...]
    tricks: int


class PitchNarration:
    """The events of Pitch decisions (engine.game.interface.Narration)."""

    def match_start(self, game: PitchGame) -> dict[str, Any]:
        return {"variant": "pitch", "target": game.target, "house_rules": str(game.rules)}

    def round_start(self, game: PitchGame) -> dict[str, Any]:
        return {
            "dealer": game.dealer,
            "round": game.round,
            "first": game.to_act,
            "team_scores": list(game.team_scores),
            "notation": game.notation(),
        }

    def round_end(self, game: PitchGame) -> dict[str, Any]:
        outcome = game.outcome
        assert outcome is not None  # the match asks at the hand's end
        return {
            "pitcher": outcome.pitcher,
            "contract": outcome.contract,
            "taken": list(outcome.taken),
            "made": outcome.made,
            "moon": outcome.moon,
            "team_scores": list(outcome.team_scores),
            "burned_points": outcome.burned_points,
        }

    def before(self, game: PitchGame, player: int, action: Action) -> _Before:
        return _Before(game.phase, game.out, len(game.tricks))

    def after(self, game: PitchGame, player: int, action: Action, before: object) -> list[Narrated]:
        assert isinstance(before, _Before)  # what before() returned
        kind = action.kind
        events: list[Narrated] = []
        if kind is Kind.BID or kind is Kind.PASS:
            events.append(("bid", {"player": player, "action": str(action), "bid": action.value}))
            if game.phase is not Phase.BID:
                events.append(("pitcher", {"player": game.pitcher, "bid": game.contract}))
        elif kind is Kind.REDEAL:
            events.append(("redeal", {"player": player, "dealer": game.dealer}))
        elif kind is Kind.TRUMP:
            suit = str(action.value)
            events.append(("trump", {"player": player, "suit": suit, "off_jack": off_jack(suit)}))
            events.append(("refill", {"counts": list(game.view(None).refills)}))
        elif kind is Kind.KEEP or kind is Kind.GIVE:
            data = {
                "player": player,
                "kept": kind is Kind.KEEP,
                "receiver": game.stock_receiver,
                "count": game.stock_received,
            }
            events.append(("stock", data))
        elif kind is Kind.BURN:
            card = None if game.rules.burn_face == "down" else action.card
            events.append(("burn", {"player": player, "card": card}))
        else:
            events.append(("play", {"player": player, "action": str(action), "card": action.card}))
        if len(game.tricks) > before.tricks:
            trick = game.tricks[-1]
            cards = [[seat, card] for seat, card in trick.cards]
            events.append(
                ("trick", {"winner": trick.winner, "cards": cards, "points": trick.points})
            )
        if game.phase is Phase.PLAY:
            now = game.out
            events.extend(("out", {"player": s}) for s in range(4) if now[s] and not before.out[s])
        return events


NARRATION = PitchNarration()
