"""What a playout is worth to the search bot (engine.uno.search_bot): won or
lost, or (a plan's ``credit``) a lost round ended with the fewest cards of the
losers worth a little; and the test that compares candidates on such values."""

import random

import pytest

from engine.uno import search_bot
from engine.uno.actions import Action
from engine.uno.bots import HeuristicBot
from engine.uno.game import Game
from engine.uno.player_view import PlayerView
from engine.uno.playout import play_out
from engine.uno.search_bot import PLAYOUT_LIMIT, SearchBot, _kernel_playout

#: Player 1 goes out with R3 at once; player 0 holds 2 cards, 2 and 3 hold 3.
GOES_OUT = (
    "classic R1,B1/R3/G4,Y4,Y6/G8,Y6,G7 R2,R4,R6,R7,R8,B3,B4,B5 R5 R + 1 play - - 0,0,0,0 1 1 500"
    " - 1:0"
)


@pytest.mark.parametrize(("me", "value"), [(0, 0.25), (1, 1.0), (2, 0.0), (3, 0.0)])
def test_a_lost_round_ended_nearest_the_winner_earns_the_credit(me, value):
    game = Game.from_notation(GOES_OUT)
    assert _kernel_playout(game, random.Random(1), me, 0.25) == (value, 1)
    assert game.notation() == GOES_OUT  # played out on a copy


def test_the_playout_plays_play_outs_round():
    for seed in range(10):
        game = Game.new(4, "classic", seed=seed)
        result = play_out(game, "heuristic", random.Random(seed), max_decisions=PLAYOUT_LIMIT)
        assert _kernel_playout(game, random.Random(seed), result.winner, 0.25) == (
            1.0,
            result.decisions,
        )


def test_pick_weighs_values_not_worlds_won():
    """Five small credits do not outweigh a win lost (counted as worlds, 5 to 1,
    they would)."""
    a, b = Action.parse("R5"), Action.parse("draw")
    results = {a: [1.0, 0, 0, 0, 0, 0], b: [0, 0.3, 0.3, 0.3, 0.3, 0.3]}
    assert SearchBot.pick(results, a, 1.0) is a
    results = {a: [0.0] * 6, b: [0, 0.3, 0.3, 0.3, 0.3, 0.3]}
    assert SearchBot.pick(results, a, 1.0) is b


def test_a_budget_of_steps_deals_no_world_after_it_is_spent(monkeypatch):
    calls = []
    real = search_bot._kernel_playout

    def counted(game, rng, me, credit):
        calls.append(1)
        return real(game, rng, me, credit)

    monkeypatch.setattr(search_bot, "_kernel_playout", counted)
    game = Game.new(4, "classic", seed=4)
    candidates = len(
        SearchBot.candidates(
            PlayerView(game, game.current),
            game.legal_actions(),
            HeuristicBot().act(game, game.current),
        )
    )
    assert candidates > 1
    SearchBot(random.Random(1), playouts=96, steps=1).act(game, game.current)
    assert len(calls) == candidates  # one world
    calls.clear()
    SearchBot(random.Random(1), playouts=96).act(game, game.current)
    assert len(calls) == 96 // candidates * candidates
