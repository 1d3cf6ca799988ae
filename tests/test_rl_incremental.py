"""The observation kept up to date (``Codec.update``) equals the full rebuild (``Codec.observe``)
at every step: through the environment as an agent sees it, and at the codec with players
observing at random moments (so an update covers many decisions at once)."""

import random

import numpy as np
import pytest

from engine.game.registry import family_playing
from engine.pitch.rules import PitchRules
from engine.rl import env, make_codec
from engine.uno import Game, PartyGame, rl_codec
from engine.uno.party_rules import PartyRules
from engine.uno.rules import HouseRules

CASES = [
    ("classic", 2),
    ("classic", 3),
    ("classic", 8),
    ("showdown", 2),
    ("showdown", 5),
    ("party", 2),
    ("party", 4),
    ("party", 8),
    ("pitch", 4),
]


def kept(codec, game, player):
    """The kept observation, up to date (the codec's buffer has a spare byte past it)."""
    return bytes(codec.update(game, player))[: codec.observation_size]


def rebuilt(codec, game, player):
    out = bytearray(b"\xff" * codec.observation_size)  # all of it is written
    codec.observe(game, player, out)
    return bytes(out)


#: Pitch's rules that hide what a seat may see: face-down burns, hidden refill counts.
HIDING = PitchRules(burn_face="down", refill_counts="hidden")


@pytest.mark.parametrize(
    ("variant", "players", "house_rules"),
    [
        *((v, n, None) for v, n in CASES),
        ("pitch", 4, HIDING),
        ("classic", 3, HouseRules(stacking=True, draw_until_playable=True, uno_penalty=4)),
        ("showdown", 3, HouseRules(stacking=True)),
        ("party", 4, PartyRules(draw_closes_speed=True)),
    ],
)
def test_every_step_of_random_episodes_observes_the_full_rebuild(variant, players, house_rules):
    e = env(variant, players=players, max_steps=1500, house_rules=house_rules)
    rng = random.Random(players)
    checked = episode = 0
    while checked < 1500 or episode < 3:  # one env: nothing kept leaks between episodes
        e.reset(seed=episode)
        episode += 1
        for agent in e.agent_iter():
            observation, _, terminated, truncated, _ = e.last()
            player = e.possible_agents.index(agent)
            assert observation["observation"].tobytes() == rebuilt(e.codec, e.game, player)
            other = rng.randrange(players)  # an agent not to decide, now and then
            if rng.random() < 0.3:
                seen = e.observe(e.possible_agents[other])["observation"].tobytes()
                assert seen == rebuilt(e.codec, e.game, other)
            checked += 1
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_updates_far_apart_and_across_rounds_observe_the_full_rebuild(variant, players):
    """Each player observes now and then (one update covers many decisions), and
    rounds follow rounds of one match (a new deal, scores changed, shuffles)."""
    codec = make_codec(variant, players)
    family = family_playing(variant)
    rng = random.Random(100 + players)
    game = family.new(players, variant, seed=players)
    bots = [family.make_bot("bot", f"bot{p}", rng) for p in range(players)]
    codec.start_round(game)
    rounds = steps = 0
    while rounds < 3 and steps < 6000:
        if game.round_over:
            rounds += 1
            if game.match_winner is not None:
                game = family.new(players, variant, seed=rounds)
            else:
                game.next_round()
            codec.start_round(game)
            continue
        for player in range(players):
            if rng.random() < 0.2:
                assert kept(codec, game, player) == rebuilt(codec, game, player)
        if game.pending_showdown is not None:
            ask = game.pending_showdown
            game.settle_showdown(rng.choice((ask.challenger, ask.opponent)))
            continue
        claimants = game.claimants()
        if claimants and rng.random() < 0.2:  # a claim out of turn, now and then
            player = rng.choice(claimants)
            game.apply(rng.choice(game.legal_actions(player)), player)
        else:  # the bot's turns: rounds that end (a random Showdown round is 17,000 steps)
            player = game.waiting_for[0]
            game.apply(bots[player].act(game, player), player)
        steps += 1
    assert rounds == 3, (rounds, steps)


def test_the_kept_observation_ignores_the_hidden_cards():
    """Swap a card of player 1's hand with the draw pile's: player 0's kept
    observation does not change (and player 1's does)."""
    codec = make_codec("classic", 2)
    seen = []
    for text in (
        "classic R5,B5/G3,Y9,Y3 G7 R1 R + 0 play - - 0,0 1 1 500 - 1:0",
        "classic R5,B5/G7,Y9,Y3 G3 R1 R + 0 play - - 0,0 1 1 500 - 1:0",
    ):
        game = Game.from_notation(text)
        codec.start_round(game)
        seen.append((kept(codec, game, 0), kept(codec, game, 1)))
        game.apply("R5")  # player 0 plays: the swapped cards stay hidden from them
        seen.append((kept(codec, game, 0), kept(codec, game, 1)))
    assert seen[0][0] == seen[2][0] and seen[1][0] == seen[3][0]
    assert seen[0][1] != seen[2][1]


def test_the_kept_party_observation_ignores_the_opponents_hands():
    """Swap players 1's and 2's hands (the same sizes): player 0's kept
    observation does not change, before and after a play."""
    codec = make_codec("party", 3)
    seen = []
    for hands in ("R5,G7/R5,B1/Y3,W", "R5,G7/Y3,W/R5,B1"):
        game = PartyGame.from_notation(
            f"party {hands} - R1,R5 R + 0 play - - 0,0,0 2 1 500 - 1:0 -"
        )
        codec.start_round(game)
        mine = [kept(codec, game, 0)]
        game.apply("R5", player=0)
        mine.append(kept(codec, game, 0))
        assert mine[1] == rebuilt(codec, game, 0)
        seen.append(mine)
    assert seen[0] == seen[1]


def test_the_kernel_is_its_source_unless_built_current_and_allowed(monkeypatch):
    """UNO_RL_INTERPRETED refuses the compiled kernel: the codec then runs the source."""
    monkeypatch.setenv(rl_codec.INTERPRETED_ENV, "1")
    assert rl_codec._chosen_kernel().__file__.endswith("rl_kernel.py")


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("classic", 4), ("showdown", 3)])
def test_the_kernels_source_keeps_what_the_chosen_kernel_keeps(monkeypatch, variant, players):
    """The kernel's Python source (the reference) and the kernel the codec runs
    (compiled where ``make build`` built it) keep the same bytes, every step."""
    chosen = make_codec(variant, players)
    monkeypatch.setenv(rl_codec.INTERPRETED_ENV, "1")
    monkeypatch.setattr(rl_codec, "KERNEL", rl_codec._chosen_kernel())
    source = make_codec(variant, players)
    family = family_playing(variant)
    rng = random.Random(players)
    game = family.new(players, variant, seed=players)
    chosen.start_round(game)
    source.start_round(game)
    for _ in range(3000):
        if game.round_over:
            game = family.new(players, variant, seed=rng.getrandbits(32))
            chosen.start_round(game)
            source.start_round(game)
        waiting = game.waiting_for
        if waiting:
            player = waiting[0]
            game.apply(rng.choice(game.legal_actions(player)), player)
        else:  # a pending showdown: a random result
            game.apply(rng.choice(game.legal_actions()))
        for player in range(players):
            if rng.random() < 0.5:
                assert kept(chosen, game, player) == kept(source, game, player)
