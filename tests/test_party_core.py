"""UNO Party!'s rules core: deck, variant, notation, and every rule and house rule."""

import re
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from engine.game.errors import IllegalActionError, NotationError, StateError
from engine.uno import Action, Card, Colour, Phase, Rank, Variant, new_game, read_game
from engine.uno.party import PartyGame
from engine.uno.party_rules import PartyRules, load_party_deck


def party(
    hands,
    draw="G1,G2,G3,G4,G5,G6,G7,G8",
    discard="R1",
    colour="R",
    player=0,
    phase="play",
    uno="-",
    house="-",
    extra="-",
    direction="+",
):
    """A Party! game from its fields (hands as 'R5,G7/B1/...')."""
    n = hands.count("/") + 1
    scores = ",".join("0" * n)
    return PartyGame.from_notation(
        f"party {hands} {draw} {discard} {colour} {direction} {player} {phase} {uno} - "
        f"{scores} {n - 1} 1 500 {house} 1:0 {extra}"
    )


def cards(text):
    return tuple(Card.parse(t) for t in text.split(",")) if text else ()


def applied(game, *moves):
    for move in moves:
        if isinstance(move, tuple):
            game.apply(move[1], player=move[0])
        else:
            game.apply(move)
    return game


# -- deck, variant, new() -------------------------------------------------------------


def test_the_party_deck_is_the_224_card_assumption():
    deck = load_party_deck()
    counts = Counter(str(c) for c in deck)
    assert len(deck) == 224
    assert counts["R0"] == 2 and counts["R5"] == 4 and counts["B+2"] == 4 and counts["GS"] == 4
    assert counts["RP"] == counts["YP"] == counts["GP"] == counts["BP"] == 2
    assert counts["W"] == counts["W+4"] == counts["WP"] == counts["WT"] == 4
    text = (resources.files("engine.uno") / "data" / "party_deck.toml").read_text()
    assert "ASSUMPTION" in text and Variant.party().deck == deck


def test_the_party_variant():
    variant = Variant.named("party")
    assert (variant.name, variant.deck_size, variant.showdowns) == ("party", 224, False)
    assert (variant.min_players, variant.max_players) == (2, 16)


def test_new_cards_have_text_and_points():
    assert [Card.parse(t).points for t in ("RP", "WP", "WT", "W", "W+4")] == [20, 50, 50, 50, 50]
    assert Card.parse("GP").colour is Colour.GREEN and Card.parse("GP").rank is Rank.POINT_TAKEN
    assert Card.parse("WP").is_wild and Card.parse("WT").rank is Rank.WILD_DRAWN_TOGETHER
    assert [str(c) for c in cards("BP,WP,WT")] == ["BP", "WP", "WT"]


def test_game_new_and_from_notation_dispatch_to_party_game():
    game = new_game(8, "party", seed=3)
    assert isinstance(game, PartyGame)
    assert game.hand_sizes == (7,) * 8 and game.to_act == 1
    assert len(game.draw_pile) + len(game.discard_pile) == 224 - 56
    assert game.top_card.number is not None  # flipped until a number card
    text = game.notation(reveal=True)
    assert len(text.split(" ")) == 17 and text.endswith(" -")
    again = read_game(text)
    assert isinstance(again, PartyGame) and again.notation(reveal=True) == text
    assert PartyGame.new(16, seed=1).players == 16
    assert isinstance(new_game(4, Variant.party(), seed=1), PartyGame)


@pytest.mark.parametrize("players", [1, 17])
def test_party_takes_2_to_16_players(players):
    with pytest.raises(ValueError, match="party takes 2-16 players"):
        PartyGame.new(players, seed=1)


def test_stacking_is_not_offered():
    with pytest.raises(NotationError, match="stacking is not offered in UNO Party!"):
        PartyRules.parse("stack")
    from engine.uno import HouseRules

    with pytest.raises(TypeError, match="UNO Party! takes PartyRules"):
        PartyGame.new(4, seed=1, house_rules=HouseRules(stacking=True))  # type: ignore[arg-type]


