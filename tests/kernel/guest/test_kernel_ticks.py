"""The unit decides on the kernel's edge timestamps: for every press the
reaction it reports is the kernel's tick minus the GO tick.

Over many showdowns the simulated table notes CLOCK_MONOTONIC just before and
after it writes a paddle line; the kernel stamps the edge in between (gpio-sim
fires the line's interrupt from the write). Where the guest kernel can trace
(kprobe on gpiolib's edge_irq_handler, trace clock "mono"), each reported tick
is also matched to the kernel's own record of the interrupt. The spread of
tick minus write time is the guest's jitter (a user-space write under qemu's
software emulation), not the unit's error. RPi.GPIO (rpi-lgpio) stamps an edge
when its Python callback runs, so there the same figure is the callback delay.
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import time
from pathlib import Path

import pytest

from tests.kernel.guest.table import OUT_DIR, PADDLE, unit_on_chip

pytestmark = pytest.mark.slow

SHOWDOWNS = {"lgpio": int(os.environ.get("UNO_GPIO_SHOWDOWNS", "200")), "rpigpio": 50}

TICKS_CONFIG = """\
[timing]
countdown_step_s = 0.01
flash_period_s = 0.01
beep_s = 0.0
go_tone_s = 0.0
hold_min_s = 0.01
hold_max_s = 0.03
response_timeout_s = 5.0

[launcher]
spin_up_s = 0.0
per_card_s = 0.01
"""

TRACING = Path("/sys/kernel/tracing")


class EdgeTrace:
    """The kernel's own record of each GPIO edge interrupt: a kprobe on
    gpiolib-cdev's edge_irq_handler (which reads the edge's timestamp, from
    ktime_get_ns, the monotonic clock), logged on the "mono" trace clock."""

    def __init__(self):
        self.error = None
        try:
            (TRACING / "trace_clock").write_text("mono")
            (TRACING / "kprobe_events").write_text("p:uno/edge edge_irq_handler\n")
            (TRACING / "events/uno/edge/enable").write_text("1")
            (TRACING / "trace").write_text("")
        except OSError as exc:
            self.error = f"{type(exc).__name__}: {exc}"

    def stamps_ns(self) -> list[int]:
        text = (TRACING / "trace").read_text()
        return sorted(round(float(s) * 1e9) for s in re.findall(r" (\d+\.\d+): edge:", text))

    def close(self) -> None:
        if self.error is None:
            (TRACING / "events/uno/edge/enable").write_text("0")
            (TRACING / "kprobe_events").write_text("")


def summary(values_us: list[float]) -> dict:
    ordered = sorted(values_us)

    def pct(p):
        return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 1)

    return {
        "n": len(ordered),
        "min": round(ordered[0], 1),
        "median": round(statistics.median(ordered), 1),
        "p95": pct(95),
        "p99": pct(99),
        "max": round(ordered[-1], 1),
    }


@pytest.mark.parametrize("backend", ["lgpio", "rpigpio"])
def test_reported_reaction_is_the_kernel_tick_minus_go(backend, chip, tmp_path):
    rng = random.Random(12)
    line = PADDLE["a"]
    chip.release(PADDLE["a"])
    chip.release(PADDLE["b"])
    trace = EdgeTrace() if backend == "lgpio" else None
    presses = []
    started = time.monotonic()
    try:
        with unit_on_chip(tmp_path, backend, TICKS_CONFIG) as unit, unit.client() as client:
            for i in range(SHOWDOWNS[backend]):
                reply = client.request(
                    "showdown", showdown_id=f"k{i}", cards=1, players={"a": "Ann", "b": "Bob"}
                )
                assert reply["ok"], reply
                assert client.request("start")["ok"]
                go = client.wait_for_event("go")
                time.sleep(rng.uniform(0.0, 0.01))
                before, after = chip.press(line)
                result = client.wait_for_event("result")
                assert (result["winner"], result["reason"]) == ("a", "faster"), result
                tick_ns = round((go["ticks"] + result["reaction_us"]["a"] / 1e6) * 1e9)
                presses.append((before, after, tick_ns))
                time.sleep(max(0.0, 0.06 - (time.monotonic_ns() - before) / 1e9))
                chip.release(line)  # after press_lockout_s, so the release is an edge too
                client.wait_for_event("state", state="idle")
        stamps = trace.stamps_ns() if trace is not None and trace.error is None else []
    finally:
        if trace is not None:
            trace.close()
    elapsed = time.monotonic() - started

    tick_after_write = [(tick - before) / 1e3 for before, _, tick in presses]
    write_us = [(after - before) / 1e3 for before, after, _ in presses]
    figures = {
        "backend": backend,
        "showdowns": len(presses),
        "seconds": round(elapsed, 1),
        "tick_minus_write_start_us": summary(tick_after_write),
        "write_duration_us": summary(write_us),
        "tick_after_write_end": sum(tick > after for _, after, tick in presses),
    }
    problems = []
    if backend == "lgpio":
        # The tick is the kernel's: stamped during the sysfs write that made
        # the edge (2 us for the rounding of reaction_us to whole us).
        late = [(b, a, t) for b, a, t in presses if not b - 2000 <= t <= a + 2000]
        if late:
            problems.append(f"{len(late)} ticks outside their write: {late[:5]}")
        if trace.error is not None:
            figures["kernel_trace"] = f"unavailable: {trace.error}"
        else:
            # The kernel recorded the edge's interrupt during the write that
            # made it, and the reported tick comes just after that record.
            diffs = []
            for before, after, tick in presses:
                during = [s for s in stamps if before - 2000 <= s <= min(tick, after) + 2000]
                if not during:
                    problems.append(f"no kernel edge record within the write {before}-{after}")
                    continue
                diffs.append((tick - during[-1]) / 1e3)
            figures["tick_minus_kernel_irq_trace_us"] = summary(diffs)
    else:
        # RPi.GPIO stamps in its callback, after the write.
        early = [(b, a, t) for b, a, t in presses if t < b]
        if early:
            problems.append(f"{len(early)} callback ticks before their write: {early[:5]}")
    print(json.dumps(figures, indent=1))
    if OUT_DIR.is_dir():
        (OUT_DIR / f"kernel_ticks_{backend}.json").write_text(json.dumps(figures, indent=1))
    assert not problems, problems
