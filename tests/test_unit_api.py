"""The public Unit API with its real event loop thread.

These run on the real clock with a very short timing config; they wait for
events (with a generous safety timeout) but never assert how long anything took.
"""

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

import firmware_host
from firmware_host import (
    BusyError,
    InvalidCardsError,
    NotArmedError,
    NotMockError,
    PaddleHeldError,
    Result,
    Unit,
    UnitClosedError,
    UnitEvent,
    UnitFaultError,
)
from hw.mock import InjectableMockPin
from tests.unit_helpers import WAIT_S, Recorder, short_config

PLAYERS = {"a": "Ann", "b": "Bob"}


class JournalSpy:
    """A unit recorder that hands every decision and final result to ``note(call, result)``."""

    def __init__(self, note):
        self.note = note

    def decided(self, result):
        self.note("decided", result)

    def cards_counted(self, showdown_id, counted):
        pass

    def finished(self, result):
        self.note("finished", result)


@pytest.fixture
def unit():
    with Unit(short_config(), pin_factory=MockFactory(pin_class=InjectableMockPin)) as unit:
        yield unit


def test_the_package_exports_the_api():
    assert {"Unit", "Result", "UnitEvent", "UnitError", "BusyError"} <= set(firmware_host.__all__)


def test_a_showdown_through_the_api_reports_events_and_the_result(unit):
    recorder = Recorder()
    unit.subscribe(recorder)
    journal = []
    unit.recorder = JournalSpy(
        lambda call, result: journal.append(
            (call, result.showdown_id, result.launch, len(recorder.events))
        )
    )
    assert unit.arm("sd-1", 2, PLAYERS)["state"] == "armed"
    unit.bench.press("a", offset_s=0.05)
    unit.bench.press("b", offset_s=0.08)
    assert unit.start()["state"] == "countdown"
    event = recorder.wait_for("result")
    result = Result.from_dict(event.data)
    assert (result.winner, result.loser, result.reason, result.cards) == ("a", "b", "faster", 2)
    assert result.reaction_us == {"a": 50000, "b": 80000}  # ticks placed on the GO tick
    assert unit.result("sd-1") == result
    assert unit.result("nope") is None
    recorder.wait_for("state", count=7)
    assert recorder.names() == [
        "armed",
        "countdown",
        "countdown",
        "countdown",
        "go",
        "launched",
        "result",
    ]
    # The decision was recorded before the motor ran (no "launched" event yet),
    # and the outcome before the result event was published.
    launched_at = [e.name for e in recorder.events].index("launched")
    go_at = [e.name for e in recorder.events].index("go")
    [decided, finished] = journal
    assert decided[:3] == ("decided", "sd-1", "pending") and go_at < decided[3] <= launched_at
    assert finished == ("finished", "sd-1", "launched", recorder.events.index(event))
    status = unit.status()
    assert status["state"] == "idle" and status["last_result"] == result.to_dict()


def test_command_errors_carry_their_protocol_codes(unit):
    with pytest.raises(NotArmedError) as caught:
        unit.start()
    assert caught.value.code == "not_armed"
    with pytest.raises(InvalidCardsError) as caught:
        unit.arm("sd-1", 11, PLAYERS)
    assert (caught.value.code, str(caught.value)) == (
        "invalid_cards",
        "cards must be a whole number from 1 to 10, not 11",
    )
    unit.arm("sd-1", 2, PLAYERS)
    unit.bench.press("a", hold=True)
    with pytest.raises(PaddleHeldError) as caught:
        unit.start()
    assert (caught.value.code, caught.value.sides) == ("paddle_held", ("a",))
    assert unit.status()["state"] == "armed"


def test_busy_while_a_countdown_runs_and_cancel_returns_to_idle():
    with Unit(
        short_config(countdown_step_s=60.0), pin_factory=MockFactory(pin_class=InjectableMockPin)
    ) as unit:
        unit.arm("sd-1", 2, PLAYERS)
        unit.start()
        with pytest.raises(BusyError) as caught:
            unit.arm("sd-2", 2, PLAYERS)
        assert str(caught.value) == "the unit is busy: state is 'countdown'"
        status = unit.cancel()
        assert status["state"] == "idle" and status["showdown"] is None