def test_every_house_rule_round_trips_in_text():
    rules = PartyRules(
        first_action="once",
        draw_closes_speed=True,
        speed_out=False,
        pointer_points=False,
        pile_wilds=False,
        pile_refuse=True,
        pile_out="at_once",
        pile_is_draw=True,
        link_self=False,
        relink="keep",
        cap_linked=True,
        wd4_all_wilds=True,
        uno_penalty=4,
        draw_until_playable=True,
    )
    assert PartyRules.parse(str(rules)) == rules
    assert str(PartyRules(speed_out=False)) == "speed_out=no"
    with pytest.raises(NotationError, match="pile_out=sometimes"):
        PartyRules.parse("pile_out=sometimes")


# -- first discard ----------------------------------------------------------------------


def first_discards(rules, want):
    for seed in range(500):
        game = PartyGame.new(4, seed=seed, house_rules=rules)
        if want(game.discard_pile):
            return game
    raise AssertionError("no such deal in 500 seeds")


def test_flip_covers_action_cards_until_a_number_and_ignores_them():
    game = first_discards(PartyRules(), lambda pile: len(pile) >= 3)
    *covered, top = game.discard_pile
    assert all(c.number is None for c in covered) and top.number is not None
    assert (game.to_act, game.direction, game.phase) == (1, 1, Phase.PLAY)
    assert game.hand_sizes == (7, 7, 7, 7)


def test_once_flips_one_more_card_whatever_it_is():
    rules = PartyRules(first_action="once")
    game = first_discards(rules, lambda p: len(p) == 2 and p[1].rank is Rank.SKIP)
    assert (game.to_act, game.phase, game.colour) == (1, Phase.PLAY, game.top_card.colour)
    wild = first_discards(rules, lambda p: len(p) == 2 and p[1].is_wild)
    assert (wild.to_act, wild.phase, wild.colour) == (1, Phase.CHOOSE_COLOUR, None)
    wild.apply("colour B")
    assert (wild.colour, wild.phase) == (Colour.BLUE, Phase.PLAY)


# -- speed play ------------------------------------------------------------------------


def test_a_right_speed_play_continues_from_its_player():
    game = party("G7,B2/R5,B1,Y1/Y3,Y4/G2,G3", discard="R1,R5", colour="R")
    assert game.speed_window
    assert game.legal_actions(1) == tuple(map(Action.parse, ["speed R5", "speed B1", "speed Y1"]))
    assert game.legal_actions(2) == (Action.parse("speed Y3"), Action.parse("speed Y4"))
    game.apply("speed R5", player=1)
    assert (game.to_act, game.hand(1), game.top_card) == (2, cards("B1,Y1"), Card.parse("R5"))


def test_a_wrong_speed_play_keeps_the_card_and_draws_one():
    game = party("G7,B2/R6,B1/Y3,Y4", discard="R1,R5", draw="G1,G2")
    game.apply("speed R6", player=1)
    assert game.hand(1) == cards("R6,B1,G1")
    assert (game.to_act, game.phase, game.top_card) == (0, Phase.PLAY, Card.parse("R5"))


def test_the_window_closes_when_the_player_to_act_plays_a_non_number():
    game = party("RS,B2,B3/R5,B1/Y3,Y4", discard="R1,R5")
    game.apply("RS")
    assert not game.speed_window
    assert game.legal_actions(1) == ()
    with pytest.raises(IllegalActionError, match="illegal action 'speed R5' for player 1"):
        game.apply("speed R5", player=1)


