"""UnitLink against a unit that floods it or answers out of shape: memory stays
bounded, the log stays short, and every problem is a LinkLost that names it."""

import logging

import pytest

from engine.units.unit_link import (
    MAX_QUEUED_EVENT_BYTES,
    MAX_QUEUED_EVENTS,
    LinkLost,
    ProtocolViolation,
    UnitFlooding,
    UnitLink,
)
from tests.fake_unit import FakeUnit

URL = "socket://unit.test:7700"


def open_link(unit: FakeUnit, **options) -> UnitLink:
    link = UnitLink(URL, open_port=unit.open_port, clock=unit.clock, sleep=unit.sleep, **options)
    link.open()
    return link


def test_the_limits_are_what_the_docs_say():
    assert (MAX_QUEUED_EVENTS, MAX_QUEUED_EVENT_BYTES) == (1000, 1_048_576)


def test_events_up_to_the_limit_are_kept_and_one_more_is_a_flood():
    unit = FakeUnit()
    link = open_link(unit)
    for _ in range(MAX_QUEUED_EVENTS):
        unit.emit("paddle_held", side="a")
    assert link.next_event(1.0).seq == 1
    assert link.queued_events == MAX_QUEUED_EVENTS - 1
    unit.emit("paddle_held", side="b")
    unit.emit("paddle_held", side="b")
    with pytest.raises(UnitFlooding) as caught:
        link.call("ping")
    assert isinstance(caught.value, LinkLost)
    assert str(caught.value) == (
        "the unit is flooding the link: more than 1000 events waiting to be read"
    )
    assert not link.is_open and link.queued_events == 0


def test_a_flood_of_events_stops_at_the_limit_whatever_its_size():
    unit = FakeUnit()
    link = open_link(unit)
    for _ in range(20_000):
        unit.emit("paddle_held", side="a")
    with pytest.raises(UnitFlooding):
        link.next_event(1.0)
    assert link.queued_events == 0 and not link.is_open


def test_a_flood_of_big_events_is_stopped_by_their_bytes():
    unit = FakeUnit()
    link = open_link(unit)
    for _ in range(20):
        unit.emit("paddle_held", side="a", padding="x" * 100_000)
    with pytest.raises(UnitFlooding) as caught:
        link.call("ping")
    assert str(caught.value) == (
        "the unit is flooding the link: more than 1048576 bytes of events waiting to be read"
    )


def test_reading_the_events_makes_room_again():
    unit = FakeUnit()
    link = open_link(unit)
    for _ in range(3):
        for _ in range(MAX_QUEUED_EVENTS):
            unit.emit("paddle_held", side="a", padding="x" * 500)
        while link.next_event(0.1) is not None:
            pass
    assert link.is_open and unit.events.last == 3 * MAX_QUEUED_EVENTS


def test_lines_the_engine_cannot_use_are_logged_a_few_then_counted(caplog):
    caplog.set_level(logging.WARNING, logger="engine.units.unit_link")
    unit = FakeUnit()
    link = open_link(unit)
    unit.ports[0].push(b"[1, 2]\n" * 10_000)
    assert link.next_event(0.1) is None
    lines = [r.getMessage() for r in caplog.records]
    assert (
        lines
        == [
            f"{URL}: passed over a line from the unit: bad_message: a message must be "
            "a JSON object, not an array"
        ]
        * 5
    )
    caplog.clear()
    unit.now += 5.0
    unit.ports[0].push(b"[1, 2]\n")
    assert link.next_event(0.1) is None  # 5 s since the first line not logged
    assert [r.getMessage() for r in caplog.records] == [
        f"{URL}: passed over 9996 more lines the engine cannot use"
    ]
    caplog.clear()
    unit.ports[0].push(
        b'\xff\n{"id": null, "ok": false, "error": {"code": "bad_json", "message": "no"}}\n'
    )
    link.next_event(0.1)
    assert caplog.records == []
    link.close()
    assert [r.getMessage() for r in caplog.records] == [
        f"{URL}: passed over 2 more lines the engine cannot use"
    ]


def test_replies_to_unknown_or_abandoned_ids_are_not_kept(caplog):
    caplog.set_level(logging.WARNING, logger="engine.units.unit_link")
    unit = FakeUnit()
    link = open_link(unit, reply_timeout_s=1.0)
    unit.before_reply["ping"] = lambda unit, port: "no reply"
    with pytest.raises(LinkLost, match="no reply to ping within 1 s"):
        link.call("ping")
    unit.ports[0].push(b'{"id": 2, "ok": true}\n{"id": 999, "ok": true}\n')
    assert link.call("status")["state"] == "idle"
    assert link._replies == {}
    assert [r.getMessage() for r in caplog.records] == [
        f"{URL}: passed over a line from the unit: unexpected_reply: reply to unknown request id 2",
        f"{URL}: passed over a line from the unit: unexpected_reply: reply to unknown request "
        "id 999",
    ]


def test_a_status_of_the_wrong_shape_is_a_protocol_violation():
    unit = FakeUnit()
    unit.replace_reply["status"] = lambda unit, request: {**unit.status(), "state": 5}
    link = open_link(unit)
    with pytest.raises(ProtocolViolation) as caught:
        link.call("status")
    assert isinstance(caught.value, LinkLost)
    assert str(caught.value) == (
        "the unit's reply to status is malformed: field 'state' must be one of idle, armed, "
        "countdown, hold, go, false_start, resolved, launching, timeout, selftest, fault, not 5"
    )
    assert (caught.value.what, caught.value.problem) == (
        "reply to status",
        (
            "field 'state' must be one of idle, armed, countdown, hold, go, false_start, resolved, "
            "launching, timeout, selftest, fault, not 5"
        ),
    )
    assert not link.is_open


def test_a_hello_of_the_wrong_shape_fails_the_open():
    unit = FakeUnit()
    unit.replace_reply["hello"] = lambda unit, request: {
        "version": 1,
        "unit": {"name": "fake"},
        "capabilities": "bench",
        "seq": 0,
    }
    link = UnitLink(URL, open_port=unit.open_port, clock=unit.clock, sleep=unit.sleep)
    with pytest.raises(
        ProtocolViolation,
        match=(
            r"^the unit's reply to hello is malformed: field 'capabilities' must be an array of "
            'strings, not "bench"$'
        ),
    ):
        link.open()
    assert not link.is_open


def test_an_event_of_the_wrong_shape_is_a_protocol_violation():
    unit = FakeUnit()
    link = open_link(unit)
    unit.emit("countdown", showdown_id="x", step="1", steps=3, rerun=0)
    with pytest.raises(
        ProtocolViolation,
        match=(
            r"^the unit's countdown event is malformed: field 'step' must be a whole number "
            '>= 1, not "1"$'
        ),
    ):
        link.next_event(1.0)


def test_an_event_the_engine_does_not_know_is_passed_on_unchecked():
    unit = FakeUnit()
    link = open_link(unit)
    unit.ports[0].push(b'{"event": "sparkle", "seq": 1, "colour": 5}\n')
    event = link.next_event(1.0)
    assert (event.name, dict(event.data)) == ("sparkle", {"colour": 5})
