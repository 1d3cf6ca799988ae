"""Bots on the unit: the virtual paddle, on mock pins and virtual time.

A showdown armed with ``bots`` has the unit press those paddles itself: at each
GO it draws the bot's reaction and feeds an edge with tick GO tick + reaction
into the core's inbox, the path a pin's edge takes (firmware_host/core/
virtual_paddles.py, docs/timing.md). Two bots start by themselves.
"""

import pytest

from firmware_host.core.errors import InvalidArgumentError, PaddleHeldError, UnitFaultError
from firmware_host.core.machine import InputEvent
from tests.test_machine_showdown import OFF, PLAYERS, make_rig, results

BOT_B = {"b": {"reaction_ms": 230}}
TWO_BOTS = {"a": {"reaction_ms": 200}, "b": {"reaction_ms": 260}}


def bot_at_go(rig, bots=None, cards=2, showdown_id="sd-1"):
    """Arm with ``bots`` (default: a bot on side B), start, run to GO; returns
    the GO tick and the bots' planned edge ticks."""
    rig.core.arm(showdown_id, cards, PLAYERS, BOT_B if bots is None else bots)
    rig.core.start()
    rig.run_until(rig.core.round.planned_go)
    assert rig.state == "go"
    return rig.core.round.go_tick, rig.core.bot_paddles.planned


def us(seconds):
    return round(seconds * 1_000_000)


def paddle_events(rig):
    """Every paddle event the core handles, as (side, tick, pressed, virtual)."""
    seen = []
    handle = rig.core.handle

    def watching(event: InputEvent):
        if event.kind == "paddle":
            seen.append(event.data)
        handle(event)

    rig.core.handle = watching
    return seen


# -- a person against a bot ----------------------------------------------------------


def test_the_bots_edge_comes_through_the_paddle_path_with_its_own_tick():
    with make_rig() as rig:
        seen = paddle_events(rig)
        go_tick, planned = bot_at_go(rig)
        assert list(planned) == ["b"]
        reaction = planned["b"] - go_tick
        assert 0.150 <= reaction <= 1.5  # the human model, median 230 ms
        assert rig.core.next_deadline() == pytest.approx(rig.core.round.go_time + reaction)
        rig.advance(reaction)
        assert seen == [("b", planned["b"], True, True)]
        rig.advance(3)
        [result] = results(rig)
        assert result.bots == ("b",)
        assert (result.winner, result.loser, result.reason) == ("b", "a", "faster")
        assert result.reaction_us == {"a": None, "b": us(reaction)}


@pytest.mark.parametrize("gap_s, winner", [(-0.001, "a"), (0.001, "b")])
def test_a_person_against_a_bot_is_decided_by_the_bots_edge_tick(gap_s, winner):
    with make_rig() as rig:
        go_tick, planned = bot_at_go(rig)
        reaction = planned["b"] - go_tick
        rig.bench.press("a", offset_s=reaction + gap_s)
        rig.advance(3)
        [result] = results(rig)
        assert (result.winner, result.reason, result.margin_us) == (winner, "faster", 1000)
        assert result.reaction_us == {"a": us(reaction + gap_s), "b": us(reaction)}
        assert result.bots == ("b",)


@pytest.mark.parametrize("gap_s, winner", [(-0.0005, "a"), (0.0005, "b")])
def test_a_persons_edge_delivered_after_the_bots_still_counts_by_its_tick(gap_s, winner):
    # The person's callback comes 3 ms late, after the bot's edge: the ticks decide.
    with make_rig() as rig:
        go_tick, planned = bot_at_go(rig)
        reaction = planned["b"] - go_tick
        rig.bench.press("a", offset_s=reaction + gap_s, delay_s=0.003)
        rig.advance(3)
        [result] = results(rig)
        assert (result.winner, result.margin_us) == (winner, 500)


