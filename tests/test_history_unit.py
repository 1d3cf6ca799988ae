"""``showdown-unit history --unit URL``: a running unit's journal over the link,
against a real daemon on mock pins, with two bots fighting on it."""

import contextlib
import json
import os
import pty
import select
import threading
import tty

import pytest

from firmware_host.commands.cli import main
from tests.daemon_helpers import FAST_CONFIG, Client, running_daemon

pytestmark = pytest.mark.slow

BOTS = {"a": {"reaction_ms": 150}, "b": {"reaction_ms": 400}}
CONFIG = FAST_CONFIG.replace("[timing]\n", "[timing]\nbot_start_s = 0.05\n")


def two_bots(port, showdown_id="g1-r1", token=None):
    """A showdown of two bots, armed and left to start by itself; its result."""
    client = Client.tcp(port)
    if token is not None:
        client.request("auth", token=token)
    assert "bots" in client.hello()["capabilities"]
    client.request(
        "showdown",
        showdown_id=showdown_id,
        cards=1,
        players={"a": "Bot1", "b": "bot2"},
        bots=BOTS,
    )
    return client.wait_for_event("result", showdown_id=showdown_id)


def history(capsys, *argv):
    code = main(["history", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_history_over_the_link_shows_the_bots_showdown(tmp_path, capsys):
    with running_daemon(tmp_path, config_text=CONFIG) as daemon:
        result = two_bots(daemon.port)
        assert result["bots"] == ["a", "b"]
        url = f"socket://127.0.0.1:{daemon.port}"
        code, out, err = history(capsys, "--unit", url)
        assert (code, err) == (0, "")
        lines = out.splitlines()
        assert lines[0] == f"Recent results, newest first (the unit at {url}):"
        assert "  g1-r1  Bot1 (bot) vs bot2 (bot)  " in lines[1]
        assert lines[1].endswith("1 card launched") or "tie" in lines[1]
        assert "Bots (the unit pressed their paddles; all recorded showdowns):" in lines
        code, out, _ = history(capsys, "--unit", url, "--json", "--player", "BOT1")
        found = json.loads(out)
        assert [r["bots"] for r in found["results"]] == [["a", "b"]]
        assert (found["players"], list(found["bots"])) == ({}, ["Bot1"])
        assert history(capsys, "--unit", url, "--player", "Zed") == (
            1,
            "",
            f"error: no player named 'Zed' in {url}; known: Bot1, bot2\n",
        )


def test_history_over_the_link_with_a_token(tmp_path, capsys):
    secret = tmp_path / "token"
    secret.write_text("correct horse\n")
    secret.chmod(0o600)
    wrong = tmp_path / "wrong"
    wrong.write_text("battery staple\n")
    config = CONFIG + f'\n[server]\ntoken_file = "{secret}"\n'
    with running_daemon(tmp_path, config_text=config) as daemon:
        two_bots(daemon.port, token="correct horse")
        url = f"socket://127.0.0.1:{daemon.port}"
        assert history(capsys, "--unit", url) == (
            1,
            "",
            f"error: the unit at {url} needs its token: give --token-file FILE "
            "(the file the unit's server.token_file names)\n",
        )
        assert history(capsys, "--unit", url, "--token-file", str(wrong)) == (
            1,
            "",
            f"error: the unit at {url} refused the token of {wrong}: wrong token\n",
        )
        code, out, _ = history(capsys, "--unit", url, "--token-file", str(secret), "--json")
        assert code == 0 and json.loads(out)["results"][0]["showdown_id"] == "g1-r1"


def test_history_over_a_serial_line(tmp_path, capsys):
    # Two pty pairs joined by a thread make a "cable": the daemon on one end,
    # history --unit on the other, each with a device path as on a Pi.
    ends = []
    for _ in range(2):
        master, slave = pty.openpty()
        tty.setraw(slave)
        ends.append((master, slave, os.ttyname(slave)))
    (unit_master, _, unit_tty), (our_master, _, our_tty) = ends
    stop = threading.Event()

    def cable():
        pairs = {unit_master: our_master, our_master: unit_master}
        while not stop.is_set():
            ready, _, _ = select.select(list(pairs), [], [], 0.05)
            for fd in ready:
                with contextlib.suppress(OSError):
                    os.write(pairs[fd], os.read(fd, 65536))

    joined = threading.Thread(target=cable, daemon=True)
    joined.start()
    try:
        config = CONFIG + "\n[server]\nbaud = 57600\n"
        with running_daemon(tmp_path, ["--serial", unit_tty], config_text=config) as daemon:
            two_bots(daemon.port)
            code, out, err = history(capsys, "--unit", our_tty, "--json")
            assert (code, err) == (0, "")
            assert json.loads(out)["results"][0]["bots"] == ["a", "b"]
    finally:
        stop.set()
        joined.join()
        for master, slave, _ in ends:
            os.close(master)
            os.close(slave)
