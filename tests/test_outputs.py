"""The unit's outputs as the protocol carries them: the ``outputs`` field of a
status and the ``outputs`` event a watcher gets when they change, on mock pins
and virtual time (firmware_host.sim.rig.VirtualRig). Nothing sleeps."""

import itertools

import pytest

from firmware_host.core.outputs import MIN_INTERVAL_S, read_outputs
from firmware_host.protocol import EventName, Outputs
from firmware_host.service.config import LauncherConfig, ShowdownConfig, TimingConfig, UnitConfig
from firmware_host.sim.rig import VirtualRig
from hw.pinmap import PinMap

PLAYERS = {"a": "Ann", "b": "Bob"}
TIMING = dict(
    countdown_step_s=1.0,
    flash_period_s=0.25,
    beep_s=0.1,
    go_tone_s=0.4,
    hold_min_s=1.0,
    hold_max_s=2.0,
    settle_s=0.005,
    tie_threshold_us=200,
    min_reaction_ms=0,
    press_lockout_s=0.05,
    response_timeout_s=3.0,
    paddle_warning_s=1.0,
)
LAUNCHER = dict(speed=0.8, spin_up_s=0.3, per_card_s=0.25, max_run_s=3.0)

OFF = {
    "leds": [False, False, False],
    "go": False,
    "arrows": {"a": False, "b": False},
    "buzzer": False,
    "motor": {"direction": None, "speed": 0.0},
    "paddles": {"a": False, "b": False},
}


def outputs(**changes):
    return {**OFF, **changes}


def make_rig(buzzer=True, **timing):
    config = UnitConfig(
        pins=PinMap() if buzzer else PinMap(buzzer=None),
        timing=TimingConfig(**{**TIMING, **timing}),
        launcher=LauncherConfig(**LAUNCHER),
        showdown=ShowdownConfig(default_cards=2, max_cards=10),
    )
    return VirtualRig(config, seed=7)


class Watcher:
    """Watches a rig's outputs: each event with the virtual time it came at."""

    def __init__(self, rig):
        self.rig = rig
        self.seen = []
        self.first = rig.core.watch_outputs(self).to_wire()

    def __call__(self, event):
        assert event.name is EventName.OUTPUTS
        self.seen.append((self.rig.clock(), event.data))

    def data(self):
        return [data for _, data in self.seen]

    def since(self, when):
        return [data for at, data in self.seen if at >= when]


@pytest.fixture
def rig():
    with make_rig() as rig:
        yield rig


def lit(*leds):
    return [bool(x) for x in leds]


def test_a_status_carries_the_outputs_all_off_when_idle(rig):
    assert rig.core.status()["outputs"] == OFF
    assert read_outputs(rig.board) == Outputs.from_wire(OFF) == Outputs.idle(3)
    assert list(OFF) == list(EventName.OUTPUTS.fields)


def test_a_unit_without_a_buzzer_says_null():
    with make_rig(buzzer=False) as rig:
        assert rig.core.status()["outputs"]["buzzer"] is None


def test_a_showdown_s_outputs_step_by_step(rig):
    watcher = Watcher(rig)
    assert watcher.first == OFF  # the outputs when the watch began
    rig.advance(1)
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.core.start()
    start = rig.clock()
    go = rig.core.round.planned_go
    rig.bench.press("a", offset_s=0.2)  # A wins, B gets the cards
    rig.advance(10)
    seen = [(round(at - start, 4), data) for at, data in watcher.seen]
    # The countdown: each step lights one LED more with a beep, the bar flashes.
    assert seen[:6] == [
        (0.0, outputs(leds=lit(1, 0, 0), buzzer=True)),
        (0.1, outputs(leds=lit(1, 0, 0))),  # the beep ends
        (0.25, outputs()),  # the bar flashes off
        (0.5, outputs(leds=lit(1, 0, 0))),
        (0.75, outputs()),
        (1.0, outputs(leds=lit(1, 1, 0), buzzer=True)),  # step 2
    ]
    assert seen[10:16] == [
        (2.0, outputs(leds=lit(1, 1, 1), buzzer=True)),  # step 3
        (2.1, outputs(leds=lit(1, 1, 1))),
        (2.25, outputs()),
        (2.5, outputs(leds=lit(1, 1, 1))),
        (2.75, outputs()),
        (3.0, outputs(leds=lit(1, 1, 1))),  # the hold: the whole bar, steady
    ]
    # GO: the bar off, the GO light and the tone, at the GO itself.
    at_go = [(at, data) for at, data in watcher.seen if data["go"]]
    assert at_go[0] == (go, outputs(go=True, buzzer=True))
    # A's press shows; then the launch toward the loser, B, GO off.
    after = watcher.since(go + 0.2)
    assert after[0] == outputs(go=True, buzzer=True, paddles={"a": True, "b": False})
    launching = [data for data in after if data["motor"]["direction"] is not None]
    assert launching and all(
        data["motor"] == {"direction": "b", "speed": 0.8} and not data["go"] for data in launching
    )
    # All off once the cards are out; the status says the same.
    assert watcher.data()[-1] == OFF
    assert rig.core.status()["outputs"] == OFF
    assert rig.state == "idle"


