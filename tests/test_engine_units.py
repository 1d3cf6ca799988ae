"""Unit ports: the simulated unit's model and the manual unit's questions."""

import random
from dataclasses import replace

import pytest

from engine.units.ports import ManualUnit, ShowdownOutcome, ShowdownRequest, SimulatedUnit
from firmware_host.protocol.reactions import HUMAN

NEVER_EARLY = replace(HUMAN, false_start_rate=0)

REQUEST = ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "Bob", 2)


def outcomes(unit, count=1):
    return [unit.run_showdown(REQUEST) for _ in range(count)]


# -- outcomes ------------------------------------------------------------------------------


def test_an_outcome_names_two_different_players_and_a_known_reason():
    with pytest.raises(ValueError, match="reason must be one of faster, false_start, not 'late'"):
        ShowdownOutcome(0, 2, "late", {0: None, 2: None})
    with pytest.raises(ValueError, match="the loser and the winner are both player 2"):
        ShowdownOutcome(2, 2, "faster", {0: None, 2: None})


def test_an_outcome_must_be_between_the_requests_players():
    ShowdownOutcome(0, 2, "faster", {}).check(REQUEST)
    with pytest.raises(
        ValueError, match="showdown m1:r1:s1 was player 0 vs 2, but the outcome says 1 beat 0"
    ):
        ShowdownOutcome(0, 1, "faster", {}).check(REQUEST)


def test_a_request_names_its_players():
    assert REQUEST.players == (0, 2)
    assert (REQUEST.name(0), REQUEST.name(2), REQUEST.other(0), REQUEST.other(2)) == (
        "Ann",
        "Bob",
        2,
        0,
    )


# -- the simulated unit -------------------------------------------------------------------


def test_the_simulated_unit_is_deterministic_per_seed():
    first = outcomes(SimulatedUnit(random.Random(7)), 50)
    assert first == outcomes(SimulatedUnit(random.Random(7)), 50)
    assert first != outcomes(SimulatedUnit(random.Random(8)), 50)


def test_the_slower_player_loses_by_the_margin_between_reaction_times():
    for outcome in outcomes(SimulatedUnit(random.Random(3), reactions=NEVER_EARLY), 200):
        assert outcome.reason == "faster"
        times = outcome.reaction_us
        assert set(times) == {0, 2}
        assert times[outcome.loser] > times[outcome.winner]
        assert outcome.margin_us == times[outcome.loser] - times[outcome.winner]
        assert outcome.detail.startswith(("Ann faster by", "Bob faster by"))


def test_the_faster_times_are_the_reaction_models_and_the_slower_follow_them():
    # The model itself is tested in test_reactions.py; here, that the port uses it.
    unit = SimulatedUnit(random.Random(5), reactions=NEVER_EARLY)
    got = [(o.reaction_us[o.winner], o.margin_us) for o in outcomes(unit, 50)]
    rng = random.Random(5)
    drawn = []
    while len(drawn) < 50:
        rng.random()  # the false start's draw
        first, second = NEVER_EARLY.presses_us(rng)
        rng.choice(REQUEST.players)  # who is the faster one
        if second - first >= 200:  # a near-tie is fought again
            drawn.append((first, second - first))
    assert got == drawn


def test_false_starts_happen_at_about_their_rate_and_the_offender_loses():
    often = replace(HUMAN, false_start_rate=0.1)
    found = [
        o
        for o in outcomes(SimulatedUnit(random.Random(11), reactions=often), 4000)
        if o.reason == "false_start"
    ]
    # 400 expected; the binomial standard deviation is 19.
    assert 324 <= len(found) <= 476
    assert {o.loser for o in found} == {0, 2}
    for o in found:
        assert o.reaction_us == {0: None, 2: None} and o.margin_us is None
        assert o.detail.startswith(f"false start by {REQUEST.name(o.loser)}")
    always = replace(HUMAN, false_start_rate=1)
    assert all(
        o.reason == "faster"
        for o in outcomes(SimulatedUnit(random.Random(1), reactions=NEVER_EARLY), 500)
    )
    assert all(
        o.reason == "false_start"
        for o in outcomes(SimulatedUnit(random.Random(1), reactions=always), 50)
    )


def test_near_ties_are_run_again_and_show_only_in_the_detail():
    # A 60 ms threshold makes near-ties common.
    unit = SimulatedUnit(
        random.Random(2), reactions=NEVER_EARLY, tie_threshold_us=60_000, max_reruns=3
    )
    results = outcomes(unit, 300)
    rerun = [o for o in results if o.tie_reruns]
    assert rerun and max(o.tie_reruns for o in results) == 3
    for o in rerun:
        assert f"after {o.tie_reruns} near-tie re-run" in o.detail
    decided = [o for o in results if o.margin_us < 60_000]
    assert decided and all(o.tie_reruns == 3 for o in decided)
    assert all(o.detail.startswith("too close to call") for o in decided)


def test_the_simulated_unit_rejects_impossible_settings():
    with pytest.raises(
        ValueError, match="tie_threshold_us and max_reruns must be >= 0, not -1 and 3"
    ):
        SimulatedUnit(random.Random(), tie_threshold_us=-1)


# -- the manual unit ----------------------------------------------------------------------


def scripted(*answers):
    replies = iter(answers)
    shown = []

    def input_fn(prompt):
        shown.append(prompt)
        try:
            return next(replies)
        except StopIteration:
            raise EOFError from None

    return ManualUnit(input_fn, shown.append), shown


@pytest.mark.parametrize(
    "answer, loser, reason",
    [
        ("Ann", 2, "faster"),
        ("bob", 0, "faster"),
        (" 2 ", 0, "faster"),
        ("0", 2, "faster"),
        ("f Ann", 0, "false_start"),
        ("F bob", 2, "false_start"),
        ("f2", 2, "false_start"),
    ],
)
def test_the_manual_unit_reads_who_won_or_who_false_started(answer, loser, reason):
    unit, shown = scripted(answer)
    outcome = unit.run_showdown(REQUEST)
    assert (outcome.loser, outcome.winner, outcome.reason) == (loser, 2 - loser, reason)
    assert outcome.reaction_us == {0: None, 2: None} and outcome.margin_us is None
    assert shown[0] == "Showdown m1:r1:s1: Ann (0) vs Bob (2) for 2 cards."


def test_the_manual_unit_asks_again_with_a_reason_on_bad_input():
    unit, shown = scripted("", "Cy", "1", "f", "Bob")
    assert unit.run_showdown(REQUEST).winner == 2
    problems = [line for line in shown if line.startswith("'")]
    assert problems == [
        f"{bad!r} is not Ann (0) or Bob (2): type who won, or f and who false-started (e.g. f Ann)"
        for bad in ("", "Cy", "1", "f")
    ]


def test_the_manual_unit_passes_end_of_input_on():
    unit, _ = scripted("nobody")
    with pytest.raises(EOFError):
        unit.run_showdown(REQUEST)
