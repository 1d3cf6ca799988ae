"""The protocol server's request handling, against scripted in-memory peers:
no sockets, no threads of its own (commands run inline)."""

import json
import logging
from concurrent.futures import Future
from dataclasses import replace
from typing import ClassVar

import pytest
from gpiozero.pins.mock import MockFactory

from engine.units.unit_replies import check_event
from firmware_host import BusyError, NotMockError, Unit
from firmware_host.core.result import UnitEvent
from firmware_host.protocol import Outputs
from firmware_host.service.config import ServerConfig, load_config
from firmware_host.service.daemon import JournalWriter
from firmware_host.service.journal import Journal
from firmware_host.service.server import MAX_IN_FLIGHT, Server, Session
from hw.mock import InjectableMockPin
from hw.selftest import DeviceCheck

PLAYERS = {"a": "Ann", "b": "Bob"}
WAIT_S = 10.0  # a safety net for a broken loop, not a timing assertion


class Inline:
    """Runs each command at once, on the caller's thread."""

    def submit(self, job):
        job()

    def close(self):
        pass


class FakeUnit:
    """Just enough of a Unit for the server: records calls, answers from a
    script, raises what it is told to."""

    def __init__(self, config=None):
        self.config = config or load_config(None).replace(backend="mock")
        self.calls = []
        self.raises = {}
        self.subscribers = []
        self.state = {
            "state": "idle",
            "paddles": {"a": False, "b": False},
            "showdown": None,
            "last_result": None,
            "fault": None,
        }
        self.bench = self
        self.hold_selftest = False

    def subscribe(self, fn):
        self.subscribers.append(fn)
        return lambda: self.subscribers.remove(fn)

    outputs: ClassVar[dict] = {
        "leds": [False, False, False],
        "go": False,
        "arrows": {"a": False, "b": False},
        "buzzer": False,
        "motor": {"direction": None, "speed": 0.0},
        "paddles": {"a": False, "b": False},
    }

    def call(self, fn, *args, **kwargs):  # the unit's loop thread: here, at once
        return fn(*args, **kwargs)

    def watch_outputs(self, fn):
        self.calls.append(("watch_outputs", (), {}))
        self.watchers = [fn]
        return Outputs.from_wire(self.outputs)

    def unwatch_outputs(self, fn):
        self.calls.append(("unwatch_outputs", (), {}))
        self.watchers = []

    def _do(self, name, *args, **kwargs):
        self.calls.append((name, args, kwargs))
        if name in self.raises:
            raise self.raises[name]
        return dict(self.state)

    def status(self):
        return self._do("status")

    def arm(self, *args):
        return self._do("arm", *args)

    def start(self):
        return self._do("start")

    def cancel(self):
        return self._do("cancel")

    def start_selftest(self):
        self._do("selftest")
        self.selftest_running = Future()
        if not self.hold_selftest:
            self.finish_selftest()
        return self.selftest_running

    def finish_selftest(self):
        self.selftest_running.set_result(
            [DeviceCheck("paddle_a", True, "idle"), DeviceCheck("go_led", False, "stuck")]
        )

    def press(self, side, **times):
        return self._do("press", side, **times)

    def release(self, side, **times):
        return self._do("release", side, **times)

    def press_timer(self):
        return self._do("press_timer")


def settings(**changes):
    return replace(ServerConfig(), **changes)


@pytest.fixture
def fake(tmp_path):
    unit = FakeUnit()
    server = Server(
        unit,
        tmp_path / "results.sqlite3",
        settings=settings(),
        runner=Inline(),
        history_runner=Inline(),
        mock=True,
    )
    yield server, unit
    server.close()


def talk(server, session, *requests):
    """Send request dicts (or raw bytes) and return every line the server
    queued for the session, parsed."""
    for request in requests:
        data = request if isinstance(request, bytes) else json.dumps(request).encode() + b"\n"
        server.receive(session, data)
    server.pump()
    return [json.loads(line) for line in session.take_all().splitlines()]


