"""The remote unit port against a scripted unit (tests/fake_unit.py) on virtual time:
side mapping, ids, re-arms, reconnects, lost events, noise, and every problem
the table must hear about."""

import json
import subprocess
import sys

import pytest

from engine.units.ports import ShowdownOutcome, ShowdownRequest
from engine.units.remote import (
    PauseOnProblem,
    RemoteUnit,
    UnitBusy,
    UnitFault,
    UnitJam,
    UnitProblem,
    UnitUnreachable,
    UnitVersionError,
)
from firmware_host.protocol import Reason
from tests.fake_unit import FakeUnit, decided, false_start, timeout, void

URL = "socket://unit.test:7700"
REQUEST = ShowdownRequest("m1:r2:s3", 2, 0, "Cat", "Ann", 3)


def remote(unit: FakeUnit, **options) -> RemoteUnit:
    options.setdefault("start", True)
    options.setdefault("id_prefix", "t")
    return RemoteUnit(URL, open_port=unit.open_port, clock=unit.clock, sleep=unit.sleep, **options)


class PressTimer:
    """A table that only presses the timer button, and keeps what it saw."""

    def __init__(self):
        self.armed_ids, self.events = [], []

    def armed(self, link, request, unit_id):
        self.armed_ids.append(unit_id)
        link.call("bench_timer")

    def event(self, link, event):
        self.events.append(event.name)


def test_the_challenger_is_side_a_and_the_opponent_side_b():
    unit = FakeUnit([decided(winner="b", a_us=254_500, b_us=231_000)])
    port = remote(unit)
    outcome = port.run_showdown(REQUEST)
    [arm] = unit.commands("showdown")
    assert arm == {"showdown_id": "t-m1:r2:s3", "cards": 3, "players": {"a": "Cat", "b": "Ann"}}
    assert outcome == ShowdownOutcome(
        loser=2,
        winner=0,
        reason="faster",
        reaction_us={2: 254_500, 0: 231_000},
        margin_us=23_500,
        tie_reruns=0,
        detail="Ann wins: Cat 254.5 ms, Ann 231.0 ms, margin 23.5 ms (unit showdown t-m1:r2:s3)",
    )
    assert port.unit_ids == {"m1:r2:s3": "t-m1:r2:s3"}
    assert unit.runs == ["t-m1:r2:s3"]


def test_a_false_start_is_a_loss_for_the_offender():
    unit = FakeUnit([false_start(offender="a")])
    outcome = remote(unit).run_showdown(REQUEST)
    assert (outcome.loser, outcome.winner, outcome.reason) == (2, 0, "false_start")
    assert outcome.reason is Reason.FALSE_START  # the wire's text made the protocol's member once
    assert outcome.reaction_us == {2: None, 0: None}


def test_without_start_the_table_is_told_to_press_the_timer_button_and_the_unit_waits():
    unit = FakeUnit([decided(winner="a")])
    said, table = [], PressTimer()
    outcome = remote(unit, start=False, table=table, say=said.append).run_showdown(REQUEST)
    assert unit.commands("start") == []
    assert [cmd for cmd, _ in unit.log] == ["hello", "showdown", "bench_timer"]
    assert table.armed_ids == ["t-m1:r2:s3"]
    assert table.events == ["armed"] + ["countdown"] * 3 + ["go", "launched", "result"]
    assert said == [
        "Load 3 cards into the unit: Cat (side A) vs Ann (side B). Press the timer button.",
        "  countdown 1/3",
        "  countdown 2/3",
        "  countdown 3/3",
        "  GO!",
        "Cat wins: Cat 200.0 ms, Ann 230.0 ms, margin 30.0 ms. Ann takes 3 cards.",
    ]
    assert outcome.loser == 0


