"""Golden legal-action counts (like chess perft) from tests/data/perft.txt."""

from pathlib import Path

import pytest

from engine import Game

PERFT_FILE = Path(__file__).parent / "data" / "perft.txt"


def perft(game, depth):
    """Leaf positions reached by every sequence of ``depth`` legal actions."""
    actions = game.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        child = game.copy()
        child.apply(action)
        total += perft(child, depth - 1)
    return total


def cases():
    for line in PERFT_FILE.read_text().splitlines():
        if line and not line.startswith("#"):
            notation, *counts = line.split(" ;")
            for count in counts:
                depth, expected = count[1:].split()
                yield pytest.param(
                    notation, int(depth), int(expected), id=f"{notation[:24]}...-D{depth}"
                )


@pytest.mark.parametrize("notation, depth, expected", list(cases()))
def test_perft(notation, depth, expected):
    game = Game.from_notation(notation)
    assert perft(game, depth) == expected
    assert game.notation() == notation  # the copies left the original alone


def test_the_golden_file_covers_every_phase():
    phases = {
        line.split(" ")[7].split(":")[0]
        for line in PERFT_FILE.read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert phases == {"play", "drawn", "penalty", "colour", "face"}
    assert any(" 0v" in line for line in PERFT_FILE.read_text().splitlines())
