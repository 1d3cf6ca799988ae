"""UNO Party!'s bots: each decision kind on a position built from notation.

Party! notation (docs/notation.md): variant hands draw discard colour direction
player phase uno showdown scores dealer round target house-rules rng party.
"""

import random

import pytest

from engine import Action, Card
from engine.uno import PartyGame, read_game
from engine.uno.bots import HeuristicBot, PlayerView, RandomBot
from engine.uno.game import Phase
from engine.uno.party_bots import offence_chance, wild_draw_four_is_honest

DRAW = "G1,G2,G3,G4,G5,G6,G7,G8,B7,B8"


def party(
    hands,
    discard="R1",
    colour="R",
    player=0,
    phase="play",
    uno="-",
    draw=DRAW,
    scores=None,
    house="-",
    extra="-",
    direction="+",
):
    scores = scores or ",".join("0" * len(hands.split("/")))
    return PartyGame.from_notation(
        f"party {hands} {draw} {discard} {colour} {direction} {player} {phase} {uno} - "
        f"{scores} 1 1 500 {house} 1:0 {extra}"
    )


def act(game, player=None):
    player = game.waiting_for[0] if player is None else player
    action = HeuristicBot().act(game, player)
    assert action in game.legal_actions(player)
    return str(action)


def react(game, player):
    action = HeuristicBot().react(game, player)
    return None if action is None else str(action)


# -- out of turn: speed plays and catches ------------------------------------------------


def test_heuristic_claims_a_right_speed_play_with_uno():
    game = party("R5,G7/R5,B1/Y3,W", discard="R1,R5")
    assert [str(a) for a in game.legal_actions(1)] == ["speed R5", "speed R5 uno", "speed B1"]
    assert react(game, 1) == "speed R5 uno"


def test_heuristic_claims_a_right_speed_play_without_uno_when_more_cards_stay():
    game = party("R5,G7/R5,B1,G2/Y3,W", discard="R1,R5")
    assert react(game, 1) == "speed R5"


def test_heuristic_never_makes_a_wrong_speed_play():
    game = party("R5,G7/R5,B1/Y3,W", discard="R1,R5")
    assert [str(a) for a in game.legal_actions(2)] == ["speed Y3", "speed W"]
    assert react(game, 2) is None


def test_heuristic_catches_before_it_speed_plays():
    # Player 2 holds one card and did not call UNO; player 1 could also speed-play R5.
    game = party("R5,G7/R5,B1,G2/Y3", discard="R1,R5", uno="2")
    assert react(game, 1) == "catch 2"
    game.apply("catch 2", player=1)
    assert react(game, 1) == "speed R5"


def test_heuristic_makes_no_claim_while_it_is_its_turn_or_nothing_is_open():
    game = party("R5,G7/B1,G2/Y3", discard="R1,R+2")  # an action card on top: no window
    assert game.legal_actions(1) == ()
    assert react(game, 1) is None


def test_random_react_claims_any_out_of_turn_action_at_its_chance():
    game = party("R5,G7/R5,B1/Y3,W", discard="R1,R5")
    legal = game.legal_actions(1)
    always = RandomBot(random.Random(3), react_chance=1.0)
    picks = [always.react(game, 1) for _ in range(60)]
    assert set(picks) == set(legal)  # the wrong speed play (B1) too
    never = RandomBot(random.Random(3), react_chance=0.0)
    assert [never.react(game, 1) for _ in range(20)] == [None] * 20


def test_random_react_is_seeded_and_rare_by_default():
    game = party("R5,G7/R5,B1/Y3,W", discard="R1,R5")
    bot, again = RandomBot(random.Random(8)), RandomBot(random.Random(8))
    runs = [bot.react(game, 2) for _ in range(400)]
    assert runs == [again.react(game, 2) for _ in range(400)]
    claims = [a for a in runs if a is not None]
    assert 5 <= len(claims) <= 40  # 5% of 400 is 20
    assert {str(a) for a in claims} <= {"speed Y3", "speed W"}


