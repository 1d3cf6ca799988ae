"""The simulator: its ground truth, its verdict on the real machine, and that it
would notice a machine that decided wrongly."""

import json
import random

import pytest

import firmware_host.core.machine as machine
from firmware_host.commands.cli import main
from firmware_host.sim.simulate import Plan, plan_round, simulate, truth

KEYS = [
    "showdowns",
    "correct",
    "wrong",
    "false_starts_injected",
    "false_starts_caught",
    "ties",
    "timeouts",
    "decision_latency_us",
    "cpu_us_per_showdown",
]


def rule(press_a, press_b):
    plan = Plan("test", {"a": press_a, "b": press_b}, {"a": 0, "b": 0})
    return truth(plan, threshold_us=200, min_reaction_us=100_000)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (250_000, 200_000, ("faster", "b")),
        (200_000, 200_199, ("tie",)),
        (200_000, 200_200, ("faster", "a")),
        (300_000, 300_000, ("tie",)),
        (-5_000, 200_000, ("false_start", "a")),
        (-5_000, -4_000, ("false_start", "a")),
        (-5_000, -4_999, ("tie",)),
        (99_999, 250_000, ("false_start", "a")),
        (100_000, 250_000, ("faster", "a")),
        (None, 310_000, ("faster", "b")),
        (None, None, ("timeout",)),
    ],
)
def test_the_ground_truth_rules(a, b, expected):
    assert rule(a, b) == expected


def test_plans_cover_every_kind_and_keep_early_presses_inside_the_countdown():
    rng = random.Random(5)
    plans = [plan_round(rng, -4_500_000, 200) for _ in range(2000)]
    assert {p.kind for p in plans} == {
        "normal",
        "one_presses",
        "near_tie",
        "false_start",
        "both_false_start",
        "late_false_start",
        "too_fast",
        "timeout",
    }
    presses = [t for p in plans for t in p.press_us.values() if t is not None]
    assert min(presses) >= -4_100_000
    assert all(0 <= d <= 20_000 for p in plans for d in p.delay_us.values())
    late = [p for p in plans if p.kind == "late_false_start"]
    assert all(p.press_us[s] + p.delay_us[s] > 0 for p in late for s in "ab" if p.press_us[s] < 0)


def test_the_real_machine_decides_every_simulated_showdown_right():
    figures = simulate(400, seed=11)
    assert list(figures) == KEYS
    assert figures["showdowns"] == 400
    assert (figures["correct"], figures["wrong"]) == (400, 0)
    assert figures["false_starts_caught"] == figures["false_starts_injected"] > 0
    assert figures["ties"] > 0 and figures["timeouts"] > 0
    assert set(figures["decision_latency_us"]) == {"p50", "p99", "max"}


def test_the_counts_are_the_same_for_the_same_seed():
    one, two = simulate(60, seed=3), simulate(60, seed=3)
    counts = KEYS[:7]
    assert [one[k] for k in counts] == [two[k] for k in counts]
    assert [one[k] for k in counts] != [simulate(60, seed=4)[k] for k in counts]


def test_a_machine_that_ignored_the_tie_threshold_would_be_caught(monkeypatch):
    real = machine.decide

    def no_ties(presses, go_tick, **kwargs):
        return real(presses, go_tick, **{**kwargs, "tie_threshold_us": 0})

    monkeypatch.setattr(machine, "decide", no_ties)
    figures = simulate(100, seed=11)  # 8 of them wrong
    assert figures["wrong"] > 0
    assert figures["_wrong_examples"]


def test_simulate_command_prints_exactly_the_json_keys(capsys):
    assert main(["simulate", "--showdowns", "40", "--seed", "2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert list(figures) == KEYS
    assert figures["wrong"] == 0


def test_simulate_command_exits_1_when_a_decision_is_wrong(monkeypatch, capsys):
    real = machine.decide

    def blind(presses, go_tick, **kwargs):
        return real(presses, go_tick, **{**kwargs, "min_reaction_ms": 0})

    monkeypatch.setattr(machine, "decide", blind)
    assert main(["simulate", "--showdowns", "50", "--seed", "2"]) == 1  # 3 of them wrong
    captured = capsys.readouterr()
    assert "WRONG sim-" in captured.err
    assert "decisions right:" in captured.out


def test_simulate_command_refuses_zero_showdowns(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--showdowns", "0"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "showdown-unit simulate: error: argument --showdowns: must be a whole number >= 1, not '0'"
    )


def test_simulate_command_says_a_bad_config_in_one_line(tmp_path, capsys):
    bad = tmp_path / "unit.toml"
    bad.write_text("[timing]\nsettle_s = -1\n")
    assert main(["simulate", "--config", str(bad)]) == 1
    assert capsys.readouterr().err == f"error: {bad}: timing.settle_s: must be >= 0.0, not -1.0\n"
