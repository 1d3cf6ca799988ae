"""The showdown state machine: who slammed first, decided from edge ticks.

:class:`ShowdownCore` owns the :class:`~hw.board.Board` outputs and one
:mod:`transitions` machine. It does no I/O waiting of its own: pin callbacks
put :class:`InputEvent` s on :attr:`ShowdownCore.inbox`, timers are deadlines
that :meth:`~ShowdownCore.next_deadline` reports, and whoever drives the core
(the event loop thread, or a test on virtual time) calls
:meth:`~ShowdownCore.handle` and :meth:`~ShowdownCore.run_due`. Every decision
is made by :func:`firmware_host.core.decide.decide` from the edges' ticks and the
GO tick, never from the order in which callbacks ran. docs/timing.md explains
the rules.

The core keeps the machine, its inputs, its commands and the decision; the
machine's table (states, transitions, what each state ignores) is
:mod:`firmware_host.core.states`', what each state does on entry and exit is
:class:`~firmware_host.core.phases.Phases`' (the other half of this class), the
values it works on are :mod:`firmware_host.core.showdown`'s; what the board
shows in each phase is :class:`~firmware_host.core.show.Show`'s, the Result of
a showdown is built by :mod:`firmware_host.core.verdict`, and a bot's paddle
is pressed by :class:`~firmware_host.core.virtual_paddles.VirtualPaddles`,
through :meth:`ShowdownCore.paddle_edge` like a pin's.

>>> sorted(IGNORED["launching"])
['paddle_pressed', 'timer_pressed']
"""

from __future__ import annotations

import logging
import queue
import random
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

from transitions import Machine

from firmware_host.core.clock import Clock, monotonic
from firmware_host.core.deadlines import Deadlines
from firmware_host.core.decide import Decision, Outcome, decide, is_early
from firmware_host.core.errors import (
    BusyError,
    InvalidArgumentError,
    InvalidCardsError,
    NotArmedError,
    PaddleHeldError,
    UnitError,
    UnitFaultError,
)
from firmware_host.core.outputs import OutputsWatch, read_outputs
from firmware_host.core.phases import RESULTS_KEPT, Phases
from firmware_host.core.result import Result, UnitEvent
from firmware_host.core.show import Show
from firmware_host.core.showdown import (
    STANDALONE_PLAYERS,
    InputEvent,
    LaunchRun,
    Recorder,
    RecordFailed,
    Round,
    Showdown,
    present,
    record_failure,
)
from firmware_host.core.states import IGNORED, MACHINE_DEADLINES, STATES, TRANSITIONS
from firmware_host.core.virtual_paddles import VirtualPaddles
from firmware_host.protocol import (
    SIDES,
    EventName,
    Launch,
    Outputs,
    Side,
    clean_bots,
    clean_players,
    clean_showdown_id,
)
from hw.selftest import DeviceCheck, Steps, selftest_steps

# STATES, TRANSITIONS, IGNORED, InputEvent, Showdown, Recorder and RecordFailed
# live in states.py and showdown.py; they are named here too, where the unit,
# the loop, the daemon and the diagram have always imported them from.
__all__ = [
    "STATES",
    "TRANSITIONS",
    "IGNORED",
    "RESULTS_KEPT",
    "InputEvent",
    "Showdown",
    "ShowdownCore",
    "Recorder",
    "RecordFailed",
]

log = logging.getLogger(__name__)


