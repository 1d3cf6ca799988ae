"""What the unit's replies and events must look like before the engine uses them.

The protocol module checks the envelope of each line (an id and ``ok``, or an
event name and ``seq``); this module checks the data inside, per command and
per event, against what the unit sends (docs/protocol.md): types, the allowed
values, and that a result's winner, loser and reason agree. A value out of
shape raises :class:`Malformed` naming the field, in the words the unit uses
for a bad request:

>>> check_reply("status", {"state": 5, "paddles": None, "showdown": None,
...                        "last_result": None, "fault": None})
Traceback (most recent call last):
...
engine.units.unit_replies.Malformed: field 'state' must be one of idle, armed, countdown, hold,
go, false_start, resolved, launching, timeout, selftest, fault, not 5

The fields of a capability (``bots``, the sides a virtual paddle played, in
``armed``, a result and a status's showdown; ``outputs`` in a status) are
checked when they are there: a unit without the capability leaves them out.
Fields a newer unit adds are kept and not checked; so are the replies of
commands and the events this module does not list (the engine does not use them).
The values (sides, states, reasons, launch outcomes, the events and their keys)
are the protocol's own (:mod:`firmware_host.protocol`), the ones the unit uses.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from firmware_host.protocol import (
    SIDES,
    EventName,
    Launch,
    Outputs,
    Reason,
    UnitState,
    clean_showdown_id,
)

#: A reply's or an event's data as the wire decodes it: a JSON object, whose
#: values are of any JSON type (hence Any) until check_reply or check_event.
WireData = dict[str, Any]

__all__ = ["Malformed", "check_reply", "check_event", "WireData"]

#: Reasons that decide a showdown: a winner and a loser. The others decide nothing.
_DECIDING = tuple(reason for reason in Reason if reason.decides)


class Malformed(ValueError):
    """A reply or event whose data is not what the unit sends; the message names the field."""


def _show(value: Any) -> str:
    """A value as the unit's messages show it: JSON, cut at 40 characters."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 40 else text[:39] + "…"


def _field(path: str) -> str:
    return f"field '{path}'"


@dataclass(frozen=True)
class _Rule:
    """A leaf value: ``test`` says whether it is good; ``text`` what it must be."""

    text: str
    test: Callable[[Any], bool]

    def check(self, path: str, value: Any) -> None:
        if not self.test(value):
            raise Malformed(f"{_field(path)} must be {self.text}, not {_show(value)}")

    def or_null(self) -> _Rule:
        return _Rule(f"{self.text} or null", lambda value: value is None or self.test(value))


@dataclass(frozen=True)
class _Shape:
    """An object with required ``fields`` and ``optional`` ones (checked when
    there: a unit without a capability leaves its fields out); extra fields
    pass. ``agree`` checks the fields against each other once each is good."""

    fields: Mapping[str, _Rule | _Shape | _Wire]
    nullable: bool = False
    agree: Callable[[str, Mapping[str, Any]], None] | None = None
    optional: Mapping[str, _Rule | _Shape | _Wire] = dataclasses.field(default_factory=dict)

    def check(self, path: str, value: Any) -> None:
        if value is None and self.nullable:
            return
        if not isinstance(value, Mapping):
            expected = "an object or null" if self.nullable else "an object"
            raise Malformed(f"{_field(path)} must be {expected}, not {_show(value)}")
        for key, rule in self.fields.items():
            where = f"{path}.{key}" if path else key
            if key not in value:
                raise Malformed(f"missing {_field(where)}")
            rule.check(where, value[key])
        for key, rule in self.optional.items():
            if key in value:
                rule.check(f"{path}.{key}" if path else key, value[key])
        if self.agree is not None:
            self.agree(path, value)

    def or_null(self) -> _Shape:
        return _Shape(self.fields, True, self.agree, self.optional)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _one_of(*values: str) -> _Rule:
    return _Rule(
        f"one of {', '.join(values)}", lambda value: isinstance(value, str) and value in values
    )


def _whole(low: int) -> _Rule:
    return _Rule(f"a whole number >= {low}", lambda value: _is_int(value) and value >= low)


