"""The mock bench: edges timed from GO, bounds on bench times, the automatic
release, and bench edges that never outlive their showdown.

Most tests run on a VirtualRig (virtual time, nothing sleeps); a few run a real
Unit on mock pins with a very short timing config, where they wait for events
with a generous safety timeout but never assert how long anything took.
"""

import pytest
from gpiozero.pins.mock import MockFactory

from firmware_host.core.bench import BENCH_HORIZON_S, MAX_DELAY_S, PRESS_HOLD_S
from firmware_host.core.errors import InvalidArgumentError, PaddleHeldError
from firmware_host.core.result import Result
from firmware_host.core.unit import Unit
from firmware_host.service.config import LauncherConfig, ShowdownConfig, TimingConfig, UnitConfig
from firmware_host.sim.rig import VirtualRig
from hw.mock import InjectableMockPin
from hw.pinmap import PinMap
from tests import unit_helpers
from tests.unit_helpers import Recorder

PLAYERS = {"a": "Ann", "b": "Bob"}
SEED = 7
TIMING = dict(
    countdown_step_s=1.0,
    flash_period_s=0.25,
    beep_s=0.1,
    go_tone_s=0.4,
    hold_min_s=1.0,
    hold_max_s=2.0,
    settle_s=0.005,
    tie_threshold_us=200,
    tie_policy="rerun",
    max_tie_reruns=3,
    min_reaction_ms=0,
    press_lockout_s=0.05,
    response_timeout_s=3.0,
    paddle_warning_s=1.0,
)
LAUNCHER = dict(speed=0.8, spin_up_s=0.3, per_card_s=0.25, max_run_s=3.0)
NOW = 1000.0  # a VirtualRig's clock and pin ticks start here


def make_rig(**timing):
    config = UnitConfig(
        pins=PinMap(),
        timing=TimingConfig(**{**TIMING, **timing}),
        launcher=LauncherConfig(**LAUNCHER),
        showdown=ShowdownConfig(default_cards=2, max_cards=10),
    )
    return VirtualRig(config, seed=SEED)


@pytest.fixture
def rig():
    with make_rig() as rig:
        yield rig


def start(rig, showdown_id="sd-1", cards=2):
    rig.core.arm(showdown_id, cards, PLAYERS)
    rig.core.start()
    return rig.core.round.planned_go


def to_go(rig):
    go = start(rig)
    rig.run_until(go)
    assert rig.state == "go"
    return go


def results(rig):
    return [Result.from_dict(e.data) for e in rig.events if e.name == "result"]


def pressed(rig):
    return {side: rig.board.paddle_is_pressed(side) for side in "ab"}


def paddle_edges(rig, side):
    """(tick, pressed) of every level change of ``side``'s pin since the rig
    was built, ticks rounded to the nanosecond (see :func:`ns`)."""
    pin = rig.bench.pins[side]
    tick, edges = NOW, []
    for state in pin.states[2:]:  # [0]: the pin made, [1]: its pull-up
        tick += state.timestamp
        edges.append((ns(tick), not state.state))
    return edges


def ns(tick):
    """A tick rounded to the nanosecond: pin.states keeps differences, and
    summing them back loses the last bits of a float."""
    return round(tick, 9)


# -- from GO: the real GO tick, or the planned one before GO --------------------------------


