"""The card-game engine: UNO (classic, Showdown, UNO Party!) and the match, bots and
unit ports around it.

Subpackages: ``game`` (what every game shares: the game interface, the
registry of game families, the agents, the errors), ``match`` (the match, fed
or played to the end), ``uno`` (the UNO family: its rules, notation, bots,
words and table views), ``units`` (unit ports: simulated, manual, remote) and
``apps`` (the terminal game, the demo, the bench, the browser table and the
``showdown`` command). The UNO rules' names are re-exported here, loaded when
first used: ``import engine`` loads nothing else.

>>> from engine import Game, Action
>>> game = Game.new(2, "classic", seed=1)
>>> game.apply(game.legal_actions()[0])
>>> Game.from_notation(game.notation()).notation() == game.notation()
True
"""

from typing import Any

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


def __getattr__(name: str) -> Any:
    # PEP 562: the rules load on first use, so a subpackage loads alone.
    if name in __all__:
        import engine.uno

        return getattr(engine.uno, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
