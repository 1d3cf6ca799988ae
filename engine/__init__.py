"""The UNO rules engine (classic and Showdown), bots and the unit protocol client.

>>> from engine import Game, Action
>>> game = Game.new(2, "classic", seed=1)
>>> game.apply(game.legal_actions()[0])
>>> Game.from_notation(game.notation()).notation() == game.notation()
True
"""

from engine.actions import Action, ActionKind
from engine.cards import Card, Colour, Rank
from engine.errors import (DeckError, EngineError, IllegalActionError, InvariantError,
                           NotationError, StateError)
from engine.game import Game, Outcome, PendingShowdown, Phase
from engine.rules import HouseRules, Variant

__all__ = [
    "Action",
    "ActionKind",
    "Card",
    "Colour",
    "DeckError",
    "EngineError",
    "Game",
    "HouseRules",
    "IllegalActionError",
    "InvariantError",
    "NotationError",
    "Outcome",
    "PendingShowdown",
    "Phase",
    "Rank",
    "StateError",
    "Variant",
]
