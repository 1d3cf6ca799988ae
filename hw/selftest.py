"""A bench check of every device: light each output in turn, run the motor
briefly both ways, and check that every input reads idle.

Outputs are verified by reading the pin back while on and after off. On mock
pins that is the whole truth; on a Pi it only proves the GPIO drives the level,
so the details ask the builder to watch and listen as well.

>>> from hw.board import Board
>>> from hw.mock import VirtualMockFactory
>>> from hw.pinmap import PinMap
>>> with Board(PinMap(), pin_factory=VirtualMockFactory(lambda: 0.0)) as board:
...     checks = run_selftest(board, sleep=lambda seconds: None)
>>> [check.name for check in checks if check.ok][:4], all(check.ok for check in checks)
(['paddle_a', 'paddle_b', 'timer_button', 'countdown_leds[0]'], True)
>>> checks[-1]
DeviceCheck(name='card_sensor', ok=True, detail='not fitted (pins.card_sensor is empty)')
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass

from gpiozero.pins.mock import MockPin

from hw.card_sensor import CardSensor
from hw.launcher import Launcher
from hw.paddle import Paddle

__all__ = ["DeviceCheck", "run_selftest", "selftest_steps", "LIGHT_S", "MOTOR_SPEED", "MOTOR_S"]

LIGHT_S = 0.25  # each light and the buzzer stay on this long, to be seen
MOTOR_SPEED = 0.3  # slow enough that a loaded launcher does not throw far
MOTOR_S = 0.2  # per direction

_REAL_PIN_NOTE = "; a read-back cannot see a dead part: watch and listen"


@dataclass(frozen=True)
class DeviceCheck:
    """One device's result; ``name`` is the PinMap's name for it."""

    name: str
    ok: bool
    detail: str

    def to_dict(self) -> dict:
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


#: What a selftest is, step by step: it yields how long to wait (seconds)
#: with something switched on, and returns the checks.
Steps = Generator[float, None, list[DeviceCheck]]
# One device's part of it: the same waits, and that device's check.
_DeviceSteps = Generator[float, None, DeviceCheck]


def run_selftest(board, sleep: Callable[[float], None] = time.sleep) -> list[DeviceCheck]:
    """Check every device of ``board`` in PinMap order, one entry each; absent
    optional devices are listed as not fitted. The outputs end safe. An
    exception from ``sleep`` lands in the device being checked."""
    steps = selftest_steps(board)
    try:
        wait = next(steps)
        while True:
            try:
                sleep(wait)
            except BaseException as exc:
                wait = steps.throw(exc)
            else:
                wait = steps.send(None)
    except StopIteration as done:
        return done.value


def selftest_steps(board) -> Steps:
    """:func:`run_selftest` as a generator, for a caller that waits in its
    own way (the unit's event loop waits on deadlines, so it keeps answering).
    Closing the generator part-way leaves the outputs safe."""
    checks: list[DeviceCheck] = []
    try:
        board.safe()
        for name, device in board.devices():
            try:
                checks.append((yield from _check(name, device)))
            except Exception as exc:
                checks.append(DeviceCheck(name, False, f"error: {exc}"))
    finally:
        board.safe()
    for name in ("buzzer", "card_sensor"):
        if getattr(board.pins, name) is None:
            checks.append(DeviceCheck(name, True, f"not fitted (pins.{name} is empty)"))
    return checks


def _check(name: str, device) -> _DeviceSteps:
    if isinstance(device, Paddle):
        return _check_switch(name, device)
    if isinstance(device, CardSensor):
        return _check_beam(name, device)
    if isinstance(device, Launcher):
        return (yield from _check_launcher(name, device))
    return (yield from _check_output(name, device))


def _note(pin) -> str:
    return " (mock pin)" if isinstance(pin, MockPin) else _REAL_PIN_NOTE


def _level(state) -> str:
    return "high" if state else "low"


def _check_switch(name: str, switch: Paddle) -> DeviceCheck:
    if switch.is_pressed:
        return DeviceCheck(
            name,
            False,
            f"{switch.pin!r} reads pressed (low): release it, or look for a short to ground",
        )
    return DeviceCheck(name, True, f"{switch.pin!r} idle (high, not pressed)")


def _check_beam(name: str, sensor: CardSensor) -> DeviceCheck:
    if sensor.beam_broken:
        return DeviceCheck(
            name,
            False,
            f"{sensor.pin!r} beam broken (low): clear the card "
            "path, check the emitter's power and alignment",
        )
    return DeviceCheck(name, True, f"{sensor.pin!r} beam whole (high)")


def _check_output(name: str, device) -> _DeviceSteps:
    pin = device.pin
    device.on()
    try:
        yield LIGHT_S
        on_state = pin.state
    finally:
        device.off()
    off_state = pin.state
    ok = bool(on_state) and not off_state
    return DeviceCheck(
        name,
        ok,
        f"{pin!r} read back {_level(on_state)} while on, {_level(off_state)} after{_note(pin)}",
    )


def _check_launcher(name: str, launcher: Launcher) -> _DeviceSteps:
    pins = (launcher.toward_a.pin, launcher.toward_b.pin, launcher.enable.pin)
    parts, ok = [], True
    try:
        for side, expected in (("a", (1, 0)), ("b", (0, 1))):
            launcher.launch_toward(side, MOTOR_SPEED)
            yield MOTOR_S
            a, b, duty = (pin.state for pin in pins)
            good = (bool(a), bool(b)) == tuple(map(bool, expected)) and math.isclose(
                duty, MOTOR_SPEED, abs_tol=0.01
            )
            ok = ok and good
            parts.append(
                f"toward {side}: {pins[0]!r}={int(bool(a))} {pins[1]!r}={int(bool(b))} "
                f"{pins[2]!r} duty {duty:.2f}{'' if good else ' WRONG'}"
            )
    finally:
        launcher.stop()
    stopped = [pin.state for pin in pins]
    if any(stopped):
        ok = False
        parts.append(
            "did not stop: "
            + " ".join(f"{pin!r}={state}" for pin, state in zip(pins, stopped, strict=True))
        )
    else:
        parts.append("stopped")
    return DeviceCheck(name, ok, ", ".join(parts) + _note(pins[0]))
