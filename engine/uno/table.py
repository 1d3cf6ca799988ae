"""UNO at the browser table: what the room (engine.apps.table.room) asks of the family.

The room is the same for every game; what differs is here, named by
``UnoFamily.table``: the seats a variant takes, its target, the bots the host
may choose, the house rules from the host's form (and from a save file), the
views each connection is sent (``engine.uno.table_views``), a log line for
each event, and the marks an event leaves on the seats (the "+N" badges,
UNO Party!'s pointing revealed).

>>> seat_range("party"), seat_range("classic"), default_target("showdown")
((2, 16), (2, 10), 500)
>>> str(house_rules_from("classic", {"stacking": True}))
'stack'
>>> house_rules_from("party", {"stacking": True})
Traceback (most recent call last):
...
ValueError: house rules: stacking is not offered in UNO Party!
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from engine.uno.cards import TEXT
from engine.uno.party_rules import PartyRules
from engine.uno.party_table_views import (
    MAX_PARTY_SEATS,
    PARTY_EVENTS,
    party_draws,
    pointing_reveal,
)
from engine.uno.rules import HouseRules
from engine.uno.table_views import SEPARATOR, private_view, public_view
from engine.uno.words import event_text as _event_text

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
#: (engine.uno.UnoFamily.make_bot); the first is the default.
BOT_KINDS = {"heuristic": "bot", "random": "random", "strong": "strong"}
#: Every card's text, as the log and the refusals name it (the pages draw them).
CARD_TEXTS = tuple(text for text in TEXT if text)

_HOUSE_FIELDS = tuple(field.name for field in dataclasses.fields(HouseRules))
_HOUSE_SWITCHES = ("stacking", "draw_until_playable")
_PARTY_FIELDS = tuple(field.name for field in dataclasses.fields(PartyRules))


def seat_range(variant: str) -> tuple[int, int]:
    """The fewest and the most players of a match of ``variant``."""
    return (2, MAX_PARTY_SEATS) if variant == "party" else (2, 10)


def match_words(variant: str) -> str:
    """A match of ``variant`` in a refusal: "a match takes 2 to 10 players"."""
    return "an UNO Party! match" if variant == "party" else "a match"


def default_target(variant: str) -> int:
    return 500


def default_house_rules(variant: str) -> HouseRules | PartyRules:
    return PartyRules() if variant == "party" else HouseRules()


def host_form(variant: str) -> None:
    """The host form's fields of ``variant``: UNO's are in display.html."""
    return None


def read_house_rules(variant: str, text: str) -> HouseRules | PartyRules:
    """The house rules a save file wrote (their text form)."""
    return PartyRules.parse(text) if variant == "party" else HouseRules.parse(text)


def house_rules_from(variant: str, value: Any) -> HouseRules | PartyRules:
    """The house rules a host sent for ``variant`` (see the two below)."""
    return party_rules_from(value) if variant == "party" else classic_rules_from(value)


def classic_rules_from(value: Any) -> HouseRules:
    """The house rules a host sent: an object of ``HouseRules``' fields (any
    of them; ``showdown_cards`` as ``[low, high]``), their text form
    (``"stack,uno=4"``), or None for none. ValueError in the engine's words
    (each check is ``HouseRules``' own) otherwise.

    >>> str(classic_rules_from({"stacking": True, "showdown_cards": [2, 3]}))
    'stack,ws=2-3'
    >>> classic_rules_from({"uno_penalty": 30})
    Traceback (most recent call last):
    ...
    ValueError: house rules: uno_penalty must be 0-20, not 30
    """
    if value is None:
        return HouseRules()
    if isinstance(value, str):
        return HouseRules.parse(value)
    if not isinstance(value, dict):
        raise ValueError(
            f"house rules: give an object of {', '.join(_HOUSE_FIELDS)} "
            f"(or their text, e.g. 'stack,uno=4'), not {value!r}"
        )
    options: dict[str, Any] = {}
    for name, rule in value.items():
        if name not in _HOUSE_FIELDS:
            raise ValueError(
                f"house rules: unknown rule {name!r} (known: {', '.join(_HOUSE_FIELDS)})"
            )
        if name in _HOUSE_SWITCHES and not isinstance(rule, bool):
            raise ValueError(f"house rules: {name} must be true or false, not {rule!r}")
        if name == "uno_penalty" and isinstance(rule, bool):  # an int to Python, not to a host
            raise ValueError(f"house rules: uno_penalty must be 0-20, not {rule!r}")
        if name == "showdown_cards":
            if not (
                isinstance(rule, list) and len(rule) == 2 and all(type(n) is int for n in rule)
            ):
                raise ValueError(f"house rules: showdown_cards must be [low, high], not {rule!r}")
            rule = tuple(rule)
        options[name] = rule
    try:
        return HouseRules(**options)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"house rules: {exc}") from None


def party_rules_from(value: Any) -> PartyRules:
    """The Party! house rules a host sent: an object of ``PartyRules``' fields,
    their text form (``"pile_refuse=yes,uno=4"``) or None for none. ValueError
    in the engine's words otherwise.

    >>> str(party_rules_from({"pile_refuse": True, "uno_penalty": 4}))
    'pile_refuse=yes,uno=4'
    """
    if value is None:
        return PartyRules()
    if isinstance(value, str):
        try:
            return PartyRules.parse(value)
        except ValueError as exc:
            raise ValueError(f"house rules: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(
            f"house rules: give an object of {', '.join(_PARTY_FIELDS)} "
            f"(or their text, e.g. 'pile_refuse=yes'), not {value!r}"
        )
    options: dict[str, Any] = {}
    for name, rule in value.items():
        if name in ("stacking", "stack"):
            if rule is False:  # a form that always sends the switch: off is fine
                continue
            raise ValueError("house rules: stacking is not offered in UNO Party!")
        if name not in _PARTY_FIELDS:
            raise ValueError(
                f"house rules: unknown rule {name!r} for UNO Party! "
                f"(known: {', '.join(_PARTY_FIELDS)})"
            )
        options[name] = rule
    try:
        return PartyRules(**options)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"house rules: {exc}") from None


def event_text(event: Any, names: Sequence[str]) -> str:
    """The log line of a match event (engine.uno.words)."""
    return _event_text(event, names)


def event_marks(
    kind: str, data: dict[str, Any], reveal: dict[str, Any] | None
) -> tuple[dict[int, int], dict[str, Any] | None]:
    """What an event leaves on the seats: the cards each seat drew (the "+N"
    badges) and UNO Party!'s pointing, revealed once every choice was in
    (``reveal``, as it was before the event, if the event leaves it)."""
    drew: dict[int, int] = {}
    if kind == "play":
        drew.update(data["draws"])
    elif kind in ("draw", "accept"):
        drew[data["player"]] = data["cards"]
    elif kind == "challenge":
        drew[data["drew"]] = data["cards"]
    elif kind == "catch" and data["caught"] is not None:
        drew[data["caught"]] = data["cards"]
    elif kind == "showdown":
        drew[data["loser"]] = data["cards"]
    elif kind in PARTY_EVENTS:
        if kind == "point_taken":
            reveal = None
        elif kind == "pointing":
            reveal = pointing_reveal(data)
        drew.update(party_draws(kind, data))
    return drew, reveal