def test_nobody_pressing_and_a_void_tie_arm_the_showdown_again_under_new_ids():
    unit = FakeUnit([timeout(), void(reruns=3), decided(winner="b", a_us=230_000, b_us=200_000)])
    said = []
    port = remote(unit, say=said.append)
    outcome = port.run_showdown(REQUEST)
    assert [a["showdown_id"] for a in unit.commands("showdown")] == [
        "t-m1:r2:s3",
        "t-m1:r2:s3.1",
        "t-m1:r2:s3.2",
    ]
    assert outcome.loser == 2 and outcome.tie_reruns == 4  # 3 re-runs + the void one
    assert outcome.detail.endswith("(unit showdown t-m1:r2:s3.2, after timeout, tie_void)")
    assert port.unit_ids == {"m1:r2:s3": "t-m1:r2:s3.2"}
    assert [line for line in said if not line.startswith("  ")] == [
        "Load 3 cards into the unit: Cat (side A) vs Ann (side B). Starting the countdown.",
        "Nobody pressed in time. The cards are still loaded.",
        "The showdown is armed again. Starting the countdown.",
        "Too close to call after 3 re-runs: void. The cards are still loaded.",
        "The showdown is armed again. Starting the countdown.",
        "Ann wins: Cat 230.0 ms, Ann 200.0 ms, margin 30.0 ms. Cat takes 3 cards.",
    ]


def test_a_showdown_the_unit_never_recorded_is_armed_again_with_the_same_id_after_a_restart():
    unit = FakeUnit(["hang", decided(winner="a")])
    unit.before_reply["status"] = lambda unit, port: unit.restart()  # the heartbeat finds it gone
    port = remote(unit, heartbeat_s=1.0)
    outcome = port.run_showdown(REQUEST)
    assert [a["showdown_id"] for a in unit.commands("showdown")] == ["t-m1:r2:s3"] * 2
    assert unit.runs == ["t-m1:r2:s3"] * 2  # the first run died with the unit
    assert outcome.loser == 0 and len(unit.journal) == 1
    assert unit.sleeps[-1] == 0.05  # the first backoff


def test_a_result_journaled_while_the_link_was_down_is_fetched_not_fought_again():
    unit = FakeUnit([decided(winner="b")])

    def drop_before_result(unit, port):
        unit.drop_event.add("result")  # the result goes into the journal only
        return None

    unit.before_reply["start"] = drop_before_result
    unit.before_reply["status"] = lambda unit, port: unit.drop_links()
    outcome = remote(unit).run_showdown(REQUEST)
    assert unit.runs == ["t-m1:r2:s3"]
    arms = unit.commands("showdown")
    assert [a["showdown_id"] for a in arms] == ["t-m1:r2:s3"] * 2  # answered "done"
    assert outcome.loser == 2


def test_a_lost_result_event_is_found_by_the_heartbeat():
    unit = FakeUnit([decided(winner="a")])
    unit.drop_event.add("result")
    outcome = remote(unit, heartbeat_s=1.0).run_showdown(REQUEST)
    assert outcome.loser == 0
    assert [cmd for cmd, _ in unit.log][-2:] == ["status", "result"]


def test_an_event_gap_is_checked_at_once():
    unit = FakeUnit([decided(winner="a")])
    unit.drop_event.add("go")  # the launched event then shows a gap
    unit.drop_event.add("result")
    remote(unit, heartbeat_s=60.0).run_showdown(REQUEST)
    assert unit.now < 60.0 and "result" in [cmd for cmd, _ in unit.log]


def test_noise_from_the_unit_and_its_id_null_errors_are_passed_over():
    unit = FakeUnit([decided(winner="a")])

    def noise(unit, port):
        port.push(
            b'\xff\xfe garbage\n{"id": null, "ok": false, "error": {"code": '
            b'"bad_json", "message": "line is not valid JSON"}}\n[1, 2]\n'
            b'{"id": 999, "ok": true}\n'
        )

    unit.before_reply["showdown"] = noise
    assert remote(unit).run_showdown(REQUEST).loser == 0


def test_a_reply_that_never_comes_is_a_lost_link_and_the_showdown_is_armed_again():
    unit = FakeUnit([decided(winner="b")])
    unit.before_reply["showdown"] = lambda unit, port: "no reply"
    port = remote(unit, reply_timeout_s=2.0)
    assert port.run_showdown(REQUEST).loser == 2
    assert len(unit.commands("showdown")) == 2 and unit.runs == ["t-m1:r2:s3"]


