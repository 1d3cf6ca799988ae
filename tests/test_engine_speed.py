"""``showdown speed`` (the engine's throughput; ``showdown bench`` is its old name)."""

import itertools
import json

import pytest

from engine.apps.cli import main
from engine.apps.speed import run


def test_speed_counts_games_decisions_and_turns():
    result = run(games=30, players=3, policy="prefer-play", seed=4, variant="classic")
    assert result["games"] == 30
    again = run(games=30, players=3, policy="prefer-play", seed=4, variant="classic")
    assert (again["decisions_per_game"], again["turns_per_game"]) == (
        result["decisions_per_game"],
        result["turns_per_game"],
    )
    assert result["decisions_per_game"] >= result["turns_per_game"] > 0


def test_speed_runs_until_the_clock_passes_the_deadline():
    ticks = itertools.count()  # each reading of the clock is one second later
    # prefer-play: rounds of about 80 decisions (uniform play's take 100,000)
    result = run(seconds=3, clock=lambda: next(ticks), seed=1, policy="prefer-play")
    # start at 0; checks at 1, 2 pass (two games); the check at 3 stops; end reads 4.
    assert (result["games"], result["seconds"], result["games_per_s"]) == (2, 4, 0.5)


def test_speed_wants_games_or_seconds():
    with pytest.raises(ValueError, match="give games or seconds"):
        run()
    with pytest.raises(ValueError, match="policy must be one of uniform, prefer-play"):
        run(games=1, policy="lazy")


def test_showdown_speed_json_has_exactly_the_documented_keys(capsys):
    assert (
        main(
            [
                "speed",
                "--games",
                "5",
                "--players",
                "2",
                "--policy",
                "uniform",
                "--variant",
                "classic",
                "--seed",
                "3",
                "--json",
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert sorted(result) == [
        "decisions_per_game",
        "decisions_per_s",
        "games",
        "games_per_s",
        "seconds",
        "turns_per_game",
    ]
    assert result["games"] == 5


def test_showdown_speed_prints_one_line(capsys):
    assert main(["speed", "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("showdown, 2 players, prefer-play: ")
    assert out.count("\n") == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["speed", "--games", "0"], "argument --games: must be a whole number >= 1, not '0'"),
        (
            ["speed", "--players", "11"],
            "argument --players: must be a whole number from 2 to 10, not '11'",
        ),
        (
            ["speed", "--games", "1", "--seconds", "1"],
            "argument --seconds: not allowed with argument --games",
        ),
        (
            ["speed", "--seconds", "-1"],
            "argument --seconds: must be a number of seconds > 0, not '-1'",
        ),
    ],
)
def test_showdown_speed_rejects_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"showdown speed: error: {message}"


def test_showdown_bench_is_the_old_name_of_speed_and_says_so(capsys):
    assert main(["bench", "--games", "2", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "showdown bench is now showdown speed\n"
    assert json.loads(captured.out)["games"] == 2


def test_the_old_name_is_not_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "speed" in out and "bench" not in out
