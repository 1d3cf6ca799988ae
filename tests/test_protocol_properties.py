"""Property tests: whatever arrives, the decoders never raise, and every complete
line gives exactly one item (a request to answer, or an error to send back)."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.protocol import (
    COMMANDS,
    ClientConnection,
    ErrorReply,
    ProtocolError,
    Request,
    ServerConnection,
    check_arguments,
)

LIMIT = 256

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)

# Objects that look like requests, so the argument checks are reached often.
request_like = st.fixed_dictionaries(
    {
        "id": st.integers() | st.text(max_size=8) | json_values,
        "cmd": st.sampled_from(COMMANDS) | st.text(max_size=10),
    },
    optional={
        "version": json_values,
        "token": json_values,
        "showdown_id": json_values,
        "cards": json_values,
        "players": json_values
        | st.fixed_dictionaries({"a": st.text(max_size=45), "b": st.text(max_size=45)}),
        "limit": json_values,
        "player": json_values,
        "side": st.sampled_from("abc"),
        "offset_ms": json_values,
        "at_tick": json_values,
        "extra": json_values,
    },
)


def expected_items(stream: bytes) -> int:
    """How many items ``stream`` must give: one per complete non-blank line, and
    one for an unfinished line already past the limit (reported straight away)."""
    *lines, rest = stream.split(b"\n")
    count = 0
    for line in lines:
        content = line[:-1] if line.endswith(b"\r") else line
        if len(content) > LIMIT or content.strip(b" \t\r"):
            count += 1
    # An unfinished line may still end in "\r\n": a last "\r" is not counted yet.
    if len(rest[:-1] if rest.endswith(b"\r") else rest) > LIMIT:
        count += 1
    return count


def ready_server(refuse_http=False):
    """A server past hello. Framing is what these properties are about, so an
    HTTP-looking line is an ordinary bad line here unless ``refuse_http``."""
    server = ServerConnection(max_line_bytes=LIMIT, refuse_http=refuse_http)
    server.receive_data(b'{"id": 0, "cmd": "hello", "version": 1}\n')
    return server


def feed_in_chunks(end, stream: bytes, cuts: list[int]) -> list:
    items, start = [], 0
    for cut in [*sorted(set(c % (len(stream) + 1) for c in cuts)), len(stream)]:
        items += end.receive_data(stream[start:cut])
        start = cut
    return items


def check_answerable(server, items):
    """Every item can be answered, and the answer carries the request's id."""
    for item in items:
        assert isinstance(item, (Request, ProtocolError))
        reply = item.to_reply() if isinstance(item, ProtocolError) else item.reply()
        wire = json.loads(server.send(reply))
        request_id = item.request_id if isinstance(item, ProtocolError) else item.id
        assert wire["id"] == request_id and wire["ok"] is isinstance(item, Request)


# Raw bytes, with line ends, long runs and request-shaped pieces mixed in.
streams = st.binary(max_size=1200) | st.lists(
    st.binary(max_size=300)
    | st.sampled_from([b"\n", b"\r\n", b"\r", b" ", b"x" * 250, b'{"id":1,"cmd":"ping"}', b"\xff"]),
    max_size=20,
).map(b"".join)


@settings(max_examples=300)
@given(streams, st.lists(st.integers(min_value=0), max_size=8))
def test_random_bytes_never_raise_and_each_line_gives_one_item(stream, cuts):
    server = ready_server()
    items = feed_in_chunks(server, stream, cuts)
    assert len(items) == expected_items(stream)
    check_answerable(server, items)
    tail = server.receive_eof()
    assert len(tail) <= 1 and all(e.code == "truncated_line" for e in tail)
    client = ClientConnection(max_line_bytes=LIMIT)
    assert len(feed_in_chunks(client, stream, cuts)) >= expected_items(stream)
    client.receive_eof()


http_lines = st.sampled_from(
    [
        b"POST / HTTP/1.1",
        b"GET /x?y=1 HTTP/1.0",
        b"Host: 127.0.0.1",
        b"Content-Type: text/plain",
        b"Upgrade: websocket",
    ]
)


@given(
    st.lists(request_like, max_size=3),
    http_lines,
    st.lists(request_like, max_size=3),
    st.lists(st.integers(min_value=0), max_size=8),
)
def test_an_http_line_is_the_last_thing_read(before, http_line, after, cuts):
    lines = [json.dumps(v).encode() for v in before]
    stream = b"\n".join([*lines, http_line, *(json.dumps(v).encode() for v in after)]) + b"\n"
    server, items, start = ready_server(refuse_http=True), [], 0
    for cut in [*sorted(set(c % (len(stream) + 1) for c in cuts)), len(stream)]:
        items += server.receive_data(stream[start:cut])
        start = cut
        if items and getattr(items[-1], "close", False):
            break  # the server stops feeding a closed link
    *answered, last = items
    assert len(answered) == len(lines)  # one item each, read before it
    assert (last.code, last.close) == ("http_refused", True)


@given(
    st.lists(json_values | request_like, min_size=1, max_size=5), st.sampled_from([b"\n", b"\r\n"])
)
def test_random_json_lines_each_give_exactly_one_item(values, newline):
    lines = [json.dumps(v, ensure_ascii=False).encode() for v in values]
    server = ready_server()
    items = server.receive_data(newline.join(lines) + newline)
    assert len(items) == len(lines)
    check_answerable(server, items)
    for value, line, item in zip(values, lines, items, strict=True):
        if len(line) > LIMIT:
            assert item.code == "line_too_long"
        elif isinstance(item, Request):
            # A request only comes out checked, with its schema's arguments.
            assert isinstance(value, dict) and item.cmd == value["cmd"] in COMMANDS
            assert item.args == check_arguments(item.cmd, item.args)


@given(st.lists(json_values | request_like, max_size=4), st.lists(st.integers(0), max_size=6))
def test_splitting_a_stream_never_changes_what_comes_out(values, cuts):
    stream = b"".join(json.dumps(v).encode() + b"\n" for v in values)
    whole = ready_server().receive_data(stream)
    assert feed_in_chunks(ready_server(), stream, cuts) == whole


@given(json_values, st.lists(st.integers(0), max_size=4))
def test_the_client_never_raises_on_what_a_unit_might_send(value, cuts):
    client = ClientConnection()
    client.send_request("ping")
    stream = json.dumps({"id": 1, "ok": False, "error": value}).encode() + b"\n"
    stream += json.dumps({"event": value, "seq": value}).encode() + b"\n"
    stream += json.dumps(value).encode() + b"\n"
    items = feed_in_chunks(client, stream, cuts)
    assert len(items) in (3, 4)  # an event can come with an EventGap
    assert isinstance(items[0], (ErrorReply, ProtocolError))
