"""The search bot's belief (engine.uno.belief): the facts it learns from what
its player sees, and worlds that agree with every public fact."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.uno.actions import Action
from engine.uno.belief import Belief, Fact
from engine.uno.bots import HeuristicBot
from engine.uno.cards import Card, Colour, Rank
from engine.uno.game import Game
from engine.uno.player_view import PlayerView
from engine.uno.tables import PLAYABLE, match_key


def held_facts_hold(belief: Belief, opponent: int, hand: list[int]) -> bool:
    """Whether ``hand`` can be laid out in the facts' nested slots: for every fact,
    enough cards avoid it and every later fact (the slots nest, so this suffices)."""
    facts = belief.facts.get(opponent, [])
    reach = 0
    reaches = []
    for fact in facts:
        reach = min(max(reach, fact.covers), len(hand))
        reaches.append(reach)
    for j, need in enumerate(reaches):
        keys = [f.key for f in facts[j:]]
        free = sum(1 for c in hand if not any(PLAYABLE[k][c] for k in keys))
        if free < need:
            return False
    return True


def test_an_opponent_who_drew_and_kept_held_nothing_playable():
    # Player 0 plays R5; player 1 holds nothing red, no 5, no wild: it draws G2 and keeps it.
    game = Game.from_notation(
        "classic R5,B1,B2/G3,Y9 G2,Y1,Y2,Y3 R1 R + 0 play - - 0,0 1 1 500 - 1:0"
    )
    belief = Belief(0)
    view = PlayerView(game, 0)
    belief.observe(view)
    action = Action.parse("R5")
    belief.decided(view, action)
    game.apply(action)
    assert [str(a) for a in game.legal_actions()] == ["draw"]
    game.apply(Action.draw())  # G2 plays on nothing: the turn passes
    assert game.to_act == 0
    belief.observe(PlayerView(game, 0))
    assert belief.facts == {1: [Fact(match_key(Colour.RED, Rank.FIVE), 2, 2)]}
    hands, _ = belief.sample(PlayerView(game, 0), random.Random(1))
    red_five = PLAYABLE[match_key(Colour.RED, Rank.FIVE)]
    assert sum(1 for c in hands[1] if not red_five[c]) >= 2


def test_an_opponent_who_played_learns_nothing():
    game = Game.from_notation(
        "classic R5,B1,B2/G3,R9 G2,Y1,Y2,Y3 R1 R + 0 play - - 0,0 1 1 500 - 1:0"
    )
    belief = Belief(0)
    belief.observe(PlayerView(game, 0))
    belief.decided(PlayerView(game, 0), Action.parse("R5"))
    game.apply("R5")
    game.apply("R9")
    belief.observe(PlayerView(game, 0))
    assert belief.facts == {}


def test_a_new_round_forgets_the_facts():
    belief = Belief(0)
    belief.facts = {1: [Fact(0, 3, 3)]}
    game = Game.new(2, "classic", seed=3)
    belief.observe(PlayerView(game, 0))
    assert belief.facts == {}


def test_worlds_that_cannot_meet_the_facts_drop_the_oldest():
    game = Game.new(2, "classic", seed=3)
    view = PlayerView(game, 0)
    belief = Belief(0)
    belief.observe(view)
    # Nothing of any colour (nor a zero, nor a wild): no hand can meet it; with
    # the oldest (red) dropped, red cards other than zeros can.
    belief.facts = {1: [Fact(match_key(c, Rank.ZERO), 7, 7) for c in Colour]}
    hands, _ = belief.sample(view, random.Random(2))
    assert len(hands[1]) == 7
    assert [f.key for f in belief.facts[1]] == [match_key(c, Rank.ZERO) for c in Colour][1:]
    assert all(c >> 5 == Colour.RED for c in hands[1])


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 4),
    variant=st.sampled_from(["classic", "showdown"]),
)
def test_worlds_agree_with_every_public_fact(seed, players, variant):
    """Heuristic players (who draw only when they must) all round; at each of
    player 0's decisions its worlds keep its hand, every size, the unseen
    cards and the facts, and the real hands meet the facts too."""
    game = Game.new(players, variant, seed=seed)
    bots = [HeuristicBot() for _ in range(players)]
    belief = Belief(0)
    rng = random.Random(seed)
    decisions = 0
    while not game.round_over and decisions < 300:
        decisions += 1
        player = game.to_act
        if player is None:
            game.apply(rng.choice(game.legal_actions()))
            continue
        action = bots[player].act(game, player)
        if player == 0:
            view = PlayerView(game, 0)
            belief.observe(view)
            for p in range(1, players):
                assert held_facts_hold(belief, p, [int(c) for c in game.hand(p)]), belief
            hands, draw = belief.sample(view, rng)
            assert hands[0] == [int(c) for c in view.hand]
            assert [len(h) for h in hands] == list(view.hand_sizes)
            assert Counter(c for h in hands[1:] for c in h) + Counter(draw) == view.unseen_cards()
            for p in range(1, players):
                keys = belief.slot_keys(p, len(hands[p]))
                assert held_facts_hold(belief, p, hands[p])
                assert len(keys) == len(hands[p])
            belief.decided(view, action)
        game.apply(action)


def test_the_same_seed_samples_the_same_world():
    game = Game.new(3, "classic", seed=11)
    view = PlayerView(game, game.to_act)
    belief = Belief(view.player)
    belief.observe(view)
    assert belief.sample(view, random.Random(5)) == belief.sample(view, random.Random(5))
    assert Card.parse("R5") in Game.new(2, "classic", seed=1).variant.deck


def test_an_opponent_who_drew_and_played_the_drawn_card_held_nothing_playable():
    # Two players: 0 plays R5; 1 holds G3, Y9 (nothing on R5), draws R2 and plays it.
    game = Game.from_notation(
        "classic R5,B1,B2/G3,Y9 R2,Y1,Y2,Y3 R1 R + 0 play - - 0,0 1 1 500 - 1:0"
    )
    belief = Belief(0)
    belief.observe(PlayerView(game, 0))
    belief.decided(PlayerView(game, 0), Action.parse("R5"))
    game.apply("R5")
    game.apply("draw")
    game.apply("R2")
    belief.observe(PlayerView(game, 0))
    assert belief.facts == {1: [Fact(match_key(Colour.RED, Rank.FIVE), 2, 2)]}


def test_three_players_each_turn_is_told_apart():
    # 0 plays R5; 1 (G3, Y9) draws G2 and keeps it; 2 plays R7 from its hand;
    # 1's facts are about R5, 2 learns nothing (it played).
    game = Game.from_notation(
        "classic R5,B1,B2/G3,Y9/R7,B4,B6 G2,Y1,Y2,Y3 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0"
    )
    belief = Belief(0)
    belief.observe(PlayerView(game, 0))
    belief.decided(PlayerView(game, 0), Action.parse("R5"))
    for action in ("R5", "draw", "R7"):
        game.apply(action)
    assert game.to_act == 0
    belief.observe(PlayerView(game, 0))
    assert belief.facts == {1: [Fact(match_key(Colour.RED, Rank.FIVE), 2, 2)]}
