"""What a showdown produces: one :class:`Result`, and :class:`UnitEvent` s on the way.

A Result is a frozen value with a JSON-safe dict form that round-trips, so the
journal, the protocol and the engine all carry the same thing.

>>> result = Result(showdown_id="sd-1", players={"a": "Ann", "b": "Bob"},
...                 winner="a", loser="b", reason="faster", tie_reruns=0,
...                 reaction_us={"a": 231000, "b": 254500}, margin_us=23500,
...                 cards=2, launch="launched", cards_counted=None)
>>> str(result)
'sd-1: Ann (a) beat Bob (b), faster by 23500 us; 2 cards launched'
>>> Result.from_dict(result.to_dict()) == result
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Result", "UnitEvent", "SIDES", "RESULT_KEYS", "REASONS", "LAUNCH_OUTCOMES", "EVENT_NAMES"]

SIDES = ("a", "b")
#: Why the showdown ended as it did.
REASONS = ("faster", "false_start", "timeout", "tie_void")
#: What the launcher did: ran its time (or counted every card), a jam (the card
#: sensor did not count them all by launcher.max_run_s), cancelled mid-launch,
#: no launch (timeout, void tie), or a fault stopped it. Two more come only
#: from the journal: "pending" (decided and recorded, the cards are flying
#: now) and "interrupted" (the unit stopped, crashed or lost power after the
#: decision was recorded and before the launch ended: some or all of the cards
#: are still in the unit; ``cards_counted`` says how many the sensor saw leave).
LAUNCH_OUTCOMES = ("launched", "jam", "cancelled", "none", "fault", "pending", "interrupted")

#: The keys of Result.to_dict(), in order.
RESULT_KEYS = ("showdown_id", "players", "winner", "loser", "reason", "tie_reruns",
               "reaction_us", "margin_us", "cards", "launch", "cards_counted")

#: Every UnitEvent name, with the keys of its data.
EVENT_NAMES = {
    "state": ("state", "previous"),
    "armed": ("showdown_id", "cards", "players"),
    "countdown": ("showdown_id", "step", "steps", "rerun"),
    "go": ("showdown_id", "ticks"),
    "false_start": ("showdown_id", "side"),
    "tie": ("showdown_id", "gap_us", "rerun", "void"),
    "paddle_held": ("side",),
    "launched": ("showdown_id", "side", "cards", "verified", "outcome"),
    "result": RESULT_KEYS,
    "cancelled": ("showdown_id",),
    "fault": ("reason",),
}


@dataclass(frozen=True)
class Result:
    """The outcome of one showdown.

    ``winner``/``loser`` are sides ("a", "b"), both None for a timeout or a
    void tie; for a false start the loser is the offender. ``reaction_us`` is
    each side's first press relative to the GO tick in microseconds (negative
    for a press before GO that was delivered after GO), None when that side
    never pressed or pressed before GO existed (a false start in the
    countdown). ``margin_us`` is the gap between the two first presses (None
    unless both pressed). ``cards_counted`` is the card sensor's count (None
    without a sensor).
    """

    showdown_id: str
    players: dict[str, str]
    winner: str | None
    loser: str | None
    reason: str
    tie_reruns: int
    reaction_us: dict[str, int | None]
    margin_us: int | None
    cards: int
    launch: str
    cards_counted: int | None = None

    def __post_init__(self):
        if self.reason not in REASONS:
            raise ValueError(f"reason must be one of {', '.join(REASONS)}, not {self.reason!r}")
        if self.launch not in LAUNCH_OUTCOMES:
            raise ValueError(
                f"launch must be one of {', '.join(LAUNCH_OUTCOMES)}, not {self.launch!r}")
        for name in ("winner", "loser"):
            if getattr(self, name) not in (*SIDES, None):
                raise ValueError(f"{name} must be 'a', 'b' or None, not {getattr(self, name)!r}")
        for name in ("players", "reaction_us"):
            value = getattr(self, name)
            if not isinstance(value, dict) or set(value) != set(SIDES):
                raise ValueError(f"{name} must have exactly the keys 'a' and 'b', not {value!r}")
            # Copied so the caller's dict cannot change a frozen result.
            object.__setattr__(self, name, {side: value[side] for side in SIDES})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (str, int, None and nested dicts only)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Result":
        """The inverse of :meth:`to_dict`; unknown or missing keys are an error."""
        if not isinstance(data, dict):
            raise ValueError(f"a result must be a dict, not {type(data).__name__}")
        keys = set(RESULT_KEYS)
        missing, unknown = keys - set(data), set(data) - keys
        if missing or unknown:
            raise ValueError(f"result keys wrong: missing {sorted(missing)}, unknown {sorted(unknown)}")
        return cls(**data)

    def __str__(self) -> str:
        names = {side: f"{self.players[side]} ({side})" for side in SIDES}
        if self.reason == "faster":
            text = f"{names[self.winner]} beat {names[self.loser]}, faster by {self.margin_us} us"
            if self.margin_us is None:
                text = f"{names[self.winner]} beat {names[self.loser]}, who never pressed"
        elif self.reason == "false_start":
            text = f"false start by {names[self.loser]}"
        elif self.reason == "timeout":
            text = "nobody pressed in time"
        else:
            text = f"void after {self.tie_reruns} tie re-runs"
        if self.launch == "none":
            return f"{self.showdown_id}: {text}; no launch"
        cards = f"{self.cards} card{'' if self.cards == 1 else 's'}"
        if self.launch == "pending":
            return f"{self.showdown_id}: {text}; {cards} launching"
        if self.launch == "interrupted":
            counted = "" if self.cards_counted is None else f", {self.cards_counted} counted out"
            return f"{self.showdown_id}: {text}; launch of {cards} interrupted{counted}"
        return f"{self.showdown_id}: {text}; {cards} {self.launch}"


@dataclass(frozen=True)
class UnitEvent:
    """Something the unit reports: ``name`` is one of :data:`EVENT_NAMES`,
    ``data`` a JSON-safe dict with that name's keys."""

    name: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, **self.data}
