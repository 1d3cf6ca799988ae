"""A phone's tap at the browser table, in Pitch's words: what a tap's text is,
and why a tap is refused (engine.game.interface.Taps).

>>> from engine.pitch.game import PitchGame
>>> game = PitchGame.new(seed=7, dealer=3)
>>> names = ["Ann", "Bob", "Cy", "Di"]
>>> refuse_illegal(game, 1, parse_tap("bid 5"), "bid 5", names, None)
"it is not your turn: it is Ann's"
>>> game.apply("bid 6")
>>> refuse_illegal(game, 1, parse_tap("bid 5"), "bid 5", names, None)
'bid higher than 6'
>>> parse_tap("bid 3")
"'bid 3' is not an action: bids are 4 to 9 or moon"
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.game.errors import NotationError
from engine.pitch.actions import Action
from engine.pitch.game import PitchGame
from engine.pitch.refusals import reason

__all__ = ["parse_tap", "refuse_early", "refuse_illegal", "DECISION_EVENTS", "LastDecision"]

#: The events that are a decision of their player.
DECISION_EVENTS = frozenset(("bid", "redeal", "trump", "stock", "burn", "play"))
#: The latest decision: its event kind, its player and its data (plain values, hence Any).
LastDecision = tuple[str, int, dict[str, Any]] | None


def parse_tap(text: str) -> Action | str:
    """The action a tap's text names, or why it names none."""
    try:
        return Action.parse(text)
    except NotationError as exc:
        return str(exc)


def refuse_early(
    game: PitchGame,
    seat: int,
    action: Action,
    text: str,
    names: Sequence[str],
    last: LastDecision,
) -> str | None:
    """Why a tap is refused before the rules are asked: never, in Pitch (no
    claims out of turn; the rules' own words say the rest)."""
    return None


def refuse_illegal(
    game: PitchGame,
    seat: int,
    action: Action,
    text: str,
    names: Sequence[str],
    last: LastDecision,
) -> str:
    """Why a tap the rules do not allow now is refused, in the players' words."""
    if game.round_over:
        return "the hand is over" if game.match_winner is None else "the match is over"
    to_act = game.to_act
    if to_act != seat:
        return f"it is not your turn: it is {names[to_act or 0]}'s"
    return reason(game, action, seat)
