"""The Pitch scorekeeper (engine/pitch/scorekeeper.py): RULES.md R8-R9 from the
entries a table with real cards makes, each house rule that changes a score,
the entries refused in words, undo, and a match saved and replayed. Sans-IO."""

from __future__ import annotations

import dataclasses

import pytest

from engine.game.errors import IllegalActionError, NotationError
from engine.pitch.actions import MOON, PLAIN_TEN
from engine.pitch.cards import POINTS_IN_HAND
from engine.pitch.rules import PitchRules
from engine.pitch.scorekeeper import (
    CARD_POINTS,
    POINT_CARDS,
    SCORING_RULES,
    Scorekeeper,
    point_card_labels,
    read_entry,
    scoring_rules,
)

NAMES = ("Ann", "Bob", "Cy", "Dee")


def keeper_at(a: int, b: int, **rules) -> Scorekeeper:
    """A keeper at team scores (a, b) after one hand, for the next hand from there:
    the first hand stands for the hands that led there (its outcome set by hand)."""
    keeper = Scorekeeper(NAMES, rules=PitchRules(**rules))
    first = keeper.enter(pitcher=0, bid=4, taken=(4, 0))
    outcome = dataclasses.replace(first.outcome, scores=(a, b, a, b))
    keeper.hands[0] = dataclasses.replace(first, outcome=outcome)
    return keeper


def cards(**teams: int | None) -> dict[str, int | None]:
    """Every point card to team A (0) but those named: ``cards(T=1, HJ=None, _3=1)``."""
    said = {key.lstrip("_"): team for key, team in teams.items()}
    return {key: said.get(key, 0) for key in POINT_CARDS}


# -- R8: the point cards ------------------------------------------------------------


def test_the_point_cards_are_worth_ten_the_3_three():
    assert CARD_POINTS == {"A": 1, "J": 1, "OJ": 1, "HJ": 1, "LJ": 1, "T": 1, "2": 1, "3": 3}
    assert sum(CARD_POINTS.values()) == POINTS_IN_HAND


def test_point_cards_ticked_count_for_their_team_and_burned_ones_for_nobody():
    keeper = Scorekeeper(NAMES)
    hand = keeper.enter(pitcher=0, bid=4, cards=cards(_3=1, T=1, HJ=None))
    assert hand.entry.taken == (5, 4) and hand.entry.burned == 1
    assert keeper.team_scores == (5, 4)
    assert keeper.hand_text(hand) == (
        "Hand 1, Ann dealt: Ann bid 4 and made it with 5. Ann and Cy +5, Bob and Dee +4: "
        "5 to 4. 1 point burned. (Ann and Cy: ace, jack, off-jack, low joker, 2; "
        "Bob and Dee: 10, 3; burned: high joker)"
    )


def test_the_low_to_holder_house_rule_names_the_2_for_the_team_that_played_it():
    assert point_card_labels()["2"] == "2 of trumps (1 point)"
    holder = PitchRules(low="holder")
    assert point_card_labels(holder)["2"] == "2 of trumps (1 point, for the team that played it)"
    # the host ticks the team it counts for: under the rule, the team that played it
    keeper = Scorekeeper(NAMES, rules=holder)
    keeper.enter(pitcher=1, bid=4, cards=cards(_2=1, _3=1))
    assert keeper.team_scores == (6, 4)


# -- R9: made, set, the defenders -----------------------------------------------------


def test_a_bid_made_adds_the_points_taken_and_the_defenders_theirs():
    keeper = Scorekeeper(NAMES)
    hand = keeper.enter(pitcher=1, bid=5, taken=(3, 7))
    assert hand.made and keeper.team_scores == (3, 7)
    keeper.enter(pitcher=2, bid=6, taken=(6, 4))  # made exactly
    assert keeper.team_scores == (9, 11)


def test_a_set_subtracts_the_bid_and_a_score_may_go_negative():
    keeper = Scorekeeper(NAMES)
    hand = keeper.enter(pitcher=0, bid=7, taken=(6, 4))
    assert not hand.made and keeper.team_scores == (-7, 4)
    assert keeper.hand_text(hand) == (
        "Hand 1, Ann dealt: Ann bid 7 and was set with 6. Ann and Cy −7, Bob and Dee +4: −7 to 4."
    )