def test_the_second_claim_is_illegal():
    game = party("G7,B2/R5,B1/R5,Y4", discard="R1,R5")
    game.apply("speed R5", player=1)
    # Player 2 now has the turn: their claim came second and is no speed play.
    assert game.to_act == 2 and Action.parse("speed R5") not in game.legal_actions(2)
    with pytest.raises(IllegalActionError, match="'speed R5' for player 2"):
        game.apply("speed R5", player=2)
    game.apply("R5")  # as a plain play it is fine
    assert game.to_act == 0


def test_drawing_keeps_the_window_open_unless_the_house_rule_closes_it():
    game = party("G7,B2/R5,B1/Y3,Y4", discard="R1,R5", draw="R9,G2")
    game.apply("draw")
    assert game.phase is Phase.DRAWN and game.speed_window
    game.apply("speed R5", player=1)
    assert (game.to_act, game.phase, game.hand(0)) == (2, Phase.PLAY, cards("G7,B2,R9"))
    closed = party(
        "G7,B2/R5,B1/Y3,Y4", discard="R1,R5", draw="R9,G2", house="draw_closes_speed=yes"
    )
    closed.apply("draw")
    assert not closed.speed_window and closed.legal_actions(1) == ()


def test_going_out_by_a_speed_play_is_a_house_rule():
    game = party("G7,B2/R5/Y3,Y4", discard="R1,R5")
    game.apply("speed R5", player=1)
    assert game.round_over and game.outcome.winner == 1
    barred = party("G7,B2/R5/Y3,Y4", discard="R1,R5", house="speed_out=no")
    assert barred.legal_actions(1) == ()


# -- UNO and catches --------------------------------------------------------------------


def test_any_other_player_may_catch():
    game = party("R7,R8/B1,B2/Y3,Y4", discard="R1", draw="G1,G2,G3,G4")
    game.apply("R7")
    assert game.catchable == 0
    assert Action.catch(0) in game.legal_actions(2) and Action.catch(0) in game.legal_actions(1)
    assert Action.catch(0) not in game.legal_actions(0)
    game.apply("catch 0", player=2)
    assert game.hand(0) == cards("R8,G1,G2") and game.to_act == 1


def test_the_catch_window_closes_at_the_next_decision():
    game = party("R7,R8/B1,B2/Y3,Y4", discard="R1")
    game.apply("R7")
    game.apply("draw")
    assert game.catchable is None and Action.catch(0) not in game.legal_actions(2)


# -- Point Taken ------------------------------------------------------------------------


def pointing_game(house="-", hands="RP,G7/B2,B1/Y3,W/G4,G5"):
    return party(hands, draw="G1,G2,G3,G4,G5,G6,G7,G8,B7,B8", discard="R1", house=house)


def test_point_taken_waits_for_every_choice():
    game = pointing_game()
    game.apply("RP uno")
    assert (game.phase, game.to_act, game.waiting_for, game.pointer) == (
        Phase.POINT,
        None,
        (0, 1, 2, 3),
        0,
    )
    assert game.legal_actions(1) == tuple(Action.point(p) for p in (0, 2, 3))
    with pytest.raises(StateError, match="waiting for 0, 1, 2, 3"):
        game.legal_actions()
    game.apply("point 3", player=1)
    assert game.waiting_for == (0, 2, 3) and game.legal_actions(1) == ()
    with pytest.raises(IllegalActionError, match="'point 2' for player 1"):
        game.apply("point 2", player=1)


def test_nothing_shows_a_choice_before_the_last_is_in():
    game = pointing_game()
    game.apply("RP uno")
    game.apply("point 3", player=1)
    game.apply("point 3", player=0)
    for text in (game.notation(), repr(game)):
        assert "point=?,?,-,-" in text and "3,3" not in text
    assert game.pointing == (0, 1)
    with pytest.raises(IllegalActionError) as error:
        game.apply("point 1", player=1)
    assert "point=?,?,-,-" in str(error.value) and "point=3" not in str(error.value)
    assert "point=3,3,-,-" in game.notation(reveal=True)
    with pytest.raises(NotationError, match=r"sealed .*notation\(reveal=True\)"):
        PartyGame.from_notation(game.notation())
    back = PartyGame.from_notation(game.notation(reveal=True))
    assert back.notation(reveal=True) == game.notation(reveal=True)


