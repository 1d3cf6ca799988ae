"""The shapes the engine checks the unit's replies and events against: the same
values the unit sends pass, anything else is named field by field."""

import pytest

from engine.units.unit_replies import Malformed, check_event, check_reply
from firmware_host.core import result as unit_result
from firmware_host.protocol import EVENTS, EventName

RESULT = unit_result.Result(
    showdown_id="g1-r1",
    players={"a": "Ann", "b": "Bob"},
    winner="b",
    loser="a",
    reason="faster",
    tie_reruns=0,
    reaction_us={"a": 263000, "b": 241000},
    margin_us=22000,
    cards=2,
    launch="launched",
    cards_counted=None,
).to_dict()
STATUS = {
    "state": "armed",
    "paddles": {"a": False, "b": False},
    "showdown": {
        "showdown_id": "g1-r1",
        "cards": 2,
        "players": {"a": "Ann", "b": "Bob"},
        "tie_reruns": 0,
    },
    "last_result": RESULT,
    "fault": None,
}
EVENT_SAMPLES = {
    "state": {"state": "countdown", "previous": "armed"},
    "armed": {
        "showdown_id": "g1-r1",
        "cards": 2,
        "players": {"a": "Ann", "b": "Bob"},
        "bots": ["b"],
    },
    "countdown": {"showdown_id": "g1-r1", "step": 1, "steps": 3, "rerun": 0},
    "go": {"showdown_id": "g1-r1", "ticks": 1802.33},
    "false_start": {"showdown_id": "g1-r1", "side": "a"},
    "tie": {"showdown_id": "g1-r1", "gap_us": 120, "rerun": 1, "void": False},
    "paddle_held": {"side": "b"},
    "result": RESULT,
    "launched": {
        "showdown_id": "g1-r1",
        "side": "a",
        "cards": 2,
        "verified": False,
        "outcome": "launched",
    },
    "cancelled": {"showdown_id": "g1-r1"},
    "fault": {"reason": "motor driver not answering"},
    "outputs": {
        "leds": [True, True, False],
        "go": False,
        "arrows": {"a": False, "b": True},
        "buzzer": True,
        "motor": {"direction": "b", "speed": 0.8},
        "paddles": {"a": True, "b": False},
    },
}
OUTPUTS = EVENT_SAMPLES["outputs"]


@pytest.mark.parametrize("name", EVENTS)
def test_every_event_the_unit_sends_passes(name):
    # The keys each event carries are the protocol's (tests/test_machine_launch_faults.py
    # checks the unit sends exactly those).
    assert tuple(EVENT_SAMPLES[name]) == EventName(name).fields
    assert check_event(name, EVENT_SAMPLES[name]) == EVENT_SAMPLES[name]


@pytest.mark.parametrize(
    "cmd, data",
    [
        ("hello", {"version": 1, "unit": {"name": "u"}, "capabilities": ["bench"], "seq": 0}),
        ("auth", {}),
        ("ping", {}),
        ("status", STATUS),
        ("start", STATUS),
        ("cancel", STATUS),
        ("status", {**STATUS, "paddles": None, "showdown": None, "last_result": None}),
        ("status", {**STATUS, "state": "fault", "fault": "card sensor stuck"}),
        ("showdown", STATUS),
        ("showdown", {"state": "done", "result": RESULT}),
        ("result", {"result": {**RESULT, "launch": "interrupted", "cards_counted": 1}}),
        (
            "result",
            {
                "result": {
                    **RESULT,
                    "winner": None,
                    "loser": None,
                    "reason": "timeout",
                    "reaction_us": {"a": None, "b": None},
                    "margin_us": None,
                }
            },
        ),
        ("history", {"results": [RESULT], "players": {}}),
        ("selftest", {"passed": True, "devices": [{"name": "paddle_a", "ok": True, "detail": ""}]}),
        ("bench_press", {}),
        ("bench_release", {}),
        ("bench_timer", {}),
        ("status", {**STATUS, "added_later": [1, 2]}),  # fields a newer unit adds are kept
    ],
)
def test_replies_the_unit_sends_pass(cmd, data):
    assert check_reply(cmd, data) == data