@pytest.mark.parametrize("queued_in", ["armed", "countdown", "hold"])
@pytest.mark.parametrize(
    "offset_s, reason, reaction_us",
    [(0.0, "faster", 0), (0.001, "faster", 1000), (-0.001, "false_start", None)],
)
def test_regression_a_press_at_go_queued_before_go_is_valid_not_a_false_start(
    rig, queued_in, offset_s, reason, reaction_us
):
    t0 = rig.clock()
    if queued_in == "armed":
        rig.core.arm("sd-1", 2, PLAYERS)
        placed = rig.bench.press("b", offset_s=offset_s, delay_s=0.0005)
        rig.core.start()
        assert placed == {
            "target": "b",
            "pressed": True,
            "waiting_for": "countdown",
            "release_after_s": PRESS_HOLD_S,
        }
    else:
        start(rig)
        rig.run_until(t0 + (1.5 if queued_in == "countdown" else 3.5))
        assert rig.state == queued_in
        placed = rig.bench.press("b", offset_s=offset_s, delay_s=0.0005)
        go = rig.core.round.planned_go
        if offset_s >= 0:
            assert placed == {
                "target": "b",
                "pressed": True,
                "waiting_for": "go",
                "release_after_s": PRESS_HOLD_S,
            }
        else:
            assert placed == {
                "target": "b",
                "pressed": True,
                "tick": go - 0.001,
                "deadline": "bench:0",
                "deliver_at": go - 0.0005,
                "release_tick": go - 0.001 + PRESS_HOLD_S,
            }
    rig.advance(10)
    [result] = results(rig)
    assert (result.reason, result.reaction_us) == (reason, {"a": None, "b": reaction_us})
    assert result.winner == ("b" if reason == "faster" else "a")


def test_a_press_placed_after_go_is_on_the_go_tick_and_says_where(rig):
    go = to_go(rig)
    placed = rig.bench.press("a", offset_s=0.2, delay_s=0.003)
    assert placed == {
        "target": "a",
        "pressed": True,
        "tick": go + 0.2,
        "deadline": "bench:0",
        "deliver_at": go + 0.2 + 0.003,
        "release_tick": go + 0.2 + PRESS_HOLD_S,
    }
    assert rig.bench.release("b", offset_s=0.5) == {
        "target": "b",
        "pressed": False,
        "tick": go + 0.5,
        "deadline": "bench:1",
        "deliver_at": go + 0.5,
    }


def test_presses_from_go_queued_while_armed_land_on_the_real_go_tick(rig):
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.bench.press("a", offset_s=0.0)
    rig.bench.press("b", offset_s=0.0004, delay_s=0.002)
    rig.core.start()
    rig.advance(10)
    [result] = results(rig)
    assert (result.winner, result.reaction_us, result.margin_us) == ("a", {"a": 0, "b": 400}, 400)


# -- bounds ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"offset_s": 1e308}, "offset_s must be a number of seconds from -600 to 600, not 1e+308"),
        (
            {"offset_s": -600.001},
            "offset_s must be a number of seconds from -600 to 600, not -600.001",
        ),
        (
            {"offset_s": float("nan")},
            "offset_s must be a number of seconds from -600 to 600, not nan",
        ),
        (
            {"offset_s": float("inf")},
            "offset_s must be a number of seconds from -600 to 600, not inf",
        ),
        ({"offset_s": "0.2"}, "offset_s must be a number of seconds from -600 to 600, not '0.2'"),
        ({"offset_s": True}, "offset_s must be a number of seconds from -600 to 600, not True"),
        ({"tick": 1e308}, "tick must be a pin tick within 600 s of now, not 1e+308"),
        ({"tick": NOW + 600.5}, "tick must be a pin tick within 600 s of now, not 1600.5"),
        ({"tick": NOW - 600.5}, "tick must be a pin tick within 600 s of now, not 399.5"),
        ({"tick": float("-inf")}, "tick must be a pin tick within 600 s of now, not -inf"),
        (
            {"delay_s": 1e13},
            "delay_s must be a number of seconds from 0 to 10, not 10000000000000.0",
        ),
        ({"delay_s": -0.001}, "delay_s must be a number of seconds from 0 to 10, not -0.001"),
        ({"delay_s": float("nan")}, "delay_s must be a number of seconds from 0 to 10, not nan"),
        ({"delay_s": None}, "delay_s must be a number of seconds from 0 to 10, not None"),
        ({"offset_s": 0.2, "tick": NOW}, "give offset_s or tick, not both"),
        ({"hold": 1}, "hold must be True or False, not 1"),
        ({"hold": None}, "hold must be True or False, not None"),
    ],
)
def test_bench_times_out_of_bounds_are_invalid_arguments_and_place_nothing(rig, kwargs, message):
    assert rig.clock() == NOW
    rig.core.arm("sd-1", 2, PLAYERS)
    with pytest.raises(InvalidArgumentError) as caught:
        rig.bench.press("a", **kwargs)
    assert (caught.value.code, str(caught.value)) == ("invalid_argument", message)
    if "hold" not in kwargs:
        with pytest.raises(InvalidArgumentError) as caught:
            rig.bench.release("a", **kwargs)
        assert str(caught.value) == message
    assert rig.core.next_deadline() is None
    rig.core.start()
    rig.advance(20)
    assert [(r.reason, r.reaction_us) for r in results(rig)] == [
        ("timeout", {"a": None, "b": None})
    ]
    assert paddle_edges(rig, "a") == []


