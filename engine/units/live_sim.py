"""A simulated unit that fights its showdowns live, as a real unit would show them.

:class:`LiveSimulatedUnit` is a unit port that decides each showdown exactly as
:class:`~engine.units.ports.SimulatedUnit` does (it *is* one: the same draws
from the same ``rng``, so the same seed gives the same outcome; a verdict
decided ahead under the showdown's id, by the table, or given back from a save
file with ``remember``, is the one it plays), then plays it
out in real time in the calling thread (the table's worker thread): it tells
its ``table`` hook every step a real unit sends, in the protocol's shapes, at
the moment the unit would send it:

- ``table.armed(None, request, unit_id)`` when it is armed (there is no link:
  ``None`` stands where a RemoteUnit passes its ``UnitLink``);
- ``table.event(None, event)`` for each event, a
  :class:`firmware_host.protocol.Event` with ``.name``, ``.seq`` and ``.data``:
  ``state``, ``armed``, ``countdown`` (each step), ``go``, ``false_start``,
  ``tie`` (a near-tie, then the countdown runs again), ``launched``,
  ``result``; and ``outputs``, the unit's lights, buzzer, motor and paddles,
  in the exact shape of the protocol's ``outputs`` event (docs/protocol.md,
  "Watching the outputs"), sent as the unit sends them to a client that
  watches: when they change, at most one every :data:`MIN_INTERVAL_S`, the
  last state always;
- ``say(text)``: the lines a RemoteUnit tells the table (each countdown step,
  GO, a tie, then the verdict), in the words of :mod:`firmware_host.people.words`.

Time goes through the ``clock`` and ``sleep`` it is given, so tests run it on
virtual time. The pace is a :class:`Pace`: :data:`UNIT_PACE`, the unit's own
default timing (``firmware_host/service/default.toml``; a test checks they
agree), or :data:`DEMO_PACE`, quicker. The hold before GO and the moment of a
false start are drawn from ``pace_rng``, never from ``rng``.

:func:`script` is the sans-IO heart: the whole showdown as a list of
:class:`Step` (seconds from arming, event name, data).

>>> import random
>>> from engine.units.ports import ShowdownRequest
>>> unit = LiveSimulatedUnit(random.Random(5), pace=DEMO_PACE, pace_rng=random.Random(1),
...                          clock=lambda: 0.0, sleep=lambda s: None)
>>> outcome = unit.run_showdown(ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "Bob", 2))
>>> outcome == SimulatedUnit(random.Random(5)).run_showdown(
...     ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "Bob", 2))
True
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from engine.units.ports import ShowdownOutcome, ShowdownRequest, SimulatedUnit
from engine.units.remote import Table
from engine.units.unit_replies import WireData
from firmware_host.people.reactions import HUMAN, Reactions
from firmware_host.people.words import announce, table_line
from firmware_host.protocol import Event, EventName, Motor, Outputs, Reason, Side, SideFlags

__all__ = [
    "LiveSimulatedUnit",
    "Pace",
    "UNIT_PACE",
    "DEMO_PACE",
    "MIN_INTERVAL_S",
    "Step",
    "script",
    "coalesce",
    "idle_outputs",
]

#: The shortest time between two ``outputs`` events, as on the unit
#: (``firmware_host.core.outputs.MIN_INTERVAL_S``).
MIN_INTERVAL_S = 0.05


@dataclasses.dataclass(frozen=True)
class Pace:
    """How fast a simulated showdown runs, in the unit's config terms
    (``[timing]`` and ``[launcher]``), plus what the simulated people do:
    ``start_s`` from arming to the timer button, ``press_s`` a paddle held down."""

    countdown_step_s: float
    flash_period_s: float
    beep_s: float
    go_tone_s: float
    hold_min_s: float
    hold_max_s: float
    settle_s: float
    spin_up_s: float
    per_card_s: float
    max_run_s: float
    speed: float
    start_s: float = 1.0
    press_s: float = 0.15
    leds: int = 3

    def launch_s(self, cards: int) -> float:
        """How long the launcher runs for ``cards`` cards (never beyond ``max_run_s``)."""
        return min(self.spin_up_s + self.per_card_s * cards, self.max_run_s)


#: The unit's default timing (firmware_host/service/default.toml); ``start_s`` is
#: its ``bot_start_s``, ``press_s`` the bench's hold of a press.
UNIT_PACE = Pace(
    countdown_step_s=1.0,
    flash_period_s=0.25,
    beep_s=0.08,
    go_tone_s=0.4,
    hold_min_s=0.5,
    hold_max_s=2.5,
    settle_s=0.025,
    spin_up_s=0.3,
    per_card_s=0.25,
    max_run_s=3.0,
    speed=0.8,
)
#: A quicker pace for demos: a showdown in about two seconds.
DEMO_PACE = Pace(
    countdown_step_s=0.4,
    flash_period_s=0.1,
    beep_s=0.05,
    go_tone_s=0.2,
    hold_min_s=0.2,
    hold_max_s=0.8,
    settle_s=0.025,
    spin_up_s=0.15,
    per_card_s=0.05,
    max_run_s=1.0,
    speed=0.8,
    start_s=0.3,
)


def idle_outputs(leds: int = 3) -> dict[str, Any]:
    """The wire form of the outputs of a unit at rest: everything off, the motor stopped."""
    return Outputs.idle(leds).to_wire()


@dataclasses.dataclass(frozen=True)
class Step:
    """One thing the unit sends: ``at`` seconds after arming, the event
    ``name`` (``outputs`` included) and its ``data``."""

    at: float
    name: str
    data: Mapping[str, Any]


class _Script:
    """Collects a showdown's events and output changes on its time line."""

    def __init__(self, pace: Pace, unit_id: str):
        self.pace = pace
        self.unit_id = unit_id
        self.events: list[tuple[float, int, str, WireData]] = []
        self.changes: list[tuple[float, int, str, Any]] = []
        self._n = 0

    def event(self, at: float, name: str, **data: Any) -> None:
        self._n += 1
        self.events.append((at, self._n, name, data))

    def state(self, at: float, state: str, previous: str) -> None:
        self.event(at, EventName.STATE, state=state, previous=previous)

    def set(self, at: float, key: str, value: Any) -> None:
        self._n += 1
        self.changes.append((at, self._n, key, value))

    def sound(self, at: float, seconds: float) -> None:
        self.set(at, "buzzer", True)
        self.set(at + seconds, "buzzer", False)

    def press(self, at: float, side: str) -> None:
        self.set(at, f"paddle_{side}", True)
        self.set(at + self.pace.press_s, f"paddle_{side}", False)

    def countdown(self, start: float, rerun: int, until: float) -> None:
        """The countdown of a round from ``start`` and its hold up to GO, cut
        at ``until`` (a false start, or GO)."""
        pace = self.pace
        for step in range(1, pace.leds + 1):
            begins = start + (step - 1) * pace.countdown_step_s
            if begins >= until:
                return
            ends = min(begins + pace.countdown_step_s, until)
            self.event(
                begins,
                EventName.COUNTDOWN,
                showdown_id=self.unit_id,
                step=step,
                steps=pace.leds,
                rerun=rerun,
            )
            self.set(begins, "leds", step)
            self.sound(begins, pace.beep_s)
            flash, lit = 1, False
            while (at := begins + flash * pace.flash_period_s) < ends - 1e-9:
                self.set(at, "leds", 0 if not lit else step)
                flash, lit = flash + 1, not lit
        hold = start + pace.leds * pace.countdown_step_s
        if hold < until:
            self.state(hold, "hold", "countdown")
            self.set(hold, "leds", pace.leds)

    def launch(self, at: float, side: str, cards: int, previous: str) -> float:
        """The launcher toward ``side`` from ``at`` (the unit left the state
        ``previous``); returns when it stops."""
        self.state(at, "launching", previous)
        self.set(at, "motor", side)
        ends = at + self.pace.launch_s(cards)
        self.set(ends, "motor", None)
        self.event(
            ends,
            EventName.LAUNCHED,
            showdown_id=self.unit_id,
            side=side,
            cards=cards,
            verified=False,
            outcome="launched",
        )
        return ends

    def outputs(self) -> list[tuple[float, Outputs]]:
        """The outputs after each moment that changed them, in time order."""
        state: dict[str, Any] = {
            "leds": 0,
            "go": False,
            "arrow_a": False,
            "arrow_b": False,
            "buzzer": False,
            "motor": None,
            "paddle_a": False,
            "paddle_b": False,
        }
        readings: list[tuple[float, Outputs]] = []
        for at, _, key, value in sorted(self.changes, key=lambda c: (c[0], c[1])):
            state[key] = value
            reading = (at, self._shape(state))
            if readings and abs(readings[-1][0] - at) < 1e-9:
                readings[-1] = reading
            else:
                readings.append(reading)
        return readings

    def _shape(self, state: Mapping[str, Any]) -> Outputs:
        return Outputs(
            leds=tuple(step < state["leds"] for step in range(self.pace.leds)),
            go=state["go"],
            arrows=SideFlags(a=state["arrow_a"], b=state["arrow_b"]),
            buzzer=state["buzzer"],
            motor=Motor.driven(state["motor"], self.pace.speed),
            paddles=SideFlags(a=state["paddle_a"], b=state["paddle_b"]),
        )