def test_a_person_who_waits_loses_to_the_bot_and_the_motor_turns_toward_them():
    # Before: the bot never pressed, so a person won by pressing any time within 5 s.
    with make_rig() as rig:
        go_tick, planned = bot_at_go(rig)
        rig.run_until(rig.core.round.go_time + (planned["b"] - go_tick) + 0.006)
        assert rig.state == "launching"
        assert (rig.pins()["motor_a"], rig.pins()["duty"]) == (1, 0.8)
        rig.bench.press("a")  # too late: it only adds the person's time
        rig.advance(3)
        [result] = results(rig)
        assert (result.winner, result.loser, result.launch) == ("b", "a", "launched")
        assert result.reaction_us["a"] is not None and result.margin_us is not None


def test_a_bot_that_loses_still_presses_while_the_cards_fly():
    with make_rig() as rig:
        go_tick, planned = bot_at_go(rig)
        rig.bench.press("a", offset_s=0.1)  # far quicker than any 230 ms bot
        rig.advance(3)
        [result] = results(rig)
        assert (result.winner, result.launch) == ("a", "launched")
        assert result.reaction_us["b"] == us(planned["b"] - go_tick)


def test_the_armed_event_the_status_and_the_result_carry_the_bots_sides():
    with make_rig() as rig:
        status = rig.core.arm("sd-1", 2, PLAYERS, BOT_B)
        assert status["showdown"]["bots"] == ["b"]
        [armed] = [e.data for e in rig.events if e.name == "armed"]
        assert armed == {"showdown_id": "sd-1", "cards": 2, "players": PLAYERS, "bots": ["b"]}
        rig.core.start()
        rig.advance(10)
        [result] = [e.data for e in rig.events if e.name == "result"]
        assert result["bots"] == ["b"]


def test_a_showdown_of_people_has_no_bots_and_no_virtual_edge():
    with make_rig() as rig:
        seen = paddle_events(rig)
        _, planned = bot_at_go(rig, bots={})
        assert planned == {}
        rig.advance(10)
        [result] = results(rig)
        assert (result.reason, result.bots) == ("timeout", ())
        assert seen == []


# -- a real paddle on a bot's side ------------------------------------------------------


def test_a_real_paddle_on_a_bots_side_is_ignored():
    with make_rig() as rig:
        rig.core.arm("sd-1", 2, PLAYERS, BOT_B)
        rig.core.start()
        rig.bench.press("b", offset_s=-0.5)  # would be a false start by B
        rig.bench.press("b", offset_s=0.05)  # would beat any bot
        rig.run_until(rig.core.round.planned_go)
        go_tick, planned = rig.core.round.go_tick, rig.core.bot_paddles.planned
        rig.advance(3)
        [result] = results(rig)
        assert (result.winner, result.reason) == ("b", "faster")
        assert result.reaction_us == {"a": None, "b": us(planned["b"] - go_tick)}
        assert "false_start" not in rig.names()


def test_a_real_paddle_held_on_a_bots_side_does_not_stop_the_start():
    with make_rig() as rig:
        rig.bench.press("b", hold=True)
        rig.core.pump()
        rig.core.arm("sd-1", 2, PLAYERS, BOT_B)
        assert rig.core.start()["state"] == "countdown"
        assert "paddle_held" not in rig.names()


def test_a_real_paddle_held_on_the_persons_side_still_stops_the_start():
    with make_rig() as rig:
        rig.bench.press("a", hold=True)
        rig.core.pump()
        rig.core.arm("sd-1", 2, PLAYERS, BOT_B)
        with pytest.raises(PaddleHeldError) as caught:
            rig.core.start()
        assert str(caught.value) == "paddle a is held down: release it, then start"
        assert rig.state == "armed"


# -- two bots ---------------------------------------------------------------------------


def test_two_bots_start_by_themselves_after_bot_start_s_and_launch():
    with make_rig(bot_start_s=1.0) as rig:
        armed_at = rig.clock()
        rig.core.arm("sd-1", 3, PLAYERS, TWO_BOTS)
        rig.advance(0.999)
        assert rig.state == "armed"
        rig.advance(0.001)
        assert rig.state == "countdown"
        assert rig.core.round.start == armed_at + 1.0
        rig.run_until(rig.core.round.planned_go)
        go_tick, planned = rig.core.round.go_tick, rig.core.bot_paddles.planned
        assert sorted(planned) == ["a", "b"]
        rig.run_until(max(planned.values()) + 0.006)
        assert rig.state == "launching"
        loser = rig.core.decision.loser
        assert rig.pins()[f"motor_{loser}"] == 1 and rig.pins()["duty"] == 0.8
        rig.advance(5)
        assert rig.state == "idle" and rig.pins() == OFF
        [result] = results(rig)
        assert result.bots == ("a", "b")
        assert result.launch == "launched" and result.reason == "faster"
        assert result.reaction_us == {side: us(planned[side] - go_tick) for side in "ab"}
        assert result.winner == min(planned, key=planned.get)


