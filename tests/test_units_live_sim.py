"""LiveSimulatedUnit: a SimulatedUnit's showdowns played out as a unit sends them,
on virtual time; and the unit panel fed by it (its outputs kept from the room)."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from engine.apps.table.access import WRONG_HOST_KEY, HostGate
from engine.apps.table.panel import PANEL_HOST_ONLY, SIM_PRESS_TEXT, PanelPage, UnitPanel
from engine.units import SimulatedUnit
from engine.units.live_sim import (
    DEMO_PACE,
    MIN_INTERVAL_S,
    UNIT_PACE,
    LiveSimulatedUnit,
    idle_outputs,
)
from engine.units.ports import ShowdownRequest
from engine.units.unit_replies import check_event
from firmware_host.protocol import EventName, Outputs
from firmware_host.service.config import load_config
from tests.async_helpers import run_coroutine

PEOPLE = ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "Bob", 2)
BOT_B = ShowdownRequest("m1:r1:s2", 1, 3, "Cat", "bot3", 3, bots={3: 230.0})
TWO_BOTS = ShowdownRequest("m1:r1:s3", 1, 3, "bot1", "bot3", 1, bots={1: 200.0, 3: 260.0})


class Recorder:
    """A table hook that notes each call with the virtual time it came at."""

    def __init__(self, clock):
        self.clock = clock
        self.calls: list[tuple[float, str, object]] = []
        self.said: list[str] = []

    def armed(self, link, request, unit_id):
        self.calls.append((self.clock.now(), "armed!", (link, request, unit_id)))

    def event(self, link, event):
        assert link is None
        self.calls.append((self.clock.now(), event.name, event))

    def say(self, text):
        self.said.append(text)

    def events(self, *, outputs: bool = False):
        return [
            (at, e)
            for at, name, e in self.calls
            if name != "armed!" and (outputs or name != EventName.OUTPUTS)
        ]

    def names(self):
        return [e.name for _, e in self.events()]

    def outputs(self):
        return [(at, dict(e.data)) for at, e in self.events(outputs=True) if e.name == "outputs"]


def live(seed, clock, *, pace=UNIT_PACE, **options):
    table = Recorder(clock)
    unit = LiveSimulatedUnit(
        random.Random(seed),
        pace=pace,
        table=table,
        say=table.say,
        pace_rng=random.Random(1000 + seed),
        clock=clock.now,
        sleep=clock.advance,
        **options,
    )
    return unit, table


def first_seed(request, predicate, **options):
    """The first seed whose first showdown's outcome passes ``predicate``."""
    for seed in range(5000):
        if predicate(SimulatedUnit(random.Random(seed), **options).run_showdown(request)):
            return seed
    raise AssertionError("no such seed in 5000")


def plain(outcome):
    return outcome.reason == "faster" and outcome.tie_reruns == 0


# -- the same outcome as SimulatedUnit ------------------------------------------------------


@pytest.mark.parametrize("request_", [PEOPLE, BOT_B, TWO_BOTS], ids=["people", "bot", "bots"])
def test_the_same_seed_gives_the_same_outcomes_as_simulated_unit(virtual_clock, request_):
    for seed in range(40):
        unit, _ = live(seed, virtual_clock, pace=DEMO_PACE)
        simulated = SimulatedUnit(random.Random(seed))
        for n in range(3):  # the rng is used alike: the next showdowns agree too
            request = dataclasses.replace(request_, showdown_id=f"{request_.showdown_id}.{n}")
            assert unit.run_showdown(request) == simulated.run_showdown(request), seed


def test_ties_and_false_starts_come_out_as_simulated_unit_decides(virtual_clock):
    options = {"tie_threshold_us": 30_000, "max_reruns": 2}
    for seed in range(60):
        unit, _ = live(seed, virtual_clock, pace=DEMO_PACE, **options)
        expected = SimulatedUnit(random.Random(seed), **options).run_showdown(PEOPLE)
        assert unit.run_showdown(PEOPLE) == expected


# -- a plain showdown, step by step -----------------------------------------------------------


