"""What the board shows and sounds in each phase of a showdown.

:class:`Show` turns what the state machine says ("countdown step 2", "go",
"false start by a") into LEDs and buzzer timings on an :class:`hw.board.Board`:
the countdown bar lit step by step and flashing, a beep per step, the GO light
and tone, the blinking arrow of a paddle held at start, the arrow toward a
false starter. Its timers are deadlines it schedules itself, under the names in
:data:`Show.DEADLINES`, on the core's :class:`~firmware_host.core.deadlines.Deadlines`,
so they fire on the core's thread and clock like every other timer; it decides
nothing about the showdown. docs/timing.md has the table of what each state shows.

>>> from types import SimpleNamespace
>>> from firmware_host.core.deadlines import Deadlines
>>> class Board:
...     countdown_length = 3
...     def show_countdown(self, lit): print("bar", lit)
...     def set_buzzer(self, on): print("buzzer", on)
>>> timing = SimpleNamespace(flash_period_s=0.25, beep_s=0.08)
>>> timers = Deadlines()
>>> show = Show(Board(), timing, timers, clock=lambda: 10.0)
>>> show.countdown_step(2, begins=10.0)
bar 2
buzzer True
>>> while (due := timers.pop_due(now=10.3)) is not None:   # the beep ends, the bar flashes
...     name, action = due; action()
buzzer False
bar 0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from firmware_host.core.deadlines import Deadlines
from firmware_host.protocol import Side

__all__ = ["Show"]


class Show:
    """The light and sound choreography of one unit, driven by its core.

    ``board`` is the :class:`hw.board.Board`; ``timing`` the config's timing
    (``flash_period_s``, ``beep_s``, ``go_tone_s``, ``paddle_warning_s``);
    ``deadlines`` the core's timers and ``clock`` its clock. Call it on the
    core's thread. Dropping its deadlines (:data:`DEADLINES`) and making the
    board safe turns every part of the show off.
    """

    #: The deadlines the show schedules: the countdown bar's flash, the end of
    #: a beep or tone, and the held-paddle arrow's blink and its end.
    DEADLINES = ("flash", "buzzer", "blink", "warning")

    def __init__(self, board, timing, deadlines: Deadlines, clock: Callable[[], float]):
        self.board = board
        self.timing = timing
        self.deadlines = deadlines
        self.clock = clock
        self._step = 0  # the countdown step on the bar
        self._lit = True  # the bar's flash: lit or dark

    # -- armed: a paddle held at start -------------------------------------------

    def paddle_held(self, held: Sequence[Side]) -> None:
        """A start refused because the ``held`` paddles are down: one side
        held, its arrow blinks; both, the arrows alternate; for ``paddle_warning_s``."""
        pattern = (held[0], None) if len(held) == 1 else (Side.A, Side.B)
        period = self.timing.flash_period_s
        now = self.clock()

        def blink(index=0, when=now):
            self.board.set_arrow(pattern[index % 2])
            self.deadlines.schedule("blink", when + period, lambda: blink(index + 1, when + period))

        def stop():
            self.deadlines.cancel("blink")
            self.board.set_arrow(None)

        blink()
        self.deadlines.schedule("warning", now + self.timing.paddle_warning_s, stop)

    def paddle_warning_over(self) -> None:
        """Leaving armed: a held-paddle warning still blinking stops, arrows off."""
        if "warning" in self.deadlines:
            self.deadlines.cancel("blink", "warning")
            self.board.set_arrow(None)

    # -- the countdown, the hold, GO ----------------------------------------------

    def countdown_begins(self) -> None:
        """A countdown (or a tie's re-run) begins: the GO light and the arrows off."""
        self.board.set_go(False)
        self.board.set_arrow(None)

    def countdown_step(self, step: int, begins: float) -> None:
        """Countdown step ``step`` began at clock time ``begins``: the first
        ``step`` LEDs of the bar lit, a beep, and the bar flashing every
        ``flash_period_s`` from ``begins`` (timed from there, so a late
        wake-up does not add up)."""
        self._step, self._lit = step, True
        self.board.show_countdown(step)
        self._sound(self.timing.beep_s)
        self._flash_at(begins + self.timing.flash_period_s)

    def _flash_at(self, when: float) -> None:
        self.deadlines.schedule("flash", when, lambda: self._flash(when))

    def _flash(self, when: float) -> None:
        self._lit = not self._lit
        self.board.show_countdown(self._step if self._lit else 0)
        self._flash_at(when + self.timing.flash_period_s)

    def countdown_ended(self) -> None:
        """The countdown is over (the hold, a false start, a cancel): the bar stops flashing."""
        self.deadlines.cancel("flash")

    def hold(self) -> None:
        """The hold before GO: the whole bar lit, steady."""
        self.board.show_countdown(self.board.countdown_length)

    def go(self) -> float:
        """GO: the bar off, the GO light on, and the GO tone. Returns the pin
        backend's tick read right after the light came on: the GO tick every
        press is measured against."""
        self.board.show_countdown(0)
        self.board.set_go(True)
        tick = self.board.ticks()
        self._sound(self.timing.go_tone_s)
        return tick

    def go_over(self) -> None:
        """Leaving GO: its light off."""
        self.board.set_go(False)

    # -- a false start ----------------------------------------------------------------

    def jumped(self) -> None:
        """A press came before GO: the countdown goes dark at once. The arrow
        waits for the decision (:meth:`false_start`), so it never points at
        the wrong side, not even for a moment."""
        self.board.show_countdown(0)

    def false_start(self, offender: Side) -> None:
        """The decision is a false start by ``offender`` (the decision's loser,
        never worked out here): the arrow toward that side and the GO tone.
        The arrow stays lit through the launch."""
        self.board.set_arrow(offender)
        self._sound(self.timing.go_tone_s)

    # -- the buzzer ------------------------------------------------------------------

    def _sound(self, seconds: float) -> None:
        if seconds <= 0:
            return
        self.board.set_buzzer(True)
        self.deadlines.schedule(
            "buzzer", self.clock() + seconds, lambda: self.board.set_buzzer(False)
        )