_Reading = TypeVar("_Reading")


def coalesce(
    readings: Sequence[tuple[float, _Reading]],
    start: _Reading,
    min_interval_s: float = MIN_INTERVAL_S,
) -> list[tuple[float, _Reading]]:
    """The ``outputs`` events a watcher gets for these readings (each the
    outputs after a moment that changed them), by the unit's rule
    (``firmware_host.core.outputs.OutputsWatch``): a change is sent at once
    unless the last one went out less than ``min_interval_s`` ago; then it
    waits for the end of that interval and goes out with whatever changed
    meanwhile; a change undone within it sends nothing.

    >>> on, off = {"go": True}, {"go": False}
    >>> coalesce([(1.0, on), (1.01, off), (1.02, on), (1.2, off)], off)
    [(1.0, {'go': True}), (1.2, {'go': False})]
    >>> coalesce([(1.0, on), (1.01, off)], off)
    [(1.0, {'go': True}), (1.05, {'go': False})]
    """
    sent, sent_at = start, None
    due: float | None = None  # when a held-back change goes out
    current = start
    out: list[tuple[float, _Reading]] = []
    ends: list[tuple[float, _Reading | None]] = [(float("inf"), None)]
    for at, outputs in [*readings, *ends]:
        if due is not None and due <= at:
            if current != sent:
                sent, sent_at = current, due
                out.append((due, current))
            due = None
        if outputs is None:
            break
        current = outputs
        if outputs == sent:
            due = None
        elif sent_at is None or at >= sent_at + min_interval_s - 1e-9:
            sent, sent_at, due = outputs, at, None
            out.append((at, outputs))
        elif due is None:
            due = sent_at + min_interval_s
    return out


