"""Every transition of the showdown machine, on mock pins and virtual time: arming,
the countdown, GO, false starts and ties (the paddles held, the timer button, the
launcher, cancel, faults, the journal and the selftest: test_machine_launch_faults.py).

Each test drives the real ShowdownCore and hw.Board through a VirtualRig and
asserts the output pins (LED bar, GO, arrows, buzzer, H-bridge pins and PWM
duty) as the showdown goes. Nothing sleeps: the rig moves virtual time to each
deadline in turn.
"""

import random

import pytest

from firmware_host.core.errors import (
    BusyError,
    InvalidArgumentError,
    InvalidCardsError,
    NotArmedError,
)
from firmware_host.core.result import Result
from tests.machine_helpers import (
    OFF,
    PLAYERS,
    SEED,
    make_rig,
    outputs,
    results,
    start,
    states,
    to_go,
)


@pytest.fixture
def rig():
    with make_rig() as rig:
        yield rig


# -- idle, armed, errors -------------------------------------------------------------


def test_the_core_starts_idle_with_every_output_off(rig):
    assert rig.state == "idle"
    assert rig.pins() == OFF
    assert rig.core.next_deadline() is None  # an idle unit waits for nothing


def test_arm_moves_idle_to_armed_and_reports_the_showdown(rig):
    status = rig.core.arm("sd-1", 3, PLAYERS)
    assert rig.state == "armed"
    assert status["showdown"] == {
        "showdown_id": "sd-1",
        "cards": 3,
        "players": PLAYERS,
        "bots": [],
        "tie_reruns": 0,
    }
    assert [(e.name, e.data) for e in rig.events] == [
        ("state", {"state": "armed", "previous": "idle"}),
        ("armed", {"showdown_id": "sd-1", "cards": 3, "players": PLAYERS, "bots": []}),
    ]
    assert rig.pins() == OFF


def test_arm_another_id_while_armed_is_busy_and_keeps_the_armed_showdown(rig):
    rig.core.arm("sd-1", 3, PLAYERS)
    with pytest.raises(BusyError) as caught:
        rig.core.arm("sd-2", 1, None)
    assert caught.value.code == "busy"
    assert str(caught.value) == "showdown 'sd-1' is armed: cancel it before arming another"
    assert rig.core.status()["showdown"] == {
        "showdown_id": "sd-1",
        "cards": 3,
        "players": PLAYERS,
        "bots": [],
        "tie_reruns": 0,
    }


def test_arm_the_armed_id_again_answers_the_status_without_a_second_armed_event(rig):
    rig.core.arm("sd-1", 3, PLAYERS)
    status = rig.core.arm("sd-1", 3, PLAYERS)
    assert status["state"] == "armed"
    assert [e.name for e in rig.events].count("armed") == 1


def test_arm_after_cancel_takes_the_new_showdown(rig):
    rig.core.arm("sd-1", 3, PLAYERS)
    rig.core.cancel()
    rig.core.arm("sd-2", 1, None)
    assert rig.core.status()["showdown"]["showdown_id"] == "sd-2"


@pytest.mark.parametrize("cards", [0, 11, -1, True, 2.0, "2", None])
def test_arm_refuses_a_card_count_outside_one_to_max(rig, cards):
    with pytest.raises(InvalidCardsError) as caught:
        rig.core.arm("sd-1", cards, PLAYERS)
    assert caught.value.code == "invalid_cards"
    assert str(caught.value) == f"cards must be a whole number from 1 to 10, not {cards!r}"
    assert rig.state == "idle"


@pytest.mark.parametrize(
    "showdown_id, players",
    [
        ("", PLAYERS),
        (" ", PLAYERS),
        (42, PLAYERS),
        ("x" * 65, PLAYERS),
        ("sd-1", {"a": "Ann"}),
        ("sd-1", {"a": "Ann", "b": ""}),
        ("sd-1", ["Ann", "Bob"]),
    ],
)
def test_arm_refuses_bad_ids_and_players(rig, showdown_id, players):
    with pytest.raises(InvalidArgumentError) as caught:
        rig.core.arm(showdown_id, 2, players)
    assert caught.value.code == "invalid_argument"
    assert rig.state == "idle"