def test_each_player_draws_one_card_per_pointer_and_play_goes_on():
    game = applied(
        pointing_game(), "RP uno", (0, "point 3"), (1, "point 3"), (2, "point 1"), (3, "point 1")
    )
    assert game.hand_sizes == (1, 4, 2, 4)
    assert (game.phase, game.to_act, game.pointing) == (Phase.PLAY, 1, ())


def test_point_taken_caps_at_five():
    hands = "RP,G7/B2/B3/B4/B5/B6/B7/B8"
    game = party(hands, draw=",".join(["G1"] * 20), discard="R1")
    game.apply("RP")
    for p in range(8):
        game.apply(f"point {1 if p != 1 else 2}", player=p)
    assert game.hand_sizes[1] == 1 + 5 and game.hand_sizes[2] == 1 + 1


def test_the_pointer_points_unless_the_house_rule_says_not():
    game = pointing_game(house="pointer_points=no")
    game.apply("RP uno")
    assert game.waiting_for == (1, 2, 3) and game.legal_actions(0) == ()
    assert game.notation().endswith("point=x,-,-,-")


def test_point_taken_as_the_last_card_ends_the_round_after_the_pointing():
    game = pointing_game(hands="RP/B2,B1/Y3,W/G4,G5")
    game.apply("RP uno") if Action.parse("RP uno") in game.legal_actions() else game.apply("RP")
    assert game.phase is Phase.POINT
    assert Action.point(0) not in game.legal_actions(1)  # the pointer is out
    applied(game, (0, "point 1"), (1, "point 2"), (2, "point 1"), (3, "point 1"))
    assert game.round_over and game.outcome.winner == 0
    assert game.hand_sizes == (0, 5, 3, 2)


# -- Wild Pile Up -----------------------------------------------------------------------


def test_wild_pile_up_flips_until_a_non_wild_and_wilds_join():
    game = party("WP,R2,R3/B2,G9/Y3,G4", draw="W,WT,G3,B5", discard="R1")
    game.apply("WP")
    assert (game.phase, game.to_act) == (Phase.PILE, 1)
    assert game.pile == cards("W,WT,G3") and game.pile_colour is Colour.GREEN
    assert game.colour is Colour.GREEN and game.top_card == Card.parse("WP")
    assert game.notation().split(" ")[-1] == "pile=W,WT,G3"
    assert game.legal_actions(1) == (Action.parse("G9"), Action.parse("G9 uno"))


def test_flipped_wilds_go_under_the_top_by_house_rule():
    game = party("WP,R2/B2,G9/Y3,G4", draw="W,WT,G3,B5", discard="R1", house="pile_wilds=no")
    game.apply("WP")
    assert game.pile == cards("G3") and game.discard_pile == cards("R1,W,WT,WP")


def test_a_player_who_cannot_add_takes_the_pile_and_play_goes_on_after_them():
    game = party("WP,R2/B2,G9,G8/Y3,Y4/B6,B7", draw="G3,B5,B8", discard="R1")
    applied(game, "WP", "G9")
    assert game.legal_actions() == (Action.take(),)
    game.apply("take")
    assert game.hand(2) == cards("Y3,Y4,G3,G9")
    assert (game.phase, game.to_act, game.colour, game.pile) == (Phase.PLAY, 3, Colour.GREEN, ())
    assert game.top_card == Card.parse("WP")


def test_wilds_may_be_added_and_change_nothing():
    game = party("WP,R2/W+4,G9,G8/Y3,Y4/B6,B7", draw="G3,B5,B8", discard="R1")
    applied(game, "WP")
    assert Action.parse("W+4") in game.legal_actions()
    game.apply("W+4")
    assert (game.to_act, game.pile_colour, game.pending_draws) == (2, Colour.GREEN, 0)


