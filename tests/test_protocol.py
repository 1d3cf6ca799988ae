"""The wire protocol: two endpoints joined in memory, framing, every error code."""

import hmac
import json
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host import protocol
from firmware_host.protocol import (
    COMMANDS,
    ERROR_CODES,
    EVENTS,
    ClientConnection,
    ConnectionState,
    ErrorReply,
    Event,
    EventGap,
    EventSequencer,
    ProtocolError,
    Reply,
    Request,
    ServerConnection,
    encode,
    negotiate_version,
)
from tests.protocol_helpers import PLAYERS, server_items

#: What unknown_command adds: every command, in docs/protocol.md's order.
THE_COMMANDS = (
    "the commands are hello, auth, ping, status, watch, showdown, start, cancel, result, "
    "history, selftest, bench_press, bench_release, bench_timer"
)
UNKNOWN_LAUNCH = f'unknown command "launch"; {THE_COMMANDS}'


def answer(server, items):
    """What a server loop does: reply to each request (echoing its arguments)
    and to each bad line. Returns the bytes it would write."""
    out = b""
    for item in items:
        if isinstance(item, ProtocolError):
            out += server.send(item.to_reply())
        elif item.cmd == "hello":
            out += server.send(
                server.hello_reply(item, unit={"name": "bench"}, capabilities=["bench"], seq=0)
            )
        else:
            out += server.send(item.reply(echo=dict(item.args)))
    return out


@pytest.fixture
def link():
    """A server and a client that have said hello."""
    server, client = ServerConnection(), ClientConnection()
    _, data = client.send_request("hello")
    [reply] = client.receive_data(answer(server, server.receive_data(data)))
    assert reply.cmd == "hello"
    return server, client


# --- Joined in memory --------------------------------------------------------


def test_hello_then_a_request_round_trip_in_memory():
    server, client = ServerConnection(), ClientConnection()
    assert server.state is ConnectionState.HELLO
    request_id, data = client.send_request("hello")
    assert (request_id, data) == (1, b'{"id":1,"cmd":"hello","version":1}\n')
    assert client.pending == {1: "hello"}
    [request] = server.receive_data(data)
    assert request == Request(1, "hello", {"version": 1})
    assert server.ready and server.version == 1
    reply_bytes = answer(server, [request])
    assert reply_bytes == (
        b'{"id":1,"ok":true,"version":1,"unit":{"name":"bench"},"capabilities":["bench"],"seq":0}\n'
    )
    assert client.receive_data(reply_bytes) == [
        Reply(
            1,
            {"version": 1, "unit": {"name": "bench"}, "capabilities": ["bench"], "seq": 0},
            "hello",
        )
    ]
    assert client.version == 1 and client.last_seq == 0 and client.pending == {}

    request_id, data = client.send_request("showdown", showdown_id="sd-1", cards=3, players=PLAYERS)
    assert request_id == 2
    [request] = server.receive_data(data)
    assert request == Request(
        2, "showdown", {"showdown_id": "sd-1", "cards": 3, "players": PLAYERS, "bots": None}
    )
    [reply] = client.receive_data(server.send(request.reply(state="armed")))
    assert reply == Reply(2, {"state": "armed"}, "showdown")


def test_an_error_reply_becomes_an_object_with_code_and_message(link):
    server, client = link
    _, data = client.send_request("start")
    [request] = server.receive_data(data)
    [reply] = client.receive_data(server.send(request.fail("not_armed", "nothing is armed")))
    assert reply == ErrorReply(2, "not_armed", "nothing is armed", "start")
    assert not reply.ok and client.pending == {}


def test_byte_at_a_time(link):
    server, client = link
    data = client.send_request("ping")[1] + client.send_request("status")[1]
    items = []
    for i in range(len(data)):
        got = server.receive_data(data[i : i + 1])
        assert got == [] or data[i : i + 1] == b"\n"
        items += got
    assert items == [Request(2, "ping"), Request(3, "status")]
    replies = answer(server, items)
    got = []
    for i in range(len(replies)):
        got += client.receive_data(replies[i : i + 1])
    assert got == [Reply(2, {"echo": {}}, "ping"), Reply(3, {"echo": {}}, "status")]


