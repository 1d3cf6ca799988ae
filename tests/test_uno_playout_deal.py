"""engine.uno.playout's own deal: ``play_out_new`` deals exactly the game
``Game.new`` deals (same cards, same order, same first player, same shuffles
counted), and the kernel's shuffle is engine.game.shuffle's permutation; on
the kernel's Python source and, where make built it, on its mypyc extension."""

from __future__ import annotations

import random
import struct
from typing import Literal

import pytest

from engine.game.shuffle import seeded_shuffle
from engine.uno import playout, playout_kernel
from engine.uno.actions import Action
from engine.uno.game import Game
from engine.uno.playout import _State, play_out, play_out_new
from engine.uno.rules import HouseRules

KERNELS = {"interpreted": playout.interpreted_kernel()}
if playout.is_compiled(playout_kernel):
    KERNELS["compiled"] = playout_kernel
# Every first-card rule (a returned or covered first card shuffles or draws again).
HOUSES = (
    HouseRules(),
    HouseRules(first_card="return"),
    HouseRules(first_card="flip", stacking=True),
    HouseRules(first_card="choose"),
)


# Uniform random Showdown rounds can run for 100,000s of decisions: both stop here.
LIMIT = 1500


@pytest.fixture(autouse=True, scope="module", params=sorted(KERNELS))
def kernel(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    chosen = playout.KERNEL
    playout.KERNEL = KERNELS[request.param]
    yield request.param
    playout.KERNEL = chosen


def _shuffled_by_random_random(cards: list[int], seed: int, count: int) -> None:
    # engine.game.shuffle before its generator was made as _random.Random.
    n = len(cards)
    bits = random.Random(seed << 32 | count).getrandbits(32 * n)
    keys = struct.unpack(f"<{n}I", bits.to_bytes(4 * n, "little"))
    for i in range(n - 1, 0, -1):
        j = keys[i] % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]


@pytest.mark.parametrize("size", [0, 1, 2, 3, 25, 108, 112, 300])
def test_the_kernel_shuffle_is_the_seeded_shuffle(size: int) -> None:
    for seed in (0, 1, 7, 2**32 - 1, 2**32, 2**64 - 1, 12_345_678_901_234):
        for count in (0, 1, 5, 2**32 - 1):
            expected, got, kept = list(range(size)), list(range(size)), list(range(size))
            seeded_shuffle(expected, seed=seed, count=count)
            playout.KERNEL.shuffle(got, seed, count)
            _shuffled_by_random_random(kept, seed, count)
            assert got == expected == kept, (seed, count)


def _fields(state: _State) -> dict[str, object]:
    return {name: getattr(state, name) for name in _State.__slots__}


@pytest.mark.parametrize("variant", ["classic", "showdown"])
@pytest.mark.parametrize("players", [2, 3, 4, 6, 10])
def test_the_playout_deal_is_game_new_s_deal(variant: str, players: int) -> None:
    for seed in range(40):
        house = HOUSES[seed % len(HOUSES)]
        dealer = seed % players
        game = Game.new(players, variant, seed=seed, house_rules=house, dealer=dealer)
        dealt = _State.new(players, variant, seed, None, house, 500, dealer)
        assert _fields(dealt) == _fields(_State(game)), (seed, game.notation())


def test_a_first_card_returned_twice_is_dealt_as_game_new_deals_it() -> None:
    # Seeds whose first card goes back into the pile (a reshuffle counted) or
    # is covered (the flip rule), found by looking, so the loop above is not alone.
    returned = covered = 0
    for seed in range(400):
        for house in HOUSES[1:3]:
            game = Game.new(2, "classic", seed=seed, house_rules=house)
            dealt = _State.new(2, "classic", seed, None, house, 500, 0)
            assert _fields(dealt) == _fields(_State(game))
            returned += game._shuffles > 1
            covered += len(game._discard) > 1
    assert returned > 0 and covered > 0


@pytest.mark.parametrize("to", ["round", "match"])
@pytest.mark.parametrize("policy", playout.POLICIES)
def test_play_out_new_plays_out_the_game_game_new_deals(
    policy: str, to: Literal["round", "match"]
) -> None:
    for seed in range(12):
        variant = ("classic", "showdown")[seed % 2]
        fast: list[Action] = []
        slow: list[Action] = []
        rng = random.Random(seed)  # draws the match's seed, then plays
        a = play_out_new(3, variant, policy, rng, to=to, log=fast, target=150, max_decisions=LIMIT)
        rng = random.Random(seed)
        game = Game.new(3, variant, rng=rng, target=150)
        b = play_out(game, policy, rng, to=to, log=slow, max_decisions=LIMIT)
        assert (a, fast) == (b, slow)
        # A seed given: the rng only plays.
        rng = random.Random(seed)
        house = HOUSES[seed % len(HOUSES)]
        a = play_out_new(
            2, variant, policy, rng, seed=seed, house_rules=house, dealer=1, max_decisions=LIMIT
        )
        game = Game.new(2, variant, seed=seed, house_rules=house, dealer=1)
        assert a == play_out(game, policy, random.Random(seed), max_decisions=LIMIT)


def test_play_out_new_refuses_what_game_new_refuses() -> None:
    rng = random.Random(1)
    with pytest.raises(ValueError, match="classic takes 2-10 players, not 1"):
        play_out_new(1, "classic", "random", rng)
    with pytest.raises(ValueError, match="dealer must be a player 0-1, not 2"):
        play_out_new(2, "classic", "random", rng, dealer=2)
    with pytest.raises(ValueError, match="UNO Party! is a PartyGame"):
        play_out_new(2, "party", "random", rng)
    with pytest.raises(ValueError, match="no playout policy 'greedy'"):
        play_out_new(2, "classic", "greedy", rng)