def test_the_made_house_rule_adds_only_the_bid():
    keeper = Scorekeeper(NAMES, rules=PitchRules(made="bid"))
    keeper.enter(pitcher=0, bid=5, taken=(8, 2))
    assert keeper.team_scores == (5, 2)
    keeper.enter(pitcher=1, bid=6, taken=(5, 5))  # a set is the same
    assert keeper.team_scores == (10, -4)


# -- R9: Shoot the Moon ---------------------------------------------------------------


def test_the_moon_made_with_a_score_above_0_wins_at_once():
    keeper = keeper_at(10, 30)
    hand = keeper.enter(pitcher=2, bid=MOON, taken=(10, 0))
    assert hand.made and keeper.winner == 0 and keeper.over
    assert keeper.team_scores == (52, 30)
    assert keeper.result_text() == "Ann and Cy win the match: they made the Moon, at 52 points."
    assert keeper.hand_text(hand).startswith("Hand 2, Bob dealt: Cy shot the Moon and took all 10.")


def test_the_moon_made_at_exactly_0_wins_unless_the_house_rule_resets_it():
    assert Scorekeeper(NAMES).enter(pitcher=1, bid=MOON, taken=(0, 10)).winning_team == 1
    keeper = Scorekeeper(NAMES, rules=PitchRules(moon_zero="resets"))
    keeper.enter(pitcher=1, bid=MOON, taken=(0, 10))
    assert keeper.winner is None and keeper.team_scores == (0, 0)


def test_the_moon_made_with_a_negative_score_sets_it_to_0_and_play_goes_on():
    keeper = keeper_at(20, -8)
    hand = keeper.enter(pitcher=3, bid=MOON, taken=(0, 10))
    assert hand.made and keeper.winner is None and keeper.team_scores == (20, 0)
    assert "Bob and Dee back to 0, Ann and Cy +0: 20 to 0." in keeper.hand_text(hand)


def test_the_moon_score_after_house_rule_counts_the_score_after_the_hand():
    keeper = keeper_at(20, -8, moon_score="after")  # -8 + 10 = 2, above 0: a win
    keeper.enter(pitcher=3, bid=MOON, taken=(0, 10))
    assert keeper.winner == 1


def test_the_moon_failed_loses_the_match_at_once():
    keeper = keeper_at(40, 5)
    hand = keeper.enter(pitcher=0, bid=MOON, taken=(9, 1))
    assert not hand.made and keeper.winner == 1
    assert keeper.result_text() == "Bob and Dee win the match: they saw the Moon fail, at 6 points."
    assert "Ann shot the Moon and took 9 of 10: the Moon failed." in keeper.hand_text(hand)


# -- R9: the end of the game ----------------------------------------------------------


def test_a_team_at_52_after_a_hand_wins_and_defenders_may_go_out():
    keeper = keeper_at(48, 30)
    keeper.enter(pitcher=1, bid=4, taken=(5, 5))  # team A defends and reaches 53
    assert keeper.winner == 0 and keeper.team_scores == (53, 35)
    assert keeper.result_text() == "Ann and Cy win the match with 53 points after 2 hands."


def test_both_teams_at_52_the_pitchers_team_wins_or_the_higher_under_the_house_rule():
    keeper = keeper_at(50, 47)
    keeper.enter(pitcher=1, bid=5, taken=(5, 5))  # 55 to 52: the pitcher's team
    assert keeper.team_scores == (55, 52) and keeper.winner == 1
    higher = keeper_at(50, 47, both_out="higher")
    higher.enter(pitcher=1, bid=5, taken=(5, 5))
    assert higher.winner == 0


def test_the_target_is_the_hosts():
    keeper = Scorekeeper(NAMES, target=11)
    keeper.enter(pitcher=0, bid=4, taken=(6, 4))
    assert keeper.winner is None
    keeper.enter(pitcher=0, bid=4, taken=(5, 5))
    assert keeper.winner == 0


def test_the_plain_10_house_rule_is_a_bid_of_10_that_scores_as_any_other():
    keeper = Scorekeeper(NAMES, rules=PitchRules(ten_bid=True))
    hand = keeper.enter(pitcher=0, bid=PLAIN_TEN, taken=(10, 0))
    assert hand.made and not hand.outcome.moon and keeper.winner is None
    assert keeper.team_scores == (10, 0)
    assert read_entry({"pitcher": 1, "bid": 10, "taken": [0, 9]}, keeper).bid == PLAIN_TEN
    with pytest.raises(IllegalActionError, match="there is no plain 10 bid"):
        read_entry({"pitcher": 1, "bid": 10, "taken": [0, 9]}, Scorekeeper(NAMES))