def script(
    request: ShowdownRequest,
    unit_id: str,
    outcome: ShowdownOutcome,
    rounds: Sequence[Mapping[int, int]],
    pace: Pace,
    pace_rng: random.Random,
    *,
    ticks: float = 0.0,
) -> list[Step]:
    """A showdown as the unit sends it: every event and ``outputs`` event,
    in order, timed from arming.

    ``rounds`` are the presses (player -> reaction in us) of each countdown
    that reached GO, as the simulation drew them: every one but the last was
    a near-tie, fought again; after a false start (``outcome.reason``) all of
    them were, and the false start comes in the countdown after them.
    ``ticks`` is the clock at arming (a ``go`` event's ``ticks`` is its clock
    time). The hold before each GO and the moment of a false start are drawn
    from ``pace_rng``.
    """
    side_of = {request.challenger: Side.A.value, request.opponent: Side.B.value}
    false_start = outcome.reason is Reason.FALSE_START
    ties = rounds if false_start else rounds[:-1]
    s = _Script(pace, unit_id)
    names = {"a": request.challenger_name, "b": request.opponent_name}
    bots = sorted(side_of[p] for p in request.bots)
    s.state(0.0, "armed", "idle")
    s.event(
        0.0, EventName.ARMED, showdown_id=unit_id, cards=request.cards, players=names, bots=bots
    )
    start = pace.start_s
    s.state(start, "countdown", "armed")
    rerun = 0
    last_press = start
    while True:
        go = (
            start
            + pace.leds * pace.countdown_step_s
            + pace_rng.uniform(pace.hold_min_s, pace.hold_max_s)
        )
        if false_start and rerun == len(ties):
            side = side_of[outcome.loser]
            ends, last_press = _false_start(s, start, go, rerun, side, request.cards, pace_rng)
            break
        decided, last_press = _go(s, start, go, rerun, rounds[rerun], side_of, ticks)
        if rerun < len(ties):
            _tie(s, decided, rounds[rerun], rerun + 1)
            rerun += 1
            start = decided
            continue
        s.set(decided, "go", False)
        s.state(decided, "resolved", "go")
        ends = s.launch(decided, side_of[outcome.loser], request.cards, "resolved")
        break
    done = max(ends, last_press)
    _result(s, done, request, outcome, side_of, names, bots)
    return _steps(s, pace)


