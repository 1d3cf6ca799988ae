"""The uplink's parts without a broker: the outbox on virtual time, the
journal and match book readers on real files, the state file, the settings
and the Home Assistant payloads. Fast: no sockets, no processes, no sleeps."""

from __future__ import annotations

import itertools
import json
import sqlite3

import pytest

from firmware_host.protocol.league import MATCH_BOOK_SCHEMA, decode_result, encode
from firmware_host.service.journal import Journal
from firmware_host.uplink import (
    JournalSource,
    MatchBookSource,
    Outbox,
    Outgoing,
    UplinkConfigError,
    UplinkState,
    build_config,
    load_uplink_config,
)
from firmware_host.uplink.presence import discovery_configs, host_identity
from tests.league_results import journal_result

T0 = 1_764_525_851.0


def item(seq, source="journal"):
    return Outgoing(source, seq, f"u:{source}:{seq}", b"{}", T0 + seq)


def result(showdown_id, launch="launched"):
    return journal_result(showdown_id, launch=launch, bots=["b"])


# -- the outbox ------------------------------------------------------------------------


def test_the_window_bounds_what_is_in_flight():
    box = Outbox({}, {}, window=3)
    for seq in (1, 2, 3):
        box.offer(item(seq))
    assert box.free == 0
    with pytest.raises(ValueError, match="the window of 3 results is full"):
        box.offer(item(4))


def test_an_entry_offered_out_of_order_is_refused():
    box = Outbox({}, {})
    box.offer(item(5))
    with pytest.raises(ValueError, match="journal entry 4 offered after entry 5"):
        box.offer(item(4))


def test_due_resends_after_the_timeout_and_at_once_after_a_reconnect():
    box = Outbox({}, {}, resend_after_s=5.0)
    box.offer(item(1))
    assert [i.seq for i in box.due(0.0)] == [1]
    assert box.due(4.9) == [] and box.next_deadline() == 5.0
    assert [i.seq for i in box.due(5.0)] == [1]
    box.reconnected()
    assert box.next_deadline() == float("-inf")
    assert [i.seq for i in box.due(6.0)] == [1]
    assert (box.counts.sent, box.counts.resent) == (1, 2)


def test_resends_nobody_answers_wait_twice_as_long_each_time_up_to_a_minute():
    box = Outbox({}, {}, resend_after_s=5.0)
    box.offer(item(1))
    box.offer(item(2))
    sent_at, now = [], 0.0
    for _ in range(7):  # the league is down: nothing is acked
        assert [i.seq for i in box.due(now)] == [1, 2]
        sent_at.append(now)
        now = box.next_deadline()
    gaps = [later - earlier for earlier, later in itertools.pairwise(sent_at)]
    assert gaps == [5.0, 10.0, 20.0, 40.0, 60.0, 60.0]
    # An ack: the league is back, the rest waits the short time again.
    box.settle(["u:journal:1"])
    assert box.next_deadline() == now - 60.0 + 5.0
    box.reconnected()  # a reconnect still sends at once
    assert box.next_deadline() == float("-inf")


def test_the_cursor_is_the_highest_contiguous_entry_done():
    box = Outbox({}, {})
    for seq in (1, 2, 3, 4):
        box.offer(item(seq))
    box.due(0.0)
    box.settle(["u:journal:3", "u:journal:1"])
    assert (box.cursor("journal"), box.done_above("journal")) == (1, {3})
    box.settle(["u:journal:2"], refused=True)
    assert (box.cursor("journal"), box.done_above("journal")) == (3, set())
    assert (box.counts.acked, box.counts.refused, box.counts.last_id) == (2, 1, "u:journal:1")
    box.settle(["u:journal:4", "u:journal:4", "unknown"])  # again, and not ours: no-ops
    assert (box.cursor("journal"), box.pending, box.counts.acked) == (4, 0, 3)


def test_restored_entries_done_above_a_gap_wait_for_the_gap():
    # Acked before a restart: 5. The reader goes on after 2 and skips 5.
    box = Outbox({"journal": 2}, {"journal": {5, 1}})
    assert box.read_position("journal") == (2, frozenset({5}))
    box.offer(item(3))
    box.skip("journal", 4)  # a damaged row
    assert (box.cursor("journal"), box.done_above("journal")) == (2, {4, 5})
    box.settle(["u:journal:3"])
    # 5 is done but the reader has not passed it yet: the cursor stops at 4.
    assert box.cursor("journal") == 4
    box.offer(item(6))
    box.settle(["u:journal:6"])
    assert (box.cursor("journal"), box.done_above("journal")) == (6, set())


