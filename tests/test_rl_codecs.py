"""The families' codecs (engine.uno.rl_codec, engine.pitch.rl_codec): every legal action has a
number, observations stay in their bounds and hold only what the player may see."""

import random

import numpy as np
import pytest

from engine.game.registry import family_playing
from engine.pitch import rl_codec as pitch_codec
from engine.rl.codec import make_mask
from engine.uno import Action, Game
from engine.uno import rl_codec as uno_codec

CASES = [
    ("classic", 2),
    ("classic", 7),
    ("showdown", 2),
    ("showdown", 4),
    ("party", 2),
    ("party", 8),
    ("party", 16),
    ("pitch", 4),
]


def codec_for(variant, players):
    module = uno_codec if variant != "pitch" else pitch_codec
    return module.make_codec(variant, players)


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_every_legal_action_of_random_rounds_has_a_number_and_back(variant, players):
    codec = codec_for(variant, players)
    family = family_playing(variant)
    rng = random.Random(players)
    high = codec.observation_high
    assert len(high) == codec.observation_size
    out = bytearray(codec.observation_size)
    for round_number in range(3):
        game = family.new(players, variant, seed=round_number)
        codec.start_round(game)
        for _ in range(400):
            if game.round_over:
                break
            if game.pending_showdown is not None:
                game.settle_showdown(game.pending_showdown.opponent)
                continue
            movers = list(game.waiting_for) + list(game.claimants())
            for player in movers:
                for action in game.legal_actions(player):
                    assert codec.actions[player][codec.index[player][action]] is action
            codec.observe(game, movers[0], out)
            assert len(out) == codec.observation_size
            assert all(value <= bound for value, bound in zip(out, high, strict=True))
            player = movers[rng.randrange(len(movers))]
            game.apply(rng.choice(game.legal_actions(player)), player)


def test_action_numbers_name_players_from_the_actors_seat():
    codec = uno_codec.make_codec("classic", 3)
    catch_next = codec.index[0][Action.catch(1)]
    assert [codec.actions[p][catch_next] for p in range(3)] == [
        Action.catch((p + 1) % 3) for p in range(3)
    ]
    assert codec.index[0][Action.draw()] == codec.index[2][Action.draw()]


def test_uno_observation_ignores_the_hidden_cards():
    """Swap a card of player 1's hand with the draw pile's: player 0 sees no change."""
    codec = uno_codec.make_codec("classic", 2)
    seen = []
    for text in (
        "classic R5,B5/G3,Y9,Y3 G7 R1 R + 0 play - - 0,0 1 1 500 - 1:0",
        "classic R5,B5/G7,Y9,Y3 G3 R1 R + 0 play - - 0,0 1 1 500 - 1:0",
    ):
        game = Game.from_notation(text)
        codec.start_round(game)
        mine, theirs = bytearray(codec.observation_size), bytearray(codec.observation_size)
        codec.observe(game, 0, mine)
        codec.observe(game, 1, theirs)
        seen.append((bytes(mine), bytes(theirs)))
    assert seen[0][0] == seen[1][0]
    assert seen[0][1] != seen[1][1]


def test_uno_observation_counts_the_hand_the_discards_and_the_seats_from_the_player():
    game = Game.from_notation("classic R5,B5/G3,Y9,Y3 G7 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    codec = uno_codec.make_codec("classic", 2)
    codec.start_round(game)
    out = bytearray(codec.observation_size)
    codec.observe(game, 1, out)
    faces = [str(face) for face in codec.faces]
    f = len(faces)
    assert sorted(faces[i] for i in range(f) if out[i]) == ["G3", "Y3", "Y9"]
    assert [faces[i] for i in range(f) if out[f + i]] == ["R1"]
    at = codec.observation_size - 8  # the seats: hand sizes, to act, catchable, scores
    assert list(out[at : at + 4]) == [3, 2, 0, 1]  # player 1 first; player 0 to act


def test_pitch_observation_is_the_seats_view():
    game = family_playing("pitch").new(4, "pitch", seed=5)
    codec = pitch_codec.make_codec("pitch", 4)
    codec.start_round(game)
    out = bytearray(codec.observation_size)
    rng = random.Random(5)
    while not game.round_over:
        seat = game.to_act
        codec.observe(game, seat, out)
        view = game.view(seat)
        deck = pitch_codec.DECK
        assert {deck[i] for i in range(54) if out[i]} == set(view.hand)
        for k in range(4):  # the trick, seat by seat from the observer
            at = pitch_codec._TRICK + k * 54
            cards = [deck[i] for i in range(54) if out[at + i]]
            assert cards == [c for s, c in view.trick if (s - seat) % 4 == k]
        game.apply(rng.choice(game.legal_actions()))


def test_pitch_is_for_four_players():
    with pytest.raises(ValueError, match="for 4 players, not 3"):
        pitch_codec.make_codec("pitch", 3)


@pytest.mark.parametrize(("variant", "players"), [("classic", 4), ("showdown", 3), ("party", 4)])
def test_the_uno_codecs_make_mask_makes_the_references_masks(variant, players):
    """UnoCodec.make_mask (the kernel's, compiled where built) gives the masks of
    engine.rl.codec.make_mask and leaves the scratch all zeros, at every step."""
    codec = codec_for(variant, players)
    assert codec.make_mask is uno_codec.KERNEL.make_mask
    scratch = bytearray(len(codec.actions[0]))
    view = np.frombuffer(scratch, dtype=np.int8)
    family = family_playing(variant)
    rng = random.Random(players)
    game = family.new(players, variant, seed=players)
    for _ in range(1000):
        if game.round_over:
            game = family.new(players, variant, seed=rng.getrandbits(32))
        waiting = game.waiting_for
        player = waiting[0] if waiting else None
        legal = game.legal_actions(player)
        if player is not None:
            index = codec.index[player]
            mask = codec.make_mask(legal, index, scratch, view)
            assert scratch == bytes(len(scratch))
            assert mask.tobytes() == make_mask(legal, index, scratch, view).tobytes()
            assert sorted(np.flatnonzero(mask)) == sorted(index[move] for move in legal)
        game.apply(rng.choice(legal), player)
