"""Mock pins whose edges carry a chosen tick, for tests and the bench simulator.

gpiozero's :class:`~gpiozero.pins.mock.MockPin` stamps every change with
``time.monotonic()`` at the moment of the call, so a test cannot say "A pressed
0.4 ms before B, but B's callback ran first". :class:`InjectableMockPin` can:
``drive_low(ticks=...)`` delivers the edge now, stamped with exactly that tick.
:class:`VirtualMockFactory` makes the factory's clock (and so every stamp) a
function the test controls.

>>> factory = VirtualMockFactory(lambda: 12.5)
>>> pin = factory.pin(17)
>>> pin.pull = "up"                   # idle high, like a switch to ground
>>> seen = []
>>> def changed(ticks, state): seen.append((ticks, state))
>>> pin.when_changed = changed
>>> pin.drive_low(ticks=12.0004); pin.drive_high()
>>> seen
[(12.0004, False), (12.5, True)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gpiozero.exc import PinInvalidFunction
from gpiozero.pins.mock import MockFactory, MockPWMPin, PinState

__all__ = ["InjectableMockPin", "VirtualMockFactory", "CardFeeder"]


class InjectableMockPin(MockPWMPin):
    """A PWM-capable mock pin whose state changes are stamped by the factory's
    ``ticks()`` (not ``time.monotonic()``), and whose input edges can be
    injected at an exact tick. The ``when_changed`` callback runs synchronously
    in the caller, as with gpiozero's own mock pins."""

    _state: float  # MockPin's level, or a PWM pin's duty (declared: gpiozero has no types)

    def clear_states(self) -> None:
        self._last_change = self._factory.ticks()
        self.states = [PinState(0.0, self._state)]

    def _change_state(self, value: float, ticks: float | None = None) -> bool:
        if self._state == value:
            return False
        t = self._factory.ticks() if ticks is None else ticks
        self._state = value
        self.states.append(PinState(t - self._last_change, value))
        self._last_change = t
        return True

    def drive_low(self, ticks: float | None = None) -> None:
        """Pull the input low (a switch closing to ground); the edge is stamped
        ``ticks``, or the factory's ``ticks()`` now when not given."""
        self._drive(False, ticks)

    def drive_high(self, ticks: float | None = None) -> None:
        """Let the input go high; the edge is stamped as for :meth:`drive_low`."""
        self._drive(True, ticks)

    def _drive(self, value: bool, ticks: float | None) -> None:
        if self._function != "input":
            raise PinInvalidFunction(
                f"cannot drive {self!r}: it is an {self._function}, not an input"
            )
        edge = "rising" if value else "falling"
        changed = self._change_state(value, ticks)
        if changed and self._edges in ("both", edge) and self._when_changed is not None:
            self._call_when_changed()


class VirtualMockFactory(MockFactory):
    """A :class:`~gpiozero.pins.mock.MockFactory` on a clock the caller owns:
    ``ticks()`` returns ``clock()``, and the pins (:class:`InjectableMockPin`
    by default) stamp their changes with it, so pin edges and the code under
    test share one virtual time."""

    def __init__(self, clock: Callable[[], float], *, revision=None, pin_class=InjectableMockPin):
        if not issubclass(pin_class, InjectableMockPin):
            raise ValueError(
                f"pin_class must be InjectableMockPin or a subclass, not {pin_class!r}"
            )
        self._clock = clock
        super().__init__(revision=revision, pin_class=pin_class)

    def ticks(self) -> float:
        return self._clock()


class CardFeeder:
    """Breaks a mock card sensor's beam, as cards leaving the launcher would.

    ``target`` is a :class:`~hw.board.Board` with a card sensor on mock pins,
    or the sensor's :class:`InjectableMockPin`. Each card breaks the beam (the
    pin goes low) at its tick and clears it ``dwell_s`` later. Nothing here
    runs on its own: :meth:`feed` injects now, or :meth:`load` queues cards
    that :meth:`release_due` feeds as a simulator's clock passes them.
    """

    def __init__(self, target, *, dwell_s: float = 0.002):
        pin = target
        if not isinstance(target, InjectableMockPin):
            sensor = getattr(target, "card_sensor", None)
            if sensor is None:
                raise ValueError("the board has no card sensor to feed")
            pin = sensor.pin
        if not isinstance(pin, InjectableMockPin):
            raise TypeError(f"can only feed an InjectableMockPin, not {pin!r}")
        if dwell_s <= 0:
            raise ValueError(f"dwell_s must be > 0, not {dwell_s!r}")
        self.pin = pin
        self.dwell_s = dwell_s
        self._pending: list[float] = []

    def feed(self, ticks: Iterable[float]) -> int:
        """One card per tick, in order, delivered now; returns how many."""
        count = 0
        for tick in ticks:
            self.pin.drive_low(ticks=tick)
            self.pin.drive_high(ticks=tick + self.dwell_s)
            count += 1
        return count

    def load(self, ticks: Iterable[float]) -> None:
        """Queue cards to leave at these ticks (see :meth:`release_due`)."""
        self._pending = sorted([*self._pending, *ticks])

    @property
    def pending(self) -> int:
        return len(self._pending)

    def release_due(self, now: float) -> int:
        """Feed every queued card whose tick is at or before ``now``."""
        due = [t for t in self._pending if t <= now]
        self._pending = self._pending[len(due) :]
        return self.feed(due)

    def cancel(self) -> int:
        """Drop the queued cards (the motor stopped); returns how many."""
        dropped, self._pending = len(self._pending), []
        return dropped
