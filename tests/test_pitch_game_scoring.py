"""A Pitch hand's score and the match's end (RULES.md R8, R9), and a match through engine.match."""

import random

import pytest

from engine.game.agents import RandomBot
from engine.game.interface import Family, GameState
from engine.game.registry import family, family_playing
from engine.match import Match
from engine.match.driver import play_match
from engine.pitch import FAMILY, MOON, PitchGame, PitchRules
from engine.pitch.scoring import score_hand
from engine.pitch.words import event_text
from engine.units.ports import SimulatedUnit

RULES = PitchRules()


def score(before, pitcher, contract, taken, rules=RULES, target=52):
    return score_hand(rules, target, before, pitcher=pitcher, contract=contract, taken=taken)


def test_a_made_contract_adds_the_points_taken_not_the_bid():
    out = score((10, 20), 0, 5, (7, 3))
    assert out.made and out.team_scores == (17, 23) and out.winner == 0 and out.points == 7
    assert out.scores == (17, 23, 17, 23) and out.match_winner is None


def test_the_house_rule_made_bid_adds_only_the_bid():
    assert score((10, 20), 0, 5, (7, 3), PitchRules(made="bid")).team_scores == (15, 23)


def test_a_set_subtracts_the_bid_and_may_go_negative():
    out = score((2, 20), 2, 6, (5, 5))
    assert not out.made and out.team_scores == (-4, 25) and out.winner == 3 and out.points == 5


def test_a_made_moon_with_a_score_above_zero_wins_at_once():
    out = score((12, 40), 1, MOON, (0, 10))
    assert out.moon and out.made and out.match_winner == 1 and out.team_scores == (12, 52)


def test_a_made_moon_at_exactly_zero_wins_but_may_reset_by_house_rule():
    assert score((30, 0), 3, MOON, (0, 10)).match_winner == 1
    out = score((30, 0), 3, MOON, (0, 10), PitchRules(moon_zero="resets"))
    assert out.match_winner is None and out.team_scores == (30, 0)


def test_a_made_moon_with_a_negative_score_resets_it_to_zero():
    out = score((-14, 30), 0, MOON, (10, 0))
    assert out.match_winner is None and out.team_scores == (0, 30)
    after = score((-4, 30), 0, MOON, (10, 0), PitchRules(moon_score="after"))
    assert after.match_winner == 0  # -4 + 10 is above 0


def test_a_failed_moon_loses_the_game_at_once():
    out = score((45, 3), 0, MOON, (9, 1))
    assert not out.made and out.match_winner == 1 and out.team_scores == (35, 4)


def test_burned_points_make_a_moon_impossible():
    assert not score((5, 5), 0, MOON, (9, 0)).made


def test_the_defenders_can_go_out_while_defending():
    out = score((10, 48), 0, 4, (6, 4))
    assert out.made and out.match_winner == 1


def test_both_teams_out_the_pitchers_team_wins_or_by_house_rule_the_higher():
    out = score((50, 51), 0, 4, (6, 4))
    assert out.team_scores == (56, 55) and out.match_winner == 0
    out = score((49, 51), 1, 4, (3, 7), PitchRules(both_out="higher"))
    assert out.team_scores == (52, 58) and out.match_winner == 1
    out = score((51, 47), 1, 4, (3, 7), PitchRules(both_out="higher"))
    assert out.team_scores == (54, 54) and out.match_winner == 1  # a tie: the pitcher's


def test_pitch_is_in_the_registry_and_satisfies_the_interface():
    assert family("pitch") is FAMILY and family_playing("pitch") is FAMILY
    game = FAMILY.new(4, "pitch", seed=1)
    assert isinstance(FAMILY, Family) and isinstance(game, GameState)
    assert game.target == 52 and game.claimants() == () and game.pending_showdown is None


@pytest.mark.parametrize("seed", range(6))
def test_random_bots_play_a_match_to_the_end(seed):
    bots = [RandomBot(random.Random(seed * 4 + i)) for i in range(4)]
    result = play_match(
        4, bots, SimulatedUnit(random.Random(1)), variant="pitch", seed=seed, target=52, debug=True
    )
    assert result.winner in (0, 1) and result.showdowns == 0
    kinds = [e.kind for e in result.events]
    assert kinds[:3] == ["match_start", "round_start", "bid"] and kinds[-1] == "match_end"
    names = ["Ann", "Bob", "Cy", "Di"]
    assert all(event_text(e, names) for e in result.events)


def test_play_match_needs_no_unit_for_pitch_and_plays_to_its_own_target():
    bots = [RandomBot(random.Random(i)) for i in range(4)]
    result = play_match(4, bots, None, variant="pitch", seed=9)
    start = result.events[0]
    assert start.kind == "match_start" and start.data["target"] == 52


def test_a_match_of_many_hands_reaches_the_target():
    game = PitchGame.new(seed=4)
    match = Match(game, names=["Ann", "Bob", "Cy", "Di"])
    match.begin()
    rng = random.Random(4)
    while game.match_winner is None:
        if game.round_over:
            match.next_round()
        # Never Moon: hands pile up until a team reaches 52.
        legal = [a for a in game.legal_actions() if str(a) != "bid moon"]
        match.act(game.waiting_for[0], rng.choice(legal))
    assert max(game.team_scores) >= 52 and not game.outcome.moon
    assert game.round > 3
    assert match.result.winner == game.match_winner