def test_sources_keep_cursors_of_their_own():
    box = Outbox({}, {})
    box.offer(item(1))
    box.offer(item(1, "matches"))
    box.settle(["u:matches:1"])
    assert (box.cursor("journal"), box.cursor("matches")) == (0, 1)


# -- the journal -----------------------------------------------------------------------


@pytest.fixture
def journal(tmp_path):
    times = iter(T0 + n for n in range(1, 1000))
    with Journal(tmp_path / "results.sqlite3", clock=lambda: next(times)) as journal:
        yield journal


def test_the_journal_is_read_in_order_as_the_wire_s_messages(journal):
    journal.record(result("sd-1"))
    journal.record(result("sd-2"))
    reading = JournalSource(journal.path, "bar-1", "unit-2").read(0)
    assert [(i.seq, i.id) for i in reading.items] == [(1, "unit-2:sd-1"), (2, "unit-2:sd-2")]
    assert (reading.upto, reading.entries, reading.waiting, reading.full) == (2, 2, False, False)
    message = decode_result("uno-showdown/v1/bar-1/unit-2/result", reading.items[0].payload)
    assert (message.seq, message.at, message.body) == (1, T0 + 1, result("sd-1"))
    assert reading.items[0].summary == (
        "sd-1: Ann (side A) beat Bob (side B), faster by 50.0 ms; 2 cards launched"
    )


def test_a_running_launch_stops_the_read_until_its_outcome(journal):
    journal.record(result("sd-1"))
    journal.record_decision(result("sd-2", launch="pending"))
    journal.record(result("sd-3"))
    source = JournalSource(journal.path, "bar-1", "unit-2")
    reading = source.read(0)
    assert ([i.seq for i in reading.items], reading.upto, reading.waiting) == ([1], 1, True)
    journal.record_outcome("sd-2", "jam", 1)
    reading = source.read(1)
    assert [i.seq for i in reading.items] == [2, 3]
    assert json.loads(reading.items[0].payload)["body"]["launch"] == "jam"


def test_the_read_stops_at_the_limit_and_skips_entries_done(journal):
    for n in range(1, 6):
        journal.record(result(f"sd-{n}"))
    source = JournalSource(journal.path, "bar-1", "unit-2")
    reading = source.read(1, frozenset({3}), limit=3)
    assert ([i.seq for i in reading.items], reading.upto, reading.full) == ([2, 4], 4, True)


def test_a_damaged_row_is_skipped_with_why(journal, tmp_path):
    journal.record(result("sd-1"))
    journal.record(result("sd-2"))
    db = sqlite3.connect(journal.path)
    db.execute("UPDATE results SET body = 'not json' WHERE entry = 1")
    db.commit()
    db.close()
    reading = JournalSource(journal.path, "bar-1", "unit-2").read(0)
    assert [i.seq for i in reading.items] == [2]
    assert reading.skipped == [(1, "its body is not JSON")]


def test_no_journal_yet_is_nothing_yet(tmp_path):
    reading = JournalSource(tmp_path / "none.sqlite3", "bar-1", "unit-2").read(7)
    assert (reading.items, reading.upto, reading.entries) == ([], 7, None)


# -- the match book --------------------------------------------------------------------


def book(path, *rows):
    db = sqlite3.connect(path)
    db.execute(MATCH_BOOK_SCHEMA)
    db.executemany("INSERT INTO matches (match_id, finished_at, body) VALUES (?, ?, ?)", rows)
    db.commit()
    db.close()


MATCH = {
    "match_id": "m-1",
    "game": "uno",
    "players": [
        {"name": "Ann", "bot": False, "score": 500},
        {"name": "Cy", "bot": True, "score": 80},
    ],
    "winners": ["Ann"],
    "rounds": 3,
}


def test_the_match_book_s_matches_go_as_match_messages(tmp_path):
    path = tmp_path / "matches.sqlite3"
    bad = {**MATCH, "match_id": "m-2", "winners": ["Zed"]}
    book(path, ("m-1", T0, encode(MATCH).decode()), ("m-2", T0 + 1, encode(bad).decode()))
    reading = MatchBookSource(path, "bar-1", "table-1").read(0)
    assert [(i.seq, i.id, i.summary) for i in reading.items] == [
        (1, "table-1:match:m-1", "m-1: uno, won by Ann")
    ]
    assert reading.skipped == [(2, "winners must name players of the match, not ['Zed']")]
    message = decode_result("uno-showdown/v1/bar-1/table-1/result", reading.items[0].payload)
    assert (message.kind, message.body) == ("match", MATCH)


def test_a_match_book_without_its_table_yet_is_nothing_yet(tmp_path):
    path = tmp_path / "matches.sqlite3"
    sqlite3.connect(path).close()
    assert MatchBookSource(path, "bar-1", "table-1").read(0).items == []


