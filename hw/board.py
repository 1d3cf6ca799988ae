"""The whole unit's hardware as one object, built from a :class:`~hw.pinmap.PinMap`.

>>> from hw.mock import VirtualMockFactory
>>> from hw.pinmap import PinMap
>>> with Board(PinMap(), pin_factory=VirtualMockFactory(lambda: 5.0)) as board:
...     presses = []
...     board.on_paddle_edge = lambda side, ticks, pressed: presses.append((side, ticks, pressed))
...     board.paddle_b.pin.drive_low(ticks=4.9996)
...     board.show_countdown(2)
...     presses, [led.is_lit for led in board.countdown_leds], board.paddle_is_pressed("b")
([('b', 4.9996, True)], [True, True, False], True)
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator

from gpiozero import LED, Buzzer

from hw.card_sensor import CardSensor
from hw.launcher import Launcher, check_side
from hw.paddle import Paddle, TimerButton
from hw.pinmap import PinMap

__all__ = ["Board"]

log = logging.getLogger(__name__)


class Board:
    """Every device of the unit; outputs start off and the motor stopped.

    Callbacks run on the pin backend's thread and should only enqueue:
    ``on_paddle_edge(side, ticks, pressed)``, ``on_timer_button(ticks)``
    (presses only), ``on_card(ticks)``. Keep a reference to the board: pins
    hold their callbacks weakly.
    """

    def __init__(self, pins: PinMap, *, pin_factory=None, lockout_s: float = 0.05):
        self.pins = pins
        self.on_paddle_edge: Callable[[str, float, bool], None] | None = None
        self.on_timer_button: Callable[[float], None] | None = None
        self.on_card: Callable[[float], None] | None = None
        # The devices are None until _build makes them (buzzer and card_sensor stay
        # None if not fitted); a board that fails to build never escapes __init__.
        self.launcher: Launcher | None = None
        self.countdown_leds: tuple[LED, ...] = ()
        self.go_led: LED | None = None
        self.arrow_a: LED | None = None
        self.arrow_b: LED | None = None
        self.buzzer: Buzzer | None = None
        self.paddle_a: Paddle | None = None
        self.paddle_b: Paddle | None = None
        self.timer_button: TimerButton | None = None
        self.card_sensor: CardSensor | None = None
        self.pin_factory = pin_factory
        self._built: list = []
        self._closed = False
        try:
            self._build(pins, pin_factory, lockout_s)
        except BaseException:
            try:
                self.close()
            except Exception:
                log.exception("closing a half-built board failed")
            raise

    def _build(self, pins: PinMap, factory, lockout_s: float) -> None:
        def add(device):
            self._built.append(device)
            return device

        # The motor first: it is the part that can do harm while the rest is built.
        self.launcher = add(
            Launcher(pins.motor_a, pins.motor_b, pins.motor_enable, pin_factory=factory)
        )
        self.pin_factory = self.launcher.enable.pin_factory
        leds = []
        for pin in pins.countdown_leds:
            leds.append(add(LED(pin, initial_value=False, pin_factory=factory)))
            self.countdown_leds = tuple(leds)
        self.go_led = add(LED(pins.go_led, initial_value=False, pin_factory=factory))
        self.arrow_a = add(LED(pins.arrow_a, initial_value=False, pin_factory=factory))
        self.arrow_b = add(LED(pins.arrow_b, initial_value=False, pin_factory=factory))
        if pins.buzzer is not None:
            self.buzzer = add(Buzzer(pins.buzzer, initial_value=False, pin_factory=factory))
        self.paddle_a = add(Paddle(pins.paddle_a, lockout_s=lockout_s, pin_factory=factory))
        self.paddle_a.on_edge = functools.partial(self._paddle_edge, "a")
        self.paddle_b = add(Paddle(pins.paddle_b, lockout_s=lockout_s, pin_factory=factory))
        self.paddle_b.on_edge = functools.partial(self._paddle_edge, "b")
        self.timer_button = add(
            TimerButton(pins.timer_button, lockout_s=lockout_s, pin_factory=factory)
        )
        self.timer_button.on_press = self._timer_pressed
        if pins.card_sensor is not None:
            self.card_sensor = add(CardSensor(pins.card_sensor, pin_factory=factory))
            self.card_sensor.on_card = self._card_seen

    # -- inputs ---------------------------------------------------------------

    def _paddle_edge(self, side: str, ticks: float, pressed: bool) -> None:
        callback = self.on_paddle_edge
        if callback is not None:
            callback(side, ticks, pressed)

    def _timer_pressed(self, ticks: float) -> None:
        callback = self.on_timer_button
        if callback is not None:
            callback(ticks)

    def _card_seen(self, ticks: float) -> None:
        callback = self.on_card
        if callback is not None:
            callback(ticks)

    def paddle(self, side: str) -> Paddle:
        paddle = self.paddle_a if check_side(side) == "a" else self.paddle_b
        assert paddle is not None  # built in __init__
        return paddle

    def paddle_is_pressed(self, side: str) -> bool:
        """The live pin level of paddle ``side`` ("a" or "b")."""
        return self.paddle(side).is_pressed

    @property
    def has_card_sensor(self) -> bool:
        return self.card_sensor is not None

    def ticks(self) -> float:
        """The pin backend's clock now, comparable with edge ticks."""
        return self.pin_factory.ticks()

    def ticks_diff(self, later: float, earlier: float) -> float:
        """Seconds from ``earlier`` to ``later``; the only way to compare ticks."""
        return self.pin_factory.ticks_diff(later, earlier)

    # -- outputs --------------------------------------------------------------

    @property
    def countdown_length(self) -> int:
        return len(self.countdown_leds)

    def show_countdown(self, lit: int) -> None:
        """Light the first ``lit`` LEDs of the bar and turn the rest off."""
        if (
            isinstance(lit, bool)
            or not isinstance(lit, int)
            or not 0 <= lit <= self.countdown_length
        ):
            raise ValueError(f"lit must be a whole number 0-{self.countdown_length}, not {lit!r}")
        for index, led in enumerate(self.countdown_leds):
            led.value = index < lit

    def set_go(self, on: bool) -> None:
        assert self.go_led is not None  # built in __init__
        self.go_led.value = bool(on)

    def set_arrow(self, side: str | None) -> None:
        """Light the false-start arrow toward ``side``; None turns both off."""
        arrow_a, arrow_b = self.arrow_a, self.arrow_b
        assert arrow_a is not None and arrow_b is not None  # built in __init__
        if side is None:
            arrow_a.off()
            arrow_b.off()
            return
        on, off = (arrow_a, arrow_b) if check_side(side) == "a" else (arrow_b, arrow_a)
        off.off()
        on.on()

    def set_buzzer(self, on: bool) -> None:
        """Sound the buzzer; does nothing on a unit without one."""
        if self.buzzer is not None:
            self.buzzer.value = bool(on)

    def safe(self) -> None:
        """Motor stopped first, then every LED and the buzzer off.

        Every step is tried even if one fails; the first failure is re-raised.
        """
        steps = []
        if self.launcher is not None:
            steps.append(self.launcher.stop)
        for light in (*self.countdown_leds, self.go_led, self.arrow_a, self.arrow_b, self.buzzer):
            if light is not None:
                steps.append(light.off)
        _run_all(steps)

    def devices(self) -> Iterator[tuple[str, object]]:
        """(name, gpiozero device) for every fitted device, in PinMap order;
        the names are the PinMap's (``countdown_leds[0]``, ..., ``launcher``)."""
        yield "paddle_a", self.paddle_a
        yield "paddle_b", self.paddle_b
        yield "timer_button", self.timer_button
        for index, led in enumerate(self.countdown_leds):
            yield f"countdown_leds[{index}]", led
        yield "go_led", self.go_led
        yield "arrow_a", self.arrow_a
        yield "arrow_b", self.arrow_b
        if self.buzzer is not None:
            yield "buzzer", self.buzzer
        yield "launcher", self.launcher
        if self.card_sensor is not None:
            yield "card_sensor", self.card_sensor

    # -- lifetime -------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Make the outputs safe, then release every pin; safe to call twice
        and on a half-built board. Every step is tried; the first failure is
        re-raised at the end."""
        if self._closed:
            return
        self._closed = True
        _run_all([self.safe, *(device.close for device in self._built)])

    def __enter__(self) -> Board:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<hw.Board {state} {self.pins!r}>"


def _run_all(steps) -> None:
    first = None
    for step in steps:
        try:
            step()
        except Exception as exc:
            log.error("%s failed: %s", getattr(step, "__qualname__", step), exc)
            if first is None:
                first = exc
    if first is not None:
        raise first
