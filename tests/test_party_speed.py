"""``showdown speed --variant party``: UNO Party!'s throughput over every player's moves."""

import json

import pytest

from engine.apps.cli import main
from engine.apps.speed import players_error, run

KEYS = [
    "decisions_per_game",
    "decisions_per_s",
    "games",
    "games_per_s",
    "seconds",
    "turns_per_game",
]


# Seed 7 deals a short first round (about 1,100 decisions): random play in
# Party! makes rounds of very different lengths.


def test_party_speed_has_the_same_keys_and_is_seeded():
    result = run(games=1, players=8, seed=7, variant="party")
    assert sorted(result) == KEYS and result["games"] == 1
    again = run(games=1, players=8, seed=7, variant="party")
    assert (again["decisions_per_game"], again["turns_per_game"]) == (
        result["decisions_per_game"],
        result["turns_per_game"],
    )
    assert result["decisions_per_game"] >= result["turns_per_game"] > 0


def test_party_speed_players_range_is_the_variant_s():
    assert players_error("party", 16) is None and players_error("classic", 10) is None
    assert players_error("showdown", 11) == (
        "argument --players: must be a whole number from 2 to 10, not '11'"
    )


def test_showdown_speed_variant_party_prints_json_with_the_documented_keys(capsys):
    argv = [
        "speed",
        "--variant",
        "party",
        "--players",
        "8",
        "--games",
        "1",
        "--seed",
        "7",
        "--json",
    ]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert sorted(result) == KEYS and result["games"] == 1


def test_showdown_bench_old_name_runs_party_too(capsys):
    assert (
        main(["bench", "--variant", "party", "--players", "8", "--games", "1", "--seed", "7"]) == 0
    )
    captured = capsys.readouterr()
    assert captured.err == "showdown bench is now showdown speed\n"
    assert captured.out.startswith("party, 8 players, prefer-play: ")


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["speed", "--variant", "party", "--players", "17"],
            "argument --players: must be a whole number from 2 to 16, not '17'",
        ),
        (
            ["speed", "--players", "12", "--variant", "classic"],
            "argument --players: must be a whole number from 2 to 10, not '12'",
        ),
    ],
)
def test_players_are_checked_against_the_variant(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"showdown speed: error: {message}"