def test_refusing_to_add_is_a_house_rule():
    game = party("WP,R2/B2,G9,G8/Y3/B6", draw="G3,B5", discard="R1")
    game.apply("WP")
    assert Action.take() not in game.legal_actions()
    refuse = party("WP,R2/B2,G9,G8/Y3/B6", draw="G3,B5", discard="R1", house="pile_refuse=yes")
    refuse.apply("WP")
    assert Action.take() in refuse.legal_actions()


def test_going_out_during_a_pile_up_finishes_the_pile_first():
    game = party("WP,R2/G9/Y3,Y4/B6,B7", draw="G3,B5", discard="R1")
    applied(game, "WP", "G9")
    assert game.to_act == 2 and game.notation().split(" ")[-1] == "pile=G3,G9;out=1"
    game.apply("take")
    assert game.round_over and game.outcome.winner == 1
    assert game.outcome.points == 2 + 3 + 4 + 3 + 9 + 6 + 7


def test_going_out_during_a_pile_up_at_once():
    game = party("WP,R2/G9/Y3,Y4/B6,B7", draw="G3,B5", discard="R1", house="pile_out=at_once")
    applied(game, "WP", "G9")
    assert game.round_over and game.outcome.winner == 1 and game.pile == ()
    assert game.outcome.points == 2 + 3 + 4 + 6 + 7
    assert game.discard_pile == cards("R1,G3,G9,WP")


def test_taking_the_pile_counts_as_a_draw_only_by_house_rule():
    hands = "WP,R2/B2,G9/Y3,Y4/B6,B7"
    extra = "link=2+3"
    game = party(hands, draw="G3,B5,B8", discard="R1", extra=extra)
    applied(game, "WP", "G9", "take")
    assert game.hand_sizes[3] == 2
    drawn = party(hands, draw="G3,B5,B8", discard="R1", extra=extra, house="pile_is_draw=yes")
    applied(drawn, "WP", "G9", "take")
    assert drawn.hand(3) == cards("B6,B7,B5,B8")


# -- Wild Drawn Together ----------------------------------------------------------------


def test_drawn_together_links_two_players():
    game = party("WT,R2,R3/B2,B1/Y3,Y4", discard="R1")
    legal = {str(a) for a in game.legal_actions()}
    assert {"WT=G 0+1", "WT=G 1+2", "WT=B 0+2"} <= legal
    game.apply("WT=G 1+2")
    assert game.links == (1, 2) and game.colour is Colour.GREEN
    assert game.notation().split(" ")[-1] == "link=1+2"
    no_self = party("WT,R2,R3/B2,B1/Y3,Y4", discard="R1", house="link_self=no")
    assert {str(a) for a in no_self.legal_actions() if a.link} == {f"WT={c} 1+2" for c in "RYGB"}


def test_a_second_drawn_together_moves_the_link_or_keeps_it():
    game = party("WT,R2,R3/B2/Y3", discard="R1", extra="link=0+1")
    game.apply("WT=G 1+2")
    assert game.links == (1, 2)
    kept = party("WT,R2,R3/B2/Y3", discard="R1", extra="link=0+1", house="relink=keep")
    assert Action.parse("WT=G") in kept.legal_actions()
    assert not any(a.link for a in kept.legal_actions())
    kept.apply("WT=G")
    assert kept.links == (0, 1)


LINKED = dict(draw="G1,G2,G3,G4,G5,G6,G7,G8,G9,B9,B8,B7", extra="link=1+2")