def ready_session(server, name="peer"):
    session = server.open_session(name)
    [reply] = talk(server, session, {"id": 0, "cmd": "hello", "version": 1})
    assert reply["ok"] is True
    return session


# -- answered on the I/O thread --------------------------------------------------------------


def test_hello_ping_and_bad_lines_are_answered_at_once(fake):
    server, unit = fake
    session = server.open_session("peer")
    assert talk(
        server,
        session,
        b"nonsense\n",
        {"id": 1, "cmd": "status"},
        {"id": 2, "cmd": "hello", "version": 1},
        {"id": 3, "cmd": "ping"},
    ) == [
        {
            "id": None,
            "ok": False,
            "error": {
                "code": "bad_json",
                "message": "line is not valid JSON: Expecting value at column 1",
            },
        },
        {
            "id": 1,
            "ok": False,
            "error": {"code": "hello_required", "message": 'send hello before "status"'},
        },
        {
            "id": 2,
            "ok": True,
            "version": 1,
            "unit": {
                "name": "showdown-unit",
                "software": "0.1.0",
                "max_cards": 10,
                "backend": "mock",
            },
            "capabilities": ["bots", "outputs", "bench"],
            "seq": 0,
        },
        {"id": 3, "ok": True},
    ]
    assert unit.calls == []


def test_a_session_with_a_token_must_auth_first(fake):
    server, _ = fake
    session = server.open_session("peer", token="s3cret")
    replies = talk(
        server,
        session,
        {"id": 1, "cmd": "hello", "version": 1},
        {"id": 2, "cmd": "auth", "token": "guess"},
        {"id": 3, "cmd": "auth", "token": "s3cret"},
        {"id": 4, "cmd": "hello", "version": 1},
    )
    assert [(r["id"], r["ok"], r.get("error", {}).get("code")) for r in replies] == [
        (1, False, "unauthorized"),
        (2, False, "unauthorized"),
        (3, True, None),
        (4, True, None),
    ]
    assert replies[1]["error"]["message"] == "wrong token"


def test_max_clients_refuses_the_next_one_with_one_line(fake, tmp_path):
    server = Server(
        FakeUnit(), tmp_path / "r.sqlite3", settings=settings(max_clients=2), runner=Inline()
    )
    first, second = server.open_session("one"), server.open_session("two")
    assert server.open_session("three") is None
    assert server.open_session("serial", counted=False) is not None  # the serial link
    assert json.loads(server.refusal()) == {
        "id": None,
        "ok": False,
        "error": {"code": "busy", "message": "too many clients: this unit serves at most 2"},
    }
    server.close_session(first)
    assert server.open_session("three") is not None
    assert second in server.sessions and first not in server.sessions


# -- events ---------------------------------------------------------------------------------


def test_events_are_numbered_once_and_go_to_ready_sessions_only(fake):
    server, unit = fake
    watcher, other = ready_session(server, "watcher"), ready_session(server, "other")
    newcomer = server.open_session("newcomer")  # no hello yet
    for name, data in (
        ("state", {"state": "armed", "previous": "idle"}),
        ("countdown", {"showdown_id": "s", "step": 1, "steps": 3, "rerun": 0}),
    ):
        unit.subscribers[0](UnitEvent(name, data))
    assert server.pump() == 2
    expected = [
        {"event": "state", "seq": 1, "state": "armed", "previous": "idle"},
        {"event": "countdown", "seq": 2, "showdown_id": "s", "step": 1, "steps": 3, "rerun": 0},
    ]
    assert [json.loads(line) for line in watcher.take_all().splitlines()] == expected
    assert [json.loads(line) for line in other.take_all().splitlines()] == expected
    assert newcomer.take_all() == b""
    [hello] = talk(server, newcomer, {"id": 1, "cmd": "hello", "version": 1})
    assert hello["seq"] == 2  # the next event it sees is 3


