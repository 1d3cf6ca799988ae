"""Unit ports: the simulated unit's model and the manual unit's questions."""

import json
import random
import re
from dataclasses import replace

import pytest

from engine.units.ports import (
    REASONS,
    ManualUnit,
    ShowdownOutcome,
    ShowdownRequest,
    SimulatedUnit,
    Verdict,
)
from firmware_host.people.reactions import HUMAN
from firmware_host.protocol import Reason

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
        (" BOB ", 0, "faster"),
        ("f Ann", 0, "false_start"),
        ("F bob", 2, "false_start"),
        ("fbob", 2, "false_start"),
    ],
)
def test_the_manual_unit_reads_who_won_or_who_false_started(answer, loser, reason):
    unit, shown = scripted(answer)
    outcome = unit.run_showdown(REQUEST)
    assert (outcome.loser, outcome.winner, outcome.reason) == (loser, 2 - loser, reason)
    assert outcome.reaction_us == {0: None, 2: None} and outcome.margin_us is None
    assert outcome.tie_reruns == 0
    assert shown[:2] == [
        "Showdown: Ann vs Bob for 2 cards. Load them into the unit and fight it.",
        "Who won? (Ann or Bob; f NAME: a false start; tie; nobody; ? for help) ",
    ]


def test_the_manual_unit_names_players_never_their_seats():
    unit, shown = scripted("2", "0", "f2", "Bob")
    assert unit.run_showdown(REQUEST).winner == 2
    problems = [line for line in shown if line.startswith("'")]
    assert problems == [
        f"{bad!r} is not Ann or Bob: type who won, f and who pressed before GO (e.g. f Ann), "
        "tie or nobody."
        for bad in ("2", "0", "f2")
    ]
    assert not [line for line in shown if "m1:" in line or "(0)" in line or "(2)" in line]


def test_the_manual_unit_asks_again_with_a_reason_on_bad_input():
    unit, shown = scripted("", "Cy", "f", "Bob")
    assert unit.run_showdown(REQUEST).winner == 2
    problems = [line for line in shown if line.startswith("'")]
    assert problems == [
        f"{bad!r} is not Ann or Bob: type who won, f and who pressed before GO (e.g. f Ann), "
        "tie or nobody."
        for bad in ("", "Cy", "f")
    ]


@pytest.mark.parametrize("answer", ["tie", "Tie, again", "tie again", "again"])
def test_a_tie_at_the_manual_unit_is_fought_again(answer):
    unit, shown = scripted(answer, "Bob")
    outcome = unit.run_showdown(REQUEST)
    assert (outcome.winner, outcome.tie_reruns) == (2, 1)
    assert outcome.detail == "entered by hand, after 1 near-tie re-run"
    assert shown[2:4] == [
        "Too close to call: the showdown is fought again. The 2 cards are still loaded.",
        "Who won this time? (Ann or Bob; f NAME: a false start; tie; nobody; ? for help) ",
    ]


@pytest.mark.parametrize("answer", ["nobody", "Nobody pressed", "none", "timeout"])
def test_nobody_pressing_at_the_manual_unit_fights_it_again_with_the_cards_still_loaded(answer):
    unit, shown = scripted(answer, "tie", "nobody", "f Ann")
    outcome = unit.run_showdown(REQUEST)
    assert (outcome.loser, outcome.reason, outcome.tie_reruns) == (0, "false_start", 1)
    assert outcome.detail == "false start, entered by hand, after 1 near-tie re-run, 2 timeouts"
    assert shown[2] == (
        "Nobody pressed in time: the showdown is fought again. The 2 cards are still loaded: "
        "do not load them again."
    )
    assert shown[3].startswith("Who won this time? ")
    assert not [line for line in shown[1:] if line.startswith("Load") or " Load " in line]


def test_one_card_at_the_manual_unit_reads_in_the_singular():
    unit, shown = scripted("nobody", "Ann")
    unit.run_showdown(ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "Bob", 1))
    assert shown[0] == "Showdown: Ann vs Bob for 1 card. Load it into the unit and fight it."
    assert shown[2].endswith("The card is still loaded: do not load it again.")
    assert shown[3].startswith("Who won this time? ")


