"""What the unit shows, sounds and drives right now, and the ``outputs`` event.

:func:`read_outputs` reads the board's output devices (and the paddles) as they
are, into the protocol's :class:`~firmware_host.protocol.Outputs`: its wire form
goes into the ``status`` reply's ``outputs`` field and into each ``outputs``
event (docs/protocol.md, "Watching the outputs"). It
reads the devices themselves, so whatever set them (the show, the launcher,
the selftest, ``safe()`` on a fault) is what it reports.

:class:`OutputsWatch` is run by the core at the end of each loop turn while
someone watches: it reads the outputs, and if they differ from the last ones
it sent, it sends them, at most once per :data:`MIN_INTERVAL_S`. A change that
comes sooner waits on a deadline (``outputs``) for the end of that interval and
goes out then with whatever changed meanwhile: a burst of changes is one
event, and the last state is always sent.

>>> from firmware_host.core.deadlines import Deadlines
>>> off = Outputs.idle(leds=1)
>>> now, state, sent = [0.0], [off], []
>>> timers = Deadlines()
>>> watch = OutputsWatch(lambda: state[0], timers, lambda: now[0], sent.append)
>>> watch.start() == off
True
>>> watch.turn_ended()          # nothing changed since start
>>> state[0] = off.but(go=True); now[0] = 0.01; watch.turn_ended()   # too soon: waits
>>> sent, timers.next()
([], 0.05)
>>> state[0] = off; now[0] = 0.02; watch.turn_ended()  # back: nothing to send
>>> sent, timers.next()
([], None)
>>> state[0] = off.but(go=True); now[0] = 0.2; watch.turn_ended()
>>> [outputs.go for outputs in sent]
[True]
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from firmware_host.core.deadlines import Deadlines
from firmware_host.protocol import SIDES, Motor, Outputs, SideFlags

__all__ = ["MIN_INTERVAL_S", "OutputsWatch", "read_outputs"]

log = logging.getLogger(__name__)

#: The shortest time between two ``outputs`` events, in seconds: at most 20 a
#: second, whatever the lights do.
MIN_INTERVAL_S = 0.05

#: The name of the deadline that sends a change held back by MIN_INTERVAL_S.
DEADLINE = "outputs"


def read_outputs(board) -> Outputs:
    """The outputs as the devices hold them now: the countdown bar, the GO
    light, the arrows, the buzzer (None on a unit without one), the launcher
    (its direction and PWM duty; stopped, no direction and speed 0) and the
    paddles' pins held down."""
    launcher = board.launcher
    return Outputs(
        leds=tuple(bool(led.value) for led in board.countdown_leds),
        go=bool(board.go_led.value),
        arrows=SideFlags(a=bool(board.arrow_a.value), b=bool(board.arrow_b.value)),
        buzzer=None if board.buzzer is None else bool(board.buzzer.value),
        motor=Motor.driven(launcher.direction, launcher.speed),
        paddles=SideFlags.of({side: board.paddle_is_pressed(side) for side in SIDES}),
    )


class OutputsWatch:
    """Sends the outputs when they change, on the core's thread.

    ``read()`` gives the outputs now; ``send(outputs)`` gets each change;
    ``deadlines`` and ``clock`` are the core's. Between :meth:`start` and
    :meth:`stop` the core calls :meth:`turn_ended` after each loop turn.
    """

    def __init__(
        self,
        read: Callable[[], Outputs],
        deadlines: Deadlines,
        clock: Callable[[], float],
        send: Callable[[Outputs], None],
        *,
        min_interval_s: float = MIN_INTERVAL_S,
    ):
        self.read = read
        self.deadlines = deadlines
        self.clock = clock
        self.send = send
        self.min_interval_s = min_interval_s
        self.watching = False
        self.sent: Outputs | None = None  # what the watchers have now
        self._sent_at: float | None = None
        self._failure: str | None = None  # the read failure logged last

    def start(self) -> Outputs | None:
        """Watch from now on; returns the outputs now (None if they cannot
        be read), which count as sent: the caller gives them to its watchers."""
        self.watching = True
        self.sent, self._sent_at = self._read(), self.clock()
        return self.sent

    def stop(self) -> None:
        self.watching = False
        self.sent = self._sent_at = None
        self.deadlines.cancel(DEADLINE)

    def turn_ended(self) -> None:
        """A loop turn is over: send what changed, or wait for the interval."""
        if not self.watching:
            return
        outputs = self._read()
        if outputs is None or outputs == self.sent:
            self.deadlines.cancel(DEADLINE)  # nothing held back any more
            return
        now = self.clock()
        if self._sent_at is not None and now < self._sent_at + self.min_interval_s:
            if DEADLINE not in self.deadlines:
                self.deadlines.schedule(
                    DEADLINE, self._sent_at + self.min_interval_s, self.turn_ended
                )
            return
        self.deadlines.cancel(DEADLINE)
        self.sent, self._sent_at = outputs, now
        self.send(outputs)

    def _read(self) -> Outputs | None:
        try:
            outputs = self.read()
        except Exception as exc:
            text = f"{type(exc).__name__}: {exc}"
            if text != self._failure:
                log.warning("cannot read the outputs: %s", text)
                self._failure = text
            return None
        self._failure = None
        return outputs