def test_unreachable_at_the_start_names_the_url():
    unit = FakeUnit()
    unit.reachable = False
    with pytest.raises(UnitUnreachable) as caught:
        remote(unit).open()
    assert str(caught.value) == (
        f"cannot reach the unit at {URL}: connection refused: nothing listens at unit.test:7700"
    )
    assert caught.value.what_to_do == (
        "Check that the unit is switched on and its daemon is running (showdown-unit run), "
        "and that it listens on that address and port (server.listen in its config), then retry."
    )


def test_reconnecting_backs_off_and_gives_up_after_reconnect_s():
    unit = FakeUnit(["hang"])
    said = []

    def vanish(unit, port):
        unit.drop_links()
        unit.reachable = False

    unit.before_reply["start"] = vanish
    with pytest.raises(UnitUnreachable, match=r"cannot reach the unit at socket://unit.test:7700"):
        remote(unit, reconnect_s=5.0, say=said.append).run_showdown(REQUEST)
    assert unit.sleeps == [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0]
    assert sum(unit.sleeps) >= 5.0
    assert said == [
        "Load 3 cards into the unit: Cat (side A) vs Ann (side B). Starting the countdown.",
        "Lost the link to the unit (read failed: socket disconnected): reconnecting...",
    ]


def test_busy_at_the_start_and_when_arming():
    unit = FakeUnit()
    unit.state = "go"
    unit.current = {
        "showdown_id": "other",
        "cards": 1,
        "players": {"a": "X", "b": "Y"},
        "tie_reruns": 0,
    }
    with pytest.raises(UnitBusy, match=f"the unit at {URL} is busy: go, showdown other"):
        remote(unit).open()
    with pytest.raises(UnitBusy, match=f"the unit at {URL} is busy with another showdown"):
        remote(unit).run_showdown(REQUEST)


def test_a_version_mismatch_names_both_versions():
    unit = FakeUnit(version=2)
    with pytest.raises(UnitVersionError) as caught:
        remote(unit).open()
    assert str(caught.value) == (
        f"the unit at {URL} and this engine share no protocol version: "
        "unit answered version 2; this client speaks versions 1 to 1"
    )


def test_a_fault_is_raised_and_a_retry_resets_the_unit_and_runs_the_same_id_once():
    unit = FakeUnit(["fault", decided(winner="a")])
    port = remote(unit)
    with pytest.raises(UnitFault) as caught:
        port.run_showdown(REQUEST)
    assert str(caught.value) == (f"the unit at {URL} reports a fault: motor driver not answering")
    assert "Fix the unit" in caught.value.what_to_do
    outcome = port.run_showdown(REQUEST)  # the table fixed it: retry
    assert [cmd for cmd, _ in unit.log].count("reset") == 1
    assert unit.runs == ["t-m1:r2:s3"] * 2 and outcome.loser == 0


def test_a_unit_already_in_fault_is_reported_before_it_is_reset():
    unit = FakeUnit([decided(winner="a")])
    unit.state, unit.fault = "fault", "card sensor stuck"
    port = remote(unit)
    with pytest.raises(UnitFault, match="in fault: the unit is in fault \\(card sensor stuck\\)"):
        port.run_showdown(REQUEST)
    assert port.run_showdown(REQUEST).loser == 0


def test_a_jam_is_raised_once_with_the_verdict_and_a_retry_accepts_it():
    unit = FakeUnit([decided(winner="b", launch="jam", counted=1)])
    port = remote(unit)
    with pytest.raises(UnitJam) as caught:
        port.run_showdown(REQUEST)
    problem = caught.value
    assert problem.loser == 2
    assert str(problem) == (
        "The launcher jammed (1 of 3 counted): Ann wins: Cat 200.0 ms, "
        "Ann 230.0 ms, margin 30.0 ms; Cat takes 3 cards"
    )
    assert problem.what_to_do.startswith("Clear the launcher and give Cat the cards")
    outcome = port.run_showdown(REQUEST)
    assert outcome.loser == 2 and unit.runs == ["t-m1:r2:s3"]  # never fought twice


