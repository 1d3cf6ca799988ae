"""``showdown-unit simulate``: thousands of showdowns against a ground truth.

Each showdown runs through the real state machine and the real
:class:`hw.board.Board` on mock pins, on virtual time (:class:`VirtualRig`). A
simulated table plays it: the presses people make
(:data:`firmware_host.people.reactions.HUMAN`: median 230 ms, the other
player a little later, now and then by a hair), false starts in the countdown
and the hold (some by both players),
presses too fast after GO for ``min_reaction_ms``, false starts whose callback
arrives after GO, near-ties from 1 µs apart on both sides of the tie threshold,
bounce bursts after a press, nobody pressing, and every callback delivered late
by a random 0-20 ms (the edge's tick is the truth, the delivery comes later; the
two paddles' callbacks therefore arrive in either order).

The table knows what it did, so it knows the right decision for every round
(worked out here in whole microseconds, independently of the machine) and
counts every decision the machine gets wrong. The counts are the same for a
seed on any machine; the latency and CPU figures are measurements.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass, replace
from typing import Any

from firmware_host.people.console import positive_int, seed
from firmware_host.people.reactions import HUMAN
from firmware_host.service.config import load_config
from firmware_host.sim.rig import VirtualRig, run_until

__all__ = ["Plan", "plan_round", "truth", "simulate", "SIM_TIMING", "add_arguments", "command"]

#: Longest callback delay the table produces.
MAX_DELAY_US = 20_000
#: What the simulation changes in the config: a settle window longer than the
#: worst delivery delay (see docs/timing.md), and the 100 ms sprint rule on.
SIM_TIMING = {"settle_s": 0.025, "min_reaction_ms": 100}

KINDS = (  # (kind, weight)
    ("normal", 50),
    ("one_presses", 5),
    ("near_tie", 12),
    ("false_start", 10),
    ("both_false_start", 5),
    ("late_false_start", 6),
    ("too_fast", 6),
    ("timeout", 6),
)
NEAR_TIE_GAPS_US = (0, 1, 2, 10, 100, 150, 198, 199, 200, 201, 202, 250, 400, 1000)


@dataclass
class Plan:
    """One round as the table plays it: each side's press offset from GO in
    whole microseconds (None: no press) and its callback delay."""

    kind: str
    press_us: dict
    delay_us: dict


def plan_round(rng: random.Random, earliest_us: int, threshold_us: int) -> Plan:
    """Draw one round; ``earliest_us`` is the countdown's start relative to GO
    (negative), so early presses fall inside the countdown or the hold."""
    kind = rng.choices([k for k, _ in KINDS], [w for _, w in KINDS])[0]
    first, second = rng.sample(("a", "b"), 2)
    human = dict(zip((first, second), HUMAN.presses_us(rng), strict=True))
    press: dict[str, int | None] = dict(human)  # None: no press
    delay = {side: rng.randint(0, MAX_DELAY_US) for side in "ab"}

    # A re-run's countdown starts while the players may still hold their
    # paddles from the tie (they let go up to ~250 ms later, and a paddle
    # ignores its own edges for press_lockout_s after that): no one can jump
    # in the first 400 ms of a countdown.
    earliest_us += 400_000

    def early():
        return rng.randint(earliest_us, -1_000)

    if kind == "one_presses":
        press[second] = None
    elif kind == "near_tie":
        press[second] = human[first] + rng.choice(NEAR_TIE_GAPS_US)
    elif kind == "false_start":
        press[first] = early()
        if rng.random() < 0.3:
            press[second] = None
    elif kind == "both_false_start":
        press[first] = jump = early()
        # Some jump within microseconds of each other: both sides of the threshold.
        gap = rng.choice((0, 1, threshold_us - 1, threshold_us, rng.randint(1_000, 400_000)))
        press[second] = max(earliest_us, min(-1, jump + gap))
    elif kind == "late_false_start":
        press[first] = jump = -rng.randint(1, 5_000)  # just before GO ...
        delay[first] = rng.randint(-jump + 1, MAX_DELAY_US)  # ... delivered after it
    elif kind == "too_fast":
        press[first] = rng.choice((rng.randint(10_000, 99_999), 99_999, 100_000))
    elif kind == "timeout":
        press = {"a": None, "b": None}
    return Plan(kind, press, delay)


def truth(plan: Plan, *, threshold_us: int, min_reaction_us: int) -> tuple:
    """The right decision for a round, from the plan alone: ("faster", winner),
    ("false_start", offender), ("tie",) or ("timeout",)."""
    press = plan.press_us
    pressed = [side for side in "ab" if press[side] is not None]
    if not pressed:
        return ("timeout",)
    early = [side for side in pressed if press[side] < min_reaction_us]
    contenders = early or pressed
    if len(contenders) == 2 and abs(press["a"] - press["b"]) < max(threshold_us, 1):
        return ("tie",)
    first = min(contenders, key=lambda side: press[side])
    return ("false_start", first) if early else ("faster", first)


def _decision(core) -> tuple:
    decision = core.decision
    if decision.outcome == "faster":
        return ("faster", decision.winner)
    if decision.outcome == "false_start":
        return ("false_start", decision.loser)
    return (decision.outcome,)


def _play_round(rig, plan: Plan, rng: random.Random) -> None:
    """Place the round's edges on the bench: the press, a bounce burst, a release."""
    for side in "ab":
        offset_us = plan.press_us[side]
        if offset_us is None:
            continue
        edges = [(offset_us, True, plan.delay_us[side])]
        if rng.random() < 0.5:  # contact bounce right after the press
            at = offset_us
            for k in range(rng.randint(2, 6)):
                at += rng.randint(100, 1_500)
                edges.append((at, k % 2 == 1, rng.randint(0, MAX_DELAY_US)))
        edges.append((offset_us + rng.randint(80_000, 250_000), False, rng.randint(0, 2_000)))
        delivered = -math.inf
        for at, pressed, delay in edges:
            # One pin's callbacks come in order; 1 us apart at least, so that
            # float rounding of the delivery times cannot swap two of them.
            delivered = max(delivered + 1, at + delay)
            place = rig.bench.press if pressed else rig.bench.release
            place(side, offset_s=at / 1e6, delay_s=(delivered - at) / 1e6)


