"""The daemon process and its signals: SIGTERM mid-launch, SIGHUP reload, and
what systemd hears on a real notification socket."""

import logging
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from firmware_host.service.config import JournalConfig, load_config
from firmware_host.service.daemon import SWITCH_INTERVAL_S, Daemon, Links
from firmware_host.service.journal import Journal
from firmware_host.service.sdnotify import Notifier
from tests.daemon_helpers import FAST_CONFIG, PLAYERS, ROOT, WAIT_S, Client, running_daemon

OUTPUTS_SAFE = "outputs at exit: motor_a=0 motor_b=0 motor_enable=0.0"


def start_showdown(client, showdown_id, a_ms=None, b_ms=None):
    for side in "ab":  # let go of the last showdown's paddles
        assert client.request("bench_release", side=side)["ok"]
    assert client.request("showdown", showdown_id=showdown_id, cards=2, players=PLAYERS)["ok"]
    for side, offset in (("a", a_ms), ("b", b_ms)):
        if offset is not None:
            assert client.request("bench_press", side=side, offset_ms=offset)["ok"]
    assert client.request("start")["state"] == "countdown"


def test_sigterm_during_a_launch_stops_the_motor_and_exits_0(tmp_path):
    long_launch = FAST_CONFIG.replace("spin_up_s = 0.02", "spin_up_s = 8.0") + "max_run_s = 10.0\n"
    with running_daemon(tmp_path, config_text=long_launch) as daemon:
        with Client.tcp(daemon.port) as client:
            client.hello()
            start_showdown(client, "term-1", a_ms=100, b_ms=110)
            client.wait_for_event("state", state="launching")
            assert client.request("status")["state"] == "launching"
            assert daemon.stop(signal.SIGTERM) == 0
        log = daemon.log_text()
    assert OUTPUTS_SAFE in log
    assert log.index("stopping (SIGTERM)") < log.index(OUTPUTS_SAFE)
    with Journal(daemon.journal_path, readonly=True) as journal:
        result = journal.get("term-1")
    assert (result["winner"], result["launch"]) == ("a", "cancelled")  # cut short, recorded


def test_sigint_stops_an_idle_daemon_cleanly(tmp_path):
    with running_daemon(tmp_path) as daemon:
        assert daemon.stop(signal.SIGINT) == 0
    assert "stopping (SIGINT)" in daemon.log_text() and OUTPUTS_SAFE in daemon.log_text()


def test_sighup_reloads_timing_between_showdowns_and_keeps_the_old_on_a_bad_file(tmp_path):
    with running_daemon(tmp_path) as daemon, Client.tcp(daemon.port) as client:
        client.hello()
        start_showdown(client, "hup-1", a_ms=50, b_ms=60)
        first = client.wait_for_event("result", showdown_id="hup-1")
        assert (first["reason"], first["winner"]) == ("faster", "a")
        client.wait_for_event("state", state="idle")

        # Presses under 100 ms after GO become false starts; a pin change needs a restart.
        daemon.config_path.write_text(
            FAST_CONFIG.replace("[timing]\n", "[timing]\nmin_reaction_ms = 100\n")
            + "\n[pins]\nbuzzer = 25\n"
        )
        daemon.send_signal(signal.SIGHUP)
        daemon.notify.wait_for(lambda m: "RELOADING" in m)
        daemon.notify.wait_for(lambda m: daemon.notify.count("READY", "1") >= 2)
        start_showdown(client, "hup-2", a_ms=50, b_ms=60)
        second = client.wait_for_event("result", showdown_id="hup-2")
        assert (second["reason"], second["loser"]) == ("false_start", "a")
        client.wait_for_event("state", state="idle")

        daemon.config_path.write_text("[timing]\nsettle_s = -1\n")
        daemon.send_signal(signal.SIGHUP)
        daemon.notify.wait_for(lambda m: daemon.notify.count("READY", "1") >= 3)
        start_showdown(client, "hup-3", a_ms=50, b_ms=60)
        third = client.wait_for_event("result", showdown_id="hup-3")
        assert third["reason"] == "false_start"  # the old (second) config still
        log = daemon.log_text()
    assert "reload: pins.buzzer changed; it takes effect after a restart" in log
    assert "reload: config applied" in log
    assert (
        f"reload failed, keeping the running config: {daemon.config_path}: "
        "timing.settle_s: must be >= 0.0, not -1.0"
    ) in log


