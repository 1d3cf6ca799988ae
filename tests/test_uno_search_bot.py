"""The search bot ("strong", engine.uno.search_bot): legal, blind to what its
player cannot see, repeatable with the same seed."""

import copy
import random

import pytest

from engine.uno import FAMILY, new_game
from engine.uno.belief import Belief
from engine.uno.bots import HeuristicBot
from engine.uno.game import Game
from engine.uno.notation import Position
from engine.uno.player_view import PlayerView
from engine.uno.search_bot import SearchBot, _playout, greedy_action, world_game


def scrambled(game: Game, player: int, rng: random.Random) -> Game:
    """The same game as ``player`` sees it, with the other hands, the draw pile
    and the shuffle seed dealt anew."""
    position = Position.parse(game.notation())
    hidden = [c for p, h in enumerate(position.hands) if p != player for c in h] + list(
        position.draw
    )
    rng.shuffle(hidden)
    hands = []
    for p, hand in enumerate(position.hands):
        if p == player:
            hands.append(list(hand))
        else:
            hands.append(hidden[: len(hand)])
            del hidden[: len(hand)]
    wd4_legal = position.wd4_legal
    if wd4_legal is not None:
        wd4_legal = rng.random() < 0.5
    other = position._replace(
        hands=hands, draw=hidden, seed=rng.getrandbits(32), wd4_legal=wd4_legal
    )
    return Game.from_notation(other.format())


def play_round(game, agents, rng, check=None, limit=400):
    decisions = 0
    while not game.round_over and decisions < limit:
        decisions += 1
        player = game.to_act
        if player is None:
            game.apply(rng.choice(game.legal_actions()))
            continue
        if check is not None:
            check(game, player)
        action = agents[player].act(game, player)
        assert action in game.legal_actions()
        game.apply(action)
    return game


@pytest.mark.parametrize(
    ("players", "variant", "deals"), [(2, "classic", 2), (3, "showdown", 1), (4, "classic", 2)]
)
def test_its_choices_are_legal(players, variant, deals):
    rng = random.Random(players)
    for seed in range(deals):
        game = Game.new(players, variant, seed=seed)
        agents = [HeuristicBot() for _ in range(players)]
        agents[seed % players] = SearchBot(random.Random(seed), playouts=8)
        play_round(game, agents, rng)


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_it_never_reads_hidden_cards(seed):
    """At each of its decisions a twin (same history, same rng state) is shown
    the same view of a game whose hidden cards and seed differ: same choice.
    (A bot that dealt its worlds from the real hands fails this: with any
    margin enough to overrule the heuristic, it chooses otherwise.)"""
    rng = random.Random(seed)
    game = Game.new(2, "classic", seed=seed)
    bot = SearchBot(random.Random(9), playouts=24, confidence=0.0)
    agents = [bot, HeuristicBot()]

    def check(game, player):
        if player != 0:
            return
        other = scrambled(game, 0, rng)
        assert PlayerView(other, 0).hand == PlayerView(game, 0).hand
        assert copy.deepcopy(bot).act(other, 0) == copy.deepcopy(bot).act(game, 0)

    play_round(game, agents, rng, check)


def test_the_same_seed_plays_the_same_round():
    def moves(seed):
        game = Game.new(2, "classic", seed=5)
        agents = [SearchBot(random.Random(seed), playouts=8), HeuristicBot()]
        seen = []
        while not game.round_over:
            player = game.to_act
            action = agents[player].act(game, player)
            seen.append(str(action))
            game.apply(action)
        return seen

    assert moves(7) == moves(7)


def test_a_world_is_the_view_with_the_hidden_cards_filled_in():
    game = Game.new(3, "showdown", seed=8)
    player = game.to_act
    view = PlayerView(game, player)
    belief = Belief(player)
    belief.observe(view)
    hands, draw = belief.sample(view, random.Random(3))
    world = world_game(view, hands, draw, seed=1)
    assert PlayerView(world, player).legal_actions() == view.legal_actions()
    assert world.hand_sizes == game.hand_sizes
    assert world.discard_pile == game.discard_pile
    assert world.hand(player) == game.hand(player)


def test_the_playout_policy_plays_legally_and_calls_uno():
    game = Game.from_notation("classic R5,B5/G3,Y9,Y3 G7 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    assert str(greedy_action(game, game.legal_actions())) == "R5 uno"


def test_party_falls_back_to_the_heuristic():
    game = new_game(4, "party", seed=3)
    bot = SearchBot(random.Random(1))
    player = game.waiting_for[0]
    assert bot.act(game, player) == HeuristicBot().act(game, player)


def test_the_family_makes_strong_bots():
    bot = FAMILY.make_bot("strong", "s1", random.Random(1))
    assert isinstance(bot, SearchBot) and bot.name == "s1"
    assert "strong" in FAMILY.bot_kinds


def test_playouts_must_be_a_whole_number():
    with pytest.raises(
        ValueError, match="playouts of bot 'strong' must be a whole number >= 1, not 0"
    ):
        SearchBot(random.Random(1), playouts=0)


@pytest.mark.parametrize("depth", [-1, 1.5, True, "2"])
def test_depth_must_be_a_whole_number_of_turns(depth):
    with pytest.raises(
        ValueError, match=f"depth of bot 'strong' must be a whole number >= 0, not {depth!r}"
    ):
        SearchBot(random.Random(1), depth=depth)


def test_a_playout_that_cannot_end_stops_with_the_fewest_cards():
    # Every card is held, the top asks for red and nobody holds red, a 9 or a wild:
    # each turn's draw is skipped (nothing to draw) and the turn passes, for ever.
    game = Game.from_notation("classic B1,B2/G3/Y4,Y5,Y6 - R9 R + 0 play - - 0,0,0 2 1 500 - 1:0")
    assert _playout(game, random.Random(1)) == 1
