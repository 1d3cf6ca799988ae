"""What the unit shows, sounds and drives right now, and the ``outputs`` event.

:func:`read_outputs` reads the board's output devices (and the paddles) as they
are: the same object goes into the ``status`` reply's ``outputs`` field and
into each ``outputs`` event (docs/protocol.md, "Watching the outputs"). It
reads the devices themselves, so whatever set them (the show, the launcher,
the selftest, ``safe()`` on a fault) is what it reports.

:class:`OutputsWatch` is run by the core at the end of each loop turn while
someone watches: it reads the outputs, and if they differ from the last ones
it sent, it sends them, at most once per :data:`MIN_INTERVAL_S`. A change that
comes sooner waits on a deadline (``outputs``) for the end of that interval and
goes out then with whatever changed meanwhile: a burst of changes is one
event, and the last state is always sent.

>>> from firmware_host.core.deadlines import Deadlines
>>> now, state, sent = [0.0], {"go": False}, []
>>> timers = Deadlines()
>>> watch = OutputsWatch(lambda: dict(state), timers, lambda: now[0], sent.append)
>>> watch.start()
{'go': False}
>>> watch.turn_ended()          # nothing changed since start
>>> state["go"] = True; now[0] = 0.01; watch.turn_ended()   # too soon: waits
>>> sent, timers.next()
([], 0.05)
>>> state["go"] = False; now[0] = 0.02; watch.turn_ended()  # back: nothing to send
>>> sent, timers.next()
([], None)
>>> state["go"] = True; now[0] = 0.2; watch.turn_ended()
>>> sent
[{'go': True}]
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from firmware_host.core.deadlines import Deadlines
from firmware_host.protocol import SIDES

__all__ = ["MIN_INTERVAL_S", "OutputsWatch", "read_outputs"]

log = logging.getLogger(__name__)

#: The shortest time between two ``outputs`` events, in seconds: at most 20 a
#: second, whatever the lights do.
MIN_INTERVAL_S = 0.05

#: The name of the deadline that sends a change held back by MIN_INTERVAL_S.
DEADLINE = "outputs"


def read_outputs(board) -> dict[str, Any]:
    """The outputs as the protocol carries them (JSON-safe):

    - ``leds``: the countdown bar, one true/false per LED, first LED first;
    - ``go``: the GO light;
    - ``arrows``: ``{"a": bool, "b": bool}``, the false-start arrows;
    - ``buzzer``: true/false, or None on a unit without one;
    - ``motor``: ``{"direction": "a"|"b"|None, "speed": 0..1}``, the side the
      cards fly toward while the launcher is driven and its PWM duty
      (direction None and speed 0 when stopped);
    - ``paddles``: ``{"a": bool, "b": bool}``, the paddles' pins held down now.
    """
    launcher = board.launcher
    direction = launcher.direction
    return {
        "leds": [bool(led.value) for led in board.countdown_leds],
        "go": bool(board.go_led.value),
        "arrows": {"a": bool(board.arrow_a.value), "b": bool(board.arrow_b.value)},
        "buzzer": None if board.buzzer is None else bool(board.buzzer.value),
        "motor": {
            "direction": direction,
            "speed": 0.0 if direction is None else round(float(launcher.speed), 3),
        },
        "paddles": {side: bool(board.paddle_is_pressed(side)) for side in SIDES},
    }


class OutputsWatch:
    """Sends the outputs when they change, on the core's thread.

    ``read()`` gives the outputs now; ``send(outputs)`` gets each change;
    ``deadlines`` and ``clock`` are the core's. Between :meth:`start` and
    :meth:`stop` the core calls :meth:`turn_ended` after each loop turn.
    """

    def __init__(
        self,
        read: Callable[[], dict[str, Any]],
        deadlines: Deadlines,
        clock: Callable[[], float],
        send: Callable[[dict[str, Any]], None],
        *,
        min_interval_s: float = MIN_INTERVAL_S,
    ):
        self.read = read
        self.deadlines = deadlines
        self.clock = clock
        self.send = send
        self.min_interval_s = min_interval_s
        self.watching = False
        self.sent: dict[str, Any] | None = None  # what the watchers have now
        self._sent_at: float | None = None
        self._failure: str | None = None  # the read failure logged last

    def start(self) -> dict[str, Any] | None:
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

    def _read(self) -> dict[str, Any] | None:
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