def test_a_showdown_sends_the_units_events_in_its_order(virtual_clock):
    seed = first_seed(PEOPLE, plain)
    unit, table = live(seed, virtual_clock)
    outcome = unit.run_showdown(PEOPLE)
    assert table.calls[0][1:] == ("armed!", (None, PEOPLE, "m1:r1:s1"))
    assert table.names() == [
        "state",
        "armed",
        "state",
        "countdown",
        "countdown",
        "countdown",
        "state",
        "state",
        "go",
        "state",
        "state",
        "launched",
        "result",
        "state",
    ]
    states = [(e.data["previous"], e.data["state"]) for _, e in table.events() if e.name == "state"]
    assert states == [
        ("idle", "armed"),
        ("armed", "countdown"),
        ("countdown", "hold"),
        ("hold", "go"),
        ("go", "resolved"),
        ("resolved", "launching"),
        ("launching", "idle"),
    ]
    events = {e.name: e for _, e in table.events()}
    assert [e.data["step"] for _, e in table.events() if e.name == "countdown"] == [1, 2, 3]
    assert events["armed"].data == {
        "showdown_id": "m1:r1:s1",
        "cards": 2,
        "players": {"a": "Ann", "b": "Bob"},
        "bots": [],
    }
    side = {0: "a", 2: "b"}
    assert events["result"].data == {
        "showdown_id": "m1:r1:s1",
        "players": {"a": "Ann", "b": "Bob"},
        "bots": [],
        "winner": side[outcome.winner],
        "loser": side[outcome.loser],
        "reason": "faster",
        "tie_reruns": 0,
        "reaction_us": {"a": outcome.reaction_us[0], "b": outcome.reaction_us[2]},
        "margin_us": outcome.margin_us,
        "cards": 2,
        "launch": "launched",
        "cards_counted": None,
    }
    assert events["launched"].data == {
        "showdown_id": "m1:r1:s1",
        "side": side[outcome.loser],
        "cards": 2,
        "verified": False,
        "outcome": "launched",
    }
    for _, event in table.events():  # every event as the engine checks the unit's
        assert check_event(event.name, event.data) == dict(event.data)
    # numbered 1, 2, 3...; an outputs event repeats the last number
    numbers = [e.seq for _, e in table.events()]
    assert numbers == list(range(1, len(numbers) + 1))
    last = 0
    for _, event in table.events(outputs=True):
        if event.name == "outputs":
            assert event.seq == last
        last = event.seq


def test_the_showdown_runs_in_real_time_at_the_units_default_pace(virtual_clock):
    seed = first_seed(PEOPLE, plain)
    unit, table = live(seed, virtual_clock)
    unit.run_showdown(PEOPLE)
    at = {}
    for when, event in table.events():
        at.setdefault((event.name, event.data.get("step") or event.data.get("state")), when)
    assert at[("armed", None)] == 0.0
    assert at[("countdown", 1)] == pytest.approx(1.0)  # the table starts it a second later
    assert at[("countdown", 2)] == pytest.approx(2.0)
    assert at[("countdown", 3)] == pytest.approx(3.0)
    assert at[("state", "hold")] == pytest.approx(4.0)
    assert 4.5 <= at[("go", None)] <= 6.5  # the unit's hold, 0.5 to 2.5 s
    go = at[("go", None)]
    go_event = next(e for _, e in table.events() if e.name == "go")
    assert go_event.data["ticks"] == pytest.approx(go)
    result = next(e for _, e in table.events() if e.name == "result")
    reactions = sorted(result.data["reaction_us"].values())
    decided = min(go + reactions[1] / 1e6, go + reactions[0] / 1e6 + UNIT_PACE.settle_s)
    assert at[("state", "resolved")] == pytest.approx(decided)
    launch = UNIT_PACE.spin_up_s + 2 * UNIT_PACE.per_card_s
    assert at[("launched", None)] == pytest.approx(decided + launch)