@pytest.mark.parametrize(
    "players, message",
    [
        (
            {"a": "Ann\u202e", "b": "Bob"},
            "field 'players.a' must be a name of 1 to 40 printable "
            'characters, not "Ann\u202e" (it holds U+202E (Cf))',
        ),
        (
            {"a": "Bob", "b": "\u200bBob"},
            "field 'players.b' must be a name of 1 to 40 printable "
            'characters, not "\u200bBob" (it holds U+200B (Cf))',
        ),
        (
            {"a": "Bob", "b": "BOB "},
            "field 'players' must name two different players, not \"Bob\" twice",
        ),
    ],
)
def test_arm_checks_names_as_the_protocol_does(rig, players, message):
    with pytest.raises(InvalidArgumentError) as caught:
        rig.core.arm("sd-1", 2, players)
    assert str(caught.value) == message


def test_arm_keeps_names_as_the_protocol_normalises_them(rig):
    status = rig.core.arm("sd-1", 2, {"a": "  Zoe\u0308  Smith ", "b": "Bob"})
    assert status["showdown"]["players"] == {"a": "Zo\u00eb Smith", "b": "Bob"}


def test_start_without_an_armed_showdown_is_not_armed(rig):
    with pytest.raises(NotArmedError) as caught:
        rig.core.start()
    assert (caught.value.code, str(caught.value)) == (
        "not_armed",
        "no showdown is armed: arm one first",
    )


def test_arm_and_start_while_running_are_busy(rig):
    start(rig)
    for command in (lambda: rig.core.arm("sd-2", 2, PLAYERS), rig.core.start):
        with pytest.raises(BusyError) as caught:
            command()
        assert (caught.value.code, str(caught.value)) == (
            "busy",
            "the unit is busy: state is 'countdown'",
        )
    assert rig.core.status()["showdown"]["showdown_id"] == "sd-1"


def test_presses_and_cards_while_idle_or_armed_are_ignored(rig):
    rig.bench.tap("a")
    rig.advance(0.5)
    rig.core.arm("sd-1", 2, PLAYERS)
    rig.bench.tap("b")
    rig.advance(0.5)
    assert rig.state == "armed"
    assert rig.names() == ["armed"]


# -- countdown, hold, go --------------------------------------------------------------


def test_countdown_lights_one_more_led_per_step_flashing_with_a_beep_each(rig):
    t0 = rig.clock()
    start(rig)
    seen = []
    for offset in (0.0, 0.099, 0.1, 0.25, 0.5, 0.75, 1.0, 1.1, 1.25, 2.0, 2.5):
        rig.run_until(t0 + offset)
        pins = rig.pins()
        seen.append((offset, pins["bar"], pins["buzzer"]))
    assert seen == [
        (0.0, (1, 0, 0), 1),
        (0.099, (1, 0, 0), 1),
        (0.1, (1, 0, 0), 0),
        (0.25, (0, 0, 0), 0),
        (0.5, (1, 0, 0), 0),
        (0.75, (0, 0, 0), 0),
        (1.0, (1, 1, 0), 1),
        (1.1, (1, 1, 0), 0),
        (1.25, (0, 0, 0), 0),
        (2.0, (1, 1, 1), 1),
        (2.5, (1, 1, 1), 0),
    ]
    assert [(e.data["step"], e.data["steps"]) for e in rig.events if e.name == "countdown"] == [
        (1, 3),
        (2, 3),
        (3, 3),
    ]


def test_hold_keeps_the_bar_lit_for_a_random_time_from_the_injected_rng(rig):
    t0 = rig.clock()
    go = start(rig)
    hold = random.Random(SEED).uniform(1.0, 2.0)
    assert go == t0 + 3.0 + hold
    rig.run_until(t0 + 3.0)
    assert rig.state == "hold"
    assert rig.pins() == outputs(bar=(1, 1, 1))
    rig.run_until(go - 1e-6)
    assert (rig.state, rig.pins()) == ("hold", outputs(bar=(1, 1, 1)))


def test_go_lights_green_sounds_the_tone_and_reports_the_go_tick(rig):
    go = to_go(rig)
    assert rig.pins() == outputs(go=1, buzzer=1)
    assert [e.data for e in rig.events if e.name == "go"] == [{"showdown_id": "sd-1", "ticks": go}]
    assert rig.core.round.go_tick == go
    rig.run_until(go + 0.4)
    assert rig.pins() == outputs(go=1)