def test_two_bots_with_bot_start_s_0_start_at_once():
    with make_rig(bot_start_s=0.0) as rig:
        rig.core.arm("sd-1", 2, PLAYERS, TWO_BOTS)
        rig.core.pump()
        assert rig.state == "countdown"


def test_the_start_command_still_starts_two_bots_and_they_start_once():
    with make_rig(bot_start_s=1.0) as rig:
        rig.core.arm("sd-1", 2, PLAYERS, TWO_BOTS)
        rig.core.start()
        assert rig.state == "countdown"
        rig.advance(20)
        assert [e.data["step"] for e in rig.events if e.name == "countdown"] == [1, 2, 3]
        assert len(results(rig)) == 1


def test_one_bot_waits_for_the_timer_button():
    with make_rig(bot_start_s=1.0) as rig:
        rig.core.arm("sd-1", 2, PLAYERS, BOT_B)
        rig.advance(30)
        assert rig.state == "armed"


def test_cancel_while_two_bots_are_armed_drops_their_start():
    with make_rig(bot_start_s=1.0) as rig:
        rig.core.arm("sd-1", 2, PLAYERS, TWO_BOTS)
        rig.core.cancel()
        assert rig.core.next_deadline() is None
        rig.advance(5)
        assert rig.state == "idle" and "countdown" not in rig.names()


# -- re-runs, cancel, faults ----------------------------------------------------------------


def test_a_near_tie_rerun_draws_the_bots_reaction_again():
    with make_rig() as rig:
        go_tick, planned = bot_at_go(rig)
        first = planned["b"] - go_tick
        rig.bench.press("a", offset_s=first + 0.0001)  # 100 us from the bot: a tie
        rig.run_until(rig.core.round.go_time + first + 0.01)
        assert rig.state == "countdown"
        [tie] = [e.data for e in rig.events if e.name == "tie"]
        assert (tie["gap_us"], tie["rerun"], tie["void"]) == (100, 1, False)
        assert rig.core.bot_paddles.planned == {}  # nothing of the first round is left
        rig.run_until(rig.core.round.planned_go)
        go_again, planned_again = rig.core.round.go_tick, rig.core.bot_paddles.planned
        second = planned_again["b"] - go_again
        assert us(second) != us(first)
        rig.advance(5)
        [result] = results(rig)
        assert (result.tie_reruns, result.winner, result.bots) == (1, "b", ("b",))
        assert result.reaction_us["b"] == us(second)


@pytest.mark.parametrize("state", ["countdown", "hold", "go"])
def test_cancel_during_a_bot_showdown_leaves_no_virtual_edge(state):
    with make_rig() as rig:
        seen = paddle_events(rig)
        rig.core.arm("sd-1", 2, PLAYERS, TWO_BOTS)
        rig.core.start()
        while rig.state != state:
            rig.run_until(rig.core.next_deadline())
        rig.core.cancel()
        assert rig.core.bot_paddles.planned == {}
        assert rig.core.next_deadline() is None
        rig.advance(10)
        assert seen == [] and results(rig) == [] and rig.state == "idle"


def test_the_bot_never_false_starts_even_at_the_units_fastest_legal_reaction():
    with make_rig(min_reaction_ms=150) as rig:
        for n in range(200):
            rig.core.arm(f"sd-{n}", 1, PLAYERS, {"a": {"reaction_ms": 100}, "b": BOT_B["b"]})
            rig.core.start()
            rig.advance(20)
        found = results(rig)
        assert len(found) == 200
        assert {result.reason for result in found} <= {"faster", "tie_void"}
        times = [t for result in found for t in result.reaction_us.values() if t is not None]
        assert min(times) >= 150_000  # the 100 ms bot is held to the unit's rule
        assert "false_start" not in rig.names()


