"""The protocol's argument schemas: every command's arguments, checked and refused
with the exact message (the rest of the protocol: tests/test_protocol.py)."""

import json

import pytest

from firmware_host.protocol import (
    COMMANDS,
    ClientConnection,
    ProtocolError,
    Request,
    check_arguments,
    decode_request,
)
from tests.protocol_helpers import PLAYERS, server_items

#: What unknown_command adds: every command, in docs/protocol.md's order.
THE_COMMANDS = (
    "the commands are hello, auth, ping, status, watch, showdown, start, cancel, result, "
    "history, selftest, bench_press, bench_release, bench_timer"
)
UNKNOWN_LAUNCH = f'unknown command "launch"; {THE_COMMANDS}'


# --- Argument schemas ------------------------------------------------------

GOOD = {
    "hello": {"version": 1},
    "auth": {"token": "t"},
    "ping": {},
    "status": {},
    "watch": {"outputs": True},
    "start": {},
    "cancel": {},
    "selftest": {},
    "bench_timer": {},
    "showdown": {"showdown_id": "game-7:round.3_b", "cards": 2, "players": PLAYERS},
    "result": {"showdown_id": "x" * 64},
    "history": {"limit": 1000, "player": "Zoë"},
    "bench_press": {"side": "b", "offset_ms": -12.5},
    "bench_release": {"side": "a"},
}


def test_every_command_has_a_good_example():
    assert set(GOOD) == set(COMMANDS)


@pytest.mark.parametrize("cmd", sorted(GOOD))
def test_good_arguments_pass_unchanged(cmd):
    args = check_arguments(cmd, GOOD[cmd])
    assert {k: v for k, v in args.items() if v is not None} == GOOD[cmd]


@pytest.mark.parametrize(
    "cmd, given, args",
    [
        ("history", {}, {"limit": None, "player": None}),
        ("history", {"limit": None, "player": "Ann"}, {"limit": None, "player": "Ann"}),
        (
            "bench_press",
            {"side": "a", "at_tick": 12},
            {"side": "a", "offset_ms": None, "at_tick": 12, "delay_ms": None, "hold": None},
        ),
        (
            "bench_press",
            {"side": "a", "offset_ms": 0, "delay_ms": 3.5},
            {"side": "a", "offset_ms": 0, "at_tick": None, "delay_ms": 3.5, "hold": None},
        ),
        (
            "bench_press",
            {"side": "a", "hold": True},
            {"side": "a", "offset_ms": None, "at_tick": None, "delay_ms": None, "hold": True},
        ),
        (
            "bench_release",
            {"side": "b"},
            {"side": "b", "offset_ms": None, "at_tick": None, "delay_ms": None},
        ),
    ],
)
def test_absent_optional_arguments_are_none(cmd, given, args):
    assert check_arguments(cmd, given) == args


