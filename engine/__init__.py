"""The UNO rules engine (classic and Showdown), bots and the unit protocol client.

Subpackages: ``core`` (the rules: cards, actions, game, notation, variants),
``players`` (bots), ``units`` (unit ports: simulated, manual, remote; the only
part that imports ``firmware_host.protocol``) and ``apps`` (the match driver,
the terminal game, the demo, the bench and the ``showdown`` command). The rules
core is re-exported here; ``import engine`` loads nothing else.

>>> from engine import Game, Action
>>> game = Game.new(2, "classic", seed=1)
>>> game.apply(game.legal_actions()[0])
>>> Game.from_notation(game.notation()).notation() == game.notation()
True
"""

from engine.uno import (
    Action,
    ActionKind,
    Card,
    Colour,
    DeckError,
    EngineError,
    Game,
    HouseRules,
    IllegalActionError,
    InvariantError,
    NotationError,
    Outcome,
    PendingShowdown,
    Phase,
    Rank,
    StateError,
    Variant,
)

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
