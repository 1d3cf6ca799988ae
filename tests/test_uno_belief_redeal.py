"""``Belief.redeal``: one opponent's hand of a world dealt again from itself and
the draw pile, the rest of the world as it was."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.uno.belief import Belief, Fact
from engine.uno.bots import HeuristicBot
from engine.uno.cards import Card, Colour, Rank
from engine.uno.game import Game
from engine.uno.player_view import PlayerView
from engine.uno.search_bot import SearchBot
from engine.uno.search_plays import heuristic_would
from engine.uno.tables import match_key
from tests.test_uno_belief import held_facts_hold


def _observed(seed: int, players: int, turns: int) -> tuple[Game, Belief, PlayerView]:
    """A round of HeuristicBots ``turns`` decisions in, player 0's belief fed."""
    game = Game.new(players, "classic", seed=seed)
    belief = Belief(0, reads_plays=True)
    bot = HeuristicBot()
    for _ in range(turns):
        if game.round_over:
            break
        player = game.to_act
        if player is None:
            game.apply(game.legal_actions()[0])
            continue
        action = bot.act(game, player)
        if player == 0:
            view = PlayerView(game, 0)
            belief.observe(view)
            belief.decided(view, action)
        game.apply(action)
    view = PlayerView(game, 0)
    belief.observe(view)
    return game, belief, view


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([3, 4]), st.integers(0, 60), st.integers(0, 99))
def test_a_redeal_changes_only_that_hand_and_the_draw_pile(seed, players, turns, luck):
    game, belief, view = _observed(seed, players, turns)
    if game.round_over or game.to_act != 0:
        return
    rng = random.Random(luck)
    hands, draw = belief.sample(view, rng)
    opponent = 1 + luck % (players - 1)
    before = [h[:] for h in hands], draw[:]
    new_hands, new_draw = belief.redeal(hands, draw, opponent, rng)
    assert (hands, draw) == before  # not changed in place
    for p in range(players):
        if p != opponent:
            assert new_hands[p] == hands[p]
    assert len(new_hands[opponent]) == len(hands[opponent])
    assert len(new_draw) == len(draw)
    assert Counter(new_hands[opponent] + new_draw) == Counter(hands[opponent] + draw)
    assert held_facts_hold(belief, opponent, new_hands[opponent])


def test_a_redeal_deals_anew():
    _game, belief, view = _observed(3, 4, 0)
    rng = random.Random(5)
    hands, draw = belief.sample(view, rng)
    dealt = {tuple(sorted(belief.redeal(hands, draw, 2, rng)[0][2])) for _ in range(20)}
    assert len(dealt) > 10


def test_a_redeal_that_cannot_meet_the_facts_keeps_the_world():
    belief = Belief(0)
    belief.facts = {1: [Fact(match_key(Colour.RED, Rank.FIVE), 2, 2)]}
    hands = [[int(Card.parse("B1"))], [int(Card.parse("R7")), int(Card.parse("R8"))]]
    draw = [int(Card.parse("R9"))]
    assert belief.redeal(hands, draw, 1, random.Random(2)) == (hands, draw)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 60), st.integers(0, 99))
def test_the_search_bot_mends_only_the_hands_that_disagree(seed, turns, luck):
    game, belief, view = _observed(seed, 4, turns)
    if game.round_over or game.to_act != 0:
        return
    rng = random.Random(luck)
    hands, draw = belief.sample(view, rng)
    mended, pile = SearchBot.mend(belief, hands, draw, 50, rng)
    assert Counter(c for h in mended for c in h) + Counter(pile) == Counter(
        c for h in hands for c in h
    ) + Counter(draw)
    for p in range(4):
        plays = [play for play in belief.plays if play.player == p]
        if all(heuristic_would(play, hands[p]) for play in plays):
            assert mended[p] == hands[p]
