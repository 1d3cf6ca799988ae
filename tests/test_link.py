"""The link under bursts, half-closes, silent sockets and HTTP, on a real daemon.

A client is only ever dropped when it really stops reading; everything it
sent is answered, in order; a browser page or any HTTP client is shut out at
its first line. Every wait is for a reply, an event or the link closing, with
daemon_helpers' generous overall timeout as a safety net, never a sleep.
"""

import http.client
import json
import re
import socket
import threading

import pytest

from tests.daemon_helpers import FAST_CONFIG, PLAYERS, WAIT_S, Client, LinkClosed, running_daemon


def read_lines(sock, count):
    """``count`` lines from ``sock``, parsed; fewer if the link closes first."""
    buffer, lines = b"", []
    sock.settimeout(WAIT_S)
    while len(lines) < count:
        data = sock.recv(65536)
        if not data:
            break
        buffer += data
        *done, buffer = buffer.split(b"\n")
        lines += [json.loads(line) for line in done]
    return lines


def read_to_eof(sock):
    sock.settimeout(WAIT_S)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return [json.loads(line) for line in data.splitlines()]


@pytest.fixture
def daemon(tmp_path):
    # A short send stall, for the client that stops reading. The hello deadline
    # stays the default (10 s): these tests say hello, and only the silent-socket
    # test below is about the deadline (with its own daemon).
    config = FAST_CONFIG + "\n[server]\nsend_stall_s = 2.0\n"
    with running_daemon(tmp_path, config_text=config) as daemon:
        yield daemon


def test_ten_thousand_pipelined_pings_in_one_write_are_all_answered_in_order(daemon):
    sock = socket.create_connection(("127.0.0.1", daemon.port), timeout=WAIT_S)
    burst = b'{"id":0,"cmd":"hello","version":1}\n' + b"".join(
        b'{"id":%d,"cmd":"ping"}\n' % n for n in range(1, 10_001)
    )
    writer = threading.Thread(target=sock.sendall, args=(burst,))
    writer.start()
    replies = read_lines(sock, 10_001)
    writer.join(WAIT_S)
    assert [reply["id"] for reply in replies] == list(range(10_001))
    assert all(reply["ok"] for reply in replies)
    sock.close()
    assert "dropping client" not in daemon.log_text()


def test_a_burst_on_the_link_that_runs_a_showdown_loses_no_event(daemon):
    with Client.tcp(daemon.port) as client:
        client.hello()
        client.request("showdown", showdown_id="burst-1", cards=2, players=PLAYERS)
        client.request("bench_press", side="a", offset_ms=120)
        client.request("start")
        client.send_line(b"\n".join(b"not json %d" % n for n in range(2000)))
        result = client.wait_for_event("result", showdown_id="burst-1")
        assert (result["winner"], result["reason"]) == ("a", "faster")
        assert len(client.other) == 0
        assert client.request("ping")["ok"]


def test_a_half_closed_client_still_gets_the_replies_to_what_it_sent(daemon):
    sock = socket.create_connection(("127.0.0.1", daemon.port), timeout=WAIT_S)
    sock.sendall(
        b'{"id":1,"cmd":"hello","version":1}\n{"id":2,"cmd":"selftest"}\n'
        b'{"id":3,"cmd":"status"}\n{"id":4,"cmd":"ping"}\n'
    )
    sock.shutdown(socket.SHUT_WR)  # what `nc -N` does at the end of its input
    replies = [line for line in read_to_eof(sock) if "id" in line]
    assert sorted(reply["id"] for reply in replies) == [1, 2, 3, 4]
    [selftest] = [reply for reply in replies if reply["id"] == 2]
    assert selftest["ok"] and selftest["passed"]
    sock.close()


def test_a_real_http_post_arms_nothing_and_is_closed_at_its_first_line(daemon):
    body = (
        b'{"id":1,"cmd":"hello","version":1}\n'
        b'{"id":2,"cmd":"showdown","showdown_id":"web-1","cards":2,'
        b'"players":{"a":"Ann","b":"Bob"}}\n{"id":3,"cmd":"start"}\n{"id":4,"cmd":"selftest"}\n'
    )
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=WAIT_S)
    connection.request("POST", "/", body=body, headers={"Content-Type": "text/plain"})
    with pytest.raises((http.client.HTTPException, ConnectionError)):
        connection.getresponse()
    connection.close()
    with Client.tcp(daemon.port) as client:
        client.hello()
        status = client.request("status")
        assert (status["state"], status["showdown"]) == ("idle", None)
        assert client.request("result", showdown_id="web-1")["error"]["code"] == "unknown_showdown"
    assert "sent an HTTP request: closing the link" in daemon.log_text()


def test_a_browser_style_get_gets_one_error_line_then_the_link_closes(daemon):
    sock = socket.create_connection(("127.0.0.1", daemon.port), timeout=WAIT_S)
    sock.sendall(b'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n{"id":1,"cmd":"hello","version":1}\n')
    assert read_to_eof(sock) == [
        {
            "id": None,
            "ok": False,
            "error": {
                "code": "http_refused",
                "message": "this port speaks JSON lines, not HTTP: closing the link",
            },
        }
    ]
    sock.close()


