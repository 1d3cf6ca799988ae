"""static/clock.js, the phones' clock offset, run under node with plain numbers."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

CLOCK = Path(__file__).parent.parent / "engine/apps/table/static/clock.js"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

SCRIPT = """
import * as c from %s;
const out = {};
// the server runs 5000 ms ahead; one-way delays 5 ms out and 80 ms back (asymmetric)
const s1 = c.sample(100, 185, 100 + 5 + 5000);
out.s1 = s1;
// a quick round trip (1 ms each way) is the better sample
const s2 = c.sample(200, 202, 201 + 5000);
let kept = c.keepBest([], s1, 185);
kept = c.keepBest(kept, s2, 202);
out.kept = kept.length;
out.est = c.estimate(kept, 202);
out.later = c.estimate(kept, 10202);
out.none = c.estimate([], 0);
out.toServer = c.toServer(1000, out.est);
out.toLocal = c.toLocal(c.toServer(1000, out.est), out.est);
out.text = c.uncertaintyText(out.est);
out.unset = c.uncertaintyText(null);
let many = [];
for (let i = 0; i < 20; i++) many = c.keepBest(many, c.sample(i * 10, i * 10 + 4 + i, 0), i * 10 + 4 + i);
out.keptMany = many.length;
out.bestRtt = c.estimate(many, 200).uncertainty;
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def out() -> dict:
    script = SCRIPT % json.dumps(CLOCK.as_uri())
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_offset_comes_from_the_best_round_trip_and_its_error_is_within_half_of_it(
    out: dict,
) -> None:
    # the slow asymmetric sample errs by 37.5 ms, within its uncertainty of 42.5 ms
    assert out["s1"] == {"rtt": 85, "offset": 4962.5, "at": 185}
    assert abs(out["s1"]["offset"] - 5000) <= out["s1"]["rtt"] / 2
    assert out["kept"] == 2
    assert out["est"] == {"offset": 5000, "uncertainty": 1}
    assert out["toServer"] == 6000 and out["toLocal"] == 1000
    assert out["text"] == "±1.0 ms" and out["unset"] == "clock not set"
    assert out["none"] is None


def test_the_uncertainty_grows_with_drift_and_only_the_best_samples_are_kept(out: dict) -> None:
    # 10 s after the best sample: 1 ms plus 100 ppm of 10,000 ms
    assert out["later"]["uncertainty"] == pytest.approx(2.0)
    assert out["keptMany"] == 8
    # the first sample is the best: rtt 4 ms, 196 ms old at 200 ms
    assert out["bestRtt"] == pytest.approx(2 + (200 - 4) * 100 / 1e6)
