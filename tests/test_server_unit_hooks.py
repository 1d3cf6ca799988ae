"""What the daemon adds to the Unit API: calls on the loop thread, reconfigure
between showdowns, selftest, and the outputs logged at close."""

import logging
import threading
from dataclasses import replace

import pytest
from gpiozero.pins.mock import MockFactory

from firmware_host import BusyError, Unit
from hw.mock import InjectableMockPin
from tests.unit_helpers import short_config

PLAYERS = {"a": "Ann", "b": "Bob"}


@pytest.fixture
def unit():
    with Unit(short_config(), pin_factory=MockFactory(pin_class=InjectableMockPin)) as unit:
        yield unit


def test_call_runs_on_the_loop_thread(unit):
    assert unit.call(lambda: threading.current_thread().name) == "showdown-loop"


def test_reconfigure_applies_in_idle_and_is_refused_while_armed(unit):
    new = short_config(min_reaction_ms=120, press_lockout_s=0.2)
    new = new.replace(showdown=replace(new.showdown, max_cards=3), unit_name="bench-2")
    unit.arm("sd-1", 2, PLAYERS)
    with pytest.raises(BusyError, match="a showdown is under way: state is 'armed'"):
        unit.reconfigure(new)
    assert unit.config.unit_name == "showdown-unit"
    unit.cancel()
    unit.reconfigure(new)
    assert unit.config.unit_name == "bench-2"
    assert unit.board.paddle_a.lockout_s == 0.2 and unit.board.timer_button.lockout_s == 0.2
    with pytest.raises(ValueError, match="cards must be a whole number from 1 to 3, not 4"):
        unit.arm("sd-2", 4, PLAYERS)


def test_selftest_runs_in_its_own_state_and_the_unit_keeps_answering(unit):
    running = unit.start_selftest()
    assert unit.status()["state"] == "selftest"  # answered while the lights are on
    with pytest.raises(BusyError, match=r"^the unit is busy: a selftest is running"):
        unit.start_selftest()
    with pytest.raises(BusyError, match=r"^the unit is busy: a selftest is running"):
        unit.arm("sd-1", 2, PLAYERS)
    checks = running.result(timeout=30)
    assert [check.name for check in checks][:3] == ["paddle_a", "paddle_b", "timer_button"]
    assert all(check.ok for check in checks)
    assert unit.status()["state"] == "idle"
    unit.arm("sd-1", 2, PLAYERS)
    with pytest.raises(BusyError, match=r"^the unit is busy: state is 'armed'$"):
        unit.selftest()


def test_close_logs_the_outputs_it_leaves(caplog):
    caplog.set_level(logging.INFO, logger="firmware_host.core.unit")
    Unit(short_config(), pin_factory=MockFactory(pin_class=InjectableMockPin)).open().close()
    assert (
        "outputs at exit: motor_a=0 motor_b=0 motor_enable=0.0 go=0 arrow_a=0 arrow_b=0 "
        "buzzer=0 bar=000"
    ) in caplog.messages