class ShowdownCore(Phases):
    """The state machine and its outputs, driven by inputs and deadlines.

    ``board`` is an :class:`hw.board.Board`; ``clock`` returns seconds and
    must be the clock of the board's ticks when the bench is used (it is,
    on mock pins); ``rng`` draws the hold length and standalone showdown ids;
    ``recorder`` (a :class:`Recorder`, the journal) gets each decision before
    the arrow, the buzzer or the motor move, and each final result before it
    is published. If it cannot keep a decision, nothing launches: the unit
    faults. Call everything on one thread.
    """

    # The machine's state, and its triggers: transitions adds these methods at
    # run time, one per trigger of TRANSITIONS (a test keeps the two lists
    # equal). Each fires its trigger and returns whether a transition ran.
    state: str
    arm_received: Callable[[], bool]
    timer_pressed: Callable[[], bool]
    start_received: Callable[[], bool]
    step_elapsed: Callable[[], bool]
    countdown_elapsed: Callable[[], bool]
    hold_elapsed: Callable[[], bool]
    paddle_pressed: Callable[[], bool]
    settled: Callable[[], bool]
    response_timed_out: Callable[[], bool]
    announced: Callable[[], bool]
    card_passed: Callable[[], bool]
    cards_out: Callable[[], bool]
    launch_elapsed: Callable[[], bool]
    selftest_requested: Callable[[], bool]
    selftest_done: Callable[[], bool]
    cancelled: Callable[[], bool]
    failed: Callable[[], bool]

    def __init__(
        self,
        board,
        config,
        *,
        clock: Clock = monotonic,
        rng: random.Random | None = None,
        recorder: Recorder | None = None,
    ):
        self.board = board
        self.config = config
        self.timing = config.timing
        self.clock = clock
        self.rng = rng if rng is not None else random.Random()
        self.recorder = recorder
        self.inbox: queue.SimpleQueue[InputEvent] = queue.SimpleQueue()
        self.listeners: tuple[Callable[[UnitEvent], None], ...] = ()
        #: Who gets the ``outputs`` events (see :meth:`watch_outputs`); apart
        #: from ``listeners``, and read only while someone watches.
        self.output_listeners: tuple[Callable[[UnitEvent], None], ...] = ()
        self.showdown: Showdown | None = None
        self.round: Round | None = None
        self.decision: Decision | None = None
        self.results: OrderedDict[str, Result] = OrderedDict()
        self.last_result: Result | None = None
        self.fault_reason: str | None = None
        self.last_decision_latency_us: float | None = None
        self._recorded = False  # the decision is with the recorder
        self._launch: LaunchRun | None = None
        self._selftest: tuple[Steps, Future[list[DeviceCheck]]] | None = None  # while one runs
        self._edge: tuple[str, float] | None = None
        self._deadlines = Deadlines()
        self.show = Show(board, self.timing, self._deadlines, clock)
        self._outputs = OutputsWatch(
            lambda: read_outputs(self.board), self._deadlines, clock, self._send_outputs
        )
        self.bot_paddles = VirtualPaddles(
            self._deadlines, self.rng, lambda side, ticks: self.paddle_edge(side, ticks, True, True)
        )
        self._arrived = time.perf_counter()
        self._shown_state = "idle"
        self.state = "idle"
        # The state event goes out first thing on entering a state, before
        # the state's own on_enter_* actions and the events they emit.
        states = [{"name": name, "on_enter": "_state_changed"} for name in STATES]
        self.machine = Machine(
            model=self,
            states=states,
            transitions=TRANSITIONS,
            initial="idle",
            queued=True,
            auto_transitions=False,
        )
        board.on_paddle_edge = self.paddle_edge
        board.on_timer_button = self._timer_button
        board.on_card = self._card_seen
        board.safe()

    # -- pin callbacks: on the backend's thread, they only enqueue ------------

    def paddle_edge(self, side: str, ticks: float, pressed: bool, virtual: bool = False) -> None:
        """A paddle edge with its tick: the board's callback, and the way in
        of a bot's virtual edge (``virtual``), so both take one path."""
        self.inbox.put(InputEvent("paddle", (side, ticks, pressed, virtual)))

    def _timer_button(self, ticks: float) -> None:
        self.inbox.put(InputEvent("timer", (ticks,)))

    def _card_seen(self, ticks: float) -> None:
        self.inbox.put(InputEvent("card", (ticks,)))

    # -- driving the core --------------------------------------------------------

    def handle(self, event: InputEvent) -> None:
        """Process one inbox event (a command's answer goes to its future)."""
        self._arrived = event.arrived
        if event.kind == "call":
            self._run_command(*event.data)
            return
        with self._fault_guard(f"{event.kind} event"):
            if event.kind == "paddle":
                side, ticks, pressed, virtual = event.data
                if pressed:
                    self._on_press(side, ticks, virtual)
            elif event.kind == "timer":
                self._fire("timer_pressed")
            elif event.kind == "card":
                self._fire("card_passed")

    def next_deadline(self) -> float | None:
        """Clock time of the earliest deadline, or None when nothing is due ever."""
        return self._deadlines.next()

    def run_due(self) -> int:
        """Fire every deadline due at ``clock()``, earliest first; returns how many."""
        fired = 0
        while self._fire_one_due():
            fired += 1
        return fired

    def pump(self) -> None:
        """Handle every queued event and every due deadline, events first,
        until there is nothing left to do now."""
        while True:
            try:
                event = self.inbox.get_nowait()
            except queue.Empty:
                if not self._fire_one_due():
                    self._outputs.turn_ended()  # the turn's changes as one event
                    return
            else:
                self.handle(event)

    def schedule(self, name: str, when: float, action: Callable[[], object]) -> None:
        """Call ``action`` once the clock reaches ``when`` (replaces ``name``)."""
        self._deadlines.schedule(name, when, action)

    def has_deadline(self, name: str) -> bool:
        return name in self._deadlines

    def unschedule(self, *names: str) -> None:
        self._deadlines.cancel(*names)

    def _fire_one_due(self) -> bool:
        due = self._deadlines.pop_due(self.clock())
        if due is None:
            return False
        name, action = due
        self._arrived = time.perf_counter()
        with self._fault_guard(f"deadline {name!r}"):
            action()
        return True

    def _fire(self, trigger: str) -> None:
        if trigger in IGNORED[self.state]:
            log.debug("%s ignored in state %s", trigger, self.state)
            return
        getattr(self, trigger)()

    def emit(self, name: EventName, **data: Any) -> None:
        """Publish a UnitEvent to every listener; a failing listener is logged."""
        event = UnitEvent(name, data)
        for listener in self.listeners:
            try:
                listener(event)
            except Exception:
                log.exception("event listener %r failed on %s", listener, name)

    # -- watching the outputs -----------------------------------------------------

    def watch_outputs(self, listener: Callable[[UnitEvent], None]) -> Outputs | None:
        """Send ``listener`` an ``outputs`` event each time the outputs change
        (at most one per loop turn and per
        :data:`~firmware_host.core.outputs.MIN_INTERVAL_S`); returns the
        outputs now. The outputs are read only while someone watches."""
        if listener not in self.output_listeners:
            self.output_listeners = (*self.output_listeners, listener)
        if not self._outputs.watching:
            return self._outputs.start()
        return self.outputs()

    def unwatch_outputs(self, listener: Callable[[UnitEvent], None]) -> None:
        """No more ``outputs`` events for ``listener``; the last one out stops the reading."""
        self.output_listeners = tuple(fn for fn in self.output_listeners if fn != listener)
        if not self.output_listeners:
            self._outputs.stop()

    def outputs(self) -> Outputs | None:
        """The outputs now (:func:`~firmware_host.core.outputs.read_outputs`),
        None if the board cannot be read."""
        try:
            return read_outputs(self.board)
        except Exception as exc:
            log.warning("cannot read the outputs: %s", exc)
            return None

    def _send_outputs(self, outputs: Outputs) -> None:
        event = UnitEvent(EventName.OUTPUTS, outputs.to_wire())
        for listener in self.output_listeners:
            try:
                listener(event)
            except Exception:
                log.exception("outputs listener %r failed", listener)

    # -- faults --------------------------------------------------------------------

    @contextmanager
    def _fault_guard(self, what: str):
        """Any exception inside: fault, outputs safe, and the core carries on."""
        try:
            yield
        except Exception as exc:
            log.debug("exception in %s", what, exc_info=True)
            self.enter_fault(_fault_reason(what, exc))

    def enter_fault(self, reason: str) -> None:
        """Outputs safe (motor first), machine deadlines dropped, a decided
        showdown reported with launch "fault", then the fault state and event."""
        log.error("fault: %s", reason)
        self.fault_reason = reason
        try:
            self.board.safe()  # the motor first
        except Exception:
            log.exception("making the outputs safe failed")
        self.unschedule(*MACHINE_DEADLINES)
        if self._recorded and self.showdown is not None and not self.showdown.finished:
            # The decision is recorded: its launch ended in this fault.
            try:
                self._publish(self._result(Launch.FAULT))
            except Exception:
                log.exception("reporting the result of %s failed", self.showdown.showdown_id)
        self._launch = None
        if self.state != "fault":
            try:
                self.failed()
            except Exception:
                log.exception("leaving state %s failed", self.state)
                self.machine.set_state("fault")
                self._state_changed()
        self.emit(EventName.FAULT, reason=reason)

    # -- commands (on the loop thread; errors go back to the caller) ---------------

    def _run_command(self, fn, args, kwargs, future) -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            value = fn(*args, **kwargs)
        except UnitError as exc:
            future.set_exception(exc)
        except Exception as exc:
            log.debug("exception in a command", exc_info=True)
            self.enter_fault(_fault_reason(f"command {getattr(fn, '__name__', fn)}", exc))
            error = UnitFaultError(self.fault_reason)
            error.__cause__ = exc
            future.set_exception(error)
        else:
            future.set_result(value)

    def _refuse_unless(self, *allowed: str) -> None:
        if self.state in allowed:
            return
        if self.state == "fault":
            raise UnitFaultError(f"the unit is in fault ({self.fault_reason}); cancel resets it")
        if self.state == "idle":
            raise NotArmedError("no showdown is armed: arm one first")
        if self.state == "selftest":
            raise BusyError("the unit is busy: a selftest is running (about 2.5 s)")
        raise BusyError(f"the unit is busy: state is {self.state!r}")

    def arm(
        self,
        showdown_id: str,
        cards: int,
        players: dict[str, str] | None = None,
        bots: dict[str, object] | None = None,
    ) -> dict:
        """Arm a showdown in idle. The armed showdown's own id again is answered
        with the status; another id while one is armed is busy (cancel it first),
        so two engines can never swap each other's showdown. ``bots``: the
        protocol's field, ``{side: {"reaction_ms": N}}``; the unit presses
        those sides' paddles itself."""
        self._refuse_unless("idle", "armed")
        if self.state == "armed":
            armed = self._current_showdown.showdown_id
            if showdown_id == armed:
                return self.status()
            raise BusyError(f"showdown {armed!r} is armed: cancel it before arming another")
        try:
            # The protocol's own checks: what a client may send is what the unit keeps.
            showdown_id = clean_showdown_id(showdown_id)
            players = clean_players(STANDALONE_PLAYERS if players is None else players)
            bot_sides = clean_bots(bots)
        except ValueError as exc:
            raise InvalidArgumentError(str(exc)) from None
        limit = self.config.showdown.max_cards
        if isinstance(cards, bool) or not isinstance(cards, int) or not 1 <= cards <= limit:
            raise InvalidCardsError(
                f"cards must be a whole number from 1 to {limit}, not {cards!r}"
            )
        self.showdown = Showdown(showdown_id, cards, players, bots=bot_sides)
        self._fire("arm_received")
        return self.status()

    def start(self) -> dict:
        """Start the armed showdown, as the timer button does."""
        self._refuse_unless("armed")
        self._fire("start_received")
        if self.state == "armed":
            held = self._held_sides()
            raise PaddleHeldError(
                f"paddle {' and '.join(held)} is held down: release it, then start", held
            )
        return self.status()

    def cancel(self) -> dict:
        """Back to idle with the outputs safe, from any state (a fault only if
        the board answers)."""
        self._fire("cancelled")
        if self.state == "fault":
            raise UnitFaultError(
                f"the unit stays in fault: the board does not answer ({self.fault_reason})"
            )
        return self.status()

    def start_selftest(self) -> Future[list[DeviceCheck]]:
        """Light, sound and spin every device (:func:`hw.selftest.selftest_steps`)
        in the ``selftest`` state, each wait a deadline of the loop, so the
        unit keeps answering meanwhile. Only in idle, else BusyError (another
        selftest included). The future gets the checks; ``cancel`` (or a
        fault) ends it early with UnitError, outputs safe."""
        if self.state != "idle":
            self._refuse_unless()
        future: Future = Future()
        future.set_running_or_notify_cancel()
        self._selftest = (selftest_steps(self.board), future)
        self._fire("selftest_requested")
        return future

    def status(self) -> dict:
        """A JSON-safe snapshot: state, paddles, showdown, last result, fault,
        and the outputs now (None if the board cannot be read)."""
        try:
            paddles = {side: self.board.paddle_is_pressed(side) for side in SIDES}
        except Exception as exc:
            log.warning("cannot read the paddles: %s", exc)
            paddles = None
        showdown = None
        if self.showdown is not None:
            showdown = {
                "showdown_id": self.showdown.showdown_id,
                "cards": self.showdown.cards,
                "players": dict(self.showdown.players),
                "bots": list(self.showdown.bots),
                "tie_reruns": self.showdown.tie_reruns,
            }
        return {
            "state": self.state,
            "paddles": paddles,
            "showdown": showdown,
            "last_result": None if self.last_result is None else self.last_result.to_dict(),
            "fault": self.fault_reason if self.state == "fault" else None,
            "outputs": None if (outputs := self.outputs()) is None else outputs.to_wire(),
        }

    def result(self, showdown_id: str) -> Result | None:
        """A result of this run of the unit, or None."""
        return self.results.get(showdown_id)

    def shutdown(self) -> None:
        """The loop is stopping: a running showdown is cancelled as by
        :meth:`cancel` (mid-launch, its result says so), then every deadline
        is dropped and the outputs are made safe."""
        if self.state not in ("idle", "fault"):
            with self._fault_guard("shutdown"):
                self._fire("cancelled")
        self._deadlines.clear()
        self.board.safe()

    # -- inputs ------------------------------------------------------------------

    def _on_press(self, side: str, ticks: float, virtual: bool) -> None:
        bots = self.showdown.bots if self.showdown is not None else {}
        if (side in bots) != virtual:
            # A bot's side takes only the bot's edges; a person's only the pin's.
            if not virtual:
                log.info("paddle %s pressed: ignored, a bot plays side %s", side.upper(), side)
            return
        rnd = self.round
        if rnd is not None and rnd.presses[side] is not None:
            return  # that side's first press is already in
        if self.state in ("resolved", "launching"):
            # Too late to change the decision, but it is that side's reaction time.
            self._current_round.presses[side] = ticks
            return
        self._edge = (side, ticks)
        self._fire("paddle_pressed")

    def _is_early(self, ticks: float) -> bool:
        return is_early(
            ticks,
            self._current_round.go_tick,
            ticks_diff=self.board.ticks_diff,
            min_reaction_ms=self.timing.min_reaction_ms,
        )

    def press_is_early(self) -> bool:
        _, ticks = present(self._edge, "paddle edge", self.state)
        return self._is_early(ticks)

    def _record_press(self) -> None:
        side, ticks = present(self._edge, "paddle edge", self.state)
        presses = self._current_round.presses
        first = presses[Side.A] is None and presses[Side.B] is None
        presses[side] = ticks
        self.unschedule("response")
        if presses[Side.A] is not None and presses[Side.B] is not None:
            self._settle()
        elif first:
            self.schedule("settle", self.clock() + self.timing.settle_s, self._settle)

    def _settle(self) -> None:
        self.unschedule("settle")
        rnd = self._current_round
        decision = self.decision = decide(
            rnd.presses,
            rnd.go_tick,
            ticks_diff=self.board.ticks_diff,
            tie_threshold_us=self.timing.tie_threshold_us,
            min_reaction_ms=self.timing.min_reaction_ms,
        )
        self.last_decision_latency_us = (time.perf_counter() - self._arrived) * 1e6
        loser = decision.loser
        if loser is not None:
            # On disk before anything moves: a crash from here on cannot lose
            # the verdict, and a failure here launches nothing.
            self._record_decision()
            if decision.outcome == Outcome.FALSE_START:  # the loser is who jumped
                self.show.false_start(loser)
                self.emit(
                    EventName.FALSE_START,
                    showdown_id=self._current_showdown.showdown_id,
                    side=loser,
                )
        self.settled()

    def _record_decision(self) -> None:
        result = self._result(Launch.PENDING)
        if self.recorder is not None:
            try:
                self.recorder.decided(result)
            except Exception as exc:
                raise RecordFailed(
                    record_failure(exc, "the decision", result) + ": nothing was launched"
                ) from exc
        self._recorded = True

    # -- guards ------------------------------------------------------------------

    def _held_sides(self) -> tuple[Side, ...]:
        """People's paddles held down (a bot's side ignores its real paddle)."""
        bots = self.showdown.bots if self.showdown is not None else {}
        return tuple(
            side for side in SIDES if side not in bots and self.board.paddle_is_pressed(side)
        )

    def paddle_is_held(self) -> bool:
        return bool(self._held_sides())

    def board_answers(self) -> bool:
        try:
            self.board.safe()
            for side in SIDES:
                self.board.paddle_is_pressed(side)
        except Exception as exc:
            log.error("the board still fails: %s", exc)
            return False
        return True

    def is_tie(self) -> bool:
        return self._current_decision.outcome == Outcome.TIE

    def tie_rerun_is_due(self) -> bool:
        return (
            self.is_tie()
            and self.timing.tie_policy == "rerun"
            and self._current_showdown.tie_reruns < self.timing.max_tie_reruns
        )

    def has_loser(self) -> bool:
        return self._current_decision.loser is not None

    # -- the decision on a timeout (every decide() call is here, with the inputs) ------

    def on_enter_timeout(self) -> None:
        rnd = self._current_round
        self.decision = decide(
            rnd.presses,
            rnd.go_tick,
            ticks_diff=self.board.ticks_diff,
            tie_threshold_us=self.timing.tie_threshold_us,
        )
        self.announced()


def _fault_reason(what: str, exc: Exception) -> str:
    """A fault's one line: a recorder's own words, else where and what was raised."""
    if isinstance(exc, RecordFailed):
        return str(exc)
    return f"{what}: {type(exc).__name__}: {exc}"