def test_silent_sockets_are_closed_at_the_hello_deadline_and_free_their_slots(tmp_path):
    config = FAST_CONFIG + "\n[server]\nmax_clients = 2\nhello_timeout_s = 0.5\n"
    closed = {
        "id": None,
        "ok": False,
        "error": {
            "code": "hello_timeout",
            "message": "auth and hello did not come within 0.5 s of connecting: closing the link",
        },
    }
    with running_daemon(tmp_path, config_text=config) as daemon:
        # Twice as many as the slots: the second pair is served (and closed at
        # its deadline in turn), not refused as busy, so the first freed theirs.
        # Silent on purpose: a client that said hello would race the 0.5 s.
        for _ in range(2):
            silent = [socket.create_connection(("127.0.0.1", daemon.port)) for _ in range(2)]
            for sock in silent:
                assert read_to_eof(sock) == [closed]
                sock.close()
        assert daemon.log_text().count("no auth and hello within 0.5 s: closing the link") == 4


def test_a_closed_connection_frees_its_slot_at_once(tmp_path):
    config = FAST_CONFIG + "\n[server]\nmax_clients = 2\n"
    with running_daemon(tmp_path, config_text=config) as daemon:
        for _ in range(20):
            first, second = Client.tcp(daemon.port), Client.tcp(daemon.port)
            first.hello()
            second.hello()
            first.close()
            second.close()
            with Client.tcp(daemon.port) as third:  # at once: not "too many clients"
                assert third.hello()["ok"]


def test_after_a_storm_of_connect_and_close_the_next_client_is_served(daemon):
    for _ in range(5000):
        socket.create_connection(("127.0.0.1", daemon.port), timeout=WAIT_S).close()
    with Client.tcp(daemon.port) as client:
        assert client.hello()["ok"] and client.request("ping")["ok"]


def test_three_wrong_tokens_close_the_link_and_every_failure_is_logged(tmp_path):
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    token.chmod(0o600)
    with running_daemon(tmp_path, ["--token-file", str(token)]) as daemon:
        with Client.tcp(daemon.port) as client:
            messages = [client.request("auth", token="guess")["error"]["message"] for _ in range(3)]
            assert messages == [
                "wrong token",
                "wrong token",
                "wrong token (3 tries): closing the link",
            ]
            with pytest.raises(LinkClosed):
                client.request("auth", token="s3cret")
        assert daemon.log_text().count(": wrong token (") == 3
        with Client.tcp(daemon.port) as client:
            assert client.request("auth", token="s3cret")["ok"] and client.hello()["ok"]


def test_deep_nesting_and_duplicate_keys_get_a_reply_and_the_link_stays(daemon):
    with Client.tcp(daemon.port) as client:
        client.hello()
        client.send_line(b'{"id":1,"cmd":"status","x":' + b"[" * 984 + b"]" * 984 + b"}")
        assert client.reply(None)["error"] == {
            "code": "bad_json",
            "message": "line is not valid JSON here: arrays and objects nested deeper than 32",
        }
        client.send_line(b'{"id":2,"cmd":"result","showdown_id":"a","showdown_id":"b"}')
        assert client.reply(None)["error"] == {
            "code": "bad_request",
            "message": 'field "showdown_id" is given twice',
        }
        assert client.request("ping")["ok"]


def test_queued_selftests_never_hold_up_another_client_s_status(daemon):
    with Client.tcp(daemon.port) as tester, Client.tcp(daemon.port) as engine:
        tester.hello()
        engine.hello()
        first, *others = [tester.send("selftest") for _ in range(5)]
        busy = [tester.reply(n) for n in others]  # at once, not after it
        assert {reply["error"]["code"] for reply in busy} == {"busy"}
        assert engine.request("status")["state"] == "selftest"  # not after the lights
        assert tester.reply(first)["passed"] is True


def test_a_client_that_stops_reading_is_dropped_with_the_bytes_and_seconds(daemon):
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # fills sooner
    slow.connect(("127.0.0.1", daemon.port))
    slow.settimeout(WAIT_S)
    slow.sendall(b'{"id": 0, "cmd": "hello", "version": 1}\n')
    dropped = threading.Event()

    def flood():
        try:
            for n in range(1, 1_000_000):  # never reads a reply
                slow.sendall(b'{"id": %d, "cmd": "ping"}\n' % n)
        except OSError:
            dropped.set()

    flooder = threading.Thread(target=flood)
    with Client.tcp(daemon.port) as player:
        player.hello()
        flooder.start()
        player.request("showdown", showdown_id="slow-1", cards=2, players=PLAYERS)
        player.request("bench_press", side="b", offset_ms=100)
        player.request("start")
        result = player.wait_for_event("result", showdown_id="slow-1")
        assert (result["winner"], result["reason"]) == ("b", "faster")
        flooder.join(WAIT_S)
        assert dropped.is_set()
        assert player.request("ping")["ok"]
    slow.close()
    log = daemon.wait_for_log("the client stopped reading")
    # The seconds are those that passed when the daemon looked: at least the
    # 2 s of send_stall_s, more if the machine held it up.
    said = re.findall(r"\d+ bytes waiting to be sent and none taken for (\d+) s: the client", log)
    assert said and all(int(seconds) >= 2 for seconds in said), log
