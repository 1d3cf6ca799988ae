"""10 Point Pitch's house rules, their text form and those up to the bidding (R2-R5): each
[choice] of RULES.md is the default, and its named alternative a PitchRules field
(tests/pitch_helpers.HOUSE names them). Each alternative is tested where it differs from
the default, the default alongside; the rest are in test_pitch_rules_house_hand.py."""

import random

import pytest

from engine.game.errors import IllegalActionError, NotationError
from engine.pitch.actions import MOON, PLAIN_TEN, Action, Kind
from engine.pitch.game import Phase, PitchGame
from engine.pitch.rules import PitchRules
from tests.pitch_helpers import (
    HOUSE,
    SUITS,
    act,
    deal,
    first,
    outcome,
    play_checked,
    team_plays,
    to_play,
)


def random_plays(seed):
    rng = random.Random(seed)

    def choose(game, seat):
        return rng.choice([a.value for a in game.legal_actions(seat) if a.kind is Kind.PLAY])

    return choose


def bids_allowed(game):
    actions = game.legal_actions()
    return {a.value for a in actions if a.kind is Kind.BID}, Action.pass_() in actions


# -- the rules' text form ---------------------------------------------------------------


def test_the_defaults_are_the_rules_choices_and_read_as_a_dash():
    assert str(PitchRules()) == "-"
    assert PitchRules.parse("-") == PitchRules()
    assert deal(seed=1).rules == PitchRules()
    assert PitchGame.new(4, seed=1).rules == PitchRules()


@pytest.mark.parametrize("name", sorted(HOUSE))
def test_each_house_rule_is_a_named_field_off_by_default_with_a_text_form(name):
    house = PitchRules(**HOUSE[name])
    assert house != PitchRules()
    assert str(house) != "-"
    assert PitchRules.parse(str(house)) == house
    assert deal(seed=1, **HOUSE[name]).rules == house


def test_a_house_rule_text_that_is_no_rule_is_refused_in_words():
    with pytest.raises((ValueError, NotationError)):
        PitchRules.parse("no-such-rule")


# -- R2 unmarked jokers -------------------------------------------------------------------


def jokers_in_one_trick_low_first(seed, house=True):
    """A hand, played at random, with a trick where the low joker is the first joker of
    the hand, the high joker follows it and nothing above the jokers is in the trick."""
    rules = HOUSE["unmarked_jokers"] if house else {}
    for suit in SUITS:
        game = to_play(deal(seed, dealer=0, **rules), seed % 4, suit)
        trial = game.copy()
        play_checked(trial, random_plays(seed), unmarked_jokers=house)
        cards_so_far: list[str] = []
        for trick in trial.tricks:
            cards = [card for _, card in trick.cards]
            jokers = [card for card in cards if card in ("HJ", "LJ")]
            higher = {"A" + suit, "K" + suit, "Q" + suit, "J" + suit, "J" + SAME[suit]}
            if (
                jokers == ["LJ", "HJ"]
                and not {"HJ", "LJ"} & set(cards_so_far)
                and not higher & set(cards)
            ):
                return game, seed
            cards_so_far += cards
    return None


def jokers_low_first_marked(seed):
    return jokers_in_one_trick_low_first(seed, house=False)


SAME = {"H": "D", "D": "H", "S": "C", "C": "S"}


def test_r2_unmarked_jokers_the_first_joker_played_in_the_hand_is_the_high_one():
    game, seed = first(jokers_in_one_trick_low_first, limit=5000)
    play_checked(game, random_plays(seed), unmarked_jokers=True)
    (trick,) = [t for t in game.tricks if {"HJ", "LJ"} <= {c for _, c in t.cards}]
    assert dict(trick.cards)[trick.winner] == "LJ"


def test_r2_by_default_the_jokers_are_marked_and_the_high_one_wins():
    game, seed = first(jokers_low_first_marked, limit=5000)
    play_checked(game, random_plays(seed))
    (trick,) = [t for t in game.tricks if {"HJ", "LJ"} <= {c for _, c in t.cards}]
    assert dict(trick.cards)[trick.winner] == "HJ"


@pytest.mark.parametrize("seed", range(6))
def test_r2_unmarked_jokers_every_hand_against_the_rules(seed):
    game = to_play(deal(seed, dealer=0, **HOUSE["unmarked_jokers"]), seed % 4, SUITS[seed % 4])
    play_checked(game, random_plays(seed), unmarked_jokers=True)


# -- R4 the deal in threes -----------------------------------------------------------------


@pytest.mark.parametrize("dealer", range(4))
def test_r4_house_rule_the_deal_in_threes_clockwise_from_the_dealers_left(dealer):
    game = deal(seed=8, dealer=dealer, **HOUSE["deal_threes"])
    deck = game.deck
    for k in range(4):
        packets = [deck[12 * r + 3 * k : 12 * r + 3 * k + 3] for r in range(3)]
        assert game.dealt((dealer + 1 + k) % 4) == sum(packets, ())
    assert game.stock_size == 18
    single = deal(seed=8, dealer=dealer)
    assert single.deck == deck  # the same shuffle, dealt another way
    assert single.dealt((dealer + 1) % 4) != game.dealt((dealer + 1) % 4)


# -- R4 misdeal ---------------------------------------------------------------------------


def no_face_and_no_point_card(hand):
    return all(card[0] in "456789" for card in hand)