def test_a_false_start_points_the_arrow_at_the_offender(rig):
    watcher = Watcher(rig)
    rig.advance(1)
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.core.start()
    rig.advance(1.6)
    rig.bench.press("b", hold=True)  # B jumps in the countdown
    jumped = rig.clock()
    rig.advance(0.2)
    assert rig.state == "launching"
    after = watcher.since(jumped)
    # The bar goes dark at the press; the arrow waits for the decision.
    assert after[0] == outputs(paddles={"a": False, "b": True})
    arrowed = [data for data in after if data["arrows"]["b"]]
    assert arrowed[0]["arrows"] == {"a": False, "b": True}
    assert arrowed[0]["motor"] == {"direction": "b", "speed": 0.8}
    assert not any(data["arrows"]["a"] for data in watcher.data())
    assert rig.core.status()["outputs"] == watcher.data()[-1]
    rig.advance(5)
    assert watcher.data()[-1] == outputs(paddles={"a": False, "b": True})  # still held


def test_every_output_goes_off_at_a_fault(rig):
    watcher = Watcher(rig)
    rig.advance(1)
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.core.start()
    go = rig.core.round.planned_go
    rig.bench.press("a", offset_s=0.2)
    rig.run_until(go + 0.3)
    assert rig.state == "launching" and watcher.data()[-1]["motor"]["direction"] == "b"

    def broken():
        raise OSError("motor driver gone")

    rig.core.schedule("boom", rig.clock() + 0.01, broken)
    rig.advance(1)
    assert rig.state == "fault"
    assert watcher.data()[-1] == OFF
    assert rig.core.status()["outputs"] == OFF


def test_cancel_turns_everything_off(rig):
    watcher = Watcher(rig)
    rig.advance(1)
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.core.start()
    rig.advance(0.05)
    assert watcher.data()[-1]["leds"] == lit(1, 0, 0)
    rig.core.cancel()
    rig.advance(1)
    assert watcher.data()[-1] == OFF


def test_changes_in_one_turn_are_one_event(rig):
    watcher = Watcher(rig)
    rig.advance(1)
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.core.start()
    go = rig.core.round.planned_go
    rig.run_until(go)
    # GO turned the bar off, the GO light on and the tone on: one event.
    assert [data for at, data in watcher.seen if at == go] == [outputs(go=True, buzzer=True)]
    # And never the same outputs twice in a row.
    rig.advance(10)
    data = watcher.data()
    assert all(before != after for before, after in itertools.pairwise(data))


def test_a_burst_of_changes_goes_out_once_the_interval_is_over(rig):
    watcher = Watcher(rig)
    rig.advance(1)
    rig.bench.press("a", hold=True)
    first = rig.clock()
    rig.advance(0.01)
    rig.bench.press("b", hold=True)  # 10 ms later: held back
    rig.advance(0.01)
    assert watcher.seen == [(first, outputs(paddles={"a": True, "b": False}))]
    assert rig.core.next_deadline() == pytest.approx(first + MIN_INTERVAL_S)
    rig.advance(0.1)
    assert watcher.seen[1:] == [
        (pytest.approx(first + MIN_INTERVAL_S), outputs(paddles={"a": True, "b": True}))
    ]


