"""Virtual time: a core, its board on mock pins and a bench on one virtual clock.

:func:`advance` runs a core on a :class:`~firmware_host.core.clock.VirtualClock`:
it fires each deadline at its exact time, in order, and handles the events
they cause, so tests and the simulator never sleep. :class:`VirtualRig` puts
a core, its board on mock pins and a :class:`~firmware_host.core.bench.Bench`
on one such clock.
"""

from __future__ import annotations

import random

from firmware_host.core.bench import Bench, PinLevels, pin_states
from firmware_host.core.clock import VirtualClock
from firmware_host.core.machine import ShowdownCore
from hw.board import Board
from hw.mock import VirtualMockFactory

__all__ = ["VirtualRig", "advance", "run_until"]


def run_until(core, clock, when: float) -> None:
    """Move virtual ``clock`` to ``when``, firing every deadline on the way
    at its own time and handling what it causes."""
    core.pump()
    while (deadline := core.next_deadline()) is not None and deadline <= when:
        if deadline > clock():
            clock.set(deadline)
        core.pump()
    if when > clock():
        clock.set(when)
    core.pump()


def advance(core, clock, seconds: float) -> None:
    """:func:`run_until` ``seconds`` from now."""
    run_until(core, clock, clock() + seconds)


class VirtualRig:
    """A core, its board on mock pins and a bench, all on one virtual clock:
    what the tests, ``simulate`` and ``demo`` drive. ``events`` collects
    every UnitEvent. Close it (or use ``with``) to release the pins."""

    def __init__(self, config, *, seed: int = 0, start: float = 1000.0, recorder=None):
        self.config = config
        self.clock = VirtualClock(start)
        self.factory = VirtualMockFactory(self.clock)
        try:
            self.board = Board(
                config.pins, pin_factory=self.factory, lockout_s=config.timing.press_lockout_s
            )
        except BaseException:
            self.factory.close()
            raise
        try:
            self.core = ShowdownCore(
                self.board, config, clock=self.clock, rng=random.Random(seed), recorder=recorder
            )
        except BaseException:
            self.close()
            raise
        self.bench = Bench(self.core)
        self.events: list = []
        self.core.listeners = (*self.core.listeners, self.events.append)

    @property
    def state(self) -> str:
        return self.core.state

    def pins(self) -> PinLevels:
        return pin_states(self.board)

    def names(self) -> list[str]:
        """The names of the events so far (state changes left out)."""
        return [event.name for event in self.events if event.name != "state"]

    def advance(self, seconds: float) -> None:
        advance(self.core, self.clock, seconds)

    def run_until(self, when: float) -> None:
        run_until(self.core, self.clock, when)

    def close(self) -> None:
        self.board.close()
        self.factory.close()

    def __enter__(self) -> VirtualRig:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