def test_the_bounds_themselves_are_accepted(rig):
    assert (BENCH_HORIZON_S, MAX_DELAY_S, PRESS_HOLD_S) == (600.0, 10.0, 0.15)
    assert rig.bench.press("a", tick=NOW + 600, delay_s=10)["deliver_at"] == NOW + 610
    assert rig.bench.release("a", tick=NOW - 600)["tick"] == NOW - 600
    assert rig.bench.press("b", offset_s=-600)["waiting_for"] == "countdown"
    assert rig.bench.press("b", offset_s=600, hold=True) == {
        "target": "b",
        "pressed": True,
        "waiting_for": "countdown",
    }


@pytest.mark.parametrize(
    "hold_s, message",
    [
        (1e308, "hold_s must be a number of seconds from 0 to 600, not 1e+308"),
        (-0.1, "hold_s must be a number of seconds from 0 to 600, not -0.1"),
    ],
)
def test_a_tap_with_a_hold_out_of_bounds_presses_nothing(rig, hold_s, message):
    with pytest.raises(InvalidArgumentError) as caught:
        rig.bench.tap("a", hold_s)
    assert str(caught.value) == message
    assert pressed(rig) == {"a": False, "b": False}
    assert rig.core.next_deadline() is None


# -- the automatic release and hold=True ---------------------------------------------------


def test_a_press_now_lets_go_by_itself_after_the_hold(rig):
    assert rig.bench.press("a") == {
        "target": "a",
        "pressed": True,
        "tick": NOW,
        "release_tick": NOW + 0.15,
    }
    assert pressed(rig) == {"a": True, "b": False}
    rig.run_until(NOW + 0.15 - 1e-6)
    assert pressed(rig) == {"a": True, "b": False}
    rig.run_until(NOW + 0.15)
    assert pressed(rig) == {"a": False, "b": False}
    assert paddle_edges(rig, "a") == [(ns(NOW), True), (ns(NOW + 0.15), False)]
    assert rig.core.next_deadline() is None


def test_a_press_with_hold_stays_down(rig):
    assert rig.bench.press("b", hold=True) == {"target": "b", "pressed": True, "tick": NOW}
    rig.advance(600)
    assert pressed(rig) == {"a": False, "b": True}
    assert rig.core.next_deadline() is None
    rig.core.arm("sd-1", 2, PLAYERS)
    with pytest.raises(PaddleHeldError):
        rig.core.start()
    rig.bench.release("b")
    assert pressed(rig) == {"a": False, "b": False}


def test_a_press_at_a_tick_with_a_delay_lets_go_as_late_as_it_came(rig):
    rig.bench.press("a", tick=NOW + 1.0, delay_s=0.004)
    rig.run_until(NOW + 1.004)
    assert pressed(rig)["a"] is True
    rig.run_until(NOW + 1.154 - 1e-6)
    assert pressed(rig)["a"] is True
    rig.run_until(NOW + 1.154)
    assert paddle_edges(rig, "a") == [(ns(NOW + 1.0), True), (ns(NOW + 1.15), False)]