@pytest.mark.parametrize(
    "cmd, data, message",
    [
        (
            "status",
            {**STATUS, "state": 5},
            "field 'state' must be one of idle, armed, countdown, hold, go, false_start, resolved, "
            "launching, timeout, selftest, fault, not 5",
        ),
        (
            "status",
            {key: value for key, value in STATUS.items() if key != "fault"},
            "missing field 'fault'",
        ),
        (
            "status",
            {**STATUS, "showdown": [1]},
            "field 'showdown' must be an object or null, not [1]",
        ),
        (
            "status",
            {**STATUS, "showdown": {**STATUS["showdown"], "players": {"a": "Ann"}}},
            "missing field 'showdown.players.b'",
        ),
        (
            "status",
            {**STATUS, "paddles": {"a": 0, "b": False}},
            "field 'paddles.a' must be true or false, not 0",
        ),
        ("status", {**STATUS, "fault": 3}, "field 'fault' must be a string or null, not 3"),
        (
            "showdown",
            {"state": "done", "result": None},
            "field 'result' must be an object, not null",
        ),
        (
            "showdown",
            {"state": "finished"},
            "field 'state' must be one of done, idle, armed, countdown, hold, go, false_start, "
            'resolved, launching, timeout, selftest, fault, not "finished"',
        ),
        ("result", {}, "missing field 'result'"),
        (
            "result",
            {"result": {**RESULT, "launch": "flying"}},
            "field 'result.launch' must be one of launched, jam, cancelled, none, fault, pending, "
            'interrupted, not "flying"',
        ),
        (
            "result",
            {"result": {**RESULT, "loser": "c"}},
            'field \'result.loser\' must be "a", "b" or null, not "c"',
        ),
        (
            "result",
            {"result": {**RESULT, "tie_reruns": True}},
            "field 'result.tie_reruns' must be a whole number >= 0, not true",
        ),
        (
            "result",
            {"result": {**RESULT, "reaction_us": {"a": 1.5, "b": None}}},
            "field 'result.reaction_us.a' must be a whole number or null, not 1.5",
        ),
        (
            "result",
            {"result": {**RESULT, "cards_counted": -1}},
            "field 'result.cards_counted' must be a whole number >= 0 or null, not -1",
        ),
        (
            "result",
            {"result": {**RESULT, "showdown_id": "a b"}},
            "field 'result.showdown_id' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, not \"a b\"",
        ),
        (
            "result",
            {"result": {**RESULT, "winner": "a"}},
            "field 'result' must name a winner and a loser on different sides when its reason is "
            '"faster", not "a" and "a"',
        ),
        (
            "result",
            {"result": {**RESULT, "reason": "timeout"}},
            "field 'result' must name no winner and no loser when its reason is \"timeout\", not "
            '"b" and "a"',
        ),
        (
            "hello",
            {"version": 1, "unit": "u", "capabilities": [], "seq": 0},
            "field 'unit' must be an object, not \"u\"",
        ),
        (
            "hello",
            {"version": 1, "unit": {}, "capabilities": [], "seq": -1},
            "field 'seq' must be a whole number >= 0, not -1",
        ),
        (
            "history",
            {"results": [1], "players": {}},
            "field 'results' must be an array of objects, not [1]",
        ),
        (
            "status",
            {**STATUS, "state": "x" * 60},
            "field 'state' must be one of idle, armed, countdown, hold, go, false_start, resolved, "
            'launching, timeout, selftest, fault, not "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…',
        ),
    ],
)
def test_a_malformed_reply_is_named_field_by_field(cmd, data, message):
    with pytest.raises(Malformed) as caught:
        check_reply(cmd, data)
    assert str(caught.value) == message
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    "name, data, message",
    [
        (
            "result",
            {**RESULT, "winner": None},
            "the result must name a winner and a loser on different sides when its reason is "
            '"faster", not null and "a"',
        ),
        (
            "tie",
            {**EVENT_SAMPLES["tie"], "void": "no"},
            "field 'void' must be true or false, not \"no\"",
        ),
        (
            "go",
            {"showdown_id": "g1-r1", "ticks": "soon"},
            "field 'ticks' must be a number, not \"soon\"",
        ),
        (
            "armed",
            {"showdown_id": None, "cards": 2, "players": {"a": "A", "b": "B"}},
            "field 'showdown_id' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, not null",
        ),
        ("fault", {}, "missing field 'reason'"),
    ],
)
def test_a_malformed_event_is_named_field_by_field(name, data, message):
    with pytest.raises(Malformed) as caught:
        check_event(name, data)
    assert str(caught.value) == message


def test_commands_and_events_the_engine_does_not_use_pass_unchecked():
    assert check_reply("unheard_of", {"x": 1}) == {"x": 1}
    assert check_event("sparkle", {"colour": 5}) == {"colour": 5}


@pytest.mark.parametrize("bots", [[], ["a"], ["b"], ["a", "b"]])
def test_the_bot_sides_of_a_unit_with_the_bots_capability_pass(bots):
    assert check_event("armed", {**EVENT_SAMPLES["armed"], "bots": bots})["bots"] == bots
    assert check_event("result", {**RESULT, "bots": bots})["bots"] == bots
    assert check_reply("result", {"result": {**RESULT, "bots": bots}})["result"]["bots"] == bots
    done = {"state": "done", "result": {**RESULT, "bots": bots}}
    assert check_reply("showdown", done) == done


