"""10 Point Pitch, RULES.md R8 and R9: the points of a hand, the score after it, the Moon,
the end of the game. Hands are played through ``play_checked`` (tests/pitch_helpers.py),
and each hand's score is compared with ``ref_hand_score``, R9 worked out apart."""

import random

import pytest

from engine.game.errors import StateError
from engine.pitch.actions import MOON, Kind
from engine.pitch.game import Phase
from tests.pitch_helpers import (
    SUITS,
    RefTricks,
    a_moon_hand,
    act,
    deal,
    first,
    moon_made,
    outcome,
    play_checked,
    play_lowest,
    ref_hand_score,
    ref_points,
    rewritten,
    seat_to_act,
    team,
    team_plays,
    to_play,
)


def played(seed, pitcher=1, suit="H", bid=4, stock="keep", choose=play_lowest, **game):
    """Seed ``seed``'s first hand, dealer 3 (seat 0 bids first), played out."""
    hand = to_play(deal(seed, dealer=3, **game), pitcher, suit, bid=bid, stock=stock)
    model = play_checked(hand, choose)
    return hand, model


def random_plays(seed):
    rng = random.Random(seed)

    def choose(game, seat):
        return rng.choice([a.value for a in game.legal_actions(seat) if a.kind is Kind.PLAY])

    return choose


# -- searched hands ---------------------------------------------------------------------


def a_made_bid_of_4_with_more_taken(seed):
    game, model = played(seed, pitcher=1, bid=4, choose=team_plays(1))
    return (seed, game) if model.taken[1] > 4 else None


def a_set_bid_of_7(seed):
    game, model = played(seed, pitcher=2, bid=7)
    return (seed, game) if model.taken[0] < 7 and model.taken[1] > 0 else None


def a_2_taken_by_the_other_team(seed):
    game, model = played(seed, suit="S", choose=random_plays(seed))
    for _, cards, winner, _ in model.done:
        for seat, card in cards:
            if card == "2S" and team(seat) != team(winner):
                return seed, game
    return None


def a_trick_with_the_3_as_its_only_point(seed):
    game, _ = played(seed, suit="D", choose=random_plays(seed))
    for trick in game.tricks:
        cards = [card for _, card in trick.cards]
        if "3D" in cards and sum(ref_points(card, "D") for card in cards) == 3:
            return seed, game, trick
    return None


def moon_after_a_set(seed):
    """Team A set on a 9 in the first hand (score -9), then seat 2 makes the Moon."""
    game = to_play(deal(seed, dealer=3), 0, "C", bid=9)
    model = play_checked(game)
    if model.taken[0] >= 9:
        return None
    game.next_round()
    suit = moon_made(game, 2)
    return (game, suit) if suit else None


def moon_after_points_taken(seed):
    """Team A defends and takes points in the first hand, then seat 2 makes the Moon."""
    game = to_play(deal(seed, dealer=3), 1, "C", bid=4)
    model = play_checked(game)
    if not 0 < model.taken[0] < 10 or game.team_scores[0] <= 0:
        return None
    game.next_round()
    suit = moon_made(game, 2)
    return (game, suit) if suit else None


def both_teams_to_4(seed):
    _, model = played(seed, pitcher=1, target=4, choose=random_plays(seed))
    return seed if min(model.taken) >= 4 else None


def defenders_to_4_on_a_set(seed):
    _, model = played(seed, pitcher=1, bid=6, target=4, choose=random_plays(seed))
    return seed if model.taken[1] < 6 and model.taken[0] >= 4 else None


def burn_a_point(game, seat):
    """A burn of a point card if one is allowed, else of any trump."""
    burns = [a.value for a in game.legal_actions(seat) if a.kind is Kind.BURN]
    return max(burns, key=lambda card: ref_points(card, game.trump))


def a_moon_with_a_point_burned(seed):
    for suit in SUITS:
        game = to_play(deal(seed, dealer=3), 1, suit, bid=MOON, burn=burn_a_point)
        if any(ref_points(card, suit) for _, card in game.burned):
            return game
    return None


# -- R8 points in a hand ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_r8_each_trump_scores_for_the_team_that_wins_its_trick(seed):
    game, model = played(seed, pitcher=seed % 4, suit=SUITS[seed % 4], choose=random_plays(seed))
    assert game.taken == tuple(model.taken)
    assert outcome(game).taken == game.taken


@pytest.mark.parametrize("seed", range(6))
def test_r8_a_hand_is_worth_10_points_less_the_burned_ones(seed):
    game, _ = played(seed, pitcher=2, suit=SUITS[seed % 4], choose=random_plays(seed))
    burned = sum(ref_points(card, game.trump) for _, card in game.burned)
    assert sum(game.taken) + burned == 10
    assert sum(trick.points for trick in game.tricks) == 10 - burned