def test_a_fault_keeps_the_loop_answering_and_cancel_clears_it(unit):
    recorder = Recorder()
    unit.subscribe(recorder)

    def journal_down(call, result):
        raise OSError("journal unavailable")

    unit.recorder = JournalSpy(journal_down)
    unit.arm("sd-1", 1, PLAYERS)
    unit.bench.press("b", offset_s=0.02)
    unit.start()
    recorder.wait_for("fault")
    status = unit.status()
    assert status["state"] == "fault"
    assert status["fault"] == (
        "cannot record the decision of 'sd-1' (journal unavailable): nothing was launched"
    )
    assert "launched" not in recorder.names()
    with pytest.raises(UnitFaultError) as caught:
        unit.arm("sd-2", 1, PLAYERS)
    assert caught.value.code == "fault"
    assert unit.cancel()["state"] == "idle"


def test_unsubscribe_stops_the_events_and_a_failing_subscriber_hurts_no_one(unit):
    first, second = Recorder(), Recorder()

    def broken(event):
        raise RuntimeError("subscriber bug")

    unit.subscribe(broken)
    unsubscribe = unit.subscribe(first)
    unit.subscribe(second)
    unit.arm("sd-1", 2, PLAYERS)
    unsubscribe()
    unit.cancel()
    unit.arm("sd-2", 2, PLAYERS)
    second.wait_for("armed", count=2)
    assert [e.data["showdown_id"] for e in first.events if e.name == "armed"] == ["sd-1"]
    assert all(isinstance(e, UnitEvent) for e in second.events)


def test_a_subscriber_may_call_the_unit_from_the_loop_thread(unit):
    seen = []
    unit.subscribe(
        lambda event: seen.append(unit.status()["state"]) if event.name == "armed" else None
    )
    unit.arm("sd-1", 2, PLAYERS)
    assert seen == ["armed"]


def test_the_timer_button_runs_a_standalone_showdown(unit):
    recorder = Recorder()
    unit.subscribe(recorder)
    unit.bench.press_timer()
    armed = recorder.wait_for("armed")
    assert armed.data["cards"] == 2 and armed.data["players"] == {"a": "A", "b": "B"}
    result = recorder.wait_for("result")
    assert result.data["reason"] == "timeout"


def test_the_bench_needs_mock_pins_that_take_ticks():
    with Unit(short_config(), pin_factory=MockFactory(pin_class=MockPWMPin)) as unit:
        with pytest.raises(NotMockError) as caught:
            unit.bench.press("a")
        assert caught.value.code == "not_mock"


def test_close_makes_the_outputs_safe_and_is_idempotent():
    factory = MockFactory(pin_class=InjectableMockPin)
    recorder = Recorder()
    unit = Unit(short_config(), pin_factory=factory).open()
    unit.subscribe(recorder)
    unit.arm("sd-1", 2, PLAYERS)
    unit.start()
    recorder.wait_for("countdown")
    unit.close()
    unit.close()
    assert [factory.pin(n).state for n in (5, 6, 13, 19, 20, 21, 26, 23, 24, 12)] == [0] * 10
    with pytest.raises(UnitClosedError) as caught:
        unit.status()
    assert caught.value.code == "closed"


def test_a_command_sent_as_the_loop_stops_is_refused_at_once_not_after_the_timeout():
    """Regression: a command whose put came after the stopping loop had
    refused the waiting ones was left unanswered, and its caller (the
    server's command worker, during a shutdown) waited out the full command
    timeout."""
    unit = Unit(short_config(), pin_factory=MockFactory(pin_class=InjectableMockPin)).open()
    loop, inbox = unit._loop, unit._core.inbox

    class LateInbox:
        """The loop stops between call()'s is-it-running check and its put."""

        def put(self, event):
            if event.kind == "call":
                loop.stop()  # returns once the loop thread has ended
            inbox.put(event)

        def __getattr__(self, name):
            return getattr(inbox, name)

    unit._core.inbox = LateInbox()
    try:
        with pytest.raises(UnitClosedError, match="the unit closed before answering"):
            loop.call(lambda: "answered", timeout=WAIT_S)
    finally:
        unit.close()
