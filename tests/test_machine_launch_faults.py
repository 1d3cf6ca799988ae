"""The showdown machine on mock pins and virtual time, past the decision: the
paddles held and the timer button, the launcher, cancel and faults, what the
journal records and when, and the selftest (helpers in tests/machine_helpers.py)."""

import pytest

from firmware_host.core.errors import (
    BusyError,
    PaddleHeldError,
    UnitError,
    UnitFaultError,
)
from hw.mock import CardFeeder
from tests.machine_helpers import (
    OFF,
    PLAYERS,
    make_rig,
    outputs,
    results,
    start,
    states,
    to_go,
)


@pytest.fixture
def rig():
    with make_rig() as rig:
        yield rig


# -- paddles held, standalone timer button ---------------------------------------------------


def test_a_paddle_held_at_start_stays_armed_and_blinks_that_sides_arrow(rig):
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.bench.press("b")
    t0 = rig.clock()
    with pytest.raises(PaddleHeldError) as caught:
        rig.core.start()
    assert (caught.value.code, caught.value.sides) == ("paddle_held", ("b",))
    assert str(caught.value) == "paddle b is held down: release it, then start"
    assert rig.state == "armed"
    assert [e.data for e in rig.events if e.name == "paddle_held"] == [{"side": "b"}]
    blink = []
    for offset in (0.0, 0.25, 0.5, 0.75, 0.999, 1.0):
        rig.run_until(t0 + offset)
        blink.append(rig.pins()["arrow_b"])
    assert blink == [1, 0, 1, 0, 0, 0]
    assert rig.pins() == OFF
    assert rig.core.next_deadline() is None
    rig.bench.release("b")
    rig.core.start()
    assert rig.state == "countdown"


def test_the_timer_button_in_idle_arms_the_default_showdown_and_starts_it(rig):
    rig.bench.press_timer()
    rig.core.pump()
    assert rig.state == "countdown"
    armed = next(e.data for e in rig.events if e.name == "armed")
    assert armed["cards"] == 2 and armed["players"] == {"a": "A", "b": "B"}
    assert armed["showdown_id"].startswith("local-") and len(armed["showdown_id"]) == 18
    assert rig.pins() == outputs(bar=(1, 0, 0), buzzer=1)


def test_the_timer_button_in_armed_starts_and_in_a_countdown_is_ignored(rig):
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.bench.press_timer()
    rig.core.pump()
    assert rig.state == "countdown"
    rig.advance(0.5)
    rig.bench.press_timer()
    rig.core.pump()
    assert rig.state == "countdown"
    assert rig.core.status()["showdown"]["showdown_id"] == "sd-1"


def test_the_timer_button_with_a_paddle_held_warns_instead_of_starting(rig):
    rig.bench.press("a")
    rig.bench.press_timer()
    rig.core.pump()
    assert rig.state == "armed"
    assert rig.pins()["arrow_a"] == 1
    assert rig.names()[-1] == "paddle_held"


# -- the launcher --------------------------------------------------------------------------


def win_for_a(rig, cards=2):
    go = to_go(rig, cards)
    rig.bench.press("a", offset_s=0.2)
    rig.run_until(go + 0.205)
    assert rig.state == "launching"
    return go + 0.205


def test_the_motor_is_cut_at_its_maximum_run_time():
    with make_rig(launcher={"max_run_s": 1.0}) as rig:
        began = win_for_a(rig, cards=5)  # 0.3 + 5 * 0.25 = 1.55 s wanted
        rig.run_until(began + 0.999)
        assert rig.pins()["motor_b"] == 1
        rig.run_until(began + 1.0)
        assert rig.pins() == OFF
        assert results(rig)[0].launch == "launched"


