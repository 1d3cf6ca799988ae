"""The environment (engine.rl) under PettingZoo's own tests, and its episodes' rules."""

import copy
import pickle
import random
import warnings

import numpy as np
import pettingzoo.test as pettingzoo_test  # the rl extra is in the test extra: never skipped
import pytest

from engine.game.errors import IllegalActionError
from engine.rl import DEFAULT_MAX_STEPS, CardGameEnv, env

VARIANTS = [("classic", 2), ("classic", 4), ("showdown", 3), ("party", 2), ("party", 5)]


def masked_random(observation, rng):
    legal = np.flatnonzero(observation["action_mask"])
    return int(legal[rng.randrange(len(legal))])


def play(e, rng, steps=100_000):
    """Random masked actions until the episode ends; (steps, the last of each agent)."""
    done, last = 0, {}
    for agent in e.agent_iter(steps):
        observation, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            last[agent] = (reward, terminated, truncated)
            e.step(None)
            continue
        e.step(masked_random(observation, rng))
        done += 1
    return done, last


@pytest.mark.parametrize(("variant", "players"), [*VARIANTS, ("pitch", 4)])
def test_pettingzoo_api_test_and_seed_test_pass(variant, players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice on dict observations, not failures
        pettingzoo_test.api_test(env(variant, players=players), num_cycles=200)
        pettingzoo_test.seed_test(lambda: env(variant, players=players), num_cycles=200)


@pytest.mark.parametrize(("variant", "players"), [*VARIANTS, ("pitch", 4)])
def test_the_same_seed_plays_the_same_episode(variant, players):
    notations = []
    for _ in range(2):
        e = env(variant, players=players, max_steps=300)
        e.reset(seed=11)
        play(e, random.Random(5))
        notations.append(e.game.notation(reveal=True))
    assert notations[0] == notations[1]


def test_the_default_step_limit_is_documented_and_truncates():
    assert DEFAULT_MAX_STEPS == 2000
    e = env("classic", players=2, max_steps=5)
    e.reset(seed=1)
    done, last = play(e, random.Random(1))
    assert done == 5
    assert last == {"player_0": (0.0, False, True), "player_1": (0.0, False, True)}
    assert e.agents == []


def test_a_round_won_rewards_plus_one_to_the_winner_and_minus_one_to_the_others():
    e = env("classic", players=3, max_steps=100_000)
    e.reset(seed=2)
    _, last = play(e, random.Random(2))
    winner = e.game.outcome.winner
    assert last == {f"player_{p}": (1.0 if p == winner else -1.0, True, False) for p in range(3)}


def test_a_pitch_hand_rewards_each_seat_its_teams_points():
    e = env("pitch", players=4)
    e.reset(seed=3)
    before = e.game.team_scores
    _, last = play(e, random.Random(3))
    after = e.game.team_scores
    assert {agent: r for agent, (r, _, _) in last.items()} == {
        f"player_{s}": float(after[s % 2] - before[s % 2]) for s in range(4)
    }


def test_showdowns_are_settled_inside_the_env_and_never_asked_of_an_agent():
    e = env("showdown", players=2, max_steps=3000)
    e.reset(seed=4)
    rng = random.Random(4)
    for _ in e.agent_iter(3000):
        observation, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        assert e.game.pending_showdown is None
        assert observation["action_mask"].any()
        e.step(masked_random(observation, rng))
    assert e.turns.showdowns > 0


def test_only_the_agent_to_decide_has_a_mask():
    e = env("classic", players=3)
    e.reset(seed=5)
    masks = {agent: e.observe(agent)["action_mask"] for agent in e.agents}
    assert [agent for agent, mask in masks.items() if mask.any()] == [e.agent_selection]


def test_an_illegal_number_or_a_pass_without_a_window_is_refused():
    e = env("classic", players=2)
    e.reset(seed=6)
    observation = e.observe(e.agent_selection)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        e.step(illegal)
    with pytest.raises(IllegalActionError, match="no action 129 for player_1"):
        e.step(e.action_count)
    with pytest.raises(IllegalActionError, match="no action -1 for player_1"):
        e.step(-1)
    party = env("party", players=3)
    party.reset(seed=6)
    while party.turns.window:  # a claim window on the first card: pass it
        party.step(party.pass_action)
    with pytest.raises(ValueError, match="no window is open"):
        party.step(party.pass_action)


def test_reset_may_start_from_a_notation():
    text = "classic R5,B5/G3,Y9,Y3 G7 R1 R + 0 play - - 0,0 1 1 500 - 1:0"
    e = CardGameEnv("classic", 2)
    e.reset(seed=1, options={"notation": text})
    assert e.agent_selection == "player_0"
    mask = e.observe("player_0")["action_mask"]
    assert sorted(e.action_meaning(i) for i in np.flatnonzero(mask)) == ["R5", "R5 uno", "draw"]
    with pytest.raises(ValueError, match="not a 3-player position"):
        CardGameEnv("classic", 3).reset(options={"notation": text})


def test_the_observation_and_the_mask_are_new_arrays_each_time():
    e = env("classic", players=2)
    e.reset(seed=7)
    agent = e.agent_selection
    first, second = e.observe(agent), e.observe(agent)
    for part in ("observation", "action_mask"):
        assert first[part] is not second[part]
        assert first[part].tobytes() == second[part].tobytes()
        first[part][:] = 7  # the agent's to change: the env keeps no reference
        assert e.observe(agent)[part].tobytes() == second[part].tobytes()
    other = e.observe(next(a for a in e.agents if a != agent))["action_mask"]
    assert not other.any()


def test_close_is_safe_twice_and_render_is_the_notation():
    e = env("classic", players=2, render_mode="ansi")
    e.reset(seed=8)
    assert e.render() == e.game.notation()
    e.close()
    e.close()


def test_the_bots_play_through_the_env_claims_and_passes_too():
    from engine.rl import bot_action

    e = env("party", players=3, max_steps=400)
    e.reset(seed=9)
    bots = [e._family.make_bot("bot", f"b{p}", random.Random(p)) for p in range(3)]
    passes = 0
    for agent in e.agent_iter():
        _, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        action = bot_action(e, bots[e.possible_agents.index(agent)])
        assert e.observe(agent)["action_mask"][action] == 1
        passes += action == e.pass_action
        e.step(action)
    assert passes > 0


def test_a_random_policy_against_the_heuristic_bot_wins_few_classic_rounds():
    from engine.rl import evaluate, random_policy

    result = evaluate(
        env("classic", players=2), random_policy(random.Random(1)), episodes=50, seed=1
    )
    assert result["episodes"] == 50 and result["truncated"] == 0
    assert result["win_rate"] < 0.2  # it draws even when it could play


def _trace(e, rng, steps):
    """The next ``steps`` (observation, mask, reward) of ``e``, random masked actions."""
    out = []
    for agent in e.agent_iter(steps):
        observation, reward, terminated, truncated, _ = e.last()
        out.append(
            (
                agent,
                observation["observation"].tobytes(),
                observation["action_mask"].tobytes(),
                reward,
            )
        )
        e.step(None if terminated or truncated else masked_random(observation, rng))
    return out


@pytest.mark.parametrize(("variant", "players"), [*VARIANTS, ("pitch", 4)])
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_env_plays_on_as_the_original_and_apart_from_it(variant, players, how):
    # A search over the environment (MCTS, rollouts) copies it mid-episode: the
    # copy must carry the kept observations, masks and showdowns' generator, and
    # share nothing that one of the two would change under the other.
    e = env(variant, players=players, max_steps=400)
    e.reset(seed=3)
    _trace(e, random.Random(1), 12 if variant == "pitch" else 40)  # a Pitch hand: some 30
    copied = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
    before = e.game.notation(reveal=True)
    ahead = _trace(copied, random.Random(2), 200)
    assert e.game.notation(reveal=True) == before  # the copy's steps left it alone
    assert _trace(e, random.Random(2), 200) == ahead
    assert any(mask.count(1) for _, _, mask, _ in ahead)