def a_hand_that_may_ask_for_a_redeal(seed):
    game = deal(seed, dealer=0, **HOUSE["misdeal"])
    seats = [seat for seat in range(4) if no_face_and_no_point_card(game.hand(seat))]
    return (game, seats[0], seed) if seats else None


def to_turn(game, seat):
    while game.waiting_for != (seat,):
        act(game, "pass")


def test_r4_misdeal_a_player_dealt_no_face_and_no_point_card_may_ask_for_a_redeal():
    game, seat, _ = first(a_hand_that_may_ask_for_a_redeal, limit=30000)
    to_turn(game, seat)
    assert Action.redeal() in game.legal_actions(seat)
    first_hands = [game.hand(s) for s in range(4)]
    act(game, "redeal", seat)
    assert game.phase is Phase.BID
    assert game.bids == ()
    assert [game.hand_size(s) for s in range(4)] == [9, 9, 9, 9]
    assert [game.hand(s) for s in range(4)] != first_hands


def test_r4_misdeal_is_off_by_default_and_for_a_hand_with_a_face_or_point_card():
    _, seat, seed = first(a_hand_that_may_ask_for_a_redeal, limit=30000)
    default = deal(seed, dealer=0)
    assert no_face_and_no_point_card(default.hand(seat))
    to_turn(default, seat)
    assert Action.redeal() not in default.legal_actions(seat)
    with pytest.raises(IllegalActionError):
        default.apply(Action.redeal(), seat)
    house = deal(seed, dealer=0, **HOUSE["misdeal"])
    for other in range(4):
        if not no_face_and_no_point_card(house.hand(other)):
            to_turn(house, other)
            assert Action.redeal() not in house.legal_actions(other)
            return


# -- R5 a plain 10 bid, the dealer's equal bid, the stuck dealer's bid ---------------------


def test_r5_by_default_there_is_no_plain_10_bid():
    game = deal(seed=1, dealer=0)
    assert Action.parse("bid 10") == Action.bid(PLAIN_TEN)
    assert PLAIN_TEN not in bids_allowed(game)[0]
    with pytest.raises(IllegalActionError):
        game.apply(Action.bid(PLAIN_TEN))


def test_r5_house_rule_a_plain_10_bid_ranks_between_9_and_the_moon():
    game = deal(seed=1, dealer=0, **HOUSE["ten_bid"])
    assert bids_allowed(game) == ({4, 5, 6, 7, 8, 9, PLAIN_TEN, MOON}, True)
    act(game, "bid 9")
    assert bids_allowed(game) == ({PLAIN_TEN, MOON}, True)
    act(game, "bid 10")
    assert game.phase is Phase.BID  # a plain 10 does not end the bidding
    assert bids_allowed(game) == ({MOON}, True)
    act(game, "pass")
    act(game, "pass")
    assert (game.pitcher, game.contract) == (2, PLAIN_TEN)


def a_plain_10_made(seed):
    for suit in SUITS:
        game = to_play(deal(seed, dealer=3, **HOUSE["ten_bid"]), 0, suit, bid=PLAIN_TEN)
        if play_checked(game.copy(), team_plays(0)).taken[0] == 10:
            return game
    return None


def test_r5_house_rule_a_plain_10_made_scores_10_and_the_game_goes_on():
    game = first(a_plain_10_made)
    play_checked(game, team_plays(0))
    assert game.team_scores == (10, 0)
    assert game.match_winner is None
    assert outcome(game).made and not outcome(game).moon


def test_r5_house_rule_a_plain_10_failed_subtracts_10_and_the_game_goes_on():
    game = to_play(deal(2, dealer=3, **HOUSE["ten_bid"]), 1, "C", bid=PLAIN_TEN)
    play_checked(game)
    assert game.taken[1] < 10
    assert game.team_scores == (game.taken[0], -10)
    assert game.match_winner is None


def test_r5_house_rule_the_dealer_may_take_the_contract_at_an_equal_bid():
    game = deal(seed=1, dealer=0, **HOUSE["dealer_equal_bid"])
    act(game, "bid 6")  # seat 1
    assert bids_allowed(game) == ({7, 8, 9, MOON}, True)  # not seat 2: it is not the dealer
    act(game, "pass")
    act(game, "pass")
    assert bids_allowed(game) == ({6, 7, 8, 9, MOON}, True)
    act(game, "bid 6")
    assert (game.pitcher, game.contract) == (0, 6)


def test_r5_house_rule_the_stuck_dealer_may_bid_any_amount_but_may_not_pass():
    game = deal(seed=1, dealer=2, **HOUSE["stuck_dealer_any_bid"])
    for _ in range(3):
        act(game, "pass")
    assert bids_allowed(game) == ({4, 5, 6, 7, 8, 9, MOON}, False)
    with pytest.raises(IllegalActionError):
        game.apply(Action.pass_(), 2)
    act(game, "bid 7")
    assert (game.pitcher, game.contract) == (2, 7)


def test_r5_house_rule_the_stuck_dealer_may_shoot_the_moon():
    game = deal(seed=1, dealer=2, **HOUSE["stuck_dealer_any_bid"])
    for _ in range(3):
        act(game, "pass")
    act(game, "bid moon")
    assert (game.pitcher, game.contract, game.phase) == (2, MOON, Phase.TRUMP)
