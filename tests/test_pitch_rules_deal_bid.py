"""10 Point Pitch, RULES.md R1-R5: the players and the target, the deck, the trump ranking,
the deal and the bidding. Written from the rules, sentence by sentence."""

import pytest

from engine.game.errors import IllegalActionError, StateError
from engine.pitch.actions import MOON, Action, Kind
from engine.pitch.cards import (
    CARD_COUNT,
    DECK,
    POINTS_IN_HAND,
    is_trump,
    off_jack,
    point_value,
    trump_order,
    trump_rank,
)
from engine.pitch.game import Phase, PitchGame
from tests.pitch_helpers import (
    FULL_DECK,
    HEARTS_HIGH_TO_LOW,
    SUITS,
    act,
    deal,
    play_hand,
    ref_off_jack,
    ref_points,
    ref_trump_order,
    to_play,
)

ALL_BIDS = {4, 5, 6, 7, 8, 9, MOON}


def bids_allowed(game, seat=None):
    """The bid values legal for ``seat`` (None: the seat to act), and whether it may pass."""
    actions = game.legal_actions(seat)
    bids = {a.value for a in actions if a.kind is Kind.BID}
    return bids, Action.pass_() in actions


def refused(game, action, seat=None, message=None):
    """``action`` raises IllegalActionError (saying ``message``, if given) and leaves the
    game as it was."""
    before = game.notation(reveal=True)
    assert not game.is_legal(action, seat)
    with pytest.raises(IllegalActionError) as error:
        game.apply(action, seat)
    if message is not None:
        assert str(error.value) == message
    assert game.notation(reveal=True) == before
    return True


# -- R1 players, teams, target ----------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 5, 6])
def test_r1_pitch_is_for_exactly_four_players(players):
    with pytest.raises(ValueError):
        PitchGame.new(players, seed=1)


def test_r1_partners_sit_opposite_in_two_fixed_teams():
    game = deal(seed=1)
    assert game.players == 4
    assert game.teams == ((0, 2), (1, 3))
    assert [game.team_of(seat) for seat in range(4)] == [0, 1, 0, 1]


def test_r1_partners_share_one_score():
    game = deal(seed=3)
    to_play(game, pitcher=1, suit="S")
    play_hand(game)
    assert game.round_over
    first, second, third, fourth = game.scores
    assert (first, second) == (third, fourth) == game.team_scores
    assert game.team_scores != (0, 0)  # ten points were won by someone, or a set was taken


def test_r1_the_target_is_52_by_default():
    assert deal(seed=1).target == 52
    assert PitchGame.new(4, seed=1).target == 52


def test_r1_the_target_is_configurable():
    assert deal(seed=1, target=21).target == 21


# -- R2 the deck ----------------------------------------------------------------------


def test_r2_the_deck_is_54_distinct_cards_the_standard_52_and_two_jokers():
    assert len(DECK) == CARD_COUNT == 54
    assert set(DECK) == FULL_DECK
    assert {"HJ", "LJ"} <= set(DECK)


def test_r2_the_two_jokers_are_distinguishable_high_and_low():
    for suit in SUITS:
        assert trump_rank("HJ", suit) > trump_rank("LJ", suit)


def test_r2_a_new_game_holds_each_of_the_54_cards_once():
    game = deal(seed=5)
    held = [card for seat in range(4) for card in game.hand(seat)]
    assert len(held) == len(set(held)) == 36
    assert set(held) <= FULL_DECK
    assert game.stock_size == 18
    game.check_invariants()


# -- R3 trump suit and ranking ----------------------------------------------------------


def test_r3_hearts_trump_ranks_its_16_cards_as_the_rules_list_them():
    assert trump_order("H") == HEARTS_HIGH_TO_LOW


@pytest.mark.parametrize("suit", SUITS)
def test_r3_every_suit_has_16_trumps_ranked_a_k_q_j_off_jack_jokers_then_ten_to_two(suit):
    order = trump_order(suit)
    assert order == ref_trump_order(suit)
    assert len(set(order)) == 16
    # All 16 rank differently, so a trick can never tie: 15 for the top ... 0 for the 2.
    assert [trump_rank(card, suit) for card in order] == list(range(15, -1, -1))


