"""The environment's decision order: claim-or-pass windows in reaction order, showdowns settled."""

import random

import numpy as np
import pytest

from engine.game.registry import family_playing
from engine.rl import Turns, env, reaction_order
from engine.uno import Game, PartyGame

# Player 0 to act on R5; player 1 holds R5 (a speed play), player 2 only wrong cards.
SPEED = "party R5,G7/R5,B1/Y3,W - R1,R5 R + 0 play - - 0,0,0 2 1 500 - 1:0 -"


def test_reaction_order_is_seat_order_from_the_player_after_the_actor():
    assert reaction_order((0, 1, 2, 3), actor=2, players=4) == [3, 0, 1, 2]
    assert reaction_order((1, 3), actor=3, players=4) == [1, 3]


def test_the_deal_offers_the_claimants_a_window_from_the_player_to_act():
    game = PartyGame.from_notation(SPEED)
    turns = Turns(game, random.Random(1))
    assert game.claimants() == (1, 2)
    assert (turns.window, turns.actor, turns.claiming) == ([1, 2], 1, True)


def test_passes_decline_and_then_the_player_to_act_decides():
    game = PartyGame.from_notation(SPEED)
    turns = Turns(game, random.Random(1))
    turns.passed()
    assert turns.actor == 2
    turns.passed()
    assert (turns.actor, turns.claiming) == (0, False)
    assert game.notation() == PartyGame.from_notation(SPEED).notation()  # passes change nothing
    with pytest.raises(ValueError, match="no window is open"):
        turns.passed()


def test_a_claim_opens_a_new_window_after_the_claimant():
    game = PartyGame.from_notation(SPEED)
    turns = Turns(game, random.Random(1))
    game.apply("speed R5", player=1)
    turns.decided(1)
    assert game.to_act == 2  # the speed play took the turn: player 2 is next
    assert turns.window == reaction_order(game.claimants(), 1, 3)
    assert turns.window[0] == 0  # player 2 is to act, so 0 reacts first, 1 last


def test_a_game_without_claims_never_opens_a_window():
    game = Game.new(3, "classic", seed=3)
    turns = Turns(game, random.Random(1))
    game.apply(game.legal_actions()[0])
    turns.decided(0)
    assert turns.window == [] and turns.actor == game.to_act


def test_a_showdown_is_settled_by_the_simulated_unit_the_same_for_the_same_seed():
    text = "showdown R5!2,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0"
    losers = []
    for rng in (random.Random(9), random.Random(9), 9):  # or its seed: made when needed
        game = Game.from_notation(text)
        turns = Turns(game, rng)
        game.apply("R5!2")
        turns.decided(0)
        assert game.pending_showdown is None and turns.showdowns == 1
        losers.append(game.hand_sizes)
    assert losers[0] == losers[1] == losers[2] and losers[0] in ((1, 4), (3, 2))


@pytest.mark.parametrize("players", [3, 6])
def test_windows_cannot_loop_each_offers_each_claimant_once(players):
    """Random claims and passes in Party!: between two decisions that are not
    passes, at most players - 1 passes, each by a different claimant."""
    e = env("party", players=players, max_steps=5000)
    rng = random.Random(players)
    for episode in range(2):
        e.reset(seed=episode)
        passers: list[str] = []
        for agent in e.agent_iter(10_000):
            observation, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
            if action == e.pass_action:
                assert agent not in passers
                passers.append(agent)
                assert len(passers) <= players - 1
            else:
                passers = []
            e.step(action)


@pytest.mark.parametrize(
    ("variant", "players"), [("classic", 2), ("classic", 4), ("showdown", 3), ("pitch", 4)]
)
def test_a_one_actor_game_waits_for_its_to_act_alone(variant, players):
    """Codec.one_actor: the environment reads ``to_act`` after each decision (and
    calls ``legal_actions()`` and ``apply(move)`` without the player), so the
    game must wait for ``(to_act,)`` or nobody, with no claims, at every step."""
    e = env(variant, players=players)
    assert e.codec.one_actor
    family = family_playing(variant)
    rng = random.Random(players)
    game = family.new(players, variant, seed=players)
    for _ in range(3000):
        if game.round_over:
            game = family.new(players, variant, seed=rng.getrandbits(32))
        to_act = game.to_act
        assert game.waiting_for == (() if to_act is None else (to_act,))
        assert game.claimants() == ()
        if to_act is not None:
            assert game.legal_actions() == game.legal_actions(to_act)
        game.apply(rng.choice(game.legal_actions()))


def test_party_is_not_a_one_actor_game():
    assert not env("party", players=4).codec.one_actor


def test_the_env_instance_dict_stays_under_cpythons_shared_keys_limit():
    """Regression: 32 attributes in the environment's instance dict (past the
    30 at which CPython 3.11 stops sharing its keys) made every attribute read
    of a step slower; a step's attributes are slots (environment._StepSlots)."""
    for variant, players in (("classic", 2), ("party", 4), ("pitch", 4)):
        e = env(variant, players=players)
        e.reset(seed=1)
        assert len(e.__dict__) <= 30
