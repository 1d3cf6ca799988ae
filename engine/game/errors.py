"""The engine's exceptions: one base class, each also a matching builtin.

The families, all here so that one module answers "what can the engine raise?":
the rules core's (a bad action, notation, deck or state), the unit ports'
(``engine.units``: a unit the table must see to, and the link to it failing),
and the browser table's save file that cannot be written (``SaveFailed``, which
never leaves a room: the change is undone and the table pauses).

>>> issubclass(IllegalActionError, ValueError), issubclass(UnitUnreachable, ConnectionError)
(True, True)
"""

from __future__ import annotations

__all__ = [
    "EngineError",
    # the rules core
    "IllegalActionError",
    "NotationError",
    "DeckError",
    "StateError",
    "InvariantError",
    # the unit ports: what the table must sort out (engine.units.remote)
    "UnitProblem",
    "UnitUnreachable",
    "UnitBusy",
    "UnitVersionError",
    "UnitFault",
    "UnitJam",
    # the link to a unit (engine.units.unit_link)
    "LinkLost",
    "UnitFlooding",
    "ProtocolViolation",
    "CommandRefused",
    "VersionMismatch",
    "AuthFailed",
    # the browser table (engine.apps.table.durable)
    "SaveFailed",
]


class EngineError(Exception):
    """Base class of every error the UNO engine raises."""


# -- the rules core ---------------------------------------------------------------


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


# -- the unit ports: what the table must sort out ----------------------------------


class UnitProblem(EngineError, RuntimeError):
    """The unit cannot settle a showdown now. ``str()`` says what happened,
    ``what_to_do`` what the table must do; ``url`` is the unit's; ``loser`` is
    the player the unit found to lose, when it got that far (a jam), else None."""

    def __init__(self, message: str, *, url: str, what_to_do: str, loser: int | None = None):
        super().__init__(message)
        self.url = url
        self.what_to_do = what_to_do
        self.loser = loser


class UnitUnreachable(UnitProblem, ConnectionError):
    """The unit could not be reached (at the start, or not again after a drop)."""


class UnitBusy(UnitProblem):
    """The unit is running (or armed for) a showdown that is not this one."""


class UnitVersionError(UnitProblem):
    """The unit and the engine share no protocol version (the message names both)."""


class UnitFault(UnitProblem):
    """The unit reports a hardware fault."""


class UnitJam(UnitProblem):
    """The launcher jammed (or stopped) before all the cards left: the unit
    decided the showdown (``loser``), but the cards need a hand."""


# -- the link to a unit -------------------------------------------------------------


class LinkLost(EngineError, ConnectionError):
    """The link to the unit broke or stopped answering; reconnecting may help."""


class UnitFlooding(LinkLost):
    """The unit sent more events than a link keeps unread."""


class ProtocolViolation(LinkLost):
    """A reply or event out of shape: ``what`` it was ("reply to status",
    "result event") and the ``problem``, naming the field."""

    def __init__(self, what: str, problem: str):
        super().__init__(f"the unit's {what} is malformed: {problem}")
        self.what, self.problem = what, problem


class CommandRefused(EngineError, RuntimeError):
    """The unit answered a request with ``ok: false``: ``code`` and ``message``."""

    def __init__(self, cmd: str, code: str, message: str):
        super().__init__(f"{cmd}: {code}: {message}")
        self.cmd, self.code, self.message = cmd, code, message


class VersionMismatch(EngineError, RuntimeError):
    """The unit and this engine share no protocol version (the message names both)."""


class AuthFailed(EngineError, PermissionError):
    """The unit refused the token."""


# -- the browser table ------------------------------------------------------------


class SaveFailed(EngineError, RuntimeError):
    """The table's save file could not be written: ``why`` in the table's
    words ("the table cannot save: the disk is full at PATH"), ``what_to_do``,
    and ``pause``, what every screen shows. Compared and copied by its words."""

    def __init__(self, why: str, what_to_do: str):
        super().__init__(why)
        self.why = why
        self.what_to_do = what_to_do

    def __reduce__(self) -> tuple[type[SaveFailed], tuple[str, str]]:
        return (SaveFailed, (self.why, self.what_to_do))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SaveFailed):
            return NotImplemented
        return (other.why, other.what_to_do) == (self.why, self.what_to_do)

    def __hash__(self) -> int:
        return hash((self.why, self.what_to_do))

    @property
    def pause(self) -> str:
        return (
            f"The game is paused: {self.why}. What to do: {self.what_to_do}, "
            "then press Retry on the host's display."
        )
