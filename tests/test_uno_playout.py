"""engine.uno.playout: the fast playout plays exactly the API's game (engine.uno.policies),
on the kernel's Python source and, where make built it, on its mypyc extension."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.uno import FAMILY, playout, playout_kernel
from engine.uno.actions import Action
from engine.uno.cards import Card
from engine.uno.game import Game
from engine.uno.playout import POLICIES, play_out
from engine.uno.policies import reference_play_out
from engine.uno.rules import HouseRules

HOUSES = (
    HouseRules(),
    HouseRules(stacking=True),
    HouseRules(draw_until_playable=True, uno_penalty=4),
    HouseRules(first_card="flip", showdown_cards=(2, 5)),
)
# Every test here runs on each kernel there is: the source, and the extension if built.
KERNELS = {"interpreted": playout.interpreted_kernel()}
if playout.is_compiled(playout_kernel):
    KERNELS["compiled"] = playout_kernel


@pytest.fixture(autouse=True, scope="module", params=sorted(KERNELS))
def kernel(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    chosen = playout.KERNEL
    playout.KERNEL = KERNELS[request.param]
    yield request.param
    playout.KERNEL = chosen


# Uniform random Showdown rounds can run for 100,000s of decisions: the comparison
# stops both at the same count (the limit is part of what is compared).
LIMIT = 1500


def _position(seed: int, players: int, variant: str, house: HouseRules, moves: int) -> Game:
    """A position some random moves into a dealt round."""
    game = Game.new(players, variant, seed=seed, house_rules=house)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.round_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def _both(game: Game, policy: str, seed: int, to: str = "round") -> tuple[list[Action], ...]:
    fast: list[Action] = []
    slow: list[Action] = []
    before = game.notation()
    a = play_out(game, policy, random.Random(seed), to=to, log=fast, max_decisions=LIMIT)  # type: ignore[arg-type]
    b = reference_play_out(game, policy, random.Random(seed), to=to, log=slow, max_decisions=LIMIT)  # type: ignore[arg-type]
    assert game.notation() == before  # the game is not changed
    assert a == b
    assert a.decisions == len(fast)
    return fast, slow


@pytest.mark.parametrize("variant", ["classic", "showdown"])
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_playouts_play_every_decision_as_the_api(variant: str, policy: str, players: int) -> None:
    for seed in range(3):
        house = HOUSES[(seed + players) % len(HOUSES)]
        game = _position(seed * 31 + players, players, variant, house, moves=seed * 5)
        fast, slow = _both(game, policy, seed)
        assert [str(a) for a in fast] == [str(a) for a in slow]


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 6),
    variant=st.sampled_from(["classic", "showdown"]),
    policy=st.sampled_from(POLICIES),
    house=st.sampled_from(HOUSES),
    moves=st.integers(0, 40),
)
def test_playouts_from_any_position_match_the_api(
    seed: int, players: int, variant: str, policy: str, house: HouseRules, moves: int
) -> None:
    game = _position(seed, players, variant, house, moves)
    fast, slow = _both(game, policy, seed)
    assert fast == slow


@pytest.mark.parametrize("variant", ["classic", "showdown"])
def test_a_heuristic_match_plays_out_as_the_api(variant: str) -> None:
    game = Game.new(3, variant, seed=11, target=200)
    fast, slow = _both(game, "heuristic", 4, to="match")
    assert fast == slow
    result = play_out(game, "heuristic", random.Random(4), to="match")
    assert result.match_winner == result.winner
    assert max(result.scores) >= 200


def test_a_round_over_plays_nothing_and_a_match_deals_on() -> None:
    game = Game.new(2, "classic", seed=3)
    while not game.round_over:
        game.apply(game.legal_actions()[0])
    outcome = game.outcome
    assert outcome is not None
    done = play_out(game, "prefer-play", random.Random(1))
    assert (done.winner, done.points, done.decisions) == (outcome.winner, outcome.points, 0)
    assert done.scores == outcome.scores
    _both(game, "prefer-play", 1, to="match")


def test_a_pending_showdown_is_settled_first_by_the_unit() -> None:
    game = Game.from_notation("showdown R5!2,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    game.apply("R5!2")
    fast, slow = _both(game, "heuristic", 2)
    assert fast[0] in game.legal_actions()
    assert fast == slow


def test_a_determinized_copy_plays_out_with_its_new_hands() -> None:
    game = Game.new(2, "classic", seed=9)
    copy = game.copy()
    # Swap the opponent's hand with the top of the draw pile: every card still once.
    hidden = copy._hands[1]
    copy._hands[1], copy._draw[-7:] = copy._draw[-7:], hidden
    copy._legal = None
    copy.check_invariants()
    _both(copy, "heuristic", 5)
    assert (
        play_out(copy, "heuristic", random.Random(5))
        != play_out(game, "heuristic", random.Random(5))
        or copy.notation() != game.notation()
    )


def test_the_same_seed_plays_the_same_playout_and_the_family_offers_it() -> None:
    game = FAMILY.new(4, "showdown", seed=2)
    first = FAMILY.playout(game, "prefer-play", random.Random(8))
    assert first == play_out(game, "prefer-play", random.Random(8))
    assert first.winner is not None and first.decisions > 0


def test_a_playout_stopped_by_its_limit_has_no_winner() -> None:
    game = Game.new(2, "showdown", seed=5)
    stopped = play_out(game, "random", random.Random(5), max_decisions=10)
    assert (stopped.winner, stopped.points, stopped.decisions) == (None, 0, 10)


def test_an_unknown_policy_is_refused_by_name() -> None:
    game = Game.new(2, "classic", seed=1)
    with pytest.raises(ValueError, match="no playout policy 'greedy' \\(the policies: random, "):
        play_out(game, "greedy", random.Random(1))
    with pytest.raises(ValueError, match="play out to 'round' or 'match', not 'hand'"):
        play_out(game, "random", random.Random(1), to="hand")  # type: ignore[arg-type]


def test_a_wild_draw_four_challenge_follows_the_heuristic_chance() -> None:
    # Player 1 answers a Wild Draw Four played on red by player 0 holding one card.
    game = Game.from_notation(
        "classic W+4,R2/B1,B2,B3,B4,B5 G4,G5,G6,G7,G8 R1 R + 0 play - - 0,0 1 1 500 - 1:0"
    )
    game.apply("W+4=B")
    fast, slow = _both(game, "heuristic", 1)
    assert fast[0] is slow[0]
    assert Card.parse("R2") in game.hand(0)