def test_the_outputs_at_each_step_are_the_units(virtual_clock):
    seed = first_seed(PEOPLE, plain)
    unit, table = live(seed, virtual_clock)
    outcome = unit.run_showdown(PEOPLE)
    outputs = table.outputs()
    for _, data in outputs:  # the exact shape of the protocol's outputs event
        assert list(data) == list(EventName.OUTPUTS.fields)
        assert check_event("outputs", data) == data
    for (before, _), (after, _) in itertools.pairwise(outputs):
        assert after - before >= MIN_INTERVAL_S - 1e-9
    for (_, a), (_, b) in itertools.pairwise(outputs):
        assert a != b  # only changes are sent

    def after(name, **match):
        """The outputs sent with (just after) the first such event."""
        calls = table.events(outputs=True)
        index = next(
            i
            for i, (_, e) in enumerate(calls)
            if e.name == name and all(e.data.get(k) == v for k, v in match.items())
        )
        return next(dict(e.data) for _, e in calls[index:] if e.name == "outputs")

    off = idle_outputs()
    for step in (1, 2, 3):
        assert after("countdown", step=step) == {
            **off,
            "leds": [i < step for i in range(3)],
            "buzzer": True,
        }
    assert after("state", state="hold") == {**off, "leds": [True, True, True]}
    assert after("go") == {**off, "go": True, "buzzer": True}
    loser = "a" if outcome.loser == 0 else "b"
    launching = after("state", state="launching")
    assert launching["go"] is False
    assert launching["motor"] == {"direction": loser, "speed": 0.8}
    assert outputs[-1][1] == off
    assert unit.outputs == Outputs.from_wire(off)
    # the countdown bar flashes: dark between the steps' lit phases
    first_step = [d for at, d in outputs if 1.0 <= at < 2.0]
    assert [d["leds"] for d in first_step] == [
        [True, False, False],  # step 1 and its beep
        [True, False, False],  # the beep's end (0.08 s)
        [False, False, False],  # 0.25 s: dark
        [True, False, False],  # 0.5 s: lit
        [False, False, False],  # 0.75 s: dark
    ]
    # both paddles go down, at their reaction times after GO
    presses = [at for at, d in outputs if d["paddles"]["a"] or d["paddles"]["b"]]
    assert presses


def test_a_false_start_lights_the_arrow_toward_the_offender(virtual_clock):
    seed = first_seed(PEOPLE, lambda o: o.reason == "false_start" and o.tie_reruns == 0)
    unit, table = live(seed, virtual_clock)
    outcome = unit.run_showdown(PEOPLE)
    offender = "a" if outcome.loser == 0 else "b"
    names = table.names()
    assert "go" not in names  # it came before GO
    assert names[-6:] == ["state", "false_start", "state", "launched", "result", "state"]
    events = table.events()
    jump = next(e for _, e in events if e.name == "state" and e.data["state"] == "false_start")
    assert jump.data["previous"] in ("countdown", "hold")
    false_start = next(e for _, e in events if e.name == "false_start")
    assert false_start.data == {"showdown_id": "m1:r1:s1", "side": offender}
    result = next(e for _, e in events if e.name == "result")
    assert (result.data["reason"], result.data["loser"]) == ("false_start", offender)
    assert result.data["reaction_us"] == {"a": None, "b": None}
    launching = [d for _, d in table.outputs() if d["motor"]["direction"] is not None]
    assert launching[0]["arrows"] == {"a": offender == "a", "b": offender == "b"}
    assert launching[0]["motor"] == {"direction": offender, "speed": 0.8}
    assert launching[0]["leds"] == [False, False, False]
    assert table.outputs()[-1][1] == idle_outputs()
    assert (
        table.said[-1]
        == f"False start by {['Ann', 'Bob'][offender == 'b']} (side {offender.upper()}). {['Ann', 'Bob'][offender == 'b']} takes 2 cards."
    )


def test_a_near_tie_is_fought_again_with_a_tie_event(virtual_clock):
    options = {"tie_threshold_us": 30_000}
    seed = first_seed(PEOPLE, lambda o: o.reason == "faster" and o.tie_reruns == 1, **options)
    unit, table = live(seed, virtual_clock, **options)
    outcome = unit.run_showdown(PEOPLE)
    events = table.events()
    tie = next(e for _, e in events if e.name == "tie")
    assert tie.data["rerun"] == 1 and tie.data["void"] is False
    assert 0 <= tie.data["gap_us"] < 30_000
    after_tie = [e for _, e in events[events.index(next((a, e) for a, e in events if e is tie)) :]]
    assert [(e.name, dict(e.data).get("previous")) for e in after_tie[:2]] == [
        ("tie", None),
        ("state", "go"),
    ]
    assert [e.data["rerun"] for e in after_tie if e.name == "countdown"] == [1, 1, 1]
    assert [e.name for _, e in events].count("go") == 2
    result = next(e for _, e in events if e.name == "result")
    assert result.data["tie_reruns"] == outcome.tie_reruns == 1
    assert any(line.startswith("  Too close to call (") for line in table.said)


