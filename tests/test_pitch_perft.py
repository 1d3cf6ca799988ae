"""Pitch's perft goldens: the number of positions N decisions from seeded positions.

Each file of tests/data/pitch_perft/ is ``# what it is``, one ``notation LINE``
(a revealed notation) and ``perft DEPTH COUNT`` lines. A changed count is a
changed rule: check the change, then rewrite the files with
``PYTHONPATH=. python tests/test_pitch_perft.py``.
"""

import random
import sys
from pathlib import Path

import pytest

from engine.pitch import PitchGame
from engine.pitch.game import Phase
from engine.pitch.perft import divide, perft

GOLDEN = Path(__file__).parent / "data" / "pitch_perft"


def read_golden(path):
    notation, counts = None, {}
    for line in path.read_text(encoding="utf-8").splitlines():
        key, _, rest = line.partition(" ")
        if key == "notation":
            notation = rest
        elif key == "perft":
            depth, count = rest.split()
            counts[int(depth)] = int(count)
    return notation, counts


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.txt")), ids=lambda p: p.stem)
def test_perft_matches_the_golden_counts(path):
    notation, counts = read_golden(path)
    game = PitchGame.from_notation(notation)
    assert counts and {depth: perft(game, depth) for depth in counts} == counts
    assert game.notation(reveal=True) == notation  # perft leaves the game as it was


def test_the_goldens_cover_every_phase():
    phases = {PitchGame.from_notation(read_golden(p)[0]).phase for p in GOLDEN.glob("*.txt")}
    assert phases == {Phase.BID, Phase.STOCK, Phase.BURN, Phase.PLAY}


def test_perft_one_of_the_first_bid_is_a_pass_and_seven_bids_and_divide_sums_to_perft():
    game = PitchGame.new(seed=1, dealer=0)
    assert perft(game, 1) == 8 and perft(game, 0) == 1
    # Two bids: 8 after a pass, 7 .. 2 after 4 .. 9, and the 4 trumps after the Moon.
    assert perft(game, 2) == 8 + 7 + 6 + 5 + 4 + 3 + 2 + 4
    assert sum(divide(game, 3).values()) == perft(game, 3)
    with pytest.raises(ValueError, match="perft depth must be 0 or more, not -1"):
        perft(game, -1)


# -- the goldens' positions, and how to write them -------------------------------------------

#: name -> (what it is, house rules, seed, where the walk stops, depths)
POSITIONS = {
    "bid_start": ("the first bid of seed 1, dealer 0", "-", 1, Phase.BID, 6),
    "stock": ("the pitcher keeps or gives the stock", "-", 0, Phase.STOCK, 9),
    "burn": ("a seat with more than 6 trumps burns", "-", 1, Phase.BURN, 9),
    "play": ("the first lead of trick play", "-", 0, Phase.PLAY, 9),
    "play_house": (
        "trick play, jokers unmarked, the 2 to its holder, the lead to the partner",
        "jokers=unmarked,low=holder,lead=partner",
        0,
        Phase.PLAY,
        10,
    ),
}


def walk(rules, seed, phase):
    """A seeded game played at random (no Moon) until ``phase``; for play_house one trick more."""
    game = PitchGame.new(seed=seed, house_rules=rules, dealer=0 if phase is Phase.BID else None)
    rng = random.Random(seed)
    while game.phase is not phase or (rules != "-" and not game.tricks and phase is Phase.PLAY):
        legal = [a for a in game.legal_actions() if str(a) != "bid moon"]
        game.apply(rng.choice(legal))
    return game


def write_goldens():
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, (what, rules, seed, phase, depth) in POSITIONS.items():
        game = walk(rules, seed, phase)
        lines = [f"# {what}", f"notation {game.notation(reveal=True)}"]
        lines += [f"perft {d} {perft(game, d)}" for d in range(1, depth + 1)]
        (GOLDEN / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_goldens()
    sys.exit(0)
