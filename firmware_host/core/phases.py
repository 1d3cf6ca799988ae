"""What each state of the showdown machine does on entry and exit.

:class:`Phases` is the half of :class:`~firmware_host.core.machine.ShowdownCore`
that the transition table (:mod:`firmware_host.core.states`) calls by name as
the machine moves: arming, the countdown and its hold, GO, a false start, a
tie fought again, the launch and its outcome, the selftest, and the way back
to idle with the result published. The other half, the machine itself
(``machine.py``), takes the inputs, the commands and the faults, and makes
every decision. Each callback is a method of the one model transitions
drives, so the two halves share the core's state as one object.

>>> from firmware_host.core.machine import ShowdownCore
>>> issubclass(ShowdownCore, Phases), "on_enter_go" in vars(Phases)
(True, True)
"""

from __future__ import annotations

import logging
import random
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from firmware_host.core.deadlines import Deadlines
from firmware_host.core.decide import Decision
from firmware_host.core.errors import UnitError
from firmware_host.core.result import Result
from firmware_host.core.show import Show
from firmware_host.core.showdown import (
    STANDALONE_PLAYERS,
    LaunchRun,
    Recorder,
    RecordFailed,
    Round,
    Showdown,
    present,
    record_failure,
)
from firmware_host.core.states import MACHINE_DEADLINES
from firmware_host.core.verdict import launch_outcome, result_of
from firmware_host.core.virtual_paddles import VirtualPaddles
from firmware_host.protocol import EventName, Launch, Side
from hw.selftest import DeviceCheck, Steps

__all__ = ["Phases", "RESULTS_KEPT"]

log = logging.getLogger(__name__)

#: Results kept in memory for unit.result(); the journal keeps them for good.
RESULTS_KEPT = 1000