def test_random_react_claims_nothing_for_the_player_to_act_or_while_everyone_points():
    game = party("R5,G7/R5,B1/Y3,W", discard="R1,R5")
    assert RandomBot(random.Random(1), react_chance=1.0).react(game, 0) is None
    pointing = party(
        "R3,G7/B2,B1/Y3,W/G4,G5",
        discard="R1,RP",
        phase="point",
        extra="point=-,-,-,-",
    )
    assert RandomBot(random.Random(1), react_chance=1.0).react(pointing, 1) is None


def test_random_bot_react_chance_is_checked():
    with pytest.raises(ValueError, match=r"react_chance of bot 'r' must be from 0 to 1, not 2"):
        RandomBot(random.Random(1), "r", react_chance=2)


# -- pointing ----------------------------------------------------------------------------


def pointing_game(extra="point=-,-,-,-"):
    # Player 0 played the Point Taken; hand sizes 2, 1, 3, 2.
    return party("R3,G7/B2/Y3,W,Y4/G4,G5", discard="R1,RP", phase="point", extra=extra)


def test_heuristic_points_at_the_opponent_nearest_to_going_out():
    game = pointing_game()
    assert game.phase is Phase.POINT and game.to_act is None
    assert act(game, 0) == "point 1"
    assert act(game, 2) == "point 1"
    assert act(game, 1) == "point 0"  # 0 and 3 hold two each: the lower seat


def test_heuristic_does_not_point_at_its_link_partner():
    game = pointing_game("link=0+1;point=-,-,-,-")
    assert act(game, 0) == "point 3"  # 1 is its partner: 3 (two cards) before 2 (three)
    assert act(game, 1) == "point 3"  # 0 is its partner


def test_heuristic_breaks_a_tie_of_hand_sizes_by_the_higher_score():
    game = party(
        "R3,G7/B2,B4/Y3,W,Y4/G4,G5",
        discard="R1,RP",
        phase="point",
        scores="0,10,0,90",
        extra="point=-,-,-,-",
    )
    assert act(game, 2) == "point 3"


def test_random_bot_points_at_random_among_the_others():
    game = pointing_game()
    bot = RandomBot(random.Random(5))
    picks = {str(bot.act(game, 2)) for _ in range(60)}
    assert picks == {"point 0", "point 1", "point 3"}


# -- the mini pile -----------------------------------------------------------------------


def pile_game(hand):
    # Player 2 must add a green card or a wild to the mini pile (W, G3), or take it.
    return party(
        f"R2,R3/B2,G9,W/{hand}/B6,B7",
        discard="R1,WP",
        colour="G",
        player=2,
        phase="pile",
        draw="B5,B8,G1,G2",
        extra="pile=W,G3",
    )


@pytest.mark.parametrize(
    "hand, added",
    [
        ("G+2,G4,G8,W,WT,Y3", "G8"),  # the highest number card of the pile's colour
        ("GP,W,WT,Y3", "GP"),  # then an action card
        ("G+2,W,WT,Y3", "G+2"),
        ("W+4,WP,WT,W,Y3", "W"),  # then wilds: Wild, Drawn Together, Pile Up, Draw Four
        ("W+4,WP,WT,Y3", "WT"),
        ("W+4,WP,Y3", "WP"),
        ("W+4,Y3,Y4", "W+4"),
        ("G4,Y3", "G4 uno"),  # calls UNO with it
        ("Y3,R4", "take"),  # nothing fits
    ],
)
def test_heuristic_adds_the_card_it_least_needs_to_a_pile(hand, added):
    assert act(pile_game(hand)) == added


def test_a_wild_added_to_a_pile_names_no_colour():
    game = pile_game("W,Y3,Y4")
    assert act(game) == "W"
    game.apply("W")
    assert game.pile[-1] == Card.parse("W") and game.colour is not None


# -- its own turn ------------------------------------------------------------------------


