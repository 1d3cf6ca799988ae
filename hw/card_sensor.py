"""The optional card sensor: an IR break-beam across the launcher's mouth.

The receiver's output is open-collector: high (internal pull-up) while the
beam is whole, pulled low while a card breaks it. Each break is one card.

>>> from hw.mock import VirtualMockFactory
>>> sensor = CardSensor(16, pin_factory=VirtualMockFactory(lambda: 0.0))
>>> sensor.pin.drive_low(2.0); sensor.pin.drive_high(2.002)
>>> sensor.count, sensor.beam_broken
(1, False)

A beam made whole that was not seen broken is a card too: RPi.GPIO's
callbacks carry no level, and gpiozero may read it once the card has passed.
"""

from __future__ import annotations

from collections.abc import Callable

from gpiozero import DigitalInputDevice

__all__ = ["CardSensor"]

#: A card's ragged edge can flicker the beam; cards leave at least ~0.1 s
#: apart, so breaks closer than this are the same card.
CARD_LOCKOUT_S = 0.01


class CardSensor(DigitalInputDevice):
    """Counts cards leaving; ``on_card(ticks)`` is called on the pin
    backend's thread with the tick at which each card broke the beam."""

    def __init__(self, pin=None, *, lockout_s: float = CARD_LOCKOUT_S, pin_factory=None):
        if lockout_s < 0:
            raise ValueError(f"lockout_s must be >= 0, not {lockout_s!r}")
        self.lockout_s = lockout_s
        self.count = 0
        self.on_card: Callable[[float], None] | None = None
        self._last_card: float | None = None
        self._broken_known = False  # the level last reported (set before any callback can run)
        super().__init__(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
        self._broken_known = self.is_active  # ... or read at start

    @property
    def beam_broken(self) -> bool:
        """The live level: True while something is in the beam."""
        return self.is_active

    def reset_count(self) -> None:
        self.count = 0

    def _pin_changed(self, ticks, state):
        super()._pin_changed(ticks, state)
        broken = bool(self._state_to_value(state))
        if not broken and not self._broken_known:
            # The beam made whole, never seen broken: the backend read the level
            # after the edge (RPi.GPIO's callbacks carry none), once the card had
            # passed. That edge was the break, at this tick.
            broken = True
        self._broken_known = broken
        if not broken:
            return
        last = self._last_card
        if last is not None and self.pin_factory.ticks_diff(ticks, last) < self.lockout_s:
            return
        self._last_card = ticks
        self.count += 1
        callback = self.on_card
        if callback is not None:
            callback(ticks)