def test_sighup_during_a_showdown_waits_until_it_is_over(tmp_path):
    with running_daemon(tmp_path) as daemon, Client.tcp(daemon.port) as client:
        client.hello()
        # Armed, the showdown is under way and waits for its start: the reload
        # lands in it however slowly the signal is handled.
        assert client.request("showdown", showdown_id="hup-4", cards=2, players=PLAYERS)["ok"]
        for side, offset in (("a", 300), ("b", 310)):
            assert client.request("bench_press", side=side, offset_ms=offset)["ok"]
        daemon.config_path.write_text(
            FAST_CONFIG.replace("[timing]\n", "[timing]\nmin_reaction_ms = 500\n")
        )
        daemon.send_signal(signal.SIGHUP)
        daemon.wait_for_log("the new config applies when the unit is idle")
        assert client.request("start")["state"] == "countdown"
        result = client.wait_for_event("result", showdown_id="hup-4")
        assert result["reason"] == "faster"  # decided on the old config
        client.wait_for_event("state", state="idle")
        # The daemon applies it on its own thread once it hears "idle": wait for that.
        daemon.wait_for_log("reload: config applied")
        start_showdown(client, "hup-5", a_ms=300, b_ms=310)
        later = client.wait_for_event("result", showdown_id="hup-5")
        assert later["reason"] == "false_start"  # the new one, from the next showdown
        log = daemon.log_text()
    assert log.index("the new config applies when the unit is idle") < log.index(
        "reload: config applied"
    )


def test_systemd_hears_ready_status_watchdog_and_stopping(tmp_path):
    # WATCHDOG_USEC=100 ms: a ping every 50 ms from the unit's loop.
    with running_daemon(tmp_path, env={"WATCHDOG_USEC": "100000"}) as daemon:
        notify = daemon.notify
        [ready] = [m for m in notify.messages if "READY" in m]  # pings may come before
        assert ready["READY"] == "1"
        assert re.fullmatch(r"idle; tcp 127\.0\.0\.1:\d+", ready["STATUS"])
        assert ready["STATUS"].endswith(f":{daemon.port}")
        for _ in range(3):
            notify.wait_for(
                lambda m: m.get("WATCHDOG") == "1" and notify.count("WATCHDOG", "1") >= 3
            )
        with Client.tcp(daemon.port) as client:
            client.hello()
            start_showdown(client, "sd-notify-1", a_ms=40, b_ms=50)
            client.wait_for_event("result")
            client.wait_for_event("state", state="idle")
        notify.wait_for(lambda m: m.get("STATUS", "").startswith("countdown sd-notify-1; tcp"))
        notify.wait_for(lambda m: m.get("STATUS", "").startswith("launching sd-notify-1; tcp"))
        assert daemon.stop() == 0
        notify.wait_for(lambda m: m.get("STOPPING") == "1")
        keys = [next(iter(m)) for m in list(notify.messages)]
        assert keys.count("READY") == 1 and keys.index("READY") < keys.index("STOPPING")


def wait_until_the_main_thread_blocks_in(function) -> None:
    """Until the main thread is inside ``function`` and asleep there, still
    asleep after this thread let go of the GIL for a while (so it is not just
    waiting for the GIL). Linux only: it reads /proc."""
    main = threading.main_thread()
    stat = f"/proc/self/task/{main.native_id}/stat"

    def asleep_in_function() -> bool:
        frame = sys._current_frames().get(main.ident)
        while frame is not None and frame.f_code is not function.__code__:
            frame = frame.f_back
        with open(stat) as file:
            state = file.read().rpartition(")")[2].split()[0]
        return frame is not None and state == "S"

    deadline = time.monotonic() + WAIT_S
    asleep = 0
    while asleep < 3 and time.monotonic() < deadline:
        asleep = asleep + 1 if asleep_in_function() else 0
        time.sleep(0.01)  # let the main thread have the GIL


