"""The clocks the unit core reads: real monotonic time, or virtual time.

The core never calls ``time.monotonic()`` itself: it is given a clock, a
function returning seconds. The daemon passes :func:`time.monotonic`; tests
and the simulator pass a :class:`VirtualClock`, which only moves when told to,
so every timer is exact and no test sleeps.

>>> clock = VirtualClock(start=10.0)
>>> clock(), clock.advance(0.25), clock()
(10.0, 10.25, 10.25)
>>> clock.set(10.0)
Traceback (most recent call last):
...
ValueError: virtual time cannot go back from 10.25 to 10.0
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Clock", "monotonic", "VirtualClock"]

#: A clock is any function that returns the current time in seconds.
Clock = Callable[[], float]

#: The real clock: the same one gpiozero's mock pins and lgpio stamp edges with.
monotonic: Clock = time.monotonic


class VirtualClock:
    """Time that stands still until :meth:`advance` or :meth:`set` moves it."""

    def __init__(self, start: float = 1000.0):
        self._now = float(start)

    def __call__(self) -> float:
        return self._now

    def set(self, when: float) -> float:
        """Move to ``when`` (never backwards); returns the new time."""
        if when < self._now:
            raise ValueError(f"virtual time cannot go back from {self._now} to {when}")
        self._now = float(when)
        return self._now

    def advance(self, seconds: float) -> float:
        """Move ``seconds`` forward; returns the new time."""
        if seconds < 0:
            raise ValueError(f"cannot advance by a negative time ({seconds})")
        return self.set(self._now + seconds)

    def __repr__(self) -> str:
        return f"VirtualClock({self._now!r})"
