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

from engine import Action, Game

__all__ = ["UnoShowdownAdapter", "UnoShowdownVariantAdapter"]


class UnoShowdownAdapter:
    name = "uno-showdown"
    variant = "classic"

    def __init__(self, num_players: int, seed: int):
        self.players = num_players
        self.rng = random.Random(seed)  # one seeded stream for every game dealt
        self.game = None
        # Same as ``action.is_passive``, as a C-level call (actions are shared
        # values hashed by identity): the benchmark asks it of every legal action
        # under --policy prefer-play.
        self.is_passive = frozenset((Action.draw(), Action.keep())).__contains__

    def new_game(self):
        game = self.game = Game.new(self.players, self.variant, rng=self.rng)
        # The benchmark calls these once per decision: hand it the game's own
        # callables rather than methods of ours that call the game. The game
        # counts turns as the benchmark defines them (Game.turns).
        self.legal_actions = game.legal_actions
        self.step = game.apply
        self.is_over = functools.partial(getattr, game, "round_over")

    def is_over(self):  # replaced per game in new_game
        return self.game.round_over

    def legal_actions(self):  # replaced per game in new_game
        return self.game.legal_actions()

    def step(self, action):  # replaced per game in new_game
        self.game.apply(action)

    def turns(self):
        return self.game.turns

    def winner(self):
        outcome = self.game.outcome
        return None if outcome is None else outcome.winner

    def is_passive(self, action):  # replaced per instance in __init__
        return action.is_passive


class UnoShowdownVariantAdapter(UnoShowdownAdapter):
    name = "uno-showdown(sd)"
    variant = "showdown"