def test_faster_press_wins_after_the_settle_window_and_launches_at_the_loser(rig):
    go = to_go(rig, cards=2)
    rig.bench.press("a", offset_s=0.2)
    rig.bench.press("b", offset_s=0.25)
    rig.run_until(go + 0.2)
    assert rig.state == "go"  # waiting settle_s for b's edge
    rig.run_until(go + 0.2049)
    assert rig.state == "go"
    rig.run_until(go + 0.205)
    assert rig.state == "launching"
    assert rig.pins() == outputs(motor_b=1, duty=0.8, buzzer=1)  # the GO tone plays on
    rig.run_until(go + 0.4)
    assert rig.pins() == outputs(motor_b=1, duty=0.8)
    rig.run_until(go + 0.205 + 0.8 - 1e-6)  # spin_up 0.3 + 0.25 per card
    assert rig.pins()["duty"] == 0.8
    rig.run_until(go + 0.205 + 0.8)
    assert rig.state == "idle"
    assert rig.pins() == OFF
    assert [e.data for e in rig.events if e.name == "launched"] == [
        {"showdown_id": "sd-1", "side": "b", "cards": 2, "verified": False, "outcome": "launched"}
    ]
    assert results(rig) == [
        Result(
            showdown_id="sd-1",
            players=PLAYERS,
            winner="a",
            loser="b",
            reason="faster",
            tie_reruns=0,
            reaction_us={"a": 200000, "b": 250000},
            margin_us=50000,
            cards=2,
            launch="launched",
            cards_counted=None,
        )
    ]
    assert states(rig) == ["armed", "countdown", "hold", "go", "resolved", "launching", "idle"]
    assert rig.core.result("sd-1") == results(rig)[0]


def test_when_both_edges_are_in_the_decision_does_not_wait_for_the_window(rig):
    go = to_go(rig)
    rig.bench.press("a", offset_s=0.2)
    rig.bench.press("b", offset_s=0.201)
    rig.run_until(go + 0.201)
    assert rig.state == "launching"
    assert rig.pins() == outputs(motor_b=1, duty=0.8, buzzer=1)


def test_a_press_exactly_at_the_go_tick_is_valid(rig):
    to_go(rig)
    rig.bench.press("b", offset_s=0.0)
    rig.advance(5)
    result = results(rig)[0]
    assert (result.winner, result.reason, result.reaction_us) == (
        "b",
        "faster",
        {"a": None, "b": 0},
    )


def test_nobody_presses_times_out_with_no_launch(rig):
    go = to_go(rig)
    rig.run_until(go + 3.0 - 1e-6)
    assert rig.state == "go"
    rig.run_until(go + 3.0)
    assert rig.state == "idle"
    assert rig.pins() == OFF
    assert states(rig)[-3:] == ["go", "timeout", "idle"]
    assert results(rig) == [
        Result(
            showdown_id="sd-1",
            players=PLAYERS,
            winner=None,
            loser=None,
            reason="timeout",
            tie_reruns=0,
            reaction_us={"a": None, "b": None},
            margin_us=None,
            cards=2,
            launch="none",
            cards_counted=None,
        )
    ]
    assert "launched" not in rig.names()


# -- false starts and interleavings -------------------------------------------------------


def test_a_press_in_the_countdown_stops_it_and_points_the_arrow_at_the_offender(rig):
    t0 = rig.clock()
    start(rig, cards=3)
    rig.run_until(t0 + 1.3)
    rig.bench.press("a")
    rig.core.pump()
    assert rig.state == "false_start"
    assert rig.pins() == OFF  # the countdown stops; the arrow waits for the decision
    rig.run_until(t0 + 1.3 + 0.005)  # the settle window: decided, recorded, then shown
    assert rig.state == "launching"
    assert rig.pins() == outputs(arrow_a=1, motor_a=1, duty=0.8, buzzer=1)
    rig.run_until(t0 + 1.3 + 0.005 + 0.4)  # the tone is over
    assert rig.pins() == outputs(arrow_a=1, motor_a=1, duty=0.8)
    rig.advance(5)
    assert [e.data["step"] for e in rig.events if e.name == "countdown"] == [1, 2]
    assert [e.data for e in rig.events if e.name == "false_start"] == [
        {"showdown_id": "sd-1", "side": "a"}
    ]
    assert results(rig) == [
        Result(
            showdown_id="sd-1",
            players=PLAYERS,
            winner="b",
            loser="a",
            reason="false_start",
            tie_reruns=0,
            reaction_us={"a": None, "b": None},
            margin_us=None,
            cards=3,
            launch="launched",
            cards_counted=None,
        )
    ]
    assert rig.pins() == OFF