def test_a_session_past_its_byte_limit_is_dropped_and_others_carry_on(tmp_path):
    unit = FakeUnit()
    server = Server(
        unit, tmp_path / "r.sqlite3", settings=settings(send_buffer_bytes=200), runner=Inline()
    )
    slow, fast = ready_session(server, "slow"), ready_session(server, "fast")
    for step in range(4):
        unit.subscribers[0](
            UnitEvent("countdown", {"showdown_id": "s", "step": step, "steps": 4, "rerun": 0})
        )
        server.pump()
        fast.take_all()  # fast reads as it goes
    assert slow.closing == (
        "231 bytes waiting to be sent, more than server.send_buffer_bytes "
        "(200): the client is not reading"
    )
    assert slow.take_all() == b"" and fast.closing is None and slow.finished


def test_session_writes_whole_lines_in_chunks_and_counts_the_bytes_left():
    from firmware_host.protocol import ServerConnection

    session = Session("peer", ServerConnection(), send_buffer_bytes=100)
    session.queue(b"one\n")
    session.queue(b"two\n")
    assert session.outgoing() == b"one\ntwo\n" and session.queued_lines == 0
    session.sent(5)
    assert session.outgoing() == b"wo\n" and session.wants_write and session.pending_bytes == 3
    session.sent(3)
    assert not session.wants_write and session.pending_bytes == 0


def test_many_unread_replies_pause_reading_instead_of_dropping_the_client(fake):
    server, _ = fake
    session = ready_session(server)
    replies = 0
    while not session.reading_paused:
        server.receive(session, b'{"id":1,"cmd":"ping"}\n' * 100)
        replies += 100
    assert session.closing is None and session.pending_bytes >= 65536
    assert session.take_all().count(b"\n") == replies and not session.reading_paused


def test_a_half_closed_client_is_closed_only_once_its_replies_are_out(fake):
    server, _unit = fake
    server._runner = held = HeldRunner()
    session = ready_session(server)
    server.receive(session, b'{"id":1,"cmd":"status"}\n{"id":2,"cmd":"ping"}\n')
    server.peer_closed(session)
    assert not session.finished  # status is still with the worker
    held.pop(0)()
    server.pump()
    assert not session.finished  # its reply waits to be sent
    assert [json.loads(line)["id"] for line in session.take_all().splitlines()] == [2, 1]
    assert session.finished


def test_an_http_request_closes_the_link_before_any_later_line_is_read(fake, caplog):
    server, unit = fake
    session = server.open_session("tcp 127.0.0.1:5000")
    body = b'{"id":1,"cmd":"hello","version":1}\n{"id":2,"cmd":"selftest"}\n'
    talk_lines = talk(
        server,
        session,
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1:7700\r\nContent-Type: text/plain\r\n\r\n" + body,
    )
    assert talk_lines == [
        {
            "id": None,
            "ok": False,
            "error": {
                "code": "http_refused",
                "message": "this port speaks JSON lines, not HTTP: closing the link",
            },
        }
    ]
    assert session.finished and unit.calls == []
    server.receive(session, body)  # nothing more is read
    assert unit.calls == [] and session.take_all() == b""
    assert "client tcp 127.0.0.1:5000 sent an HTTP request: closing the link" in caplog.text


def test_a_serial_link_takes_a_header_like_line_as_noise_not_as_http(fake):
    server, _unit = fake
    session = server.open_session("serial /dev/ttyUSB0", counted=False)
    replies = talk(
        server, session, b"Host: noise on the line\n", {"id": 1, "cmd": "hello", "version": 1}
    )
    assert [r["error"]["code"] if not r["ok"] else "ok" for r in replies] == ["bad_json", "ok"]
    assert not session.finished


def test_three_wrong_tokens_close_the_link_and_each_is_logged(tmp_path, caplog):
    server = Server(FakeUnit(), tmp_path / "r.sqlite3", settings=settings(), runner=Inline())
    session = server.open_session("tcp 192.0.2.7:4000", token="s3cret")
    wrong = [{"id": n, "cmd": "auth", "token": "guess"} for n in (1, 2, 3, 4)]
    replies = talk(server, session, *wrong)
    assert [r["error"]["message"] for r in replies] == [
        "wrong token",
        "wrong token",
        "wrong token (3 tries): closing the link",
    ]
    assert session.finished
    assert caplog.text.count("client tcp 192.0.2.7:4000: wrong token") == 3


