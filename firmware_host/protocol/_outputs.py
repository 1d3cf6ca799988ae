"""What the unit shows, sounds and drives: the ``outputs`` object, one typed value.

The unit reads its devices into an :class:`Outputs` and sends
:meth:`Outputs.to_wire` (a status's ``outputs``, a ``watch`` reply's, each
``outputs`` event's data: docs/protocol.md, "Watching the outputs"); the
engine reads what it gets with :meth:`Outputs.from_wire`, which refuses an
object out of shape with a ValueError naming the field, in the words the
unit uses for a bad request. Both ends build and read the object here alone.

>>> idle = Outputs.idle(leds=3)
>>> idle.to_wire()  # doctest: +NORMALIZE_WHITESPACE
{'leds': [False, False, False], 'go': False, 'arrows': {'a': False, 'b': False},
 'buzzer': False, 'motor': {'direction': None, 'speed': 0.0},
 'paddles': {'a': False, 'b': False}}
>>> Outputs.from_wire(idle.to_wire()) == idle
True
>>> launching = idle.but(motor=Motor(Side.B, 0.8), arrows=SideFlags(a=True))
>>> launching.motor, launching.arrows[Side.A]
(Motor(direction='b', speed=0.8), True)
>>> Outputs.from_wire({**idle.to_wire(), "motor": {"direction": None, "speed": 0.5}})
Traceback (most recent call last):
...
ValueError: field 'motor' must have speed 0 when its direction is null, not 0.5
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from firmware_host.protocol._errors import _show
from firmware_host.protocol._values import SIDES, Side

__all__ = ["Outputs", "Motor", "SideFlags"]

# The wire form is JSON: its values are whatever json.loads made them, so the
# readers below take ``object`` and check each one (no Any in their logic).
WireObject = dict[str, Any]  # Any: a JSON object's values are of any JSON type


def _where(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _refuse(path: str, rule: str, value: object) -> ValueError:
    return ValueError(f"field '{path}' must be {rule}, not {_show(value)}")


def _member(data: object, path: str, key: str) -> object:
    """``data[key]``, ``data`` being an object; ValueError naming the field otherwise."""
    if not isinstance(data, Mapping):
        raise _refuse(path, "an object", data)
    if key not in data:
        raise ValueError(f"missing field '{_where(path, key)}'")
    value: object = data[key]
    return value


def _flag(value: object, path: str, *, nullable: bool = False) -> bool:
    if isinstance(value, bool):
        return value
    raise _refuse(path, "true or false or null" if nullable else "true or false", value)


@dataclass(frozen=True)
class SideFlags:
    """One true/false per side: the false-start arrows, the paddles held down.

    >>> SideFlags(b=True)[Side.B], SideFlags.from_wire({"a": True, "b": False}).a
    (True, True)
    """

    a: bool = False
    b: bool = False

    def __getitem__(self, side: Side | str) -> bool:
        return self.a if Side(side) is Side.A else self.b

    @classmethod
    def of(cls, sides: Mapping[str, object]) -> SideFlags:
        """From ``{side: truthy}`` (each side's value made a bool)."""
        return cls(a=bool(sides[Side.A]), b=bool(sides[Side.B]))

    def to_wire(self) -> dict[str, bool]:
        return {Side.A.value: self.a, Side.B.value: self.b}

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SideFlags:
        a, b = (_flag(_member(data, path, side), _where(path, side)) for side in SIDES)
        return cls(a=a, b=b)


@dataclass(frozen=True)
class Motor:
    """The launcher: the side the cards fly toward while it is driven, and
    its PWM duty from 0 to 1; stopped, no direction and speed 0."""

    direction: Side | None = None
    speed: float = 0.0

    def __post_init__(self) -> None:
        if not 0 <= self.speed <= 1:
            raise _refuse("motor.speed", "a number from 0 to 1", self.speed)
        if self.direction is None and self.speed != 0:
            raise ValueError(
                f"field 'motor' must have speed 0 when its direction is null, not {self.speed!r}"
            )

    @classmethod
    def driven(cls, direction: str | None, speed: float) -> Motor:
        """The motor as the launcher reports it: ``speed`` rounded to 3
        places while driven, 0 when stopped (whatever its duty was)."""
        if direction is None:
            return cls()
        return cls(Side(direction), round(float(speed), 3))

    def to_wire(self) -> WireObject:
        direction = None if self.direction is None else self.direction.value
        return {"direction": direction, "speed": self.speed}

    @classmethod
    def from_wire(cls, data: object, path: str = "motor") -> Motor:
        direction = _member(data, path, "direction")
        if direction is not None and direction not in SIDES:
            raise _refuse(_where(path, "direction"), '"a", "b" or null', direction)
        speed = _member(data, path, "speed")
        if isinstance(speed, bool) or not isinstance(speed, int | float) or not 0 <= speed <= 1:
            raise _refuse(_where(path, "speed"), "a number from 0 to 1", speed)
        if direction is None and speed != 0:
            raise ValueError(
                f"field '{path}' must have speed 0 when its direction is null, not {_show(speed)}"
            )
        return cls(None if direction is None else Side(str(direction)), float(speed))


@dataclass(frozen=True)
class Outputs:
    """What the unit shows, sounds and drives now:

    - ``leds``: the countdown bar, one true/false per LED, first LED first;
    - ``go``: the GO light;
    - ``arrows``: the false-start arrows, one per side;
    - ``buzzer``: on or off, or None on a unit without one;
    - ``motor``: the launcher (:class:`Motor`);
    - ``paddles``: the paddles' pins held down now, one per side.
    """

    leds: tuple[bool, ...]
    go: bool = False
    arrows: SideFlags = SideFlags()
    buzzer: bool | None = False
    motor: Motor = Motor()
    paddles: SideFlags = SideFlags()

    def __post_init__(self) -> None:
        if not self.leds:
            raise _refuse("leds", "a non-empty array of true/false", list(self.leds))

    @classmethod
    def idle(cls, leds: int = 3) -> Outputs:
        """A unit at rest with ``leds`` LEDs in its bar: everything off, the motor stopped."""
        return cls(leds=(False,) * leds)

    def but(self, **changes: Any) -> Outputs:  # Any: the fields' own types, checked on build
        """These outputs with ``changes`` (fields by name) made."""
        return dataclasses.replace(self, **changes)

    def to_wire(self) -> WireObject:
        """The JSON object the protocol carries, its keys in the order the unit sends them."""
        return {
            "leds": list(self.leds),
            "go": self.go,
            "arrows": self.arrows.to_wire(),
            "buzzer": self.buzzer,
            "motor": self.motor.to_wire(),
            "paddles": self.paddles.to_wire(),
        }

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> Outputs:
        """The outputs in ``data`` (the wire form; fields a newer unit adds
        are passed over); ValueError naming the first field out of shape,
        its name under ``path`` (where the object sits in a message)."""
        if not isinstance(data, Mapping):
            raise _refuse(path or "outputs", "an object", data)
        leds = _member(data, path, "leds")
        if not isinstance(leds, list) or not leds or not all(isinstance(x, bool) for x in leds):
            raise _refuse(_where(path, "leds"), "a non-empty array of true/false", leds)
        go = _flag(_member(data, path, "go"), _where(path, "go"))
        arrows = SideFlags.from_wire(_member(data, path, "arrows"), _where(path, "arrows"))
        buzzer = _member(data, path, "buzzer")
        if buzzer is not None:
            buzzer = _flag(buzzer, _where(path, "buzzer"), nullable=True)
        motor = Motor.from_wire(_member(data, path, "motor"), _where(path, "motor"))
        paddles = SideFlags.from_wire(_member(data, path, "paddles"), _where(path, "paddles"))
        return cls(tuple(leds), go, arrows, buzzer, motor, paddles)
