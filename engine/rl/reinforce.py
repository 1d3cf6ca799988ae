"""Training an agent in the environment: a linear softmax policy learnt by REINFORCE.

The example docs/rl.md trains: seat 0 plays a ``LinearPolicy`` against the
family's bots, and after each episode its weights move along the policy
gradient of that episode's reward (Williams' REINFORCE, a running mean of
the rewards as the baseline). Numpy only, any variant, a few seconds for a
few hundred rounds; it is a starting point to read, not a strong agent.

    .venv/bin/python -m engine.rl.reinforce --variant classic --players 2 --episodes 1000

prints the win rate against the bots before and after, each over the same
evaluation rounds (engine.rl.evaluate).
"""

from __future__ import annotations

import argparse
import random
from typing import Any

import numpy as np

from engine.rl.against_bots import evaluate, play_episode, seat_bots
from engine.rl.environment import CardGameEnv

__all__ = ["LinearPolicy", "train"]


class LinearPolicy:
    """Softmax over the legal actions of ``weights @ features``: the features
    are the observation scaled to 0..1 by the space's bounds, and a 1 (so each
    action has a bias). Zero weights are uniform over the mask. Sampled from
    ``rng``, or the most likely action when ``greedy``."""

    def __init__(self, env: CardGameEnv, rng: np.random.Generator, *, greedy: bool = False):
        high = np.frombuffer(env.codec.observation_high, dtype=np.uint8)
        self.scale = 1.0 / np.maximum(high.astype(np.float64), 1.0)
        self.weights = np.zeros((env.action_count, len(self.scale) + 1))
        self.rng, self.greedy = rng, greedy

    def features(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        return np.append(observation["observation"] * self.scale, 1.0)

    def probabilities(self, features: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Each action's probability (0 where the mask is 0)."""
        logits = self.weights @ features
        logits[mask == 0] = -np.inf
        odds = np.exp(logits - logits.max())
        return odds / odds.sum()

    def __call__(self, observation: dict[str, np.ndarray]) -> int:
        p = self.probabilities(self.features(observation), observation["action_mask"])
        return int(p.argmax()) if self.greedy else int(self.rng.choice(len(p), p=p))


def train(
    env: CardGameEnv,
    episodes: int,
    *,
    bot: str = "bot",
    seed: int = 0,
    learning_rate: float = 0.05,
    policy: LinearPolicy | None = None,
) -> LinearPolicy:
    """``policy`` (a new one when None) after ``episodes`` rounds at seat 0
    against the family's ``bot`` kind, each followed by one REINFORCE step:
    the weights move by ``learning_rate`` x (reward - baseline) x the sum over
    the episode's decisions of the gradient of log p(action). Truncated
    episodes teach nothing. Seeded: the same arguments learn the same weights."""
    policy = policy or LinearPolicy(env, np.random.default_rng(seed))
    bots = seat_bots(env, bot, random.Random(seed))
    baseline = 0.0
    for episode in range(episodes):
        recorder = _Recorder(policy)
        reward = play_episode(env, recorder, bots, seed * 1_000_003 + episode)
        if reward is None or not recorder.steps:
            continue
        advantage = reward - baseline
        baseline += (reward - baseline) / min(episode + 1, 100)
        gradient = np.array(recorder.steps).T @ np.array(recorder.features)
        policy.weights += learning_rate * advantage * gradient
    return policy


class _Recorder:
    """``policy``'s decisions in one episode, with what each taught: its
    features and the gradient of log p(action) by the logits (onehot - p)."""

    def __init__(self, policy: LinearPolicy):
        self.policy = policy
        self.features: list[np.ndarray] = []
        self.steps: list[np.ndarray] = []

    def __call__(self, observation: dict[str, np.ndarray]) -> int:
        x = self.policy.features(observation)
        p = self.policy.probabilities(x, observation["action_mask"])
        action = int(self.policy.rng.choice(len(p), p=p))
        step = -p
        step[action] += 1.0
        self.features.append(x)
        self.steps.append(step)
        return action


def _count(text: str) -> int:
    """A whole number of rounds, at least 1 (argparse's type)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of rounds from 1, not {text!r}")
    return int(text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--episodes", type=_count, default=1000, help="training rounds")
    parser.add_argument("--evaluate", type=_count, default=400, help="evaluation rounds")
    parser.add_argument("--bot", default="bot", help="the opponents: bot (heuristic) or random")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--learning-rate", type=float, default=0.05)
    args = parser.parse_args(argv)
    from engine.rl import env as make_env

    try:
        env = make_env(args.variant, players=args.players)
    except ValueError as exc:
        parser.error(str(exc))
    untrained = LinearPolicy(env, np.random.default_rng(args.seed))
    measure: dict[str, Any] = {"episodes": args.evaluate, "bot": args.bot, "seed": args.seed + 1}
    before = evaluate(env, untrained, **measure)
    policy = train(
        env, args.episodes, bot=args.bot, seed=args.seed, learning_rate=args.learning_rate
    )
    after = evaluate(env, policy, **measure)
    for name, result in (("untrained", before), (f"after {args.episodes} rounds", after)):
        rounds = result["episodes"] - result["truncated"]
        print(
            f"{name:>20}: won {result['win_rate']:.1%} of {rounds:.0f} rounds against"
            f" {args.bot}, mean reward {result['mean_reward']:+.3f}"
        )


if __name__ == "__main__":
    main()
