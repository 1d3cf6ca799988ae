"""What every game of the engine shares: the game interface, the registry of game
families, the errors and the seeded shuffle.

Plain values, sans-IO: it imports nothing else of the project.
"""

from engine.game.errors import EngineError, IllegalActionError, NotationError, StateError

__all__ = ["EngineError", "IllegalActionError", "NotationError", "StateError"]