# -- the deal passes left; the host may say otherwise -----------------------------------


def test_the_deal_passes_left_and_the_host_may_name_another_dealer():
    keeper = Scorekeeper(NAMES, dealer=3)
    assert keeper.dealer == 3
    keeper.enter(pitcher=0, bid=4, taken=(4, 6))
    assert keeper.dealer == 0
    keeper.enter(pitcher=0, bid=4, taken=(4, 6), dealer=2)
    assert keeper.hands[-1].entry.dealer == 2 and keeper.dealer == 3


# -- entries refused, in words, and nothing changes -------------------------------------


@pytest.mark.parametrize(
    ("entry", "refusal"),
    [
        ({"bid": 5, "taken": [5, 5]}, "say who pitched (the player who won the bid)"),
        (
            {"pitcher": 4, "bid": 5, "taken": [5, 5]},
            "the pitcher must be a player from 0 to 3, not 4",
        ),
        (
            {"pitcher": True, "bid": 5, "taken": [5, 5]},
            "the pitcher must be a player from 0 to 3, not true",
        ),
        (
            {"pitcher": 0, "dealer": -1, "bid": 5, "taken": [5, 5]},
            "the dealer must be a player from 0 to 3, not -1",
        ),
        ({"pitcher": 0, "taken": [5, 5]}, "say the bid: 4 to 9 or Shoot the Moon"),
        (
            {"pitcher": 0, "bid": 3, "taken": [5, 5]},
            "the bid must be 4 to 9 or Shoot the Moon, not 3",
        ),
        (
            {"pitcher": 0, "bid": 11, "taken": [5, 5]},
            "the bid must be 4 to 9 or Shoot the Moon, not 11",
        ),
        (
            {"pitcher": 0, "bid": "seven", "taken": [5, 5]},
            'the bid must be 4 to 9 or Shoot the Moon, not "seven"',
        ),
        (
            {"pitcher": 0, "bid": 5},
            "say the points each team took, or which team took each point card (not both)",
        ),
        (
            {"pitcher": 0, "bid": 5, "taken": [5, 5], "cards": {}},
            "say the points each team took, or which team took each point card (not both)",
        ),
        (
            {"pitcher": 0, "bid": 5, "taken": [5]},
            "the points taken are two numbers (team A, team B), not [5]",
        ),
        (
            {"pitcher": 0, "bid": 5, "taken": [11, 0]},
            "Ann and Cy took a whole number of points from 0 to 10, not 11",
        ),
        (
            {"pitcher": 0, "bid": 5, "taken": [4, -1]},
            "Bob and Dee took a whole number of points from 0 to 10, not -1",
        ),
        (
            {"pitcher": 0, "bid": 5, "taken": [4.5, 1]},
            "Ann and Cy took a whole number of points from 0 to 10, not 4.5",
        ),
        (
            {"pitcher": 0, "bid": 5, "taken": [None, 1]},
            "say how many points Ann and Cy took (0 to 10)",
        ),
        (
            {"pitcher": 0, "bid": 5, "taken": [6, 5]},
            "Ann and Cy took 6 and Bob and Dee 5: 11 points, but a hand holds 10",
        ),
        (
            {"pitcher": 0, "bid": "moon", "taken": [10, 1]},
            "Ann and Cy took 10 and Bob and Dee 1: 11 points, but a hand holds 10",
        ),
        (
            {"pitcher": 0, "bid": 5, "cards": ["A"]},
            'the point cards are a table of card to team, not ["A"]',
        ),
        (
            {"pitcher": 0, "bid": 5, "cards": {**cards(), "K": 0}},
            'no point card "K" (the point cards: A, J, OJ, HJ, LJ, T, 2, 3)',
        ),
        (
            {"pitcher": 0, "bid": 5, "cards": {"A": 0, "J": 1, "OJ": 0, "HJ": 0, "LJ": 0, "2": 1}},
            "say who took the 10 and 3: a team, or burned (nobody)",
        ),
        (
            {"pitcher": 0, "bid": 5, "cards": cards(_3=2)},
            "the 3 went to Ann and Cy (0), Bob and Dee (1) or was burned (null), not 2",
        ),
    ],
)
def test_a_bad_entry_is_refused_in_words_and_changes_nothing(entry, refusal):
    keeper = Scorekeeper(NAMES)
    keeper.enter(pitcher=1, bid=4, taken=(2, 8))
    with pytest.raises(IllegalActionError) as refused:
        keeper.add(read_entry(entry, keeper))
    assert str(refused.value) == refusal
    assert keeper.team_scores == (2, 8) and len(keeper.hands) == 1 and keeper.dealer == 1


