"""The wire's refusals, as the league server applies them (engine.league.intake):
bad JSON, a topic that is not one of ours, a forged id, a field the wire does not
define, a payload over the limit. Each is refused with its reason and the place
it came from, the claimed id goes back in its unit's ack, nothing is stored, and
the batch goes on."""

from __future__ import annotations

import json

import pytest

from engine.league.intake import Refusal, read, take_batch
from firmware_host.protocol.league import (
    MAX_PAYLOAD_BYTES,
    ack_topic,
    decode_ack,
    encode,
    result_topic,
    status_topic,
)
from tests.league_server_helpers import match, showdown, status

TOPIC = result_topic("bar-1", "unit-1")


def refusal(topic: str, data: bytes) -> Refusal:
    received = read(topic, data)
    assert received.result is None and received.status is None
    assert received.refusal is not None
    return received.refusal


def test_a_good_result_is_read_with_its_outcomes():
    received = read(TOPIC, encode(showdown()))
    assert received.result is not None and received.refusal is None
    assert received.result.id == "unit-1:s1"
    assert [(o.player, o.outcome) for o in received.result.outcomes] == [
        ("Ann", "win"),
        ("Bob", "loss"),
    ]


def test_bad_json_is_refused_with_the_place_of_its_topic():
    found = refusal(TOPIC, b'{"v": 1, "id": ')
    assert (found.venue, found.unit, found.topic, found.claimed_id) == (
        "bar-1",
        "unit-1",
        TOPIC,
        None,
    )
    assert found.reason.startswith("not JSON: Expecting value: line 1 column 16")


def test_json_that_is_not_an_object_is_refused():
    assert refusal(TOPIC, b"[1, 2]").reason == "a message is a JSON object, not list"


def test_bytes_that_are_not_utf8_are_refused():
    assert refusal(TOPIC, b"\xff\xfe{}").reason.startswith("not JSON: ")


@pytest.mark.parametrize(
    ("topic", "reason", "place"),
    [
        (
            "uno-showdown/v1/Bar 1/unit-1/result",
            "the topic's venue must be 1 to 32 lower-case letters, digits and inner dashes "
            "(like bar-1), not 'Bar 1'",
            (None, None),
        ),
        (
            "uno-showdown/v1/bar-1/unit-1/extra/result",
            "not a league topic: 'uno-showdown/v1/bar-1/unit-1/extra/result'",
            (None, None),
        ),
        ("somewhere/else", "not a league topic: 'somewhere/else'", (None, None)),
        (
            ack_topic("bar-1", "unit-1"),
            "the league reads result and status topics, not 'ack'",
            ("bar-1", "unit-1"),
        ),
    ],
)
def test_a_topic_that_is_not_a_result_or_status_of_ours_is_refused(topic, reason, place):
    found = refusal(topic, encode(showdown()))
    assert (found.reason, (found.venue, found.unit)) == (reason, place)


def test_a_forged_id_is_refused_and_its_claimed_id_kept_for_the_ack():
    forged = {**showdown(), "id": "unit-2:s1"}
    found = refusal(TOPIC, encode(forged))
    assert found.reason == "id must be 'unit-1:s1', not 'unit-2:s1'"
    assert (found.venue, found.unit, found.claimed_id) == ("bar-1", "unit-1", "unit-2:s1")


def test_a_result_naming_another_unit_than_its_topic_is_refused():
    other = showdown("unit-2")
    found = refusal(TOPIC, encode(other))
    assert found.reason == "the message says unit 'unit-2', its topic 'unit-1'"
    assert found.claimed_id == "unit-2:s1"


def test_an_unknown_field_is_refused():
    found = refusal(TOPIC, encode({**showdown(), "score": 3}))
    assert found.reason == (
        "unknown field 'score' (a result has: at, body, id, kind, seq, unit, v, venue)"
    )
    assert found.claimed_id == "unit-1:s1"


def test_an_unknown_field_of_a_match_or_of_its_player_is_refused():
    message = match()
    body = {**message["body"], "mvp": "Ann"}
    topic = result_topic("bar-1", "table-1")
    assert refusal(topic, encode({**message, "body": body})).reason == (
        "unknown field 'mvp' (a match has: game, match_id, players, rounds, winners)"
    )
    players = [{**message["body"]["players"][0], "team": 1}, message["body"]["players"][1]]
    body = {**message["body"], "players": players}
    assert refusal(topic, encode({**message, "body": body})).reason == (
        "unknown field 'team' (a match's player has: bot, name, score)"
    )