def test_the_manual_units_tie_text_does_not_repeat_itself():
    """Issue 22: after "fought again ... still loaded" the prompt said it again."""
    unit, shown = scripted("tie", "Ann")
    unit.run_showdown(REQUEST)
    assert [line for line in shown if "still loaded" in line] == [
        "Too close to call: the showdown is fought again. The 2 cards are still loaded."
    ]


def test_the_manual_unit_explains_its_answers_on_help():
    unit, shown = scripted("?", "help", "Ann")
    assert unit.run_showdown(REQUEST).winner == 0
    help_at = shown.index(ManualUnit.HELP[0])
    assert shown[help_at : help_at + len(ManualUnit.HELP)] == list(ManualUnit.HELP)
    assert shown.count(ManualUnit.HELP[0]) == 2
    assert (
        "  tie       too close to call: the showdown is fought again, the cards still loaded"
        in (shown)
    )


def test_the_manual_unit_passes_end_of_input_on():
    unit, _ = scripted("nobody")
    with pytest.raises(EOFError):
        unit.run_showdown(REQUEST)


def test_the_simulated_units_detail_gives_times_in_ms_as_people_read_them():
    for outcome in outcomes(SimulatedUnit(random.Random(3), reactions=NEVER_EARLY), 50):
        if not outcome.tie_reruns:
            assert re.fullmatch(r"(Ann|Bob) faster by \d+\.\d ms", outcome.detail), outcome.detail
    unit = SimulatedUnit(
        random.Random(2), reactions=NEVER_EARLY, tie_threshold_us=60_000, max_reruns=1
    )
    rerun = next(o for o in outcomes(unit, 100) if o.tie_reruns)
    assert re.search(r", after 1 near-tie re-run \(\d+\.\d ms apart\)$", rerun.detail), rerun.detail


# -- bots at the simulated unit ---------------------------------------------------------------


def test_a_bot_presses_with_its_own_reaction_and_never_early():
    quick = ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "bot2", 2, bots={2: 120.0})
    unit = SimulatedUnit(random.Random(4))
    results = [unit.run_showdown(quick) for _ in range(400)]
    assert all(o.loser == 0 for o in results if o.reason == "false_start")  # only Ann's
    assert any(o.reason == "false_start" for o in results)
    timed = [o for o in results if o.reason == "faster"]
    bot_times = sorted(o.reaction_us[2] for o in timed)
    assert 110_000 <= bot_times[len(bot_times) // 2] <= 130_000  # its median, 120 ms
    assert sum(o.winner == 2 for o in timed) > 0.9 * len(timed)  # a quick bot beats Ann


def test_two_bots_fight_by_their_reactions_with_no_false_start():
    slow_and_quick = ShowdownRequest("m1:r1:s1", 0, 2, "bot0", "bot2", 1, bots={0: 600, 2: 150})
    unit = SimulatedUnit(random.Random(5))
    results = [unit.run_showdown(slow_and_quick) for _ in range(200)]
    assert {o.reason for o in results} == {"faster"}
    assert all(o.winner == 2 for o in results)
    assert all(o.margin_us == o.reaction_us[0] - o.reaction_us[2] for o in results)


# -- the reason: the protocol's own values, end to end -------------------------------------


def test_an_outcomes_reason_is_the_protocols_member_given_it_or_its_text():
    from_text = ShowdownOutcome(0, 2, "false_start", {0: None, 2: None})
    assert from_text.reason is Reason.FALSE_START
    assert ShowdownOutcome(0, 2, Reason.FASTER, {}).reason is Reason.FASTER
    assert REASONS == (Reason.FASTER, Reason.FALSE_START)  # a timeout or void tie is fought again
    with pytest.raises(
        ValueError, match="reason must be one of faster, false_start, not 'timeout'"
    ):
        ShowdownOutcome(0, 2, Reason.TIMEOUT, {})


def test_the_simulated_and_manual_units_and_a_saved_verdict_give_the_member():
    unit = SimulatedUnit(random.Random(3))
    assert all(type(outcome.reason) is Reason for outcome in outcomes(unit, 50))
    verdict = unit.verdict_for(REQUEST)
    data = json.loads(json.dumps(verdict.to_dict()))
    assert data["reason"] == str(verdict.outcome.reason)  # the wire's text in a save file
    assert Verdict.from_dict(data).outcome.reason is verdict.outcome.reason
    outcome, _ = ManualUnit.parse(REQUEST, "f Ann")
    assert outcome is not None and outcome.reason is Reason.FALSE_START
