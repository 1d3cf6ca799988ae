"""Every verdict exactly once, on a real daemon: killed while the cards fly,
a second daemon on the same journal, a journal that cannot take the decision.

Nothing sleeps for a timer: the waits are for events, replies and exits,
with daemon_helpers' generous overall timeout as a safety net.
"""

import os
import resource
import signal
import subprocess
import sys

import pytest

from firmware_host.core.machine import RecordFailed
from firmware_host.core.result import Result
from firmware_host.service.daemon import JournalWriter
from firmware_host.service.journal import Journal, JournalLock
from tests.daemon_helpers import (
    FAST_CONFIG,
    PLAYERS,
    ROOT,
    WAIT_S,
    Client,
    NotifyListener,
    running_daemon,
)

#: A launch long enough to be killed in the middle of.
SLOW_LAUNCH = FAST_CONFIG.replace("spin_up_s = 0.02", "spin_up_s = 2.5").replace(
    "[launcher]", "[launcher]\nmax_run_s = 3.0"
)


def decide(client, showdown_id, loser_ms=300):
    """Arm a showdown that b wins, start it; returns once the cards fly."""
    client.hello()
    assert client.request("showdown", showdown_id=showdown_id, cards=3, players=PLAYERS)["ok"]
    client.request("bench_press", side="b", offset_ms=100)
    client.request("bench_press", side="a", offset_ms=loser_ms)
    client.request("start")
    client.wait_for_event("state", state="launching")


def test_a_kill_while_the_cards_fly_keeps_the_verdict_and_never_runs_it_again(tmp_path):
    same_journal = ["--journal", str(tmp_path / "results.sqlite3")]
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    with (
        running_daemon(tmp_path / "before", same_journal, SLOW_LAUNCH) as daemon,
        Client.tcp(daemon.port) as client,
    ):
        decide(client, "kill-1")
        daemon.process.kill()  # SIGKILL: no cleanup at all
        daemon.process.wait(WAIT_S)
    with running_daemon(tmp_path / "after", same_journal, SLOW_LAUNCH) as daemon:
        with Client.tcp(daemon.port) as client:
            client.hello()
            result = client.request("result", showdown_id="kill-1")["result"]
            assert (result["winner"], result["loser"], result["reason"], result["launch"]) == (
                "b",
                "a",
                "faster",
                "interrupted",
            )
            again = client.request("showdown", showdown_id="kill-1", cards=3, players=PLAYERS)
            assert (again["state"], again["result"]) == ("done", result)
            assert client.request("status")["state"] == "idle"  # nothing was armed
        assert (
            "showdown kill-1 was decided (Ann loses) but the unit stopped before its "
            "launch ended: recorded as interrupted"
        ) in daemon.log_text()


def test_the_losers_press_during_the_launch_is_kept_with_the_outcome(tmp_path):
    with running_daemon(tmp_path) as daemon, Client.tcp(daemon.port) as client:
        decide(client, "late-1", loser_ms=160)  # after the settle window
        event = client.wait_for_event("result", showdown_id="late-1")
        stored = client.request("result", showdown_id="late-1")["result"]
        assert event["reaction_us"] == stored["reaction_us"] == {"a": 160000, "b": 100000}
        assert stored["launch"] == "launched"


def test_a_second_daemon_on_the_same_journal_exits_78_naming_the_first(tmp_path):
    with running_daemon(tmp_path) as first:
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "firmware_host",
                "run",
                "--mock",
                "--listen",
                "",
                "--journal",
                str(first.journal_path),
                "--config",
                str(first.config_path),
            ],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=WAIT_S,
        )
        assert second.returncode == 78
        assert second.stderr == (
            f"error: {first.journal_path}: in use by another unit daemon "
            f"(pid {first.process.pid})\n"
        )
        with Client.tcp(first.port) as client:  # the first one carries on
            assert client.hello()["ok"]


def test_when_the_disk_fills_the_decision_it_cannot_record_launches_nothing(tmp_path):
    """A file-size limit stands in for a full disk: SQLite's write-ahead log
    (after its 32 KiB index) soon cannot grow, and a decision fails to record."""
    journal = tmp_path / "results.sqlite3"
    with running_daemon(tmp_path):
        pass  # made and closed: everything in the main file
    notify = NotifyListener(tmp_path / "full.sock")

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (32768, 32768))  # Python ignores SIGXFSZ

    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "firmware_host",
            "run",
            "--mock",
            "--listen",
            "127.0.0.1:0",
            "--journal",
            str(journal),
            "--config",
            str(tmp_path / "unit.toml"),
        ],
        cwd=ROOT,
        env={**os.environ, "NOTIFY_SOCKET": notify.path},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=small_files,
    )
    try:
        ready = notify.wait_for(lambda m: m.get("READY") == "1", process=process)
        port = int(ready["STATUS"].rsplit(":", 1)[1])
        with Client.tcp(port) as client:
            client.hello()
            for n in range(10):
                showdown_id = f"full-{n}"
                client.request("showdown", showdown_id=showdown_id, cards=2, players=PLAYERS)
                client.request("bench_press", side="a", offset_ms=100)
                client.request("start")
                client.wait_for_event("go", showdown_id=showdown_id)
                client.events.clear()
                ended = client.wait_for_event_of(("result", "fault"))
                if ended["event"] == "fault":
                    break
            assert ended["event"] == "fault", "the journal never filled up"
            assert ended["reason"].startswith(
                f"{journal}: cannot record the decision of '{showdown_id}': "
            )
            assert ended["reason"].endswith(": nothing was launched")
            names = [e["event"] for e in client.events]
            assert "launched" not in names and "result" not in names
            assert "launching" not in [e.get("state") for e in client.events]
            status = client.request("status")
            assert (status["state"], status["fault"]) == ("fault", ended["reason"])
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=WAIT_S)
        notify.close()
    with Journal(journal, readonly=True) as kept:
        assert kept.get(showdown_id) is None
        assert [kept.get(f"full-{k}")["launch"] for k in range(n)] == ["launched"] * n


def result(showdown_id="sd-1", launch="pending"):
    return Result(
        showdown_id=showdown_id,
        players=PLAYERS,
        winner="b",
        loser="a",
        reason="faster",
        tie_reruns=0,
        reaction_us={"a": None, "b": 100000},
        margin_us=None,
        cards=2,
        launch=launch,
    )


def test_the_writer_says_which_file_and_showdown_it_could_not_record(tmp_path):
    path = tmp_path / "results.sqlite3"
    writer = JournalWriter(path)
    writer.open()
    pages = writer._journal._db.execute("PRAGMA page_count").fetchone()[0]
    writer._journal._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(RecordFailed) as refused:
        for n in range(100):
            writer.decided(result(f"sd-{n}"))
    assert str(refused.value) == (
        f"{path}: cannot record the decision of 'sd-{n}': database or disk is full"
    )
    writer.close()


def test_the_writer_records_nothing_once_its_lock_is_lost(tmp_path):
    path = tmp_path / "results.sqlite3"
    lock = JournalLock(path).acquire()
    writer = JournalWriter(path, lock)
    writer.open()
    lock.path.unlink()  # someone removed it
    with pytest.raises(RecordFailed) as refused:
        writer.decided(result())
    assert str(refused.value) == (
        f"{path}: cannot record the decision of 'sd-1': the journal's lock file was removed "
        "or replaced (another daemon may use it)"
    )
    writer.close()
    lock.release()
    with Journal(path, readonly=True) as kept:
        assert kept.get("sd-1") is None
