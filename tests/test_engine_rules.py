"""One test per rule of RULES.md: a position from notation, a decision, the exact result.

Notation fields (docs/notation.md): variant hands draw discard colour direction
player phase uno showdown scores dealer round target house-rules rng.
"""

import pytest

from engine import Action, Game, IllegalActionError


def after(notation, *actions):
    """The notation after applying ``actions`` (text) to the game ``notation``."""
    game = Game.from_notation(notation)
    for action in actions:
        game.apply(action)
        game.check_invariants()
    return game.notation()


def legal(notation):
    return [str(action) for action in Game.from_notation(notation).legal_actions()]


# -- matching and the turn -----------------------------------------------------------


def test_a_card_matches_by_colour_number_or_symbol_and_wilds_always_play():
    assert legal("classic R5,B5,G+2,Y3,W,W+4,Y+2/G1 B1 G5 G + 0 play - - 0,0 1 1 500 - 1:0") == [
        "R5",
        "B5",
        "G+2",
        "W=R",
        "W=Y",
        "W=G",
        "W=B",
        "W+4=R",
        "W+4=Y",
        "W+4=G",
        "W+4=B",
        "draw",
    ]
    assert legal("classic BS,RS,R3,Y+2/G1 B1 GS G + 0 play - - 0,0 1 1 500 - 1:0") == [
        "BS",
        "RS",
        "draw",
    ]


def test_a_wild_on_top_is_matched_by_its_named_colour():
    assert legal("classic R5,B5,G3/G1 B1 Y1,W B + 0 play - - 0,0 1 1 500 - 1:0") == ["B5", "draw"]


def test_the_showdown_symbol_is_not_a_matching_criterion():
    assert legal("showdown B2!2,G7,Y2/G1 B1 R7!2 R + 0 play - - 0,0 1 1 500 - 1:0") == [
        "G7",
        "draw",
    ]


def test_two_copies_of_a_card_give_one_play():
    assert legal("classic R5,R5,G2/G1 B1 R1 R + 0 play - - 0,0 1 1 500 - 1:0") == ["R5", "draw"]


