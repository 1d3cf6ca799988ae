"""10 Point Pitch, RULES.md R6: the trump named, the discard and the refill, the stock to the
pitcher or unseen to the partner, the burn down to six."""

import pytest

from engine.game.errors import IllegalActionError
from engine.pitch.actions import Action, Kind
from engine.pitch.game import Phase
from tests.pitch_helpers import (
    FULL_DECK,
    SUITS,
    act,
    card_tokens,
    deal,
    first,
    outcome,
    play_hand,
    ref_is_trump,
    ref_points,
    refill_counts,
    seat_to_act,
    strings_in,
    to_play,
    to_stock,
    trumps_held,
    win_bidding,
)


def trump_count(game, seat, suit):
    return len(trumps_held(game, seat, suit))


def view_cards(game, seat):
    """The card codes anywhere in ``seat``'s view (None: the public's)."""
    return set().union(*map(card_tokens, strings_in(game.view(seat))))


def hands(game):
    return [set(game.hand(seat)) for seat in range(4)]


def stock_cards(game, *earlier_hands):
    """The stock, worked out from the outside: no seat has held these cards yet."""
    held = set().union(*hands(game), *(h for hands_ in earlier_hands for h in hands_))
    return FULL_DECK - held


def refill_order(dealer):
    return [(dealer + k) % 4 for k in (1, 2, 3, 4)]


# -- searched positions -------------------------------------------------------------------


def a_suit_the_pitcher_has_no_card_of(seed):
    game = deal(seed, dealer=0)
    for suit in SUITS:
        if trump_count(game, 1, suit) == 0:
            return game, suit
    return None


def a_seat_dealt_six_trumps_or_more(seed):
    game = deal(seed, dealer=0)
    for suit in SUITS:
        for seat in range(4):
            if trump_count(game, seat, suit) >= 6:
                return game, seat, suit
    return None


def a_stock_too_short_for_the_refill(seed):
    game = deal(seed, dealer=0)
    for suit in SUITS:
        if sum(max(0, 6 - trump_count(game, seat, suit)) for seat in range(4)) > 18:
            return game, suit
    return None


def a_pitcher_who_must_burn(seed):
    """Seat 1 keeps a stock that gives it more than 6 trumps."""
    for suit in SUITS:
        game = deal(seed, dealer=0)
        to_stock(game, 1, suit)
        if game.phase is Phase.STOCK and game.stock_size:
            act(game, "keep")
            if game.phase is Phase.BURN and game.waiting_for == (1,):
                return game, suit
    return None


def two_seats_that_must_burn(seed):
    """The pitcher (seat 3) keeps and must burn, and another seat was dealt 7 trumps."""
    for suit in SUITS:
        game = deal(seed, dealer=1)
        if not any(trump_count(game, seat, suit) > 6 for seat in (0, 1, 2)):
            continue
        to_stock(game, 3, suit)
        if game.phase is Phase.STOCK:
            act(game, "keep")
        if trump_count(game, 3, suit) > 6:
            return game, suit
    return None


def a_point_card_burned(seed):
    found = a_pitcher_who_must_burn(seed)
    if found is None:
        return None
    game, suit = found
    points = [card for card in trumps_held(game, 1, suit) if ref_points(card, suit)]
    return (game, suit, points[0]) if points else None


# -- 1. the trump ---------------------------------------------------------------------


def test_r6_the_pitcher_may_name_any_of_the_four_suits():
    game = deal(seed=1, dealer=0)
    win_bidding(game, 2, bid=5)
    assert game.phase is Phase.TRUMP
    assert set(game.legal_actions(2)) == {Action.trump(suit) for suit in SUITS}


def test_r6_even_a_suit_the_pitcher_holds_no_card_of():
    game, suit = first(a_suit_the_pitcher_has_no_card_of)
    win_bidding(game, 1)
    act(game, f"trump {suit}")
    assert game.trump == suit
    assert game.phase is not Phase.TRUMP


def test_r6_everyone_sees_the_trump():
    game = to_stock(deal(seed=1, dealer=0), 1, "S")
    assert game.trump == "S"
    assert game.view(None).trump == "S"
    assert all(game.view(seat).trump == "S" for seat in range(4))


# -- 2., 3. the discard and the refill ---------------------------------------------------


@pytest.mark.parametrize("suit", SUITS)
def test_r6_every_player_discards_all_non_trumps_and_keeps_every_trump(suit):
    game = deal(seed=6, dealer=0)
    win_bidding(game, 1)
    dealt = hands(game)
    act(game, f"trump {suit}")
    for seat in range(4):
        kept = {card for card in dealt[seat] if ref_is_trump(card, suit)}
        assert kept <= set(game.hand(seat))  # the off-jack and the jokers with them
        assert not (dealt[seat] - kept) & set(game.hand(seat))
    discarded = set().union(*dealt) - set().union(*hands(game))
    assert not any(ref_is_trump(card, suit) for card in discarded)