def test_the_arrow_points_where_the_decision_says_nothing_else_works_out_who_jumped(
    rig, monkeypatch
):
    from firmware_host.core import machine
    from firmware_host.core.decide import Decision, Outcome

    # A jumps, but the decision (the one place that says who jumped) blames B.
    blame_b = Decision(Outcome.FALSE_START, winner="a", loser="b")
    monkeypatch.setattr(machine, "decide", lambda *args, **kwargs: blame_b)
    t0 = rig.clock()
    start(rig)
    rig.run_until(t0 + 1.3)
    rig.bench.press("a")
    rig.run_until(t0 + 1.3 + 0.005)
    assert rig.pins() == outputs(arrow_b=1, motor_b=1, duty=0.8, buzzer=1)
    assert [e.data["side"] for e in rig.events if e.name == "false_start"] == ["b"]


def test_a_press_in_the_hold_is_a_false_start(rig):
    go = start(rig)
    rig.bench.press("b", offset_s=-0.3)
    rig.run_until(go - 0.3)
    assert (rig.state, rig.pins()) == ("false_start", OFF)
    rig.run_until(go - 0.3 + 0.005)
    assert (rig.state, rig.pins()) == (
        "launching",
        outputs(arrow_b=1, buzzer=1, motor_b=1, duty=0.8),
    )
    rig.advance(5)
    assert (results(rig)[0].loser, results(rig)[0].reason) == ("b", "false_start")


def test_both_jump_early_and_the_earlier_tick_delivered_second_is_the_offender(rig):
    t0 = rig.clock()
    start(rig)
    rig.run_until(t0 + 0.5)
    rig.bench.press("a")  # a's edge arrives first ...
    rig.bench.press("b", tick=t0 + 0.499, delay_s=0.003)  # ... b pressed 1 ms earlier
    rig.core.pump()
    assert rig.pins()["arrow_a"] == rig.pins()["arrow_b"] == 0  # no arrow before the decision
    rig.run_until(t0 + 0.5025)
    assert rig.state == "launching"
    assert rig.pins() == outputs(arrow_b=1, motor_b=1, duty=0.8, buzzer=1)
    rig.advance(5)
    result = results(rig)[0]
    assert (result.reason, result.loser, result.winner, result.margin_us) == (
        "false_start",
        "b",
        "a",
        1000,
    )


def test_a_false_start_whose_callback_arrives_after_go_is_still_a_false_start(rig):
    go = start(rig)
    rig.bench.press("b", offset_s=-0.003, delay_s=0.010)  # tick before GO, delivered GO+7 ms
    rig.bench.press("a", offset_s=0.2)
    rig.run_until(go + 0.006)
    assert (rig.state, rig.pins()) == ("go", outputs(go=1, buzzer=1))
    rig.run_until(go + 0.007)
    assert rig.state == "false_start"
    assert rig.pins() == outputs(buzzer=1)  # the GO tone; no arrow yet
    rig.run_until(go + 0.012)
    assert rig.pins() == outputs(arrow_b=1, buzzer=1, motor_b=1, duty=0.8)
    rig.advance(5)
    result = results(rig)[0]
    assert (result.reason, result.loser, result.winner) == ("false_start", "b", "a")
    assert result.reaction_us["b"] == -3000  # measured from the GO tick


def test_reversed_callback_order_the_tick_decides_not_the_arrival(rig):
    go = to_go(rig)
    rig.bench.press("a", offset_s=0.2000)  # delivered at once
    rig.bench.press("b", offset_s=0.1996, delay_s=0.003)  # 0.4 ms earlier, delivered later
    rig.run_until(go + 0.2)
    assert rig.state == "go"
    rig.advance(5)
    result = results(rig)[0]
    assert (result.winner, result.loser, result.margin_us) == ("b", "a", 400)
    assert result.reaction_us == {"a": 200000, "b": 199600}


def test_bounces_after_the_first_press_do_not_move_its_tick(rig):
    to_go(rig)
    rig.bench.press("a", offset_s=0.2)
    for k, offset in enumerate((0.2003, 0.2008, 0.2012, 0.202, 0.203)):
        (rig.bench.release if k % 2 == 0 else rig.bench.press)("a", offset_s=offset)
    rig.bench.press("b", offset_s=0.2004)
    rig.advance(5)
    result = results(rig)[0]
    assert (result.winner, result.reaction_us["a"], result.margin_us) == ("a", 200000, 400)


