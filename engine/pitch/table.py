"""10 Point Pitch at the browser table: what the room (engine.apps.table.room) asks of it.

Named by ``PitchFamily.table`` (or found here by its name, engine.apps.table.setup):
exactly four seats, partners opposite (team A seats 0 and 2, team B 1 and 3),
a target of 52, the bots by kind (the family's own), the house rules from the
host's form (one switch per ``PitchRules`` field: on is its alternative), the
views (engine.pitch.table_views), the log's words (engine.pitch.words).

>>> seat_range("pitch"), default_target("pitch"), list(BOT_KINDS)
((4, 4), 52, ['bot', 'random', 'strong'])
>>> str(house_rules_from("pitch", {"low": "holder", "misdeal": True, "burn_face": "up"}))
'low=holder,misdeal'
>>> house_rules_from("pitch", {"low": "nobody"})
Traceback (most recent call last):
...
ValueError: house rules: house rule low is 'taker' or 'holder', not 'nobody'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.game.errors import NotationError
from engine.pitch.cards import DECK
from engine.pitch.rules import DEFAULT_RULES, RULE_CHOICES, PitchRules
from engine.pitch.table_views import RULE_WORDS, private_view, public_view
from engine.pitch.words import event_text as _event_text

__all__ = [
    "BOT_KINDS",
    "CARD_TEXTS",
    "SEPARATOR",
    "seat_range",
    "match_words",
    "default_target",
    "default_house_rules",
    "house_rules_from",
    "read_house_rules",
    "host_form",
    "public_view",
    "private_view",
    "event_text",
    "event_marks",
]

#: The bots the host chooses from, by the table's name: the family's kind
#: (PitchFamily.make_bot); the first is the default.
BOT_KINDS = {"bot": "bot", "random": "random", "strong": "strong"}
#: Every card's text, as the log and the refusals name it (the pages draw them).
CARD_TEXTS = DECK
_BOT_WORDS = {"bot": "bot (heuristic)", "random": "random", "strong": "strong (search)"}
#: The log line between two hands.
SEPARATOR = "---"


def seat_range(variant: str) -> tuple[int, int]:
    return (4, 4)


def match_words(variant: str) -> str:
    return "10 Point Pitch"


def default_target(variant: str) -> int:
    return 52


def default_house_rules(variant: str) -> PitchRules:
    return DEFAULT_RULES


def host_form(variant: str) -> dict[str, Any]:
    """The host form's fields of Pitch: its seats, its target, its bots, and a
    switch per house rule (off: the default; on: its alternative)."""
    return {
        "label": "10 Point Pitch (4 players)",
        "seats": 4,
        "target": default_target(variant),
        "bots": [{"value": k, "label": _BOT_WORDS[k]} for k in BOT_KINDS],
        "house_rules": [
            {
                "name": name,
                "label": RULE_WORDS[name],
                "off": choices[0],
                "on": choices[1],
            }
            for name, choices in RULE_CHOICES.items()
        ],
    }


def read_house_rules(variant: str, text: str) -> PitchRules:
    """The house rules a save file wrote (their text form)."""
    return PitchRules.parse(text)


def house_rules_from(variant: str, value: Any) -> PitchRules:
    """The house rules a host sent: an object of ``PitchRules``' fields (each
    its value: a flag true or false, a choice by name), their text form
    (``"low=holder,misdeal"``) or None for none. ValueError in the rules' words."""
    if value is None:
        return DEFAULT_RULES
    try:
        if isinstance(value, str):
            return PitchRules.parse(value)
        if not isinstance(value, dict):
            raise ValueError(
                f"give an object of {', '.join(RULE_CHOICES)} "
                f"(or their text, e.g. 'low=holder,misdeal'), not {value!r}"
            )
        unknown = [name for name in value if name not in RULE_CHOICES]
        if unknown:
            raise ValueError(
                f"unknown rule {unknown[0]!r} for 10 Point Pitch (known: {', '.join(RULE_CHOICES)})"
            )
        return PitchRules(**value)
    except (ValueError, TypeError, NotationError) as exc:
        raise ValueError(f"house rules: {exc}") from None


def event_text(event: Any, names: Sequence[str]) -> str:
    """The log line of a match event, told to the table (engine.pitch.words)."""
    return _event_text(event, names)


def event_marks(
    kind: str, data: dict[str, Any], reveal: dict[str, Any] | None
) -> tuple[dict[int, int], dict[str, Any] | None]:
    """What an event leaves on the seats: the refill's counts (the "+N"
    badges, when the counts are public); nothing is revealed in Pitch."""
    if kind == "refill":
        counts = data.get("counts") or []
        return {s: n for s, n in enumerate(counts) if isinstance(n, int) and n}, reveal
    return {}, reveal
