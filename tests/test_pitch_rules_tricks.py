"""10 Point Pitch, RULES.md R7: trick play. Only trumps are played, any of them; the highest
wins; the winner leads, or the first seat on its left that holds a trump; a player with no
trump left sits out; the hand ends when no trump is held.

Every hand here is played through ``play_checked``, which compares each step with the
rules worked out in tests/pitch_helpers.py (RefTricks)."""

import itertools
import random

import pytest

from engine.game.errors import IllegalActionError
from engine.pitch.actions import Action, Kind
from engine.pitch.game import Phase
from tests.pitch_helpers import (
    SUITS,
    RefTricks,
    act,
    deal,
    first,
    play_checked,
    play_highest,
    play_lowest,
    ref_is_trump,
    ref_trump_order,
    seat_to_act,
    team_plays,
    to_play,
    to_stock,
    trumps_held,
)


def random_plays(seed):
    rng = random.Random(seed)

    def choose(game, seat):
        return rng.choice([a.value for a in game.legal_actions(seat) if a.kind is Kind.PLAY])

    return choose


def a_hand(seed, pitcher=None, suit=None, stock="keep"):
    """Seed ``seed``'s deal on to trick play: dealer 0, the pitcher and trump from the seed."""
    pitcher = seed % 4 if pitcher is None else pitcher
    suit = SUITS[seed // 4 % 4] if suit is None else suit
    return to_play(deal(seed, dealer=0), pitcher, suit, stock=stock)


HANDS = [(seed, "keep" if seed % 3 else "give") for seed in range(12)]


# -- searched positions -------------------------------------------------------------------


def leads_passed_on(seed, skipped=1):
    """A hand played lowest-first in which a trick's winner holds no trump and the lead
    goes ``skipped`` seats on (1: its left-hand neighbour)."""
    for suit in SUITS:
        game = a_hand(seed, suit=suit)
        model = RefTricks.start(game)
        trial = game.copy()
        while trial.phase is Phase.PLAY:
            seat = seat_to_act(trial)
            card = play_lowest(trial, seat)
            act(trial, f"play {card}")
            model.play(seat, card)
            if not model.trick and model.leader is not None and model.done:
                winner = model.done[-1][2]
                if model.leader == (winner + skipped) % 4 and model.out(winner):
                    return game
    return None


def lead_passed_two_seats_on(seed):
    return leads_passed_on(seed, skipped=2)


def a_pitcher_without_trump(seed):
    """The pitcher passes the stock on and holds no trump when play starts."""
    for suit in SUITS:
        game = deal(seed, dealer=0)
        if trumps_held(game, 1, suit):
            continue
        to_stock(game, 1, suit)
        if not trumps_held(game, 1, suit):
            return to_play_from_stock(game, "give")
    return None


def to_play_from_stock(game, stock):
    if game.phase is Phase.STOCK:
        act(game, stock)
    while game.phase is Phase.BURN:
        seat = seat_to_act(game)
        act(game, f"burn {trumps_held(game, seat, game.trump)[-1]}")
    return game


def a_seat_out_from_the_start(seed):
    for suit in SUITS:
        game = a_hand(seed, pitcher=1, suit=suit)
        if any(not trumps_held(game, seat, suit) for seat in (0, 2, 3)):
            return game
    return None


def a_trick_holding(pair):
    """For ``pair`` (the higher card first, hearts trump): the first seed whose hand, played
    at random, puts both cards in one trick."""

    def search(seed):
        game = a_hand(seed, suit="H")
        trial = game.copy()
        model = play_checked(trial, random_plays(seed))
        for _, cards, _, _ in model.done:
            if set(pair) <= {card for _, card in cards}:
                return game, random_plays(seed)
        return None

    search.__name__ = f"a_trick_holding_{'_'.join(pair)}"
    return search


PAIRS = [("AH", "KH"), ("JH", "JD"), ("JD", "HJ"), ("HJ", "LJ"), ("LJ", "TH"), ("3H", "2H")]
SEARCHES = {pair: a_trick_holding(pair) for pair in PAIRS}


# -- the tests ------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "stock"), HANDS)
def test_r7_the_pitcher_leads_the_first_trick(seed, stock):
    game = a_hand(seed, stock=stock)
    assert game.phase is Phase.PLAY
    if trumps_held(game, game.pitcher, game.trump):
        assert game.waiting_for == (game.pitcher,)
        assert game.leader == game.pitcher


@pytest.mark.parametrize(("seed", "stock"), HANDS)
def test_r7_only_trumps_may_be_played_and_any_of_them_the_hand_against_the_rules(seed, stock):
    play_checked(a_hand(seed, stock=stock), random_plays(seed))


def test_r7_a_non_trump_or_a_card_not_held_is_refused_and_changes_nothing():
    game = a_hand(3)
    seat = seat_to_act(game)
    dead = [card for card in game.hand(seat) if not ref_is_trump(card, game.trump)]
    others = [card for card in game.hand((seat + 1) % 4)]
    before = game.notation(reveal=True)
    for card in dead + others:
        assert not game.is_legal(Action.play(card), seat)
        with pytest.raises(IllegalActionError):
            game.apply(Action.play(card), seat)
    assert game.notation(reveal=True) == before
    suit = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}[game.trump]
    with pytest.raises(IllegalActionError) as error:
        game.apply(Action.play(dead[0]), seat)
    assert str(error.value) == (
        f"player {seat} cannot play {dead[0]}: {dead[0]} is not a trump: "
        f"you must play a trump ({suit} are trump)"
    )


