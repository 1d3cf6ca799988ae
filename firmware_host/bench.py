"""The mock bench: paddle and timer-button edges at exact ticks, and virtual time.

On mock pins (:class:`hw.mock.InjectableMockPin`) the bench plays the players:
it drives a paddle's pin low (pressed) or high (released) with a chosen tick,
and can deliver that edge's callback later than its tick, as a busy pin
backend does. Edges are deadlines in the core's loop, so they interleave with
the machine's own timers exactly. A press can be placed relative to GO
(``offset_s``, negative for a false start): the core decides the hold length
when the countdown starts, so GO's time is known from the first step; once GO
happens, edges not yet delivered are placed on the real GO tick. When the
showdown ends, presses timed from its GO that have not come yet are dropped
(releases still come), so no paddle is left held for the next start.

On mock pins the pin ticks and the core's clock are the same clock, which is
what lets the bench turn a tick into a delivery time.

:func:`advance` runs a core on a :class:`~firmware_host.clock.VirtualClock`:
it fires each deadline at its exact time, in order, and handles the events
they cause, so tests and the simulator never sleep.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass

from hw.board import Board
from hw.mock import InjectableMockPin, VirtualMockFactory

from firmware_host.clock import VirtualClock
from firmware_host.errors import InvalidArgumentError, NotMockError
from firmware_host.machine import ShowdownCore

__all__ = ["Bench", "VirtualRig", "advance", "run_until", "pin_states"]

#: States in which a round (and so a planned or real GO) exists.
_ROUND_STATES = ("countdown", "hold", "go", "false_start")


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


@dataclass
class _Edge:
    target: str             # "a", "b" or "timer"
    pressed: bool
    offset_s: float | None  # relative to GO, or None
    tick: float | None      # absolute tick, or None (now / from offset_s)
    delay_s: float          # delivery comes this long after the tick


class Bench:
    """Edges for the paddles and the timer button of ``core``'s board.

    Every method runs on the core's thread (the unit sends them through its
    loop). Without mock pins each raises :class:`NotMockError`.
    """

    def __init__(self, core):
        self.core = core
        board = core.board
        pins = {"a": board.paddle_a.pin, "b": board.paddle_b.pin,
                "timer": board.timer_button.pin}
        self.pins = pins if all(isinstance(p, InjectableMockPin) for p in pins.values()) else None
        self._waiting: list[_Edge] = []        # offset edges waiting for a countdown
        self._anchored: dict[str, _Edge] = {}  # offset edges placed on a planned GO
        self._of_round: dict[str, _Edge] = {}  # every offset edge not yet delivered
        self._names = itertools.count()
        core.listeners = (*core.listeners, self._on_event)

    @property
    def available(self) -> bool:
        return self.pins is not None

    def press(self, side: str, *, offset_s: float | None = None, tick: float | None = None,
              delay_s: float = 0.0) -> dict:
        """Press paddle ``side``: now, at ``offset_s`` from GO, or at ``tick``;
        the callback is delivered ``delay_s`` after the tick."""
        return self._add(_Edge(self._side(side), True, *self._when(offset_s, tick, delay_s)))

    def release(self, side: str, *, offset_s: float | None = None, tick: float | None = None,
                delay_s: float = 0.0) -> dict:
        """Release paddle ``side``; times as for :meth:`press`."""
        return self._add(_Edge(self._side(side), False, *self._when(offset_s, tick, delay_s)))

    def tap(self, side: str, hold_s: float = 0.15) -> dict:
        """Press paddle ``side`` now and release it ``hold_s`` later."""
        placed = self.press(side)
        self.release(side, tick=placed["tick"] + self._number("hold_s", hold_s, minimum=0.0))
        return placed

    def press_timer(self) -> dict:
        """Press (and let go of) the timer button now."""
        self._check_mock()
        return self._add(_Edge("timer", True, None, None, 0.0))

    # -- placing edges ---------------------------------------------------------

    def _check_mock(self) -> None:
        if self.pins is None:
            raise NotMockError("the bench needs mock pins (backend \"mock\" or --mock)")

    def _side(self, side) -> str:
        self._check_mock()
        if side not in ("a", "b"):
            raise InvalidArgumentError(f"side must be 'a' or 'b', not {side!r}")
        return side

    @staticmethod
    def _number(name: str, value, *, minimum: float | None = None) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InvalidArgumentError(f"{name} must be a number of seconds, not {value!r}")
        if minimum is not None and value < minimum:
            raise InvalidArgumentError(f"{name} must be >= {minimum}, not {value!r}")
        return float(value)

    def _when(self, offset_s, tick, delay_s) -> tuple:
        if offset_s is not None and tick is not None:
            raise InvalidArgumentError("give offset_s or tick, not both")
        if offset_s is not None:
            offset_s = self._number("offset_s", offset_s)
        if tick is not None:
            tick = self._number("tick", tick)
        return offset_s, tick, self._number("delay_s", delay_s, minimum=0.0)

    def _add(self, edge: _Edge) -> dict:
        core = self.core
        if edge.offset_s is None:
            tick = core.board.ticks() if edge.tick is None else edge.tick
            return self._deliver(edge, tick, tick + edge.delay_s)
        if core.round is not None and core.state in _ROUND_STATES:
            return self._anchor(edge)
        self._waiting.append(edge)
        return {"target": edge.target, "pressed": edge.pressed, "waiting_for": "countdown"}

    def _anchor(self, edge: _Edge, name: str | None = None) -> dict:
        rnd = self.core.round
        if rnd.go_tick is not None:
            base_tick, base_time = rnd.go_tick, rnd.go_time
        else:
            base_tick = base_time = rnd.planned_go
        placed = self._deliver(edge, base_tick + edge.offset_s,
                               base_time + edge.offset_s + edge.delay_s, name)
        if "deadline" in placed:
            self._of_round[placed["deadline"]] = edge
            if rnd.go_tick is None:
                self._anchored[placed["deadline"]] = edge
        return placed

    def _deliver(self, edge: _Edge, tick: float, when: float, name: str | None = None) -> dict:
        placed = {"target": edge.target, "pressed": edge.pressed, "tick": tick}
        if when <= self.core.clock():
            self._drive(edge, tick)
            return placed
        name = name or f"bench:{next(self._names)}"
        self.core.schedule(name, when, lambda: self._drive(edge, tick))
        return {**placed, "deadline": name, "deliver_at": when}

    def _drive(self, edge: _Edge, tick: float) -> None:
        self._anchored = {name: e for name, e in self._anchored.items() if e is not edge}
        self._of_round = {name: e for name, e in self._of_round.items() if e is not edge}
        pin = self.pins[edge.target]
        if edge.target == "timer":
            pin.drive_low(ticks=tick)
            pin.drive_high(ticks=tick)     # let go at once; the button's lockout drops it
        elif edge.pressed:
            pin.drive_low(ticks=tick)
        else:
            pin.drive_high(ticks=tick)

    def _on_event(self, event) -> None:
        if event.name == "state" and event.data["state"] == "idle":
            # The showdown is over: a press timed from its GO that has not come
            # yet never will (it would hold the paddle at the next start);
            # releases still come, so the paddles end up at rest.
            late = [name for name, edge in self._of_round.items() if edge.pressed]
            self.core.unschedule(*late)
            self._of_round, self._anchored = {}, {}
        elif event.name == "countdown" and event.data["step"] == 1:
            waiting, self._waiting = self._waiting, []
            for edge in waiting:
                self._anchor(edge)
        elif event.name == "go":
            rnd = self.core.round
            anchored, self._anchored = self._anchored, {}
            if rnd.go_tick == rnd.planned_go and rnd.go_time == rnd.planned_go:
                return                      # virtual time: GO came exactly as planned
            for name, edge in anchored.items():
                if self.core.has_deadline(name):
                    self._anchor(edge, name)


def pin_states(board) -> dict:
    """The output pins' levels as they are now: the LED bar (1 = lit), GO,
    arrows, buzzer, the H-bridge direction pins and the enable pin's PWM duty."""
    def level(device):
        return 0 if device is None else int(bool(device.pin.state))

    launcher = board.launcher
    return {
        "bar": tuple(level(led) for led in board.countdown_leds),
        "go": level(board.go_led),
        "arrow_a": level(board.arrow_a),
        "arrow_b": level(board.arrow_b),
        "buzzer": level(board.buzzer),
        "motor_a": level(launcher.toward_a),
        "motor_b": level(launcher.toward_b),
        "duty": float(launcher.enable.pin.state),
    }