def test_with_a_card_sensor_the_motor_stops_when_the_cards_are_out():
    with make_rig(card_sensor=True) as rig:
        began = win_for_a(rig, cards=2)
        feeder = CardFeeder(rig.board)
        rig.run_until(began + 0.3)
        feeder.feed([began + 0.3])
        rig.core.pump()
        assert rig.pins()["motor_b"] == 1
        rig.run_until(began + 0.45)
        feeder.feed([began + 0.45])
        rig.core.pump()
        assert (rig.state, rig.pins()) == ("idle", OFF)
        assert [e.data for e in rig.events if e.name == "launched"] == [
            {
                "showdown_id": "sd-1",
                "side": "b",
                "cards": 2,
                "verified": True,
                "outcome": "launched",
            }
        ]
        result = results(rig)[0]
        assert (result.launch, result.cards_counted) == ("launched", 2)


def test_a_jam_when_the_sensor_has_not_counted_every_card_by_the_maximum():
    with make_rig(card_sensor=True) as rig:
        began = win_for_a(rig, cards=3)
        rig.run_until(began + 0.4)
        CardFeeder(rig.board).feed([began + 0.4])
        rig.run_until(began + 3.0 - 1e-6)
        assert rig.pins()["motor_b"] == 1
        rig.run_until(began + 3.0)
        assert (rig.state, rig.pins()) == ("idle", OFF)
        assert [e.data for e in rig.events if e.name == "launched"] == [
            {"showdown_id": "sd-1", "side": "b", "cards": 1, "verified": False, "outcome": "jam"}
        ]
        result = results(rig)[0]
        assert (result.launch, result.cards_counted, result.cards) == ("jam", 1, 3)


def test_the_losers_late_press_is_still_reported_as_its_reaction_time(rig):
    to_go(rig)
    rig.bench.press("a", offset_s=0.2)
    rig.bench.press("b", offset_s=0.6)  # while the cards fly
    rig.advance(5)
    assert results(rig)[0].reaction_us == {"a": 200000, "b": 600000}
    assert results(rig)[0].margin_us == 400000


# -- cancel and faults ------------------------------------------------------------------------


def reach(rig, state):
    """Drive a fresh rig into ``state``."""
    if state == "idle":
        return
    if state == "armed":
        rig.core.arm("sd-1", 2, PLAYERS)
    elif state == "countdown":
        start(rig)
        rig.advance(1.3)
    elif state == "hold":
        start(rig)
        rig.advance(3.1)
    elif state == "go":
        to_go(rig)
        rig.advance(0.1)
    elif state == "false_start":
        start(rig)
        rig.advance(0.5)
        rig.bench.press("a")
        rig.core.pump()
    elif state == "launching":
        win_for_a(rig, cards=4)
        rig.advance(0.1)
    elif state == "fault":
        start(rig)
        rig.board.show_countdown = broken
        rig.advance(1.0)
    assert rig.state == state


def broken(*args):
    raise OSError("LED driver gone")


@pytest.mark.parametrize(
    "state", ["idle", "armed", "countdown", "hold", "go", "false_start", "launching", "fault"]
)
def test_cancel_in_every_state_returns_to_idle_with_outputs_safe(rig, state):
    reach(rig, state)
    if state == "fault":
        del rig.board.show_countdown  # the board works again
    status = rig.core.cancel()
    assert status["state"] == "idle" and status["showdown"] is None and status["fault"] is None
    assert rig.pins() == OFF
    rig.advance(10)
    assert rig.pins() == OFF and rig.state == "idle"
    expected = ["cancelled"] if state not in ("idle", "fault") else []
    assert [e.name for e in rig.events if e.name == "cancelled"] == expected
    if state == "launching":
        assert [(r.reason, r.launch) for r in results(rig)] == [("faster", "cancelled")]
    else:
        assert results(rig) == []


def test_cancel_during_the_launch_stops_the_motor_at_once(rig):
    reach(rig, "launching")
    assert rig.pins()["duty"] == 0.8
    rig.core.cancel()
    assert rig.pins()["duty"] == 0.0 and rig.pins()["motor_b"] == 0


