"""Pitch's search: the trick solver against brute force, the sampler against the public facts."""

from __future__ import annotations

import random

import pytest

from engine.pitch import Phase, PitchGame
from engine.pitch.cards import RANK_TABLES
from engine.pitch.heuristic import HeuristicBot
from engine.pitch.sampling import known_cards, sample_deals, sample_worlds
from engine.pitch.solver import RANK_POINTS, TrickSolver, lead_from, pack_hands, ranks_of


def brute_force(hands, leader, pts_a, utility, low_to_holder=False, trick=(), order=None):
    """Plain minimax over every card, no table, no pruning, no alike cards."""
    if order is None:
        order = [s for s in ((leader + i) % 4 for i in range(4)) if hands[s]]
    if len(trick) == len(order):
        winner = max(trick, key=lambda sc: sc[1])[0]
        for seat, rank in trick:
            if rank == 0 and low_to_holder:
                pts_a += seat % 2 == 0
            elif winner % 2 == 0:
                pts_a += RANK_POINTS[rank]
        nxt = lead_from(pack_hands(hands), winner)
        if nxt is None:
            return utility[pts_a]
        return brute_force(hands, nxt, pts_a, utility, low_to_holder)
    seat = order[len(trick)]
    values = []
    for rank in hands[seat]:
        rest = [h[:] for h in hands]
        rest[seat].remove(rank)
        values.append(
            brute_force(rest, leader, pts_a, utility, low_to_holder, (*trick, (seat, rank)), order)
        )
    return max(values) if seat % 2 == 0 else min(values)


def _random_position(rng: random.Random, cards: int):
    ranks = rng.sample(range(16), cards)
    hands: list[list[int]] = [[] for _ in range(4)]
    for i, rank in enumerate(ranks):
        hands[rng.choice(range(4)) if i >= 4 else i].append(rank)
    return hands


@pytest.mark.parametrize("low_to_holder", [False, True])
def test_the_solver_agrees_with_brute_force_on_small_positions(low_to_holder):
    rng = random.Random(5)
    for case in range(40):
        hands = _random_position(rng, rng.choice((5, 6, 8, 10)))
        utility = [rng.randrange(-9, 10) for _ in range(11)]  # any table, not only monotone
        leader = rng.randrange(4)
        leader = lead_from(pack_hands(hands), leader)
        solver = TrickSolver(utility, low_to_holder=low_to_holder)
        expected = brute_force(hands, leader, 0, utility, low_to_holder)
        assert solver.value(pack_hands(hands), leader, 0) == expected, (case, hands)


def test_the_solvers_move_values_agree_with_brute_force_mid_trick():
    rng = random.Random(8)
    for case in range(30):
        hands = _random_position(rng, 8)
        utility = [rng.randrange(-9, 10) for _ in range(11)]
        order = [s for s in range(4) if hands[s]]
        first = order[0]
        lead = hands[first].pop()
        trick = [(first, lead)]
        solver = TrickSolver(utility)
        values = solver.move_values(pack_hands(hands), trick, order, 0)
        seat = order[1]
        for rank in hands[seat]:
            rest = [h[:] for h in hands]
            rest[seat].remove(rank)
            expected = brute_force(rest, first, 0, utility, False, (*trick, (seat, rank)), order)
            assert values[rank] == expected, (case, hands, rank)


def _play_views(seeds, stop):
    """Views of every seat at positions where ``stop(game)`` holds, heuristic play."""
    bot = HeuristicBot()
    for seed in seeds:
        game = PitchGame.new(seed=seed)
        while game.waiting_for:
            if stop(game):
                yield game
            game.apply(bot.act(game, game.to_act))


def _trumps_ever(game: PitchGame, seat: int) -> set[str]:
    trump = game.trump
    ranks = RANK_TABLES[trump]
    cards = set(game.hand(seat)[: game.trumps_in_hand(seat)])
    cards |= {c for t in game.tricks for s, c in t.cards if s == seat}
    cards |= {c for s, c in game.trick if s == seat}
    cards |= {c for s, c in game.burned if s == seat}
    return {c for c in cards if c in ranks}


def test_sampled_worlds_agree_with_every_public_fact():
    rng = random.Random(2)
    checked = 0
    for game in _play_views(range(12), lambda g: g.phase in (Phase.PLAY, Phase.BURN)):
        me = game.to_act
        view = game.view(me)
        trump = view.trump
        ranks = RANK_TABLES[trump]
        seen = known_cards(view)
        for world in sample_worlds(view, rng, 3):
            assert world.hands[me] == [c for c in view.hand if c in ranks]
            everywhere = [c for h in world.hands for c in h]
            assert len(everywhere) == len(set(everywhere)) and all(c in ranks for c in everywhere)
            assert not set(view.played) & set(everywhere)
            for seat in range(4):
                if seat == me:
                    continue
                hand = set(world.hands[seat])
                assert not hand & seen  # a card this seat saw is never elsewhere
                if view.phase is Phase.PLAY:
                    assert bool(hand) != view.out[seat]  # out: no trump; in: one at least
                ever = len(hand) + sum(1 for t in view.tricks for s, _ in t.cards if s == seat)
                ever += sum(1 for s, _ in view.trick if s == seat)
                ever += sum(1 for s, _ in view.burned if s == seat)
                drew = view.refills[seat]
                if seat != view.stock_receiver and drew:  # 6 - k after the discard, then k drawn
                    assert 6 - drew <= ever <= 6
                if seat != view.stock_receiver and drew == 0 and view.phase is Phase.PLAY:
                    assert ever == 6 + sum(1 for s, _ in view.burned if s == seat)
            checked += 1
    assert checked > 50


def test_sampled_worlds_before_the_stock_decision_hide_the_rest_of_the_stock():
    rng = random.Random(3)
    for game in _play_views(range(8), lambda g: g.phase is Phase.STOCK):
        view = game.view(game.to_act)
        truth = _trumps_ever(game, (game.to_act + 1) % 4)
        assert truth  # the real hands are not what is sampled from
        for world in sample_worlds(view, rng, 4):
            cards = [c for h in world.hands for c in h] + world.rest
            assert len(cards) == 16 and set(cards) == set(RANK_TABLES[view.trump])


def test_sampled_deals_keep_the_seats_own_cards_and_spread_the_rest():
    game = PitchGame.new(seed=3)
    view = game.view(game.to_act)
    for hands, stock in sample_deals(view, random.Random(1), 3):
        assert hands[view.seat] == list(view.dealt)
        assert sorted(c for h in hands for c in h) + sorted(stock) != []
        assert len(set(c for h in hands for c in h) | set(stock)) == 54
        assert all(len(h) == 9 for h in hands) and len(stock) == 18


def test_the_sampler_refuses_a_view_before_trump():
    with pytest.raises(ValueError, match="once trump is named"):
        sample_worlds(PitchGame.new(seed=1).view(0), random.Random(1), 1)


def test_ranks_of_every_mask_are_its_set_bits_high_to_low():
    for mask in range(1 << 16):
        assert ranks_of(mask) == tuple(r for r in range(15, -1, -1) if mask >> r & 1)