@pytest.mark.parametrize(("trump", "jack"), [("H", "JD"), ("D", "JH"), ("S", "JC"), ("C", "JS")])
def test_r3_the_off_jack_is_the_other_jack_of_the_same_colour_and_is_a_trump(trump, jack):
    assert off_jack(trump) == jack == ref_off_jack(trump)
    assert is_trump(jack, trump)
    order = trump_order(trump)
    assert order.index("J" + trump) + 1 == order.index(jack) == order.index("HJ") - 1


@pytest.mark.parametrize("suit", SUITS)
def test_r3_both_jokers_are_trumps_whatever_suit_is_trump(suit):
    assert is_trump("HJ", suit) and is_trump("LJ", suit)


@pytest.mark.parametrize("suit", SUITS)
def test_r3_every_other_card_is_a_non_trump(suit):
    trumps = {card for card in DECK if is_trump(card, suit)}
    assert trumps == set(ref_trump_order(suit))
    # The other suit of the trump's colour is not trump, but for its jack.
    same_colour = ref_off_jack(suit)[1]
    assert not is_trump("A" + same_colour, suit)
    assert not is_trump("Q" + same_colour, suit)
    for card in sorted(FULL_DECK - trumps):
        with pytest.raises(ValueError):
            trump_rank(card, suit)


@pytest.mark.parametrize("suit", SUITS)
def test_r8_table_the_point_values_of_the_trumps(suit):
    values = {card: point_value(card, suit) for card in DECK}
    assert values == {card: ref_points(card, suit) for card in DECK}
    assert values["3" + suit] == 3
    assert sum(values.values()) == POINTS_IN_HAND == 10
    assert sorted(card for card, value in values.items() if value == 1) == sorted(
        ["A" + suit, "J" + suit, ref_off_jack(suit), "HJ", "LJ", "T" + suit, "2" + suit]
    )


# -- R4 the deal --------------------------------------------------------------------------