def test_two_messages_in_one_chunk(link):
    server, client = link
    data = client.send_request("ping")[1] + client.send_request("cancel")[1]
    items = server.receive_data(data)
    assert items == [Request(2, "ping"), Request(3, "cancel")]
    assert [r.cmd for r in client.receive_data(answer(server, items))] == ["ping", "cancel"]


def test_crlf_line_ends_and_blank_lines():
    items = server_items(b'{"id": 1, "cmd": "ping"}\r\n\r\n  \n{"id": 2, "cmd": "status"}\r\n')
    assert items == [Request(1, "ping"), Request(2, "status")]


def test_crlf_split_between_chunks_at_the_limit():
    server = ServerConnection(max_line_bytes=256)
    server.receive_data(b'{"id": 0, "cmd": "hello", "version": 1}\n')
    line = b'{"id": "' + b"x" * 231 + b'", "cmd": "ping"}'
    assert len(line) == 256
    assert server.receive_data(line + b"\r") == []
    assert server.receive_data(b"\n") == [Request("x" * 231, "ping")]


# --- Line length -----------------------------------------------------------

TOO_LONG = ProtocolError(
    "line_too_long", "line longer than 256 bytes; discarded up to the next newline"
)


def test_a_line_over_the_limit_gets_an_error_reply_then_the_next_line_works():
    server, client = ServerConnection(max_line_bytes=256), ClientConnection()
    client.send_request("hello")
    hello = b'{"id": 1, "cmd": "hello", "version": 1}\n'
    items = server.receive_data(b"x" * 300 + b"\n" + hello)
    assert items == [TOO_LONG, Request(1, "hello", {"version": 1})]
    assert server.send(items[0].to_reply()) == (
        b'{"id":null,"ok":false,"error":{"code":"line_too_long",'
        b'"message":"line longer than 256 bytes; discarded up to the next newline"}}\n'
    )
    assert client.receive_data(server.send(items[0].to_reply())) == [
        ErrorReply(None, "line_too_long", TOO_LONG.message)
    ]


def test_an_over_long_line_is_reported_once_and_discarded_across_chunks():
    server = ServerConnection(max_line_bytes=256)
    assert server.receive_data(b"y" * 200) == []
    assert server.receive_data(b"y" * 100) == [TOO_LONG]
    for _ in range(100):  # memory stays bounded meanwhile
        assert server.receive_data(b"z" * 1000) == []
    assert len(server._lines._buffer) == 0
    assert server.receive_data(b'zzz\n{"id": 1, "cmd": "ping"}\n') == [
        ProtocolError("hello_required", 'send hello before "ping"', 1)
    ]


def test_a_line_exactly_at_the_limit_is_accepted():
    line = b'{"id": "' + b"x" * 231 + b'", "cmd": "ping"}'
    assert len(line) == 256
    assert server_items(line + b"\n", max_line_bytes=256) == [Request("x" * 231, "ping")]
    assert server_items(line + b" \n", max_line_bytes=256) == [TOO_LONG]


def test_the_client_limit_is_larger_for_long_replies(link):
    server, client = link
    _request_id, data = client.send_request("history")
    [request] = server.receive_data(data)
    reply = server.send(request.reply(results=["r" * 100] * 1000))
    assert len(reply) > 100_000
    assert client.receive_data(reply)[0].data["results"][0] == "r" * 100
    small = ClientConnection(max_line_bytes=1000)
    assert small.receive_data(reply) == [
        ProtocolError(
            "line_too_long", "line longer than 1000 bytes; discarded up to the next newline"
        )
    ]


# --- End of file -------------------------------------------------------------


