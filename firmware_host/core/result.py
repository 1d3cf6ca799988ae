"""What a showdown produces: one :class:`Result`, and :class:`UnitEvent` s on the way.

A Result is a frozen value with a JSON-safe dict form that round-trips, so the
journal, the protocol and the engine all carry the same thing.

>>> result = Result(showdown_id="sd-1", players={"a": "Ann", "b": "Bob"},
...                 winner="a", loser="b", reason="faster", tie_reruns=0,
...                 reaction_us={"a": 231000, "b": 254500}, margin_us=23500,
...                 cards=2, launch="launched", cards_counted=None)
>>> str(result)
'sd-1: Ann (side A) beat Bob (side B), faster by 23.5 ms; 2 cards launched'
>>> Result.from_dict(result.to_dict()) == result
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from firmware_host.people.words import result_line
from firmware_host.protocol import RESULT_KEYS, SIDES, EventName, Launch, Reason, Side

__all__ = ["Result", "UnitEvent"]

_REASONS, _LAUNCHES = tuple(Reason), tuple(Launch)


@dataclass(frozen=True)
class Result:
    """The outcome of one showdown.

    ``winner``/``loser`` are sides (:class:`~firmware_host.protocol.Side`),
    both None for a timeout or a void tie; for a false start the loser is the
    offender. ``reason`` and ``launch`` are a
    :class:`~firmware_host.protocol.Reason` and a
    :class:`~firmware_host.protocol.Launch`; each of these fields takes the
    text form too (``"a"``, ``"faster"``) and keeps the enum. ``reaction_us`` is
    each side's first press relative to the GO tick in microseconds (negative
    for a press before GO that was delivered after GO), None when that side
    never pressed or pressed before GO existed (a false start in the
    countdown). ``margin_us`` is the gap between the two first presses (None
    unless both pressed). ``cards_counted`` is the card sensor's count (None
    without a sensor).
    """

    showdown_id: str
    players: dict[str, str]
    winner: Side | None
    loser: Side | None
    reason: Reason
    tie_reruns: int
    reaction_us: dict[str, int | None]
    margin_us: int | None
    cards: int
    launch: Launch
    cards_counted: int | None = None
    bots: tuple[Side, ...] = ()

    def __post_init__(self):
        if self.reason not in _REASONS:
            raise ValueError(f"reason must be one of {', '.join(Reason)}, not {self.reason!r}")
        object.__setattr__(self, "reason", Reason(self.reason))
        if self.launch not in _LAUNCHES:
            raise ValueError(f"launch must be one of {', '.join(Launch)}, not {self.launch!r}")
        object.__setattr__(self, "launch", Launch(self.launch))
        for name in ("winner", "loser"):
            side = getattr(self, name)
            if side not in (*SIDES, None):
                raise ValueError(f"{name} must be 'a', 'b' or None, not {side!r}")
            object.__setattr__(self, name, None if side is None else Side(side))
        for name in ("players", "reaction_us"):
            value = getattr(self, name)
            if not isinstance(value, dict) or set(value) != set(SIDES):
                raise ValueError(f"{name} must have exactly the keys 'a' and 'b', not {value!r}")
            # Copied so the caller's dict cannot change a frozen result.
            object.__setattr__(self, name, {side: value[side] for side in SIDES})
        bots = self.bots
        if (
            not isinstance(bots, (list, tuple))
            or any(not isinstance(side, str) or side not in SIDES for side in bots)
            or len(set(bots)) != len(bots)
        ):
            raise ValueError(f"bots must be a list of distinct sides 'a', 'b', not {bots!r}")
        object.__setattr__(self, "bots", tuple(side for side in SIDES if side in bots))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (str, int, None and nested dicts only), keys in
        RESULT_KEYS order. (What ``dataclasses.asdict`` gives, made directly:
        it is on every showdown's path, and asdict walks each value.)"""
        data = {key: getattr(self, key) for key in RESULT_KEYS}
        data["players"], data["reaction_us"] = dict(self.players), dict(self.reaction_us)
        data["bots"] = list(self.bots)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        """The inverse of :meth:`to_dict`; unknown or missing keys are an error."""
        if not isinstance(data, dict):
            raise ValueError(f"a result must be a dict, not {type(data).__name__}")
        keys = set(RESULT_KEYS)
        missing, unknown = keys - set(data), set(data) - keys
        if missing or unknown:
            raise ValueError(
                f"result keys wrong: missing {sorted(missing)}, unknown {sorted(unknown)}"
            )
        return cls(**data)

    def __str__(self) -> str:
        """The result on one line, in the words both ends use
        (:func:`firmware_host.people.words.result_line`)."""
        return result_line(self.to_dict())


@dataclass(frozen=True)
class UnitEvent:
    """Something the unit reports: ``data`` is a JSON-safe dict with the keys
    ``name.fields``, in that order."""

    name: EventName
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, **self.data}
