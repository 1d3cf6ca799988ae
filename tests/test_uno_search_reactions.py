"""What the search bot believes of reactions at the unit
(engine.uno.search_reactions), how it settles the showdown a candidate starts,
and which playouts it runs for which game (engine.uno.search_bot.plan_for)."""

import random

import pytest

from engine.uno.bots import HeuristicBot
from engine.uno.game import Game
from engine.uno.search_bot import (
    FOUR_PLAYERS,
    OTHER_GAMES,
    SHOWDOWN_GAMES,
    TWO_PLAYER_CLASSIC,
    SearchBot,
    plan_for,
)
from engine.uno.search_reactions import ReactionModel

SHOWDOWN_AHEAD = "showdown R5!2,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0"


def test_unseen_players_are_even():
    model = ReactionModel()
    assert model.chance_first(0, 1) == 0.5
    assert model.median_ms(3) == pytest.approx(230.0)


def test_a_slow_opponent_seen_is_beaten_more_often_and_the_chances_add_up():
    model = ReactionModel()
    model.know(0, 230.0)
    model.saw_showdown({0: 228.0, 1: 400.0})
    model.saw_showdown({0: None, 1: 410.0})  # no press: nothing learnt of 0
    assert model.median_ms(0) == pytest.approx(230.0)  # known, not learnt
    assert 230.0 < model.median_ms(1) < 400.0
    first = model.chance_first(0, 1)
    assert first > 0.8
    assert first + model.chance_first(1, 0) == pytest.approx(1.0)


def test_every_plan_plays_out_on_the_kernel():
    assert plan_for(2, False) is TWO_PLAYER_CLASSIC and TWO_PLAYER_CLASSIC.kernel
    assert plan_for(3, False) is OTHER_GAMES and OTHER_GAMES.kernel
    assert plan_for(4, False) is FOUR_PLAYERS and FOUR_PLAYERS.kernel
    assert plan_for(2, True) is SHOWDOWN_GAMES and SHOWDOWN_GAMES.kernel


@pytest.mark.parametrize(("opponent_ms", "sizes"), [(900.0, (1, 4)), (100.0, (3, 2))])
def test_a_candidates_showdown_goes_to_the_faster_as_believed(opponent_ms, sizes):
    bot = SearchBot(random.Random(1), reaction_ms=230.0)
    bot.reactions.know(0, 230.0)
    bot.reactions.know(1, opponent_ms)
    game = Game.from_notation(SHOWDOWN_AHEAD)
    game.apply("R5!2")
    bot._settle_showdown(game, random.Random(2))
    assert game.pending_showdown is None
    assert game.hand_sizes == sizes  # the slower takes the two cards


def test_the_bot_learns_from_the_showdowns_it_is_shown():
    bot = SearchBot(random.Random(1))
    bot.saw_showdown({1: 500.0})
    assert bot.reactions.median_ms(1) > 230.0


def test_it_searches_showdown_rounds_on_the_kernel_and_plays_legally():
    game = Game.new(2, "showdown", seed=4)
    agents = [SearchBot(random.Random(4), playouts=8), HeuristicBot()]
    luck = random.Random(4)
    for _ in range(60):
        if game.round_over:
            break
        player = game.to_act
        if player is None:
            game.apply(luck.choice(game.legal_actions()))
            continue
        action = agents[player].act(game, player)
        assert action in game.legal_actions()
        game.apply(action)
