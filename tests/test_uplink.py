"""The uplink against a real mosquitto and a small fake league (a paho client
that takes results and acks them, or decides not to): order, resends until
acked, restarts, a broker killed mid-stream, pending launches, the status and
its last will, the name clash, Home Assistant discovery.

Every test here is slow (the ``mosquitto`` fixture starts a broker). Waits
are for events (a condition with a timeout), never for a timer.
"""

from __future__ import annotations

import abc
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from firmware_host.protocol.league import (
    ack_message,
    decode_result,
    decode_status,
    encode,
    status_message,
    status_topic,
    subscription,
)
from firmware_host.service.journal import Journal
from firmware_host.uplink import build_config
from firmware_host.uplink.presence import last_topic
from firmware_host.uplink.service import Uplink
from tests.league_results import journal_result
from tests.league_servers import Mosquitto

ROOT = Path(__file__).resolve().parent.parent
VENUE, UNIT = "bar-1", "unit-2"
T0 = 1_764_525_851.0
WAIT_S = 30.0  # a safety limit: every wait ends on its event long before

pytestmark = pytest.mark.slow  # a broker, or the uplink as a process, in every test


result = journal_result


class Clock:
    def __init__(self):
        self.now = T0

    def __call__(self):
        self.now += 1.0
        return self.now


class Watcher(abc.ABC):
    """A paho client that notes what arrives; tests wait on its condition."""

    def __init__(self, broker: Mosquitto, topics: list[str], name: str):
        self.changed = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, *_: c.subscribe([(t, 1) for t in topics])
        self.client.reconnect_delay_set(0.1, 0.5)
        self.broker = broker
        self.client.connect(broker.host, broker.port, keepalive=5)
        self.client.loop_start()

    def _on_message(self, client, userdata, message):
        with self.changed:
            self.received(message)
            self.changed.notify_all()

    @abc.abstractmethod
    def received(self, message) -> None:
        """Note ``message`` (under the condition's lock): each watcher its own way."""

    def wait_for(self, condition: Callable[[], bool], what: str) -> None:
        with self.changed:
            assert self.changed.wait_for(condition, WAIT_S), f"waited {WAIT_S} s for {what}"

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class FakeLeague(Watcher):
    """Takes every result, checks it with the wire's decode_result, and acks
    it (``acking``) by id on the unit's ack topic."""

    def __init__(self, broker: Mosquitto, *, acking=True, refuse=()):
        self.acking, self.refuse = acking, set(refuse)
        self.arrivals: list[str] = []  # every copy, in the order it came
        self.stored: dict[str, bytes] = {}
        self.acked: list[str] = []
        super().__init__(broker, [subscription("result")], "fake-league")

    def received(self, message) -> None:
        got = decode_result(message.topic, message.payload)
        self.arrivals.append(got.id)
        if not self.acking:
            return
        if got.id in self.refuse:
            payload = ack_message([], [(got.id, "the id was stored with another verdict")])
        else:
            assert self.stored.setdefault(got.id, got.raw) == got.raw
            self.acked.append(got.id)
            payload = ack_message([got.id])
        self.client.publish(f"uno-showdown/v1/{got.venue}/{got.unit}/ack", encode(payload), 1)


class StatusWatcher(Watcher):
    """The retained status (and anything else asked for) of the unit."""

    def __init__(self, broker: Mosquitto, topics=()):
        self.states: list[str] = []
        self.last: dict[str, bytes] = {}
        super().__init__(broker, [status_topic(VENUE, UNIT), *topics], "status-watcher")

    def received(self, message) -> None:
        self.last[message.topic] = message.payload
        if message.topic == status_topic(VENUE, UNIT) and message.payload:
            self.states.append(decode_status(message.topic, message.payload).state)

    def wait_figures(self, condition: Callable[[dict], bool], what: str) -> dict:
        """The first retained status whose figures meet ``condition``."""
        self.wait_for(lambda: bool(self.states) and condition(self.status.figures), what)
        return self.status.figures

    @property
    def status(self):
        return decode_status(status_topic(VENUE, UNIT), self.last[status_topic(VENUE, UNIT)])


