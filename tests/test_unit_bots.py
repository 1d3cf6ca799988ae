"""Bots on a real-time Unit whose pins are not the bench's (as on a Pi): the
unit presses a bot's paddle itself, without the bench and without touching a pin."""

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_host import NotMockError, Unit
from tests.unit_helpers import Recorder, short_config

pytestmark = pytest.mark.slow

PLAYERS = {"a": "Ann", "b": "Bob"}
TWO_BOTS = {"a": {"reaction_ms": 120}, "b": {"reaction_ms": 140}}


@pytest.fixture
def unit():
    config = short_config(bot_start_s=0.05, settle_s=0.01)
    with Unit(config, pin_factory=MockFactory(pin_class=MockPWMPin)) as unit:
        yield unit


def test_two_bots_fight_on_pins_the_bench_cannot_drive(unit):
    with pytest.raises(NotMockError):
        unit.bench.press("a")  # these pins are like a Pi's: no bench
    events = Recorder()
    unit.subscribe(events)
    unit.arm("sd-1", 2, PLAYERS, TWO_BOTS)
    result = events.wait_for("result").data
    assert result["bots"] == ["a", "b"]
    assert result["reason"] in ("faster", "tie_void")
    if result["reason"] == "faster":
        assert result["launch"] == "launched"
        assert 120_000 <= result["reaction_us"][result["winner"]] <= 1_500_000
        # The loser's bot may press after this short launch ended: then it has no time.
        late = result["reaction_us"][result["loser"]]
        assert late is None or 120_000 <= late <= 1_500_000
    assert events.names()[:2] == ["armed", "countdown"]  # nobody pressed start


def test_a_person_who_never_presses_loses_to_a_bot(unit):
    events = Recorder()
    unit.subscribe(events)
    unit.arm("sd-2", 1, PLAYERS, {"b": {"reaction_ms": 150}})
    unit.start()
    result = events.wait_for("result").data
    assert (result["winner"], result["loser"], result["bots"]) == ("b", "a", ["b"])
    assert result["reaction_us"]["a"] is None