def test_a_showdown_body_keeps_the_journals_extra_keys():
    # The body is the unit journal's result dict, which may grow: not refused.
    message = showdown()
    message["body"]["launch_ms"] = 12
    assert read(TOPIC, encode(message)).result is not None


def test_a_payload_over_the_limit_is_refused_unread():
    message = showdown()
    message["body"]["padding"] = "x" * MAX_PAYLOAD_BYTES
    data = encode(message)
    found = refusal(TOPIC, data)
    assert found.reason == f"payload of {len(data)} bytes, over {MAX_PAYLOAD_BYTES}"
    assert found.claimed_id is None  # not even parsed for its id


def test_a_newer_wire_version_is_refused_by_name():
    assert refusal(TOPIC, encode({**showdown(), "v": 2})).reason == (
        "wire version 2; this league speaks 1"
    )


def test_a_bad_status_is_refused_and_a_good_one_read():
    topic = status_topic("bar-1", "unit-1")
    assert read(topic, encode(status())).status is not None
    found = refusal(topic, encode({**status(), "state": "asleep"}))
    assert found.reason == "state must be one of online, offline, fault, not 'asleep'"
    assert found.claimed_id is None  # a status has no id to ack


# -- a batch with refusals: recorded, acked, the rest stored ---------------------------


class RecordingStore:
    """Stands in for the Store where a test needs to see the calls (or a failure)."""

    def __init__(self, fail: bool = False):
        self.fail = fail
        self.kept: dict[str, bytes] = {}
        self.refusals: list[tuple] = []
        self.statuses: list = []

    def store(self, messages):
        if self.fail:
            raise OSError("disk full")
        answers = []
        for message in messages:
            raw = self.kept.setdefault(message.id, message.raw)
            answers.append((message.id, None if raw == message.raw else "id reused"))
        return answers

    def record_refusal(self, venue, unit, topic, reason, at):
        self.refusals.append((venue, unit, topic, reason, at))

    def record_status(self, status):
        self.statuses.append(status)


def test_a_batch_stores_the_good_refuses_the_bad_and_acks_each_unit_once():
    store = RecordingStore()
    first, second = showdown(n=1), showdown(n=2)
    other_body = showdown(n=1, winner="b")
    messages = [
        (TOPIC, encode(first)),
        (TOPIC, b"not json"),
        (TOPIC, encode(second)),
        (TOPIC, encode(first)),  # a resend inside the batch
        (TOPIC, encode(other_body)),  # the id of the first, another result
        (TOPIC, encode({**showdown(n=3), "id": "unit-9:s3"})),
        (status_topic("bar-1", "unit-1"), encode(status())),
        (result_topic("bar-1", "unit-2"), encode(showdown("unit-2", 5))),
    ]
    taken = take_batch(store, messages, lambda: 100.0)
    acks = {topic: decode_ack(data) for topic, data in taken.acks}
    assert set(acks) == {ack_topic("bar-1", "unit-1"), ack_topic("bar-1", "unit-2")}
    ack = acks[ack_topic("bar-1", "unit-1")]
    assert ack.stored == ("unit-1:s1", "unit-1:s2")
    assert ack.refused == (
        ("unit-1:s1", "id reused"),
        ("unit-9:s3", "id must be 'unit-1:s3', not 'unit-9:s3'"),
    )
    assert acks[ack_topic("bar-1", "unit-2")].stored == ("unit-2:s5",)
    assert [r[:3] for r in store.refusals] == [
        ("bar-1", "unit-1", TOPIC),
        ("bar-1", "unit-1", TOPIC),
    ]
    assert [r[4] for r in store.refusals] == [100.0, 100.0]
    assert [s.unit for s in store.statuses] == ["unit-1"]
    assert taken.changed == {"results", "units"}


def test_a_store_failure_acks_nothing():
    store = RecordingStore(fail=True)
    with pytest.raises(OSError, match="disk full"):
        take_batch(store, [(TOPIC, encode(showdown()))], lambda: 0.0)


def test_a_batch_of_statuses_alone_changes_the_units_only():
    store = RecordingStore()
    taken = take_batch(store, [(status_topic("bar-1", "unit-1"), encode(status()))], lambda: 0.0)
    assert (taken.acks, taken.changed) == ([], {"units"})


def test_an_ack_is_canonical_json():
    store = RecordingStore()
    taken = take_batch(store, [(TOPIC, encode(showdown()))], lambda: 0.0)
    ((_, data),) = taken.acks
    assert json.loads(data) == {"v": 1, "stored": ["unit-1:s1"], "refused": []}