def _is_showdown_id(value: Any) -> bool:
    try:
        clean_showdown_id(value)
    except ValueError:
        return False
    return True


_TEXT = _Rule("a string", lambda value: isinstance(value, str))
_FLAG = _Rule("true or false", lambda value: isinstance(value, bool))
_INT = _Rule("a whole number", _is_int)
_NUMBER = _Rule(
    "a number", lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)
)
_OBJECT = _Shape({})
_SIDE = _Rule('"a" or "b"', lambda value: value in SIDES)
_SIDE_OR_NULL = _Rule('"a", "b" or null', lambda value: value is None or value in SIDES)
_SHOWDOWN_ID = _Rule("1 to 64 characters of A-Z a-z 0-9 . _ : -", _is_showdown_id)
_STRINGS = _Rule(
    "an array of strings",
    lambda value: isinstance(value, list) and all(isinstance(item, str) for item in value),
)
_OBJECTS = _Rule(
    "an array of objects",
    lambda value: isinstance(value, list) and all(isinstance(item, Mapping) for item in value),
)
_PLAYERS = _Shape({"a": _TEXT, "b": _TEXT})


def _is_bot_sides(value: Any) -> bool:
    return (
        isinstance(value, list)
        and all(isinstance(side, str) and side in SIDES for side in value)
        and value == sorted(set(value))
    )


#: The sides a virtual paddle played (the unit's "bots" capability): sorted, each once.
_BOT_SIDES = _Rule('a sorted array of different sides "a", "b"', _is_bot_sides)


def _result_agrees(path: str, result: Mapping[str, Any]) -> None:
    """A deciding reason names two different sides; the others name none."""
    winner, loser, reason = result["winner"], result["loser"], result["reason"]
    where = _field(path) if path else "the result"
    if reason in _DECIDING and (winner is None or loser is None or winner == loser):
        raise Malformed(
            f"{where} must name a winner and a loser on different sides when its "
            f"reason is {_show(reason)}, not {_show(winner)} and {_show(loser)}"
        )
    if reason not in _DECIDING and (winner is not None or loser is not None):
        raise Malformed(
            f"{where} must name no winner and no loser when its reason is "
            f"{_show(reason)}, not {_show(winner)} and {_show(loser)}"
        )


RESULT = _Shape(
    {
        "showdown_id": _SHOWDOWN_ID,
        "players": _PLAYERS,
        "winner": _SIDE_OR_NULL,
        "loser": _SIDE_OR_NULL,
        "reason": _one_of(*Reason),
        "tie_reruns": _whole(0),
        "reaction_us": _Shape({"a": _INT.or_null(), "b": _INT.or_null()}),
        "margin_us": _INT.or_null(),
        "cards": _whole(1),
        "launch": _one_of(*Launch),
        "cards_counted": _whole(0).or_null(),
    },
    agree=_result_agrees,
    optional={"bots": _BOT_SIDES},
)


@dataclass(frozen=True)
class _Wire:
    """An object the protocol reads into a typed value itself (``read(value,
    path)``, e.g. :meth:`Outputs.from_wire`): its ValueError, which names the
    field, becomes Malformed."""

    read: Callable[[object, str], object]
    nullable: bool = False

    def check(self, path: str, value: Any) -> None:
        if value is None and self.nullable:
            return
        if self.nullable and not isinstance(value, Mapping):
            raise Malformed(f"{_field(path)} must be an object or null, not {_show(value)}")
        try:
            self.read(value, path)
        except ValueError as exc:
            raise Malformed(str(exc)) from None

    def or_null(self) -> _Wire:
        return _Wire(self.read, True)


#: What the unit shows, sounds and drives now (the "outputs" capability): the
#: ``outputs`` event's data, a status's and a ``watch`` reply's ``outputs``.
OUTPUTS = _Wire(Outputs.from_wire)