def test_r6_each_player_is_dealt_enough_from_the_stock_to_bring_the_hand_back_to_6():
    game = deal(seed=6, dealer=0)
    win_bidding(game, 1)
    dealt = hands(game)
    stock = FULL_DECK - set().union(*dealt)
    assert game.refills == (None, None, None, None)
    act(game, "trump H")
    trumps = [sum(ref_is_trump(card, "H") for card in held) for held in dealt]
    assert game.refills == tuple(max(0, 6 - count) for count in trumps)
    for seat in range(4):
        assert game.hand_size(seat) == max(6, trumps[seat])
        drawn = set(game.hand(seat)) - dealt[seat]
        assert len(drawn) == game.refills[seat]
        assert drawn <= stock
    assert game.stock_size == 18 - sum(refill_counts(game))


def test_r6_the_number_each_player_draws_is_public():
    game = to_stock(deal(seed=6, dealer=0), 1, "H")
    assert game.view(None).refills == game.refills
    assert all(game.view(seat).refills == game.refills for seat in range(4))


def test_r6_non_trumps_drawn_are_dead_and_can_never_be_played():
    game = deal(seed=6, dealer=0)
    to_play(game, 1, "H")
    dead = {seat: set(game.hand(seat)) - set(trumps_held(game, seat, "H")) for seat in range(4)}
    assert any(dead.values())  # the refill dealt some
    while game.phase is Phase.PLAY:
        seat = seat_to_act(game)
        plays = {a.card for a in game.legal_actions(seat)}
        assert not plays & dead[seat]
        for card in dead[seat] & set(game.hand(seat)):
            with pytest.raises(IllegalActionError):
                game.apply(Action.play(card), seat)
        act(game, f"play {sorted(plays)[0]}")


def test_r6_a_player_who_already_holds_6_trumps_or_more_draws_nothing():
    game, seat, suit = first(a_seat_dealt_six_trumps_or_more)
    win_bidding(game, (seat + 1) % 4)
    trumps = set(trumps_held(game, seat, suit))
    act(game, f"trump {suit}")
    assert game.refills[seat] == 0
    assert set(game.hand(seat)) == trumps


def test_r6_refill_clockwise_from_the_dealers_left_a_short_stock_leaves_the_last_seats_short():
    game, suit = first(a_stock_too_short_for_the_refill, limit=20000)
    win_bidding(game, 1)
    trumps = [trump_count(game, seat, suit) for seat in range(4)]
    act(game, f"trump {suit}")
    left, expected = 18, [0, 0, 0, 0]
    for seat in refill_order(game.dealer):  # dealer 0: seats 1, 2, 3, then 0
        expected[seat] = min(max(0, 6 - trumps[seat]), left)
        left -= expected[seat]
    assert game.refills == tuple(expected)
    assert trumps[0] + expected[0] < 6  # the dealer, served last, is short
    assert game.stock_size == 0
    assert game.phase is not Phase.STOCK  # no stock is left to keep or give
    assert game.stock_receiver is None
    assert [game.hand_size(seat) for seat in range(4)] == [
        trumps[seat] + expected[seat] for seat in range(4)
    ]


# -- 4. the stock ---------------------------------------------------------------------


def test_r6_the_pitcher_decides_keep_or_give_before_seeing_any_stock_card():
    game = deal(seed=6, dealer=0)
    dealt = hands(game)
    to_stock(game, 2, "C")
    assert game.phase is Phase.STOCK
    assert game.waiting_for == (2,)
    assert set(game.legal_actions(2)) == {Action.keep(), Action.give()}
    stock = stock_cards(game, dealt)
    assert len(stock) == game.stock_size > 0
    seen = view_cards(game, 2)
    assert set(game.hand(2)) <= seen  # the view shows its own hand ...
    assert not seen & stock  # ... and no stock card


def test_r6_keeping_all_remaining_stock_cards_go_to_the_pitcher():
    game = deal(seed=6, dealer=0)
    dealt = hands(game)
    to_stock(game, 2, "C")
    stock, before = stock_cards(game, dealt), set(trumps_held(game, 2, "C"))
    act(game, "keep")
    assert (game.stock_receiver, game.stock_received, game.stock_size) == (2, len(stock), 0)
    assert set(trumps_held(game, 2, "C")) == before | {c for c in stock if ref_is_trump(c, "C")}
    assert set(trumps_held(game, 2, "C")) <= view_cards(game, 2)


