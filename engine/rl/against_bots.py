"""Playing an agent against a family's bots in the environment: the bots' numbers, and a win rate.

A family's bot (``Family.make_bot``, an engine.game.agents.Agent) decides
from the game; ``bot_action`` turns its decision into the environment's
number (in a claim window its ``react``, None meaning pass). ``evaluate``
seats a policy (observation -> action number) at seat 0 and bots elsewhere.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from engine.rl.environment import CardGameEnv

__all__ = ["bot_action", "evaluate", "play_episode", "random_policy", "seat_bots"]

#: A policy: the agent's observation dict -> an action number its mask allows.
Policy = Callable[[dict[str, np.ndarray]], int]


def random_policy(rng: random.Random) -> Policy:
    """Uniform over the mask's ones (RLCard's random agent)."""

    def choose(observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[rng.randrange(len(legal))])

    return choose


def bot_action(env: CardGameEnv, bot: Any) -> int:
    """The number of ``bot``'s decision for the agent to decide now in ``env``."""
    player = env.possible_agents.index(env.agent_selection)
    if env.turns.window:
        react = getattr(bot, "react", None)
        claim = react(env.game, player) if react is not None else None
        if claim is None:
            assert env.pass_action is not None  # a window is open only in such a game
            return env.pass_action
        return env.codec.index[player][claim]
    return env.codec.index[player][bot.act(env.game, player)]


def play_episode(env: CardGameEnv, policy: Policy, bots: list[Any], seed: int) -> float | None:
    """One episode from ``reset(seed=seed)``: seat 0 plays ``policy``, every
    other seat its bot of ``bots`` (one per seat, seat 0's unused); seat 0's
    reward, or None when the episode was truncated."""
    env.reset(seed=seed)
    reward = None
    for agent in env.agent_iter():
        observation, r, terminated, cut, _ = env.last()
        if terminated or cut:
            if agent == "player_0":
                reward = None if cut else r
            env.step(None)
            continue
        if agent == "player_0":
            env.step(policy(observation))
        else:
            env.step(bot_action(env, bots[env.possible_agents.index(agent)]))
    return reward


def seat_bots(env: CardGameEnv, bot: str, rng: random.Random) -> list[Any]:
    """The family's ``bot`` kind in every seat (seat 0's is left unused)."""
    return [env._family.make_bot(bot, f"bot{p}", rng) for p in range(env.players)]


def evaluate(
    env: CardGameEnv, policy: Policy, *, episodes: int, bot: str = "bot", seed: int = 0
) -> dict[str, float]:
    """Seat 0 plays ``policy``, the others the family's ``bot`` kind, for
    ``episodes`` rounds: the mean reward of seat 0 and its share of rounds won
    (a reward above 0), over the rounds not truncated (their count too).

    >>> from engine.rl import env
    >>> e = env("classic", players=2)
    >>> result = evaluate(e, random_policy(random.Random(1)), episodes=20, seed=1)
    >>> sorted(result), 0 <= result["win_rate"] <= 1
    (['episodes', 'mean_reward', 'truncated', 'win_rate'], True)
    """
    bots = seat_bots(env, bot, random.Random(seed))
    total = wins = truncated = 0.0
    for episode in range(episodes):
        reward = play_episode(env, policy, bots, seed * 1_000_003 + episode)
        if reward is None:
            truncated += 1
        else:
            total += reward
            wins += reward > 0
    played = episodes - truncated
    return {
        "episodes": float(episodes),
        "truncated": truncated,
        "mean_reward": total / played if played else 0.0,
        "win_rate": wins / played if played else 0.0,
    }
