"""The daemon process and its signals: SIGTERM mid-launch, SIGHUP reload, and
what systemd hears on a real notification socket."""

import re
import signal

from firmware_host.journal import Journal
from tests.daemon_helpers import FAST_CONFIG, PLAYERS, Client, running_daemon

OUTPUTS_SAFE = "outputs at exit: motor_a=0 motor_b=0 motor_enable=0.0"


def start_showdown(client, showdown_id, a_ms=None, b_ms=None):
    for side in "ab":            # let go of the last showdown's paddles
        assert client.request("bench_release", side=side)["ok"]
    assert client.request("showdown", showdown_id=showdown_id, cards=2, players=PLAYERS)["ok"]
    for side, offset in (("a", a_ms), ("b", b_ms)):
        if offset is not None:
            assert client.request("bench_press", side=side, offset_ms=offset)["ok"]
    assert client.request("start")["state"] == "countdown"


def test_sigterm_during_a_launch_stops_the_motor_and_exits_0(tmp_path):
    long_launch = FAST_CONFIG.replace("spin_up_s = 0.02", "spin_up_s = 8.0") + \
        "max_run_s = 10.0\n"
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
    assert (result["winner"], result["launch"]) == ("a", "cancelled")   # cut short, recorded


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
        daemon.config_path.write_text(FAST_CONFIG.replace(
            "[timing]\n", "[timing]\nmin_reaction_ms = 100\n") + "\n[pins]\nbuzzer = 25\n")
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
        assert third["reason"] == "false_start"             # the old (second) config still
        log = daemon.log_text()
    assert "reload: pins.buzzer changed; it takes effect after a restart" in log
    assert "reload: config applied" in log
    assert (f"reload failed, keeping the running config: {daemon.config_path}: "
            "timing.settle_s: must be >= 0.0, not -1.0") in log


def test_sighup_during_a_showdown_waits_until_it_is_over(tmp_path):
    with running_daemon(tmp_path) as daemon, Client.tcp(daemon.port) as client:
        client.hello()
        start_showdown(client, "hup-4", a_ms=300, b_ms=310)
        client.wait_for_event("countdown")
        daemon.config_path.write_text(FAST_CONFIG.replace(
            "[timing]\n", "[timing]\nmin_reaction_ms = 500\n"))
        daemon.send_signal(signal.SIGHUP)
        daemon.notify.wait_for(lambda m: "RELOADING" in m)
        result = client.wait_for_event("result", showdown_id="hup-4")
        assert result["reason"] == "faster"                 # decided on the old config
        client.wait_for_event("state", state="idle")
        start_showdown(client, "hup-5", a_ms=300, b_ms=310)
        later = client.wait_for_event("result", showdown_id="hup-5")
        assert later["reason"] == "false_start"            # the new one, from the next showdown
        log = daemon.log_text()
    assert log.index("the new config applies when the unit is idle") < log.index(
        "reload: config applied")


def test_systemd_hears_ready_status_watchdog_and_stopping(tmp_path):
    # WATCHDOG_USEC=100 ms: a ping every 50 ms from the unit's loop.
    with running_daemon(tmp_path, env={"WATCHDOG_USEC": "100000"}) as daemon:
        notify = daemon.notify
        [ready] = [m for m in notify.messages if "READY" in m]   # pings may come before
        assert ready["READY"] == "1"
        assert re.fullmatch(r"idle; tcp 127\.0\.0\.1:\d+", ready["STATUS"])
        assert ready["STATUS"].endswith(f":{daemon.port}")
        for _ in range(3):
            notify.wait_for(lambda m: m.get("WATCHDOG") == "1" and
                            notify.count("WATCHDOG", "1") >= 3)
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