def test_no_hand_after_the_match_is_over_until_the_last_is_undone():
    keeper = Scorekeeper(NAMES)
    keeper.enter(pitcher=0, bid=MOON, taken=(10, 0))
    with pytest.raises(IllegalActionError) as refused:
        keeper.enter(pitcher=1, bid=4, taken=(5, 5))
    assert str(refused.value) == (
        "the match is over (Ann and Cy won): undo the last hand or start a new match"
    )
    keeper.undo()
    assert keeper.winner is None
    keeper.enter(pitcher=1, bid=4, taken=(5, 5))
    assert keeper.team_scores == (5, 5)


def test_the_match_itself_is_refused_in_words():
    with pytest.raises(ValueError, match="Pitch is played by 4 players, not 3"):
        Scorekeeper(NAMES[:3])
    with pytest.raises(ValueError, match="the target must be a whole number from 1 to 1000, not 0"):
        Scorekeeper(NAMES, target=0)
    with pytest.raises(ValueError, match="the first dealer must be a player from 0 to 3, not 4"):
        Scorekeeper(NAMES, dealer=4)


def test_only_the_house_rules_that_change_a_score_are_taken():
    assert SCORING_RULES == ("low", "made", "moon_score", "moon_zero", "both_out", "ten_bid")
    assert scoring_rules("both_out=higher,ten_bid") == PitchRules(both_out="higher", ten_bid=True)
    with pytest.raises(
        NotationError, match="house rule burn_face is about the play, not the score"
    ):
        scoring_rules("burn_face=down")
    with pytest.raises(NotationError, match="house rule low is 'taker' or 'holder', not 'nobody'"):
        scoring_rules("low=nobody")


# -- undo -------------------------------------------------------------------------------


def test_undo_takes_the_last_hand_back_its_dealer_too():
    keeper = Scorekeeper(NAMES, dealer=1)
    keeper.enter(pitcher=2, bid=5, taken=(6, 4))
    keeper.enter(pitcher=3, bid=6, taken=(7, 3))
    assert keeper.team_scores == (13, -2) and keeper.dealer == 3
    undone = keeper.undo()
    assert undone.number == 2 and keeper.team_scores == (6, 4) and keeper.dealer == 2
    keeper.undo()
    assert keeper.team_scores == (0, 0) and keeper.dealer == 1 and keeper.number == 1
    with pytest.raises(IllegalActionError, match=r"^there is no hand to undo$"):
        keeper.undo()


# -- saved and replayed -----------------------------------------------------------------


def test_a_match_is_saved_as_plain_values_and_replayed_to_the_same_score():
    keeper = Scorekeeper(NAMES, target=60, rules=PitchRules(low="holder", made="bid"), dealer=2)
    keeper.enter(pitcher=0, bid=5, taken=(7, 3))
    keeper.enter(pitcher=1, bid=9, taken=(2, 8))
    keeper.enter(pitcher=3, bid=MOON, taken=(0, 10))  # from -6: back to 0
    keeper.enter(pitcher=3, bid=4, cards=cards(_3=1, A=1, T=None))
    saved = keeper.to_dict()
    assert saved["rules"] == "low=holder,made=bid" and saved["hands"][2]["bid"] == "moon"
    again = Scorekeeper.from_dict(saved)
    assert again.team_scores == keeper.team_scores == (12, 4)
    assert [again.hand_text(h) for h in again.hands] == [keeper.hand_text(h) for h in keeper.hands]
    assert again.dealer == keeper.dealer == 2 and again.target == 60


def test_a_save_with_a_bad_hand_is_refused_naming_it():
    keeper = Scorekeeper(NAMES)
    keeper.enter(pitcher=0, bid=5, taken=(7, 3))
    saved = keeper.to_dict()
    saved["hands"].append({"dealer": 1, "pitcher": 1, "bid": 5, "taken": [8, 8]})
    with pytest.raises(ValueError) as refused:
        Scorekeeper.from_dict(saved)
    assert str(refused.value) == (
        "hand 2: Ann and Cy took 8 and Bob and Dee 8: 16 points, but a hand holds 10"
    )
