"""The engine's exceptions: one base class, each also a matching builtin."""

from __future__ import annotations

__all__ = [
    "EngineError",
    "IllegalActionError",
    "NotationError",
    "DeckError",
    "StateError",
    "InvariantError",
]


class EngineError(Exception):
    """Base class of every error the UNO engine raises."""


class IllegalActionError(EngineError, ValueError):
    """An action that is not legal in the position; the message names both."""


class NotationError(EngineError, ValueError):
    """Text that is not a valid card, action, house rule or game notation."""


class DeckError(EngineError, ValueError):
    """A deck definition file that cannot be used; the message names file and entry."""


class StateError(EngineError, RuntimeError):
    """A request the game's state does not allow (e.g. a new round mid-round)."""


class InvariantError(EngineError, AssertionError):
    """A broken internal invariant (a card lost or duplicated, a bad phase)."""