def test_an_exception_in_a_callback_faults_the_unit_with_outputs_safe(rig):
    reach(rig, "fault")
    assert rig.pins() == OFF
    fault = [e.data for e in rig.events if e.name == "fault"]
    assert fault == [{"reason": "deadline 'flash': OSError: LED driver gone"}]
    status = rig.core.status()
    assert (status["state"], status["fault"]) == (
        "fault",
        "deadline 'flash': OSError: LED driver gone",
    )
    assert rig.core.next_deadline() is None
    with pytest.raises(UnitFaultError) as caught:
        rig.core.arm("sd-2", 2, PLAYERS)
    assert caught.value.code == "fault"


def test_an_exception_while_the_motor_runs_stops_it_and_reports_the_result_as_fault():
    with make_rig(card_sensor=True) as rig:
        began = win_for_a(rig, cards=2)
        rig.core._count_card = lambda: 1 / 0
        CardFeeder(rig.board).feed([began + 0.1])
        rig.core.pump()
        assert rig.state == "fault"
        assert rig.pins() == OFF
        assert [(r.winner, r.launch) for r in results(rig)] == [("a", "fault")]
        assert rig.names()[-2:] == ["result", "fault"]


def test_a_fault_stays_while_the_board_fails_and_cancel_says_so(rig):
    reach(rig, "fault")
    rig.board.safe = lambda: broken()
    with pytest.raises(UnitFaultError) as caught:
        rig.core.cancel()
    assert str(caught.value).startswith("the unit stays in fault: the board does not answer")
    assert rig.state == "fault"
    del rig.board.safe


def test_the_timer_button_clears_a_fault_when_the_board_answers(rig):
    reach(rig, "fault")
    del rig.board.show_countdown
    rig.bench.press_timer()
    rig.core.pump()
    assert rig.state == "idle"


class Journal:
    """A recorder that keeps what it is given and what the pins were doing
    then; ``fail`` names the calls that raise OSError("disk full")."""

    def __init__(self, rig, fail=()):
        self.rig, self.fail, self.calls = rig, set(fail), []

    def _note(self, call, *what):
        self.calls.append((call, *what, self.rig.pins()["motor_a"] or self.rig.pins()["motor_b"]))
        if call in self.fail:
            raise OSError("disk full")

    def decided(self, result):
        self._note("decided", result.showdown_id, result.loser, result.launch)

    def cards_counted(self, showdown_id, counted):
        self._note("cards_counted", showdown_id, counted)

    def finished(self, result):
        self._note("finished", result.showdown_id, result.loser, result.launch)


def test_the_decision_is_recorded_before_the_motor_and_the_outcome_after():
    with make_rig(card_sensor=True) as rig:
        rig.core.recorder = journal = Journal(rig)
        rig.core.listeners += (
            lambda e: journal.calls.append(("event",)) if e.name == "result" else None,
        )
        began = win_for_a(rig, cards=2)
        CardFeeder(rig.board).feed([began + 0.1, began + 0.2])
        rig.advance(5)
        assert journal.calls == [
            ("decided", "sd-1", "b", "pending", 0),  # the motor is still off
            ("cards_counted", "sd-1", 1, 1),
            ("cards_counted", "sd-1", 2, 1),
            ("finished", "sd-1", "b", "launched", 0),  # the motor stopped
            ("event",),
        ]


def test_a_false_start_is_recorded_before_the_arrow_lights():
    with make_rig() as rig:
        arrows = []
        rig.core.recorder = Journal(rig)
        rig.core.recorder.decided = lambda result: arrows.append(rig.pins()["arrow_a"])
        go = start(rig)
        rig.bench.press("a", offset_s=-0.3)
        rig.run_until(go + 5)
        assert arrows == [0] and results(rig)[0].reason == "false_start"


