"""UNO Party!'s two wilds, Wild Pile Up and Wild Drawn Together, rule by rule
(the other rules: tests/test_party_rules.py)."""

from collections import Counter

import pytest

from engine import (
    Action,
    Card,
    Colour,
    IllegalActionError,
    Phase,
)
from tests.party_helpers import (
    G4S,
    PILE,
    PILE_DRAW,
    apply,
    cards,
    letter,
    outcome,
    party,
    pile_up,
    texts,
)

# -- Wild Pile Up --------------------------------------------------------------------------------


def test_wild_pile_up_plays_on_anything_and_names_no_colour():
    game = party(PILE, PILE_DRAW, "B1,B5", colour="B")
    assert "WP" in texts(game.legal_actions())
    assert not any(t.startswith("WP=") for t in texts(game.legal_actions()))


def test_wild_pile_up_flips_until_a_non_wild_and_the_wilds_join_the_mini_pile():
    game = pile_up()
    assert texts(game.pile) == ["W", "WT", "G7"]
    assert (letter(game.pile_colour), game.phase, game.to_act) == ("G", Phase.PILE, 1)
    assert str(game.top_card) == "WP"
    assert cards(game, 0) == ["B4", "G2"]
    assert len(game.draw_pile) == 16


def test_house_rule_flipped_wilds_go_under_the_discard():
    game = pile_up(pile_wilds=False)
    assert texts(game.pile) == ["G7"]
    assert str(game.top_card) == "WP"
    assert Counter(texts(game.discard_pile)) == Counter(["R1", "R5", "W", "WT", "WP"])
    assert letter(game.pile_colour) == "G"


def test_the_next_player_must_add_a_card_of_the_pile_colour():
    game = pile_up()
    assert set(texts(game.legal_actions(1))) == {"G6"}
    apply(game, "G6")
    assert texts(game.pile) == ["W", "WT", "G7", "G6"]
    assert (game.to_act, game.phase, letter(game.pile_colour)) == (2, Phase.PILE, "G")
    assert cards(game, 1) == ["B1", "Y3"]


def test_the_first_who_cannot_add_takes_the_pile_and_the_next_player_plays_its_colour():
    game = apply(pile_up(), "G6")
    assert texts(game.legal_actions(2)) == ["take"]
    apply(game, "take")
    assert cards(game, 2) == ["G6", "G7", "R3", "R5", "W", "WT", "Y8"]
    assert (game.pile, letter(game.pile_colour)) == ((), None)
    assert (game.to_act, game.phase, letter(game.colour), str(game.top_card)) == (
        3,
        Phase.PLAY,
        "G",
        "WP",
    )
    assert texts(game.legal_actions()) == ["G8", "draw"]


def test_wilds_may_be_added_without_a_colour_and_do_not_change_the_pile_colour():
    hands = ["WP,G2,B4", "W,W+4,B1", "R5,R3,Y8", "B7,Y2,G8"]
    game = pile_up(hands)
    assert set(texts(game.legal_actions(1))) == {"W", "W+4"}
    apply(game, "W+4")
    assert (letter(game.pile_colour), game.to_act, game.phase) == ("G", 2, Phase.PILE)
    assert game.hand_sizes == (2, 2, 3, 3)  # no one drew four
    assert texts(game.pile)[-1] == "W+4"


def test_action_cards_added_to_the_pile_have_no_effect():
    hands = ["WP,G2,B4", "GS,B1", "GR,R3,Y8", "G+2,Y2,G8"]
    game = pile_up(hands)
    apply(game, "GS")
    assert game.to_act == 2  # not skipped
    apply(game, "GR")
    assert (game.to_act, game.direction) == (3, 1)  # not reversed
    apply(game, "G+2")
    assert game.to_act == 0
    assert game.hand_sizes == (2, 1, 2, 2)  # nobody drew
    assert texts(game.pile) == ["W", "WT", "G7", "GS", "GR", "G+2"]


def test_house_rule_a_player_may_refuse_to_add_and_take():
    game = pile_up(pile_refuse=True)
    assert set(texts(game.legal_actions(1))) == {"G6", "take"}
    apply(game, "take")
    assert cards(game, 1) == ["B1", "G6", "G7", "W", "WT", "Y3"]
    assert game.to_act == 2


def test_uno_applies_to_additions():
    hands = ["WP,G2,B4", "G6,B1", "R5,R3,Y8", "B7,Y2,G8"]
    assert "G6 uno" in texts(pile_up(hands).legal_actions(1))
    game = apply(pile_up(hands), "G6")
    assert game.catchable == 1
    assert apply(pile_up(hands), "G6 uno").catchable is None


