"""The house rules a host sends on the setup form, checked in the engine's words.

Each is an object of the rules' fields, their text form, or None for none;
a ValueError names what is wrong (the checks are the rules classes' own).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.uno.party_rules import PartyRules
from engine.uno.rules import HouseRules

__all__ = ["house_rules_from", "party_rules_from"]

_HOUSE_FIELDS = tuple(field.name for field in dataclasses.fields(HouseRules))
_HOUSE_SWITCHES = ("stacking", "draw_until_playable")
_PARTY_FIELDS = tuple(field.name for field in dataclasses.fields(PartyRules))


def house_rules_from(value: Any) -> HouseRules:
    """The house rules a host sent: an object of ``HouseRules``' fields (any
    of them; ``showdown_cards`` as ``[low, high]``), their text form
    (``"stack,uno=4"``), or None for none. ValueError in the engine's words
    (each check is ``HouseRules``' own) otherwise.

    >>> str(house_rules_from({"stacking": True, "showdown_cards": [2, 3]}))
    'stack,ws=2-3'
    >>> house_rules_from({"uno_penalty": 30})
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
    >>> party_rules_from({"stacking": True})
    Traceback (most recent call last):
    ...
    ValueError: house rules: stacking is not offered in UNO Party!
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