@pytest.mark.parametrize("make", [ServerConnection, ClientConnection])
def test_a_link_that_closes_mid_line_reports_a_truncated_line(make):
    end = make()
    assert end.receive_data(b'{"id": 1, "cm') == []
    assert end.receive_eof() == [
        ProtocolError("truncated_line", "link closed in the middle of a line (13 bytes discarded)")
    ]
    assert end.receive_eof() == []
    with pytest.raises(RuntimeError, match=r"receive_data\(\) after receive_eof\(\)"):
        end.receive_data(b"}\n")


def test_a_clean_close_reports_nothing_and_close_is_receive_eof():
    server = ServerConnection()
    server.receive_data(b'{"id": 1, "cmd": "hello", "version": 1}\n')
    assert server.close() == []
    assert server.state is ConnectionState.CLOSED and not server.ready


def test_an_over_long_line_cut_by_the_close_is_not_reported_twice():
    server = ServerConnection(max_line_bytes=256)
    assert server.receive_data(b"x" * 300) == [TOO_LONG]
    assert server.receive_eof() == []


def test_empty_data_is_not_end_of_file():
    server = ServerConnection()
    assert server.receive_data(b"") == []
    assert server.receive_data(b'{"id": 1, "cmd": "hello", "version": 1}\n')[0].cmd == "hello"


# --- Error codes the protocol produces ----------------------------------------


@pytest.mark.parametrize(
    "line, code, message, request_id",
    [
        (b"hello\n", "bad_json", "line is not valid JSON: Expecting value at column 1", None),
        (
            b'{"id": 1,\n',
            "bad_json",
            "line is not valid JSON: Expecting property name enclosed in double quotes at column 10",
            None,
        ),
        (
            b'{"id": "\xff\xfe"}\n',
            "bad_json",
            "line is not valid UTF-8 (byte 0xff at offset 8)",
            None,
        ),
        (
            b'{"id": NaN, "cmd": "ping"}\n',
            "bad_json",
            "line is not valid JSON: NaN is not a JSON value",
            None,
        ),
        (
            b"[" * 2000 + b"\n",
            "bad_json",
            "line is not valid JSON here: arrays and objects nested deeper than 32",
            None,
        ),
        (b"[1, 2]\n", "bad_request", "a request must be a JSON object, not an array", None),
        (b'"ping"\n', "bad_request", "a request must be a JSON object, not a string", None),
        (b"null\n", "bad_request", "a request must be a JSON object, not null", None),
        (b"7\n", "bad_request", "a request must be a JSON object, not a number", None),
        (b'{"cmd": "ping"}\n', "bad_request", "missing field 'id'", None),
        (
            b'{"id": null, "cmd": "ping"}\n',
            "bad_request",
            "field 'id' must be a number or a string, not null",
            None,
        ),
        (
            b'{"id": [1], "cmd": "ping"}\n',
            "bad_request",
            "field 'id' must be a number or a string, not [1]",
            None,
        ),
        (
            b'{"id": true, "cmd": "ping"}\n',
            "bad_request",
            "field 'id' must be a number or a string, not true",
            None,
        ),
        (
            b'{"id": 1e999, "cmd": "ping"}\n',
            "bad_request",
            "field 'id' must be a number or a string, not Infinity",
            None,
        ),
        (b'{"id": 4}\n', "bad_request", "missing field 'cmd'", 4),
        (b'{"id": "x", "cmd": 5}\n', "bad_request", "field 'cmd' must be a string, not 5", "x"),
        (b'{"id": 1, "cmd": "ping", "extra": 1}\n', "bad_request", "unknown field 'extra'", 1),
        (b'{"id": 1, "cmd": "launch"}\n', "unknown_command", UNKNOWN_LAUNCH, 1),
        (
            b'{"id": 1.5, "cmd": "hello", "version": 0}\n',
            "unsupported_version",
            "client speaks up to version 0; this unit speaks versions 1 to 1",
            1.5,
        ),
    ],
)
def test_every_protocol_error_code_with_its_exact_message(line, code, message, request_id):
    # (UNKNOWN_LAUNCH, above the parametrize, names every command.)
    [error] = server_items(line)
    assert error == ProtocolError(code, message, request_id)
    wire = json.loads(ServerConnection().send(error.to_reply()))
    assert wire == {"id": request_id, "ok": False, "error": {"code": code, "message": message}}


