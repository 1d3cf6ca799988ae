"""The environment's training example (engine/rl/reinforce.py): it learns, and it is seeded."""

from __future__ import annotations

import numpy as np
import pytest

import engine.rl
from engine.rl.reinforce import LinearPolicy, main, train


def test_zero_weights_are_uniform_over_the_legal_actions():
    env = engine.rl.env("classic", players=2)
    env.reset(seed=4)
    observation = env.last()[0]
    policy = LinearPolicy(env, np.random.default_rng(0))
    p = policy.probabilities(policy.features(observation), observation["action_mask"])
    legal = observation["action_mask"] == 1
    assert np.allclose(p[legal], 1 / legal.sum()) and not p[~legal].any()
    assert observation["action_mask"][policy(observation)] == 1


def test_the_same_seed_learns_the_same_weights_and_another_seed_others():
    env = engine.rl.env("classic", players=2)
    first, again, other = (train(env, 6, seed=s).weights for s in (3, 3, 4))
    assert first.any() and np.array_equal(first, again) and not np.array_equal(first, other)


def test_a_truncated_episode_teaches_nothing():
    env = engine.rl.env("classic", players=2, max_steps=3)
    assert not train(env, 10, seed=1).weights.any()


def test_training_lifts_the_win_rate_against_the_heuristic_bot():
    env = engine.rl.env("classic", players=2)
    policy = train(env, 300, seed=1)
    before = engine.rl.evaluate(
        env, LinearPolicy(env, np.random.default_rng(1)), episodes=200, seed=2
    )
    after = engine.rl.evaluate(env, policy, episodes=200, seed=2)
    # a random policy draws even when it could play (0.5% here); 300 rounds teach it to
    # play (24.5% here, prefer-play's share against the heuristic)
    assert before["win_rate"] <= 0.03 and after["win_rate"] >= 0.15, (before, after)


def test_the_command_prints_both_win_rates(capsys):
    main(["--episodes", "5", "--evaluate", "5", "--bot", "random"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0].strip() for line in lines] == ["untrained", "after 5 rounds"]
    assert all("rounds against random" in line for line in lines)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--variant", "nope"], "no game family plays 'nope'"),
        (["--players", "1"], "classic takes 2-10 players, not 1"),
        (["--episodes", "-3"], "a whole number of rounds from 1, not '-3'"),
    ],
)
def test_the_command_refuses_bad_arguments_in_words(argv, says, capsys):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2 and says in capsys.readouterr().err
