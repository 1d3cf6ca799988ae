"""benchmarks/table_flood.py run small (3 flooding sockets, short phases) against the
real ``showdown table``: the report's shape, and what the server did to the flooders
(closed them, logged a line or two), never its timings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def test_the_flood_benchmark_runs_small_and_reports_every_phase():
    done = subprocess.run(
        [
            *(sys.executable, "benchmarks/table_flood.py", "--sockets", "3"),
            *("--seconds", "1.5", "--pings-per-s", "5", "--json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    for phase in ("idle", "noisy", "flood", "storm", "idle_after"):
        assert figures[phase]["problem"] is None, figures[phase]
        assert figures[phase]["pings"] >= 5
        assert figures[phase]["p99_ms"] >= figures[phase]["median_ms"] > 0
    assert figures["noisy"]["connected"] == 3 and figures["noisy"]["closed"] == 0
    assert figures["storm"]["closed"] >= 3  # each flooder was closed at least once
    assert figures["storm"]["log_lines"] <= 2  # summarised, never one a flooder
