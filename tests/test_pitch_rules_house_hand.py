"""10 Point Pitch's house rules for the hand after the bidding (R6-R9): the refill's order
and counts, a short stock, the burn, the lead, the low, the score, the Moon, both teams out.
Each alternative is tested where it differs from the default, the default alongside."""

import itertools
import random

import pytest

from engine.game.errors import IllegalActionError
from engine.pitch.actions import MOON, Action, Kind
from engine.pitch.game import Phase
from engine.pitch.rules import PitchRules
from tests.pitch_helpers import (
    HOUSE,
    SUITS,
    a_moon_hand,
    act,
    card_tokens,
    deal,
    first,
    outcome,
    play_checked,
    play_lowest,
    ref_is_trump,
    ref_points,
    refill_counts,
    rewritten,
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


# -- R6.3 the refill: its order, its counts, a short stock ------------------------------


@pytest.mark.parametrize("pitcher", range(4))
def test_r6_house_rule_the_refill_starts_with_the_pitcher_then_clockwise(pitcher):
    game = to_play(deal(8, dealer=0, **HOUSE["refill_pitcher_first"]), pitcher, "D")
    served = [game.drawn((pitcher + k) % 4) for k in range(4)]
    drawn = tuple(card for cards in served for card in cards)
    assert drawn == game.deck[36 : 36 + len(drawn)]
    assert [len(cards) for cards in served] == [game.refills[(pitcher + k) % 4] for k in range(4)]


def test_r6_house_rule_refill_from_the_pitcher_differs_from_the_default_order():
    house = to_play(deal(8, dealer=0, **HOUSE["refill_pitcher_first"]), 3, "D")
    default = to_play(deal(8, dealer=0), 3, "D")
    assert house.refills == default.refills
    assert house.drawn(3) == house.deck[36 : 36 + refill_counts(house)[3]]
    assert default.drawn(1) == default.deck[36 : 36 + refill_counts(default)[1]]
    assert house.drawn(3) != default.drawn(3)


def test_r6_house_rule_the_refill_counts_are_hidden_but_each_seat_knows_its_own():
    game = to_stock(deal(6, dealer=0, **HOUSE["refill_counts_hidden"]), 1, "H")
    assert None not in game.refills
    assert game.view(None).refills == (None, None, None, None)
    for seat in range(4):
        mine = tuple(game.refills[s] if s == seat else None for s in range(4))
        assert game.view(seat).refills == mine


def a_short_stock(seed):
    game = deal(seed, dealer=0)
    for suit in SUITS:
        counts = [len(trumps_held(game, seat, suit)) for seat in range(4)]
        if sum(max(0, 6 - count) for count in counts) > 18:
            return seed, suit
    return None


def test_r6_house_rule_a_short_stock_is_made_up_from_the_discards_as_dead_cards():
    seed, suit = first(a_short_stock, limit=20000)
    game = deal(seed, dealer=0, **HOUSE["short_stock_discards"])
    win_bidding(game, 1)
    dealt = [set(game.hand(seat)) for seat in range(4)]
    trumps = [len(trumps_held(game, seat, suit)) for seat in range(4)]
    act(game, f"trump {suit}")
    discarded = {card for hand in dealt for card in hand if not ref_is_trump(card, suit)}
    assert [game.hand_size(seat) for seat in range(4)] == [max(6, n) for n in trumps]
    assert game.stock_size == 0
    from_discards = set().union(*(game.drawn(seat) for seat in range(4))) - set(game.deck[36:])
    assert from_discards  # the stock was short
    assert from_discards <= discarded - set(game.deck[36:])
    assert not any(
        card in trumps_held(game, seat, suit) for seat in range(4) for card in from_discards
    )


def test_r6_by_default_a_short_stock_leaves_the_last_seats_short():
    seed, suit = first(a_short_stock, limit=20000)
    game = deal(seed, dealer=0)
    win_bidding(game, 1)
    act(game, f"trump {suit}")
    assert sum(refill_counts(game)) == 18
    assert min(game.hand_size(seat) for seat in range(4)) < 6


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


# -- R7 the lead to the partner --------------------------------------------------------


def a_lead_the_partner_takes(seed):
    """A hand played lowest-first in which a trick's winner holds no trump, its left-hand
    neighbour and its partner do: the house rule gives the lead to the partner."""
    for suit in SUITS:
        game = to_play(deal(seed, dealer=0, **HOUSE["lead_to_partner"]), seed % 4, suit)
        model = play_checked(game.copy(), play_lowest, lead_to_partner=True)
        for before, after in itertools.pairwise(model.done):
            winner = before[2]
            later = {
                seat
                for _, cards, _, _ in model.done[model.done.index(after) :]
                for seat, _ in cards
            }
            if after[0] == (winner + 2) % 4 and (winner + 1) % 4 in later:
                return game
    return None


def test_r7_house_rule_a_leader_without_trumps_passes_the_lead_to_its_partner_first():
    game = first(a_lead_the_partner_takes)
    model = play_checked(game, play_lowest, lead_to_partner=True)
    leads = [after[0] for after in model.done[1:]]
    assert leads == [trick.leader for trick in game.tricks[1:]]


@pytest.mark.parametrize("seed", range(6))
def test_r7_house_rule_lead_to_the_partner_every_hand_against_the_rules(seed):
    game = to_play(deal(seed, dealer=0, **HOUSE["lead_to_partner"]), seed % 4, SUITS[seed % 4])
    play_checked(game, random_plays(seed), lead_to_partner=True)


def a_pitcher_without_trump_whose_partner_has_some(seed):
    for suit in SUITS:
        game = deal(seed, dealer=0, **HOUSE["lead_to_partner"])
        if trumps_held(game, 1, suit):
            continue
        to_stock(game, 1, suit)
        if game.phase is Phase.STOCK:
            act(game, "keep")
        while game.phase is Phase.BURN:
            act(game, f"burn {trumps_held(game, seat_to_act(game), suit)[-1]}")
        holders = [bool(trumps_held(game, seat, suit)) for seat in (1, 2, 3)]
        if holders == [False, True, True]:
            return game
    return None


def test_r7_house_rule_a_pitcher_without_trumps_lets_its_partner_lead():
    game = first(a_pitcher_without_trump_whose_partner_has_some, limit=20000, start=8453)
    assert game.waiting_for == (3,)  # seat 2 on its left holds trumps too
    play_checked(game, lead_to_partner=True)


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
    assert outcome(game).points == 4


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


# -- R9 the Moon's score, both teams out -------------------------------------------------


def moon_from(scores, **house):
    """The first Moon hand (seat 0, team A) from ``scores`` under ``house``, played out."""
    game, suit = first(a_moon_hand)
    rules = str(PitchRules(**house)) if house else "-"
    game = rewritten(game, scores=scores, rules=rules)
    to_play(game, 0, suit, bid=MOON)
    play_checked(game, team_plays(0))
    assert game.taken == (10, 0)
    return game


def test_r9_by_default_the_moons_score_above_0_is_the_score_before_the_hand():
    game = moon_from("-5,20")
    assert game.match_winner is None
    assert game.team_scores == (0, 20)


def test_r9_house_rule_the_moons_score_above_0_is_the_score_after_the_hand():
    game = moon_from("-5,20", **HOUSE["moon_score_after"])
    assert game.match_winner == 0  # -5 and the 10 taken: above 0


def test_r9_house_rule_moon_score_after_still_resets_a_score_below_0_after_the_hand():
    game = moon_from("-15,20", **HOUSE["moon_score_after"])
    assert game.match_winner is None
    assert game.team_scores == (0, 20)


def test_r9_by_default_a_moon_made_at_a_score_of_exactly_0_wins():
    assert moon_from("0,20").match_winner == 0


def test_r9_house_rule_a_moon_made_at_a_score_of_exactly_0_resets_it_and_play_goes_on():
    game = moon_from("0,20", **HOUSE["moon_zero_resets"])
    assert game.match_winner is None
    assert game.team_scores == (0, 20)
    assert moon_from("3,20", **HOUSE["moon_zero_resets"]).match_winner == 0


def a_made_bid_with_points_to_both(seed):
    game = to_play(deal(seed, dealer=3), 1, "H")
    taken = play_checked(game.copy(), team_plays(1)).taken
    return (game, taken) if taken[1] >= 4 and taken[0] >= 1 else None


def both_out(house, margin):
    """Both teams past 52 in one hand: B (the pitcher's) at exactly 52, A ``margin`` above."""
    game, (taken_a, taken_b) = first(a_made_bid_with_points_to_both)
    scores = f"{52 + margin - taken_a},{52 - taken_b}"
    rules = str(PitchRules(**house)) if house else "-"
    game = rewritten(game, scores=scores, rules=rules)
    play_checked(game, team_plays(1))
    assert game.team_scores == (52 + margin, 52)
    return game


def test_r9_by_default_when_both_teams_reach_52_the_pitchers_team_wins():
    assert both_out({}, margin=5).match_winner == 1


def test_r9_house_rule_when_both_teams_reach_52_the_higher_score_wins():
    assert both_out(HOUSE["both_out_higher"], margin=5).match_winner == 0


def test_r9_house_rule_both_out_higher_a_tie_goes_to_the_pitchers_team():
    assert both_out(HOUSE["both_out_higher"], margin=0).match_winner == 1