def test_a_late_hello_is_told_and_closed(fake):
    server, _ = fake
    session = server.open_session("peer", hello_deadline=10.0)
    server.expire_hello(session, 10.0)
    assert talk(server, session) == [
        {
            "id": None,
            "ok": False,
            "error": {
                "code": "hello_timeout",
                "message": "auth and hello did not come within 10 s of connecting: closing the link",
            },
        }
    ]
    assert session.finished


# -- commands (worker side) -------------------------------------------------------------------


def test_unit_errors_become_their_codes_and_other_exceptions_fault(fake, caplog):
    server, unit = fake
    session = ready_session(server)
    unit.raises = {
        "start": BusyError("the unit is busy: state is 'countdown'"),
        "cancel": ZeroDivisionError("division by zero"),
    }
    with caplog.at_level(logging.ERROR, logger="firmware_host.service.server"):
        replies = talk(
            server,
            session,
            {"id": 1, "cmd": "start"},
            {"id": 2, "cmd": "cancel"},
            {"id": 3, "cmd": "ping"},
        )
    # The ping is answered on the I/O thread at once, ahead of the worker's replies.
    assert [r["id"] for r in replies] == [3, 1, 2]
    assert sorted(replies, key=lambda r: r["id"]) == [
        {
            "id": 1,
            "ok": False,
            "error": {"code": "busy", "message": "the unit is busy: state is 'countdown'"},
        },
        {
            "id": 2,
            "ok": False,
            "error": {
                "code": "fault",
                "message": "cancel failed: ZeroDivisionError: division by zero",
            },
        },
        {"id": 3, "ok": True},
    ]
    [record] = caplog.records
    assert record.getMessage() == "cancel (request id 2) failed" and record.exc_info


def test_bench_commands_take_milliseconds_and_answer_not_mock_without_mock_pins(fake):
    server, unit = fake
    session = ready_session(server)
    replies = talk(
        server,
        session,
        {"id": 1, "cmd": "bench_press", "side": "a", "offset_ms": -250},
        {"id": 2, "cmd": "bench_release", "side": "b", "at_tick": 12.5, "delay_ms": 3},
        {"id": 3, "cmd": "bench_timer"},
    )
    assert [r["ok"] for r in replies] == [True, True, True]
    assert unit.calls == [
        ("press", ("a",), {"hold": False, "offset_s": -0.25, "tick": None, "delay_s": 0.0}),
        ("release", ("b",), {"offset_s": None, "tick": 12.5, "delay_s": 0.003}),
        ("press_timer", (), {}),
    ]
    unit.raises = {
        "press_timer": NotMockError('the bench needs mock pins (backend "mock" or --mock)')
    }
    assert talk(server, session, {"id": 4, "cmd": "bench_timer"}) == [
        {
            "id": 4,
            "ok": False,
            "error": {
                "code": "not_mock",
                "message": 'the bench needs mock pins (backend "mock" or --mock)',
            },
        }
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        ({"offset_ms": 1e308}, "offset_ms must be -600000 to 600000 ms, not 1e+308"),
        ({"offset_ms": 0, "delay_ms": 1e13}, "delay_ms must be 0 to 10000 ms, not 1e+13"),
    ],
)
def test_bench_times_beyond_the_horizon_are_refused_in_the_protocol_s_words(fake, args, message):
    server, unit = fake
    session = ready_session(server)
    [reply] = talk(server, session, {"id": 1, "cmd": "bench_press", "side": "a", **args})
    assert reply["error"] == {"code": "invalid_argument", "message": message}
    assert unit.calls == []


def test_selftest_reports_every_check(fake):
    server, _ = fake
    session = ready_session(server)
    assert talk(server, session, {"id": 1, "cmd": "selftest"}) == [
        {
            "id": 1,
            "ok": True,
            "passed": False,
            "devices": [
                {"name": "paddle_a", "ok": True, "detail": "idle"},
                {"name": "go_led", "ok": False, "detail": "stuck"},
            ],
        }
    ]


