"""Pitch's house rules: every [choice] of RULES.md's "10 Point Pitch", by name.

Each field's default is the [choice] of RULES.md; the alternative is the house
rule. A choice field takes one of its listed values, a flag is off by default.
``str(rules)`` names only what differs from the defaults (``-`` for none),
comma-separated, and ``PitchRules.parse`` reads it back.

>>> str(PitchRules())
'-'
>>> rules = PitchRules.parse("low=holder,misdeal")
>>> rules.low, rules.misdeal, str(rules)
('holder', True, 'low=holder,misdeal')
>>> PitchRules.parse("low=nobody")
Traceback (most recent call last):
...
engine.game.errors.NotationError: house rule low is 'taker' or 'holder', not 'nobody'
"""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.game.errors import NotationError

__all__ = ["PitchRules", "DEFAULT_RULES", "RULE_CHOICES"]


@dataclasses.dataclass(frozen=True)
class PitchRules:
    """The house rules of a Pitch match (RULES.md R2-R9; docs/pitch.md says why)."""

    #: R2: "marked" (one high, one low joker) or "unmarked": the first joker
    #: played in the hand is the high one.
    jokers: str = "marked"
    #: R4: deal "single" cards clockwise from the dealer's left, or in "threes".
    deal: str = "single"
    #: R4: a player dealt no face card and no point card may ask for a redeal.
    misdeal: bool = False
    #: R5: a plain 10 bid below Shoot the Moon (actions.PLAIN_TEN).
    ten_bid: bool = False
    #: R5: the dealer may take the contract at the high bid (not only above it).
    dealer_equal: bool = False
    #: R5: the stuck dealer's bid: "four" (only 4) or "any" (4 up, no pass).
    stuck: str = "four"
    #: R6.3: refill "dealer_left" (clockwise, dealer last) or "pitcher" first, clockwise.
    refill: str = "dealer_left"
    #: R6.3: the number each player draws is "public" or "hidden" from the others.
    refill_counts: str = "public"
    #: R6.3: when the stock runs out the players not served stay "short", or
    #: draw their dead cards from the "discards" (top first).
    short_stock: str = "short"
    #: R6.5: burned cards shown face "up" or kept face "down".
    burn_face: str = "up"
    #: R6.5: "any" trump may be burned, or "protected": no point card while
    #: holding a trump worth no point.
    burn: str = "any"
    #: R7: a leader without trumps passes the lead "left" (clockwise to the
    #: first with a trump), or to the "partner" first, then clockwise.
    lead: str = "left"
    #: R8: the 2 of trumps scores for the "taker" of its trick, or its "holder".
    low: str = "taker"
    #: R9: a made contract adds the points "taken", or only the "bid".
    made: str = "taken"
    #: R9: the Moon's "score above 0" is the score "before" the hand, or "after" it.
    moon_score: str = "before"
    #: R9: a made Moon at a score of exactly 0 "wins", or "resets" (to 0, play on).
    moon_zero: str = "wins"
    #: R9: both teams at the target in one hand: the "pitcher"'s team wins, or
    #: the "higher" score (a tie: the pitcher's).
    both_out: str = "pitcher"

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            check_rule(field.name, getattr(self, field.name))

    def __str__(self) -> str:
        parts = []
        for name in sorted(RULE_CHOICES):
            value = getattr(self, name)
            if value == RULE_CHOICES[name][0]:
                continue
            parts.append(name if value is True else f"{name}={value}")
        return ",".join(parts) or "-"

    @classmethod
    def parse(cls, text: str) -> PitchRules:
        """The house rules written as ``text`` (``str(rules)``); NotationError naming the rule."""
        if not isinstance(text, str):
            raise NotationError(f"house rules must be text, not {type(text).__name__}")
        text = text.strip()
        if text in ("", "-"):
            return DEFAULT_RULES
        values: dict[str, Any] = {}
        for part in text.split(","):
            name, eq, value = part.strip().partition("=")
            name = name.strip().lower()
            if name not in RULE_CHOICES:
                known = ", ".join(sorted(RULE_CHOICES))
                raise NotationError(f"no house rule {name!r} (the rules: {known})")
            if name in values:
                raise NotationError(f"house rule {name} is given twice")
            default = RULE_CHOICES[name][0]
            if isinstance(default, bool):
                if eq and value.strip().lower() not in ("on", "off", "true", "false"):
                    raise NotationError(f"house rule {name} is on or off, not {value!r}")
                values[name] = not eq or value.strip().lower() in ("on", "true")
            else:
                values[name] = value.strip().lower() if eq else ""
        try:
            return cls(**values)
        except ValueError as exc:
            raise NotationError(str(exc)) from None

    def replace(self, **changes: Any) -> PitchRules:
        """These rules with ``changes`` (ValueError naming a bad rule)."""
        return dataclasses.replace(self, **changes)


#: name -> (the default, the alternatives...): a bool is a flag.
RULE_CHOICES: dict[str, tuple[Any, ...]] = {
    "jokers": ("marked", "unmarked"),
    "deal": ("single", "threes"),
    "misdeal": (False, True),
    "ten_bid": (False, True),
    "dealer_equal": (False, True),
    "stuck": ("four", "any"),
    "refill": ("dealer_left", "pitcher"),
    "refill_counts": ("public", "hidden"),
    "short_stock": ("short", "discards"),
    "burn_face": ("up", "down"),
    "burn": ("any", "protected"),
    "lead": ("left", "partner"),
    "low": ("taker", "holder"),
    "made": ("taken", "bid"),
    "moon_score": ("before", "after"),
    "moon_zero": ("wins", "resets"),
    "both_out": ("pitcher", "higher"),
}


def check_rule(name: str, value: object) -> None:
    """ValueError naming the house rule unless ``value`` is one of its choices."""
    choices = RULE_CHOICES[name]
    if isinstance(choices[0], bool):
        if not isinstance(value, bool):
            raise ValueError(f"house rule {name} is on or off (True/False), not {value!r}")
    elif value not in choices:
        words = " or ".join(repr(c) for c in choices)
        raise ValueError(f"house rule {name} is {words}, not {value!r}")


DEFAULT_RULES = PitchRules()