def test_going_out_during_a_pile_up_the_pile_finishes_first():
    hands = ["WP,G2,B4", "G6", "R5,R3,Y8", "B7,Y2,G8"]
    game = apply(pile_up(hands), "G6")
    assert not game.round_over
    assert (game.to_act, game.phase, game.hand_sizes[1]) == (2, Phase.PILE, 0)
    apply(game, "take")
    assert game.round_over and outcome(game).winner == 1
    # 0: G2 B4; 2: R5 R3 Y8 + W WT G7 G6; 3: B7 Y2 G8
    assert game.scores == (0, 6 + 16 + 113 + 17, 0, 0)


def test_house_rule_going_out_during_a_pile_up_ends_the_round_at_once():
    hands = ["WP,G2,B4", "G6", "R5,R3,Y8", "B7,Y2,G8"]
    game = apply(pile_up(hands, pile_out="at_once"), "G6")
    assert game.round_over and outcome(game).winner == 1
    assert game.scores == (0, 6 + 16 + 17, 0, 0)
    assert game.pile == ()
    assert Counter(texts(game.discard_pile)) >= Counter(["W", "WT", "G7", "G6", "WP"])
    game.check_invariants()


# -- Wild Drawn Together -----------------------------------------------------------------------


def test_wild_drawn_together_names_a_colour_and_links_any_two_players():
    game = party(["WT,R2,B4", "B1,G6,Y3", "R5,G3,Y8", "B7,Y2,G8"], G4S, "R1,R5")
    plays = [a for a in game.legal_actions() if a.card is not None and str(a.card) == "WT"]
    assert len(plays) == 4 * 6  # four colours, six pairs of four players
    assert "WT=G 0+1" in texts(plays)  # linking oneself is allowed by default
    apply(game, "WT=G 1+2")
    assert (game.links, letter(game.colour), str(game.top_card)) == ((1, 2), "G", "WT")
    assert (game.to_act, game.phase) == (1, Phase.PLAY)


def test_a_link_is_written_sorted():
    action = Action.play(Card.parse("WT"), Colour.parse("G"), link=(2, 1))
    assert action is Action.parse("WT=G 1+2")
    assert str(Action.parse("WT=G 1+2 uno")) == "WT=G 1+2 uno"


def test_house_rule_no_linking_oneself():
    game = party(["WT,R2,B4", "B1,G6,Y3", "R5,G3,Y8", "B7,Y2,G8"], G4S, "R1,R5", link_self=False)
    plays = [a for a in game.legal_actions() if a.card is not None and str(a.card) == "WT"]
    assert len(plays) == 4 * 3
    assert "WT=G 0+1" not in texts(plays)
    with pytest.raises(IllegalActionError):
        game.apply("WT=G 0+1")


def linked(hands, pair="1+2", draw=G4S, **house):
    return apply(party(hands, draw, "R1,R5", **house), f"WT=G {pair}")


def test_a_linked_player_draws_with_a_draw_from_the_pile():
    game = linked(["WT,R2,B4", "B1,G6,Y3", "R5,G3,Y8", "B7,Y2,G8"])
    apply(game, "draw")
    assert (game.phase, str(game.drawn_card)) == (Phase.DRAWN, "G4")
    assert cards(game, 1) == ["B1", "G4", "G6", "Y3"]
    assert cards(game, 2) == ["G3", "G4", "R5", "Y8"]
    assert game.hand_sizes == (2, 4, 4, 3)  # not recursive: player 1 drew once


def test_a_linked_player_draws_with_a_draw_two():
    game = linked(["WT,R2,B4", "G+2,B1,Y3", "R5,G3,Y8", "B7,Y2,G8"], "2+3")
    apply(game, "G+2")
    assert game.hand_sizes == (2, 2, 5, 5)
    assert game.to_act == 3


def test_a_linked_player_draws_with_an_accepted_wild_draw_four():
    game = linked(["WT,R2,B4", "W+4,B1,Y3", "R5,B3,Y8", "B7,Y2,G8"], "2+3")
    apply(game, "W+4=B", "accept")
    assert game.hand_sizes == (2, 2, 7, 7)
    assert game.to_act == 3


def test_a_linked_player_draws_with_a_lost_challenge():
    game = linked(["WT,R2,B4", "W+4,B1,Y3", "R5,B3,Y8", "B7,Y2,G8"], "2+3")
    apply(game, "W+4=B", "challenge")
    assert game.hand_sizes == (2, 2, 9, 9)
    assert game.to_act == 3


