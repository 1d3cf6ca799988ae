"""The unit's errors, each with the protocol error ``code`` it is reported as.

Every error subclasses :class:`UnitError` and the builtin that matches its
meaning, so ``except ValueError`` still catches a bad card count. The message
names what the unit saw, for example the state it was in.

>>> error = BusyError("the unit is busy: state is 'countdown'")
>>> error.code, isinstance(error, RuntimeError)
('busy', True)
>>> InvalidCardsError("cards must be 1..10, not 0").code
'invalid_cards'
"""

from __future__ import annotations

__all__ = [
    "UnitError",
    "BusyError",
    "NotArmedError",
    "InvalidCardsError",
    "InvalidArgumentError",
    "PaddleHeldError",
    "UnitFaultError",
    "UnknownShowdownError",
    "NotMockError",
    "UnitClosedError",
]


class UnitError(Exception):
    """Base of the unit's errors; ``code`` is the protocol's error code."""

    code = "unit_error"


class BusyError(UnitError, RuntimeError):
    """A showdown is running: the command is not allowed in this state."""

    code = "busy"


class NotArmedError(UnitError, RuntimeError):
    """``start`` with no armed showdown."""

    code = "not_armed"


class InvalidCardsError(UnitError, ValueError):
    """A card count outside 1..showdown.max_cards (or not a whole number)."""

    code = "invalid_cards"


class InvalidArgumentError(UnitError, ValueError):
    """A bad showdown id, player names, side or bench time."""

    code = "invalid_argument"


class PaddleHeldError(UnitError, RuntimeError):
    """``start`` while a paddle is held down: the unit stays armed and warns.

    ``sides`` lists the held paddles ("a", "b").
    """

    code = "paddle_held"

    def __init__(self, message: str, sides: tuple[str, ...] = ()):
        super().__init__(message)
        self.sides = tuple(sides)


class UnitFaultError(UnitError, RuntimeError):
    """The unit is in its fault state (or a command caused a fault)."""

    code = "fault"


class UnknownShowdownError(UnitError, LookupError):
    """No result is known for that showdown id (for the protocol's ``result``)."""

    code = "unknown_showdown"


class NotMockError(UnitError, RuntimeError):
    """The bench needs mock pins; this unit runs on real hardware."""

    code = "not_mock"


class UnitClosedError(UnitError, RuntimeError):
    """The unit is not open (or its event loop has stopped)."""

    code = "closed"