def config(broker: Mosquitto, tmp_path: Path, **changes):
    values = {
        "broker": broker.url,
        "venue": VENUE,
        "unit": UNIT,
        "state": str(tmp_path / "state"),
        "poll_s": 0.05,
        "resend_after_s": 0.5,
        "status_every_s": 0.5,
        "clash_wait_s": 5.0,
        **changes,
    }
    return build_config(values)


class Running:
    """An Uplink run in a thread of the test; ``stop()`` joins it."""

    def __init__(self, uplink: Uplink):
        self.uplink, self.error = uplink, None
        self.thread = threading.Thread(target=self._run, name="uplink")
        self.thread.start()

    def _run(self):
        try:
            self.uplink.run()
        except BaseException as exc:
            self.error = exc

    def stop(self):
        self.uplink.request_stop()
        self.thread.join(WAIT_S)
        assert not self.thread.is_alive()
        self.uplink.close()
        if self.error is not None:
            raise self.error


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "results.sqlite3", clock=Clock()) as journal:
        yield journal


@pytest.fixture
def league(mosquitto):
    league = FakeLeague(mosquitto)
    yield league
    league.close()


def start(mosquitto, tmp_path, journal, **changes) -> Running:
    return Running(Uplink(config(mosquitto, tmp_path, **changes), journal.path, host="host-a"))


def ids(*numbers):
    return [f"{UNIT}:sd-{n}" for n in numbers]


def test_every_result_reaches_the_league_in_order_and_is_acked(
    mosquitto, league, journal, tmp_path
):
    for n in range(1, 31):
        journal.record(result(f"sd-{n}"))
    running = start(mosquitto, tmp_path, journal, window=7)
    try:
        league.wait_for(lambda: len(set(league.acked)) == 30, "30 results acked")
        journal.record(result("sd-31"))  # one more while it runs
        league.wait_for(lambda: len(set(league.acked)) == 31, "the 31st")
    finally:
        running.stop()
    first_copies = list(dict.fromkeys(league.arrivals))
    assert first_copies == ids(*range(1, 32))
    message = json.loads(league.stored[ids(1)[0]])
    assert (message["seq"], message["at"], message["body"]) == (1, T0 + 1, result("sd-1"))


def test_a_result_not_acked_is_sent_again_until_it_is(mosquitto, journal, tmp_path):
    league = FakeLeague(mosquitto, acking=False)
    watcher = StatusWatcher(mosquitto)
    journal.record(result("sd-1"))
    running = start(mosquitto, tmp_path, journal)
    try:
        league.wait_for(lambda: league.arrivals.count(ids(1)[0]) >= 3, "two resends")
        league.acking = True
        league.wait_for(lambda: league.acked == ids(1), "the ack")
        figures = watcher.wait_figures(lambda f: f["acked"] == 1, "acked in the status")
    finally:
        running.stop()
        league.close()
        watcher.close()
    assert figures["acked"] == 1 and figures["pending"] == 0 and figures["resent"] >= 2


def test_a_refused_result_is_done_and_logged_with_the_reason(mosquitto, journal, tmp_path, caplog):
    league = FakeLeague(mosquitto, refuse=ids(1))
    watcher = StatusWatcher(mosquitto)
    journal.record(result("sd-1"))
    journal.record(result("sd-2"))
    running = start(mosquitto, tmp_path, journal)
    try:
        figures = watcher.wait_figures(lambda f: f["pending"] == 0 and f["sent"] == 2, "both done")
    finally:
        running.stop()
        league.close()
        watcher.close()
    assert (figures["refused"], figures["acked"], figures["pending"]) == (1, 1, 0)
    assert (
        f"the league refused {UNIT}:sd-1: the id was stored with another verdict" in caplog.messages
    )


