"""The notation: exact round trips, the documented examples, clear errors."""

import doctest
import re
from pathlib import Path

import pytest

from engine import Game, NotationError
from engine.uno import read_game

DOC = Path(__file__).parent.parent / "docs" / "notation.md"


def doc_examples():
    blocks = re.findall(r"```text\n(.*?)```", DOC.read_text(), flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line]


def test_the_doc_has_examples():
    assert len(doc_examples()) >= 8


@pytest.mark.parametrize("line", doc_examples())
def test_every_documented_example_reads_back_exactly(line):
    game = read_game(line)
    assert game.notation() == line
    game.check_invariants()


def test_the_documented_new_game_is_what_game_new_deals():
    assert doc_examples()[0] == Game.new(3, "showdown", seed=2024).notation()


def test_the_documented_sequences_follow_from_the_actions():
    examples = doc_examples()
    game = read_game(examples[1])
    game.apply("R5!2")
    assert game.notation() == examples[2]
    game.apply("loser 1")
    assert game.notation() == examples[3]
    game = read_game(examples[4])
    game.apply("W+4=B")
    assert game.notation() == examples[5]


def test_the_doc_python_examples_run():
    result = doctest.testfile(
        str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0 and result.attempted >= 5


GOOD = "classic R5,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0"


@pytest.mark.parametrize(
    "text, message",
    [
        (GOOD.rsplit(" ", 1)[0], "notation has 15 fields, expected 16"),
        (GOOD.replace("R5,B1", "R5,X1"), "invalid hands field 'R5,X1': invalid card 'X1'"),
        (GOOD.replace(" R + ", " Q + "), "invalid colour 'Q'"),
        (GOOD.replace(" R + ", " R * "), "invalid direction field '*': expected + or -"),
        (GOOD.replace(" play ", " jump "), "invalid phase field 'jump'"),
        (GOOD.replace(" play ", " penalty:x "), "invalid phase field 'x': expected a whole number"),
        (GOOD.replace(" 1 1 500 ", " 1 01 500 "), "invalid round field '01'"),
        (GOOD.replace("- 1:0", "fast 1:0"), "invalid house rules 'fast': unknown option 'fast'"),
        (GOOD.replace("1:0", "zz"), "invalid rng field 'zz'"),
        (GOOD.replace("classic", "uno", 1), "unknown variant 'uno'"),
        (
            GOOD.replace(" 0 play", " 2 play"),
            "inconsistent notation: player or dealer out of range",
        ),
        (GOOD.replace("0,0 1", "0,0,0 1"), "inconsistent notation: 3 scores for 2 players"),
        (GOOD.replace(" R + ", " - + "), "the colour is unnamed outside the colour phase"),
        (GOOD.replace(" play ", " penalty:2 "), "a penalty needs a Draw Two or Wild Draw Four"),
        (GOOD.replace(" play ", " over "), "the round's winner still holds cards"),
        (GOOD.replace("play - -", "play 5 -"), "uno player out of range"),
        (GOOD.replace("play - -", "play - 0v0:R2"), "the showdown needs two different players"),
        (GOOD.replace(" R1 ", " - "), "the discard pile is empty"),
        (
            "classic R5!2,B1/G3 Y3 R1 R + 0 play - - 0,0 1 1 500 - 1:0",
            "Showdown cards in a classic game",
        ),
        (42, "notation must be a str, not int"),
    ],
)
def test_bad_notation_names_what_is_wrong(text, message):
    with pytest.raises(NotationError) as info:
        read_game(text)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_notation_round_trips_for_every_phase():
    lines = [
        line.split(" ;")[0]
        for line in (Path(__file__).parent / "data" / "perft.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    for line in lines:
        assert read_game(line).notation() == line