def _go(
    s: _Script,
    start: float,
    go: float,
    rerun: int,
    presses_us: Mapping[int, int],
    side_of: dict[int, str],
    ticks: float,
) -> tuple[float, float]:
    """A countdown that reached GO, and both presses (player -> reaction in
    us); when it is decided and when the second press was."""
    pace = s.pace
    s.countdown(start, rerun, until=go)
    s.state(go, "go", "hold")
    s.event(go, EventName.GO, showdown_id=s.unit_id, ticks=round(ticks + go, 6))
    s.set(go, "leds", 0)
    s.set(go, "go", True)
    s.sound(go, pace.go_tone_s)
    presses = {p: go + us / 1e6 for p, us in presses_us.items()}
    for player, at in presses.items():
        s.press(at, side_of[player])
    first, second = sorted(presses.values())
    return min(second, first + pace.settle_s), second


def _tie(s: _Script, decided: float, presses_us: Mapping[int, int], rerun: int) -> None:
    """A near-tie at ``decided``: the countdown runs again (``rerun``, from 1)."""
    times = list(presses_us.values())
    s.event(
        decided,
        EventName.TIE,
        showdown_id=s.unit_id,
        gap_us=abs(times[0] - times[1]),
        rerun=rerun,
        void=False,
    )
    s.state(decided, "countdown", "go")
    s.set(decided, "go", False)


def _false_start(
    s: _Script,
    start: float,
    go: float,
    rerun: int,
    side: str,
    cards: int,
    pace_rng: random.Random,
) -> tuple[float, float]:
    """The countdown ``side`` jumped (before ``go``): its false start, its cards
    launched; when the launch ends and when the press was."""
    pace = s.pace
    jump = start + pace_rng.uniform(0.3, 0.95) * (go - start)
    s.countdown(start, rerun, until=jump)
    was = "countdown" if jump < start + pace.leds * pace.countdown_step_s else "hold"
    s.state(jump, "false_start", was)
    s.set(jump, "leds", 0)
    s.press(jump, side)
    decided = jump + pace.settle_s
    s.event(decided, EventName.FALSE_START, showdown_id=s.unit_id, side=side)
    s.set(decided, f"arrow_{side}", True)
    s.sound(decided, pace.go_tone_s)
    return s.launch(decided, side, cards, "false_start"), jump