@pytest.mark.parametrize("how", ["faster", "false_start"])
def test_a_decision_that_cannot_be_recorded_launches_nothing_and_faults(how):
    with make_rig() as rig:
        rig.core.recorder = journal = Journal(rig, fail={"decided"})
        if how == "faster":
            to_go(rig)
        else:
            start(rig)
        rig.bench.press("a", offset_s=0.2 if how == "faster" else -0.3)
        rig.advance(5)
        assert rig.state == "fault" and rig.pins() == OFF
        assert [c[0] for c in journal.calls] == ["decided"]
        assert "result" not in rig.names() and "launched" not in rig.names()
        assert "false_start" not in rig.names()
        assert rig.core.status()["fault"] == (
            "cannot record the decision of 'sd-1' (disk full): nothing was launched"
        )
        assert [e.data for e in rig.events if e.name == "fault"] == [
            {"reason": "cannot record the decision of 'sd-1' (disk full): nothing was launched"}
        ]


def test_a_launch_outcome_that_cannot_be_recorded_is_still_told_then_faults():
    with make_rig() as rig:
        rig.core.recorder = journal = Journal(rig, fail={"finished"})
        win_for_a(rig)
        rig.advance(5)
        assert [c[:4] for c in journal.calls] == [
            ("decided", "sd-1", "b", "pending"),
            ("finished", "sd-1", "b", "launched"),
        ]
        assert (rig.state, rig.pins()) == ("fault", OFF)
        assert [(r.loser, r.launch) for r in results(rig)] == [("b", "launched")]
        assert rig.names()[-2:] == ["result", "fault"]
        assert rig.core.status()["fault"] == (
            "cannot record the launch outcome of 'sd-1' (disk full); the verdict is recorded"
        )


def test_a_timeout_that_cannot_be_recorded_faults_without_a_result():
    with make_rig() as rig:
        rig.core.recorder = journal = Journal(rig, fail={"finished"})
        to_go(rig)
        rig.advance(5)
        assert [c[0] for c in journal.calls] == ["finished"]
        assert rig.state == "fault" and "result" not in rig.names()
        assert rig.core.status()["fault"] == "cannot record the result of 'sd-1' (disk full)"


def test_a_failing_card_count_record_does_not_stop_the_launch(caplog):
    with make_rig(card_sensor=True) as rig:
        rig.core.recorder = Journal(rig, fail={"cards_counted"})
        began = win_for_a(rig, cards=1)
        CardFeeder(rig.board).feed([began + 0.1])
        rig.advance(5)
        assert [(r.launch, r.cards_counted) for r in results(rig)] == [("launched", 1)]
        assert "cannot record the card count of sd-1: disk full" in caplog.text


def test_a_failing_listener_is_logged_and_does_not_stop_the_showdown(rig, caplog):
    rig.core.listeners += (broken,)
    to_go(rig)
    rig.bench.press("a", offset_s=0.2)
    rig.advance(5)
    assert rig.state == "idle" and results(rig)[0].winner == "a"
    assert "event listener" in caplog.text


def test_two_false_starts_on_one_tick_with_the_void_policy_end_void_without_a_launch():
    with make_rig(tie_policy="void") as rig:
        go = start(rig)
        rig.bench.press("a", offset_s=-0.5)
        rig.bench.press("b", offset_s=-0.5, delay_s=0.001)
        rig.run_until(go - 0.499)
        assert (rig.state, rig.pins()) == ("idle", OFF)
        assert states(rig)[-3:] == ["false_start", "resolved", "idle"]
        result = results(rig)[0]
        assert (result.reason, result.winner, result.loser, result.launch, result.margin_us) == (
            "tie_void",
            None,
            None,
            "none",
            0,
        )


def test_shutdown_mid_launch_stops_the_motor_and_reports_the_launch_cancelled(rig):
    reach(rig, "launching")
    rig.core.shutdown()
    assert (rig.state, rig.pins()) == ("idle", OFF)
    assert [(r.winner, r.launch) for r in results(rig)] == [("a", "cancelled")]
    assert rig.core.next_deadline() is None


