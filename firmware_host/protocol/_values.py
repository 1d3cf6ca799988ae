"""The values both ends name: sides, the unit's states, reasons, launch outcomes, events.

Each is an enum whose members are strings (:class:`enum.StrEnum`), so a member
is its text form: it equals that text, prints as it (``str`` and ``repr``, so a
message or a dataclass's repr reads as it did), goes into JSON as it, and comes
back from it. The wire carries exactly what it carried when these were bare
strings.

>>> Side.A == "a", str(Reason.TIE_VOID), Side("b") is Side.B, Side.A.other is Side.B
(True, 'tie_void', True, True)
>>> Reason("tie")
Traceback (most recent call last):
...
ValueError: 'tie' is not a valid Reason
>>> import json
>>> json.dumps({"winner": Side.A, "launch": Launch.NONE})
'{"winner": "a", "launch": "none"}'
>>> EventName.GO.fields
('showdown_id', 'ticks')
>>> ", ".join(Reason)
'faster, false_start, timeout, tie_void'
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "TextEnum",
    "Side",
    "SIDES",
    "UnitState",
    "RUNNING_STATES",
    "Reason",
    "Launch",
    "RESULT_KEYS",
    "EventName",
]


class TextEnum(StrEnum):
    """A string enum that is its text everywhere, its repr included."""

    __repr__ = str.__repr__


class Side(TextEnum):
    """A side of the unit: a paddle, an arrow, a direction of the launcher.
    A is the challenger's, B the opponent's."""

    A = "a"
    B = "b"

    @property
    def other(self) -> Side:
        return Side.B if self is Side.A else Side.A


#: Both sides, in order (a plain tuple: faster to walk than the enum).
SIDES: tuple[Side, ...] = tuple(Side)


class UnitState(TextEnum):
    """The states of the unit's showdown machine (a status reply's ``state``,
    the ``state`` event's ``state`` and ``previous``); docs/timing.md says what
    each one shows and when it is left."""

    IDLE = "idle"
    ARMED = "armed"
    COUNTDOWN = "countdown"
    HOLD = "hold"
    GO = "go"
    FALSE_START = "false_start"
    RESOLVED = "resolved"
    LAUNCHING = "launching"
    TIMEOUT = "timeout"
    SELFTEST = "selftest"
    FAULT = "fault"


#: The states in which a showdown is under way (neither idle nor armed): the
#: unit refuses to arm or start another.
RUNNING_STATES: tuple[UnitState, ...] = (
    UnitState.COUNTDOWN,
    UnitState.HOLD,
    UnitState.GO,
    UnitState.FALSE_START,
    UnitState.RESOLVED,
    UnitState.LAUNCHING,
    UnitState.TIMEOUT,
)


class Reason(TextEnum):
    """Why a showdown ended as it did (a result's ``reason``)."""

    FASTER = "faster"  # the loser pressed later, or never
    FALSE_START = "false_start"  # the loser pressed too early
    TIMEOUT = "timeout"  # nobody pressed in time
    TIE_VOID = "tie_void"  # a tie with no re-run left

    @property
    def decides(self) -> bool:
        """A winner and a loser (faster, false start); the others name neither."""
        return self in (Reason.FASTER, Reason.FALSE_START)


class Launch(TextEnum):
    """What the launcher did (a result's ``launch``)."""

    LAUNCHED = "launched"  # ran its time, or the sensor counted every card
    JAM = "jam"  # the sensor had not counted them all by launcher.max_run_s
    CANCELLED = "cancelled"  # cancelled mid-launch
    NONE = "none"  # nothing to launch: a timeout, a void tie
    FAULT = "fault"  # a fault stopped it
    # These two come only from the journal: the decision is recorded and the
    # cards are flying now; or the unit stopped, crashed or lost power after the
    # decision was recorded and before the launch ended (some or all of the
    # cards are still in the unit; ``cards_counted`` says how many the sensor
    # saw leave).
    PENDING = "pending"
    INTERRUPTED = "interrupted"


#: The keys of a result on the wire (``Result.to_dict()``), in order.
RESULT_KEYS = (
    "showdown_id",
    "players",
    "bots",
    "winner",
    "loser",
    "reason",
    "tie_reruns",
    "reaction_us",
    "margin_us",
    "cards",
    "launch",
    "cards_counted",
)


class EventName(TextEnum):
    """The events the unit pushes to every client that completed hello, each
    with the keys of its data (:attr:`fields`, in the order the unit sends them).

    ``outputs`` is the one exception: it goes only to a client that asked for
    it with ``watch`` (the unit's "outputs" capability), and it does not count
    in the event sequence: its ``seq`` is the last numbered event's, so a
    client that watches must not take it for a gap (docs/protocol.md,
    "Watching the outputs")."""

    fields: tuple[str, ...]

    def __new__(cls, name: str, fields: tuple[str, ...]) -> EventName:
        member = str.__new__(cls, name)
        member._value_ = name
        member.fields = fields
        return member

    STATE = "state", ("state", "previous")
    ARMED = "armed", ("showdown_id", "cards", "players", "bots")
    COUNTDOWN = "countdown", ("showdown_id", "step", "steps", "rerun")
    GO = "go", ("showdown_id", "ticks")
    FALSE_START = "false_start", ("showdown_id", "side")
    TIE = "tie", ("showdown_id", "gap_us", "rerun", "void")
    PADDLE_HELD = "paddle_held", ("side",)
    RESULT = "result", RESULT_KEYS
    LAUNCHED = "launched", ("showdown_id", "side", "cards", "verified", "outcome")
    CANCELLED = "cancelled", ("showdown_id",)
    FAULT = "fault", ("reason",)
    OUTPUTS = "outputs", ("leds", "go", "arrows", "buzzer", "motor", "paddles")
