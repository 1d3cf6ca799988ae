"""The league's ingest on a real broker (mosquitto, tests/league_servers.py) and a
real Store (SQLite in the test's folder; PostgreSQL for the round trip): results
published as an uplink publishes them are stored once and acked with their ids;
a resend is acked again and stored once; a forged or conflicting result is refused
in the ack and counted; bad JSON is counted and logged with its topic; the broker
SIGKILLed and restarted mid-stream loses nothing; a league stopped after storing
and before acking acks the resend after its restart, and stores it once."""

from __future__ import annotations

import logging
import threading

import pytest

from engine.league.ingest import Broker, Ingest
from engine.league.store_open import open_store
from firmware_host.protocol.league import result_topic
from tests.league_server_helpers import (
    Uplink,
    payload,
    resend_until_acked,
    showdown,
    status,
    wait_for,
)


@pytest.fixture
def db(tmp_path) -> str:
    return f"sqlite:{tmp_path / 'league.sqlite3'}"


class Running:
    """An Ingest on ``url``'s store, started; stopped (and the store closed) by close()."""

    def __init__(self, broker, url: str, ingest_class=Ingest, **options):
        self.store = open_store(url)
        self.changes: list[frozenset[str]] = []
        self.ingest = ingest_class(
            self.store,
            Broker(broker.host, broker.port),
            on_change=self.changes.append,
            **options,
        )
        self.ingest.start()
        if not self.ingest.connected.wait(20):
            raise AssertionError("the ingest did not connect")

    def results(self) -> int:
        return int(self.store.figures()["results"])

    def close(self) -> None:
        self.ingest.stop()
        self.store.close()


@pytest.fixture
def league(mosquitto, db):
    running = Running(mosquitto, db)
    yield running
    running.close()


@pytest.fixture
def uplink(mosquitto):
    up = Uplink(mosquitto.host, mosquitto.port)
    yield up
    up.close()


def round_trip(league: Running, uplink: Uplink) -> None:
    messages = [showdown(n=n) for n in range(1, 4)]
    for message in messages:
        uplink.publish(message)
    wait_for(lambda: len(uplink.stored()) >= 3, "three ids acked")
    assert sorted(uplink.stored()) == ["unit-1:s1", "unit-1:s2", "unit-1:s3"]
    assert league.results() == 3
    # a resend (the ack was lost on its way): acked again, stored once
    uplink.publish(messages[0])
    wait_for(lambda: uplink.stored().count("unit-1:s1") == 2, "the resend acked")
    assert league.results() == 3
    assert uplink.refused() == []


def test_results_are_stored_once_and_acked_with_their_ids(league, uplink):
    round_trip(league, uplink)
    assert frozenset({"results"}) in league.changes


def test_the_round_trip_on_postgresql(mosquitto, postgres_url, uplink):
    running = Running(mosquitto, postgres_url)
    try:
        round_trip(running, uplink)
    finally:
        running.close()


def test_a_forged_id_or_another_result_under_a_stored_id_is_refused_in_the_ack(league, uplink):
    uplink.publish(showdown(n=1))
    wait_for(lambda: uplink.stored() == ["unit-1:s1"], "the first acked")
    uplink.publish(showdown(n=1, winner="b"))  # the same id, another result
    uplink.publish({**showdown(n=2), "id": "unit-7:s2"})  # an id not its own
    wait_for(lambda: len(uplink.refused()) == 2, "two refusals acked")
    assert uplink.refused() == [
        ("unit-1:s1", "id reused with a different result"),
        ("unit-7:s2", "id must be 'unit-1:s2', not 'unit-7:s2'"),
    ]
    assert league.results() == 1
    (unit,) = league.store.units()
    assert (unit["unit"], unit["results"], unit["refusals"]) == ("unit-1", 1, 2)