def test_r8_the_3_of_trumps_is_worth_3():
    *_, trick = first(a_trick_with_the_3_as_its_only_point)
    assert trick.points == 3


def test_r8_the_2_goes_to_the_team_that_takes_it_not_to_the_one_that_held_it():
    _, game = first(a_2_taken_by_the_other_team)
    to_taker, to_holder = [0, 0], [0, 0]
    for trick in game.tricks:
        for seat, card in trick.cards:
            to_taker[team(trick.winner)] += ref_points(card, "S")
            to_holder[team(seat if card == "2S" else trick.winner)] += ref_points(card, "S")
    assert game.taken == tuple(to_taker) != tuple(to_holder)


# -- R9 scoring after each hand ---------------------------------------------------------


def test_r9_a_made_bid_adds_the_points_taken_not_the_bid():
    _, game = first(a_made_bid_of_4_with_more_taken)
    taken_a, taken_b = game.taken
    assert game.team_scores == (taken_a, taken_b)
    assert taken_b > 4
    outcome = game.outcome
    assert (outcome.made, outcome.winner, outcome.points) == (True, 1, taken_b)
    assert (outcome.pitcher, outcome.contract, outcome.moon) == (1, 4, False)


def a_pitcher_taking_4_to_8(seed):
    game = deal(seed, dealer=3)
    trial = to_play(game.copy(), 1, "H")
    taken = play_checked(trial, team_plays(1)).taken[1]
    return (game, taken) if 4 <= taken <= 8 else None  # one more is a bid, not the Moon


def test_r9_a_bid_is_made_when_the_points_taken_equal_it_and_set_one_above():
    start, taken = first(a_pitcher_taking_4_to_8)
    exact = to_play(start.copy(), 1, "H", bid=taken)
    play_checked(exact, team_plays(1))  # the bid changes nothing in the play
    assert exact.taken[1] == taken
    assert outcome(exact).made and exact.team_scores == (exact.taken[0], taken)
    over = to_play(start.copy(), 1, "H", bid=taken + 1)
    play_checked(over, team_plays(1))
    assert not outcome(over).made and over.team_scores == (over.taken[0], -(taken + 1))


def test_r9_a_set_subtracts_the_bid_and_the_score_may_go_negative():
    _, game = first(a_set_bid_of_7)
    taken_b = game.taken[1]
    assert game.team_scores == (-7, taken_b)
    assert game.scores == (-7, taken_b, -7, taken_b)
    assert (outcome(game).made, outcome(game).winner, outcome(game).points) == (False, 3, taken_b)


@pytest.mark.parametrize("seed", range(8))
def test_r9_the_defenders_always_add_the_points_they_took(seed):
    game, model = played(seed, pitcher=seed % 4, bid=4 + seed % 6, choose=random_plays(seed))
    defenders = 1 - team(game.pitcher)
    assert game.team_scores[defenders] == model.taken[defenders]
    expected, winner = ref_hand_score((0, 0), game.pitcher, game.contract, game.taken)
    assert (game.team_scores, game.match_winner) == (expected, winner)


def test_r9_two_hands_add_up_and_a_negative_score_carries_over():
    game = to_play(deal(5, dealer=3), 1, "H", bid=9)
    play_checked(game)
    first_scores, _ = ref_hand_score((0, 0), 1, 9, game.taken)
    assert game.team_scores == first_scores
    assert first_scores[1] == -9  # nine is too many for seed 5's lowest-first play
    game.next_round()
    assert game.team_scores == first_scores
    to_play(game, 2, "S", bid=5)
    play_checked(game)
    expected, _ = ref_hand_score(first_scores, 2, 5, game.taken)
    assert game.team_scores == expected


def test_r9_the_moon_made_from_a_score_of_0_wins_the_game_at_once():
    game, suit = first(a_moon_hand)
    to_play(game, 0, suit, bid=MOON)
    play_checked(game, team_plays(0))
    assert game.taken == (10, 0)
    assert game.match_winner == 0 == outcome(game).match_winner
    assert outcome(game).moon and outcome(game).made
    assert game.phase is Phase.OVER
    with pytest.raises(StateError):
        game.next_round()


def test_r9_the_moon_made_from_a_score_above_0_wins_the_game_at_once():
    game, suit = first(moon_after_points_taken, limit=3000)
    assert 0 < game.team_scores[0] < 52
    to_play(game, 2, suit, bid=MOON)
    play_checked(game, team_plays(0))
    assert game.match_winner == 0


