"""The table's server at the socket (engine.apps.table.transport), in-process on a
free loopback port with the Config ``serve`` uses: a text frame that is not UTF-8
fails the connection (1007) in one log line with no traceback, a frame over
ws_max_size closes it (1009), and the next connection works; the connection caps
refuse the next one at accept; a half-sent request and a silent connection are
closed after the request timeout; a reader that reads nothing is closed once it
falls too far behind; a Host the table does not serve is refused by the real
server. Each test waits on the server's answer or close, never on a clock."""

from __future__ import annotations

import contextlib
import json
import logging
import random
import re
import socket
import threading
import time

import pytest

from engine.apps.table.limits import Limits
from engine.apps.table.room import Room
from engine.apps.table.server import create_app
from tests.table_helpers import RawWebSocket, free_port, served, uvicorn_serving

pytestmark = pytest.mark.slow


class Records(logging.Handler):
    """Every record of the loggers it is put on."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.logged = threading.Event()  # set at each record (the server logs in its thread)

    def emit(self, record):
        self.records.append(record)
        self.logged.set()

    def wait_for(self, name: str, timeout: float = 30.0) -> None:
        """Until a record of logger ``name`` came (``timeout``: a safety net)."""
        deadline = time.monotonic() + timeout
        while not self.lines(name):
            self.logged.clear()
            if self.lines(name):
                return
            assert self.logged.wait(max(0.0, deadline - time.monotonic())), (
                f"nothing logged by {name} in {timeout:g} s"
            )

    def lines(self, name: str) -> list[str]:
        return [r.getMessage() for r in self.records if r.name == name]


@contextlib.contextmanager
def table(limits: Limits | None = None, *, sndbuf: int | None = None, clock=None):
    """The table's app served as ``serve`` serves it: (port, room, the log's records)."""
    room = Room(seats=2, rng=random.Random(1), code="TEST")
    kwargs = {} if clock is None else {"clock": clock}
    app = create_app(room, pace_s=0, limits=limits, **kwargs)
    with free_port() as (sock, _):
        if sndbuf is not None:  # the connections it accepts inherit it
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        with served(app, sock):
            records = Records()
            loggers = [logging.getLogger(name) for name in ("uvicorn.error", "engine")]
            for logger in loggers:
                logger.addHandler(records)
            try:
                yield sock.getsockname()[1], room, records
            finally:
                for logger in loggers:
                    logger.removeHandler(records)


def no_tracebacks(records: Records) -> None:
    assert [r.getMessage() for r in records.records if r.exc_info] == []


def http(port: int, request: bytes, source: str = "127.0.0.1") -> bytes:
    """Send ``request`` on a new connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as s:
        s.sendall(request)
        out = b""
        with contextlib.suppress(ConnectionResetError):
            while data := s.recv(65536):
                out += data
        return out


def response(sock: socket.socket) -> bytes:
    """One whole response read from ``sock`` (its Content-Length says how long)."""
    out = b""
    while b"\r\n\r\n" not in out:
        out += sock.recv(65536)
    head, _, body = out.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: *([0-9]+)", head)[1])
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def test_invalid_utf8_fails_the_connection_with_1007_in_one_line_and_the_next_works():
    with table() as (port, _, records):
        bad = RawWebSocket(port)
        bad.send_text(b'{"type": "ping", "id": "\xff\xfe"}')
        assert bad.closed() == (1007, "invalid UTF-8 at byte 24", [])
        bad.close()
        good = RawWebSocket(port)
        good.send_text('{"type": "ping", "id": 1}')
        assert json.loads(good.next_text()) == {"type": "pong", "id": 1}
        good.close()
    assert records.lines("engine.apps.table.refused") == [
        "closed the WebSocket /ws from 127.0.0.1: 1007 invalid UTF-8 at byte 24"
    ]
    no_tracebacks(records)


def test_a_frame_over_the_limit_closes_a_large_one_is_refused_and_binary_too():
    with table() as (port, _, records):
        ws = RawWebSocket(port)
        ws.send_text("x" * 5000)
        ws.send_binary(b"\x00" * 10)
        ws.send_text('{"type": "ping", "id": 2}')
        answers = [json.loads(ws.next_text()) for _ in range(3)]
        ws.send_text("x" * (16 * 1024 + 1))
        assert ws.closed() == (1009, "frame with 16385 bytes exceeds limit of 16384 bytes", [])
        ws.close()
        again = RawWebSocket(port)
        again.send_text('{"type": "ping", "id": 3}')
        assert json.loads(again.next_text()) == {"type": "pong", "id": 3}
        again.close()
    assert answers == [
        {
            "type": "refused",
            "id": None,
            "message": "a message is at most 4096 bytes, not 5000: refused unread",
        },
        {
            "type": "refused",
            "id": None,
            "message": "the table takes JSON text frames, not binary ones",
        },
        {"type": "pong", "id": 2},
    ]
    assert records.lines("engine.apps.table.refused") == [
        "closed the WebSocket /ws from 127.0.0.1: 1009 frame with 16385 bytes exceeds limit of 16384 bytes"
    ]
    no_tracebacks(records)