def test_bad_json_is_counted_on_its_unit_and_logged_with_its_topic(league, uplink, caplog):
    topic = result_topic("bar-1", "unit-3")
    with caplog.at_level(logging.WARNING, logger="engine.league.intake"):
        uplink.publish_raw(topic, b"{not json")
        wait_for(lambda: league.store.units(), "the refusal counted")
    (unit,) = league.store.units()
    assert (unit["venue"], unit["unit"], unit["refusals"], unit["results"]) == (
        "bar-1",
        "unit-3",
        1,
        0,
    )
    assert f"refused a message on {topic}: not JSON" in caplog.text
    assert uplink.acks == []  # no id to ack: nothing sent back
    # the ingest keeps serving: a good result after it is stored and acked
    uplink.publish(showdown("unit-3", 1))
    wait_for(lambda: uplink.stored() == ["unit-3:s1"], "the good one acked")


def test_a_status_is_recorded_and_a_result_from_a_unit_without_one_stored(league, uplink):
    uplink.publish(showdown("unit-5", 1))
    wait_for(lambda: uplink.stored() == ["unit-5:s1"], "acked")
    uplink.publish_status(status("unit-1", "fault"))
    wait_for(lambda: len(league.store.units()) == 2, "the status's unit listed")
    units = {u["unit"]: u for u in league.store.units()}
    assert units["unit-1"]["state"] == "fault"
    assert (units["unit-5"]["state"], units["unit-5"]["results"]) == (None, 1)


def send_paced(uplink: Uplink, messages: list[dict]) -> None:
    """Each message once, a few milliseconds apart (the broker may die meanwhile:
    a publish that fails is left to the resends), then resend until all are acked."""
    for message in messages:
        uplink.client.publish(result_topic(message["venue"], message["unit"]), payload(message), 1)
        threading.Event().wait(0.005)
    resend_until_acked(uplink, messages)


def test_the_broker_sigkilled_and_restarted_mid_stream_loses_nothing(mosquitto, db, uplink):
    league = Running(mosquitto, db)
    messages = [showdown(f"unit-{n % 5}", n) for n in range(300)]
    sender = threading.Thread(target=send_paced, args=(uplink, messages))
    try:
        sender.start()
        wait_for(lambda: len(set(uplink.stored())) >= 50, "the first results acked")
        mosquitto.kill()
        wait_for(lambda: not league.ingest.connected.is_set(), "the ingest saw the broker die")
        mosquitto.start()
        sender.join(90)
        assert not sender.is_alive(), "the uplink never had every result acked"
        assert league.ingest.connected.is_set()  # it reconnected by itself (or no ack came)
        assert len(set(uplink.stored())) == 300
        assert league.results() == 300
        stored = {u["unit"]: u["results"] for u in league.store.units()}
        assert stored == {f"unit-{n}": 60 for n in range(5)}
    finally:
        league.close()


class AcksLost(Ingest):
    """A league that dies between the store's commit and its acks: it stores,
    then never acks (as if SIGKILLed at that instant)."""

    stored = threading.Event()

    def _publish(self, acks):
        AcksLost.stored.set()


def test_a_league_gone_after_storing_before_acking_acks_the_resend_and_stores_once(
    mosquitto, db, uplink
):
    messages = [showdown(n=n) for n in range(1, 6)]
    first = Running(mosquitto, db, ingest_class=AcksLost)
    try:
        for message in messages:
            uplink.publish(message)
        assert AcksLost.stored.wait(20)
        wait_for(lambda: first.results() == 5, "all five stored")
    finally:
        first.close()
    assert uplink.acks == []  # stored, never acked: the uplink still holds all five
    second = Running(mosquitto, db)
    try:
        resend_until_acked(uplink, messages)
        assert sorted(set(uplink.stored())) == [m["id"] for m in messages]
        assert second.results() == 5
    finally:
        second.close()


def test_with_a_venue_only_that_venues_results_are_taken(mosquitto, db):
    league = Running(mosquitto, db, venue="bar-1")
    ours, theirs = (
        Uplink(mosquitto.host, mosquitto.port),
        Uplink(mosquitto.host, mosquitto.port, venue="cafe-2"),
    )
    try:
        theirs.publish(showdown("unit-1", 1, venue="cafe-2"))
        ours.publish(showdown("unit-1", 2))
        wait_for(lambda: ours.stored() == ["unit-1:s2"], "bar-1's result acked")
        # the ingest takes its messages in order: cafe-2's would have been acked first
        assert theirs.acks == []
        assert [u["venue"] for u in league.store.units()] == ["bar-1"]
    finally:
        ours.close()
        theirs.close()
        league.close()