class Phases:
    """The machine's entry and exit actions; :class:`ShowdownCore` is the
    one class that uses it, and sets every attribute named below."""

    # The core's state, set in ShowdownCore.__init__ (machine.py).
    state: str
    board: Any  # hw.board.Board, as ShowdownCore takes it (untyped there)
    config: Any  # the service's UnitConfig: the core may not import the service
    timing: Any  # config.timing
    clock: Callable[[], float]
    rng: random.Random
    recorder: Recorder | None
    show: Show
    bot_paddles: VirtualPaddles
    showdown: Showdown | None
    round: Round | None
    decision: Decision | None
    results: OrderedDict[str, Result]
    last_result: Result | None
    fault_reason: str | None
    _recorded: bool
    _launch: LaunchRun | None
    _selftest: tuple[Steps, Future[list[DeviceCheck]]] | None
    _deadlines: Deadlines
    _shown_state: str
    # The triggers these actions fire (transitions adds them; ShowdownCore
    # declares them all, and a test keeps its list equal to the table's).
    announced: Callable[[], bool]
    settled: Callable[[], bool]
    start_received: Callable[[], bool]
    step_elapsed: Callable[[], bool]
    countdown_elapsed: Callable[[], bool]
    hold_elapsed: Callable[[], bool]
    response_timed_out: Callable[[], bool]
    launch_elapsed: Callable[[], bool]
    cards_out: Callable[[], bool]
    selftest_done: Callable[[], bool]

    # What the machine half provides (machine.py): declared for the type checker only.
    emit: Callable[..., None]  # emit(name: EventName, **data): an event's data, JSON values
    schedule: Callable[[str, float, Callable[[], object]], None]
    unschedule: Callable[..., None]  # unschedule(*names: str)
    _fire: Callable[[str], None]
    _held_sides: Callable[[], tuple[Side, ...]]
    is_tie: Callable[[], bool]

    # -- what the state implies is there (if not, it is a bug: a fault) ----------------------

    @property
    def _current_showdown(self) -> Showdown:
        """The armed or running showdown (there is one from armed until idle)."""
        return present(self.showdown, "showdown", self.state)

    @property
    def _current_round(self) -> Round:
        """The countdown and what followed it (from countdown until idle)."""
        return present(self.round, "round", self.state)

    @property
    def _current_decision(self) -> Decision:
        """How the round ended (once it settled or timed out)."""
        return present(self.decision, "decision", self.state)

    @property
    def _current_launch(self) -> LaunchRun:
        """The cards on their way (while launching)."""
        return present(self._launch, "launch", self.state)

    # -- arming and the paddle warning -------------------------------------------------------

    def _arm_standalone(self) -> None:
        showdown_id = f"local-{self.rng.getrandbits(48):012x}"
        self.showdown = Showdown(
            showdown_id, self.config.showdown.default_cards, dict(STANDALONE_PLAYERS)
        )

    def _request_start(self) -> None:
        self.start_received()

    def on_enter_armed(self) -> None:
        showdown = self._current_showdown
        self.emit(
            EventName.ARMED,
            showdown_id=showdown.showdown_id,
            cards=showdown.cards,
            players=dict(showdown.players),
            bots=list(showdown.bots),
        )
        # Two bots: nobody presses the timer button, so the unit starts itself.
        self.bot_paddles.armed(
            showdown.bots, self.clock(), self.timing.bot_start_s, self._start_bots
        )

    def _start_bots(self) -> None:
        log.info("both sides are bots: the unit starts the countdown itself")
        self._fire("start_received")

    def _warn_paddle_held(self) -> None:
        held = self._held_sides()
        for side in held:
            self.emit(EventName.PADDLE_HELD, side=side)
        self.show.paddle_held(held)

    def on_exit_armed(self) -> None:
        self.bot_paddles.armed_over()
        self.show.paddle_warning_over()

    # -- countdown, hold, go -----------------------------------------------------------------

    def on_enter_countdown(self) -> None:
        self.unschedule("settle", "response")
        self.bot_paddles.round_over()  # a re-run: the bots draw again at its GO
        self.decision = None
        self._recorded = False
        self.show.countdown_begins()
        now, steps = self.clock(), self.board.countdown_length
        hold_s = self.rng.uniform(self.timing.hold_min_s, self.timing.hold_max_s)
        # The hold is drawn now so the planned GO time is known from the first
        # step (the bench schedules early presses from it); nothing shows it.
        planned_go = now + steps * self.timing.countdown_step_s + hold_s
        self.round = Round(start=now, planned_go=planned_go, steps=steps)
        self._next_step()

    def _next_step(self) -> None:
        rnd, showdown = self._current_round, self._current_showdown
        rnd.step += 1
        begins = rnd.start + (rnd.step - 1) * self.timing.countdown_step_s
        self.show.countdown_step(rnd.step, begins)
        last = rnd.step == rnd.steps
        self.schedule(
            "step",
            begins + self.timing.countdown_step_s,
            self.countdown_elapsed if last else self.step_elapsed,
        )
        self.emit(
            EventName.COUNTDOWN,
            showdown_id=showdown.showdown_id,
            step=rnd.step,
            steps=rnd.steps,
            rerun=showdown.tie_reruns,
        )

    def on_exit_countdown(self) -> None:
        self.unschedule("step")
        self.show.countdown_ended()

    def on_enter_hold(self) -> None:
        self.show.hold()
        self.schedule("hold", self._current_round.planned_go, self.hold_elapsed)

    def on_exit_hold(self) -> None:
        self.unschedule("hold")

    def on_enter_go(self) -> None:
        rnd = self._current_round
        # The tick read right after the light is on: every press is measured against it.
        rnd.go_tick = self.show.go()
        rnd.go_time = self.clock()
        self.schedule(
            "response", rnd.go_time + self.timing.response_timeout_s, self.response_timed_out
        )
        showdown = self._current_showdown
        self.bot_paddles.go(
            showdown.bots,
            go_tick=rnd.go_tick,
            go_time=rnd.go_time,
            min_reaction_ms=self.timing.min_reaction_ms,
        )
        self.emit(EventName.GO, showdown_id=showdown.showdown_id, ticks=rnd.go_tick)

    def on_exit_go(self) -> None:
        self.show.go_over()

    def on_enter_false_start(self) -> None:
        # The countdown stops at once; the arrow and the tone wait for the
        # decision (the settle window), which the journal holds first.
        self.show.jumped()

    def _count_rerun(self) -> None:
        showdown = self._current_showdown
        showdown.tie_reruns += 1
        self.emit(
            EventName.TIE,
            showdown_id=showdown.showdown_id,
            gap_us=self._current_decision.margin_us,
            rerun=showdown.tie_reruns,
            void=False,
        )

    # -- after the decision ------------------------------------------------------------------

    def on_enter_resolved(self) -> None:
        if self.is_tie():
            showdown = self._current_showdown
            self.emit(
                EventName.TIE,
                showdown_id=showdown.showdown_id,
                gap_us=self._current_decision.margin_us,
                rerun=showdown.tie_reruns,
                void=True,
            )
        self.announced()

    def on_enter_launching(self) -> None:
        launcher = self.config.launcher
        cards = self._current_showdown.cards
        loser = present(self._current_decision.loser, "loser", self.state)
        self._launch = LaunchRun(loser, cards)
        if self.board.has_card_sensor:
            # The sensor says when the cards are out; the maximum makes it a jam.
            run_s = launcher.max_run_s
        else:
            run_s = min(launcher.spin_up_s + launcher.per_card_s * cards, launcher.max_run_s)
        self.board.launcher.launch_toward(loser, launcher.speed)
        self.schedule("launch", self.clock() + run_s, self.launch_elapsed)

    def _count_card(self) -> None:
        launch, showdown_id = self._current_launch, self._current_showdown.showdown_id
        launch.counted += 1
        if self.recorder is not None:
            try:
                self.recorder.cards_counted(showdown_id, launch.counted)
            except Exception as exc:  # the final record says it again
                log.warning("cannot record the card count of %s: %s", showdown_id, exc)
        if launch.counted >= launch.cards:
            self.cards_out()

    def on_exit_launching(self) -> None:
        self.board.launcher.stop()
        self.unschedule("launch")

    def _finish_launch(self) -> None:
        self.board.launcher.stop()
        launch = self._current_launch
        sensor = self.board.has_card_sensor
        outcome, verified = launch_outcome(launch.cards, launch.counted, sensor=sensor)
        if outcome is Launch.JAM:
            log.warning(
                "jam: %d of %d cards counted in %.2f s",
                launch.counted,
                launch.cards,
                self.config.launcher.max_run_s,
            )
        self.emit(
            EventName.LAUNCHED,
            showdown_id=self._current_showdown.showdown_id,
            side=launch.side,
            cards=launch.counted if sensor else launch.cards,
            verified=verified,
            outcome=outcome,
        )
        self._publish(self._result(outcome))

    def _finish_without_launch(self) -> None:
        self._publish(self._result(Launch.NONE))

    def _cancel_showdown(self) -> None:
        if self.state == "launching":
            self.board.launcher.stop()
            self._publish(self._result(Launch.CANCELLED))
        if self.showdown is not None:
            self.emit(EventName.CANCELLED, showdown_id=self.showdown.showdown_id)

    # -- selftest ----------------------------------------------------------------------------

    def on_enter_selftest(self) -> None:
        self._selftest_step()

    def _selftest_step(self) -> None:
        steps, future = present(self._selftest, "selftest", self.state)
        try:
            wait = next(steps)
        except StopIteration as done:
            self._selftest = None
            future.set_result(done.value)
            self.selftest_done()
            return
        self.schedule("selftest", self.clock() + wait, self._selftest_step)

    def on_exit_selftest(self) -> None:
        self.unschedule("selftest")
        if self._selftest is not None:  # cut short: cancel, fault or shutdown
            steps, future = self._selftest
            self._selftest = None
            steps.close()  # its finally makes the outputs safe
            future.set_exception(UnitError("the selftest was stopped before it ended"))

    # -- back to idle, and the results -------------------------------------------------------

    def on_enter_idle(self) -> None:
        self.unschedule(*MACHINE_DEADLINES)
        self.board.safe()
        self.showdown = self.round = self.decision = self._launch = None
        self._recorded = False
        self.fault_reason = None

    def _result(self, launch: Launch) -> Result:
        counted = self._launch.counted if self._launch and self.board.has_card_sensor else None
        rnd = self._current_round
        return result_of(
            self._current_showdown,
            self._current_decision,
            rnd.presses,
            rnd.go_tick,
            launch=launch,
            cards_counted=counted,
            ticks_diff=self.board.ticks_diff,
        )

    def _publish(self, result: Result) -> None:
        self._current_showdown.finished = True
        if self.recorder is not None:
            try:
                self.recorder.finished(result)  # before anyone hears of it
            except Exception as exc:
                if not self._recorded:
                    raise RecordFailed(record_failure(exc, "the result", result)) from exc
                # The verdict is on disk already: tell it, then fault.
                self._remember(result)
                raise RecordFailed(
                    record_failure(exc, "the launch outcome", result) + "; the verdict is recorded"
                ) from exc
        self._remember(result)

    def _remember(self, result: Result) -> None:
        self.results[result.showdown_id] = result
        while len(self.results) > RESULTS_KEPT:
            self.results.popitem(last=False)
        self.last_result = result
        self.emit(EventName.RESULT, **result.to_dict())

    def _state_changed(self) -> None:
        if self.state != self._shown_state:
            previous, self._shown_state = self._shown_state, self.state
            log.info("state %s -> %s", previous, self.state)
            self.emit(EventName.STATE, state=self.state, previous=previous)
