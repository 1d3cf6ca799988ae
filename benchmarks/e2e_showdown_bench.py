"""What one showdown costs the engine beyond the unit's own timing.

Starts a unit daemon on mock pins (a subprocess, TCP on loopback), and fights N
showdowns through a RemoteUnit that starts each one itself (``start=True``);
a bench table presses paddle A at 10 ms and B at 12 ms after GO.

For each showdown (engine clock, ``time.monotonic``):

    total      run_showdown() call to return: arm, start, every event, the result
    unit       the unit's own time, as it reports it:
                 countdown + hold = arrival of the first ``countdown`` event to
                                    arrival of ``go`` (both unit events, so the
                                    delivery latency cancels out)
                 response + settle = GO to the decision, from the result: the
                                    later reaction when both pressed within the
                                    settle window, else the first one + settle_s
                 launch           = spin_up_s + per_card_s * cards (the unit's
                                    launch timer; no card sensor)
    table      time spent in the table's hooks (its bench commands: not the
               engine's cost, a real table presses buttons)
    overhead   total - unit - table: arming, starting, the protocol both ways,
               JSON, the daemon's threads and loop latency, the engine's own work

and three parts of the overhead:

    arm        the ``showdown`` command's round trip
    after GO   arrival of ``launched`` - arrival of ``go`` - (response + settle)
               - launch: how late the daemon's deadlines (presses, settle,
               launch timer) ran and the events came
    journal    arrival of ``launched`` to arrival of ``result`` (the unit writes
               the result to its journal, synchronous=FULL, between them)

Prints the median and p99 of each, in ms.

    .venv/bin/python benchmarks/e2e_showdown_bench.py [--showdowns 1000]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.apps.demo import UnitDaemon
from engine.units.ports import ShowdownRequest
from engine.units.remote import RemoteUnit

TIMING = {
    "countdown_step_s": 0.01,
    "flash_period_s": 0.005,
    "beep_s": 0.002,
    "go_tone_s": 0.005,
    "hold_min_s": 0.01,
    "hold_max_s": 0.02,
    "settle_s": 0.005,
    "response_timeout_s": 2.0,
}
LAUNCHER = {"spin_up_s": 0.005, "per_card_s": 0.001}
CONFIG = (
    "[timing]\n"
    + "".join(f"{k} = {v!r}\n" for k, v in TIMING.items())
    + "[launcher]\n"
    + "".join(f"{k} = {v!r}\n" for k, v in LAUNCHER.items())
)
PRESSES = (("a", 10.0), ("b", 12.0))
CARDS = 2


class BenchTable:
    """Presses both paddles after each arming and lets go first; times itself."""

    def __init__(self):
        self.spent = 0.0

    def armed(self, link, request, unit_id):
        started = time.monotonic()
        for side in "ab":
            link.call("bench_release", side=side)
        for side, ms in PRESSES:
            link.call("bench_press", side=side, offset_ms=ms)
        self.spent += time.monotonic() - started

    def event(self, link, event):
        pass


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def unit_parts(times, outcome) -> tuple[float, float, float]:
    """The unit's countdown + hold, GO to the decision, and launch (seconds)."""
    countdown_hold = times["go"] - times["countdown"]
    reactions = [us / 1e6 for us in outcome.reaction_us.values() if us is not None]
    if len(reactions) == 2 and max(reactions) - min(reactions) < TIMING["settle_s"]:
        decision = max(reactions)
    else:
        decision = min(reactions) + TIMING["settle_s"]
    launch = LAUNCHER["spin_up_s"] + LAUNCHER["per_card_s"] * CARDS
    return countdown_hold, decision, launch


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--showdowns", type=int, default=1000)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    with tempfile.TemporaryDirectory() as tmp:
        daemon = UnitDaemon(Path(tmp), config_text=CONFIG)
        daemon.start()
        try:
            table = BenchTable()
            port = RemoteUnit(daemon.url, start=True, table=table, id_prefix="bench")
            skipped = []
            rows: dict[str, list[float]] = {
                key: []
                for key in ("total", "unit", "table", "overhead", "arm", "after GO", "journal")
            }
            with port:
                for n in range(args.showdowns):
                    request = ShowdownRequest(f"b{n}", 0, 1, "Ann", "Bob", CARDS)
                    table_before = table.spent
                    started = time.monotonic()
                    outcome = port.run_showdown(request)
                    total = time.monotonic() - started
                    times = dict(reversed(port.timeline))  # the first of each name
                    if not {"countdown", "go", "launched", "result"} <= set(times):
                        skipped.append((request.showdown_id, port.timeline))
                        continue  # not fought in one go (a reconnect, a re-run)
                    countdown_hold, decision, launch = unit_parts(times, outcome)
                    unit = countdown_hold + decision + launch
                    spent = table.spent - table_before
                    parts = {
                        "total": total,
                        "unit": unit,
                        "table": spent,
                        "overhead": total - unit - spent,
                        "arm": times["armed"] - times["arm"],
                        "after GO": times["launched"] - times["go"] - decision - launch,
                        "journal": times["result"] - times["launched"],
                    }
                    for key, value in parts.items():
                        rows[key].append(value * 1000)
        finally:
            code = daemon.stop()
    print(
        f"{args.showdowns} showdowns on mock pins over loopback TCP (daemon exit {code}); "
        f"{len(skipped)} not fought in one go, left out"
    )
    for showdown_id, timeline in skipped:
        print(f"  {showdown_id}: {[name for name, _ in timeline]}")
    print(f"{'ms':<10}{'median':>9}{'p99':>9}")
    for key, values in rows.items():
        print(f"{key:<10}{statistics.median(values):>9.2f}{percentile(values, 0.99):>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
