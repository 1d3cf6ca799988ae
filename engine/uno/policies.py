"""The playout policies over the public game API: the reference for engine.uno.playout.

``reference_play_out`` plays a copy of the game with ``waiting_for``,
``legal_actions`` and ``apply`` only, one Action per decision, the policy
choosing by the same ``rng`` calls in the same order as ``play_out``; the
playout's tests compare the two decision by decision. It is the definition
of what a playout plays, and slow (the API's speed).

>>> import random
>>> from engine.uno.game import Game
>>> game = Game.new(3, "showdown", seed=5)
>>> reference_play_out(game, "heuristic", random.Random(2)).winner in (0, 1, 2)
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

from engine.uno.actions import Action
from engine.uno.bots import HeuristicBot
from engine.uno.game import Game
from engine.uno.playout import MAX_DECISIONS, POLICIES, PlayoutResult

__all__ = ["reference_play_out", "uniform_choice", "prefer_play_choice", "PolicyAgent"]


def uniform_choice(legal: Sequence[Action], rng: random.Random) -> Action:
    """One of ``legal``, uniformly: ``int(rng.random() * k)``, and nothing drawn
    from ``rng`` when there is only one."""
    k = len(legal)
    return legal[int(rng.random() * k)] if k > 1 else legal[0]


def prefer_play_choice(legal: Sequence[Action], rng: random.Random) -> Action:
    """Uniform over the actions that are not draw or keep, when there are any."""
    active = [a for a in legal if not a.is_passive]
    return uniform_choice(active or legal, rng)


class PolicyAgent:
    """A named playout policy as an agent (``act(game, player)``)."""

    def __init__(self, policy: str, rng: random.Random):
        if policy not in POLICIES:
            raise ValueError(f"no playout policy {policy!r} (the policies: {', '.join(POLICIES)})")
        self.policy = policy
        self.rng = rng
        self._bot = HeuristicBot()

    def act(self, game: Game, player: int) -> Action:
        legal = game.legal_actions(player)
        if self.policy == "heuristic":
            return self._bot.act(game, player)
        if self.policy == "prefer-play":
            return prefer_play_choice(legal, self.rng)
        return uniform_choice(legal, self.rng)


def reference_play_out(
    game: Game,
    policy: str,
    rng: random.Random,
    *,
    to: Literal["round", "match"] = "round",
    log: list[Action] | None = None,
    max_decisions: int = MAX_DECISIONS,
) -> PlayoutResult:
    """``play_out`` through the public API, on a copy of ``game``: the same
    seeds play the same decisions (each appended to ``log`` when given)."""
    game = game.copy()
    agent = PolicyAgent(policy, rng)
    decisions = 0
    while True:
        while not game.round_over:
            if decisions >= max_decisions:
                return PlayoutResult(None, 0, decisions, game.scores, None)
            if game.pending_showdown is not None:
                action = uniform_choice(game.legal_actions(), rng)  # the simulated unit
            else:
                action = agent.act(game, game.waiting_for[0])
            if log is not None:
                log.append(action)
            game.apply(action)
            decisions += 1
        outcome = game.outcome
        assert outcome is not None  # the round is over
        if to == "round" or game.match_over:
            return PlayoutResult(
                outcome.winner, outcome.points, decisions, outcome.scores, outcome.match_winner
            )
        game.next_round()