def test_hello_is_required_before_other_commands_but_not_before_unknown_ones():
    server = ServerConnection()
    assert server.receive_data(b'{"id": 1, "cmd": "status"}\n') == [
        ProtocolError("hello_required", 'send hello before "status"', 1)
    ]
    assert server.receive_data(b'{"id": 2, "cmd": "showdown"}\n') == [
        ProtocolError("hello_required", 'send hello before "showdown"', 2)
    ]
    assert server.receive_data(b'{"id": 3, "cmd": "nope"}\n') == [
        ProtocolError("unknown_command", f'unknown command "nope"; {THE_COMMANDS}', 3)
    ]
    assert server.state is ConnectionState.HELLO


def test_a_refused_hello_leaves_the_connection_waiting_for_hello():
    server = ServerConnection()
    server.receive_data(b'{"id": 1, "cmd": "hello", "version": -3}\n')
    assert server.state is ConnectionState.HELLO and server.version is None
    assert server.receive_data(b'{"id": 2, "cmd": "hello", "version": 5}\n') == [
        Request(2, "hello", {"version": 5})
    ]
    assert server.version == 1 and server.ready


def test_the_version_rule():
    assert negotiate_version(1) == 1
    assert negotiate_version(2) == 1  # a newer client speaks down to us
    with pytest.raises(
        ProtocolError,
        match=r"^unsupported_version: client speaks up to "
        "version 0; this unit speaks versions 1 to 1$",
    ):
        negotiate_version(0)


def test_the_client_refuses_a_unit_that_answers_a_version_it_does_not_speak():
    client = ClientConnection()
    client.send_request("hello")
    assert client.receive_data(b'{"id": 1, "ok": true, "version": 2, "seq": 0}\n') == [
        ProtocolError(
            "unsupported_version", "unit answered version 2; this client speaks versions 1 to 1", 1
        )
    ]
    assert client.version is None


# --- Auth --------------------------------------------------------------------


def test_with_a_token_auth_comes_before_anything_else(monkeypatch):
    compared = []
    real = hmac.compare_digest
    monkeypatch.setattr(hmac, "compare_digest", lambda a, b: compared.append((a, b)) or real(a, b))
    server = ServerConnection(token="s3cret")
    assert server.state is ConnectionState.AUTH
    for n, cmd in enumerate(["hello", "status", "nope"]):
        assert server.receive_data(json.dumps({"id": n, "cmd": cmd}).encode() + b"\n") == [
            ProtocolError("unauthorized", f'send auth with the unit\'s token before "{cmd}"', n)
        ]
    assert server.receive_data(b'{"id": 5, "cmd": "auth", "token": "s3cre"}\n') == [
        ProtocolError("unauthorized", "wrong token", 5)
    ]
    assert server.state is ConnectionState.AUTH
    assert server.receive_data(b'{"id": 6, "cmd": "auth", "token": "s3cret"}\n') == [
        Request(6, "auth", {"token": "s3cret"})
    ]
    assert compared == [(b"s3cre", b"s3cret"), (b"s3cret", b"s3cret")]
    assert server.state is ConnectionState.HELLO
    assert server.receive_data(b'{"id": 7, "cmd": "status"}\n') == [
        ProtocolError("hello_required", 'send hello before "status"', 7)
    ]
    assert server.receive_data(b'{"id": 8, "cmd": "hello", "version": 1}\n')[0].cmd == "hello"
    assert server.ready


