"""``history`` runs on a reader of its own: no other command, of any client, waits behind
it; at most MAX_HISTORY_WAITING are read or wait; each request gets one reply, its own."""

import json
import threading

import pytest

from firmware_host.protocol import Request, encode
from firmware_host.service.history_reader import HistoryReader, encode_history
from firmware_host.service.journal import Journal
from firmware_host.service.server import MAX_HISTORY_WAITING, Server
from tests.test_journal import Clock, result
from tests.test_server import WAIT_S, FakeUnit, HeldRunner, Inline, ready_session, settings, talk


@pytest.fixture
def journal_path(tmp_path):
    path = tmp_path / "results.sqlite3"
    with Journal(path, clock=Clock()) as journal:
        journal.record(result("sd-1"))
        journal.record(result("sd-2", a="Cy"))
    return path


def history_of(path, limit=50, player=None):
    with Journal(path, readonly=True) as reader:
        return reader.history(limit, player)


def test_a_status_on_another_link_is_answered_while_a_history_is_held(journal_path):
    held = HeldRunner()
    server = Server(
        FakeUnit(), journal_path, settings=settings(), runner=Inline(), history_runner=held
    )
    reader, other = ready_session(server, "reader"), ready_session(server, "other")
    assert talk(server, reader, {"id": 1, "cmd": "history", "limit": 1}) == []
    assert talk(server, other, {"id": 2, "cmd": "status"})[0]["id"] == 2
    assert talk(server, other, {"id": 3, "cmd": "start"})[0]["id"] == 3
    assert talk(server, other, {"id": 4, "cmd": "cancel"})[0]["id"] == 4
    assert (reader.in_flight, server.history.waiting) == (1, 1)
    held.pop(0)()
    assert talk(server, reader) == [{"id": 1, "ok": True, **history_of(journal_path, 1)}]
    assert (reader.in_flight, server.history.waiting) == (0, 0)
    server.close()


def test_on_one_link_a_later_request_may_be_answered_before_a_history(journal_path):
    held = HeldRunner()
    server = Server(
        FakeUnit(), journal_path, settings=settings(), runner=Inline(), history_runner=held
    )
    session = ready_session(server)
    replies = talk(
        server,
        session,
        {"id": 1, "cmd": "history", "player": "cy"},
        {"id": 2, "cmd": "status"},
    )
    assert [reply["id"] for reply in replies] == [2]
    held.pop(0)()
    assert talk(server, session) == [{"id": 1, "ok": True, **history_of(journal_path, 50, "cy")}]
    server.close()


def test_past_max_history_waiting_one_more_is_busy_at_once(journal_path):
    held = HeldRunner()
    server = Server(
        FakeUnit(), journal_path, settings=settings(), runner=Inline(), history_runner=held
    )
    sessions = [ready_session(server, f"peer{n}") for n in range(2)]
    for n in range(MAX_HISTORY_WAITING):
        assert talk(server, sessions[n % 2], {"id": n, "cmd": "history", "limit": 1}) == []
    assert talk(server, sessions[0], {"id": "one more", "cmd": "history"}) == [
        {
            "id": "one more",
            "ok": False,
            "error": {
                "code": "busy",
                "message": (
                    f"the unit is reading {MAX_HISTORY_WAITING} history requests already: "
                    "send it again when one is answered"
                ),
            },
        }
    ]
    assert talk(server, sessions[1], {"id": "status", "cmd": "status"})[0]["ok"] is True
    held.pop(0)()  # one answered: there is room for one again
    assert [r["id"] for r in talk(server, sessions[0])] == [0]
    assert talk(server, sessions[0], {"id": "again", "cmd": "history"}) == []
    assert len(held) == MAX_HISTORY_WAITING
    while held:
        held.pop(0)()
    answered = [r["id"] for s in sessions for r in talk(server, s)]
    assert sorted(answered, key=str) == sorted([*range(1, MAX_HISTORY_WAITING), "again"], key=str)
    server.close()


