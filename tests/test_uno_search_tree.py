"""engine.uno.search_tree: the search of the bot's own later turns in its
playouts (UCB1 over the plays held, the heuristic's first)."""

from __future__ import annotations

import random

import pytest

from engine.uno.bots import HeuristicBot
from engine.uno.cards import Card
from engine.uno.game import Game
from engine.uno.playout import play_out
from engine.uno.playout_codes import CARD_BITS, PLAYS, PLAYS_UNO, UNO_BIT
from engine.uno.search_bot import SearchBot
from engine.uno.search_tree import Arm, Node, choose, play_out_searching, turn_candidates


def codes(*cards: str) -> list[int]:
    return [int(Card.parse(c)) for c in cards]


def arm(value: float, visits: int, offered: int) -> Arm:
    a = Arm()
    a.value, a.visits, a.offered = value, visits, offered
    return a


def test_a_wild_is_searched_with_the_colour_the_heuristic_names_only():
    hand = codes("W", "B1", "B2", "R3")
    plays = [*PLAYS[hand[0]], *PLAYS[hand[1]]]
    kept = turn_candidates(plays, hand)
    assert [a & CARD_BITS for a in kept] == [hand[0], hand[1]]
    assert str(Card(kept[0] & CARD_BITS)) == "W" and kept[0] >> 11 & 7 == 3  # blue


def test_with_two_cards_only_the_plays_calling_uno_are_searched():
    hand = codes("R5", "R7")
    plays = [*PLAYS_UNO[hand[0]], *PLAYS_UNO[hand[1]]]
    assert turn_candidates(plays, hand) == [p for p in plays if p & UNO_BIT]
    assert len(turn_candidates(plays, hand)) == 2


def test_the_heuristics_play_is_tried_first_then_every_other_once():
    node = Node()
    assert choose(node, [1, 2, 3], 2) == 2
    node.stats[2].visits = 1
    assert choose(node, [1, 2, 3], 2) == 1
    node.stats[1].visits = 1
    assert choose(node, [1, 2, 3], 2) == 3
    assert [node.stats[p].offered for p in (1, 2, 3)] == [3, 3, 3]


def test_then_the_best_mean_unless_a_play_was_tried_too_seldom():
    node = Node()
    node.stats = {1: arm(30, 100, 200), 2: arm(60, 100, 200)}
    assert choose(node, [1, 2], 1) == 2
    # A play tried twice in 200 offers is tried again, however it did.
    node.stats = {1: arm(0, 2, 200), 2: arm(60, 100, 200)}
    assert choose(node, [1, 2], 2) == 1


def test_a_play_not_held_in_this_world_is_not_chosen_and_not_counted():
    node = Node()
    node.stats = {1: arm(90, 100, 100), 2: arm(10, 100, 100), 3: arm(20, 100, 100)}
    assert choose(node, [2, 3], 2) == 3
    assert node.stats[1].offered == 100


def test_at_depth_0_it_is_the_heuristic_playout():
    for seed in range(20):
        game = Game.new(4, "classic", seed=seed)
        whole = play_out(game, "heuristic", random.Random(seed), max_decisions=400)
        tree = Node()
        value = play_out_searching(game, random.Random(seed), 1, tree, 0, 400)
        assert value == float(whole.winner == 1)
        assert not tree.stats


def test_the_tree_grows_one_turn_a_playout_to_its_depth_and_counts_every_value():
    game = Game.new(4, "classic", seed=11)
    tree = Node()
    values = [play_out_searching(game, random.Random(i), 0, tree, 2, 400) for i in range(60)]
    assert sum(a.visits for a in tree.stats.values()) == 60  # its first turn has a choice
    assert sum(a.value for a in tree.stats.values()) == sum(values)
    second = list(tree.children.values())
    assert sum(a.visits for c in second for a in c.stats.values()) <= 60
    assert any(c.stats for c in second)
    assert all(not g.stats for c in second for g in c.children.values())  # depth 2: no third


def test_where_the_heuristics_turns_lose_it_finds_turns_that_win_and_keeps_to_them():
    # Classic heuristic playouts draw nothing from the generator: one world, one
    # line. Seat 0 loses this deal playing the heuristic's turns; two turns
    # chosen otherwise win it, and once found the search keeps to them.
    game = Game.new(4, "classic", seed=11)
    assert play_out(game, "heuristic", random.Random(0), max_decisions=400).winner != 0
    tree = Node()
    values = [play_out_searching(game, random.Random(i), 0, tree, 2, 400) for i in range(200)]
    assert values[0] == 0.0  # the heuristic's turns first
    assert sum(values[100:]) >= 90


def first_decisions(players: int, seat: int, count: int = 6, **options) -> list[str]:
    """The search bot's first ``count`` decisions in ``seat``, HeuristicBots elsewhere."""
    game = Game.new(players, "classic", seed=players * 10 + seat)
    agents: list = [HeuristicBot() for _ in range(players)]
    agents[seat] = SearchBot(random.Random(seat), playouts=60, **options)
    seen: list[str] = []
    while not game.round_over and len(seen) < count:
        player = game.to_act
        assert player is not None  # classic: no showdown
        action = agents[player].act(game, player)
        if player == seat:
            seen.append(str(action))
        game.apply(action)
    return seen


@pytest.mark.parametrize("players", [3, 5, 6])
def test_at_three_five_and_six_players_the_plan_searches_no_later_turn(players):
    # Measured no better there, and dearer (docs/performance.md): the flat search.
    # (At 4 players the tree's decisions are pinned: tests/test_uno_search_pinned4.py.)
    for seat in range(2):
        assert first_decisions(players, seat) == first_decisions(players, seat, depth=0)
