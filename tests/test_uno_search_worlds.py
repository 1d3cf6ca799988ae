"""A decision's worlds (engine.uno.search_worlds): a copy with the hidden
cards replaced is the same game as one built through the notation."""

import random

import pytest

from engine.uno.belief import Belief
from engine.uno.bots import HeuristicBot
from engine.uno.cards import Card
from engine.uno.game import Game, Phase
from engine.uno.player_view import PlayerView
from engine.uno.search_worlds import Worlds, world_game


def positions(players: int, variant: str, seed: int, count: int):
    """The views of ``count`` decisions of a heuristic round, every few turns."""
    game = Game.new(players, variant, seed=seed)
    bot, luck = HeuristicBot(), random.Random(seed)
    seen = 0
    while not game.round_over and seen < count:
        player = game.to_act
        if player is None:
            game.apply(luck.choice(game.legal_actions()))
            continue
        if game.turns % 3 == 0 or game.phase is Phase.PENALTY:
            seen += 1
            yield game.copy(), player
        game.apply(bot.act(game, player))


@pytest.mark.parametrize(("players", "variant"), [(4, "classic"), (2, "showdown"), (3, "classic")])
def test_a_copied_world_is_the_world_built_from_the_notation(players, variant):
    checked = 0
    for seed in range(3):
        for game, player in positions(players, variant, seed, 8):
            view = PlayerView(game, player)
            belief = Belief(player)
            belief.observe(view)
            worlds = Worlds(view)
            rng = random.Random(seed)
            for _ in range(3):
                hands, draw = belief.sample(view, rng)
                shuffles = rng.getrandbits(32)
                world = worlds.deal(hands, draw, shuffles)
                built = world_game(view, hands, draw, shuffles)
                assert world.notation() == built.notation()
                assert sorted(world._deck) == sorted(built._deck)
                assert world.legal_actions() == built.legal_actions()
                checked += 1
    assert checked >= 30


def test_a_penalty_world_knows_whether_its_wild_draw_four_was_legal():
    game = Game.from_notation(
        "classic R5,B5/G3,Y9,Y3 G7,R7 R1,W+4 R + 0 penalty:4:legal - - 0,0 1 1 500 - 1:0"
    )
    view = PlayerView(game, 0)
    worlds = Worlds(view)
    mine = [int(Card.parse(c)) for c in ("R5", "B5")]
    worlds.deal([mine, [int(Card.parse(c)) for c in ("G3", "Y9", "Y3")]], [], 1)
    for held, legal in (("G3,Y9,Y3", True), ("G3,R7,Y3", False)):
        hands = [mine, [int(Card.parse(c)) for c in held.split(",")]]
        rest = [int(Card.parse(c)) for c in ("G7", "R7", "Y9") if c not in held]
        world = worlds.deal(hands, rest, 1)
        assert world._wd4_legal is legal
        assert world.notation() == world_game(view, hands, rest, 1).notation()