def test_a_selftest_never_holds_up_status_and_a_second_one_is_busy(fake):
    server, unit = fake
    unit.hold_selftest = True
    session = ready_session(server)
    assert talk(server, session, {"id": 1, "cmd": "selftest"}) == []
    unit.raises["selftest"] = BusyError("the unit is busy: a selftest is running (about 2.5 s)")
    replies = talk(server, session, {"id": 2, "cmd": "selftest"}, {"id": 3, "cmd": "status"})
    assert [(r["id"], r["ok"]) for r in replies] == [(2, False), (3, True)]
    assert replies[0]["error"]["code"] == "busy"
    unit.finish_selftest()
    [done] = talk(server, session)
    assert (done["id"], done["passed"]) == (1, False)


def test_result_and_history_read_the_journal(fake, tmp_path):
    server, _ = fake
    body = {
        "showdown_id": "old-1",
        "players": PLAYERS,
        "bots": [],
        "winner": "a",
        "loser": "b",
        "reason": "faster",
        "tie_reruns": 0,
        "reaction_us": {"a": 200000, "b": 250000},
        "margin_us": 50000,
        "cards": 2,
        "launch": "launched",
        "cards_counted": None,
    }
    with Journal(tmp_path / "results.sqlite3", clock=lambda: 1764525851.0) as journal:
        journal.record(body)
    session = ready_session(server)
    replies = talk(
        server,
        session,
        {"id": 1, "cmd": "result", "showdown_id": "old-1"},
        {"id": 2, "cmd": "result", "showdown_id": "nope"},
        {"id": 3, "cmd": "history", "limit": 5, "player": "Ann"},
    )
    assert replies[0] == {"id": 1, "ok": True, "result": body}
    assert replies[1] == {
        "id": 2,
        "ok": False,
        "error": {"code": "unknown_showdown", "message": "no result for showdown 'nope'"},
    }
    assert replies[2]["results"] == [{"recorded_at": "2025-11-30T18:04:11Z", **body}]
    assert replies[2]["players"]["Ann"]["wins"] == 1


def test_a_known_showdown_id_is_answered_from_the_journal_or_the_live_state(fake, tmp_path):
    server, unit = fake
    timeout = {
        "showdown_id": "done-1",
        "players": PLAYERS,
        "bots": [],
        "winner": None,
        "loser": None,
        "reason": "timeout",
        "tie_reruns": 0,
        "reaction_us": {"a": None, "b": None},
        "margin_us": None,
        "cards": 2,
        "launch": "none",
        "cards_counted": None,
    }
    with Journal(tmp_path / "results.sqlite3") as journal:
        journal.record(timeout)
    session = ready_session(server)
    arm = {"cmd": "showdown", "cards": 2, "players": PLAYERS}
    [done] = talk(server, session, {"id": 1, "showdown_id": "done-1", **arm})
    assert done == {"id": 1, "ok": True, "state": "done", "result": timeout}
    unit.state = {
        **unit.state,
        "state": "countdown",
        "showdown": {"showdown_id": "live-1", "cards": 2, "players": PLAYERS, "tie_reruns": 0},
    }
    [live] = talk(server, session, {"id": 2, "showdown_id": "live-1", **arm})
    assert live["state"] == "countdown" and live["showdown"]["showdown_id"] == "live-1"
    assert [name for name, _, _ in unit.calls] == ["status", "status"]  # never armed
    talk(server, session, {"id": 3, "showdown_id": "new-1", **arm})
    assert unit.calls[-1] == ("arm", ("new-1", 2, PLAYERS, None), {})


class HeldRunner(list):
    """A command runner that keeps the jobs until the test runs them."""

    def submit(self, job):
        self.append(job)

    def close(self):
        pass


def test_commands_in_flight_pause_reading_and_count_down_on_reply(tmp_path):
    held = HeldRunner()
    server = Server(FakeUnit(), tmp_path / "r.sqlite3", settings=settings(), runner=held)
    session = ready_session(server)
    for n in range(MAX_IN_FLIGHT):
        server.receive(session, b'{"id": %d, "cmd": "status"}\n' % n)
    assert session.in_flight == MAX_IN_FLIGHT and session.reading_paused
    held.pop(0)()
    server.pump()
    assert session.in_flight == MAX_IN_FLIGHT - 1 and not session.reading_paused
    assert json.loads(session.take_all())["id"] == 0


