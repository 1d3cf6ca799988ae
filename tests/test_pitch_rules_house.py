"""10 Point Pitch's house rules: each [choice] of RULES.md is the default, and its named
alternative a PitchRules field (tests/pitch_helpers.HOUSE names them). Each alternative is
tested where it differs from the default, the default alongside."""

import random

import pytest

from engine.game.errors import IllegalActionError, NotationError
from engine.pitch.actions import MOON, Action, Kind
from engine.pitch.game import Phase, PitchGame
from engine.pitch.rules import PitchRules
from tests.pitch_helpers import (
    HOUSE,
    SUITS,
    act,
    card_tokens,
    deal,
    first,
    play_checked,
    play_lowest,
    ref_points,
    seat_to_act,
    strings_in,
    team,
    team_plays,
    to_play,
    to_stock,
    trumps_held,
    win_bidding,
)


def random_plays(seed):
    rng = random.Random(seed)

    def choose(game, seat):
        return rng.choice([a.value for a in game.legal_actions(seat) if a.kind is Kind.PLAY])

    return choose


def view_cards(game, seat):
    return set().union(*map(card_tokens, strings_in(game.view(seat))))


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
        cards_so_far = []
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


# -- R5 the dealer's equal bid, the stuck dealer's bid ---------------------------------------


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


# -- R6 the burn: face down, the point cards kept ------------------------------------------


def a_burn(seed, **house):
    for suit in SUITS:
        game = to_stock(deal(seed, dealer=0, **house), 1, suit)
        if game.phase is Phase.STOCK:
            act(game, "keep")
        if game.phase is Phase.BURN and game.waiting_for == (1,):
            return game
    return None


def a_face_down_burn(seed):
    return a_burn(seed, **HOUSE["burn_face_down"])


def a_burn_with_point_and_other_trumps(seed):
    game = a_burn(seed, **HOUSE["keep_point_trumps"])
    if game is None:
        return None
    values = {ref_points(card, game.trump) > 0 for card in trumps_held(game, 1, game.trump)}
    return game if values == {True, False} else None


def test_r6_house_rule_burned_cards_are_face_down_seen_by_the_burner_only():
    game = first(a_face_down_burn)
    card = trumps_held(game, 1, game.trump)[-1]
    act(game, f"burn {card}")
    assert game.burned[0] == (1, card)
    assert card in view_cards(game, 1)
    for seat in (None, 0, 2, 3):
        assert card not in view_cards(game, seat)
    assert card not in card_tokens(game.notation())
    assert card not in card_tokens(repr(game))


def test_r6_house_rule_face_down_burns_stay_hidden_after_the_hand():
    game = first(a_face_down_burn)
    card = trumps_held(game, 1, game.trump)[-1]
    act(game, f"burn {card}")
    while game.phase is Phase.BURN:
        act(game, f"burn {trumps_held(game, seat_to_act(game), game.trump)[-1]}")
    play_checked(game)
    assert card not in view_cards(game, None)
    assert card not in card_tokens(game.notation())


def test_r6_house_rule_no_point_card_is_burned_while_a_non_point_trump_is_held():
    game = first(a_burn_with_point_and_other_trumps)
    trumps = trumps_held(game, 1, game.trump)
    burns = {a.value for a in game.legal_actions(1) if a.kind is Kind.BURN}
    assert burns == {card for card in trumps if not ref_points(card, game.trump)}
    point = next(card for card in trumps if ref_points(card, game.trump))
    with pytest.raises(IllegalActionError):
        game.apply(Action.burn(point), 1)


def a_default_burn_with_a_point_trump(seed):
    game = a_burn(seed)
    if game is None:
        return None
    held = trumps_held(game, 1, game.trump)
    return game if any(ref_points(card, game.trump) for card in held) else None


def test_r6_by_default_a_point_card_may_be_burned():
    game = first(a_default_burn_with_a_point_trump)
    trumps = trumps_held(game, 1, game.trump)
    burns = {a.value for a in game.legal_actions(1) if a.kind is Kind.BURN}
    assert burns == set(trumps)
    point = next(card for card in trumps if ref_points(card, game.trump))
    act(game, f"burn {point}")
    assert game.burned == ((1, point),)


# -- R8 low to holder -------------------------------------------------------------------


def a_2_taken_by_the_other_team(seed, house=True):
    rules = HOUSE["low_to_holder"] if house else {}
    game = to_play(deal(seed, dealer=3, **rules), 1, "S")
    trial = game.copy()
    play_checked(trial, random_plays(seed), low_to_holder=house)
    for trick in trial.tricks:
        for seat, card in trick.cards:
            if card == "2S" and team(seat) != team(trick.winner):
                return game, seed, team(seat)
    return None


def test_r8_house_rule_low_to_holder_the_2_scores_for_the_team_that_played_it():
    game, seed, holder = first(a_2_taken_by_the_other_team)
    model = play_checked(game, random_plays(seed), low_to_holder=True)
    assert game.taken == tuple(model.taken)
    by_trick = [0, 0]
    for trick in game.tricks:
        for _, card in trick.cards:
            by_trick[team(trick.winner)] += ref_points(card, "S")
    assert game.taken[holder] == by_trick[holder] + 1


@pytest.mark.parametrize("seed", range(6))
def test_r8_house_rule_low_to_holder_every_hand_against_the_rules(seed):
    game = to_play(deal(seed, dealer=3, **HOUSE["low_to_holder"]), 1, SUITS[seed % 4])
    model = play_checked(game, random_plays(seed), low_to_holder=True)
    assert game.taken == tuple(model.taken)


# -- R9 add only the bid ------------------------------------------------------------------


def a_bid_of_4_made_with_more(seed):
    game = to_play(deal(seed, dealer=3, **HOUSE["add_only_the_bid"]), 1, "H")
    trial = game.copy()
    model = play_checked(trial, team_plays(1))
    return (game, seed) if model.taken[1] > 4 else None


def test_r9_house_rule_add_only_the_bid_a_made_bid_scores_the_bid():
    game, _ = first(a_bid_of_4_made_with_more)
    play_checked(game, team_plays(1))
    assert game.taken[1] > 4
    assert game.team_scores == (game.taken[0], 4)
    assert game.outcome.points == 4


def test_r9_house_rule_add_only_the_bid_a_set_still_subtracts_the_bid():
    for seed in range(10):
        game = to_play(deal(seed, dealer=3, **HOUSE["add_only_the_bid"]), 1, "H", bid=8)
        play_checked(game)
        if game.taken[1] < 8:
            assert game.team_scores == (game.taken[0], -8)
            return
    raise AssertionError("no seed below 10 sets a bid of 8")


def test_r9_house_rules_combine():
    house = {**HOUSE["low_to_holder"], **HOUSE["add_only_the_bid"], **HOUSE["burn_face_down"]}
    game = to_play(deal(3, dealer=3, **house), 1, "D")
    model = play_checked(game, play_lowest, low_to_holder=True)
    assert game.taken == tuple(model.taken)
    assert game.rules == PitchRules(**house)
    win = game.taken[1] >= 4
    assert game.team_scores[1] == (4 if win else -4)


def test_the_house_rules_are_fixed_for_the_game():
    game = deal(3, dealer=3, **HOUSE["low_to_holder"])
    to_play(game, 1, "D")
    play_checked(game, low_to_holder=True)
    game.next_round()
    assert game.rules == PitchRules(**HOUSE["low_to_holder"])
    win_bidding(game, 2)
    assert game.rules == PitchRules(**HOUSE["low_to_holder"])