def test_a_change_undone_within_the_interval_sends_nothing(rig):
    watcher = Watcher(rig)
    rig.advance(1)
    rig.bench.press("a", hold=True)
    first = rig.clock()
    rig.advance(0.01)
    rig.bench.press("b", hold=True)  # held back for the interval...
    rig.advance(0.01)
    rig.bench.release("b")  # ...and undone within it
    rig.advance(1)
    assert watcher.seen == [(first, outputs(paddles={"a": True, "b": False}))]
    assert rig.core.status()["outputs"] == watcher.data()[-1]
    assert rig.core.next_deadline() is None


def test_a_fast_blink_is_bounded_to_one_event_per_interval():
    with make_rig(flash_period_s=0.01, countdown_step_s=5.0, beep_s=0.0) as rig:
        watcher = Watcher(rig)
        rig.advance(1)
        rig.core.arm("sd-1", 2, PLAYERS)
        rig.core.start()
        start = rig.clock()
        rig.advance(4)  # the bar flashes 400 times
        times = [at for at, _ in watcher.seen if at >= start]
        assert len(times) <= 4 / MIN_INTERVAL_S + 1
        assert all(b - a >= MIN_INTERVAL_S - 1e-9 for a, b in itertools.pairwise(times))


def test_a_default_countdown_sends_five_events_a_second(rig):
    # flash_period_s 0.25 and a beep per step: the step with its beep, the
    # beep's end, and three flashes.
    watcher = Watcher(rig)
    rig.advance(1)
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.core.start()
    start = rig.clock()
    rig.run_until(start + 2.99)
    assert len(watcher.since(start)) == 15


def test_nothing_is_read_or_sent_without_a_watcher(rig):
    sent = []
    rig.core.watch_outputs(sent.append)
    rig.core.unwatch_outputs(sent.append)
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.core.start()
    rig.advance(10)
    assert sent == []
    assert rig.state == "idle" and rig.core.next_deadline() is None


def test_watching_twice_is_watching_once_and_a_second_watcher_gets_the_same(rig):
    one, two = [], []
    rig.core.watch_outputs(one.append)
    rig.core.watch_outputs(one.append)
    assert rig.core.watch_outputs(two.append) == Outputs.from_wire(OFF)
    rig.advance(1)
    rig.bench.press("a", hold=True)
    rig.advance(0.1)
    assert (
        [e.data for e in one] == [e.data for e in two] == [outputs(paddles={"a": True, "b": False})]
    )
    rig.core.unwatch_outputs(one.append)
    rig.bench.release("a")
    rig.advance(0.1)
    assert len(one) == 1 and len(two) == 2


class BrokenLed:
    @property
    def value(self):
        raise OSError("LED driver gone")


def test_outputs_that_cannot_be_read_are_null_in_the_status_and_send_nothing(
    rig, caplog, monkeypatch
):
    watcher = Watcher(rig)
    go_led = rig.board.go_led
    monkeypatch.setattr(rig.board, "go_led", BrokenLed())
    assert rig.core.status()["outputs"] is None
    rig.advance(1)
    rig.bench.press("a", hold=True)
    rig.advance(0.1)
    rig.bench.release("a")
    rig.advance(0.1)
    rig.bench.press("a", hold=True)
    rig.advance(0.1)
    assert watcher.seen == []
    # Logged once, not at every turn.
    assert caplog.text.count("cannot read the outputs: OSError: LED driver gone") == 1
    monkeypatch.setattr(rig.board, "go_led", go_led)
    rig.advance(0.1)
    assert watcher.data() == [outputs(paddles={"a": True, "b": False})]


def test_the_selftest_shows_each_light_and_the_motor_each_way(rig):
    watcher = Watcher(rig)
    rig.advance(1)
    checks = rig.core.start_selftest()
    rig.advance(5)
    assert checks.done() and rig.state == "idle"
    seen = watcher.data()
    assert any(data["go"] for data in seen)
    assert any(data["arrows"] == {"a": True, "b": False} for data in seen)
    assert any(data["arrows"] == {"a": False, "b": True} for data in seen)
    assert {data["motor"]["direction"] for data in seen} == {None, "a", "b"}
    assert any(any(data["leds"]) for data in seen)
    assert seen[-1] == OFF