def test_a_different_showdown_under_the_same_id_is_refused():
    unit = FakeUnit()
    unit.journal["t-m1:r2:s3"] = {
        "showdown_id": "t-m1:r2:s3",
        "players": {"a": "Zed", "b": "Yan"},
        "cards": 1,
        **decided(winner="a"),
    }
    with pytest.raises(UnitProblem, match="already holds a different showdown"):
        remote(unit).run_showdown(REQUEST)


def test_ids_are_fresh_per_port_and_stable_per_request():
    a, b = RemoteUnit(URL), RemoteUnit(URL)
    assert a.id_prefix != b.id_prefix and len(a.id_prefix) == 8
    assert a.unit_id(REQUEST) == a.unit_id(REQUEST) == f"{a.id_prefix}-m1:r2:s3"
    assert a.unit_id(REQUEST, 2) == f"{a.id_prefix}-m1:r2:s3.2"
    with pytest.raises(ValueError, match="id_prefix must be"):
        RemoteUnit(URL, id_prefix="bad prefix")


def test_pause_on_problem_retries_on_r_and_takes_a_loser_by_hand():
    unit = FakeUnit(["fault", "fault", decided(winner="a")])
    answers, lines = iter(["what?", "r", "ann"]), []
    port = PauseOnProblem(
        remote(unit), input_fn=lambda prompt: next(answers), output_fn=lines.append
    )
    outcome = port.run_showdown(REQUEST)
    assert outcome == ShowdownOutcome(
        0,
        2,
        "faster",
        {2: None, 0: None},
        detail=(
            f"decided by hand after: the unit at {URL} reports a fault: motor driver not answering"
        ),
    )
    assert lines == [
        f"The game is paused: the unit at {URL} reports a fault: motor driver not answering.",
        "What to do: Fix the unit (see its log), then retry: the unit is reset and the showdown "
        "runs again.",
        "'what?' is neither r nor Cat or Ann: type r to retry, or the name of who takes the cards.",
        f"The game is paused: the unit at {URL} reports a fault: motor driver not answering.",
        "What to do: Fix the unit (see its log), then retry: the unit is reset and the showdown "
        "runs again.",
    ]
    assert unit.outcomes[0] == decided(winner="a")  # the unit never ran it a third time


def test_importing_the_remote_port_loads_no_serial_library():
    code = "import json, sys, engine.units.remote; print(json.dumps(sorted(sys.modules)))"
    modules = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        ).stdout
    )
    assert not [m for m in modules if m == "serial" or m.startswith("serial.")]


# -- a unit that misbehaves: floods, malformed replies and events ---------------------

STATES = (
    "idle, armed, countdown, hold, go, false_start, resolved, launching, timeout, selftest, fault"
)


def test_a_flooding_unit_is_a_lost_link_and_the_showdown_goes_on_after_reconnecting():
    unit = FakeUnit([decided(winner="a")])

    def flood(unit, port):
        for _ in range(5000):
            unit.emit("paddle_held", side="a")

    unit.before_reply["showdown"] = flood
    said = []
    outcome = remote(unit, say=said.append).run_showdown(REQUEST)
    assert outcome.loser == 0 and unit.runs == ["t-m1:r2:s3"]
    assert (
        "Lost the link to the unit (the unit is flooding the link: more than 1000 events "
        "waiting to be read): reconnecting..."
    ) in said


def test_a_malformed_reply_is_a_lost_link_that_ends_as_unreachable_naming_it():
    unit = FakeUnit([decided(winner="a")])
    unit.replace_reply["showdown"] = lambda unit, request: {**unit.status(), "state": 5}
    with pytest.raises(UnitUnreachable) as caught:
        remote(unit, reconnect_s=1.0).run_showdown(REQUEST)
    assert str(caught.value) == (
        f"cannot reach the unit at {URL}: the unit's reply to showdown is malformed: field "
        f"'state' must be one of done, {STATES}, not 5"
    )
    assert unit.sleeps == [0.05, 0.1, 0.2, 0.4, 0.8]
    assert unit.runs == []