def test_r6_giving_the_partner_keeps_the_trumps_of_the_stock_unseen_by_the_pitcher():
    game = deal(seed=6, dealer=0)
    dealt = hands(game)
    to_stock(game, 2, "C")
    stock, pitcher_hand = stock_cards(game, dealt), game.hand(2)
    before = set(trumps_held(game, 0, "C"))
    act(game, "give")
    stock_trumps = {card for card in stock if ref_is_trump(card, "C")}
    assert (game.stock_receiver, game.stock_received, game.stock_size) == (0, len(stock), 0)
    assert set(trumps_held(game, 0, "C")) == before | stock_trumps
    assert game.hand(2) == pitcher_hand
    assert not view_cards(game, 2) & stock  # the pitcher never saw them
    assert stock_trumps <= view_cards(game, 0)  # the receiver sees what it got
    assert not view_cards(game, None) & stock


def test_r6_the_non_trumps_of_the_stock_are_never_played():
    game = deal(seed=6, dealer=0)
    dealt = hands(game)
    to_stock(game, 2, "C")
    stock = stock_cards(game, dealt)
    act(game, "keep")
    while game.phase is Phase.BURN:
        act(game, f"burn {game.legal_actions()[0].value}")
    played = {card for _, card in play_hand(game)}
    assert not {card for card in stock if not ref_is_trump(card, "C")} & played


def test_r6_only_the_pitcher_decides_about_the_stock():
    game = to_stock(deal(seed=6, dealer=0), 2, "C")
    for seat in (0, 1, 3):
        assert game.legal_actions(seat) == []
        with pytest.raises(IllegalActionError):
            game.apply(Action.keep(), seat)


# -- 5. the burn ------------------------------------------------------------------------


def test_r6_a_player_with_more_than_6_trumps_must_burn_one_at_a_time_down_to_6():
    game, suit = first(a_pitcher_who_must_burn)
    extra = trump_count(game, 1, suit) - 6
    for _ in range(extra):
        assert game.phase is Phase.BURN and game.waiting_for == (1,)
        act(game, f"burn {trumps_held(game, 1, suit)[0]}")
    assert trump_count(game, 1, suit) == 6
    assert game.phase is Phase.PLAY or game.waiting_for != (1,)
    assert len(game.burned) == extra


def test_r6_the_player_chooses_which_trump_to_burn_any_trump_by_default():
    game, suit = first(a_pitcher_who_must_burn)
    trumps = trumps_held(game, 1, suit)
    burns = {a.value for a in game.legal_actions(1) if a.kind is Kind.BURN}
    assert burns == set(trumps)  # point cards too
    assert {a.kind for a in game.legal_actions(1)} == {Kind.BURN}
    dead = set(game.hand(1)) - set(trumps)
    for card in dead:
        with pytest.raises(IllegalActionError):
            game.apply(Action.burn(card), 1)


def test_r6_burned_cards_are_shown_face_up_by_default():
    game, suit = first(a_pitcher_who_must_burn)
    card = trumps_held(game, 1, suit)[-1]
    act(game, f"burn {card}")
    assert game.burned[0] == (1, card)
    assert card not in game.hand(1)
    assert all(card in view_cards(game, seat) for seat in (None, 0, 1, 2, 3))


def test_r6_burned_points_go_to_nobody():
    game, suit, point_card = first(a_point_card_burned)
    act(game, f"burn {point_card}")
    while game.phase is Phase.BURN:
        act(game, f"burn {trumps_held(game, seat_to_act(game), suit)[-1]}")
    burned = sum(ref_points(card, suit) for _, card in game.burned)
    assert burned >= ref_points(point_card, suit) > 0
    play_hand(game)
    assert sum(game.taken) == 10 - burned
    assert outcome(game).burned_points == burned


def test_r6_the_burns_go_clockwise_from_the_dealers_left():
    game, suit = first(two_seats_that_must_burn, limit=20000, start=9233)
    expected = [
        seat for seat in refill_order(game.dealer) for _ in range(trump_count(game, seat, suit) - 6)
    ]
    asked = []
    while game.phase is Phase.BURN:
        seat = seat_to_act(game)
        asked.append(seat)
        act(game, f"burn {trumps_held(game, seat, suit)[-1]}")
    assert asked == expected
    assert len(set(asked)) >= 2
    assert all(trump_count(game, seat, suit) <= 6 for seat in range(4))


def test_r6_only_a_player_with_more_than_6_trumps_burns_and_only_down_to_6():
    for seed in range(6):
        game = to_stock(deal(seed, dealer=0), 2, "C")
        if game.phase is Phase.STOCK:
            act(game, "give" if seed % 2 else "keep")
        counts = [trump_count(game, seat, "C") for seat in range(4)]
        while game.phase is Phase.BURN:
            act(game, f"burn {trumps_held(game, seat_to_act(game), 'C')[-1]}")
        burns = [sum(seat == burner for burner, _ in game.burned) for seat in range(4)]
        assert burns == [max(0, count - 6) for count in counts]
        assert game.phase is Phase.PLAY