def test_a_linked_player_draws_with_a_won_challenge_penalty():
    # player 1 held a green card: the challenge wins and player 1 draws four; 0 is linked
    game = linked(["WT,R2,B4", "W+4,G1,Y3", "R5,B3,Y8", "B7,Y2,G8"], "0+1")
    apply(game, "W+4=B", "challenge")
    assert game.hand_sizes == (6, 6, 3, 3)
    assert (game.to_act, game.phase) == (2, Phase.PLAY)


def test_a_linked_player_draws_with_a_catch():
    game = linked(["WT,R2,B4", "G6,B1", "R5,G3,Y8", "B7,Y2,G8"], "1+3")
    apply(game, "G6")
    assert game.catchable == 1
    apply(game, (0, "catch 1"))
    assert game.hand_sizes == (2, 3, 3, 5)


def test_a_linked_player_draws_with_point_taken():
    game = linked(["WT,R2,B4", "GP,B1,Y3", "R5,G3,Y8", "B7,Y2,G8"])
    apply(game, "GP")
    assert game.waiting_for == (0, 1, 2, 3)
    apply(game, (0, "point 3"), (1, "point 3"), (2, "point 1"), (3, "point 0"))
    # 0: +1, 1: +1 (and 2 linked +1), 3: +2
    assert game.hand_sizes == (3, 3, 4, 5)
    assert game.to_act == 2


def test_a_linked_player_draws_with_a_wrong_speed_play():
    game = linked(["WT,R2,B4", "G6,B1,Y3", "R5,G3,Y8", "B7,Y2,G8"])
    apply(game, "G6")
    assert game.to_act == 2 and game.speed_window
    apply(game, (1, "speed B1"))
    assert game.hand_sizes == (2, 3, 4, 3)


def test_a_second_drawn_together_moves_the_link():
    game = linked(["WT,R2,B4", "WT,B1,Y3", "R5,G3,Y8", "B7,Y2,G8"])
    apply(game, "WT=B 2+3")
    assert game.links == (2, 3)
    apply(game, "draw")  # player 2 draws; 3 with them, 1 no longer
    assert game.hand_sizes == (2, 2, 4, 4)


def test_house_rule_the_first_link_stays():
    game = linked(["WT,R2,B4", "WT,B1,Y3", "R5,G3,Y8", "B7,Y2,G8"], relink="keep")
    # The card names its colour; whether it still names a pair is the engine's choice.
    offered = texts(game.legal_actions())
    apply(game, "WT=B" if "WT=B" in offered else "WT=B 2+3")
    assert letter(game.colour) == "B"
    assert game.links == (1, 2)
    apply(game, "draw")  # player 2 draws; 1 with them
    assert game.hand_sizes == (2, 3, 4, 3)


def test_taking_the_pile_is_not_a_draw_for_a_linked_player_by_default():
    hands = ["WT,R2,B4", "WP,B1,Y3", "R5,R3,Y8", "B7,Y2,G8"]
    game = linked(hands, draw="G7," + G4S)
    apply(game, "WP")
    assert texts(game.pile) == ["G7"] and game.to_act == 2
    apply(game, "take")
    assert game.hand_sizes == (2, 2, 4, 3)


def test_house_rule_taking_the_pile_counts_as_a_draw_for_a_linked_player():
    hands = ["WT,R2,B4", "WP,B1,Y3", "R5,R3,Y8", "B7,Y2,G8"]
    game = linked(hands, draw="G7," + G4S, pile_is_draw=True)
    apply(game, "WP", "take")
    assert game.hand_sizes == (2, 3, 4, 3)


EIGHT = ["WT,R2,B4", "GP,B1,Y3", "R5,G3,Y8", "B7", "B2", "B3", "B5", "B6"]


def linked_pointing(**house):
    """0 links 1 and 2, 1 plays Point Taken; 2 is pointed at by all seven others, 1 by 2."""
    game = linked(EIGHT, **house)
    apply(game, "GP")
    for p in (0, 1, 3, 4, 5, 6, 7):
        apply(game, (p, "point 2"))
    return apply(game, (2, "point 1"))


def test_the_linked_draw_of_point_taken_is_not_capped_by_default():
    game = linked_pointing()
    # 2 draws 5 (capped) and 1 more with 1; 1 draws 1 and 5 more with 2
    assert game.hand_sizes[:3] == (2, 2 + 6, 3 + 6)


def test_house_rule_the_cap_of_five_applies_to_the_linked_draw():
    game = linked_pointing(cap_linked=True)
    assert game.hand_sizes[:3] == (2, 2 + 5, 3 + 5)
