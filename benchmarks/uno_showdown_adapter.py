"""Adapter: this project's engine in the peer benchmark (/work/shared/peers/bench_uno.py).

    PYTHONPATH=/work/shared/peers:/work/main:/work/main/benchmarks \\
      /tmp/uno-peers/venv/bin/python /work/shared/peers/bench_uno.py \\
      --engine uno_showdown_adapter:UnoShowdownAdapter,rlcard-game \\
      --players 2 --policy prefer-play --seconds 10 --repeat 3

``UnoShowdownAdapter`` plays classic UNO (what RLCard plays, so the fair
comparison); ``UnoShowdownVariantAdapter`` plays the Showdown variant, with
each showdown's result drawn 50/50 by the benchmark's random agent (the two
``loser N`` actions are the only legal decisions then). A game is one round.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence

from engine import Action, Game

__all__ = ["UnoShowdownAdapter", "UnoShowdownVariantAdapter"]


class UnoShowdownAdapter:
    name = "uno-showdown"
    variant = "classic"

    # Set by new_game: the game, and the three calls the benchmark makes once per
    # decision, as the game's own callables rather than methods of ours that call
    # the game.
    game: Game
    legal_actions: Callable[[], Sequence[Action]]
    step: Callable[[Action], None]
    is_over: Callable[[], bool]

    def __init__(self, num_players: int, seed: int):
        self.players = num_players
        self.rng = random.Random(seed)  # one seeded stream for every game dealt
        # Same as ``action.is_passive``, as a C-level call (actions are shared
        # values hashed by identity): the benchmark asks it of every legal action
        # under --policy prefer-play.
        self.is_passive = frozenset((Action.draw(), Action.keep())).__contains__

    def new_game(self) -> None:
        game = self.game = Game.new(self.players, self.variant, rng=self.rng)
        self.legal_actions = game.legal_actions
        self.step = game.apply
        self.is_over = functools.partial(getattr, game, "round_over")

    def turns(self) -> int:
        return self.game.turns  # counted as the benchmark defines turns

    def winner(self) -> int | None:
        outcome = self.game.outcome
        return None if outcome is None else outcome.winner


class UnoShowdownVariantAdapter(UnoShowdownAdapter):
    name = "uno-showdown(sd)"
    variant = "showdown"
