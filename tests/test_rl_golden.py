"""Seeded episodes pinned by digest: a change made for speed must play the same episodes.

Each digest covers every step of a seeded episode of random masked actions:
the agent, the observation's and the mask's bytes, the reward, the
termination, the truncation and the info, then the final position's revealed
notation. The digests were taken at main's 5632b6b (before issue 24 part 4's
second round of speed work): the environment must keep giving exactly these.
"""

import hashlib
import random

import numpy as np
import pytest

from engine.rl import env

GOLDEN = {
    ("classic", 2): ["b3df1c1ec0b8ed65", "cd9eea42a40288b3", "9e8747abd31801f7"],
    ("classic", 4): ["96cfef537a2d0dd4", "878f8058ac6f2001", "2f1ca28e5620e63a"],
    ("showdown", 2): ["ad78c26631b13adb", "67267555a29ffa54", "258c07a5a8728597"],
    ("showdown", 4): ["c495a2c1a6a04bf8", "9068364647df8267", "29ff9f47a1a8d3fd"],
    ("party", 4): ["d8f7df53c63a550c", "d32433c0c33ce0de", "415ae55a463825a8"],
    ("party", 8): ["ab3af8bfbf6a2478", "eb82e4d3f6feebc5", "76506c23327a743e"],
    ("pitch", 4): ["4f0bc3ea6fdd17bb", "8ea137f9e0c32eae", "cedc3bd11367e804"],
}


def episode_digest(variant: str, players: int, seed: int, steps: int = 400) -> str:
    """The first 16 hex digits of the SHA-256 of one seeded episode (the module docstring)."""
    e = env(variant, players=players, max_steps=steps)
    e.reset(seed=seed)
    rng = random.Random(seed)
    h = hashlib.sha256()
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, info = e.last()
        h.update(agent.encode())
        h.update(observation["observation"].tobytes())
        h.update(observation["action_mask"].tobytes())
        h.update(repr((reward, terminated, truncated, sorted(info.items()))).encode())
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))
    h.update(e.game.notation(reveal=True).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize(("variant", "players"), list(GOLDEN))
def test_seeded_episodes_play_as_pinned(variant, players):
    assert [episode_digest(variant, players, seed) for seed in (1, 2, 3)] == GOLDEN[
        variant, players
    ]


def test_seeded_episodes_play_as_pinned_with_the_kernel_interpreted(monkeypatch):
    import engine.uno.rl_codec as rl_codec

    monkeypatch.setenv(rl_codec.INTERPRETED_ENV, "1")
    monkeypatch.setattr(rl_codec, "KERNEL", rl_codec._chosen_kernel())
    assert rl_codec.KERNEL.__file__.endswith(".py")  # the source, not the extension
    for key in (("classic", 4), ("showdown", 2)):
        assert [episode_digest(*key, seed) for seed in (1, 2, 3)] == GOLDEN[key]