def test_a_restarted_uplink_resends_only_what_was_not_acked(mosquitto, journal, tmp_path):
    league = FakeLeague(mosquitto)
    watcher = StatusWatcher(mosquitto)
    for n in range(1, 6):
        journal.record(result(f"sd-{n}"))
    running = start(mosquitto, tmp_path, journal)
    watcher.wait_figures(lambda f: f["acked"] == 5, "five acked, as the uplink knows")
    watcher.close()
    running.stop()
    league.acking = False  # the next ones arrive but are not acked
    for n in range(6, 9):
        journal.record(result(f"sd-{n}"))
    running = start(mosquitto, tmp_path, journal)
    league.wait_for(lambda: set(ids(6, 7, 8)) <= set(league.arrivals), "the new three")
    running.stop()
    before = len(league.arrivals)
    league.acking = True
    running = start(mosquitto, tmp_path, journal)
    try:
        league.wait_for(lambda: len(league.acked) == 8, "all eight")
    finally:
        running.stop()
        league.close()
    # The third run sent only the three never acked; none of the first five again.
    assert set(league.arrivals[before:]) == set(ids(6, 7, 8))
    assert league.arrivals[:5] == ids(1, 2, 3, 4, 5)


def test_a_broker_killed_and_restarted_mid_stream_loses_nothing(mosquitto, journal, tmp_path):
    league = FakeLeague(mosquitto)
    running = start(mosquitto, tmp_path, journal)
    try:
        for n in range(1, 201):
            journal.record(result(f"sd-{n}"))
            if n == 60:
                league.wait_for(lambda: len(league.acked) >= 20, "the stream under way")
                mosquitto.kill()
        mosquitto.start()  # same port: the uplink and the league come back to it
        league.wait_for(lambda: len(set(league.acked)) == 200, "every result acked")
        watcher = StatusWatcher(mosquitto)
        watcher.wait_for(
            lambda: watcher.states and watcher.status.figures["acked"] >= 200, "the figures"
        )
        watcher.close()
    finally:
        running.stop()
        league.close()
    assert set(league.acked) == set(ids(*range(1, 201)))
    rows = Journal(journal.path, readonly=True)
    try:
        assert len(set(league.acked)) == len(rows.recent(1000))
    finally:
        rows.close()


def test_a_result_whose_launch_runs_waits_and_holds_back_the_later_ones(
    mosquitto, league, journal, tmp_path
):
    journal.record(result("sd-1"))
    journal.record_decision(result("sd-2", launch="pending"))
    journal.record(result("sd-3"))
    running = start(mosquitto, tmp_path, journal)
    try:
        league.wait_for(lambda: league.acked == ids(1), "sd-1")
        # Read many times over while the launch runs: sd-2 is not final, sd-3 waits behind it.
        uplink = running.uplink
        with league.changed:
            league.changed.wait_for(lambda: uplink.figures()["journal_entries"] == 3, WAIT_S)
        assert league.arrivals == ids(1)
        journal.record_outcome("sd-2", "launched", 2)
        league.wait_for(lambda: len(league.acked) == 3, "sd-2 and sd-3")
    finally:
        running.stop()
    assert league.acked == ids(1, 2, 3)
    assert json.loads(league.stored[ids(2)[0]])["body"]["cards_counted"] == 2


def test_a_missing_journal_is_nothing_yet_then_its_results_go(mosquitto, league, tmp_path):
    path = tmp_path / "later" / "results.sqlite3"
    uplink = Uplink(config(mosquitto, tmp_path), path, host="host-a")
    running = Running(uplink)
    watcher = StatusWatcher(mosquitto)
    try:
        watcher.wait_for(lambda: "online" in watcher.states, "online")
        assert watcher.status.figures["journal_entries"] is None
        with Journal(path, clock=Clock()) as journal:
            journal.record(result("sd-1"))
            league.wait_for(lambda: league.acked == ids(1), "sd-1")
    finally:
        running.stop()
        watcher.close()
    assert watcher.states[0] == "online" and "fault" not in watcher.states


