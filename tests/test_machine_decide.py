"""decide(): who slammed first, from ticks only (pure; no board, no clock)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.core.decide import Decision, decide, measure


def diff(later, earlier):
    return later - earlier


def run(a, b, go=100.0, threshold=200, min_ms=0):
    return decide(
        {"a": a, "b": b}, go, ticks_diff=diff, tie_threshold_us=threshold, min_reaction_ms=min_ms
    )


def test_earliest_valid_press_wins_with_reactions_and_margin_in_microseconds():
    assert run(100.25, 100.2) == Decision(
        "faster", winner="b", loser="a", reaction_us={"a": 250000, "b": 200000}, margin_us=50000
    )


def test_a_press_exactly_on_the_go_tick_is_valid():
    decision = run(100.0, 100.3)
    assert (decision.outcome, decision.winner, decision.reaction_us["a"]) == ("faster", "a", 0)


def test_a_press_one_nanosecond_before_go_is_a_false_start():
    decision = run(100.0 - 1e-9, 100.3)
    assert (decision.outcome, decision.loser, decision.winner) == ("false_start", "a", "b")


def test_false_start_before_go_existed_has_no_reaction_time():
    decision = decide({"a": 5.0, "b": None}, None, ticks_diff=diff, tie_threshold_us=200)
    assert decision == Decision(
        "false_start", winner="b", loser="a", reaction_us={"a": None, "b": None}, margin_us=None
    )


def test_when_both_jump_the_earliest_false_start_is_the_offender():
    assert run(99.99, 99.98).loser == "b"
    assert decide({"a": 5.0, "b": 5.01}, None, ticks_diff=diff, tie_threshold_us=200).loser == "a"


def test_an_early_press_is_blamed_even_if_the_other_side_was_earlier_in_ticks_but_valid():
    # b is valid (after GO); a pressed before GO: a is the offender whatever b did.
    assert run(99.999, 100.0).loser == "a"


def test_one_press_only_wins_and_margin_is_none():
    decision = run(None, 100.31)
    assert (decision.outcome, decision.winner, decision.margin_us) == ("faster", "b", None)


def test_no_press_is_a_timeout():
    assert run(None, None) == Decision("timeout", reaction_us={"a": None, "b": None})


@pytest.mark.parametrize(
    "gap_us, outcome",
    [(0, "tie"), (1, "tie"), (199, "tie"), (200, "faster"), (201, "faster"), (5000, "faster")],
)
def test_tie_threshold_boundaries_at_microsecond_resolution(gap_us, outcome):
    decision = run(100.2, 100.2 + gap_us / 1e6)
    assert decision.outcome == outcome
    assert decision.margin_us == gap_us


def test_equal_ticks_are_a_tie_even_with_threshold_zero():
    assert run(100.2, 100.2, threshold=0).outcome == "tie"
    assert run(100.2, 100.2 + 1e-6, threshold=0).winner == "a"


def test_two_false_starts_closer_than_the_threshold_are_a_tie():
    assert run(99.9, 99.9 + 50e-6).outcome == "tie"


def test_min_reaction_makes_a_too_fast_press_a_false_start():
    decision = run(100.05, 100.2, min_ms=100)
    assert (decision.outcome, decision.loser, decision.reaction_us["a"]) == (
        "false_start",
        "a",
        50000,
    )
    assert run(100.1, 100.2, min_ms=100).outcome == "faster"  # exactly 100 ms is allowed


def test_measure_reports_negative_reaction_for_a_press_before_go():
    assert measure({"a": 99.997, "b": None}, 100.0, ticks_diff=diff) == (
        {"a": -3000, "b": None},
        None,
    )


ticks = st.one_of(st.none(), st.floats(min_value=99.0, max_value=101.0, allow_nan=False))


@given(
    a=ticks,
    b=ticks,
    go=st.one_of(st.none(), st.just(100.0)),
    threshold=st.integers(0, 1000),
    min_ms=st.integers(0, 200),
)
def test_swapping_the_players_swaps_the_decision(a, b, go, threshold, min_ms):
    one = decide(
        {"a": a, "b": b}, go, ticks_diff=diff, tie_threshold_us=threshold, min_reaction_ms=min_ms
    )
    two = decide(
        {"a": b, "b": a}, go, ticks_diff=diff, tie_threshold_us=threshold, min_reaction_ms=min_ms
    )
    swap = {"a": "b", "b": "a", None: None}
    assert two.outcome == one.outcome
    assert (two.winner, two.loser) == (swap[one.winner], swap[one.loser])
    assert two.margin_us == one.margin_us


@given(
    early=st.floats(min_value=99.0, max_value=99.999999, allow_nan=False),
    other=st.one_of(st.none(), st.floats(min_value=100.0, max_value=101.0)),
)
def test_a_press_before_go_is_always_a_false_start_by_that_side(early, other):
    decision = decide({"a": early, "b": other}, 100.0, ticks_diff=diff, tie_threshold_us=200)
    assert (decision.outcome, decision.loser) == ("false_start", "a")