def test_a_later_edge_on_the_paddle_replaces_an_earlier_press_s_release(rig):
    rig.bench.press("a")
    rig.bench.release("a", tick=NOW + 0.05)
    rig.bench.press("a", tick=NOW + 0.1)
    rig.bench.press("b")
    rig.bench.press("b", tick=NOW + 0.1, hold=True)
    rig.advance(5)
    assert paddle_edges(rig, "a") == [
        (ns(NOW), True),
        (ns(NOW + 0.05), False),
        (ns(NOW + 0.1), True),
        (ns(NOW + 0.25), False),
    ]
    assert paddle_edges(rig, "b") == [(ns(NOW), True)]
    assert pressed(rig) == {"a": False, "b": True}


def test_tap_is_a_press_with_its_own_hold(rig):
    assert rig.bench.tap("a", 0.3) == {
        "target": "a",
        "pressed": True,
        "tick": NOW,
        "release_tick": NOW + 0.3,
    }
    assert rig.bench.tap("b") == {
        "target": "b",
        "pressed": True,
        "tick": NOW,
        "release_tick": NOW + 0.15,
    }
    rig.advance(1)
    assert paddle_edges(rig, "a") == [(ns(NOW), True), (ns(NOW + 0.3), False)]
    assert paddle_edges(rig, "b") == [(ns(NOW), True), (ns(NOW + 0.15), False)]


# -- bench edges never outlive their showdown ---------------------------------------------


def test_regression_presses_queued_for_a_showdown_cancelled_while_armed_do_not_decide_the_next(rig):
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.bench.press("a", offset_s=-0.5)
    rig.bench.press("b", offset_s=0.2, hold=True)
    rig.bench.release("b", offset_s=0.4)
    rig.core.cancel()
    rig.core.arm("sd-2", 2, PLAYERS)
    rig.core.start()
    rig.advance(20)
    assert [(r.showdown_id, r.reason, r.reaction_us) for r in results(rig)] == [
        ("sd-2", "timeout", {"a": None, "b": None})
    ]
    assert "false_start" not in rig.names()
    assert paddle_edges(rig, "a") == paddle_edges(rig, "b") == []


@pytest.mark.parametrize("state", ["countdown", "hold", "go"])
def test_presses_queued_for_a_showdown_cancelled_while_running_are_dropped(rig, state):
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.bench.press("a", offset_s=0.3 if state == "go" else -0.05)
    rig.bench.press("b", offset_s=0.3, hold=True)
    rig.bench.release("b", offset_s=0.5)
    t0 = rig.clock()
    rig.core.start()
    go = rig.core.round.planned_go
    rig.run_until({"countdown": t0 + 1.5, "hold": t0 + 3.2, "go": go + 0.1}[state])
    assert rig.state == state
    rig.core.cancel()
    assert rig.core.next_deadline() is None
    rig.core.arm("sd-2", 2, PLAYERS)
    rig.core.start()
    rig.advance(20)
    assert [(r.showdown_id, r.reason) for r in results(rig)] == [("sd-2", "timeout")]
    assert paddle_edges(rig, "a") == paddle_edges(rig, "b") == []


def test_a_paddle_a_showdown_press_left_down_is_released_when_the_showdown_ends(rig):
    go = to_go(rig)
    rig.bench.press("a", offset_s=0.2, hold=True)
    rig.run_until(go + 0.205)
    assert rig.state == "launching"
    rig.run_until(go + 0.205 + 0.8)  # spin_up 0.3 + 2 cards at 0.25
    assert rig.state == "idle"
    assert pressed(rig) == {"a": False, "b": False}
    assert paddle_edges(rig, "a") == [(ns(go + 0.2), True), (ns(go + 1.005), False)]
    assert rig.core.next_deadline() is None
    rig.core.arm("sd-2", 2, PLAYERS)
    assert rig.core.start()["state"] == "countdown"  # no paddle held at the next start