def test_heuristic_links_the_two_opponents_with_the_fewest_cards():
    # Nothing but the Wild Drawn Together matches R1; opponents hold 3, 1 and 2 cards.
    game = party("WT,B2,B3/G4,G5,G6/Y3/Y4,Y5", discard="R1")
    assert act(game) == "WT=B 2+3"


def test_heuristic_links_itself_with_the_one_opponent_of_a_two_player_game():
    game = party("WT,B2,B3/G4,G5,G6", discard="R1")
    assert act(game) == "WT=B 0+1"


def test_heuristic_names_only_the_colour_when_the_link_stays():
    game = party("WT,B2,B3/G4,G5,G6/Y3/Y4,Y5", discard="R1", house="relink=keep", extra="link=1+2")
    assert act(game) == "WT=B"


def test_heuristic_plays_a_wild_pile_up_like_a_wild():
    assert act(party("WP,B2,B3/G4,G5,G6/Y3,Y7,Y8/Y4,Y5,Y6", discard="R1")) == "WP"
    # A card that matches goes first, unless an opponent is about to go out.
    assert act(party("WP,B2,R3/G4,G5,G6/Y3,Y7,Y8/Y4,Y5,Y6", discard="R1")) == "R3"
    assert act(party("WP,B2,R3/G4,G5,G6/Y3,Y7/Y4,Y5,Y6", discard="R1")) == "WP"


def test_heuristic_keeps_point_taken_until_an_opponent_is_about_to_go_out():
    calm = party("RP,R7,B2/G4,G5,G6/Y3,Y7,Y8/Y4,Y5,Y6", discard="R1")
    assert act(calm) == "R7"
    danger = party("RP,R7,B2/G4,G5,G6/Y3/Y4,Y5,Y6", discard="R1")
    assert act(danger) == "RP"


def test_heuristic_plays_a_wild_draw_four_only_when_it_is_legal_in_party():
    # The next player is about to go out: in classic, W+4 first. Here the plain
    # Wild in hand makes the Wild Draw Four illegal, so the Wild is played.
    game = party("W+4,W,G2/B1/Y3,Y4,Y5", discard="R1")
    assert any(str(a) == "W+4=G" for a in game.legal_actions())  # a bluff is legal
    assert not wild_draw_four_is_honest(PlayerView(game, 0))
    assert act(game) == "W=G"
    honest = party("W+4,WT,G2/B1/Y3,Y4,Y5", discard="R1")
    assert wild_draw_four_is_honest(PlayerView(honest, 0))
    assert act(honest) == "W+4=G"
    # Under wd4_all_wilds a Wild Drawn Together makes it illegal too.
    strict = party("W+4,WT,G2/B1/Y3,Y4,Y5", discard="R1", house="wd4_all_wilds=yes")
    assert not wild_draw_four_is_honest(PlayerView(strict, 0))


def penalty_game(offender_hand):
    # Player 0 played a Wild Draw Four on R1, naming green; player 1 decides.
    return party(
        f"{offender_hand}/B1,B2/Y3,Y4",
        discard="R1,W+4",
        colour="G",
        player=1,
        phase="penalty:4:legal",
    )


def test_heuristic_challenges_on_the_odds_counting_the_wilds():
    few = penalty_game("G2")
    many = penalty_game("G2,B3,B4,B5,B6,B7,B8")
    chance_few = offence_chance(PlayerView(few, 1))
    # Unseen: 224 less its own two cards and the two discards (220); of them
    # 51 red (2 x 25 and 2 Point Taken, less R1) and 4 Wilds are against the
    # offender, who holds one card: 1 - C(165, 1) / C(220, 1).
    assert chance_few == 1 - 165 / 220
    assert act(few, 1) == "accept"
    assert offence_chance(PlayerView(many, 1)) > 1 / 3
    assert act(many, 1) == "challenge"


def test_heuristic_catches_on_its_turn_first():
    game = party("R5,G7/B1/Y3,Y4", discard="R1", uno="1")
    assert act(game) == "catch 1"


def test_heuristic_names_a_colour_for_a_first_wild_under_first_once():
    game = party(
        "B1,B2,G3/Y1,Y2/R4,R5",
        discard="R+2,W",
        colour="-",
        phase="colour",
        house="first=once",
    )
    assert act(game) == "colour B"