def test_a_malformed_status_at_the_start_is_named():
    unit = FakeUnit()
    unit.replace_reply["status"] = lambda unit, request: {**unit.status(), "state": 5}
    with pytest.raises(UnitUnreachable) as caught:
        remote(unit).open()
    assert str(caught.value) == (
        f"cannot reach the unit at {URL}: the unit's reply to status is malformed: field "
        f"'state' must be one of {STATES}, not 5"
    )


def test_a_malformed_result_event_is_a_lost_link_and_the_journal_answers_after_reconnecting():
    unit = FakeUnit([decided(winner="a")])
    unit.corrupt_event["result"] = lambda data: {**data, "launch": "boom"}
    said = []
    assert remote(unit, say=said.append).run_showdown(REQUEST).loser == 0
    assert unit.runs == ["t-m1:r2:s3"]
    assert said[1] == (
        "Lost the link to the unit (the unit's result event is malformed: field 'launch' must "
        'be one of launched, jam, cancelled, none, fault, pending, interrupted, not "boom"): '
        "reconnecting..."
    )


def test_a_result_with_a_loser_but_no_winner_is_malformed():
    unit = FakeUnit([decided(winner="a")])
    unit.corrupt_event["result"] = lambda data: {**data, "winner": None}
    said = []
    assert remote(unit, say=said.append).run_showdown(REQUEST).loser == 0
    assert said[1] == (
        "Lost the link to the unit (the unit's result event is malformed: the result must name "
        'a winner and a loser on different sides when its reason is "faster", not null and '
        '"b"): reconnecting...'
    )


def test_a_result_journaled_malformed_ends_as_unreachable_naming_it():
    unit = FakeUnit()
    unit.journal["t-m1:r2:s3"] = {
        "showdown_id": "t-m1:r2:s3",
        "players": {"a": "Cat", "b": "Ann"},
        "cards": "3",
        **decided(winner="a"),
    }
    with pytest.raises(UnitUnreachable) as caught:
        remote(unit, reconnect_s=1.0).run_showdown(REQUEST)
    assert str(caught.value) == (
        f"cannot reach the unit at {URL}: the unit's reply to showdown is malformed: field "
        "'result.cards' must be a whole number >= 1, not \"3\""
    )


# -- launches the unit journaled before the cards flew --------------------------------


def test_a_pending_result_is_waited_for_until_the_final_result_event():
    unit = FakeUnit([decided(winner="b", launch="pending")])
    unit.after_reply["result"] = lambda unit, port: unit.land()  # the heartbeat asks
    said = []
    outcome = remote(unit, heartbeat_s=1.0, say=said.append).run_showdown(REQUEST)
    assert [cmd for cmd, _ in unit.log][-2:] == ["status", "result"]
    assert outcome.loser == 2 and unit.runs == ["t-m1:r2:s3"]
    assert said[-1] == "Ann wins: Cat 200.0 ms, Ann 230.0 ms, margin 30.0 ms. Cat takes 3 cards."


def test_a_pending_answer_to_a_re_arm_is_not_the_end_of_the_showdown():
    unit = FakeUnit([decided(winner="b", launch="pending")])
    unit.before_reply["status"] = lambda unit, port: unit.drop_links()
    arms = []

    def land_after_the_re_arm(unit, port):
        arms.append(unit.journal["t-m1:r2:s3"]["launch"])
        unit.land()

    def first_arm(unit, port):
        unit.after_reply["showdown"] = land_after_the_re_arm

    unit.after_reply["showdown"] = first_arm
    outcome = remote(unit, heartbeat_s=1.0).run_showdown(REQUEST)
    assert arms == ["pending"]  # the re-arm was answered "done", pending
    assert outcome.loser == 2 and unit.runs == ["t-m1:r2:s3"]
    assert unit.journal["t-m1:r2:s3"]["launch"] == "launched"


