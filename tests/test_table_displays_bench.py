"""benchmarks/table_displays.py: many displays on one table, run small as a
process (a real ``showdown table``, the silent displays in a process of their
own), with and without permessage-deflate; the report's shape and sanity are
checked, never a timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "table_displays.py"


@pytest.mark.parametrize("deflate", [False, True])
def test_the_benchmark_opens_displays_times_taps_and_closes_them(deflate):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--displays", "12", "--taps", "6", "--json"]
        + (["--deflate"] if deflate else []),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,  # a safety net for a hung run, not a timing check
    )
    assert result.returncode == 0, result.stdout + result.stderr
    figures = json.loads(result.stdout)
    assert figures["displays"] == 12 and figures["deflate"] is deflate
    assert figures["taps"] == 6
    for key in ("latency_ms", "last_display_ms", "fanout_ms"):
        assert 0 < figures[key]["p50"] <= figures[key]["p99"] <= figures[key]["max"]
    # every display got each tap: the last of them no sooner than the first one watched
    assert figures["fanout_ms"]["max"] > 0 and figures["open_s"] > 0
    for key in ("before_kb", "open_kb", "closed_kb", "reopened_kb", "closed_again_kb"):
        assert figures[key] > 10_000
    assert figures["view_bytes"] > 500