def test_bots_are_named_in_the_armed_event_and_the_result(virtual_clock):
    unit, table = live(3, virtual_clock, pace=DEMO_PACE)
    unit.run_showdown(BOT_B)
    armed = next(e for _, e in table.events() if e.name == "armed")
    assert armed.data["bots"] == ["b"] and armed.data["players"] == {"a": "Cat", "b": "bot3"}
    unit.run_showdown(TWO_BOTS)
    result = [e for _, e in table.events() if e.name == "result"][-1]
    assert result.data["bots"] == ["a", "b"]


def test_the_table_hears_what_a_remote_unit_tells_it(virtual_clock):
    seed = first_seed(PEOPLE, plain)
    unit, table = live(seed, virtual_clock)
    unit.run_showdown(PEOPLE)
    assert table.said[:4] == ["  countdown 1/3", "  countdown 2/3", "  countdown 3/3", "  GO!"]
    assert table.said[-1].startswith(("Ann wins: ", "Bob wins: "))
    assert table.said[-1].endswith("takes 2 cards.")


def test_the_event_numbers_run_on_across_showdowns(virtual_clock):
    unit, table = live(1, virtual_clock, pace=DEMO_PACE)
    unit.run_showdown(PEOPLE)
    first = unit.seq
    unit.run_showdown(dataclasses.replace(PEOPLE, showdown_id="m1:r1:s9"))
    numbers = [e.seq for _, e in table.events()]
    assert numbers == list(range(1, unit.seq + 1)) and unit.seq > first


def test_a_quick_flash_is_coalesced_as_the_unit_does(virtual_clock):
    pace = dataclasses.replace(DEMO_PACE, flash_period_s=0.01, beep_s=0.005)
    unit, table = live(2, virtual_clock, pace=pace)
    unit.run_showdown(PEOPLE)
    times = [at for at, _ in table.outputs()]
    assert all(b - a >= MIN_INTERVAL_S - 1e-9 for a, b in itertools.pairwise(times))
    assert table.outputs()[-1][1] == idle_outputs()


def test_without_a_table_it_is_a_simulated_unit_that_takes_its_time(virtual_clock):
    unit = LiveSimulatedUnit(random.Random(4), clock=virtual_clock.now, sleep=virtual_clock.advance)
    assert unit.run_showdown(PEOPLE) == SimulatedUnit(random.Random(4)).run_showdown(PEOPLE)
    assert virtual_clock.now() > 4.5


def test_the_unit_pace_is_the_units_default_config():
    config = load_config()
    timing, launcher = config.timing, config.launcher
    assert UNIT_PACE.countdown_step_s == timing.countdown_step_s
    assert UNIT_PACE.flash_period_s == timing.flash_period_s
    assert UNIT_PACE.beep_s == timing.beep_s
    assert UNIT_PACE.go_tone_s == timing.go_tone_s
    assert (UNIT_PACE.hold_min_s, UNIT_PACE.hold_max_s) == (timing.hold_min_s, timing.hold_max_s)
    assert UNIT_PACE.settle_s == timing.settle_s
    assert UNIT_PACE.start_s == timing.bot_start_s
    assert UNIT_PACE.speed == launcher.speed
    assert UNIT_PACE.spin_up_s == launcher.spin_up_s
    assert UNIT_PACE.per_card_s == launcher.per_card_s
    assert UNIT_PACE.max_run_s == launcher.max_run_s
    assert UNIT_PACE.leds == len(config.pins.countdown_leds)


# -- the panel fed by a live simulated unit ------------------------------------------------------