def test_status_says_online_with_figures_then_offline_at_a_clean_stop(
    mosquitto, league, journal, tmp_path
):
    watcher = StatusWatcher(mosquitto)
    journal.record(result("sd-1"))
    running = start(mosquitto, tmp_path, journal)
    try:
        watcher.wait_for(
            lambda: watcher.states and watcher.status.figures["acked"] == 1, "figures with sd-1"
        )
        status = watcher.status
    finally:
        running.stop()
    watcher.wait_for(lambda: watcher.states[-1] == "offline", "offline")
    watcher.close()
    assert (status.state, status.host, status.fault) == ("online", "host-a", None)
    assert status.figures == {
        "sent": 1,
        "resent": 0,
        "acked": 1,
        "refused": 0,
        "skipped": 0,
        "pending": 0,
        "last_id": ids(1)[0],
        "last_result_at": T0 + 1,
        "journal_entries": 1,
    }


def test_a_journal_that_cannot_be_read_is_a_fault_with_the_reason(mosquitto, league, tmp_path):
    path = tmp_path / "results.sqlite3"
    path.write_bytes(b"this is no database, it is a text file of some length" * 100)
    running = Running(Uplink(config(mosquitto, tmp_path), path, host="host-a"))
    watcher = StatusWatcher(mosquitto)
    try:
        watcher.wait_for(lambda: "fault" in watcher.states, "fault")
        status = watcher.status
    finally:
        running.stop()
        watcher.close()
    assert status.fault == f"{path}: cannot read the journal: file is not a database"


def uplink_process(broker: Mosquitto, tmp_path: Path, journal: Path, *extra: str):
    argv = [sys.executable, "-m", "firmware_host", "uplink", "--broker", broker.url]
    argv += ["--venue", VENUE, "--unit", UNIT, "--journal", str(journal)]
    argv += ["--state", str(tmp_path / "state"), "--poll", "0.05", *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        argv, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL
    )


def test_the_last_will_says_offline_when_the_uplink_process_is_killed(mosquitto, journal, tmp_path):
    watcher = StatusWatcher(mosquitto)
    process = uplink_process(mosquitto, tmp_path, journal.path)
    try:
        watcher.wait_for(lambda: "online" in watcher.states, "online")
        process.send_signal(signal.SIGKILL)  # its socket drops: no goodbye
        watcher.wait_for(lambda: watcher.states[-1] == "offline", "the last will")
    finally:
        process.kill()
        process.wait(WAIT_S)
        watcher.close()


def test_a_silent_uplink_is_seen_offline_after_its_keepalive(mosquitto, journal, tmp_path):
    # SIGSTOP: the socket stays open but nothing comes; the broker gives up
    # after 1.5 x the keepalive and publishes the will.
    watcher = StatusWatcher(mosquitto)
    process = uplink_process(mosquitto, tmp_path, journal.path, "--keepalive", "1")
    try:
        watcher.wait_for(lambda: "online" in watcher.states, "online")
        process.send_signal(signal.SIGSTOP)
        watcher.wait_for(lambda: watcher.states[-1] == "offline", "the keepalive's end")
    finally:
        process.kill()
        process.wait(WAIT_S)
        watcher.close()


def test_sigterm_says_offline_and_exits_0(mosquitto, journal, tmp_path):
    watcher = StatusWatcher(mosquitto)
    process = uplink_process(mosquitto, tmp_path, journal.path)
    try:
        watcher.wait_for(lambda: "online" in watcher.states, "online")
        process.send_signal(signal.SIGTERM)
        assert process.wait(WAIT_S) == 0
        watcher.wait_for(lambda: watcher.states[-1] == "offline", "offline")
    finally:
        process.kill()
        watcher.close()
    assert watcher.status.host != "host-a"  # the machine's own identity


