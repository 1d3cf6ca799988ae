"""``showdown speed --variant pitch``: Pitch's hands per second, dealt by its family."""

import json

import pytest

from engine.apps.cli import main
from engine.apps.speed import players_error, players_taken, run

KEYS = [
    "decisions_per_game",
    "decisions_per_s",
    "games",
    "games_per_s",
    "seconds",
    "turns_per_game",
]


def test_pitch_speed_plays_seeded_hands_of_four():
    result = run(games=40, seed=3, variant="pitch")
    assert sorted(result) == KEYS and result["games"] == 40
    again = run(games=40, seed=3, variant="pitch", players=4)
    assert again["decisions_per_game"] == result["decisions_per_game"]
    # at least a bid each and a trump; a turn each time the seat to act changes
    assert result["decisions_per_game"] >= result["turns_per_game"] >= 5


def test_pitch_takes_four_players_only():
    assert players_taken("pitch") == (4,)
    assert players_error("pitch", 4) is None
    assert players_error("pitch", 2) == "argument --players: pitch takes exactly 4 players, not '2'"


def test_showdown_speed_variant_pitch_prints_a_line_and_json(capsys):
    assert main(["speed", "--variant", "pitch", "--games", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pitch, 4 players, prefer-play: ") and out.count("\n") == 1
    assert main(["speed", "--variant", "pitch", "--games", "5", "--json"]) == 0
    assert sorted(json.loads(capsys.readouterr().out)) == KEYS


def test_showdown_speed_refuses_other_player_counts_for_pitch(capsys):
    with pytest.raises(SystemExit) as info:
        main(["speed", "--variant", "pitch", "--players", "3"])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "showdown speed: error: argument --players: pitch takes exactly 4 players, not '3'"
    )