def simulate(showdowns: int, seed: int, config=None) -> dict:
    """Run ``showdowns`` showdowns; returns the figures ``--json`` prints."""
    config = load_config(None) if config is None else config
    config = config.replace(timing=replace(config.timing, **SIM_TIMING))
    with VirtualRig(config, seed=seed) as rig:
        run = _Run(rig, config, random.Random(seed))
        rig.core.listeners = (*rig.core.listeners, run.on_event)
        started = time.process_time()
        for number in range(showdowns):
            run.fight(number)
            run.score(number)
            rig.advance(1.0)  # players settle before the next showdown
        cpu = time.process_time() - started
    figures: dict[str, Any] = {"showdowns": showdowns, **run.counts}  # Any: JSON figures
    figures["decision_latency_us"] = _percentiles(run.latencies)
    figures["cpu_us_per_showdown"] = round(cpu / max(showdowns, 1) * 1e6, 1)
    if run.wrong_examples:
        figures["_wrong_examples"] = run.wrong_examples
    return figures


#: What a simulation counts, in the order ``--json`` prints them.
_COUNTS = ("correct", "wrong", "false_starts_injected", "false_starts_caught", "ties", "timeouts")


class _Run:
    """One simulation on ``rig``: each countdown's plan and what it should
    decide (drawn from ``rng`` when the countdown begins), what the core
    decided, and the counts."""

    def __init__(self, rig: VirtualRig, config, rng: random.Random):
        self.rig, self.core, self.rng = rig, rig.core, rng
        self.config, self.timing = config, config.timing
        self.counts: dict[str, int] = dict.fromkeys(_COUNTS, 0)
        self.latencies: list[float] = []
        self.wrong_examples: list[str] = []
        self.rounds: list[tuple] = []  # (plan, truth) of the running showdown
        self.decisions: list[tuple] = []

    def on_event(self, event) -> None:
        """The core's listener: a countdown's first step plans its presses;
        a state left from GO or a false start is a decision."""
        data = event.data
        if event.name == "countdown" and data["step"] == 1:
            self._plan_round()
        elif event.name == "state" and data["state"] == "timeout":
            self.decisions.append(("timeout",))
        elif (
            event.name == "state"
            and data["previous"] in ("go", "false_start")
            and data["state"] in ("resolved", "launching", "countdown")
        ):
            self.decisions.append(_decision(self.core))
            latency = self.core.last_decision_latency_us
            assert latency is not None  # measured with the decision
            self.latencies.append(latency)

    def _plan_round(self) -> None:
        rnd, timing = self.core.round, self.timing
        assert rnd is not None  # the countdown has begun
        earliest_us = round((rnd.start - rnd.planned_go) * 1e6)
        plan = plan_round(self.rng, earliest_us, timing.tie_threshold_us)
        want = truth(
            plan,
            threshold_us=timing.tie_threshold_us,
            min_reaction_us=timing.min_reaction_ms * 1000,
        )
        self.rounds.append((plan, want))
        _play_round(self.rig, plan, self.rng)

    def fight(self, number: int) -> None:
        """Arm, start and run showdown ``number`` until the unit is idle with nothing due."""
        core, rig = self.core, self.rig
        self.rounds.clear()
        self.decisions.clear()
        rig.events.clear()
        cards = self.rng.randint(1, self.config.showdown.max_cards)
        core.arm(f"sim-{number}", cards, {"a": "A", "b": "B"})
        core.start()
        while core.state != "idle" or core.next_deadline() is not None:
            deadline = core.next_deadline()
            run_until(core, rig.clock, deadline if deadline is not None else rig.clock())
            if deadline is None and core.state != "idle":
                raise RuntimeError(f"showdown {number} stuck in {core.state}")

    def score(self, number: int) -> None:
        """Count showdown ``number``: right or wrong, its false starts, ties and timeout."""
        counts, decisions = self.counts, self.decisions
        expected = [want for _, want in self.rounds]
        if decisions == expected:
            counts["correct"] += 1
        else:
            counts["wrong"] += 1
            if len(self.wrong_examples) < 5:
                self.wrong_examples.append(
                    f"sim-{number}: plans {[p for p, _ in self.rounds]}, "
                    f"expected {expected}, decided {decisions}"
                )
        # Not strict: a wrong run may have made more or fewer decisions.
        for (_, want), got in zip(self.rounds, decisions, strict=False):
            if want[0] == "false_start":
                counts["false_starts_injected"] += 1
                counts["false_starts_caught"] += got == want
            counts["ties"] += got == ("tie",)
        counts["timeouts"] += decisions[-1:] == [("timeout",)]


