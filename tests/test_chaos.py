"""The chaos run, small: twelve showdowns on a real daemon, one block of
benchmarks/chaos.py's faults (a SIGKILL at each of nine moments, a link cut, a
full disk, a second daemon on the journal) with bad clients alongside, checked
against the journal. The block is shuffled, but twelve showdowns always hold
all of it, so the counts per fault are exact. No timing is asserted. Then its
bad clients against a scripted unit that ends their rounds as the daemon does
when a hello deadline passes mid-round."""

import json
import random
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from benchmarks import chaos
from tests.daemon_helpers import WAIT_S

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "chaos.py"
MOMENTS = (
    "armed",
    "countdown",
    "hold",
    "go",
    "false_start",
    "resolved",
    "launching",
    "timeout",
    "result",
)


def test_twelve_showdowns_of_chaos_keep_every_verdict_exactly_once():
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--showdowns", "12", "--seed", "1", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )  # a safety net for a hung run, not a timing check
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout)
    assert figures["showdowns"] == 12
    assert {
        key: figures[key]
        for key in ("verdicts_lost", "verdicts_changed", "launches_without_record", "run_twice")
    } == {"verdicts_lost": 0, "verdicts_changed": 0, "launches_without_record": 0, "run_twice": 0}
    assert figures["kills"] == {moment: 1 for moment in MOMENTS}
    assert figures["kill_moments_missed"] == 0
    assert sum(figures["launch_after_a_kill_in_launching"].values()) == 1
    assert figures["link_cuts"] == 1
    assert figures["full_disk"]["runs"] == figures["full_disk"]["faulted"] == 1
    assert figures["full_disk"]["cleared_by_cancel"] == 1
    assert figures["second_daemons"] == {"started": 1, "exited_78": 1}
    assert figures["bad_client_arms"] == figures["bad_client_problems"] == 0
    assert figures["unexpected_daemon_exits"] == figures["harness_errors"] == 0
    assert figures["unfinished"] == 0
    bad = figures["bad_clients"]
    assert set(bad) == {
        "bursts",
        "pings",
        "burst_cut_by_hello_timeout",
        "garbage_rounds",
        "garbage_lines",
        "garbage_cut_by_hello_timeout",
        "http_refused",
        "silent_closed",
        "storm_connects",
        "cut_by_a_restart",
    }
    assert bad["garbage_cut_by_hello_timeout"] <= bad["garbage_rounds"]


# -- the bad clients against a scripted unit ------------------------------------------------
# A unit that answers as the daemon does when a client's hello deadline passes
# mid-round, at a point the test chooses: no timing, no daemon.


class ScriptedUnit:
    """One TCP client, answered on a thread by ``script(sock, lines)``, where
    ``lines()`` reads the client's next line."""

    def __init__(self, script):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.generation = 0
        self._thread = threading.Thread(target=self._serve, args=(script,), daemon=True)
        self._thread.start()

    def current(self):
        return self.port, self.generation

    def _serve(self, script):
        sock, _ = self.listener.accept()
        reader = sock.makefile("rb")
        script(sock, lambda: reader.readline().rstrip(b"\n"))
        reader.close()
        sock.close()  # what the client sent after is unread: a reset, as from the daemon

    def close(self):
        self._thread.join(WAIT_S)
        self.listener.close()


def refusal(request_id) -> bytes:
    error = {"code": "hello_required", "message": "say hello first"}
    return json.dumps({"id": request_id, "ok": False, "error": error}).encode() + b"\n"


HELLO_TIMEOUT = (
    b'{"id":null,"ok":false,"error":{"code":"hello_timeout","message":"auth and hello did '
    b'not come within 0.5 s of connecting: closing the link"}}\n'
)


def garbage_against(script):
    unit = ScriptedUnit(script)
    rabble = chaos.Rabble(unit, seed=1)
    try:
        rabble._garbage(unit.port, 0, random.Random(1), 1)
    finally:
        unit.close()
    return rabble.counts


def test_a_garbage_round_cut_by_hello_timeout_after_its_refusals_is_counted():
    def script(sock, line):
        for _ in range(10):
            sock.sendall(refusal(chaos.reply_id(line())))
        sock.sendall(HELLO_TIMEOUT)

    counts = garbage_against(script)
    assert dict(counts) == {
        "garbage_rounds": 1,
        "garbage_lines": 10,
        "garbage_cut_by_hello_timeout": 1,
    }


def test_a_garbage_round_closed_without_hello_timeout_is_a_problem():
    def script(sock, line):
        for _ in range(10):
            sock.sendall(refusal(chaos.reply_id(line())))

    with pytest.raises(ConnectionError, match=r"^closed after 10 of \d+ replies$"):
        garbage_against(script)


def test_a_line_after_hello_timeout_is_a_problem():
    def script(sock, line):
        sock.sendall(refusal(chaos.reply_id(line())))
        sock.sendall(HELLO_TIMEOUT + refusal(chaos.reply_id(line())))

    with pytest.raises(chaos.Wrong, match=r"after hello_timeout$"):
        garbage_against(script)


def test_a_garbage_reply_out_of_order_is_a_problem():
    def script(sock, line):
        sock.sendall(refusal(chaos.reply_id(line())))
        sock.sendall(refusal("not the line's id"))

    with pytest.raises(chaos.Wrong, match=r"where the reply to line 1 was due$"):
        garbage_against(script)


def test_a_burst_whose_hello_came_too_late_is_counted_when_nothing_else_is_answered():
    unit = ScriptedUnit(lambda sock, line: sock.sendall(HELLO_TIMEOUT))
    rabble = chaos.Rabble(unit, seed=1)
    try:
        rabble._burst(unit.port, 0, random.Random(1), 1)
    finally:
        unit.close()
    assert dict(rabble.counts) == {"burst_cut_by_hello_timeout": 1}
