"""The paddles and the timer button: switches that report each edge's tick.

Who slammed first is decided from the tick the pin backend stamps on each
edge, so these inputs hand that tick on untouched. gpiozero's hardware
debounce (``bounce_time``) would report a later time than the first edge;
instead, after an edge is reported the switch ignores its own further edges
for ``lockout_s`` seconds of ticks, which drops contact bounce and never moves
the first edge.

>>> from hw.mock import VirtualMockFactory
>>> factory = VirtualMockFactory(lambda: 0.0)
>>> paddle = Paddle(17, lockout_s=0.05, pin_factory=factory)
>>> edges = []
>>> paddle.on_edge = lambda ticks, pressed: edges.append((ticks, pressed))
>>> paddle.pin.drive_low(1.0)       # pressed
>>> paddle.pin.drive_high(1.0005)    # contact bounce: ignored
>>> paddle.pin.drive_low(1.001)      # ignored
>>> paddle.pin.drive_high(1.3)       # released
>>> edges
[(1.0, True), (1.3, False)]

A backend that reads the level after the edge (RPi.GPIO) may see a press's
first edge as a release, bounce having opened the contact again: a release of
a switch that is not pressed is that press, at the edge's tick.

>>> edges.clear()
>>> paddle._pin_changed(2.0, True)  # an edge, read as high (open) by then
>>> edges
[(2.0, True)]
"""

from __future__ import annotations

from collections.abc import Callable

from gpiozero import DigitalInputDevice

__all__ = ["Paddle", "TimerButton"]


class Paddle(DigitalInputDevice):
    """A switch to ground on ``pin`` (internal pull-up: pressed reads low).

    ``on_edge(ticks, pressed)`` is called, on the pin backend's thread, for
    every press and release edge that is not within ``lockout_s`` of the last
    reported one. After a lockout the edges come as they are: two presses in
    a row mean the release between them fell inside the lockout.
    """

    def __init__(self, pin=None, *, lockout_s: float = 0.05, pin_factory=None):
        if lockout_s < 0:
            raise ValueError(f"lockout_s must be >= 0, not {lockout_s!r}")
        self.lockout_s = lockout_s
        self.on_edge: Callable[[float, bool], None] | None = None
        self._last_reported: float | None = None
        super().__init__(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
        self._pressed_known = self.is_pressed  # the level the last report left it at

    @property
    def is_pressed(self) -> bool:
        """The live pin level: True while the switch is closed."""
        return self.is_active

    def _pin_changed(self, ticks, state):
        super()._pin_changed(ticks, state)
        last = self._last_reported
        if last is not None and self.pin_factory.ticks_diff(ticks, last) < self.lockout_s:
            return
        self._last_reported = ticks
        pressed = bool(self._state_to_value(state))
        if not pressed and not self._pressed_known:
            # A release of a switch that is not pressed: the backend read the level
            # after the edge (RPi.GPIO's callbacks carry none), when contact bounce
            # had it open again. The edge itself was the press, at this tick.
            pressed = True
        self._pressed_known = pressed
        self._edge(ticks, pressed)

    def _edge(self, ticks: float, pressed: bool) -> None:
        callback = self.on_edge
        if callback is not None:
            callback(ticks, pressed)


class TimerButton(Paddle):
    """The same switch, of which only presses matter: ``on_press(ticks)``.

    Releases still start the lockout, so a bouncing release makes no press.
    """

    def __init__(self, pin=None, *, lockout_s: float = 0.05, pin_factory=None):
        self.on_press: Callable[[float], None] | None = None
        super().__init__(pin, lockout_s=lockout_s, pin_factory=pin_factory)

    def _edge(self, ticks: float, pressed: bool) -> None:
        super()._edge(ticks, pressed)
        callback = self.on_press
        if pressed and callback is not None:
            callback(ticks)