def test_a_history_error_is_its_own_reply_and_the_reader_goes_on(tmp_path, caplog):
    missing = tmp_path / "results.sqlite3"
    server = Server(
        FakeUnit(), missing, settings=settings(), runner=Inline(), history_runner=Inline()
    )
    session = ready_session(server)
    [refused] = talk(server, session, {"id": 1, "cmd": "history"})
    assert refused == {
        "id": 1,
        "ok": False,
        "error": {
            "code": "fault",
            "message": f"history failed: JournalError: {missing}: no journal there",
        },
    }
    Journal(missing).close()
    [answered] = talk(server, session, {"id": 2, "cmd": "history"})
    assert answered == {
        "id": 2,
        "ok": True,
        "results": [],
        "players": {},
        "bots": {},
        "damaged": [],
    }
    server.close()


def test_the_reader_sees_what_the_unit_records_meanwhile(journal_path):
    server = Server(
        FakeUnit(), journal_path, settings=settings(), runner=Inline(), history_runner=Inline()
    )
    session = ready_session(server)
    with Journal(journal_path, clock=Clock()) as writer:  # the unit's recorder, open throughout
        assert len(talk(server, session, {"id": 1, "cmd": "history"})[0]["results"]) == 2
        writer.record(result("sd-3", b="Dee"))
        [reply] = talk(server, session, {"id": 2, "cmd": "history", "limit": 1})
    assert [r["showdown_id"] for r in reply["results"]] == ["sd-3"]
    server.close()


class Gate:
    """Holds each history read on the reader's own thread until the test lets it go."""

    def __init__(self, monkeypatch):
        self.reading = threading.Event()
        self.go = threading.Event()
        real = HistoryReader._history

        def held(reader, request):
            self.reading.set()
            assert self.go.wait(WAIT_S), "the test never let the history go"
            return real(reader, request)

        monkeypatch.setattr(HistoryReader, "_history", held)


def pump_until(server, session, count=1):
    """Pump the outbox until ``session`` has ``count`` replies (the threads put them there)."""
    replies = []
    while len(replies) < count:
        assert server.pump(timeout=WAIT_S) > 0, f"no reply within {WAIT_S} s"
        replies += [json.loads(line) for line in session.take_all().splitlines()]
    return replies


def test_on_the_real_threads_status_and_start_never_wait_for_a_history(journal_path, monkeypatch):
    gate = Gate(monkeypatch)
    server = Server(FakeUnit(), journal_path, settings=settings())  # its own threads
    reader, other = ready_session(server, "reader"), ready_session(server, "other")
    server.receive(reader, b'{"id": 1, "cmd": "history"}\n')
    assert gate.reading.wait(WAIT_S)  # the history reader is in the read now
    try:
        for n, request in enumerate(REQUESTS, start=2):
            server.receive(other, json.dumps({"id": n, **request}).encode() + b"\n")
            [reply] = pump_until(server, other)
            assert (reply["id"], reply["ok"]) == (n, True), reply
        assert reader.take_all() == b"" and reader.in_flight == 1
    finally:
        gate.go.set()
    assert pump_until(server, reader) == [{"id": 1, "ok": True, **history_of(journal_path)}]
    server.close()


REQUESTS = [
    {"cmd": "status"},
    {"cmd": "showdown", "showdown_id": "new-1", "cards": 2, "players": {"a": "Ann", "b": "Bob"}},
    {"cmd": "start"},
    {"cmd": "cancel"},
    {"cmd": "result", "showdown_id": "sd-1"},
]


@pytest.mark.parametrize(
    "document",
    [
        {"results": [], "players": {}, "bots": {}, "damaged": []},
        {
            "results": [{"n": 1, "name": "Zoë"}, {"n": 2}],
            "players": {"Zoë": {}},
            "bots": {},
            "damaged": [3],
        },
        {"results": [{"name": "\ud800"}], "players": {}, "bots": {}, "damaged": []},  # no UTF-8
        {"other": 1},
    ],
)
def test_a_history_reply_is_encoded_to_the_same_bytes_as_encode_makes(document):
    reply = Request("h-1", "history", {"limit": None, "player": None}).reply(**document)
    assert encode_history(reply) == encode(reply)


def test_a_journals_history_is_encoded_to_the_same_bytes(journal_path):
    with Journal(journal_path, clock=Clock()) as journal:
        journal.record(result("sd-3", a="Zoë", b="Straße", bots=["b"]))
    reply = Request(9, "history", {}).reply(**history_of(journal_path))
    assert encode_history(reply) == encode(reply)