@pytest.mark.parametrize(
    "extra, moves, sizes",
    [
        ("-", ["R2", "draw"], (1, 3, 2)),  # no link: only the drawer
        ("link=1+2", ["R2", "draw"], (1, 3, 3)),  # drawing on a turn
        ("link=1+2", ["R+2"], (1, 4, 4)),  # a Draw Two
        ("link=1+2", [(2, "speed Y3")], (2, 3, 3)),  # a wrong speed play
        ("link=1+2", ["R2", "B2", (0, "catch 1")], (1, 3, 4)),  # a catch
        ("link=0+1", [(2, "speed Y3")], (2, 2, 3)),  # not linked: nothing
    ],
)
def test_a_linked_player_draws_as_many(extra, moves, sizes):
    hands = ("R+2" if "R+2" in moves else "R2") + ",R3/B2,B1/Y3,Y4"
    game = party(hands, discard="R1", draw=LINKED["draw"], extra=extra)
    applied(game, *moves)
    assert game.hand_sizes == sizes


def test_a_linked_draw_follows_a_challenge_and_the_pointing():
    game = party("W+4,W,R3/B2,B1/Y3,Y4", discard="R1", **LINKED)
    applied(game, "W+4=B", "challenge")  # illegal (a Wild in hand): player 0 draws
    assert game.hand_sizes == (6, 2, 2)
    game = party("W+4,B3,R3/B2,B1/Y3,Y4", discard="G1", colour="G", **LINKED)
    applied(game, "W+4=B", "challenge")  # legal: the challenger draws 6, linked 2 too
    assert game.hand_sizes == (2, 8, 8)
    game = party("RP,R3/B2,B1/Y3,Y4", discard="R1", **LINKED)
    applied(game, "RP", (0, "point 1"), (1, "point 0"), (2, "point 1"))
    assert game.hand_sizes == (2, 2 + 2 + 0, 2 + 0 + 2)


def test_the_cap_can_bound_the_linked_draw():
    hands = "RP,R3/B2/B3/B4/B5/B6/B7"
    draw = ",".join(["G1"] * 30)
    for house, size in (("-", 1 + 5 + 2), ("cap_linked=yes", 1 + 5)):
        game = party(hands, draw=draw, discard="R1", extra="link=1+2", house=house)
        game.apply("RP")
        for p in range(7):
            game.apply(f"point {2 if p in (0, 1) else 1}", player=p)
        # Player 1 is pointed at by 5, player 2 by 2; each also draws the other's
        # count, unless the cap bounds the total at 5.
        assert game.hand_sizes[1] == game.hand_sizes[2] == size


# -- Wild Draw Four ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand, house, legal",
    [
        ("W+4,B3,G5", "-", True),
        ("W+4,W,G5", "-", False),  # a Wild counts as a card of the colour
        ("W+4,WP,G5", "-", True),  # a Wild Pile Up does not ...
        ("W+4,WT,G5", "wd4_all_wilds=yes", False),  # ... unless the house rule says so
        ("W+4,R3,G5", "-", False),
    ],
)
def test_wild_draw_four_legality(hand, house, legal):
    game = party(f"{hand}/B2,B1", discard="R1", house=house)
    game.apply("W+4=B")
    assert game.phase is Phase.PENALTY
    assert game.notation().split(" ")[7] == f"penalty:4:{'legal' if legal else 'illegal'}"


# -- scoring, notation, errors ----------------------------------------------------------


def test_party_cards_score():
    game = party("R2/RP,WP,WT,W,W+4,B7", discard="R1")
    game.apply("R2")
    assert game.outcome.points == 20 + 50 + 50 + 50 + 50 + 7


def test_the_party_field_names_its_errors():
    good = party("R2/B1").notation(reveal=True)
    with pytest.raises(NotationError, match=r"invalid party field 'link=2\+1'"):
        PartyGame.from_notation(good[:-1] + "link=2+1")
    with pytest.raises(NotationError, match="expected 17"):
        PartyGame.from_notation(good[:-2])
    with pytest.raises(NotationError, match=r"invalid direction field '\*'.*party"):
        PartyGame.from_notation(good.replace(" + ", " * "))
    with pytest.raises(NotationError, match="mini pile exists exactly in the pile phase"):
        PartyGame.from_notation(good[:-1] + "pile=G3")