def test_a_cancel_lets_go_of_a_paddle_before_its_own_release(rig):
    go = to_go(rig)
    rig.bench.press("b", offset_s=0.1)
    rig.bench.release("b", offset_s=0.5)
    rig.run_until(go + 0.12)
    rig.core.cancel()
    assert pressed(rig) == {"a": False, "b": False}
    assert paddle_edges(rig, "b") == [(ns(go + 0.1), True), (ns(go + 0.12), False)]
    assert rig.core.next_deadline() is None


def test_a_press_of_a_finished_showdown_still_to_come_is_dropped_with_its_release(rig):
    go = to_go(rig)
    rig.bench.press("a", offset_s=0.2)
    rig.bench.press("b", offset_s=30.0, hold=True)  # long after the cards have flown
    rig.bench.release("b", offset_s=60.0)
    rig.run_until(go + 10.0)
    assert rig.state == "idle"
    assert rig.core.next_deadline() is None
    assert paddle_edges(rig, "b") == []


def test_presses_now_or_at_a_tick_are_not_tied_to_a_showdown(rig):
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.bench.press("a", tick=NOW + 0.1, hold=True)
    rig.core.cancel()
    rig.advance(1)
    assert paddle_edges(rig, "a") == [(ns(NOW + 0.1), True)]


# -- the bench through a real Unit on mock pins -------------------------------------------


def short_config(**timing):
    return unit_helpers.short_config(
        **{"hold_min_s": 0.02, "hold_max_s": 0.03, "min_reaction_ms": 0, **timing}
    )


@pytest.fixture
def unit():
    with Unit(short_config(), pin_factory=MockFactory(pin_class=InjectableMockPin)) as unit:
        yield unit


@pytest.mark.parametrize(
    "offset_s, expected",
    [
        (0.0, ("a", "b", "faster", {"a": 0, "b": None})),
        (0.02, ("a", "b", "faster", {"a": 20000, "b": None})),
    ],
)
def test_on_real_time_a_press_at_or_after_go_is_measured_from_the_real_go_tick(
    unit, offset_s, expected
):
    recorder = Recorder()
    unit.subscribe(recorder)
    unit.arm("sd-1", 1, PLAYERS)
    assert unit.bench.press("a", offset_s=offset_s) == {
        "target": "a",
        "pressed": True,
        "waiting_for": "countdown",
        "release_after_s": PRESS_HOLD_S,
    }
    unit.start()
    result = Result.from_dict(recorder.wait_for("result").data)
    assert (result.winner, result.loser, result.reason, result.reaction_us) == expected


def test_on_real_time_a_press_before_go_is_a_false_start(unit):
    recorder = Recorder()
    unit.subscribe(recorder)
    unit.arm("sd-1", 1, PLAYERS)
    unit.bench.press("a", offset_s=-0.005)
    unit.start()
    result = Result.from_dict(recorder.wait_for("result").data)
    assert (result.winner, result.loser, result.reason) == ("b", "a", "false_start")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"tick": 1e308}, "tick must be a pin tick within 600 s of now, not 1e+308"),
        (
            {"delay_s": 1e13},
            "delay_s must be a number of seconds from 0 to 10, not 10000000000000.0",
        ),
        (
            {"offset_s": float("inf")},
            "offset_s must be a number of seconds from -600 to 600, not inf",
        ),
    ],
)
def test_regression_a_bench_time_beyond_the_horizon_is_refused_and_the_loop_answers(
    unit, kwargs, message
):
    with pytest.raises(InvalidArgumentError) as caught:
        unit.bench.press("a", **kwargs)
    assert (caught.value.code, str(caught.value)) == ("invalid_argument", message)
    status = unit.status()
    assert (status["state"], status["paddles"], status["fault"]) == (
        "idle",
        {"a": False, "b": False},
        None,
    )


def test_unit_bench_press_with_hold_keeps_the_paddle_down_for_start(unit):
    unit.arm("sd-1", 1, PLAYERS)
    assert unit.bench.press("b", hold=True)["pressed"] is True
    with pytest.raises(PaddleHeldError) as caught:
        unit.start()
    assert caught.value.sides == ("b",)
    unit.bench.release("b")
    assert unit.status()["paddles"] == {"a": False, "b": False}