def test_flaky_sigterm_a_signal_another_thread_takes_still_stops_the_daemon(tmp_path, caplog):
    """Regression for test_run_headless_stops_cleanly_on_a_signal[15], which
    once hung under load: the main thread waited on a queue that only the
    Python-level signal handler filled. Python runs that handler when the main
    thread next runs Python code, so a SIGTERM that landed just before the
    main thread blocked, or that the kernel gave to another thread, left it
    waiting for ever. Here the ui thread takes the signal itself."""
    config = load_config(None).replace(
        backend="mock", journal=JournalConfig(path=str(tmp_path / "results.sqlite3"))
    )

    def ui(unit, inbox):
        wait_until_the_main_thread_blocks_in(Daemon._serve)
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)  # this thread takes it
        inbox.wait(WAIT_S)  # until the daemon stops the ui

    daemon = Daemon(config, Links(None, None, None, 115200), ui=ui, notifier=Notifier(None))
    # A safety net so the old bug fails the test instead of hanging it.
    safety_net = threading.Timer(WAIT_S, daemon.request_stop)
    safety_net.start()
    caplog.set_level(logging.INFO, logger="firmware_host")
    try:
        assert daemon.run() == 0
    finally:
        safety_net.cancel()
    assert "stopping (SIGTERM)" in caplog.messages
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handlers restored
    assert signal.set_wakeup_fd(-1) == -1  # and the wakeup fd


@pytest.mark.parametrize("moment", ["results journal:", "unit open:", "listening on"])
def test_sigterm_at_any_moment_of_start_up_exits_0_with_the_outputs_safe(tmp_path, moment):
    with running_daemon(tmp_path, wait_ready=False) as daemon:
        daemon.wait_for_log(moment)
        assert daemon.stop(signal.SIGTERM) == 0
        log = daemon.log_text()
    assert "stopping (SIGTERM)" in log and OUTPUTS_SAFE in log
    assert "Traceback" not in log


def test_sigterm_before_the_handlers_are_in_place_is_a_plain_exit():
    # Still importing: nothing claimed yet, so the default action is right.
    child = subprocess.Popen(
        [sys.executable, "-m", "firmware_host", "run", "--mock", "--listen", ""],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    child.send_signal(signal.SIGTERM)
    out, _ = child.communicate(timeout=WAIT_S)
    assert child.returncode in (-signal.SIGTERM, 0)
    assert b"Traceback" not in out


def test_ctrl_c_before_the_daemon_takes_charge_is_one_line_and_exit_130(monkeypatch, capsys):
    from firmware_host.commands import cli
    from firmware_host.people import console

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(console, "build_parser", interrupted)
    assert cli.main(["run", "--mock"]) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_a_signal_someone_else_handles_does_not_stop_the_daemon(tmp_path, caplog):
    """The wakeup fd carries every signal that has a Python handler; only
    SIGTERM, SIGINT and SIGHUP mean something to the daemon."""
    config = load_config(None).replace(
        backend="mock", journal=JournalConfig(path=str(tmp_path / "results.sqlite3"))
    )
    seen = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: seen.append(signum))

    def ui(unit, inbox):
        wait_until_the_main_thread_blocks_in(Daemon._serve)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)
        wait_until_the_main_thread_blocks_in(Daemon._serve)  # it went back to waiting

    daemon = Daemon(config, Links(None, None, None, 115200), ui=ui, notifier=Notifier(None))
    caplog.set_level(logging.INFO, logger="firmware_host")
    try:
        assert daemon.run() == 0
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert seen == [signal.SIGUSR1]
    assert "stopping (the user quit)" in caplog.messages  # not by SIGUSR1


def test_the_daemons_threads_hand_the_gil_on_within_half_a_millisecond(tmp_path):
    """A thread busy in Python (the history reader) must not hold off the I/O
    thread and the command worker for Python's default 5 ms at each hand-off."""
    config = load_config(None).replace(
        backend="mock", journal=JournalConfig(path=str(tmp_path / "results.sqlite3"))
    )
    seen = []

    def ui(unit, inbox):
        seen.append(sys.getswitchinterval())
        daemon.request_stop()
        inbox.wait(WAIT_S)

    before = sys.getswitchinterval()
    daemon = Daemon(config, Links(None, None, None, 115200), ui=ui, notifier=Notifier(None))
    assert daemon.run() == 0
    assert (seen, sys.getswitchinterval()) == ([SWITCH_INTERVAL_S], before)
    assert SWITCH_INTERVAL_S == 0.0005
