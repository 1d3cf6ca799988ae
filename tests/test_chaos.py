"""The chaos run, small: twelve showdowns on a real daemon, one block of
benchmarks/chaos.py's faults (a SIGKILL at each of nine moments, a link cut, a
full disk, a second daemon on the journal) with bad clients alongside, checked
against the journal. The block is shuffled, but twelve showdowns always hold
all of it, so the counts per fault are exact. No timing is asserted."""

import json
import subprocess
import sys
from pathlib import Path

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