_STATUS_FIELDS: dict[str, _Rule | _Shape | _Wire] = {
    "paddles": _Shape({"a": _FLAG, "b": _FLAG}).or_null(),
    "showdown": _Shape(
        {
            "showdown_id": _SHOWDOWN_ID,
            "cards": _whole(1),
            "players": _PLAYERS,
            "tie_reruns": _whole(0),
        },
        optional={"bots": _BOT_SIDES},
    ).or_null(),
    "last_result": RESULT.or_null(),
    "fault": _TEXT.or_null(),
}
_STATUS = _Shape(
    {"state": _one_of(*UnitState), **_STATUS_FIELDS}, optional={"outputs": OUTPUTS.or_null()}
)
_DONE = _Shape({"result": RESULT})


def _showdown_reply(data: Mapping[str, Any]) -> None:
    """Arming answers the status, or ``{"state": "done", "result": ...}`` from the journal."""
    _Shape({"state": _one_of("done", *UnitState)}).check("", data)
    (_DONE if data["state"] == "done" else _STATUS).check("", data)


_NOTHING = _OBJECT.check
#: The checks of each command's reply data.
_REPLIES: dict[str, Callable[[str, Mapping[str, Any]], None]] = {
    "hello": _Shape(
        {"version": _whole(1), "unit": _OBJECT, "capabilities": _STRINGS, "seq": _whole(0)}
    ).check,
    "auth": _NOTHING,
    "ping": _NOTHING,
    "status": _STATUS.check,
    "watch": _Shape({"outputs": OUTPUTS.or_null()}).check,
    "showdown": lambda path, data: _showdown_reply(data),
    "start": _STATUS.check,
    "cancel": _STATUS.check,
    "result": _DONE.check,
    "history": _Shape({"results": _OBJECTS, "players": _OBJECT}).check,
    "selftest": _Shape({"passed": _FLAG, "devices": _OBJECTS}).check,
    "bench_press": _NOTHING,
    "bench_release": _NOTHING,
    "bench_timer": _NOTHING,
}

#: The checks of each event's data: a rule for each of its keys (``EventName.fields``).
_EVENTS: dict[str, _Shape | _Wire] = {
    EventName.STATE: _Shape({"state": _one_of(*UnitState), "previous": _one_of(*UnitState)}),
    EventName.ARMED: _Shape(
        {"showdown_id": _SHOWDOWN_ID, "cards": _whole(1), "players": _PLAYERS},
        optional={"bots": _BOT_SIDES},
    ),
    EventName.COUNTDOWN: _Shape(
        {"showdown_id": _SHOWDOWN_ID, "step": _whole(1), "steps": _whole(1), "rerun": _whole(0)}
    ),
    EventName.GO: _Shape({"showdown_id": _SHOWDOWN_ID, "ticks": _NUMBER}),
    EventName.FALSE_START: _Shape({"showdown_id": _SHOWDOWN_ID, "side": _SIDE}),
    EventName.TIE: _Shape(
        {"showdown_id": _SHOWDOWN_ID, "gap_us": _INT.or_null(), "rerun": _whole(0), "void": _FLAG}
    ),
    EventName.PADDLE_HELD: _Shape({"side": _SIDE}),
    EventName.RESULT: RESULT,
    EventName.LAUNCHED: _Shape(
        {
            "showdown_id": _SHOWDOWN_ID,
            "side": _SIDE,
            "cards": _whole(0),
            "verified": _FLAG,
            "outcome": _one_of(*Launch),
        }
    ),
    EventName.CANCELLED: _Shape({"showdown_id": _SHOWDOWN_ID}),
    EventName.FAULT: _Shape({"reason": _TEXT}),
    EventName.OUTPUTS: OUTPUTS,
}


def check_reply(cmd: str, data: Mapping[str, Any]) -> WireData:
    """The data of the unit's reply to ``cmd``, checked; Malformed otherwise."""
    check = _REPLIES.get(cmd)
    if check is not None:
        check("", data)
    return dict(data)


def check_event(name: str, data: Mapping[str, Any]) -> WireData:
    """The data of the unit's ``name`` event, checked; Malformed otherwise."""
    shape = _EVENTS.get(name)
    if shape is not None:
        shape.check("", data)
    return dict(data)
