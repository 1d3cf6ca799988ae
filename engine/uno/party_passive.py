"""What a prefer-play policy leaves out in UNO Party!: draw, keep and every
speed play of a card other than the top one (a speed play of the wrong card is
legal, and costs its player a penalty).

One frozen set per top card, made at its first use: a set lookup is much
cheaper than testing each move's fields, and a Party! decision has tens of
moves (every player's speed plays), not a few. Every action is one shared
instance (engine.uno.actions), so the sets hold the very actions
``legal_moves()`` returns.
"""

from __future__ import annotations

from engine.uno.actions import Action
from engine.uno.cards import CARD, Card

__all__ = ["passive_actions_on"]

# By top card; under None, every speed play with draw and keep.
_PASSIVE_ON: dict[Card | None, frozenset[Action]] = {}


def passive_actions_on(top: Card) -> frozenset[Action]:
    """The actions prefer-play leaves out while ``top`` is the top card."""
    passive = _PASSIVE_ON.get(top)
    if passive is None:
        every = _PASSIVE_ON.get(None)
        if every is None:
            every = _PASSIVE_ON[None] = frozenset(
                [Action.speed(c, uno=u) for c in CARD if c is not None for u in (False, True)]
                + [Action.draw(), Action.keep()]
            )
        right = {Action.speed(top), Action.speed(top, uno=True)}
        passive = _PASSIVE_ON[top] = every.difference(right)
    return passive
