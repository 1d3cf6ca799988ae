"""The daemon with a pty as its serial device: a full showdown over the
"cable", and a device that goes away and comes back."""

import os
import pty
import tty

from tests.daemon_helpers import PLAYERS, Client, running_daemon


def open_pty():
    """(master fd, slave fd, slave name), the slave in raw mode."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    return master, slave, os.ttyname(slave)


def test_a_full_showdown_over_a_serial_line(tmp_path):
    master, slave, name = open_pty()
    try:
        with running_daemon(tmp_path, ["--serial", name, "--baud", "57600"], listen=None) as daemon:
            assert daemon.port is None
            assert [m["STATUS"] for m in daemon.notify.messages if "READY" in m] == [
                f"idle; serial {name}"
            ]
            client = Client.fd(master)
            assert client.hello()["capabilities"] == ["bots", "outputs", "bench"]
            client.send_line(b"not json\r")  # \r\n line ends work too
            assert client.read_message()["error"]["code"] == "bad_json"
            assert (
                client.request("showdown", showdown_id="serial-1", cards=2, players=PLAYERS)[
                    "state"
                ]
                == "armed"
            )
            assert client.request("bench_press", side="a", offset_ms=-30)["ok"]  # early
            assert client.request("start")["ok"]
            false_start = client.wait_for_event("false_start")
            result = client.wait_for_event("result")
            assert false_start["side"] == "a"
            assert (result["reason"], result["loser"], result["winner"]) == (
                "false_start",
                "a",
                "b",
            )
            assert client.request("result", showdown_id="serial-1")["result"]["loser"] == "a"
            assert "serial " + name + " open at 57600 baud" in daemon.log_text()
    finally:
        os.close(master)
        os.close(slave)


def test_a_serial_device_that_goes_away_is_reopened_and_the_unit_carries_on(tmp_path):
    link = tmp_path / "ttyUNIT"
    master, slave, name = open_pty()
    link.symlink_to(name)
    with running_daemon(tmp_path, ["--serial", str(link)]) as daemon:
        first = Client.fd(master)
        first.hello()
        os.close(master)  # "unplugged"
        os.close(slave)
        daemon.wait_for_log(f"serial {link} lost")
        with Client.tcp(daemon.port) as watcher:  # the unit still serves TCP
            assert watcher.hello()["ok"] and watcher.request("status")["state"] == "idle"
        master, slave, name = open_pty()  # plugged in again
        link.unlink()
        link.symlink_to(name)
        daemon.wait_for_log(f"serial {link} open at 115200 baud", timeout=30, count=2)
        again = Client.fd(master)
        hello = again.hello()
        assert hello["ok"] and again.request("ping")["ok"]
    os.close(master)
    os.close(slave)
