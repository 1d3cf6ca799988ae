"""The unit's public Python API: one object for the board, the loop and the machine.

The protocol server, the ``run`` command and the engine integration all drive
the unit through :class:`Unit`. Every command is put on the event loop's queue
and waits for the loop's answer, so the state machine only ever runs on the
loop thread; errors are :mod:`firmware_host.core.errors` classes whose ``code`` is
the protocol's error code.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from firmware_host.core.bench import Bench, pin_states
from firmware_host.core.clock import Clock, monotonic
from firmware_host.core.errors import BusyError, UnitClosedError, UnitError
from firmware_host.core.loop import EventLoop
from firmware_host.core.machine import Recorder, ShowdownCore
from firmware_host.core.result import Result, UnitEvent
from firmware_host.protocol import RUNNING_STATES, Outputs
from hw.board import Board
from hw.pins import make_pin_factory
from hw.selftest import DeviceCheck

__all__ = ["Unit", "UnitBench"]

log = logging.getLogger(__name__)

#: The selftest takes about 2.5 s; a caller waits at most this long.
SELFTEST_TIMEOUT_S = 30.0


class Unit:
    """The Showdown unit on its pins.

    ``pin_factory``: a gpiozero pin factory (default: the one ``config.backend``
    names; the unit then closes it). ``clock``: a real clock in seconds, the
    one the pin ticks use (default :func:`time.monotonic`). ``rng``: draws the
    hold length and standalone ids. ``recorder``: a
    :class:`~firmware_host.core.machine.Recorder` (the journal), called on the loop
    thread with each decision before anything moves and each final result
    before it is published; if it cannot keep a decision, nothing launches and
    the unit faults. ``pacers``: objects with ``next_deadline()``/``poll()``
    run by the loop (the watchdog).
    """

    def __init__(
        self,
        config,
        *,
        pin_factory=None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        recorder: Recorder | None = None,
        pacers=(),
    ):
        self.config = config
        self._pin_factory = pin_factory
        self._owns_factory = pin_factory is None
        self._clock = clock or monotonic
        self._rng = rng
        self._recorder = recorder
        self._pacers = tuple(pacers)
        self._subscribers: tuple[Callable[[UnitEvent], None], ...] = ()
        self.board: Board | None = None
        self._core: ShowdownCore | None = None
        self._bench: Bench | None = None
        self._loop: EventLoop | None = None

    # -- lifetime ------------------------------------------------------------------

    def open(self) -> Unit:
        """Build the board (outputs safe), the machine and start the loop."""
        if self._loop is not None:
            return self
        try:
            if self._pin_factory is None:
                self._pin_factory = make_pin_factory(self.config.backend)
            self.board = Board(
                self.config.pins,
                pin_factory=self._pin_factory,
                lockout_s=self.config.timing.press_lockout_s,
            )
            self._core = ShowdownCore(
                self.board, self.config, clock=self._clock, rng=self._rng, recorder=self._recorder
            )
            self._bench = Bench(self._core)
            self._core.listeners = (*self._core.listeners, self._publish)
            self._loop = EventLoop(self._core, pacers=self._pacers)
            self._loop.start()
        except BaseException:
            self.close()
            raise
        log.info("unit open: %s", self.config.unit_name)
        return self

    def close(self) -> None:
        """Stop the loop (outputs safe), release the pins; safe to call twice."""
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.stop()
        board, self.board = self.board, None
        if board is not None and loop is not None:
            log.info("outputs at exit: %s", _outputs_text(board))
        try:
            if board is not None:
                board.close()
        finally:
            if self._owns_factory and self._pin_factory is not None:
                factory, self._pin_factory = self._pin_factory, None
                factory.close()

    def __enter__(self) -> Unit:
        return self.open()

    def __exit__(self, *exc_info) -> None:
        self.close()

    @property
    def is_open(self) -> bool:
        return self._loop is not None and self._loop.running

    # -- commands ------------------------------------------------------------------

    def _call(self, fn, *args, **kwargs):
        if self._loop is None:
            raise UnitClosedError("the unit is not open")
        return self._loop.call(fn, *args, **kwargs)

    @property
    def _opened_core(self) -> ShowdownCore:
        """The machine, once the unit was opened (UnitClosedError before)."""
        if self._core is None:
            raise UnitClosedError("the unit is not open")
        return self._core

    def arm(
        self,
        showdown_id: str,
        cards: int,
        players: dict[str, str] | None = None,
        bots: dict | None = None,
    ) -> dict:
        """Arm a showdown; ``players`` maps "a" and "b" to names (default "A", "B");
        ``bots`` maps the sides a bot plays to ``{"reaction_ms": N}`` (the unit
        presses those paddles itself; two bots start by themselves).
        Returns the status. Raises InvalidCardsError, InvalidArgumentError,
        BusyError or UnitFaultError."""
        return self._call(self._opened_core.arm, showdown_id, cards, players, bots)

    def start(self) -> dict:
        """Start the armed showdown (what the timer button does). Raises
        NotArmedError, BusyError, PaddleHeldError (the unit stays armed and
        blinks the arrow) or UnitFaultError."""
        return self._call(self._opened_core.start)

    def cancel(self) -> dict:
        """Back to idle, outputs safe, from any state; from fault only if the
        board answers (else UnitFaultError)."""
        return self._call(self._opened_core.cancel)

    def status(self) -> dict:
        """state, paddles ({"a": bool, "b": bool}), showdown, last_result,
        fault, outputs (:func:`~firmware_host.core.outputs.read_outputs`)."""
        return self._call(self._opened_core.status)

    def result(self, showdown_id: str) -> Result | None:
        """A result from this run of the unit (the journal has older ones)."""
        return self._call(self._opened_core.result, showdown_id)

    def call(self, fn, *args, **kwargs):
        """Run ``fn(*args, **kwargs)`` on the loop thread and return its value:
        for things that must live on that thread (the daemon's journal writer)."""
        return self._call(fn, *args, **kwargs)

    def reconfigure(self, config) -> None:
        """Use ``config``'s timing, launcher and showdown settings and unit name
        from now on. Only between showdowns (idle or fault), else BusyError.
        Pins and backend need a new Unit; they are not read again."""
        self._call(self._reconfigure, config)

    def _reconfigure(self, config) -> None:
        core = self._opened_core
        if core.state in RUNNING_STATES or core.state in ("armed", "selftest"):
            raise BusyError(f"a showdown is under way: state is {core.state!r}")
        board = self.board
        assert board is not None and board.timer_button is not None  # open while the loop runs
        core.config, core.timing = config, config.timing
        for device in (board.paddle("a"), board.paddle("b"), board.timer_button):
            device.lockout_s = config.timing.press_lockout_s
        self.config = config

    def start_selftest(self) -> Future[list[DeviceCheck]]:
        """Begin the selftest (every light, the buzzer, the motor each way) and
        return at once with a future for its checks. The unit is in state
        ``selftest`` for about 2.5 s and keeps answering meanwhile; only in
        idle, else BusyError (a second selftest too)."""
        return self._call(self._opened_core.start_selftest)

    def selftest(self, timeout: float = SELFTEST_TIMEOUT_S) -> list[DeviceCheck]:
        """:meth:`start_selftest` and wait for its checks."""
        try:
            return self.start_selftest().result(timeout)
        except FutureTimeout:
            raise UnitError(f"the selftest did not finish within {timeout} s") from None

    def subscribe(self, fn: Callable[[UnitEvent], None]) -> Callable[[], None]:
        """Call ``fn(event)`` on the loop thread for every UnitEvent; returns
        the function that unsubscribes. ``fn`` must not block (it holds up
        every decision and the motor's cut-off): enqueue and return, for
        example ``Mailbox.put``. A subscriber that raises is logged."""
        self._subscribers = (*self._subscribers, fn)

        def unsubscribe() -> None:
            self._subscribers = tuple(s for s in self._subscribers if s is not fn)

        return unsubscribe

    def _publish(self, event: UnitEvent) -> None:
        for subscriber in self._subscribers:
            try:
                subscriber(event)
            except Exception:
                log.exception("subscriber %r failed on %s", subscriber, event.name)

    def watch_outputs(self, fn: Callable[[UnitEvent], None]) -> Outputs | None:
        """Call ``fn(event)`` on the loop thread with an ``outputs`` event each
        time the outputs change (at most one per loop turn and per
        :data:`~firmware_host.core.outputs.MIN_INTERVAL_S`); returns the
        outputs now (None if the board cannot be read). Watching the same
        ``fn`` twice is watching it once. ``fn`` must not block, as for
        :meth:`subscribe`. The outputs are read only while someone watches."""
        return self._call(self._opened_core.watch_outputs, fn)

    def unwatch_outputs(self, fn: Callable[[UnitEvent], None]) -> None:
        """No more ``outputs`` events for ``fn``; a closed unit has none to stop."""
        if self._core is None or self._loop is None or not self._loop.running:
            return
        self._call(self._core.unwatch_outputs, fn)

    @property
    def recorder(self) -> Recorder | None:
        return self._recorder

    @recorder.setter
    def recorder(self, recorder: Recorder | None) -> None:
        self._recorder = recorder
        if self._core is not None:
            self._call(setattr, self._core, "recorder", recorder)

    @property
    def bench(self) -> UnitBench:
        """Paddle and timer-button edges on mock pins (NotMockError otherwise)."""
        return UnitBench(self)


def _outputs_text(board) -> str:
    """The output levels as one log line, the motor first."""
    try:
        pins = pin_states(board)
    except Exception as exc:  # a broken board must not stop the close
        return f"unreadable ({type(exc).__name__}: {exc})"
    bar = "".join(str(lit) for lit in pins["bar"])
    return (
        f"motor_a={pins['motor_a']} motor_b={pins['motor_b']} motor_enable={pins['duty']} "
        f"go={pins['go']} arrow_a={pins['arrow_a']} arrow_b={pins['arrow_b']} "
        f"buzzer={pins['buzzer']} bar={bar}"
    )


class UnitBench:
    """The bench through the unit's loop: each call returns once the loop
    has placed the edge (delivered now, or scheduled), with what
    :class:`~firmware_host.core.bench.Bench` says it placed."""

    def __init__(self, unit: Unit):
        self._unit = unit

    def _bench(self) -> Bench:
        if self._unit._bench is None:
            raise UnitClosedError("the unit is not open")
        return self._unit._bench

    def press(
        self,
        side: str,
        *,
        offset_s: float | None = None,
        tick: float | None = None,
        delay_s: float = 0.0,
        hold: bool = False,
    ) -> dict:
        """Press paddle ``side`` now, at ``offset_s`` from GO (measured from the
        real GO tick; negative: before GO; waits for the next countdown if
        none runs) or at ``tick``; the callback comes ``delay_s`` after the
        tick. It lets go by itself after :data:`~firmware_host.core.bench.PRESS_HOLD_S`
        unless ``hold``. A time out of bounds is InvalidArgumentError."""
        return self._unit._call(
            self._bench().press, side, offset_s=offset_s, tick=tick, delay_s=delay_s, hold=hold
        )

    def release(
        self,
        side: str,
        *,
        offset_s: float | None = None,
        tick: float | None = None,
        delay_s: float = 0.0,
    ) -> dict:
        """Let go of paddle ``side``; times as for :meth:`press`."""
        return self._unit._call(
            self._bench().release, side, offset_s=offset_s, tick=tick, delay_s=delay_s
        )

    def tap(self, side: str, hold_s: float | None = None) -> dict:
        """Press now and let go ``hold_s`` later (default
        :data:`~firmware_host.core.bench.PRESS_HOLD_S`)."""
        if hold_s is None:
            return self._unit._call(self._bench().tap, side)
        return self._unit._call(self._bench().tap, side, hold_s)

    def press_timer(self) -> dict:
        return self._unit._call(self._bench().press_timer)
