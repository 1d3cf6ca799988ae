"""A standard environment for game-AI users: PettingZoo AEC environments over the registry's games.

Generic over engine.game.interface: a variant's family gives its codec (the
fixed action space and observation, ``Family.rl_codec``); the environment,
the decision order and the showdowns' simulated unit are the same for every
game. Needs the ``rl`` extra (pettingzoo, gymnasium, numpy). docs/rl.md.

>>> e = env("classic", players=2, max_steps=50)
>>> e.reset(seed=3)
>>> observation, reward, terminated, truncated, info = e.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum()) > 0
((239,), True)
"""

from __future__ import annotations

from typing import Any

from engine.rl.against_bots import bot_action, evaluate, random_policy
from engine.rl.codec import Codec
from engine.rl.environment import DEFAULT_MAX_STEPS, CardGameEnv, make_codec
from engine.rl.turns import Turns, reaction_order

__all__ = [
    "env",
    "CardGameEnv",
    "DEFAULT_MAX_STEPS",
    "Codec",
    "make_codec",
    "Turns",
    "reaction_order",
    "bot_action",
    "evaluate",
    "random_policy",
]


def env(
    variant: str,
    players: int,
    *,
    max_steps: int = DEFAULT_MAX_STEPS,
    house_rules: Any = None,
    render_mode: str | None = None,
) -> CardGameEnv:
    """The AEC environment of ``variant`` (any registry variant: classic,
    showdown, party, pitch) for ``players``, one round an episode."""
    return CardGameEnv(
        variant, players, max_steps=max_steps, house_rules=house_rules, render_mode=render_mode
    )