# -- the view ----------------------------------------------------------------------------


def test_the_view_shows_party_facts_and_who_has_pointed_but_not_whom():
    game = pointing_game("link=1+3;point=-,-,-,-")
    game.apply("point 3", player=0)
    view = PlayerView(game, 1)
    assert view.is_party and view.phase is Phase.POINT
    assert (view.pointing, view.pointer, view.waiting_for) == ((0,), 0, (1, 2, 3))
    assert view.links == (1, 3)
    assert [str(a) for a in view.legal_actions()] == ["point 0", "point 2", "point 3"]
    public = {name: getattr(view, name) for name in dir(view) if not name.startswith("_")}
    for name in ("notation", "choices", "hands", "draw_pile", "copy", "apply"):
        assert name not in public, name
    assert "3" not in str(view.pointing)  # the choice (3) is not there, only who chose (0)


def test_the_view_shows_the_pile_and_the_speed_window():
    pile = PlayerView(pile_game("G4,Y3"), 0)
    assert ([str(c) for c in pile.pile], str(pile.pile_colour), pile.speed_window) == (
        ["W", "G3"],
        "G",
        False,
    )
    window = PlayerView(party("R5,G7/R5,B1/Y3,W", discard="R1,R5"), 1)
    assert (window.speed_window, window.pile, window.pile_colour, window.links) == (
        True,
        (),
        None,
        None,
    )
    # Out of turn, the view lists the player's claims.
    assert [str(a) for a in window.legal_actions()] == ["speed R5", "speed R5 uno", "speed B1"]


def test_unseen_cards_leave_out_the_mini_pile():
    view = PlayerView(pile_game("G4,Y3"), 2)
    unseen = view.unseen_cards()
    # 224 less the own hand (2), the discards (R1, WP) and the pile (W, G3).
    assert sum(unseen.values()) == 224 - 2 - 2 - 2


def test_the_view_of_a_classic_game_has_no_party_facts():

    view = PlayerView(read_game("classic R5,B5/G3,Y9,Y3 G7 R1 R + 0 play - - 0,0 1 1 500 - 1:0"), 1)
    assert (view.is_party, view.speed_window, view.pile, view.links, view.pointing) == (
        False,
        False,
        (),
        None,
        (),
    )
    assert view.waiting_for == (0,) and view.legal_actions() == ()


# -- always legal ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bots_only_ever_act_and_claim_legally_in_party(seed):
    game = PartyGame.new(6, seed=seed)
    heuristic, rand = HeuristicBot(), RandomBot(random.Random(seed), react_chance=0.3)
    for step in range(400):
        if game.round_over:
            break
        for player in range(6):
            for bot in (heuristic, rand):
                claim = bot.react(game, player)
                assert claim is None or claim in game.legal_actions(player)
        player = game.waiting_for[0]
        for bot in (heuristic, rand):
            assert bot.act(game, player) in game.legal_actions(player)
        game.apply((heuristic, rand)[step % 2].act(game, player), player)
        game.check_invariants()


def test_actions_from_the_bots_are_shared_instances():
    game = party("R5,G7/R5,B1/Y3,W", discard="R1,R5")
    assert HeuristicBot().react(game, 1) is Action.parse("speed R5 uno")


def test_heuristic_draws_when_nothing_matches_and_keeps_a_drawn_wild_for_later():
    game = party("B2,B3/G4,G5,G6/Y3,Y7,Y8", discard="R1", draw="WT,G1,G2")
    assert act(game) == "draw"
    game.apply("draw")
    assert game.phase is Phase.DRAWN and str(game.drawn_card) == "WT"
    assert act(game) == "keep"


def test_heuristic_plays_a_drawn_card_that_matches():
    game = party("B2,B3/G4,G5,G6/Y3,Y7,Y8", discard="R1", draw="R9,G1,G2")
    game.apply("draw")
    assert act(game) == "R9"