def test_r4_the_first_dealer_is_random():
    dealers = {PitchGame.new(4, seed=seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert PitchGame.new(4, seed=7).dealer == PitchGame.new(4, seed=7).dealer


def test_r4_the_deal_passes_to_the_left_each_hand():
    game = deal(seed=11, dealer=2)
    dealers = []
    for _ in range(5):
        dealers.append(game.dealer)
        to_play(game, pitcher=(game.dealer + 1) % 4, suit="C")
        play_hand(game)
        assert game.match_winner is None
        game.next_round()
    assert dealers == [2, 3, 0, 1, 2]
    assert game.round == 6


def test_r4_the_dealer_deals_nine_cards_to_each_player_and_18_stay_as_the_stock():
    game = deal(seed=2, dealer=1)
    assert [game.hand_size(seat) for seat in range(4)] == [9, 9, 9, 9]
    assert game.stock_size == 18
    assert game.phase is Phase.BID


@pytest.mark.parametrize("dealer", range(4))
def test_r4_the_deal_is_one_card_at_a_time_clockwise_from_the_dealers_left(dealer):
    game = deal(seed=8, dealer=dealer)
    deck = game.deck  # top first
    for k in range(4):
        assert game.dealt((dealer + 1 + k) % 4) == deck[k:36:4]
        assert set(game.hand((dealer + 1 + k) % 4)) == set(deck[k:36:4])
    assert game.stock_size == len(deck[36:]) == 18


@pytest.mark.parametrize("dealer", range(4))
def test_r6_the_refill_is_dealt_from_the_stock_clockwise_from_the_dealers_left(dealer):
    game = deal(seed=8, dealer=dealer)
    to_play(game, pitcher=(dealer + 2) % 4, suit="D")
    served = [game.drawn((dealer + k) % 4) for k in (1, 2, 3, 4)]
    drawn = [card for cards in served for card in cards]
    assert tuple(drawn) == game.deck[36 : 36 + len(drawn)]
    assert [len(cards) for cards in served] == [
        game.refills[(dealer + k) % 4] for k in (1, 2, 3, 4)
    ]


def test_r4_each_hand_is_a_new_shuffle():
    game = deal(seed=4)
    first_hands = [game.hand(seat) for seat in range(4)]
    to_play(game, pitcher=1, suit="D")
    play_hand(game)
    game.next_round()
    assert [game.hand(seat) for seat in range(4)] != first_hands
    game.check_invariants()


def test_r4_a_new_deal_only_when_the_hand_is_over():
    game = deal(seed=4)
    with pytest.raises(StateError):
        game.next_round()
    to_play(game, pitcher=1, suit="D")
    with pytest.raises(StateError):
        game.next_round()


def test_r4_the_same_seed_deals_the_same_hands_whatever_is_played():
    one, two = deal(seed=9, dealer=None), deal(seed=9, dealer=None)
    to_play(one, pitcher=(one.dealer + 1) % 4, suit="H")
    to_play(two, pitcher=(two.dealer + 2) % 4, suit="S", bid=7)
    play_hand(one)
    play_hand(two)
    one.next_round()
    two.next_round()
    assert [one.hand(seat) for seat in range(4)] == [two.hand(seat) for seat in range(4)]


# -- R5 bidding -------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", range(4))
def test_r5_the_player_to_the_dealers_left_bids_first_then_clockwise(dealer):
    game = deal(seed=1, dealer=dealer)
    order = []
    while game.phase is Phase.BID:
        order.append(game.waiting_for)
        act(game, "pass" if len(order) < 4 else "bid 4")
    assert order == [((dealer + k) % 4,) for k in (1, 2, 3, 4)]


def test_r5_only_the_seat_to_bid_may_bid():
    game = deal(seed=1, dealer=0)
    for seat in (0, 2, 3):
        assert game.legal_actions(seat) == []
        assert refused(
            game, Action.bid(5), seat, f"player {seat} cannot bid 5: it is player 1's turn to bid"
        )
        assert refused(game, Action.pass_(), seat)


def test_r5_the_bids_are_4_to_9_and_shoot_the_moon_and_a_pass():
    game = deal(seed=1, dealer=0)
    assert bids_allowed(game) == (ALL_BIDS, True)
    assert len(game.legal_actions()) == 8


def test_r5_there_is_no_plain_10_bid_the_moon_is_the_maximum():
    game = deal(seed=1, dealer=0)
    assert MOON == 10
    assert max(bids_allowed(game)[0]) == MOON
    assert sorted(bids_allowed(game)[0]) == [4, 5, 6, 7, 8, 9, 10]  # ten is the Moon's only


def test_r5_the_minimum_bid_is_4():
    game = deal(seed=1, dealer=0)
    assert min(bids_allowed(game)[0]) == 4
    for low in (1, 2, 3):
        try:
            action = Action.bid(low)
        except ValueError:
            continue  # not even an action
        assert refused(game, action)


def test_r5_each_player_has_exactly_one_turn():
    game = deal(seed=1, dealer=3)
    act(game, "bid 4")  # seat 0
    act(game, "pass")  # seat 1
    act(game, "bid 5")  # seat 2
    assert game.waiting_for == (3,)
    act(game, "pass")  # the dealer
    assert game.phase is Phase.TRUMP
    assert game.bids == ((0, 4), (1, None), (2, 5), (3, None))
    assert [game.legal_actions(seat) for seat in (0, 1, 3)] == [[], [], []]


def test_r5_a_bid_must_be_higher_than_the_current_high_bid():
    game = deal(seed=1, dealer=0)
    act(game, "bid 6")  # seat 1
    assert game.high_bid == 6
    assert bids_allowed(game) == ({7, 8, 9, MOON}, True)
    for same_or_lower in (4, 5, 6):
        message = f"player 2 cannot bid {same_or_lower}: bid higher than 6"
        assert refused(game, Action.bid(same_or_lower), message=message)
    act(game, "bid 7")  # seat 2
    assert bids_allowed(game) == ({8, 9, MOON}, True)


def test_r5_a_player_may_outbid_their_partner():
    game = deal(seed=1, dealer=0)
    act(game, "bid 5")  # seat 1
    act(game, "pass")  # seat 2
    act(game, "bid 6")  # seat 3, seat 1's partner
    act(game, "pass")  # the dealer
    assert (game.pitcher, game.contract) == (3, 6)


def test_r5_the_dealer_has_no_right_to_take_the_contract_at_an_equal_bid():
    game = deal(seed=1, dealer=0)
    act(game, "bid 6")
    act(game, "pass")
    act(game, "pass")
    assert game.waiting_for == (0,)
    assert bids_allowed(game) == ({7, 8, 9, MOON}, True)
    assert refused(game, Action.bid(6))


def test_r5_stick_the_dealer_when_the_other_three_pass_the_dealer_must_bid_4():
    game = deal(seed=1, dealer=2)
    for _ in range(3):
        act(game, "pass")
    assert game.waiting_for == (2,)
    assert game.legal_actions() == [Action.bid(4)]
    assert game.forced
    assert refused(game, Action.pass_(), message="player 2 cannot pass: the dealer is stuck: bid 4")
    assert refused(game, Action.bid(5))
    assert refused(game, Action.bid(MOON))
    act(game, "bid 4")
    assert (game.pitcher, game.contract, game.phase) == (2, 4, Phase.TRUMP)


def test_r5_bidding_ends_when_the_dealer_has_acted_and_the_highest_bidder_pitches():
    game = deal(seed=1, dealer=1)
    act(game, "bid 4")  # seat 2
    act(game, "bid 5")  # seat 3
    act(game, "pass")  # seat 0
    act(game, "bid 8")  # seat 1, the dealer
    assert game.phase is Phase.TRUMP
    assert (game.pitcher, game.contract, game.high_bid) == (1, 8, 8)
    assert game.waiting_for == (1,)


def test_r5_the_highest_bidder_pitches_even_when_the_dealer_passes():
    game = deal(seed=1, dealer=1)
    act(game, "bid 4")  # seat 2
    act(game, "bid 5")  # seat 3
    act(game, "pass")
    act(game, "pass")
    assert (game.pitcher, game.contract, game.waiting_for) == (3, 5, (3,))


@pytest.mark.parametrize("moon_seat", [1, 2, 3, 0])
def test_r5_shoot_the_moon_ends_the_bidding_at_once(moon_seat):
    game = deal(seed=1, dealer=0)
    while game.waiting_for != (moon_seat,):
        # The dealer is stuck if all pass: to shoot the Moon it needs a bid before it.
        act(game, "bid 4" if moon_seat == 0 and game.waiting_for == (3,) else "pass")
    act(game, "bid moon")
    assert game.phase is Phase.TRUMP
    assert (game.pitcher, game.contract) == (moon_seat, MOON)
    assert game.bids[-1] == (moon_seat, MOON)
    assert len(game.bids) == (moon_seat - 1) % 4 + 1  # the later seats do not bid
    assert game.waiting_for == (moon_seat,)
    for later in range(4):
        if later != moon_seat:
            assert game.legal_actions(later) == []


def test_r5_shoot_the_moon_may_follow_a_bid_and_nothing_follows_it():
    game = deal(seed=1, dealer=0)
    act(game, "bid 9")  # seat 1
    assert bids_allowed(game) == ({MOON}, True)
    act(game, "bid moon")  # seat 2
    assert game.phase is Phase.TRUMP
    assert (game.pitcher, game.contract) == (2, MOON)
    assert game.bids == ((1, 9), (2, MOON))


def test_r5_the_bids_are_public():
    game = deal(seed=1, dealer=0)
    act(game, "bid 5")
    act(game, "pass")
    public = game.view(None)
    assert game.bids == ((1, 5), (2, None))
    assert public.bids == game.bids


def test_r5_the_trump_is_named_by_the_pitcher_only():
    game = deal(seed=1, dealer=0)
    act(game, "bid 5")
    for _ in range(3):
        act(game, "pass")
    assert game.waiting_for == (1,)
    for seat in (0, 2, 3):
        assert refused(game, Action.trump("H"), seat)
