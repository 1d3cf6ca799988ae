"""What the showdown core works on: its inbox items, the showdown and its
rounds, the launch, and where verdicts go (the :class:`Recorder`).

Plain values with no behaviour of their own, shared by the machine
(:mod:`firmware_host.core.machine`), what its states do
(:mod:`firmware_host.core.phases`) and the building of a Result
(:mod:`firmware_host.core.verdict`), so none of them imports another for them.

>>> Showdown("sd-1", 2, dict(STANDALONE_PLAYERS)).players
{'a': 'A', 'b': 'B'}
>>> present(None, "round", "idle")
Traceback (most recent call last):
...
RuntimeError: no round in state 'idle'
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from firmware_host.core.result import Result
from firmware_host.protocol import SIDES, Side

__all__ = [
    "Recorder",
    "RecordFailed",
    "InputEvent",
    "Showdown",
    "Round",
    "LaunchRun",
    "STANDALONE_PLAYERS",
    "present",
    "record_failure",
]

#: The players of a showdown armed without names (or by the timer button).
STANDALONE_PLAYERS: dict[str, str] = {Side.A: "A", Side.B: "B"}


# -- where verdicts go ----------------------------------------------------------


class Recorder(Protocol):
    """Where the core writes each verdict before anything moves (the daemon:
    the results journal). Called on the core's thread; each call returns once
    what it was given is safe, or raises."""

    def decided(self, result: Result) -> None:
        """A decision with a loser, ``launch == "pending"``: it must be durable
        before this returns, because the arrow, the buzzer and the motor follow."""

    def cards_counted(self, showdown_id: str, counted: int) -> None:
        """The card sensor counted ``counted`` cards out so far (best effort)."""

    def finished(self, result: Result) -> None:
        """The final result: a decided showdown's launch outcome, or a whole
        showdown that launched nothing (a timeout, a void tie)."""


class RecordFailed(RuntimeError):
    """The recorder could not keep a verdict; the message is the fault reason."""


# -- what the core works on ----------------------------------------------------


@dataclass(frozen=True)
class InputEvent:
    """One item of the core's inbox. ``kind`` is "paddle" (data: side, ticks,
    pressed, virtual: a bot's edge), "timer" (ticks), "card" (ticks), "call"
    (a command: fn, args, kwargs, future) or "wake". ``arrived`` is ``time.perf_counter()`` when
    it was queued, to measure decision latency."""

    kind: str
    data: tuple = ()
    arrived: float = field(default_factory=time.perf_counter)


@dataclass
class Showdown:
    """The armed or running showdown. ``bots``: the sides a bot plays, each
    with its median reaction in ms (the unit presses those paddles itself)."""

    showdown_id: str
    cards: int
    players: dict[str, str]
    tie_reruns: int = 0
    finished: bool = False
    bots: dict[Side, float] = field(default_factory=dict)


@dataclass
class Round:
    """One countdown and what happened after it (a tie re-run starts another)."""

    start: float  # clock time the countdown began
    planned_go: float  # clock time GO is due
    steps: int
    step: int = 0
    go_tick: float | None = None
    go_time: float | None = None
    presses: dict[str, float | None] = field(default_factory=lambda: dict.fromkeys(SIDES))


@dataclass
class LaunchRun:
    """The cards on their way to the loser's side, and how many the sensor counted."""

    side: Side
    cards: int
    counted: int = 0


_T = TypeVar("_T")


def present(value: _T | None, what: str, state: str) -> _T:
    """``value``, which the machine's state says is there: if it is not, that
    is a bug, and the fault it causes names it."""
    if value is None:
        raise RuntimeError(f"no {what} in state {state!r}")
    return value


def _text(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def record_failure(exc: Exception, what: str, result: Result) -> str:
    """A recorder's failure in one line: its own words if it raised
    RecordFailed (they name the file), else what could not be recorded."""
    if isinstance(exc, RecordFailed):
        return str(exc)
    return f"cannot record {what} of {result.showdown_id!r} ({_text(exc)})"