def test_the_panel_keeps_the_outputs_and_passes_every_other_event_on(virtual_clock):
    panel = UnitPanel()
    room = Recorder(virtual_clock)
    seen: list[dict] = []
    unit = LiveSimulatedUnit(
        random.Random(first_seed(PEOPLE, plain)),
        table=_Spy(panel.table(room), seen),
        clock=virtual_clock.now,
        sleep=virtual_clock.advance,
    )
    unit.run_showdown(PEOPLE)
    assert "outputs" not in room.names() and room.names()[:2] == ["state", "armed"]
    assert room.calls[0][1] == "armed!"
    view = panel.view()
    assert view["outputs"] == idle_outputs()  # the last outputs: at rest again
    assert view["state"] == "idle" and view["players"] == {"a": "Ann", "b": "Bob"}
    assert view["verdict"].startswith(("Ann wins", "Bob wins"))
    assert (view["simulated"], view["connected"], view["bench"]) == (True, True, False)
    go = [d for d in seen if d["go"]]
    assert go  # the panel was shown GO on the way


class _Spy:
    """Notes the outputs the panel is given, then passes everything on."""

    def __init__(self, inner, seen):
        self.inner, self.seen = inner, seen

    def armed(self, *args):
        self.inner.armed(*args)

    def event(self, link, event):
        if event.name == "outputs":
            self.seen.append(dict(event.data))
        self.inner.event(link, event)


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        (
            "{",
            'not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1)): a panel message is a JSON object like {"type": "press", "side": "a"}',
        ),
        (
            "[1]",
            'not an object: a panel message is a JSON object like {"type": "press", "side": "a"}',
        ),
        (
            '{"type": "kick"}',
            'unknown message type "kick": the panel takes hello, press, release and timer',
        ),
        ('{"type": "press", "side": "c"}', 'press: field "side" must be "a" or "b", not "c"'),
        ('{"type": "release"}', 'release: field "side" must be "a" or "b", not null'),
        ('{"type": "press", "side": "a"}', SIM_PRESS_TEXT),
        ('{"type": "timer"}', SIM_PRESS_TEXT),
    ],
)
def test_a_page_message_the_panel_cannot_carry_out_is_refused_with_why(text, refusal):
    panel = UnitPanel(gate=HostGate(lambda: 0.0, "KEY"))
    page = PanelPage("10.0.0.9")
    assert run_coroutine(panel.receive('{"type": "hello", "host_key": "KEY"}', page)) is None
    assert run_coroutine(panel.receive(text, page)) == refusal


def test_a_panel_page_without_the_host_key_only_watches_and_its_presses_are_refused():
    gate = HostGate(lambda: 0.0, "KEY")
    panel = UnitPanel(gate=gate)
    watcher, wrong, host = PanelPage("10.0.0.7"), PanelPage("10.0.0.8"), PanelPage("10.0.0.9")
    for page, key in ((watcher, None), (wrong, "guess"), (host, "KEY")):
        assert (
            run_coroutine(
                panel.receive(
                    f'{{"type": "hello", "host_key": "{key}"}}' if key else '{"type": "hello"}',
                    page,
                )
            )
            is None
        )
    assert [page.outbox for page in (watcher, wrong, host)] == [
        ['{"type": "welcome", "host": false}'],
        [f'{{"type": "welcome", "host": false, "message": "{WRONG_HOST_KEY}"}}'],
        ['{"type": "welcome", "host": true}'],
    ]
    press = '{"type": "press", "side": "a"}'
    assert run_coroutine(panel.receive(press, watcher)) == PANEL_HOST_ONLY
    assert run_coroutine(panel.receive(press, wrong)) == PANEL_HOST_ONLY
    assert run_coroutine(panel.receive(press)) == PANEL_HOST_ONLY  # no hello at all
    assert run_coroutine(panel.receive(press, host)) == SIM_PRESS_TEXT
    # A new host key: the page that held the old one only watches from now on.
    gate.replace()
    assert run_coroutine(panel.receive(press, host)) == PANEL_HOST_ONLY
    assert PANEL_HOST_ONLY == (
        "this panel only watches: pressing is a host control, and host controls need the "
        "host's key: open the host URL printed where the table was started and the unit "
        "panel from its page"
    )
    # A panel given no gate: nobody presses.
    assert run_coroutine(UnitPanel().receive(press, host)) == PANEL_HOST_ONLY
