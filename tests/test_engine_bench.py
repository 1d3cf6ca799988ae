"""``showdown bench`` and the engine's command line."""

import itertools
import json

import pytest

from engine.apps.bench import run
from engine.apps.cli import main


def test_bench_counts_games_decisions_and_turns():
    result = run(games=30, players=3, policy="prefer-play", seed=4, variant="classic")
    assert result["games"] == 30
    again = run(games=30, players=3, policy="prefer-play", seed=4, variant="classic")
    assert (again["decisions_per_game"], again["turns_per_game"]) == (
        result["decisions_per_game"], result["turns_per_game"])
    assert result["decisions_per_game"] >= result["turns_per_game"] > 0


def test_bench_runs_until_the_clock_passes_the_deadline():
    ticks = itertools.count()  # each reading of the clock is one second later
    result = run(seconds=3, clock=lambda: next(ticks), seed=1)
    # start at 0; checks at 1, 2 pass (two games); the check at 3 stops; end reads 4.
    assert (result["games"], result["seconds"], result["games_per_s"]) == (2, 4, 0.5)


def test_bench_wants_games_or_seconds():
    with pytest.raises(ValueError, match="give games or seconds"):
        run()
    with pytest.raises(ValueError, match="policy must be one of uniform, prefer-play"):
        run(games=1, policy="lazy")


def test_showdown_bench_json_has_exactly_the_documented_keys(capsys):
    assert main(["bench", "--games", "5", "--players", "2", "--policy", "uniform",
                 "--variant", "classic", "--seed", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert sorted(result) == ["decisions_per_game", "games", "games_per_s", "seconds",
                              "turns_per_game"]
    assert result["games"] == 5


def test_showdown_bench_prints_one_line(capsys):
    assert main(["bench", "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("showdown, 2 players, prefer-play: ")
    assert out.count("\n") == 1


@pytest.mark.parametrize("argv", [["bench", "--games", "0"], ["bench", "--players", "11"],
                                  ["bench", "--games", "1", "--seconds", "1"],
                                  ["bench", "--seconds", "-1"]])
def test_showdown_bench_rejects_bad_arguments(argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