def test_every_event_carries_exactly_the_keys_the_protocol_lists():
    from firmware_host.protocol import EventName

    with make_rig(card_sensor=True) as rig:
        rig.core.watch_outputs(rig.events.append)  # outputs events come only to watchers
        rig.bench.press("a")
        rig.core.arm("sd-0", 2, PLAYERS)
        with pytest.raises(PaddleHeldError):
            rig.core.start()
        rig.bench.release("a")
        rig.advance(2)
        rig.core.start()  # sd-0: a tie, then a win with a jam
        go = rig.core.round.planned_go
        rig.run_until(go)
        rig.bench.press("a", offset_s=0.2)
        rig.bench.press("b", offset_s=0.2)
        rig.bench.release("a", offset_s=0.5)
        rig.bench.release("b", offset_s=0.5)
        rig.run_until(go + 0.25)
        assert rig.state == "countdown"
        rig.bench.press("a", offset_s=0.3)  # the re-run's GO
        rig.bench.release("a", offset_s=0.5)
        rig.advance(10)
        rig.core.arm("sd-2", 2, PLAYERS)
        rig.core.start()
        rig.advance(1)
        rig.bench.press("b")  # false start, then cancelled
        rig.advance(0.1)
        rig.core.cancel()
        rig.bench.release("b")
        rig.advance(1)
        rig.core.arm("sd-3", 2, PLAYERS)
        rig.core.start()
        rig.board.show_countdown = broken
        rig.advance(1)  # a fault
        # Every event of the protocol's one list, each with exactly its keys, in order.
        names = {event.name for event in rig.events}
        assert names == set(EventName)
        for event in rig.events:
            assert type(event.name) is EventName and event.data.keys() == set(event.name.fields)
            assert tuple(event.data) == event.name.fields, event
        del rig.board.show_countdown


def test_regression_a_bench_press_still_pending_when_the_showdown_ends_is_dropped(rig):
    go = to_go(rig)
    rig.bench.press("a", offset_s=0.2)
    rig.bench.release("a", offset_s=0.4)
    rig.bench.press("b", offset_s=30.0)  # long after the cards have flown
    rig.bench.release("b", offset_s=60.0)
    rig.run_until(go + 10.0)
    assert rig.state == "idle"
    [result] = results(rig)
    assert (result.winner, result.loser) == ("a", "b")
    rig.run_until(go + 40.0)
    assert rig.board.paddle_is_pressed("a") is False
    assert rig.board.paddle_is_pressed("b") is False  # b's late press never came
    rig.core.arm("sd-2", 2, PLAYERS)
    assert rig.core.start()["state"] == "countdown"  # no paddle held at the start
    rig.run_until(go + 70.0)
    assert rig.board.paddle_is_pressed("b") is False  # its release still came


# -- selftest ----------------------------------------------------------------------------


def test_the_selftest_lights_each_output_on_the_loop_s_deadlines(rig):
    running = rig.core.start_selftest()
    assert rig.state == "selftest" and not running.done()
    seen = []
    while rig.state == "selftest":
        seen.append(rig.pins())
        rig.advance(rig.core.next_deadline() - rig.clock())
    assert outputs(bar=(1, 0, 0)) in seen and outputs(go=1) in seen
    assert outputs(motor_a=1, duty=0.3) in seen and outputs(motor_b=1, duty=0.3) in seen
    assert all(check.ok for check in running.result(0))
    assert (rig.state, rig.pins()) == ("idle", OFF)
    assert states(rig) == ["selftest", "idle"]


def test_the_timer_button_and_paddles_are_ignored_during_a_selftest(rig):
    rig.core.start_selftest()
    rig.bench.press_timer()
    rig.core.pump()
    assert rig.state == "selftest"
    with pytest.raises(BusyError, match=r"^the unit is busy: a selftest is running"):
        rig.core.start_selftest()
    rig.core.cancel()


def test_cancel_stops_a_selftest_with_the_outputs_safe(rig):
    running = rig.core.start_selftest()
    rig.advance(1.6)  # somewhere in the lights
    assert rig.pins() != OFF
    assert rig.core.cancel()["state"] == "idle"
    assert rig.pins() == OFF and rig.core.next_deadline() is None
    with pytest.raises(UnitError, match=r"^the selftest was stopped before it ended$"):
        running.result(0)