def test_a_wrong_token_after_a_good_one_is_refused_but_keeps_the_session():
    server = ServerConnection(token="s3cret")
    server.receive_data(
        b'{"id": 1, "cmd": "auth", "token": "s3cret"}\n{"id": 2, "cmd": "hello", "version": 1}\n'
    )
    assert server.receive_data(b'{"id": 3, "cmd": "auth", "token": "guess"}\n') == [
        ProtocolError("unauthorized", "wrong token", 3)
    ]
    assert server.ready


def test_auth_without_a_configured_token_is_accepted():
    server = ServerConnection(token="")
    assert server.state is ConnectionState.HELLO
    assert server.receive_data(b'{"id": 1, "cmd": "auth", "token": "anything"}\n') == [
        Request(1, "auth", {"token": "anything"})
    ]


def test_a_token_with_a_lone_surrogate_is_compared_not_raised():
    server = ServerConnection(token="s3cret")
    assert server.receive_data(b'{"id": 1, "cmd": "auth", "token": "\\ud800"}\n') == [
        ProtocolError("unauthorized", "wrong token", 1)
    ]


# --- Client side -----------------------------------------------------------


def test_request_ids_count_up_and_unknown_commands_are_refused_locally():
    client = ClientConnection()
    assert [client.send_request("ping")[0] for _ in range(3)] == [1, 2, 3]
    with pytest.raises(ProtocolError) as raised:
        client.send_request("launch")
    assert raised.value == ProtocolError("unknown_command", UNKNOWN_LAUNCH)
    assert client.pending == {1: "ping", 2: "ping", 3: "ping"}


def test_a_reply_to_no_pending_request_is_reported(link):
    _, client = link
    assert client.receive_data(b'{"id": 42, "ok": true}\n') == [
        ProtocolError("unexpected_reply", "reply to unknown request id 42", 42)
    ]
    assert client.receive_data(b'{"id": [1], "ok": true}\n') == [
        ProtocolError("unexpected_reply", "reply to unknown request id [1]", [1])
    ]


@pytest.mark.parametrize(
    "line, error",
    [
        (
            b"nonsense\n",
            ProtocolError("bad_json", "line is not valid JSON: Expecting value at column 1"),
        ),
        (b"[]\n", ProtocolError("bad_message", "a message must be a JSON object, not an array")),
        (
            b'{"hello": 1}\n',
            ProtocolError(
                "bad_message",
                "a message must be a reply (id and ok) or an event (event and seq), "
                'not {"hello": 1}',
            ),
        ),
        (
            b'{"event": "go"}\n',
            ProtocolError(
                "bad_message",
                "an event needs a string 'event' and a whole number 'seq', not \"go\", null",
            ),
        ),
        (
            b'{"id": 1, "ok": false, "error": "busy"}\n',
            ProtocolError(
                "bad_message",
                "an error reply needs 'error' with a string code and message, not \"busy\"",
                1,
            ),
        ),
    ],
)
def test_the_client_reports_lines_it_cannot_use(line, error):
    assert ClientConnection().receive_data(line) == [error]


def test_an_error_reply_with_no_id_is_passed_on():
    client = ClientConnection()
    client.send_request("ping")
    line = b'{"id":null,"ok":false,"error":{"code":"bad_json","message":"m"}}\n'
    assert client.receive_data(line) == [ErrorReply(None, "bad_json", "m")]
    assert client.pending == {1: "ping"}


# --- Events ------------------------------------------------------------------


def test_events_are_numbered_per_unit_across_clients():
    events = EventSequencer()
    first, second = ServerConnection(), ServerConnection()
    go = events.event("go")
    assert encode(go) == b'{"event":"go","seq":1}\n'
    assert first.send(go) == second.send(go) == encode(go)
    result = events.event("result", winner="a", margin_us=1200)
    assert encode(result) == b'{"event":"result","seq":2,"winner":"a","margin_us":1200}\n'
    assert events.last == 2
    with pytest.raises(ValueError, match=r"^unknown event 'bang' \(known: state, armed, "):
        events.event("bang")
    assert events.last == 2