GET = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def test_the_connection_cap_refuses_the_next_connection_at_accept():
    with table(Limits(max_connections=3, max_per_peer=3)) as (port, _, records):
        held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
        for s in held:  # each is served: it holds its place
            s.sendall(GET)
            assert s.recv(65536).startswith(b"HTTP/1.1 200 OK\r\n")
        assert http(port, GET) == b""  # closed at once, unanswered
        with pytest.raises(ConnectionResetError):
            RawWebSocket(port)  # a WebSocket counts alike
        # One leaves (the server closes it after its answer): the next gets its place.
        held[0].sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        while held[0].recv(65536):
            pass
        assert http(port, GET.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")).startswith(
            b"HTTP/1.1 200 OK\r\n"
        )
        for s in held:
            s.close()
    refusals = records.lines("engine.apps.table.refused")
    assert refusals == [
        "refused a connection from 127.0.0.1: 3 connections are open, the most the table "
        "takes (--max-connections 3)",
    ]  # the second refusal within 10 s is counted, not logged


def test_the_per_peer_cap_refuses_that_peer_only():
    with table(Limits(max_per_peer=2)) as (port, _, records):
        mine = [RawWebSocket(port), RawWebSocket(port)]
        assert http(port, GET) == b""
        other = RawWebSocket(port, source="127.0.0.2")  # another address: admitted
        other.send_text('{"type": "ping", "id": 1}')
        assert json.loads(other.next_text()) == {"type": "pong", "id": 1}
        for ws in [*mine, other]:
            ws.close()
    assert records.lines("engine.apps.table.refused") == [
        "refused a connection from 127.0.0.1: 127.0.0.1 has 2 connections open, the most "
        "one address may have (--max-per-peer 2)"
    ]


