"""The search bot's worlds: the game its player sees, with the hidden cards
(the other hands, the draw pile, the reshuffles' seed) filled in by a sample.

``world_game`` builds a world through the notation, from public fields only.
``Worlds`` builds a decision's first world so and every later one as a copy of
it with the hidden cards replaced: the same game (tests/test_uno_search_worlds.py
compares the notations) for a tenth of the cost.
"""

from __future__ import annotations

from engine.uno.cards import Rank
from engine.uno.game import Game, Phase
from engine.uno.notation import Position
from engine.uno.player_view import PlayerView
from engine.uno.rules import wild_draw_four_is_legal

__all__ = ["Worlds", "world_game"]


def _wd4_legal(view: PlayerView, hands: list[list[int]]) -> bool | None:
    """Whether the Wild Draw Four a penalty waits on was legal, in these hands."""
    if view.phase is not Phase.PENALTY or view.top_card.rank is not Rank.WILD_DRAW_FOUR:
        return None
    pile = view.discard_pile
    covered = pile[-2].colour if len(pile) > 1 else None
    return covered is None or wild_draw_four_is_legal(hands[view.next_player(-1)], int(covered))


def world_game(view: PlayerView, hands: list[list[int]], draw: list[int], seed: int) -> Game:
    """The game the view shows, with ``hands`` and ``draw`` (next card last) for the
    cards it hides, and ``seed`` for its reshuffles."""
    phase = view.phase
    penalty = phase is Phase.PENALTY
    position = Position(
        variant=view.variant.name,
        hands=hands,
        draw=draw[::-1],
        discard=view.discard_pile,
        colour=view.colour,
        direction=view.direction,
        player=view.current,
        phase=phase.value,
        pending=view.pending_draws if penalty else 0,
        wd4_legal=_wd4_legal(view, hands),
        catchable=view.catchable,
        showdown=None,
        scores=view.scores,
        dealer=0,  # only the next round's deal reads it
        round=view.round,
        target=view.target,
        house_rules=view.house_rules,  # type: ignore[arg-type]
        seed=seed,
        shuffles=0,
    )
    return Game.from_notation(position.format(), view.variant)


class Worlds:
    """A decision's worlds, for one ``view``: ``deal(hands, draw, seed)``."""

    def __init__(self, view: PlayerView) -> None:
        self.view = view
        self._first: Game | None = None

    def deal(self, hands: list[list[int]], draw: list[int], seed: int) -> Game:
        """``world_game(view, hands, draw, seed)``; not to be changed (copy it)."""
        first = self._first
        if first is None:
            self._first = world_game(self.view, hands, draw, seed)
            return self._first
        world = first.copy()
        world._hands = [hand[:] for hand in hands]
        world._draw = draw[:]
        world._seed = seed
        world._wd4_legal = _wd4_legal(self.view, hands)
        world._deck = tuple(world._all_cards())
        world._legal = None
        return world