# -- the state file --------------------------------------------------------------------


def test_the_state_file_keeps_the_cursors_across_opens(tmp_path):
    path = tmp_path / "state" / "uplink.sqlite3"
    with UplinkState(path) as state:
        state.save({"journal": (4, {6, 9}), "matches": (2, set())})
        state.save({"journal": (6, {9})})
    with UplinkState(path) as state:
        assert state.load() == ({"journal": 6, "matches": 2}, {"journal": {9}})


# -- the settings ----------------------------------------------------------------------

NEEDED = {"broker": "mqtt.local", "venue": "bar-1", "unit": "unit-2"}


def test_a_file_s_bad_value_names_the_file_and_the_key(tmp_path):
    path = tmp_path / "uplink.toml"
    path.write_text('[uplink]\nbroker = "mqtt.local"\nvenue = "bar-1"\nunit = "u"\nwindow = 0\n')
    with pytest.raises(UplinkConfigError) as caught:
        load_uplink_config(path, system=False)
    assert str(caught.value) == f"{path}: uplink.window: must be from 1 to 10000, not 0"
    path.write_text('[uplink]\nbrokr = "x"\n')
    with pytest.raises(UplinkConfigError, match=rf"^{path}: uplink.brokr: unknown key \(known: "):
        load_uplink_config(path, system=False)
    path.write_text('[unit]\nbroker = "x"\n')
    with pytest.raises(UplinkConfigError) as caught:
        load_uplink_config(path, system=False)
    assert str(caught.value) == f"{path}: [unit]: unknown table (this file has one table, [uplink])"


def test_a_flag_overrides_the_file_and_a_bad_flag_is_named(tmp_path):
    path = tmp_path / "uplink.toml"
    path.write_text('[uplink]\nbroker = "mqtt.local"\nvenue = "bar-1"\nunit = "unit-2"\n')
    config = load_uplink_config(path, {"unit": "unit-3", "venue": None}, system=False)
    assert (config.venue, config.unit) == ("bar-1", "unit-3")
    with pytest.raises(UplinkConfigError) as caught:
        load_uplink_config(path, {"unit": "Unit 3"}, system=False)
    assert str(caught.value) == (
        "--unit: must be 1 to 32 lower-case letters, digits and inner dashes (like bar-1), "
        "not 'Unit 3'"
    )


def test_a_missing_required_setting_says_where_to_set_it():
    with pytest.raises(UplinkConfigError) as caught:
        build_config({"broker": "mqtt.local", "venue": "bar-1"})
    assert str(caught.value) == (
        "uplink.unit is required: set it in /etc/uno-showdown/uplink.toml or pass --unit"
    )


def test_broker_auth_and_tls(tmp_path):
    secret = tmp_path / "password"
    secret.write_text("s3cret\n")
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    config = build_config(
        {**NEEDED, "username": "unit-2", "password_file": str(secret), "ca_file": str(ca)}
    )
    assert (config.password, config.uses_tls, config.port) == ("s3cret", True, 8883)
    assert "s3cret" not in repr(config)
    empty = tmp_path / "empty"
    empty.write_text("")
    with pytest.raises(UplinkConfigError) as caught:
        build_config({**NEEDED, "username": "u", "password_file": str(empty)})
    assert str(caught.value) == (
        f"uplink.password_file: {empty} is empty: its first line is the password"
    )
    with pytest.raises(UplinkConfigError, match=r"uplink\.password_file: goes with a username"):
        build_config({**NEEDED, "password_file": str(secret)})


# -- presence --------------------------------------------------------------------------


def test_the_host_is_the_machine_id_else_the_host_name(tmp_path):
    machine_id = tmp_path / "machine-id"
    machine_id.write_text("0123abcd\n")
    assert host_identity(machine_id) == "0123abcd"
    assert host_identity(tmp_path / "none") != ""


def test_discovery_configs_name_one_device_and_their_topics():
    configs = dict(discovery_configs("bar-1", "unit-2", "ha", "1.2.3"))
    status = json.loads(configs["ha/sensor/uno-showdown-bar-1-unit-2/status/config"])
    last = json.loads(configs["ha/sensor/uno-showdown-bar-1-unit-2/last/config"])
    assert status["device"] == last["device"]
    assert status["device"]["sw_version"] == "1.2.3"
    assert (status["object_id"], last["object_id"]) == (
        "uno_showdown_bar_1_unit_2_status",
        "uno_showdown_bar_1_unit_2_last",
    )
    assert last["state_topic"] == "uno-showdown/v1/bar-1/unit-2/last"