def test_a_person_who_jumps_loses_and_the_bot_never_pressed():
    with make_rig() as rig:
        rig.core.arm("sd-1", 2, PLAYERS, BOT_B)
        rig.core.start()
        rig.bench.press("a", offset_s=-0.3)
        rig.advance(10)
        [result] = results(rig)
        assert (result.reason, result.loser) == ("false_start", "a")
        assert result.reaction_us == {"a": None, "b": None}


def test_a_fault_turns_the_motor_off_and_drops_the_bots_edges():
    with make_rig() as rig:
        go_tick, planned = bot_at_go(rig, bots=TWO_BOTS)
        rig.run_until(rig.core.round.go_time + (min(planned.values()) - go_tick) + 0.006)
        assert rig.state == "launching" and rig.pins()["duty"] == 0.8
        rig.core.schedule("launch", rig.clock() + 0.01, lambda: 1 / 0)
        rig.advance(0.02)
        assert rig.state == "fault"
        assert rig.pins() == OFF
        assert rig.core.bot_paddles.planned == {}
        assert [(r.launch, r.bots) for r in results(rig)] == [("fault", ("a", "b"))]
        with pytest.raises(UnitFaultError):
            rig.core.arm("sd-2", 2, PLAYERS, BOT_B)


def test_a_fault_before_the_bots_press_leaves_no_virtual_edge():
    with make_rig() as rig:
        seen = paddle_events(rig)
        bot_at_go(rig)
        rig.core.enter_fault("test: the board went away")
        assert rig.pins() == OFF and rig.core.bot_paddles.planned == {}
        rig.advance(5)
        assert seen == [] and results(rig) == []


# -- arming ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bots, message",
    [
        ("b", 'field \'bots\' must be an object like {"b": {"reaction_ms": 230}}, not "b"'),
        ({"c": {"reaction_ms": 230}}, 'field \'bots\' may only have the keys "a" and "b", not "c"'),
        ({"b": 230}, "field 'bots.b' must be an object {\"reaction_ms\": N}, not 230"),
        ({"b": {}}, "missing field 'bots.b.reaction_ms'"),
        ({"b": {"reaction_ms": 230, "skill": 3}}, "unknown field 'bots.b.skill'"),
        (
            {"b": {"reaction_ms": 99.9}},
            "field 'bots.b.reaction_ms' must be a number from 100 to 1000, not 99.9",
        ),
        (
            {"b": {"reaction_ms": 1001}},
            "field 'bots.b.reaction_ms' must be a number from 100 to 1000, not 1001",
        ),
        (
            {"b": {"reaction_ms": True}},
            "field 'bots.b.reaction_ms' must be a number from 100 to 1000, not true",
        ),
    ],
)
def test_bad_bots_are_refused_and_nothing_is_armed(bots, message):
    with make_rig() as rig:
        with pytest.raises(InvalidArgumentError) as caught:
            rig.core.arm("sd-1", 2, PLAYERS, bots)
        assert str(caught.value) == message and caught.value.code == "invalid_argument"
        assert rig.state == "idle" and rig.events == []


def test_the_slowest_and_quickest_bots_are_allowed():
    with make_rig() as rig:
        rig.core.arm("sd-1", 2, PLAYERS, {"a": {"reaction_ms": 100}, "b": {"reaction_ms": 1000}})
        assert rig.core.showdown.bots == {"a": 100.0, "b": 1000.0}


def test_the_bots_press_no_pin_so_it_needs_no_mock_pins():
    with make_rig() as rig:
        levels = []
        rig.core.listeners = (
            *rig.core.listeners,
            lambda event: levels.append(
                (rig.board.paddle_a.pin.state, rig.board.paddle_b.pin.state)
            ),
        )
        rig.core.arm("sd-1", 2, PLAYERS, TWO_BOTS)
        rig.advance(20)
        [result] = results(rig)
        assert result.reason == "faster" and None not in result.reaction_us.values()
        assert set(levels) == {(1, 1)}  # pulled up: never pressed
