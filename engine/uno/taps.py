"""A phone's tap at the browser table, in UNO's words: what an action's text
is, and why a tap is refused.

The table's room (engine.apps.table.room) is the same for every game: it
parses a tap with :func:`parse_tap`, asks :func:`refuse_early` for what is
refused whatever the rules say, hands the action to the match (which checks
it against the rules, once) and, if the match finds it illegal, tells the
phone :func:`refuse_illegal`'s words.

>>> from engine.uno import read_game
>>> game = read_game("classic R5,W,G1/G3,Y9 G7 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
>>> refuse_illegal(game, 1, parse_tap("G3"), "G3", ["Ann", "Bob"], None)
"it is not your turn: it is Ann's"
>>> parse_tap("R55")
"'R55' is not an action (e.g. R5, W=R, draw, catch 1)"
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.game.errors import NotationError
from engine.uno.actions import Action, ActionKind
from engine.uno.game import Game, Phase
from engine.uno.party import PartyGame
from engine.uno.refusals import why_not

__all__ = ["parse_tap", "refuse_early", "refuse_illegal", "DECISION_EVENTS", "LastDecision"]

#: The events that are a decision of their player (whom a late claim lost to).
DECISION_EVENTS = frozenset(
    ("play", "draw", "keep", "accept", "challenge", "catch", "colour", "speed", "pile_add")
) | {"pile_take"}
#: The latest decision: its event kind, its player and its data (an event's:
#: plain values of mixed types by key, hence Any).
LastDecision = tuple[str, int, dict[str, Any]] | None


def parse_tap(text: str) -> Action | str:
    """The action a tap's text names, or why it names none."""
    try:
        return Action.parse(text)
    except NotationError:
        return f"{text!r} is not an action (e.g. R5, W=R, draw, catch 1)"


def refuse_early(
    game: Game | PartyGame,
    seat: int,
    action: Action,
    text: str,
    names: Sequence[str],
    last: LastDecision,
) -> str | None:
    """Why a tap is refused before the rules are asked, or None. A phone's
    speed play must be the identical card: a phone is never penalised for its
    lag (a wrong speed play is the engine's, left to the bots)."""
    if not isinstance(game, PartyGame):
        return None
    if action.kind is ActionKind.SPEED_PLAY and str(action.card) != str(game.top_card):
        return too_late(last, names, game, text)
    if game.phase is Phase.POINT:
        if action.kind is not ActionKind.POINT:
            return "everyone points now: point at a player (point N)"
        if seat in game.pointing:
            return "you have pointed already"
        if seat not in game.waiting_for:
            return "you take no part in this pointing"
    return None


def refuse_illegal(
    game: Game | PartyGame,
    seat: int,
    action: Action,
    text: str,
    names: Sequence[str],
    last: LastDecision,
) -> str:
    """Why a tap the rules do not allow now is refused, in the players' words."""
    party = isinstance(game, PartyGame)
    if party and action.kind in (ActionKind.SPEED_PLAY, ActionKind.CATCH):
        return too_late(last, names, game, text)
    if party and game.phase is Phase.POINT:
        return f"{text} is not legal now (point at another player still playing)"
    if game.to_act != seat:
        return f"it is not your turn: it is {names[game.to_act or 0]}'s"
    return why_not(game, seat, action, names)


def too_late(last: LastDecision, names: Sequence[str], game: Game | PartyGame, text: str) -> str:
    """Why a phone's claim (a speed play, a catch) is refused: who came first,
    or that it is not open."""
    if last is not None:
        kind, player, data = last
        if kind == "catch" and isinstance(data.get("caught"), int):
            return f"too late: {names[player]} caught {names[data['caught']]} first"
        return f"too late: {names[player]} played first"
    if text.startswith("speed"):
        return (
            f"{text} is not legal now: a speed play needs the identical card "
            f"({game.top_card} is on top) before the player to act plays"
        )
    return f"{text} is not legal now"