def test_every_listed_event_can_be_numbered():
    events = EventSequencer(last=10)
    assert [events.event(name).seq for name in EVENTS] == list(range(11, 11 + len(EVENTS)))


def test_the_client_sees_a_gap_in_the_event_numbers(link):
    _, client = link  # hello said the unit's last seq was 0
    assert client.receive_data(b'{"event":"armed","seq":1,"cards":2}\n') == [
        Event("armed", 1, {"cards": 2})
    ]
    assert client.receive_data(b'{"event":"go","seq":4}\n') == [EventGap(2, 4), Event("go", 4)]
    assert client.receive_data(b'{"event":"state","seq":1,"state":"idle"}\n') == [
        EventGap(5, 1),
        Event("state", 1, {"state": "idle"}),
    ]
    assert client.last_seq == 1


def test_an_outputs_event_is_not_numbered_and_is_no_gap(link):
    _, client = link  # hello said the unit's last seq was 0
    assert client.receive_data(b'{"event":"go","seq":1}\n') == [Event("go", 1)]
    assert client.receive_data(b'{"event":"outputs","seq":1,"go":true}\n') == [
        Event("outputs", 1, {"go": True})
    ]
    assert client.receive_data(b'{"event":"state","seq":2}\n') == [Event("state", 2)]
    assert client.last_seq == 2


def test_a_client_without_hello_takes_the_first_event_as_its_start():
    client = ClientConnection()
    assert client.receive_data(b'{"event":"future_thing","seq":7}\n') == [Event("future_thing", 7)]


# --- Encoding ---------------------------------------------------------------


def test_reserved_keys_cannot_be_data():
    with pytest.raises(ValueError, match=r"^data may not use the key 'ok'$"):
        encode(Reply(1, {"ok": False}))
    with pytest.raises(ValueError, match=r"^data may not use the key 'seq'$"):
        encode(Event("go", 1, {"seq": 2}))


def test_a_lone_surrogate_is_escaped_so_the_line_stays_utf8():
    assert encode(Reply("\ud800", {"name": "Zoë"})) == (
        b'{"id":"\\ud800","ok":true,"name":"Zo\\u00eb"}\n'
    )
    assert encode(Reply(1, {"name": "Zoë"})) == '{"id":1,"ok":true,"name":"Zoë"}\n'.encode()


def test_the_server_sends_only_replies_and_events_with_known_codes():
    server = ServerConnection()
    with pytest.raises(TypeError, match=r"^a server sends replies and events, not Request$"):
        server.send(Request(1, "ping"))
    with pytest.raises(ValueError, match=r"^error code must be a lower_case_word, not 'No pe'$"):
        Request(1, "ping").fail("No pe", "m")
    # A code this module does not list yet still goes out.
    assert encode(Request(1, "ping").fail("brand_new", "m")) == (
        b'{"id":1,"ok":false,"error":{"code":"brand_new","message":"m"}}\n'
    )


def test_every_error_code_is_documented():
    doc = (Path(__file__).parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    for name in [*ERROR_CODES, *protocol.LOCAL_ERROR_CODES, *COMMANDS, *EVENTS]:
        assert f"`{name}`" in doc, name


def test_the_protocol_module_pulls_in_only_the_standard_library():
    code = (
        "import sys; before = set(sys.modules); import firmware_host.protocol; "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.split()
    ours = {m for m in loaded if m.split(".")[0] in {"firmware_host", "hw", "engine"}}
    assert ours == {
        "firmware_host",
        "firmware_host.protocol",
        *(
            f"firmware_host.protocol.{name}"
            for name in (
                "_connection",
                "_errors",
                "_framing",
                "_messages",
                "_names",
                "_outputs",
                "_schemas",
                "_values",
            )
        ),
    }
    # No hardware, transport, thread or database code: both ends import this.
    unwanted = {m.split(".")[0] for m in loaded} & {
        "serial",
        "gpiozero",
        "transitions",
        "sqlite3",
        "threading",
        "socket",
        "asyncio",
    }
    assert unwanted == set()
