"""Shared fixtures: virtual time and gpiozero mock pins on it.

Every hardware test runs on a :class:`hw.mock.VirtualMockFactory`, so pin
edges carry ticks from ``virtual_clock`` and nothing waits for real time.
"""

import pytest
from gpiozero import Device

from hw.board import Board
from hw.mock import VirtualMockFactory
from hw.pinmap import PinMap


class VirtualClock:
    """Seconds that only move when a test says so."""

    def __init__(self, start: float = 0.0):
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError(f"a clock cannot go back ({seconds!r} s)")
        self._now += seconds
        return self._now


@pytest.fixture
def virtual_clock():
    return VirtualClock()


@pytest.fixture
def mock_factory(virtual_clock):
    """A VirtualMockFactory on ``virtual_clock``, installed as gpiozero's
    default for the test, then reset and the previous default restored."""
    previous = Device.pin_factory
    factory = VirtualMockFactory(virtual_clock.now)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = previous


@pytest.fixture
def mock_pin(mock_factory):
    """``mock_pin(bcm)`` -> that pin's InjectableMockPin."""
    return mock_factory.pin


@pytest.fixture
def board(mock_factory):
    """A Board on the default PinMap plus a card sensor on GPIO16."""
    with Board(PinMap(card_sensor=16), pin_factory=mock_factory) as board:
        yield board