def test_min_reaction_turns_a_too_fast_press_into_a_false_start():
    with make_rig(min_reaction_ms=100) as rig:
        go = to_go(rig)
        rig.bench.press("a", offset_s=0.05)
        rig.bench.press("b", offset_s=0.2)
        rig.run_until(go + 0.05)
        assert (rig.state, rig.pins()) == ("false_start", outputs(buzzer=1))
        rig.run_until(go + 0.055)
        assert rig.pins() == outputs(arrow_a=1, buzzer=1, motor_a=1, duty=0.8)
        rig.advance(5)
        result = results(rig)[0]
        assert (result.reason, result.loser, result.reaction_us["a"]) == ("false_start", "a", 50000)


def test_min_reaction_allows_a_press_exactly_at_the_limit():
    with make_rig(min_reaction_ms=100) as rig:
        to_go(rig)
        rig.bench.press("a", offset_s=0.1)
        rig.advance(5)
        assert (results(rig)[0].reason, results(rig)[0].winner) == ("faster", "a")


# -- ties --------------------------------------------------------------------------------


def test_a_tie_reruns_the_countdown_and_counts_the_rerun(rig):
    go = to_go(rig)
    rig.bench.press("a", offset_s=0.2)
    rig.bench.press("b", offset_s=0.2001)  # 100 us: under the 200 us threshold
    rig.bench.release("a", offset_s=0.4)
    rig.bench.release("b", offset_s=0.4)
    rig.run_until(go + 0.2001)
    assert rig.state == "countdown"
    assert rig.pins() == outputs(bar=(1, 0, 0), buzzer=1)
    assert [e.data for e in rig.events if e.name == "tie"] == [
        {"showdown_id": "sd-1", "gap_us": 100, "rerun": 1, "void": False}
    ]
    assert rig.core.status()["showdown"]["tie_reruns"] == 1
    second_go = rig.core.round.planned_go
    rig.bench.press("b", offset_s=0.3)
    rig.run_until(second_go)
    rig.advance(5)
    result = results(rig)[0]
    assert (result.winner, result.tie_reruns, result.reaction_us) == (
        "b",
        1,
        {"a": None, "b": 300000},
    )


def test_a_tie_with_the_void_policy_ends_with_no_winner_and_no_launch():
    with make_rig(tie_policy="void") as rig:
        go = to_go(rig)
        rig.bench.press("a", offset_s=0.2)
        rig.bench.press("b", offset_s=0.2)  # the same tick
        rig.run_until(go + 0.2)
        assert rig.state == "idle"
        assert rig.pins() == OFF
        assert states(rig)[-3:] == ["go", "resolved", "idle"]
        assert results(rig) == [
            Result(
                showdown_id="sd-1",
                players=PLAYERS,
                winner=None,
                loser=None,
                reason="tie_void",
                tie_reruns=0,
                reaction_us={"a": 200000, "b": 200000},
                margin_us=0,
                cards=2,
                launch="none",
                cards_counted=None,
            )
        ]
        assert [e.data["void"] for e in rig.events if e.name == "tie"] == [True]


def test_after_max_tie_reruns_a_tie_is_void():
    with make_rig(max_tie_reruns=1) as rig:
        for _ in range(2):
            go = rig.core.round.planned_go if rig.core.round else to_go(rig)
            rig.run_until(go)
            rig.bench.press("a", offset_s=0.2)
            rig.bench.press("b", offset_s=0.20005)
            rig.bench.release("a", offset_s=0.4)
            rig.bench.release("b", offset_s=0.4)
            rig.run_until(go + 0.3)
        assert rig.state == "idle"
        result = results(rig)[0]
        assert (result.reason, result.tie_reruns, result.launch) == ("tie_void", 1, "none")
        assert [(e.data["rerun"], e.data["void"]) for e in rig.events if e.name == "tie"] == [
            (1, False),
            (1, True),
        ]


def test_two_false_starts_on_the_same_tick_are_a_tie(rig):
    go = start(rig)
    rig.bench.press("a", offset_s=-0.5)
    rig.bench.press("b", offset_s=-0.5, delay_s=0.001)
    rig.run_until(go - 0.499)
    assert rig.state == "countdown"
    assert rig.pins()["arrow_a"] == 0  # a fresh round: arrows off
    assert [e.data["rerun"] for e in rig.events if e.name == "tie"] == [1]