def _percentiles(values: list[float]) -> dict:
    if not values:
        return {"p50": None, "p99": None, "max": None}
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return {
        "p50": round(statistics.median(ordered), 1),
        "p99": round(p99, 1),
        "max": round(ordered[-1], 1),
    }


def add_arguments(parser) -> None:
    parser.add_argument(
        "--showdowns",
        type=positive_int,
        default=1000,
        metavar="N",
        help="how many showdowns to play (default 1000)",
    )
    parser.add_argument(
        "--seed",
        type=seed,
        default=1,
        metavar="S",
        help="random seed; the same seed plays the same showdowns (default 1)",
    )
    parser.add_argument("--config", metavar="FILE", help="unit config to start from")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")


def command(args) -> int:
    config = load_config(args.config)  # a ConfigError: the scaffold's, exit 1
    figures = simulate(args.showdowns, args.seed, config)
    examples = figures.pop("_wrong_examples", [])
    for line in examples:
        print(f"WRONG {line}", file=sys.stderr)
    if args.json:
        print(json.dumps(figures))
    else:
        print(format_summary(figures, args.seed))
    failed = (
        figures["wrong"] > 0 or figures["false_starts_caught"] < figures["false_starts_injected"]
    )
    return 1 if failed else 0


def format_summary(figures: dict, seed: int) -> str:
    latency = figures["decision_latency_us"]
    return "\n".join(
        [
            f"{figures['showdowns']} showdowns (seed {seed}) on the real machine and board, "
            f"mock pins, virtual time; settle window {SIM_TIMING['settle_s'] * 1000:g} ms, "
            f"callbacks up to {MAX_DELAY_US // 1000} ms late",
            f"  decisions right:  {figures['correct']}    wrong: {figures['wrong']}",
            f"  false starts:     {figures['false_starts_caught']} caught of "
            f"{figures['false_starts_injected']} injected",
            f"  ties:             {figures['ties']}    timeouts: {figures['timeouts']}",
            f"  decision latency: p50 {latency['p50']} us, p99 {latency['p99']} us, "
            f"max {latency['max']} us (edge arrival to decision, wall time)",
            f"  CPU:              {figures['cpu_us_per_showdown']} us per showdown",
        ]
    )
