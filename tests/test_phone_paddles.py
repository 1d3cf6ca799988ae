"""The decision of a showdown fought on phones (engine.units.phone_paddles), with plain numbers."""

from __future__ import annotations

import random

import pytest

from engine.units.phone_paddles import PhoneShowdown, Tap, bot_tap, go_instant, judge_round
from engine.units.ports import ShowdownRequest
from firmware_host.protocol import Reason

REQ = ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "Bob", 2)


def test_faster_wins_with_reactions_and_margin() -> None:
    fight = PhoneShowdown(REQ)
    result = fight.record({0: Tap(300_000, 2_000), 2: Tap(250_000, 3_000)})
    assert result.kind == "decided"
    assert fight.outcome is not None
    assert (fight.outcome.loser, fight.outcome.winner) == (0, 2)
    assert fight.outcome.reason is Reason.FASTER
    assert fight.outcome.reaction_us == {0: 300_000, 2: 250_000}
    assert fight.outcome.margin_us == 50_000
    assert fight.outcome.tie_reruns == 0
    assert fight.outcome.detail == "Bob faster by 50.0 ms"


def test_a_tap_before_go_is_a_false_start_whatever_the_other_did() -> None:
    for other in (Tap(200_000, 1_000), Tap(None, 1_000)):
        fight = PhoneShowdown(REQ)
        assert fight.record({0: other, 2: Tap(-40_000, 1_000)}).kind == "decided"
        assert fight.outcome is not None
        assert fight.outcome.loser == 2 and fight.outcome.reason is Reason.FALSE_START
        assert fight.outcome.reaction_us == {0: None, 2: None}
        assert fight.outcome.detail == "false start by Bob"


def test_two_false_starts_the_earlier_loses_unless_within_uncertainty() -> None:
    result = judge_round(REQ, {0: Tap(-10_000, 1_000), 2: Tap(-90_000, 1_000)})
    assert (result.kind, result.loser, result.reason) == ("decided", 2, Reason.FALSE_START)
    assert judge_round(REQ, {0: Tap(-10_000, 1_000), 2: Tap(-11_000, 1_000)}).kind == "tie"


def test_reactions_within_the_summed_uncertainty_are_a_tie() -> None:
    # 1 ms apart, uncertainties 0.6 + 0.6 ms: cannot be told apart.
    result = judge_round(REQ, {0: Tap(250_000, 600), 2: Tap(251_000, 600)})
    assert (result.kind, result.gap_us) == ("tie", 1_000)
    # the same gap with small uncertainties is decided
    assert judge_round(REQ, {0: Tap(250_000, 400), 2: Tap(251_000, 400)}).loser == 2
    # exactly the summed uncertainty apart is not a tie (the unit's "closer than")
    assert judge_round(REQ, {0: Tap(250_000, 500), 2: Tap(251_000, 500)}).kind == "decided"
    # equal reactions are always a tie, also with no uncertainty
    assert judge_round(REQ, {0: Tap(250_000), 2: Tap(250_000)}).kind == "tie"
    # the unit's threshold is a floor under the uncertainty
    assert judge_round(REQ, {0: Tap(250_000), 2: Tap(250_100)}, tie_threshold_us=200).kind == "tie"


def test_a_tie_is_fought_again_and_counted() -> None:
    fight = PhoneShowdown(REQ)
    assert fight.record({0: Tap(250_000, 600), 2: Tap(250_500, 600)}).kind == "tie"
    assert fight.outcome is None
    assert fight.record({0: Tap(240_000, 600), 2: Tap(280_000, 600)}).kind == "decided"
    assert fight.outcome is not None
    assert fight.outcome.tie_reruns == 1 and fight.outcome.loser == 2
    assert fight.outcome.detail == "Ann faster by 40.0 ms, after 1 near-tie re-run (0.5 ms apart)"


def test_ties_beyond_max_reruns_are_void_and_fought_again() -> None:
    fight = PhoneShowdown(REQ, max_reruns=1)
    tie = {0: Tap(250_000, 600), 2: Tap(250_000, 600)}
    assert [fight.record(tie).kind for _ in range(3)] == ["tie"] * 3
    assert fight.voids == 2 and fight.reruns == 3
    fight.record({0: Tap(200_000), 2: Tap(300_000)})
    assert fight.outcome is not None and fight.outcome.tie_reruns == 3
    assert "2 void ties fought again" in fight.outcome.detail


