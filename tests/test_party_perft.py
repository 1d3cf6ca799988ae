"""Golden (player, action) counts for UNO Party! (like chess perft), from
tests/data/perft_party.txt: perft over ``legal_moves()``, out-of-turn moves included."""

from pathlib import Path

import pytest

from engine.uno.party import PartyGame

PERFT_FILE = Path(__file__).parent / "data" / "perft_party.txt"


def perft(game, depth):
    """Leaf positions reached by every sequence of ``depth`` legal (player, action) moves."""
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for player, action in moves:
        child = game.copy()
        child.apply(action, player)
        total += perft(child, depth - 1)
    return total


def lines():
    return [
        line for line in PERFT_FILE.read_text().splitlines() if line and not line.startswith("#")
    ]


def cases():
    for line in lines():
        notation, *counts = line.split(" ;")
        for count in counts:
            depth, expected = count[1:].split()
            yield pytest.param(
                notation, int(depth), int(expected), id=f"{notation[6:30]}...-D{depth}"
            )


@pytest.mark.parametrize("notation, depth, expected", list(cases()))
def test_perft(notation, depth, expected):
    game = PartyGame.from_notation(notation)
    assert perft(game, depth) == expected
    assert game.notation(reveal=True) == notation  # the copies left the original alone


def test_the_golden_file_covers_every_party_state():
    notations = [line.split(" ;")[0] for line in lines()]
    assert len(notations) >= 10
    phases = {n.split(" ")[7].split(":")[0] for n in notations}
    assert phases == {"play", "drawn", "penalty", "colour", "pile", "point"}
    party = " ".join(n.split(" ")[16] for n in notations)
    for part in ("link=", "pile=", "out=", "point="):
        assert part in party
    assert any(" 1:speed " in f" {p}:{a}" for n in notations for p, a in _moves(n))


def _moves(notation):
    return PartyGame.from_notation(notation).legal_moves()