def test_a_reply_for_a_session_that_left_is_dropped(tmp_path):
    held = HeldRunner()
    server = Server(FakeUnit(), tmp_path / "r.sqlite3", settings=settings(), runner=held)
    session = ready_session(server)
    server.receive(session, b'{"id": 1, "cmd": "status"}\n')
    server.receive_eof(session)
    held.pop()()
    assert server.pump() == 1 and session.take_all() == b"" and server.sessions == []


# -- watching the outputs ------------------------------------------------------------------------


def test_watch_gives_the_outputs_now_then_each_change_to_watchers_only(fake):
    server, unit = fake
    watcher, other = ready_session(server, "watcher"), ready_session(server, "other")
    unit.state = {**unit.state, "outputs": FakeUnit.outputs}
    [reply] = talk(server, watcher, {"id": 1, "cmd": "watch", "outputs": True})
    assert reply == {"id": 1, "ok": True, "outputs": FakeUnit.outputs}
    lit = {**FakeUnit.outputs, "go": True}
    unit.subscribers[0](UnitEvent("go", {"showdown_id": "s", "ticks": 1.5}))
    unit.watchers[0](UnitEvent("outputs", lit))
    unit.subscribers[0](UnitEvent("state", {"state": "go", "previous": "hold"}))
    server.pump()
    go = {"event": "go", "seq": 1, "showdown_id": "s", "ticks": 1.5}
    state = {"event": "state", "seq": 2, "state": "go", "previous": "hold"}
    # Not numbered: the outputs event carries the last numbered event's seq.
    assert [json.loads(line) for line in watcher.take_all().splitlines()] == [
        go,
        {"event": "outputs", "seq": 1, **lit},
        state,
    ]
    assert [json.loads(line) for line in other.take_all().splitlines()] == [go, state]
    # Stopping: no more outputs events, and the unit stops reading them.
    [reply] = talk(server, watcher, {"id": 2, "cmd": "watch", "outputs": False})
    assert reply == {"id": 2, "ok": True, "outputs": FakeUnit.outputs}
    assert unit.calls[-2][0] == "unwatch_outputs"
    unit.subscribers[0](UnitEvent("outputs", lit))
    server.pump()
    assert watcher.take_all() == b""


def test_the_unit_reads_its_outputs_while_one_session_watches(fake):
    server, unit = fake
    one, two = ready_session(server, "one"), ready_session(server, "two")
    for session in (one, two):
        talk(server, session, {"id": 1, "cmd": "watch", "outputs": True})
    server.close_session(one)
    assert [name for name, *_ in unit.calls].count("unwatch_outputs") == 0  # two still watches
    server.close_session(two)
    assert [name for name, *_ in unit.calls][-1] == "unwatch_outputs"
    assert unit.watchers == []


def test_a_bad_watch_is_a_bad_request(fake):
    server, unit = fake
    session = ready_session(server)
    [reply] = talk(server, session, {"id": 1, "cmd": "watch", "outputs": "yes"})
    assert reply["error"] == {
        "code": "bad_request",
        "message": "field 'outputs' must be true or false, not \"yes\"",
    }
    assert unit.calls == []


# -- a real unit on mock pins -------------------------------------------------------------------


def fast_config():
    config = load_config(None)
    timing = replace(
        config.timing,
        countdown_step_s=0.01,
        flash_period_s=0.005,
        beep_s=0.002,
        go_tone_s=0.01,
        hold_min_s=0.01,
        hold_max_s=0.02,
        response_timeout_s=0.5,
    )
    return config.replace(
        backend="mock",
        timing=timing,
        launcher=replace(config.launcher, spin_up_s=0.01, per_card_s=0.01),
    )