def _result(
    s: _Script,
    done: float,
    request: ShowdownRequest,
    outcome: ShowdownOutcome,
    side_of: dict[int, str],
    names: dict[str, str],
    bots: list[str],
) -> None:
    """The verdict at ``done``, and the unit idle again."""
    unit_id = s.unit_id
    s.event(
        done,
        EventName.RESULT,
        showdown_id=unit_id,
        players=names,
        bots=bots,
        winner=side_of[outcome.winner],
        loser=side_of[outcome.loser],
        reason=outcome.reason,
        tie_reruns=outcome.tie_reruns,
        reaction_us={side_of[p]: outcome.reaction_us.get(p) for p in request.players},
        margin_us=outcome.margin_us,
        cards=request.cards,
        launch="launched",
        cards_counted=None,
    )
    s.state(done, "idle", "launching")
    for key in ("go", "arrow_a", "arrow_b", "buzzer"):
        s.set(done, key, False)
    s.set(done, "leds", 0)


def _steps(s: _Script, pace: Pace) -> list[Step]:
    """The script's events and its outputs (coalesced as the unit sends them), in time order."""
    steps = [(at, 0, n, name, data) for at, n, name, data in s.events]
    steps += [
        (at, 1, 0, EventName.OUTPUTS.value, outputs.to_wire())
        for at, outputs in coalesce(s.outputs(), Outputs.idle(pace.leds))
    ]
    steps.sort(key=lambda step: (round(step[0], 9), step[1], step[2]))
    return [Step(round(at, 6), str(name), data) for at, _, _, name, data in steps]


class LiveSimulatedUnit(SimulatedUnit):
    """A :class:`SimulatedUnit` that plays each showdown out live; see the
    module docstring. ``table`` gets ``armed`` and ``event`` (``outputs``
    events included), ``say`` the table's lines; ``clock`` and ``sleep`` are
    the time it runs on; ``pace_rng`` draws the holds and the false starts'
    moments. :attr:`outputs` is what the unit shows now."""

    def __init__(
        self,
        rng: random.Random,
        *,
        reactions: Reactions = HUMAN,
        tie_threshold_us: int = 200,
        max_reruns: int = 3,
        pace: Pace = UNIT_PACE,
        table: Table | None = None,
        say: Callable[[str], None] | None = None,
        pace_rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        super().__init__(
            rng, reactions=reactions, tie_threshold_us=tie_threshold_us, max_reruns=max_reruns
        )
        self.pace = pace
        self.table = table
        self.say = say
        self.pace_rng = pace_rng or random.Random()
        self.clock = clock
        self.sleep = sleep
        self.seq = 0  # the last numbered event, as a unit counts them
        self.outputs = Outputs.idle(pace.leds)

    def __repr__(self) -> str:
        return f"LiveSimulatedUnit(pace={self.pace.countdown_step_s:g} s a step)"

    def run_showdown(self, request: ShowdownRequest) -> ShowdownOutcome:
        # decided as SimulatedUnit decides, or decided ahead (by the table, saved
        # with its match) under this id: then played out with that verdict
        verdict = self.verdict_for(request)
        outcome = verdict.outcome
        unit_id = request.showdown_id
        began = self.clock()
        steps = script(
            request, unit_id, outcome, verdict.rounds, self.pace, self.pace_rng, ticks=began
        )
        if self.table is not None:
            # No link here: None stands where a RemoteUnit passes its UnitLink (Table types it so).
            self.table.armed(None, request, unit_id)  # type: ignore[arg-type]
        names = {"a": request.challenger_name, "b": request.opponent_name}
        for step in steps:
            wait = began + step.at - self.clock()
            if wait > 0:
                self.sleep(wait)
            self._send(step, names)
        return outcome

    def _send(self, step: Step, names: Mapping[str, str]) -> None:
        if step.name == EventName.OUTPUTS:
            self.outputs = Outputs.from_wire(step.data)
        else:
            self.seq += 1
        if self.table is not None:
            event = Event(step.name, self.seq, dict(step.data))
            self.table.event(None, event)  # type: ignore[arg-type]  # no link: None, as above
        if self.say is None or step.name in (EventName.OUTPUTS, EventName.FALSE_START):
            return
        if step.name == EventName.RESULT:
            self.say(announce(step.data))
        elif (line := table_line(step.name, step.data, names)) is not None:
            self.say(line)
