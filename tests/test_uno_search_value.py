"""What a playout is worth to the search bot (engine.uno.search_bot): won or
lost (through engine.uno.playout's public ``play_out``); and the test that
compares candidates on weighted values."""

import random

import pytest

from engine.uno.actions import Action
from engine.uno.game import Game
from engine.uno.playout import play_out
from engine.uno.search_bot import PLAYOUT_LIMIT, SearchBot, _kernel_playout

#: Player 1 goes out with R3 at once; player 0 holds 2 cards, 2 and 3 hold 3.
GOES_OUT = (
    "classic R1,B1/R3/G4,Y4,Y6/G8,Y6,G7 R2,R4,R6,R7,R8,B3,B4,B5 R5 R + 1 play - - 0,0,0,0 1 1 500"
    " - 1:0"
)


@pytest.mark.parametrize(("me", "value"), [(0, 0.0), (1, 1.0), (2, 0.0), (3, 0.0)])
def test_a_playout_is_won_or_lost(me, value):
    game = Game.from_notation(GOES_OUT)
    assert _kernel_playout(game, random.Random(1), me) == value
    assert game.notation() == GOES_OUT  # played out on a copy


def test_the_playout_plays_play_outs_round():
    for seed in range(10):
        game = Game.new(4, "classic", seed=seed)
        result = play_out(game, "heuristic", random.Random(seed), max_decisions=PLAYOUT_LIMIT)
        assert _kernel_playout(game, random.Random(seed), result.winner) == 1.0


def test_pick_weighs_values_not_worlds_won():
    """Five small credits do not outweigh a win lost (counted as worlds, 5 to 1,
    they would)."""
    a, b = Action.parse("R5"), Action.parse("draw")
    results = {a: [1.0, 0, 0, 0, 0, 0], b: [0, 0.3, 0.3, 0.3, 0.3, 0.3]}
    assert SearchBot.pick(results, a, 1.0) is a
    results = {a: [0.0] * 6, b: [0, 0.3, 0.3, 0.3, 0.3, 0.3]}
    assert SearchBot.pick(results, a, 1.0) is b