class VirtualRig:
    """A core, its board on mock pins and a bench, all on one virtual clock:
    what the tests, ``simulate`` and ``demo`` drive. ``events`` collects
    every UnitEvent. Close it (or use ``with``) to release the pins."""

    def __init__(self, config, *, seed: int = 0, start: float = 1000.0, on_result=None):
        self.config = config
        self.clock = VirtualClock(start)
        self.factory = VirtualMockFactory(self.clock)
        self.board = None
        try:
            self.board = Board(config.pins, pin_factory=self.factory,
                               lockout_s=config.timing.press_lockout_s)
            self.core = ShowdownCore(self.board, config, clock=self.clock,
                                     rng=random.Random(seed), on_result=on_result)
        except BaseException:
            self.close()
            raise
        self.bench = Bench(self.core)
        self.events: list = []
        self.core.listeners = (*self.core.listeners, self.events.append)

    @property
    def state(self) -> str:
        return self.core.state

    def pins(self) -> dict:
        return pin_states(self.board)

    def names(self) -> list[str]:
        """The names of the events so far (state changes left out)."""
        return [event.name for event in self.events if event.name != "state"]

    def advance(self, seconds: float) -> None:
        advance(self.core, self.clock, seconds)

    def run_until(self, when: float) -> None:
        run_until(self.core, self.clock, when)

    def close(self) -> None:
        if self.board is not None:
            self.board.close()
        self.factory.close()

    def __enter__(self) -> "VirtualRig":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