@pytest.mark.parametrize(
    "cmd, given, message",
    [
        ("hello", {"version": "1"}, "field 'version' must be a whole number, not \"1\""),
        ("hello", {"version": 1.0}, "field 'version' must be a whole number, not 1.0"),
        ("auth", {"token": ""}, "field 'token' must be a non-empty string"),
        ("auth", {"token": 5}, "field 'token' must be a non-empty string"),
        ("ping", {"x": 1}, "unknown field 'x'"),
        ("watch", {}, "missing field 'outputs'"),
        ("watch", {"outputs": 1}, "field 'outputs' must be true or false, not 1"),
        ("watch", {"outputs": True, "events": ["go"]}, "unknown field 'events'"),
        (
            "showdown",
            {"showdown_id": "", "cards": 2, "players": PLAYERS},
            "field 'showdown_id' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, not \"\"",
        ),
        (
            "showdown",
            {"showdown_id": "x" * 65, "cards": 2, "players": PLAYERS},
            "field 'showdown_id' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, not "
            '"' + "x" * 38 + "…",
        ),
        (
            "showdown",
            {"showdown_id": "a/b", "cards": 2, "players": PLAYERS},
            "field 'showdown_id' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, not \"a/b\"",
        ),
        (
            "showdown",
            {"showdown_id": "ok\n", "cards": 2, "players": PLAYERS},
            "field 'showdown_id' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, not \"ok\\n\"",
        ),
        ("showdown", {"showdown_id": "s", "cards": 2}, "missing field 'players'"),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": ["Ann", "Bob"]},
            'field \'players\' must be an object {"a": name, "b": name}, not ["Ann", "Bob"]',
        ),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": {"a": "Ann"}},
            "missing field 'players.b'",
        ),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": {**PLAYERS, "c": "Cy"}},
            "unknown field 'players.c'",
        ),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": {"a": " ", "b": "Bob"}},
            "field 'players.a' must be a name of 1 to 40 printable characters, not \" \"",
        ),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": {"a": "Ann", "b": "B" * 41}},
            "field 'players.b' must be a name of 1 to 40 printable characters, not "
            '"' + "B" * 38 + "…",
        ),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": {"a": "A\x1b[2J", "b": "Bob"}},
            "field 'players.a' must be a name of 1 to 40 printable characters, not \"A\\u001b[2J\" "
            "(it holds U+001B (Cc))",
        ),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": {"a": "Ann\u200b", "b": "Bob"}},
            "field 'players.a' must be a name of 1 to 40 printable characters, not \"Ann\u200b\" "
            "(it holds U+200B (Cf))",
        ),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": {"a": "\ufeffBob", "b": "Bob"}},
            "field 'players.a' must be a name of 1 to 40 printable characters, not \"\ufeffBob\" "
            "(it holds U+FEFF (Cf))",
        ),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": {"a": "Ann\u2028", "b": "Bob"}},
            "field 'players.a' must be a name of 1 to 40 printable characters, not \"Ann\u2028\" "
            "(it holds U+2028 (Zl))",
        ),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": {"a": "Ann", "b": " ann "}},
            "field 'players' must name two different players, not \"Ann\" twice",
        ),
        (
            "showdown",
            {"showdown_id": "s", "cards": 2, "players": PLAYERS, "seed": 1},
            "unknown field 'seed'",
        ),
        ("result", {}, "missing field 'showdown_id'"),
        ("history", {"limit": 0}, "field 'limit' must be 1 to 1000, not 0"),
        ("history", {"limit": 1001}, "field 'limit' must be 1 to 1000, not 1001"),
        (
            "history",
            {"player": ""},
            "field 'player' must be a name of 1 to 40 printable characters, not \"\"",
        ),
        (
            "bench_press",
            {"side": "a", "offset_ms": 1, "at_tick": 2},
            "give at most one of fields 'offset_ms' and 'at_tick'",
        ),
        ("bench_press", {"side": "a", "hold": 1}, "field 'hold' must be true or false, not 1"),
        (
            "bench_press",
            {"side": "c", "offset_ms": 1},
            'field \'side\' must be "a" or "b", not "c"',
        ),
        (
            "bench_press",
            {"side": "a", "offset_ms": "5"},
            "field 'offset_ms' must be a number, not \"5\"",
        ),
        (
            "bench_press",
            {"side": "a", "at_tick": False},
            "field 'at_tick' must be a number, not false",
        ),
        (
            "bench_release",
            {"side": "a", "offset_ms": 1, "at_tick": 2},
            "give at most one of fields 'offset_ms' and 'at_tick'",
        ),
        (
            "bench_press",
            {"side": "a", "offset_ms": 1, "delay_ms": -1},
            "field 'delay_ms' must be >= 0, not -1",
        ),
        ("bench_release", {}, "missing field 'side'"),
        ("bench_timer", {"side": "a"}, "unknown field 'side'"),
    ],
)
def test_bad_arguments_name_the_field(cmd, given, message):
    line = json.dumps({"id": 9, "cmd": cmd, **given}).encode() + b"\n"
    assert server_items(line) == [ProtocolError("bad_request", message, 9)]
    with pytest.raises(ProtocolError) as raised:  # the client checks the same way
        ClientConnection().send_request(cmd, **given)
    assert raised.value == ProtocolError("bad_request", message, None)


def test_unknown_command_lists_every_command():
    assert ", ".join(COMMANDS) == THE_COMMANDS.removeprefix("the commands are ")


@pytest.mark.parametrize(
    "cards, shown",
    [(0, "0"), (-3, "-3"), (True, "true"), ("2", '"2"'), (2.5, "2.5"), (None, "null")],
)
def test_every_bad_card_count_is_invalid_cards(cards, shown):
    # cards 0 was bad_request while cards 99 was invalid_cards (the unit's own check).
    message = f"field 'cards' must be a whole number >= 1, not {shown}"
    given = {"showdown_id": "s", "cards": cards, "players": PLAYERS}
    line = json.dumps({"id": 9, "cmd": "showdown", **given}).encode() + b"\n"
    assert server_items(line) == [ProtocolError("invalid_cards", message, 9)]
    with pytest.raises(ProtocolError) as raised:  # the client checks the same way
        ClientConnection().send_request("showdown", **given)
    assert raised.value == ProtocolError("invalid_cards", message, None)


def test_a_missing_card_count_is_a_bad_request():
    line = b'{"id": 9, "cmd": "showdown", "showdown_id": "s", "players": {"a": "A", "b": "B"}}\n'
    assert server_items(line) == [ProtocolError("bad_request", "missing field 'cards'", 9)]


def test_hello_without_a_version_is_refused_and_the_client_fills_its_own_in():
    assert server_items(b'{"id": 9, "cmd": "hello"}\n') == [
        ProtocolError("bad_request", "missing field 'version'", 9)
    ]
    assert ClientConnection(version=3).send_request("hello") == (
        1,
        b'{"id":1,"cmd":"hello","version":3}\n',
    )


def test_decode_request_checks_one_line_without_state():
    assert decode_request(b'{"id": "q", "cmd": "result", "showdown_id": "s1"}') == Request(
        "q", "result", {"showdown_id": "s1"}
    )
    with pytest.raises(ProtocolError) as raised:
        decode_request(b'{"id": "q", "cmd": "x"}')
    assert raised.value == ProtocolError(
        "unknown_command", f'unknown command "x"; {THE_COMMANDS}', "q"
    )
