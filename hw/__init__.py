"""The Showdown unit's devices, built on gpiozero. Imports nothing else of this project."""

from hw.board import Board
from hw.card_sensor import CardSensor
from hw.launcher import Launcher
from hw.mock import CardFeeder, InjectableMockPin, VirtualMockFactory
from hw.paddle import Paddle, TimerButton
from hw.pinmap import OPTIONAL_DEVICES, PinConflictError, PinMap
from hw.pins import PinBackendError, make_pin_factory
from hw.selftest import DeviceCheck, run_selftest

__all__ = [
    "PinMap",
    "PinConflictError",
    "OPTIONAL_DEVICES",
    "Board",
    "Paddle",
    "TimerButton",
    "Launcher",
    "CardSensor",
    "make_pin_factory",
    "PinBackendError",
    "InjectableMockPin",
    "VirtualMockFactory",
    "CardFeeder",
    "run_selftest",
    "DeviceCheck",
]