def test_an_interrupted_launch_applies_the_verdict_and_the_table_hands_over_the_cards():
    unit = FakeUnit([decided(winner="b", launch="interrupted")])
    said = []
    outcome = remote(unit, say=said.append).run_showdown(REQUEST)
    assert outcome == ShowdownOutcome(
        loser=2,
        winner=0,
        reason="faster",
        reaction_us={2: 200_000, 0: 230_000},
        margin_us=30_000,
        tie_reruns=0,
        detail=(
            "Ann wins: Cat 200.0 ms, Ann 230.0 ms, margin 30.0 ms (unit showdown "
            "t-m1:r2:s3, launch interrupted)"
        ),
    )
    assert said[-3:] == [
        "Lost the link to the unit (read failed: socket disconnected): reconnecting...",
        "Ann wins: Cat 200.0 ms, Ann 230.0 ms, margin 30.0 ms.",
        "The unit stopped before the launch ended: Cat takes 3 cards by hand.",
    ]
    assert unit.runs == ["t-m1:r2:s3"]


def test_an_interrupted_launch_with_a_card_count_says_how_many_to_hand_over():
    unit = FakeUnit([decided(winner="b", launch="interrupted", counted=1)])
    said = []
    port = PauseOnProblem(
        remote(unit, say=said.append), input_fn=lambda prompt: pytest.fail("the game paused")
    )
    assert port.run_showdown(REQUEST).loser == 2
    assert said[-1] == (
        "The unit stopped before the launch ended: Cat takes 3 cards (1 of 3 "
        "counted out: hand Cat the other 2)."
    )


def test_an_interrupted_launch_with_every_card_counted_out():
    unit = FakeUnit()
    unit.journal["t-m1:r2:s3"] = {
        "showdown_id": "t-m1:r2:s3",
        "players": {"a": "Cat", "b": "Ann"},
        "cards": 3,
        **decided(winner="a", launch="interrupted", counted=3),
    }
    said = []
    assert remote(unit, say=said.append).run_showdown(REQUEST).loser == 0
    assert said == [
        "Cat wins: Cat 200.0 ms, Ann 230.0 ms, margin 30.0 ms.",
        "The unit stopped before the launch ended: Ann takes 3 cards (3 of 3 counted out).",
    ]


# -- names as the unit keeps them ----------------------------------------------------


def test_names_are_sent_and_compared_as_the_unit_keeps_them():
    request = ShowdownRequest("m1:r2:s3", 2, 0, " Zoe\u0308   Smith ", "Ann", 3)
    unit = FakeUnit()
    unit.journal["t-m1:r2:s3"] = {
        "showdown_id": "t-m1:r2:s3",
        "players": {"a": "Zo\u00eb Smith", "b": "Ann"},
        "cards": 3,
        **decided(winner="a"),
    }
    assert remote(unit).run_showdown(request).loser == 0  # the same showdown
    [arm] = unit.commands("showdown")
    assert arm["players"] == {"a": "Zo\u00eb Smith", "b": "Ann"}


def test_names_the_unit_would_refuse_are_a_problem_for_the_table_not_a_traceback():
    request = ShowdownRequest("m1:r2:s3", 2, 0, "Ann", "ANN", 3)
    unit = FakeUnit([decided()])
    with pytest.raises(UnitProblem) as caught:
        remote(unit).run_showdown(request)
    assert str(caught.value) == (
        f"the unit at {URL} cannot take this showdown's names: field "
        "'players' must name two different players, not \"Ann\" twice"
    )
    assert caught.value.what_to_do == "Decide this showdown by hand."
    assert unit.commands("showdown") == []


def test_a_result_left_pending_by_a_unit_that_stopped_running_pauses_the_game_once():
    unit = FakeUnit()  # the unit could not record how the launch ended
    unit.journal["t-m1:r2:s3"] = {
        "showdown_id": "t-m1:r2:s3",
        "players": {"a": "Cat", "b": "Ann"},
        "cards": 3,
        **decided(winner="b", launch="pending"),
    }
    port = remote(unit, heartbeat_s=1.0)
    with pytest.raises(UnitJam) as caught:
        port.run_showdown(REQUEST)
    assert str(caught.value) == (
        "The unit did not record how the launch ended: Ann wins: Cat "
        "200.0 ms, Ann 230.0 ms, margin 30.0 ms; Cat takes 3 cards"
    )
    assert port.run_showdown(REQUEST).loser == 2 and unit.runs == []