def test_a_whole_showdown_through_the_server_on_a_real_unit(tmp_path):
    path = tmp_path / "results.sqlite3"
    writer = JournalWriter(path)
    with Unit(
        fast_config(), pin_factory=MockFactory(pin_class=InjectableMockPin), recorder=writer
    ) as unit:
        unit.call(writer.open)
        server = Server(unit, path, settings=settings(), runner=Inline(), mock=True)
        try:
            session = ready_session(server)
            replies = talk(
                server,
                session,
                {"id": 1, "cmd": "showdown", "showdown_id": "sd-1", "cards": 3, "players": PLAYERS},
                {"id": 2, "cmd": "bench_press", "side": "b", "offset_ms": 40},
                {"id": 3, "cmd": "bench_press", "side": "a", "offset_ms": 65.5},
                {"id": 4, "cmd": "start"},
            )
            lines = list(replies)
            while not any(line.get("event") == "result" for line in lines):
                assert server.pump(timeout=WAIT_S), "no more events"
                lines += [json.loads(x) for x in session.take_all().splitlines()]
            events = [line for line in lines if "event" in line]
            assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
            result = next(e for e in events if e["event"] == "result")
            assert (result["winner"], result["reason"], result["reaction_us"]) == (
                "b",
                "faster",
                {"a": 65500, "b": 40000},
            )
            [again] = talk(server, session, {"id": 5, "cmd": "result", "showdown_id": "sd-1"})
            assert again["result"] == {k: v for k, v in result.items() if k not in ("event", "seq")}
        finally:
            server.close()
            unit.call(writer.close)


@pytest.mark.slow
def test_a_watcher_sees_a_showdown_s_outputs_through_the_server_on_a_real_unit(tmp_path):
    config = fast_config()
    # A launch longer than the outputs' interval, so that the motor shows.
    config = config.replace(launcher=replace(config.launcher, spin_up_s=0.2))
    with Unit(config, pin_factory=MockFactory(pin_class=InjectableMockPin)) as unit:
        server = Server(
            unit, tmp_path / "r.sqlite3", settings=settings(), runner=Inline(), mock=True
        )
        try:
            watcher, other = ready_session(server, "watcher"), ready_session(server, "other")
            [reply] = talk(server, watcher, {"id": 1, "cmd": "watch", "outputs": True})
            assert reply["outputs"]["leds"] == [False, False, False]
            [status] = talk(server, other, {"id": 1, "cmd": "status"})
            assert status["outputs"] == reply["outputs"]
            talk(
                server,
                other,
                {"id": 2, "cmd": "showdown", "showdown_id": "sd-1", "cards": 1, "players": PLAYERS},
                {"id": 3, "cmd": "bench_press", "side": "a", "offset_ms": 30},
                {"id": 4, "cmd": "start"},
            )
            lines = []
            while not any(line.get("event") == "result" for line in lines):
                assert server.pump(timeout=WAIT_S), "no more events"
                lines += [json.loads(x) for x in watcher.take_all().splitlines()]
            # The last outputs, all off, follow the result: waited for (not for a quiet
            # 0.2 s, which a loaded machine can reach before they come).
            result_at = next(n for n, line in enumerate(lines) if line.get("event") == "result")
            while not any(
                line.get("event") == "outputs" and line["motor"]["direction"] is None
                for line in lines[result_at:]
            ):
                assert server.pump(timeout=WAIT_S), "no more events"
                lines += [json.loads(x) for x in watcher.take_all().splitlines()]
            numbered = [line["seq"] for line in lines if line.get("event") not in (None, "outputs")]
            assert numbered == list(range(1, len(numbered) + 1))
            shown = [line for line in lines if line.get("event") == "outputs"]
            assert shown and all(check_event("outputs", line) for line in shown)
            assert any(line["go"] for line in shown)
            assert any(line["motor"]["direction"] == "b" for line in shown)
            assert shown[-1]["motor"] == {"direction": None, "speed": 0.0}
            others = [json.loads(line) for line in other.take_all().splitlines()]
            assert others and not any(line.get("event") == "outputs" for line in others)
        finally:
            server.close()
