"""The one human reaction-time model (firmware_host.people.reactions), and that the
simulator, the engine's simulated unit and the demo's simulated table all use it.
Seeded draws, whole distributions: no timing."""

import random
import statistics
from dataclasses import replace

import pytest

from engine.apps.demo import SimulatedTable
from engine.units.ports import SimulatedUnit
from firmware_host.people.reactions import HUMAN, NEAR_TIE_US, PHOTO_FINISH_US, Reactions
from firmware_host.sim import simulate

DRAWS = 20_000


def draws(model=HUMAN, seed=7, count=DRAWS):
    rng = random.Random(seed)
    return [model.presses_us(rng) for _ in range(count)]


def test_seeded_draws_are_pinned():
    rng = random.Random(1)
    assert [HUMAN.presses_us(rng) for _ in range(3)] == [
        (251942, 286433),
        (249653, 249772),
        (213855, 213989),
    ]
    rng = random.Random(1)
    assert (HUMAN.reaction_us(rng), HUMAN.gap_us(rng)) == (251942, 34491)


def test_the_same_seed_draws_the_same_presses_and_another_seed_others():
    assert draws(seed=3, count=50) == draws(seed=3, count=50) != draws(seed=4, count=50)


def test_the_median_reaction_is_230_ms_and_nine_in_ten_fall_between_180_and_295():
    firsts = [first for first, _ in draws()]
    assert 225_000 <= statistics.median(firsts) <= 235_000
    low, *_, high = statistics.quantiles(firsts, n=20)  # the 5th and 95th percentiles
    assert 175_000 <= low <= 185_000 and 290_000 <= high <= 300_000


def test_nobody_reacts_faster_than_150_ms_or_slower_than_1_5_s():
    slow = Reactions(median_ms=1_400, spread=0.5)
    firsts = [first for first, _ in draws()] + [first for first, _ in draws(slow)]
    assert min(firsts) == 150_000 and max(firsts) == 1_500_000
    # Above the unit's optional sprint rule (min_reaction_ms = 100), so a drawn
    # reaction is never a false start.
    assert min(firsts) > 100_000


def test_the_other_player_presses_later_now_and_then_by_a_hair():
    gaps = [second - first for first, second in draws()]
    assert min(gaps) >= 0
    assert 6_000 <= statistics.median(gaps) <= 25_000  # |N(0, 25 ms)|: 16.9 ms
    near_ties = sum(NEAR_TIE_US[0] <= gap <= NEAR_TIE_US[1] for gap in gaps) / DRAWS
    photo_finishes = sum(PHOTO_FINISH_US[0] <= gap <= PHOTO_FINISH_US[1] for gap in gaps) / DRAWS
    # The rates, plus what the normal gap gives by chance (0.4% and 9%).
    assert 0.030 <= near_ties <= 0.045
    assert 0.12 <= photo_finishes <= 0.16
    # Every near-tie is under the unit's default tie threshold (200 us).
    assert NEAR_TIE_US[1] < 200


def test_false_starts_come_at_their_rate():
    rng = random.Random(3)
    # 800 expected of 20 000; the binomial standard deviation is 28.
    assert 700 <= sum(HUMAN.false_start(rng) for _ in range(DRAWS)) <= 900
    never = replace(HUMAN, false_start_rate=0)
    assert not any(never.false_start(rng) for _ in range(1000))


def test_a_model_for_quick_hands_scales_down():
    fast = Reactions(median_ms=25, min_ms=15, gap_sd_ms=4)
    firsts = [first for first, _ in draws(fast)]
    assert 24_000 <= statistics.median(firsts) <= 26_000 and min(firsts) >= 15_000


@pytest.mark.parametrize(
    "options, message",
    [
        ({"min_ms": 0}, "need 0 < min_ms <= median_ms <= max_ms, not 0, 230, 1500"),
        ({"median_ms": 2000}, "need 0 < min_ms <= median_ms <= max_ms, not 150, 2000, 1500"),
        ({"spread": -0.1}, "spread and gap_sd_ms must be >= 0, not -0.1 and 25"),
        (
            {"false_start_rate": 1.5},
            "the rates must be 0-1 (near-tie and photo finish together at "
            "most 1), not 1.5, 0.03, 0.05",
        ),
        (
            {"near_tie_rate": 0.6, "photo_finish_rate": 0.6},
            "the rates must be 0-1 (near-tie and "
            "photo finish together at most 1), not "
            "0.04, 0.6, 0.6",
        ),
    ],
)
def test_impossible_models_are_refused(options, message):
    with pytest.raises(ValueError) as caught:
        Reactions(**options)
    assert str(caught.value) == message


def test_every_simulation_draws_from_the_one_model():
    assert simulate.HUMAN is HUMAN
    assert SimulatedUnit(random.Random(1)).reactions is HUMAN
    assert SimulatedTable(random.Random(1)).reactions is HUMAN


def test_the_simulators_normal_rounds_are_the_models_presses():
    rng, model_rng = random.Random(9), random.Random(9)
    for _ in range(200):
        plan = simulate.plan_round(rng, -4_500_000, 200)
        model_rng.choices("x", [1])  # the kind
        first, second = model_rng.sample(("a", "b"), 2)
        presses = HUMAN.presses_us(model_rng)
        if plan.kind == "normal":
            assert (plan.press_us[first], plan.press_us[second]) == presses
        model_rng.setstate(rng.getstate())  # the rest is the plan's own


def test_the_demo_table_sends_the_models_presses_in_ms():
    table = SimulatedTable(
        random.Random(5), reactions=replace(HUMAN, false_start_rate=0), settle_s=10.0
    )  # a window that drops no press
    rng = random.Random(5)
    for _ in range(50):
        plan = table.plan(cards=2)
        rng.random()  # no false start
        first, second = HUMAN.presses_us(rng)
        rng.random()  # which side is faster
        assert [ms for _, ms in plan] == [first / 1000, second / 1000]
