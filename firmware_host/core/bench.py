"""The mock bench: paddle and timer-button edges at exact ticks.

On mock pins (:class:`hw.mock.InjectableMockPin`) the bench plays the players:
it drives a paddle's pin low (pressed) or high (released) with a chosen tick,
and can deliver that edge's callback later than its tick, as a busy pin
backend does. Edges are deadlines in the core's loop, so they interleave with
the machine's own timers exactly.

An edge comes now, at an absolute pin ``tick``, or at ``offset_s`` from GO.
From GO means from the real GO tick: an edge at or after GO (offset >= 0)
waits for the "go" event and is placed on the GO tick then, so a press at
offset 0 is a valid press on the GO tick, never a false start. An edge before
GO (offset < 0) is placed on the planned GO, which the core draws when the
countdown starts; if GO then comes off plan (real time), what has not been
delivered yet moves onto the real GO tick. A round that ends in a false start
never has a GO: what waits for it is placed on its planned GO.

Edges timed from GO belong to the showdown they were placed for (one placed
while idle or armed, to the next countdown's). When that showdown ends,
cancelled in any state or finished, those still to come are dropped, and a
paddle that one of its presses left down is let go, so nothing of it reaches
the next showdown.

A press lets go by itself :data:`PRESS_HOLD_S` after its tick unless it asks
to be held (``hold=True``); a later edge on the same paddle replaces that
release. Bench times are bounded (:data:`BENCH_HORIZON_S`,
:data:`MAX_DELAY_S`): a time beyond them, or not finite, is an
:class:`~firmware_host.core.errors.InvalidArgumentError` and places nothing.

On mock pins the pin ticks and the core's clock are the same clock, which is
what lets the bench turn a tick into a delivery time.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TypedDict

from firmware_host.core.errors import InvalidArgumentError, NotMockError
from firmware_host.protocol import RUNNING_STATES, SIDES
from hw.mock import InjectableMockPin

__all__ = ["Bench", "PinLevels", "pin_states", "BENCH_HORIZON_S", "MAX_DELAY_S", "PRESS_HOLD_S"]

#: How far a bench time may lie from GO (``offset_s``) or from now (``tick``),
#: either way, in seconds.
BENCH_HORIZON_S = 600.0
#: The longest an edge's callback may come after its tick (``delay_s``).
MAX_DELAY_S = 10.0
#: How long a press holds its paddle down before it lets go by itself.
PRESS_HOLD_S = 0.15

#: States a showdown ends from when the core goes back to idle.
_SHOWDOWN_STATES = ("armed", *RUNNING_STATES, "fault")


@dataclass(eq=False)
class _Edge:
    target: str  # "a", "b" or "timer"
    pressed: bool
    offset_s: float | None  # from GO (the edge then belongs to a showdown), or None
    tick: float | None  # an absolute tick, or None (now / from offset_s)
    delay_s: float  # delivery comes this long after the tick
    hold_s: float | None = None  # a press lets go this long after; None: held

    @property
    def of_showdown(self) -> bool:
        return self.offset_s is not None


class Bench:
    """Edges for the paddles and the timer button of ``core``'s board.

    Every method runs on the core's thread (the unit sends them through its
    loop). Without mock pins each raises :class:`NotMockError`.
    """

    def __init__(self, core):
        self.core = core
        board = core.board
        pins = {"a": board.paddle_a.pin, "b": board.paddle_b.pin, "timer": board.timer_button.pin}
        self.pins = pins if all(isinstance(p, InjectableMockPin) for p in pins.values()) else None
        self._for_countdown: list[_Edge] = []  # from GO, placed before any countdown
        self._for_go: list[_Edge] = []  # offset >= 0, waiting for this round's GO
        self._anchored: dict[str, _Edge] = {}  # placed on a planned GO, not delivered yet
        self._of_showdown: set[str] = set()  # deadlines of the showdown's edges
        self._let_go: dict[str, str] = {}  # paddle -> deadline of its automatic release
        self._left_down: set[str] = set()  # paddles a showdown's press holds down
        self._names = itertools.count()
        core.listeners = (*core.listeners, self._on_event)

    @property
    def available(self) -> bool:
        return self.pins is not None

    def press(
        self,
        side: str,
        *,
        offset_s: float | None = None,
        tick: float | None = None,
        delay_s: float = 0.0,
        hold: bool = False,
    ) -> dict:
        """Press paddle ``side``: now, at ``offset_s`` from GO, or at ``tick``;
        the callback is delivered ``delay_s`` after the tick. It lets go
        :data:`PRESS_HOLD_S` later unless ``hold`` is true.

        Returns what was placed: target, pressed, tick, and deadline and
        deliver_at when it comes later, release_tick when it lets go by
        itself; or ``waiting_for`` ("countdown" or "go") and
        ``release_after_s`` when its tick is not known yet."""
        side = self._side(side)
        if not isinstance(hold, bool):
            raise InvalidArgumentError(f"hold must be True or False, not {hold!r}")
        when = self._when(offset_s, tick, delay_s)
        return self._add(_Edge(side, True, *when, None if hold else PRESS_HOLD_S))

    def release(
        self,
        side: str,
        *,
        offset_s: float | None = None,
        tick: float | None = None,
        delay_s: float = 0.0,
    ) -> dict:
        """Release paddle ``side``; times as for :meth:`press`."""
        side = self._side(side)
        return self._add(_Edge(side, False, *self._when(offset_s, tick, delay_s)))

    def tap(self, side: str, hold_s: float = PRESS_HOLD_S) -> dict:
        """Press paddle ``side`` now and let go ``hold_s`` later."""
        side = self._side(side)
        hold_s = self._seconds("hold_s", hold_s, 0.0, BENCH_HORIZON_S)
        return self._add(_Edge(side, True, None, None, 0.0, hold_s))

    def press_timer(self) -> dict:
        """Press (and let go of) the timer button now."""
        self._check_mock()
        return self._add(_Edge("timer", True, None, None, 0.0))

    # -- checking times ----------------------------------------------------------

    def _check_mock(self) -> None:
        if self.pins is None:
            raise NotMockError('the bench needs mock pins (backend "mock" or --mock)')

    def _side(self, side) -> str:
        self._check_mock()
        if side not in SIDES:
            raise InvalidArgumentError(f"side must be 'a' or 'b', not {side!r}")
        return side

    @staticmethod
    def _is_seconds(value) -> bool:
        return (
            not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
        )

    @classmethod
    def _seconds(cls, name: str, value, lo: float, hi: float) -> float:
        if not (cls._is_seconds(value) and lo <= value <= hi):
            raise InvalidArgumentError(
                f"{name} must be a number of seconds from {lo:g} to {hi:g}, not {value!r}"
            )
        return float(value)

    def _when(self, offset_s, tick, delay_s) -> tuple[float | None, float | None, float]:
        """The checked ``offset_s``, ``tick`` and ``delay_s``, as _Edge takes them."""
        if offset_s is not None and tick is not None:
            raise InvalidArgumentError("give offset_s or tick, not both")
        if offset_s is not None:
            offset_s = self._seconds("offset_s", offset_s, -BENCH_HORIZON_S, BENCH_HORIZON_S)
        if tick is not None:
            now = self.core.board.ticks()
            if not (
                self._is_seconds(tick)
                and abs(self.core.board.ticks_diff(tick, now)) <= BENCH_HORIZON_S
            ):
                raise InvalidArgumentError(
                    f"tick must be a pin tick within {BENCH_HORIZON_S:g} s of now, not {tick!r}"
                )
            tick = float(tick)
        return offset_s, tick, self._seconds("delay_s", delay_s, 0.0, MAX_DELAY_S)

    # -- placing edges -------------------------------------------------------------

    def _add(self, edge: _Edge) -> dict:
        core = self.core
        offset_s = edge.offset_s
        if offset_s is None:  # now or at a tick: not of a showdown
            tick = core.board.ticks() if edge.tick is None else edge.tick
            return self._deliver(edge, tick, tick + edge.delay_s)
        rnd = core.round
        if rnd is None:
            self._for_countdown.append(edge)
            return self._waiting(edge, "countdown")
        if rnd.go_tick is not None:
            return self._deliver(edge, *self._on(edge, rnd.go_tick, rnd.go_time))
        if offset_s >= 0 and core.state in ("countdown", "hold"):
            self._for_go.append(edge)
            return self._waiting(edge, "go")
        return self._on_planned_go(edge)

    @staticmethod
    def _waiting(edge: _Edge, event: str) -> dict:
        placed = {"target": edge.target, "pressed": edge.pressed, "waiting_for": event}
        if edge.pressed and edge.hold_s is not None:
            placed["release_after_s"] = edge.hold_s
        return placed

    @staticmethod
    def _on(edge: _Edge, base_tick: float, base_time: float) -> tuple[float, float]:
        """The edge's tick and delivery time with GO at ``base_tick`` / ``base_time``."""
        offset_s = edge.offset_s
        assert offset_s is not None  # only a showdown's edges are timed from GO
        return base_tick + offset_s, base_time + offset_s + edge.delay_s

    def _on_planned_go(self, edge: _Edge, name: str | None = None) -> dict:
        planned = self.core.round.planned_go
        placed = self._deliver(edge, *self._on(edge, planned, planned), name)
        if "deadline" in placed:
            self._anchored[placed["deadline"]] = edge
        return placed

    def _deliver(self, edge: _Edge, tick: float, when: float, name: str | None = None) -> dict:
        placed = {"target": edge.target, "pressed": edge.pressed, "tick": tick}
        if edge.target != "timer" and edge.pressed and edge.hold_s is not None:
            placed["release_tick"] = tick + edge.hold_s
        if when <= self.core.clock():
            self._drive(edge, tick, when)
            return placed
        name = name or f"bench:{next(self._names)}"
        self.core.schedule(name, when, lambda: self._drive(edge, tick, when, name))
        if edge.of_showdown:
            self._of_showdown.add(name)
        return {**placed, "deadline": name, "deliver_at": when}

    def _drive(self, edge: _Edge, tick: float, when: float, name: str | None = None) -> None:
        if name is not None:
            self._anchored.pop(name, None)
            self._of_showdown.discard(name)
        pins = self.pins
        assert pins is not None  # edges are only placed on mock pins
        pin = pins[edge.target]
        if edge.target == "timer":
            pin.drive_low(ticks=tick)
            pin.drive_high(ticks=tick)  # let go at once; the button's lockout drops it
            return
        # This edge replaces the paddle's pending automatic release.
        replaced = self._let_go.pop(edge.target, None)
        if replaced is not None and replaced != name:
            self.core.unschedule(replaced)
            self._of_showdown.discard(replaced)
        if edge.pressed:
            pin.drive_low(ticks=tick)
            if edge.of_showdown:
                self._left_down.add(edge.target)
            else:
                self._left_down.discard(edge.target)
            self._let_go_later(edge, tick, when)
        else:
            pin.drive_high(ticks=tick)
            self._left_down.discard(edge.target)

    def _let_go_later(self, press: _Edge, tick: float, when: float) -> None:
        if press.hold_s is None:
            return  # held: only a release edge lets go
        # The release keeps the press's delivery delay, and its showdown.
        release = _Edge(press.target, False, press.offset_s, None, 0.0)
        delivered = max(when, self.core.clock())
        placed = self._deliver(release, tick + press.hold_s, delivered + press.hold_s)
        if "deadline" in placed:
            self._let_go[press.target] = placed["deadline"]

    # -- following the showdown ---------------------------------------------------------

    def _on_event(self, event) -> None:
        if event.name == "state":
            state = event.data["state"]
            if state == "idle" and event.data["previous"] in _SHOWDOWN_STATES:
                self._end_showdown()
            elif state == "false_start" and self.core.round.go_tick is None:
                # No GO this round: what waits for it goes on its planned GO.
                waiting, self._for_go = self._for_go, []
                for edge in waiting:
                    self._on_planned_go(edge)
        elif event.name == "countdown" and event.data["step"] == 1:
            # A new round: edges placed before it are timed from its GO.
            self._anchored = {}
            waiting, self._for_countdown = self._for_countdown, []
            for edge in waiting:
                self._add(edge)
        elif event.name == "go":
            rnd = self.core.round
            anchored, self._anchored = self._anchored, {}
            if not (rnd.go_tick == rnd.planned_go and rnd.go_time == rnd.planned_go):
                # GO came off plan (real time): what is still to come moves onto it.
                for name, edge in anchored.items():
                    if self.core.has_deadline(name):
                        self.core.unschedule(name)
                        self._of_showdown.discard(name)
                        self._deliver(edge, *self._on(edge, rnd.go_tick, rnd.go_time), name)
            waiting, self._for_go = self._for_go, []
            for edge in waiting:
                self._deliver(edge, *self._on(edge, rnd.go_tick, rnd.go_time))

    def _end_showdown(self) -> None:
        """The showdown is over (finished or cancelled): its edges still to
        come are dropped and the paddles its presses hold down let go."""
        self.core.unschedule(*self._of_showdown)
        self._let_go = {
            side: name for side, name in self._let_go.items() if name not in self._of_showdown
        }
        self._of_showdown = set()
        self._for_countdown, self._for_go, self._anchored = [], [], {}
        left_down, self._left_down = sorted(self._left_down), set()
        for side in left_down:
            self._drive(
                _Edge(side, False, None, None, 0.0), self.core.board.ticks(), self.core.clock()
            )


class PinLevels(TypedDict):
    """The output pins' levels (1 high, 0 low), below the devices: the LED
    bar, GO, the arrows, the buzzer (0 on a unit without one), the H-bridge's
    two direction pins and the enable pin's PWM duty. The protocol's
    :class:`~firmware_host.protocol.Outputs` is what the devices show; this
    is what the pins are driven to, for the tests, the status line and the
    log line at exit. (A dict, so a test writes the levels it expects as one.)"""

    bar: tuple[int, ...]
    go: int
    arrow_a: int
    arrow_b: int
    buzzer: int
    motor_a: int
    motor_b: int
    duty: float


def pin_states(board) -> PinLevels:
    """The output pins' levels as they are now (:class:`PinLevels`)."""

    def level(device) -> int:
        return 0 if device is None else int(bool(device.pin.state))

    launcher = board.launcher
    return PinLevels(
        bar=tuple(level(led) for led in board.countdown_leds),
        go=level(board.go_led),
        arrow_a=level(board.arrow_a),
        arrow_b=level(board.arrow_b),
        buzzer=level(board.buzzer),
        motor_a=level(launcher.toward_a),
        motor_b=level(launcher.toward_b),
        duty=float(launcher.enable.pin.state),
    )