def test_a_unit_without_the_bots_capability_may_leave_the_bot_sides_out():
    without = {key: value for key, value in RESULT.items() if key != "bots"}
    assert check_event("result", without) == without
    armed = {key: value for key, value in EVENT_SAMPLES["armed"].items() if key != "bots"}
    assert check_event("armed", armed) == armed


@pytest.mark.parametrize("bots", [["b", "a"], ["a", "a"], ["c"], "a", [1], None, {"a": 230}])
def test_bot_sides_out_of_shape_are_named(bots):
    text = 'a sorted array of different sides "a", "b"'
    with pytest.raises(Malformed) as caught:
        check_event("result", {**RESULT, "bots": bots})
    assert str(caught.value).startswith(f"field 'bots' must be {text}, not ")
    with pytest.raises(Malformed) as caught:
        check_event("armed", {**EVENT_SAMPLES["armed"], "bots": bots})
    assert str(caught.value).startswith(f"field 'bots' must be {text}, not ")
    with pytest.raises(Malformed) as caught:
        check_reply("status", {**STATUS, "last_result": {**RESULT, "bots": bots}})
    assert str(caught.value).startswith(f"field 'last_result.bots' must be {text}, not ")
    with pytest.raises(Malformed) as caught:
        check_reply("status", {**STATUS, "showdown": {**STATUS["showdown"], "bots": bots}})
    assert str(caught.value).startswith(f"field 'showdown.bots' must be {text}, not ")


# -- the outputs (the "outputs" capability) -------------------------------------------


def test_the_outputs_pass_in_a_status_a_watch_reply_and_their_event():
    assert check_reply("status", {**STATUS, "outputs": OUTPUTS}) == {**STATUS, "outputs": OUTPUTS}
    assert check_reply("status", {**STATUS, "outputs": None})["outputs"] is None  # unreadable
    assert check_reply("watch", {"outputs": OUTPUTS}) == {"outputs": OUTPUTS}
    stopped = {**OUTPUTS, "buzzer": None, "motor": {"direction": None, "speed": 0}}
    assert check_event("outputs", stopped) == stopped
    assert check_reply("status", STATUS) == STATUS  # a unit without the capability


@pytest.mark.parametrize(
    "change, message",
    [
        ({"leds": []}, "field 'outputs.leds' must be a non-empty array of true/false, not []"),
        ({"leds": [1, 0]}, "field 'outputs.leds' must be a non-empty array of true/false, not [1,"),
        ({"go": "on"}, "field 'outputs.go' must be true or false, not \"on\""),
        ({"arrows": "b"}, "field 'outputs.arrows' must be an object, not \"b\""),
        ({"arrows": {"a": True}}, "missing field 'outputs.arrows.b'"),
        ({"buzzer": 1}, "field 'outputs.buzzer' must be true or false or null, not 1"),
        (
            {"motor": {"direction": "c", "speed": 0.5}},
            'field \'outputs.motor.direction\' must be "a", "b" or null, not "c"',
        ),
        (
            {"motor": {"direction": "a", "speed": 1.5}},
            "field 'outputs.motor.speed' must be a number from 0 to 1, not 1.5",
        ),
        (
            {"motor": {"direction": None, "speed": 0.8}},
            "field 'outputs.motor' must have speed 0 when its direction is null, not 0.8",
        ),
        ({"motor": {"direction": "a"}}, "missing field 'outputs.motor.speed'"),
        (
            {"paddles": {"a": None, "b": False}},
            "field 'outputs.paddles.a' must be true or false, not null",
        ),
    ],
)
def test_outputs_out_of_shape_are_named(change, message):
    bad = {**OUTPUTS, **change}
    with pytest.raises(Malformed) as caught:
        check_reply("status", {**STATUS, "outputs": bad})
    assert str(caught.value).startswith(message)
    with pytest.raises(Malformed) as caught:
        check_event("outputs", bad)
    assert str(caught.value).startswith(message.replace("'outputs.", "'"))
    with pytest.raises(Malformed):
        check_reply("watch", {"outputs": bad})


def test_an_outputs_event_or_watch_reply_missing_a_part_is_refused():
    without_motor = {key: value for key, value in OUTPUTS.items() if key != "motor"}
    with pytest.raises(Malformed, match="missing field 'motor'"):
        check_event("outputs", without_motor)
    with pytest.raises(Malformed, match="missing field 'outputs'"):
        check_reply("watch", {})