def test_r9_the_moon_made_from_a_negative_score_sets_it_to_0_and_play_goes_on():
    game, suit = first(moon_after_a_set, limit=3000)
    assert game.team_scores[0] == -9
    before_b = game.team_scores[1]
    to_play(game, 2, suit, bid=MOON)  # a team below 0 may shoot the Moon
    play_checked(game, team_plays(0))
    assert game.taken == (10, 0)
    assert game.team_scores == (0, before_b)
    assert game.match_winner is None
    assert outcome(game).made and outcome(game).moon
    game.next_round()
    assert game.round == 3


@pytest.mark.parametrize("seed", range(4))
def test_r9_the_moon_failed_loses_the_game_at_once(seed):
    game = to_play(deal(seed, dealer=3), 1, SUITS[seed], bid=MOON)
    play_checked(game, random_plays(seed))
    assert game.taken[1] < 10
    assert game.match_winner == 0 == outcome(game).match_winner
    assert not outcome(game).made
    assert game.phase is Phase.OVER


def test_r9_a_burned_point_makes_the_moon_impossible():
    game = first(a_moon_with_a_point_burned)
    play_checked(game, team_plays(1))
    assert game.taken[1] < 10
    assert game.match_winner == 0
    assert not outcome(game).made


def test_r9_the_game_is_won_after_a_hand_not_in_the_middle_of_one():
    for seed in range(20):
        game = to_play(deal(seed, dealer=3, target=4), 1, "H")
        model = RefTricks.start(game)
        while game.phase is Phase.PLAY:
            assert game.match_winner is None and not game.round_over
            seat = seat_to_act(game)
            card = play_lowest(game, seat)
            act(game, f"play {card}")
            model.play(seat, card)
            if max(model.taken) >= 4 and game.phase is Phase.PLAY:
                # A team is past the target, the hand goes on and nobody has won yet.
                assert game.match_winner is None and game.waiting_for
                play_checked_from_here(game)
                assert game.match_winner is not None
                return
    raise AssertionError("no seed below 20 reaches the target before the hand's end")


def play_checked_from_here(game):
    while game.phase is Phase.PLAY:
        act(game, f"play {play_lowest(game, game.waiting_for[0])}")


def test_r9_when_both_teams_reach_the_target_in_one_hand_the_pitchers_team_wins():
    seed = first(both_teams_to_4)
    game, _ = played(seed, pitcher=1, target=4, choose=random_plays(seed))
    assert min(game.team_scores) >= 4
    assert game.match_winner == 1 == outcome(game).match_winner


def test_r9_the_defenders_may_win_the_game_while_defending():
    seed = first(defenders_to_4_on_a_set)
    game, _ = played(seed, pitcher=1, bid=6, target=4, choose=random_plays(seed))
    assert game.team_scores[1] == -6
    assert game.match_winner == 0


def test_r9_a_game_to_the_default_target_of_52_ends_when_a_team_reaches_it():
    game = deal(2, dealer=0)
    while game.match_winner is None:
        if game.round_over:
            game.next_round()
        to_play(game, (game.dealer + 1) % 4, "H")
        before = game.team_scores
        play_checked(game)
        expected, winner = ref_hand_score(before, (game.dealer + 1) % 4, 4, game.taken)
        assert (game.team_scores, game.match_winner) == (expected, winner)
        assert game.round < 60
    assert max(game.team_scores) >= 52
    assert game.match_winner == game.winning_team


# -- the same at the default target, from scores written into the notation ------------------


def test_r9_at_52_a_team_that_gets_there_mid_hand_has_not_won_until_the_hand_is_scored():
    game = rewritten(to_play(deal(4, dealer=3), 1, "H"), scores="50,10")
    model = RefTricks.start(game)
    passed_52_mid_hand = False
    while game.phase is Phase.PLAY:
        assert game.match_winner is None and not game.round_over
        passed_52_mid_hand |= 50 + model.taken[0] >= 52
        seat = seat_to_act(game)
        card = play_lowest(game, seat)
        act(game, f"play {card}")
        model.play(seat, card)
    assert passed_52_mid_hand
    expected, winner = ref_hand_score((50, 10), 1, 4, game.taken)
    assert (game.team_scores, game.match_winner) == (expected, winner)


def test_r9_the_moon_made_from_a_score_well_below_52_wins_at_once():
    game, suit = first(a_moon_hand)
    game = rewritten(game, scores="30,45")
    to_play(game, 0, suit, bid=MOON)
    play_checked(game, team_plays(0))
    assert game.match_winner == 0


def test_r9_the_moon_failed_loses_at_once_even_from_51():
    game = rewritten(deal(0, dealer=3), scores="51,0")
    to_play(game, 0, "H", bid=MOON)
    play_checked(game)
    assert game.taken[0] < 10
    assert game.match_winner == 1