def test_party_actions_round_trip():
    for text in ["speed R5", "speed R5 uno", "point 3", "take", "WT=G 2+5", "WT=G 2+5 uno", "WP"]:
        assert str(Action.parse(text)) == text and Action.parse(str(Action.parse(text))) is (
            Action.parse(text)
        )
    assert Action.play(Card.parse("WT"), Colour.GREEN, link=(5, 2)) is Action.parse("WT=G 2+5")
    with pytest.raises(NotationError, match="two different players"):
        Action.play(Card.parse("WT"), Colour.GREEN, link=(2, 2))


def test_legal_moves_list_everyone_in_seat_order():
    game = party("G7,B2/R5,B1/Y3,Y4", discard="R1,R5")
    moves = [(p, str(a)) for p, a in game.legal_moves()]
    assert moves == [
        (0, "draw"),
        (1, "speed R5"),
        (1, "speed R5 uno"),
        (1, "speed B1"),
        (2, "speed Y3"),
        (2, "speed Y4"),
    ]


def test_an_illegal_action_leaves_the_game_unchanged():
    game = party("G7,B2/R5,B1/Y3,Y4", discard="R1,R5")
    before = game.notation(reveal=True)
    with pytest.raises(IllegalActionError, match="illegal action 'take' for player 0 in 'party"):
        game.apply("take")
    assert game.notation(reveal=True) == before


def test_the_documented_pointing_example_is_sealed_as_shown():
    doc = (Path(__file__).parent.parent / "docs" / "notation.md").read_text()
    section = doc[doc.index("## UNO Party!") :]
    revealed, sealed = re.findall(r"```\n(party .*?)```", section, flags=re.S)[0].splitlines()
    game = PartyGame.from_notation(revealed)
    assert (game.notation(reveal=True), game.notation()) == (revealed, sealed)
    assert game.waiting_for == (1, 2) and game.pointing == (0, 3)


def test_accepting_a_wild_draw_four_and_drawing_until_playable_are_linked_draws():
    game = party("W+4,B3,R3/B2,B1/Y3,Y4", discard="G1", colour="G", **LINKED)
    applied(game, "W+4=B", "accept")
    assert game.hand_sizes == (2, 6, 6) and game.to_act == 2
    game = party(
        "R2,R3/B2,B1/Y3,Y4",
        discard="R1",
        house="until=yes",
        extra="link=0+2",
        draw=("G2,G3,R9,G4,G5,G6"),
    )
    game.apply("draw")  # G2, G3, then R9 plays: three cards, and three for player 2
    assert (game.phase, game.drawn_card, game.hand_sizes) == (
        Phase.DRAWN,
        Card.parse("R9"),
        (5, 2, 5),
    )


def test_an_addition_to_the_pile_may_be_caught_without_uno():
    game = party("WP,R2,R3/B2,G9,G8/Y3,Y4,G5/B6,B7", draw="G3,B5,B8", discard="R1")
    applied(game, "WP", "G9")
    assert game.catchable is None  # two cards left
    game.apply("G5")
    game = party("WP,R2,R3/G9,G8/Y3,Y4,G5/B6,B7", draw="G3,B5,B8", discard="R1")
    applied(game, "WP", "G9")
    assert game.catchable == 1 and Action.catch(1) in game.legal_actions(3)
    uno = party("WP,R2,R3/G9,G8/Y3,Y4,G5/B6,B7", draw="G3,B5,B8", discard="R1")
    applied(uno, "WP", "G9 uno")
    assert uno.catchable is None


def test_apply_without_a_player_while_everyone_points_is_refused():
    game = pointing_game()
    game.apply("RP uno")
    with pytest.raises(StateError, match="everyone points at once"):
        game.apply("point 1")
    assert game.waiting_for == (0, 1, 2, 3)