def test_r7_there_is_no_duty_to_beat_a_low_trump_may_follow_a_high_one():
    game = a_hand(5)
    act(game, f"play {play_highest(game, seat_to_act(game))}")
    seat = seat_to_act(game)
    held = trumps_held(game, seat, game.trump)
    assert {a.value for a in game.legal_actions(seat)} == set(held)
    act(game, f"play {held[-1]}")  # its lowest, whatever was led


@pytest.mark.parametrize("pair", PAIRS, ids="-".join)
def test_r3_r7_the_higher_trump_wins_a_trick_holding_both(pair):
    game, choose = first(SEARCHES[pair])
    play_checked(game, choose)
    (trick,) = [t for t in game.tricks if set(pair) <= {card for _, card in t.cards}]
    order = ref_trump_order("H")
    assert order.index(pair[0]) < order.index(pair[1])
    assert dict(trick.cards)[trick.winner] == min((c for _, c in trick.cards), key=order.index)
    assert trick.winner != next(seat for seat, card in trick.cards if card == pair[1])


@pytest.mark.parametrize("seed", range(6))
def test_r7_play_goes_clockwise_from_the_leader(seed):
    game = a_hand(seed)
    play_checked(game, play_highest)
    for trick in game.tricks:
        seats = [seat for seat, _ in trick.cards]
        assert seats[0] == trick.leader
        steps = [(later - earlier) % 4 for earlier, later in itertools.pairwise(seats)]
        assert sum(steps) < 4 and all(step > 0 for step in steps)


def passed_leads(game):
    """(winner, next leader, the seats that play later) for each trick whose winner does
    not lead the next one."""
    return [
        (before.winner, after.leader, {seat for t in game.tricks[i:] for seat, _ in t.cards})
        for i, (before, after) in enumerate(zip(game.tricks, game.tricks[1:], strict=False), 1)
        if after.leader != before.winner
    ]


@pytest.mark.parametrize("seed", range(6))
def test_r7_the_winner_takes_the_trick_and_leads_the_next(seed):
    game = a_hand(seed)
    play_checked(game, team_plays(seed % 2))
    for i, (before, after) in enumerate(zip(game.tricks, game.tricks[1:], strict=False), 1):
        still_holds_a_trump = any(
            seat == before.winner for t in game.tricks[i:] for seat, _ in t.cards
        )
        assert (after.leader == before.winner) == still_holds_a_trump
    assert sum(t.points for t in game.tricks) == sum(game.taken)


def first_holder_on_the_left(winner, later):
    return next(seat for seat in ((winner + k) % 4 for k in (1, 2, 3)) if seat in later)


def test_r7_a_winner_with_no_trump_left_passes_the_lead_to_the_player_on_its_left():
    game = first(leads_passed_on)
    play_checked(game, play_lowest)
    passed = passed_leads(game)
    assert all(leader == first_holder_on_the_left(w, later) for w, leader, later in passed)
    assert any((winner + 1) % 4 == leader for winner, leader, _ in passed)


def test_r7_and_on_clockwise_to_the_first_player_who_holds_a_trump():
    game = first(lead_passed_two_seats_on)
    play_checked(game, play_lowest)
    passed = passed_leads(game)
    assert all(leader == first_holder_on_the_left(w, later) for w, leader, later in passed)
    assert any((winner + 2) % 4 == leader for winner, leader, _ in passed)


def test_r7_a_pitcher_holding_no_trump_when_play_starts_passes_the_lead_on():
    game = first(a_pitcher_without_trump, limit=5000)
    assert game.phase is Phase.PLAY
    assert game.out[1]
    lead = next(seat for seat in (2, 3, 0) if trumps_held(game, seat, game.trump))
    assert game.waiting_for == (lead,)
    model = play_checked(game)
    assert all(seat != 1 for _, cards, _, _ in model.done for seat, _ in cards)


def test_r7_a_player_without_trumps_is_out_sits_out_and_tricks_have_fewer_cards():
    game = first(a_seat_out_from_the_start)
    out = [seat for seat in range(4) if not trumps_held(game, seat, game.trump)]
    assert [game.out[seat] for seat in out] == [True] * len(out)
    assert all(game.view(None).out[seat] for seat in out)  # being out is public
    play_checked(game)
    assert all(len(trick.cards) <= 4 - len(out) for trick in game.tricks)
    assert not {seat for trick in game.tricks for seat, _ in trick.cards} & set(out)


@pytest.mark.parametrize(("seed", "stock"), HANDS)
def test_r7_the_hand_ends_when_no_trump_is_held_after_at_most_6_tricks(seed, stock):
    game = a_hand(seed, stock=stock)
    held = [set(trumps_held(game, seat, game.trump)) for seat in range(4)]
    play_checked(game, random_plays(seed))
    # Every trump held is played, one a trick by each holder: as many tricks as the most held.
    assert len(game.tricks) == max(map(len, held)) <= 6
    assert {card for trick in game.tricks for _, card in trick.cards} == set().union(*held)
    assert not any(trumps_held(game, seat, game.trump) for seat in range(4))
    assert game.round_over
    assert game.waiting_for == ()
    assert game.phase is Phase.OVER


def test_r7_when_one_play_only_is_legal_the_game_says_it_is_forced():
    for seed in range(4):
        game = a_hand(seed)
        while game.phase is Phase.PLAY:
            assert game.forced == (len(game.legal_actions()) == 1)
            act(game, f"play {play_lowest(game, seat_to_act(game))}")


def test_r7_only_the_seat_to_play_may_play():
    game = a_hand(2)
    seat = seat_to_act(game)
    for other in range(4):
        if other != seat:
            assert game.legal_actions(other) == []
            for card in trumps_held(game, other, game.trump):
                with pytest.raises(IllegalActionError):
                    game.apply(Action.play(card), other)
