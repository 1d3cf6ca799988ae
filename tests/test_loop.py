"""The event loop thread: its waits are bounded, a failure outside the core's
own guard faults the unit once and never spins or floods the log, and stop()
ends the thread promptly.

The loop runs a real ShowdownCore on mock pins and the real clock. The tests
wait for what the loop does (with a generous safety timeout) and look at how
it waited (a recording inbox), never at how long anything took.
"""

import math
import queue
import threading

import pytest
from gpiozero.pins.mock import MockFactory

from firmware_host.core.loop import MAX_WAIT_S, RETRY_S, EventLoop
from firmware_host.core.machine import ShowdownCore
from firmware_host.service.config import load_config
from hw.board import Board
from hw.mock import InjectableMockPin

WAIT_S = 10.0  # a safety net for a broken loop, not a timing assertion
BROKE = "event loop: RuntimeError: watchdog broke"  # the fault reason of a FailingPacer


class RecordingInbox(queue.SimpleQueue):
    """The core's inbox, noting the timeout of every blocking get."""

    def __init__(self):
        super().__init__()
        self.timeouts = []

    def get(self, block=True, timeout=None):
        self.timeouts.append(timeout)
        return super().get(block, timeout)


class Faults:
    """Collects the core's fault events (on the loop thread)."""

    def __init__(self):
        self.reasons = []
        self.came = threading.Event()

    def __call__(self, event):
        if event.name == "fault":
            self.reasons.append(event.data["reason"])
            self.came.set()


class FailingPacer:
    """A pacer whose ``where`` ("next_deadline" or "poll") raises the first
    ``times`` calls (forever if None); ``recovered`` is set on the first call
    after that. Until then it is always due, so the loop keeps turning."""

    def __init__(self, where, times=None):
        self.where = where
        self.times = times
        self.calls = 0
        self.recovered = threading.Event()

    def _maybe_fail(self, where):
        if where != self.where:
            return
        self.calls += 1
        if self.times is None or self.calls <= self.times:
            raise RuntimeError("watchdog broke")
        self.recovered.set()

    def next_deadline(self):
        self._maybe_fail("next_deadline")
        return None if self.recovered.is_set() else 0.0

    def poll(self):
        self._maybe_fail("poll")


@pytest.fixture
def make_loop():
    made = []

    def make(pacers=(), **kwargs):
        config = load_config(None)
        factory = MockFactory(pin_class=InjectableMockPin)
        board = Board(config.pins, pin_factory=factory)
        core = ShowdownCore(board, config)
        core.inbox = RecordingInbox()
        faults = Faults()
        core.listeners = (*core.listeners, faults)
        loop = EventLoop(core, pacers=pacers, **kwargs)
        made.append((loop, board, factory))
        return loop, core, faults

    yield make
    for loop, board, factory in made:
        loop.stop()
        board.close()
        factory.close()


def loop_errors(caplog):
    return [
        (record.levelname, record.getMessage(), record.exc_info is not None)
        for record in caplog.records
        if record.name == "firmware_host.core.loop"
    ]


def test_the_wait_bound_is_below_what_a_queue_accepts():
    assert 0 < MAX_WAIT_S < threading.TIMEOUT_MAX
    assert RETRY_S == 1.0


@pytest.mark.parametrize("when", [1e308, math.inf])
def test_regression_a_deadline_far_in_the_future_does_not_wedge_the_loop(make_loop, caplog, when):
    loop, core, faults = make_loop()
    loop.start()
    loop.call(core.schedule, "far", when, lambda: None)
    assert loop.call(core.status, timeout=WAIT_S)["state"] == "idle"
    assert core.inbox.timeouts[:2] == [None, MAX_WAIT_S]
    assert loop.call(core.has_deadline, "far") is True
    assert faults.reasons == [] and loop_errors(caplog) == []


def test_a_failing_pacer_faults_the_unit_once_and_waits_between_retries(make_loop, caplog):
    pacer = FailingPacer("next_deadline")
    loop, core, faults = make_loop([pacer], retry_s=0.5)
    loop.start()
    for _ in range(4):
        status = loop.call(core.status, timeout=WAIT_S)
    assert (status["state"], status["fault"]) == ("fault", BROKE)
    assert faults.reasons == [BROKE]
    # Every wait after a failure is a retry wait on the inbox, never a spin.
    assert len(core.inbox.timeouts) >= 4 and set(core.inbox.timeouts) == {0.5}
    assert loop_errors(caplog) == [("ERROR", "event loop error", True)]


@pytest.mark.parametrize("where", ["next_deadline", "poll", "pump"])
def test_a_failure_that_repeats_then_stops_is_logged_once_and_counted(make_loop, caplog, where):
    if where == "pump":
        pacer = FailingPacer("poll", times=0)  # only to see the recovery
        loop, core, faults = make_loop([pacer], retry_s=0.001)
        pump, calls = core.pump, []

        def failing_pump():
            calls.append(1)
            if len(calls) <= 12:
                raise RuntimeError("watchdog broke")
            pump()

        core.pump = failing_pump
    else:
        pacer = FailingPacer(where, times=12)
        loop, core, faults = make_loop([pacer], retry_s=0.001)
    loop.start()
    assert pacer.recovered.wait(WAIT_S)
    assert loop.call(core.status, timeout=WAIT_S)["fault"] == BROKE
    loop.stop(timeout=WAIT_S)
    assert faults.reasons == [BROKE]
    assert loop_errors(caplog) == [
        ("ERROR", "event loop error", True),
        ("ERROR", f"event loop error repeated 10 times: {BROKE}", False),
        ("WARNING", f"event loop error repeated 11 times in all: {BROKE}", False),
    ]
    assert core.inbox.timeouts[:12] == [0.001] * 12


def test_a_repeating_failure_faults_again_after_a_cancel_clears_the_fault(make_loop):
    pacer = FailingPacer("next_deadline")
    loop, core, faults = make_loop([pacer], retry_s=0.5)
    loop.start()
    assert faults.came.wait(WAIT_S)
    faults.came.clear()
    assert loop.call(core.cancel, timeout=WAIT_S)["state"] == "idle"
    assert faults.came.wait(WAIT_S)
    assert loop.call(core.status, timeout=WAIT_S)["state"] == "fault"
    assert faults.reasons == [BROKE, BROKE]


def test_a_deadline_action_that_raises_faults_the_unit_once_and_is_gone(make_loop):
    loop, core, faults = make_loop()
    loop.start()

    def boom():
        raise RuntimeError("boom")

    loop.call(core.schedule, "boom", 0.0, boom)
    assert faults.came.wait(WAIT_S)
    status = loop.call(core.status, timeout=WAIT_S)
    assert (status["state"], status["fault"]) == ("fault", "deadline 'boom': RuntimeError: boom")
    assert loop.call(core.has_deadline, "boom") is False
    assert loop.call(core.next_deadline) is None
    assert faults.reasons == ["deadline 'boom': RuntimeError: boom"]


def test_stop_ends_the_thread_at_once_while_the_loop_waits_to_retry(make_loop):
    loop, core, _faults = make_loop([FailingPacer("next_deadline")], retry_s=3600.0)
    loop.start()
    assert loop.call(core.status, timeout=WAIT_S)["state"] == "fault"
    thread = loop._thread
    loop.stop(timeout=WAIT_S)
    assert not thread.is_alive() and not loop.running