def test_a_name_online_on_another_machine_is_refused_with_exit_78(mosquitto, journal, tmp_path):
    other = status_message(VENUE, UNIT, "online", host="other-pi", version="0.1.0", at=T0)
    publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="other")
    publisher.connect(mosquitto.host, mosquitto.port)
    publisher.loop_start()
    publisher.publish(
        status_topic(VENUE, UNIT), encode(other), qos=1, retain=True
    ).wait_for_publish(WAIT_S)
    process = uplink_process(mosquitto, tmp_path, journal.path)
    try:
        assert process.wait(WAIT_S) == 78
        err = process.stderr.read()
    finally:
        process.kill()
    assert err.splitlines()[-1] == (
        f"error: unit name '{UNIT}' of venue '{VENUE}' is online on another machine "
        "(host other-pi, since 2025-11-30T18:04:11Z): give this unit another name "
        "(uplink.unit) or stop the other uplink"
    )
    # The other machine's status is left as it was (a clean goodbye: no last will).
    watcher = StatusWatcher(mosquitto)
    watcher.wait_for(lambda: watcher.states, "the retained status")
    watcher.close()
    publisher.loop_stop()
    assert watcher.status.host == "other-pi" and watcher.status.state == "online"


def test_the_same_machine_s_own_online_status_is_no_clash(mosquitto, league, journal, tmp_path):
    mine = status_message(VENUE, UNIT, "online", host="host-a", version="0.1.0", at=T0)
    publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="earlier-life")
    publisher.connect(mosquitto.host, mosquitto.port)
    publisher.loop_start()
    publisher.publish(status_topic(VENUE, UNIT), encode(mine), qos=1, retain=True).wait_for_publish(
        WAIT_S
    )
    publisher.loop_stop()
    journal.record(result("sd-1"))
    running = start(mosquitto, tmp_path, journal)
    try:
        league.wait_for(lambda: league.acked == ids(1), "sd-1")
    finally:
        running.stop()


def test_a_bad_setting_names_the_file_and_key_and_exits_78(tmp_path):
    bad = tmp_path / "uplink.toml"
    bad.write_text('[uplink]\nbroker = "mqtt.local"\nvenue = "Bar One"\nunit = "unit-2"\n')
    done = subprocess.run(
        [sys.executable, "-m", "firmware_host", "uplink", "--config", str(bad)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 78
    assert done.stderr.splitlines() == [
        f"error: {bad}: uplink.venue: must be 1 to 32 lower-case letters, digits and inner "
        "dashes (like bar-1), not 'Bar One'"
    ]


def test_home_assistant_discovery_makes_the_unit_a_device_with_two_sensors(
    mosquitto, league, journal, tmp_path
):
    prefix = "homeassistant"
    node = f"uno-showdown-{VENUE}-{UNIT}"
    configs = [f"{prefix}/sensor/{node}/status/config", f"{prefix}/sensor/{node}/last/config"]
    watcher = StatusWatcher(mosquitto, [*configs, last_topic(VENUE, UNIT)])
    journal.record(result("sd-1"))
    running = start(mosquitto, tmp_path, journal, ha_discovery=True)
    try:
        league.wait_for(lambda: league.acked == ids(1), "sd-1")
        watcher.wait_for(lambda: last_topic(VENUE, UNIT) in watcher.last, "the last result")
    finally:
        running.stop()
        watcher.close()
    status_config = json.loads(watcher.last[configs[0]])
    last_config = json.loads(watcher.last[configs[1]])
    assert (
        status_config["device"]
        == last_config["device"]
        == {
            "identifiers": [node],
            "name": f"UNO Showdown {UNIT} ({VENUE})",
            "manufacturer": "uno-showdown",
            "model": "Showdown unit",
            "sw_version": running.uplink.version,
        }
    )
    assert status_config["state_topic"] == status_topic(VENUE, UNIT)
    assert status_config["value_template"] == "{{ value_json.state }}"
    assert status_config["unique_id"] == f"{node}-status"
    assert last_config["state_topic"] == last_topic(VENUE, UNIT)
    assert last_config["availability_topic"] == status_topic(VENUE, UNIT)
    assert json.loads(watcher.last[last_topic(VENUE, UNIT)]) == {
        "v": 1,
        "id": ids(1)[0],
        "at": T0 + 1,
        "summary": "sd-1: Ann (side A) beat Bob (side B), faster by 50.0 ms; 2 cards launched",
    }