def test_past_max_voids_a_tie_on_slow_links_is_called_on_the_measured_times() -> None:
    # 80 ms each way: 80 ms of uncertainty a phone, so 100 ms apart is a tie.
    fight = PhoneShowdown(REQ, max_reruns=1, max_voids=1)
    slow = {0: Tap(250_000, 80_000), 2: Tap(350_000, 80_000)}
    assert [fight.record(slow).kind for _ in range(2)] == ["tie", "tie"]  # a re-run, a void
    assert fight.voids == 1 and fight.outcome is None
    assert fight.record(slow).kind == "decided"
    assert fight.outcome is not None
    assert (fight.outcome.winner, fight.outcome.reason) == (0, Reason.FASTER)
    assert fight.outcome.margin_us == 100_000 and fight.outcome.tie_reruns == 2
    assert fight.outcome.detail == (
        "Ann faster by 100.0 ms, after 2 near-tie re-runs (100.0 ms apart, 100.0 ms apart), "
        "1 void tie fought again; called on the measured times, closer than the phones' "
        "clocks can tell"
    )


def test_past_max_voids_two_false_starts_the_earlier_loses_and_an_exact_tie_is_fought_again():
    fight = PhoneShowdown(REQ, max_reruns=0, max_voids=0)
    exact = {0: Tap(250_000, 80_000), 2: Tap(250_000, 80_000)}
    assert fight.record(exact).kind == "tie"  # nothing to call it on
    assert fight.record({0: Tap(-30_000, 80_000), 2: Tap(-10_000, 80_000)}).kind == "decided"
    assert fight.outcome is not None
    assert (fight.outcome.loser, fight.outcome.reason) == (0, Reason.FALSE_START)


def test_nobody_taps_within_the_timeout_is_fought_again() -> None:
    fight = PhoneShowdown(REQ, timeout_us=1_000_000)
    assert fight.record({0: Tap(None), 2: Tap(None)}).kind == "timeout"
    # a tap after the timeout is no tap
    assert fight.record({0: Tap(1_000_001), 2: Tap(None)}).kind == "timeout"
    assert fight.timeouts == 2 and fight.outcome is None
    fight.record({0: Tap(None), 2: Tap(400_000)})
    assert fight.outcome is not None
    assert (fight.outcome.winner, fight.outcome.margin_us) == (2, None)
    assert fight.outcome.reaction_us == {0: None, 2: 400_000}
    assert fight.outcome.detail == "Bob tapped, Ann did not, after 2 timeouts"


def test_a_phone_that_never_answers_decides_nothing_and_the_host_does() -> None:
    fight = PhoneShowdown(REQ)
    result = fight.record({0: Tap(250_000), 2: None})
    assert (result.kind, result.missing, result.loser) == ("missing", (2,), None)
    assert fight.outcome is None
    outcome = fight.decide_by_hand(2)
    assert (outcome.loser, outcome.winner, outcome.reason) == (2, 0, Reason.FASTER)
    assert outcome.reaction_us == {0: None, 2: None}  # nothing invented
    assert outcome.detail == "Ann won, entered by hand"
    with pytest.raises(ValueError):
        fight.record({0: Tap(1), 2: Tap(2)})
    with pytest.raises(ValueError):
        PhoneShowdown(REQ).decide_by_hand(1)


def test_a_bot_presses_with_its_median_never_early_and_exactly() -> None:
    rng = random.Random(3)
    taps = [bot_tap(180.0, rng) for _ in range(400)]
    reactions = sorted(t.reaction_us for t in taps if t.reaction_us is not None)
    assert len(reactions) == 400 and reactions[0] > 0
    assert all(t.uncertainty_us == 0 for t in taps)
    assert 160_000 < reactions[200] < 200_000
    # reproducible from the seed
    assert bot_tap(180.0, random.Random(3)) == taps[0]


def test_a_bot_against_a_person_on_a_phone() -> None:
    bot_request = ShowdownRequest("m1:r1:s2", 0, 2, "Ann", "Bot", 1, bots={2: 230.0})
    fight = PhoneShowdown(bot_request)
    fight.record({0: Tap(200_000, 5_000), 2: Tap(260_000)})
    assert fight.outcome is not None and fight.outcome.winner == 0


def test_go_is_ahead_with_a_seeded_hold() -> None:
    start, go = go_instant(100.0, random.Random(1))
    assert start == 101.0
    assert 101.0 + 3.5 <= go <= 101.0 + 5.5
    assert go_instant(100.0, random.Random(1)) == (start, go)
    assert go_instant(100.0, random.Random(2)) != (start, go)