def test_a_half_sent_request_and_a_silent_connection_are_closed_after_the_timeout():
    with table(Limits(header_timeout_s=0.3)) as (port, _, records):
        assert http(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n") == b""  # no blank line
        assert http(port, b"") == b""  # connected, then nothing
        # a body that dribbles in (the page is answered before its body is read)
        body = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nabc"
        with socket.create_connection(("127.0.0.1", port), 10, ("127.0.0.2", 0)) as slow:
            slow.sendall(body)
            assert response(slow).startswith(b"HTTP/1.1 200 OK\r\n")
            slow.sendall(b"d")
            assert slow.recv(65536) == b""
        # a whole request is answered at once, never cut
        assert http(port, GET.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")).startswith(
            b"HTTP/1.1 200 OK\r\n"
        )
    assert records.lines("engine.apps.table.refused") == [
        "closed a connection from 127.0.0.1: no whole request within 0.3 s",
        "closed a connection from 127.0.0.2: no whole request within 0.3 s",
    ]


def test_a_reader_that_reads_nothing_is_closed_when_too_far_behind():
    """Small socket buffers on both sides, so what the server cannot hand to the
    socket waits in the table's outbox soon; the clock stands still."""
    limits = Limits(
        outbox_bytes=16384,
        message_rate=1e6,
        message_burst=10**6,
        peer_message_rate=1e6,
        peer_message_burst=10**6,
    )
    with table(limits, sndbuf=4096, clock=lambda: 0.0) as (port, _, records):
        reader = RawWebSocket(port, rcvbuf=4096)
        ping = json.dumps({"type": "ping", "id": "p" * 64})
        with contextlib.suppress(OSError):  # the server drops it meanwhile
            for _ in range(20_000):
                reader.send_text(ping)
        # Read nothing until the server has given up on it: reading now would let
        # the server catch up (the pings sent are still being answered).
        records.wait_for("engine.apps.table.refused")
        code, _, texts = reader.closed()
        reader.close()
        assert code == 1006  # dropped: a close frame would wait behind all it never read
        size = len(texts[0])
        assert json.loads(texts[0]) == {"type": "pong", "id": "p" * 64}
        # How much queued behind the blocked send when the next came depends on
        # how the kernel split the pings into reads: whole pongs, over the limit.
        [line] = records.lines("engine.apps.table.refused")
        found = re.fullmatch(
            r"closed the WebSocket /ws from 127\.0\.0\.1: it fell ([0-9]+) bytes and 0\.0 s "
            r"behind \(the limits: 16384 bytes, 30 s\)",
            line,
        )
        assert found, line
        assert int(found[1]) > 16384 and int(found[1]) % size == 0
        # the table goes on
        again = RawWebSocket(port)
        again.send_text('{"type": "ping", "id": 1}')
        assert json.loads(again.next_text()) == {"type": "pong", "id": 1}
        again.close()
    no_tracebacks(records)


def test_the_real_server_refuses_a_host_and_an_origin_and_sends_its_headers():
    with table() as (port, _, records):
        reply = http(
            port, b"GET / HTTP/1.1\r\nHost: evil.example:8700\r\nConnection: close\r\n\r\n"
        )
        assert reply.startswith(b"HTTP/1.1 421 Misdirected Request\r\n")
        ok = http(port, GET.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        head = ok.split(b"\r\n\r\n")[0].decode().lower()
        assert "content-security-policy: default-src 'none';" in head
        assert "x-content-type-options: nosniff" in head and "server:" not in head
        ws = RawWebSocket(port, origin=f"http://evil.example:{port}")
        assert ws.status == 403
        assert ws.response.body == b"This table's sockets are for its own pages only.\n"
        ws.close()
    assert records.lines("engine.apps.table.refused") == [
        "refused a request for / from 127.0.0.1: it names the host 'evil.example:8700', "
        "which this table does not serve",
        f"refused a WebSocket for /ws from 127.0.0.1: its page is from "
        f"'http://evil.example:{port}', not this table (127.0.0.1:{port})",
    ]
    assert not [line for line in records.lines("uvicorn.error") if re.search("Traceback", line)]


def test_a_flood_through_the_server_is_refused_once_then_closed_and_the_table_goes_on():
    """A hundred pings in one write, on a clock that stands still: the protocol
    parses no further ahead than the app reads, so the app's rate sees them one
    by one: the burst answered, one refusal, then the close (1008)."""
    with table(clock=lambda: 0.0) as (port, _, records):
        flooder = RawWebSocket(port)
        frames = b""
        for n in range(100):
            flooder.protocol.send_text(json.dumps({"type": "ping", "id": n}).encode())
        frames = b"".join(flooder.protocol.data_to_send())
        flooder.sock.sendall(frames)
        code, reason, texts = flooder.closed()
        flooder.close()
        again = RawWebSocket(port)
        again.send_text('{"type": "ping", "id": "after"}')
        assert json.loads(again.next_text()) == {"type": "pong", "id": "after"}
        again.close()
    assert (code, reason) == (1008, "too many messages")
    assert [json.loads(t) for t in texts] == [{"type": "pong", "id": n} for n in range(40)] + [
        {
            "type": "refused",
            "id": None,
            "message": "too many messages: a connection may send 20 a second (40 at once); "
            "the ones over that are dropped unread",
        }
    ]
    assert records.lines("engine.apps.table.refused") == [
        "closed the WebSocket /ws from 127.0.0.1: it kept sending over 20 messages a second "
        "(11 dropped)"
    ]


def test_a_request_that_is_not_http_gets_a_400_with_the_headers_in_one_line_per_peer():
    with table() as (port, _, records):
        answers = [http(port, b"NOT HTTP AT ALL\r\n\r\n") for _ in range(3)]
    for answer in answers:
        head = answer.split(b"\r\n\r\n")[0].decode().lower()
        assert head.startswith("http/1.1 400 bad request\r\n")
        assert "content-security-policy: default-src 'none';" in head
        assert "x-content-type-options: nosniff" in head
    assert records.lines("engine.apps.table.refused") == [
        "refused a request from 127.0.0.1: Invalid HTTP request received."
    ]
    assert records.lines("uvicorn.error") == []


def test_ctrl_c_stops_the_table_within_its_stop_wait_while_a_request_never_ends():
    """uvicorn waits for every open request before it stops; the table's waits
    ``stop_wait_s``, then cancels what is left (a page's request the app never
    answers would otherwise keep a Ctrl-C or systemd's stop waiting for ever)."""
    import asyncio

    from starlette.routing import Route

    from engine.apps.table.transport import uvicorn_config

    arrived = threading.Event()

    class NeverAnswers:  # an add-on whose one route never answers
        def routes(self):
            return [Route("/never", self.never)]

        async def never(self, request):
            arrived.set()
            await asyncio.Event().wait()

        @contextlib.asynccontextmanager
        async def running(self):
            yield

    room = Room(seats=2, rng=random.Random(1), code="TEST", host_key="k")
    limits = Limits(stop_wait_s=0.5)
    app = create_app(room, pace_s=0, limits=limits, addons=[NeverAnswers()])
    config = uvicorn_config(app)
    with (
        free_port() as (sock, _),
        uvicorn_serving(config, sock, "the table") as (server, thread),
        socket.create_connection(sock.getsockname()) as client,
    ):
        client.sendall(b"GET /never HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert arrived.wait(10), "the request did not reach the app"
        server.should_exit = True  # what uvicorn's Ctrl-C handler does
        thread.join(15)
        assert not thread.is_alive(), "the table still waits for the request"