def test_playing_a_number_card_passes_the_turn_clockwise():
    assert after("classic R5,G1,B2/G3/Y4 B1 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0", "R5") == (
        "classic G1,B2/G3/Y4 B1 R1,R5 R + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_a_card_that_does_not_match_is_illegal_and_changes_nothing():
    notation = "classic R5,G1,B2/G3/Y4 B1 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0"
    game = Game.from_notation(notation)
    with pytest.raises(IllegalActionError, match="illegal action 'B2'"):
        game.apply("B2")
    with pytest.raises(IllegalActionError, match="illegal action 'Y4'"):
        game.apply("Y4")  # not in the hand at all
    assert game.notation() == notation


# -- drawing ---------------------------------------------------------------------------


def test_a_player_may_draw_although_they_could_play():
    notation = "classic R5,G1,B2/G3/Y4 R7,B1 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0"
    assert "draw" in legal(notation)
    assert after(notation, "draw") == (
        "classic R5,G1,B2,R7/G3/Y4 B1 R1 R + 0 drawn - - 0,0,0 2 1 500 - 1:0"
    )


def test_after_drawing_only_the_drawn_card_may_be_played_or_kept():
    notation = "classic R5,G1,B2/G3/Y4 R7,B1 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0"
    game = Game.from_notation(notation)
    game.apply("draw")
    assert [str(a) for a in game.legal_actions()] == ["R7", "keep"]
    assert str(game.drawn_card) == "R7"
    with pytest.raises(IllegalActionError):
        game.apply("R5")
    assert after(notation, "draw", "R7") == (
        "classic R5,G1,B2/G3/Y4 B1 R1,R7 R + 1 play - - 0,0,0 2 1 500 - 1:0"
    )
    assert after(notation, "draw", "keep") == (
        "classic R5,G1,B2,R7/G3/Y4 B1 R1 R + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_a_drawn_wild_is_played_with_a_colour():
    assert legal("classic R5,G1,W/G3/Y4 B1 R1 R + 0 drawn - - 0,0,0 2 1 500 - 1:0") == [
        "W=R",
        "W=Y",
        "W=G",
        "W=B",
        "keep",
    ]


def test_a_drawn_card_that_cannot_be_played_ends_the_turn():
    assert (
        after("classic R5,G1,B2/G3/Y4 Y7,B1 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0", "draw")
        == "classic R5,G1,B2,Y7/G3/Y4 B1 R1 R + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_an_empty_draw_pile_is_the_discard_pile_reshuffled_with_its_top_card_left():
    # The shuffle is the game's own: seeded by (seed 1, shuffle number 0).
    assert (
        after("classic R5,G1,B2/G3/Y4 - Y7,B1,G9,R1 R + 0 play - - 0,0,0 2 1 500 - 1:0", "draw")
        == "classic R5,G1,B2,B1/G3/Y4 Y7,G9 R1 R + 0 drawn - - 0,0,0 2 1 500 - 1:1"
    )


def test_with_nothing_left_to_draw_the_draw_is_skipped():
    assert after("classic R5,G1,B2/G3/Y4 - R1 R + 0 play - - 0,0,0 2 1 500 - 1:0", "draw") == (
        "classic R5,G1,B2/G3/Y4 - R1 R + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_house_rule_draw_until_playable_draws_up_to_ten():
    notation = "classic R5,G1/G3 Y7,B1,Y2,R9,G4 R3 R + 0 play - - 0,0 1 1 500 until 1:0"
    assert after(notation, "draw") == (
        "classic R5,G1,Y7,B1,Y2,R9/G3 G4 R3 R + 0 drawn - - 0,0 1 1 500 until 1:0"
    )
    eleven = ",".join(["Y7"] * 11)
    assert after(f"classic R5,G1/G3 {eleven} R3 R + 0 play - - 0,0 1 1 500 until 1:0", "draw") == (
        f"classic R5,G1,{','.join(['Y7'] * 10)}/G3 Y7 R3 R + 1 play - - 0,0 1 1 500 until 1:0"
    )


# -- action cards ----------------------------------------------------------------------


def test_draw_two_the_next_player_draws_two_and_loses_the_turn():
    assert (
        after("classic R+2,B1,G5/G3/Y9 Y3,G7,B2 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0", "R+2")
        == "classic B1,G5/G3,Y3,G7/Y9 B2 R1,R+2 R + 2 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_skip_the_next_player_loses_the_turn():
    assert after("classic RS,B1,G5/G3/Y9 B2 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0", "RS") == (
        "classic B1,G5/G3/Y9 B2 R1,RS R + 2 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_reverse_changes_the_direction():
    assert after("classic RR,B1,G5/G3/Y9 B2 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0", "RR") == (
        "classic B1,G5/G3/Y9 B2 R1,RR R - 2 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_reverse_with_two_players_acts_as_a_skip():
    assert after("classic RR,B1,G5/G3 B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0", "RR") == (
        "classic B1,G5/G3 B2 R1,RR R + 0 play - - 0,0 1 1 500 - 1:0"
    )


def test_wild_names_the_colour():
    assert after("classic W,B1,G5/G3/Y9 B2 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0", "W=G") == (
        "classic B1,G5/G3/Y9 B2 R1,W G + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_stacking_is_off_by_default():
    notation = "classic R+2,B1,G5/B+2,G3/Y9 Y3,G7,B2 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0"
    assert after(notation, "R+2") == (
        "classic B1,G5/B+2,G3,Y3,G7/Y9 B2 R1,R+2 R + 2 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_house_rule_stacking_passes_a_draw_two_on_with_two_more():
    notation = (
        "classic R+2,B1,G5/B+2,G3/Y9 Y3,G7,B2,R4,G6 R1 R + 0 play - - 0,0,0 2 1 500 stack 1:0"
    )
    assert after(notation, "R+2") == (
        "classic B1,G5/B+2,G3/Y9 Y3,G7,B2,R4,G6 R1,R+2 R + 1 penalty:2 - - 0,0,0 2 1 500 stack 1:0"
    )
    assert legal(after(notation, "R+2")) == ["B+2", "B+2 uno", "accept"]
    assert after(notation, "R+2", "B+2 uno") == (
        "classic B1,G5/G3/Y9 Y3,G7,B2,R4,G6 R1,R+2,B+2 B + 2 penalty:4 - - 0,0,0 2 1 500 stack 1:0"
    )
    assert after(notation, "R+2", "B+2 uno", "accept") == (
        "classic B1,G5/G3/Y9,Y3,G7,B2,R4 G6 R1,R+2,B+2 B + 0 play - - 0,0,0 2 1 500 stack 1:0"
    )


def test_house_rule_stacking_wild_draw_four_on_wild_draw_four():
    notation = (
        "classic W+4,B1,G5/W+4,G3,R2/Y9 Y3,G7,B2,R4,G6,B6,B7,B8,B9 R1 R + 0 play - - "
        "0,0,0 2 1 500 stack 1:0"
    )
    after_one = after(notation, "W+4=G")
    assert after_one == (
        "classic B1,G5/W+4,G3,R2/Y9 Y3,G7,B2,R4,G6,B6,B7,B8,B9 R1,W+4 G + 1 "
        "penalty:4:legal - - 0,0,0 2 1 500 stack 1:0"
    )
    assert legal(after_one) == ["W+4=R", "W+4=Y", "W+4=G", "W+4=B", "challenge", "accept"]
    after_two = after(notation, "W+4=G", "W+4=B")
    assert legal(after_two) == ["accept"]  # no challenge once stacked
    assert after(notation, "W+4=G", "W+4=B", "accept") == (
        "classic B1,G5/G3,R2/Y9,Y3,G7,B2,R4,G6,B6,B7,B8 B9 R1,W+4,W+4 B + 0 play - - "
        "0,0,0 2 1 500 stack 1:0"
    )


# -- Wild Draw Four and the challenge -----------------------------------------------------

WD4 = "classic W+4,{hand}/G3,B4/Y9 Y3,G7,B2,R4,G6,B6,B7 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0"


def test_wild_draw_four_the_next_player_accepts_draws_four_and_loses_the_turn():
    notation = WD4.format(hand="B1,G5")
    assert after(notation, "W+4=B") == (
        "classic B1,G5/G3,B4/Y9 Y3,G7,B2,R4,G6,B6,B7 R1,W+4 B + 1 penalty:4:legal - - "
        "0,0,0 2 1 500 - 1:0"
    )
    assert legal(after(notation, "W+4=B")) == ["challenge", "accept"]
    assert after(notation, "W+4=B", "accept") == (
        "classic B1,G5/G3,B4,Y3,G7,B2,R4/Y9 G6,B6,B7 R1,W+4 B + 2 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_wild_draw_four_held_with_the_current_colour_is_a_bluff_recorded_for_the_challenge():
    assert after(WD4.format(hand="R2,G5"), "W+4=B") == (
        "classic R2,G5/G3,B4/Y9 Y3,G7,B2,R4,G6,B6,B7 R1,W+4 B + 1 penalty:4:illegal - - "
        "0,0,0 2 1 500 - 1:0"
    )


def test_a_card_of_the_same_number_does_not_make_wild_draw_four_illegal():
    assert "penalty:4:legal" in after(WD4.format(hand="B1,G1"), "W+4=B")


def test_challenge_of_an_illegal_wild_draw_four_the_offender_draws_four_and_the_challenger_plays():
    assert after(WD4.format(hand="R2,G5"), "W+4=B", "challenge") == (
        "classic R2,G5,Y3,G7,B2,R4/G3,B4/Y9 G6,B6,B7 R1,W+4 B + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_challenge_of_a_legal_wild_draw_four_the_challenger_draws_six_and_loses_the_turn():
    assert after(WD4.format(hand="B1,G5"), "W+4=B", "challenge") == (
        "classic B1,G5/G3,B4,Y3,G7,B2,R4,G6,B6/Y9 B7 R1,W+4 B + 2 play - - 0,0,0 2 1 500 - 1:0"
    )


# -- UNO --------------------------------------------------------------------------------

UNO = "classic R5,B2/G3,Y9/Y4,Y5 Y3,G7,B2,R4 R1 R + 0 play - - 0,0,0 2 1 500 {house} 1:0"


def test_the_second_to_last_card_may_be_played_with_an_uno_call():
    assert legal(UNO.format(house="-")) == ["R5", "R5 uno", "draw"]
    assert after(UNO.format(house="-"), "R5 uno") == (
        "classic B2/G3,Y9/Y4,Y5 Y3,G7,B2,R4 R1,R5 R + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_a_player_who_does_not_call_uno_can_be_caught_and_draws_two():
    played = after(UNO.format(house="-"), "R5")
    assert played == "classic B2/G3,Y9/Y4,Y5 Y3,G7,B2,R4 R1,R5 R + 1 play 0 - 0,0,0 2 1 500 - 1:0"
    assert legal(played) == ["draw", "catch 0"]
    assert after(played, "catch 0") == (
        "classic B2,Y3,G7/G3,Y9/Y4,Y5 B2,R4 R1,R5 R + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_the_uno_window_closes_when_the_next_player_begins_a_turn():
    played = after(UNO.format(house="-"), "R5", "draw")
    assert played == "classic B2/G3,Y9,Y3/Y4,Y5 G7,B2,R4 R1,R5 R + 2 play - - 0,0,0 2 1 500 - 1:0"
    assert "catch 0" not in legal(played)
    with pytest.raises(IllegalActionError):
        Game.from_notation(played).apply(Action.catch(0))


def test_house_rule_uno_penalty_size():
    assert after(UNO.format(house="uno=4"), "R5", "catch 0") == (
        "classic B2,Y3,G7,B2,R4/G3,Y9/Y4,Y5 - R1,R5 R + 1 play - - 0,0,0 2 1 500 uno=4 1:0"
    )


def test_a_player_skipped_back_to_themselves_cannot_be_caught():
    # Two players, a Skip as the second-to-last card: the player begins the next turn.
    notation = "classic RS,B1/G3,Y9 Y3 R1 R + 0 play - - 0,0 1 1 500 - 1:0"
    played = after(notation, "RS")
    assert played == "classic B1/G3,Y9 Y3 R1,RS R + 0 play 0 - 0,0 1 1 500 - 1:0"
    assert legal(played) == ["draw"]


def test_the_uno_window_stays_open_across_the_players_own_wild_showdown_choice():
    notation = "showdown WS,B1/G3,Y9/Y4 Y3,G7,B2,R4 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0"
    game = Game.from_notation(notation)
    game.apply("WS=B")
    assert game.catchable == 0 and "catch 0" not in legal(game.notation())
    game.apply("face 2 x1")
    game.apply("loser 2")
    assert game.notation() == (
        "showdown B1/G3,Y9/Y4,Y3 G7,B2,R4 R1,WS B + 1 play 0 - 0,0,0 2 1 500 - 1:0"
    )
    assert legal(game.notation()) == ["draw", "catch 0"]


# -- the end of a round ------------------------------------------------------------------


def test_the_last_card_ends_the_round_and_scores_the_other_hands():
    game = Game.from_notation(
        "showdown R5/G3,Y+2,W/BS,WS,W+4,R9!1 B1 R1 R + 0 play - - 10,0,0 2 1 500 - 1:0"
    )
    game.apply("R5")
    # 3 + 20 + 50 + 20 + 40 + 50 + 9
    assert game.notation() == (
        "showdown /G3,Y+2,W/BS,WS,W+4,R9!1 B1 R1,R5 R + 0 over - - 202,0,0 2 1 500 - 1:0"
    )
    outcome = game.outcome
    assert (outcome.winner, outcome.points, outcome.scores, outcome.match_winner) == (
        0,
        192,
        (202, 0, 0),
        None,
    )
    assert game.legal_actions() == ()
    assert game.to_act is None and game.round_over


def test_a_last_draw_two_is_still_drawn_and_scored():
    assert after("classic R+2/G3/B2 Y9,G7,B4 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0", "R+2") == (
        "classic /G3,Y9,G7/B2 B4 R1,R+2 R + 0 over - - 21,0,0 2 1 500 - 1:0"
    )


def test_a_last_draw_two_is_drawn_at_once_even_under_stacking():
    assert after(
        "classic R+2/G3,B+2/B2 Y9,G7,B4 R1 R + 0 play - - 0,0,0 2 1 500 stack 1:0", "R+2"
    ) == ("classic /G3,B+2,Y9,G7/B2 B4 R1,R+2 R + 0 over - - 41,0,0 2 1 500 stack 1:0")


def test_a_last_wild_draw_four_waits_for_the_challenge():
    notation = "classic W+4/G3/B2 Y9,G7,B4,R3,R6,R7 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0"
    assert after(notation, "W+4=G") == (
        "classic /G3/B2 Y9,G7,B4,R3,R6,R7 R1,W+4 G + 1 penalty:4:legal - - 0,0,0 2 1 500 - 1:0"
    )
    assert after(notation, "W+4=G", "accept") == (
        "classic /G3,Y9,G7,B4,R3/B2 R6,R7 R1,W+4 G + 0 over - - 28,0,0 2 1 500 - 1:0"
    )
    assert after(notation, "W+4=G", "challenge") == (
        "classic /G3,Y9,G7,B4,R3,R6,R7/B2 - R1,W+4 G + 0 over - - 41,0,0 2 1 500 - 1:0"
    )


def test_a_last_wild_draw_four_found_illegal_keeps_the_round_going():
    # An empty hand holds no red card, so a last Wild Draw Four is always legal;
    # build the illegal case from notation (a player who held red when they played).
    illegal = (
        "classic /G3/B2 Y9,G7,B4,R3,R6,R7 R1,W+4 G + 1 penalty:4:illegal - - 0,0,0 2 1 500 - 1:0"
    )
    assert after(illegal, "challenge") == (
        "classic Y9,G7,B4,R3/G3/B2 R6,R7 R1,W+4 G + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


# -- the Showdown variant -----------------------------------------------------------------

SD = "showdown {hands} Y3,G7,B2,R4,G6 R1 R {direction} 0 play - - 0,0,0 2 1 500 {house} 1:0"


def test_a_symbol_card_starts_a_showdown_with_the_next_player_for_the_top_cards():
    played = after(SD.format(hands="R5!2,B1,G5/G3/Y9", direction="+", house="-"), "R5!2")
    assert played == (
        "showdown B1,G5/G3/Y9 B2,R4,G6 R1,R5!2 R + 1 play - 0v1:Y3,G7 0,0,0 2 1 500 - 1:0"
    )
    game = Game.from_notation(played)
    assert game.to_act is None
    pending = game.pending_showdown
    assert (
        pending.challenger,
        pending.opponent,
        [str(c) for c in pending.cards],
        str(pending.cause),
    ) == (0, 1, ["Y3", "G7"], "R5!2")


def test_a_pending_showdown_takes_only_its_result():
    played = after(SD.format(hands="R5!2,B1,G5/G3/Y9", direction="+", house="-"), "R5!2")
    assert legal(played) == ["loser 0", "loser 1"]
    game = Game.from_notation(played)
    for action in ("draw", "loser 2", "G3", "catch 0"):
        with pytest.raises(IllegalActionError):
            game.apply(action)
    assert game.notation() == played


def test_the_showdown_loser_takes_the_cards_and_play_goes_on():
    notation = SD.format(hands="R5!2,B1,G5/G3/Y9", direction="+", house="-")
    assert after(notation, "R5!2", "loser 1") == (
        "showdown B1,G5/G3,Y3,G7/Y9 B2,R4,G6 R1,R5!2 R + 1 play - - 0,0,0 2 1 500 - 1:0"
    )
    assert after(notation, "R5!2", "loser 0") == (
        "showdown B1,G5,Y3,G7/G3/Y9 B2,R4,G6 R1,R5!2 R + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_a_symbol_on_a_reverse_faces_the_next_player_in_the_new_direction():
    # Symbols on action cards need a custom deck; the notation can hold any card.
    assert after(SD.format(hands="RR!1,B1,G5/G3/Y9", direction="+", house="-"), "RR!1") == (
        "showdown B1,G5/G3/Y9 G7,B2,R4,G6 R1,RR!1 R - 2 play - 0v2:Y3 0,0,0 2 1 500 - 1:0"
    )


def test_a_symbol_on_a_skip_faces_the_skipped_player():
    assert after(SD.format(hands="RS!1,B1,G5/G3/Y9", direction="+", house="-"), "RS!1") == (
        "showdown B1,G5/G3/Y9 G7,B2,R4,G6 R1,RS!1 R + 2 play - 0v1:Y3 0,0,0 2 1 500 - 1:0"
    )


def test_a_symbol_card_in_the_classic_variant_is_rejected():
    with pytest.raises(ValueError, match="Showdown cards in a classic game"):
        Game.from_notation("classic R5!2,B1/G3 Y3 R1 R + 0 play - - 0,0 1 1 500 - 1:0")


def test_a_wild_showdown_names_colour_then_opponent_and_count():
    notation = SD.format(hands="WS,B1,G5/G3/Y9", direction="+", house="-")
    played = after(notation, "WS=G")
    assert played == "showdown B1,G5/G3/Y9 Y3,G7,B2,R4,G6 R1,WS G + 0 face - - 0,0,0 2 1 500 - 1:0"
    assert legal(played) == [
        "face 1 x1",
        "face 1 x2",
        "face 1 x3",
        "face 2 x1",
        "face 2 x2",
        "face 2 x3",
    ]
    assert after(notation, "WS=G", "face 2 x3") == (
        "showdown B1,G5/G3/Y9 R4,G6 R1,WS G + 1 play - 0v2:Y3,G7,B2 0,0,0 2 1 500 - 1:0"
    )
    assert after(notation, "WS=G", "face 2 x3", "loser 2") == (
        "showdown B1,G5/G3/Y9,Y3,G7,B2 R4,G6 R1,WS G + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_house_rule_wild_showdown_range():
    played = after(
        "showdown WS,B1/G3 Y3,G7,B2,R4,G6 R1 R + 0 play - - 0,0 1 1 500 ws=2-5 1:0", "WS=G"
    )
    assert legal(played) == ["face 1 x2", "face 1 x3", "face 1 x4", "face 1 x5"]


def test_a_showdown_reshuffles_the_discards_to_load_and_loads_only_what_there_is():
    assert after("showdown R5!3,B1/G3 Y3 R1 R + 0 play - - 0,0 1 1 500 - 1:0", "R5!3") == (
        "showdown B1/G3 - R5!3 R + 1 play 0 0v1:Y3,R1 0,0 1 1 500 - 1:1"
    )
    assert after("showdown R5!3,B1/G3 - R1 R + 0 play - - 0,0 1 1 500 - 1:0", "R5!3") == (
        "showdown B1/G3 - R5!3 R + 1 play 0 0v1:R1 0,0 1 1 500 - 1:1"
    )


def test_a_last_card_showdown_won_wins_the_round_with_the_loser_cards_counted():
    notation = "showdown R5!2/G3/B2 Y9,G7,B4 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0"
    played = after(notation, "R5!2")
    assert played == "showdown /G3/B2 B4 R1,R5!2 R + 1 play - 0v1:Y9,G7 0,0,0 2 1 500 - 1:0"
    assert not Game.from_notation(played).round_over
    assert after(notation, "R5!2", "loser 1") == (
        "showdown /G3,Y9,G7/B2 B4 R1,R5!2 R + 0 over - - 21,0,0 2 1 500 - 1:0"
    )


def test_a_last_card_showdown_lost_means_taking_the_cards_and_play_goes_on():
    assert after(
        "showdown R5!2/G3/B2 Y9,G7,B4 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0", "R5!2", "loser 0"
    ) == ("showdown Y9,G7/G3/B2 B4 R1,R5!2 R + 1 play - - 0,0,0 2 1 500 - 1:0")


def test_a_last_wild_showdown_wins_only_with_the_showdown():
    notation = "showdown WS/G3/B2 Y9,G7,B4 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0"
    assert after(notation, "WS=B", "face 2 x1", "loser 2") == (
        "showdown /G3/B2,Y9 G7,B4 R1,WS B + 0 over - - 14,0,0 2 1 500 - 1:0"
    )
    assert after(notation, "WS=B", "face 2 x1", "loser 0") == (
        "showdown Y9/G3/B2 G7,B4 R1,WS B + 1 play - - 0,0,0 2 1 500 - 1:0"
    )


def test_a_symbol_draw_two_draws_then_faces_the_victim():
    assert after(SD.format(hands="R+2!1,B1,G5/G3/Y9", direction="+", house="-"), "R+2!1") == (
        "showdown B1,G5/G3,Y3,G7/Y9 R4,G6 R1,R+2!1 R + 2 play - 0v1:B2 0,0,0 2 1 500 - 1:0"
    )
