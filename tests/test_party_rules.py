"""UNO Party!: one test per rule and per transition (RULES.md "UNO Party!", the contract;
its two wilds: tests/test_party_wilds.py).

Positions are written in Party! notation: Game's sixteen fields plus a seventeenth, the
party field (links, the mini pile, the pointing), ``-`` when none of them. Every position
here starts with ``-`` there and reaches piles, links and pointing through actions, so the
tests do not depend on that field's syntax. Draw piles made of one repeated card keep the
expected hands independent of the order in which several players draw.
"""

from collections import Counter

import pytest

from engine import (
    Card,
    IllegalActionError,
    NotationError,
    Phase,
    StateError,
    Variant,
)
from engine.uno import new_game, read_game
from engine.uno.party import PartyGame
from engine.uno.party_rules import PartyRules
from tests.party_helpers import (
    FOUR,
    G4S,
    apply,
    cards,
    letter,
    outcome,
    party,
    pile_up,
    texts,
)

# -- the deck, the players, the first discard -----------------------------------------------


def test_the_deck_has_224_cards_two_of_each_coloured_card_and_the_party_cards():
    variant = Variant.named("party")
    counts = Counter(str(c) for c in variant.deck)
    assert len(variant.deck) == variant.deck_size == 224
    for colour in "RYGB":
        assert counts[f"{colour}0"] == 2
        for number in range(1, 10):
            assert counts[f"{colour}{number}"] == 4
        for action in ("+2", "R", "S"):
            assert counts[f"{colour}{action}"] == 4
        assert counts[f"{colour}P"] == 2
    for wild in ("W", "W+4", "WP", "WT"):
        assert counts[wild] == 4
    assert sum(counts.values()) == 224
    assert "WS" not in counts
    assert (variant.showdowns, variant.min_players, variant.max_players) == (False, 2, 16)


def test_the_party_cards_score_20_and_50():
    assert [card.points for card in map(Card.parse, ["RP", "BP", "WP", "WT", "W", "W+4"])] == [
        20,
        20,
        50,
        50,
        50,
        50,
    ]


@pytest.mark.parametrize("players", [2, 6, 16])
def test_two_to_sixteen_players_are_dealt_seven_cards_each(players):
    game = new_game(players, "party", seed=7)
    assert isinstance(game, PartyGame)
    assert game.hand_sizes == (7,) * players
    assert len(game.draw_pile) + len(game.discard_pile) == 224 - 7 * players
    assert game.to_act == 1 % players
    game.check_invariants()


@pytest.mark.parametrize("players", [1, 17])
def test_fewer_than_two_or_more_than_sixteen_players_are_refused(players):
    with pytest.raises(ValueError, match="2-16"):
        PartyGame.new(players, seed=1)


def test_game_dispatches_party_to_party_game():
    game = new_game(3, "party", seed=3)
    assert isinstance(game, PartyGame)
    text = game.notation(reveal=True)
    assert text.startswith("party ")
    read = read_game(text)
    assert isinstance(read, PartyGame)
    assert read.notation(reveal=True) == text


def test_stacking_is_refused_with_a_clear_error():
    from engine import HouseRules

    with pytest.raises((ValueError, TypeError), match="stack"):
        PartyGame.new(3, seed=1, house_rules=HouseRules(stacking=True))  # type: ignore[arg-type]
    text = PartyGame.new(3, seed=1).notation(reveal=True).split(" ")
    text[14] = "stack"
    with pytest.raises(NotationError, match="stacking"):
        PartyGame.from_notation(" ".join(text))


def test_a_first_action_card_is_ignored_and_cards_are_flipped_until_a_number():
    flipped = 0
    for seed in range(200):
        game = PartyGame.new(4, seed=seed)
        pile = game.discard_pile
        assert pile[-1].rank <= 9, f"seed {seed}: {pile}"
        assert all(card.rank > 9 for card in pile[:-1]), f"seed {seed}: {pile}"
        # no effect of the flipped cards: player 1 begins, clockwise, nobody drew
        assert (game.to_act, game.direction, game.phase) == (1, 1, Phase.PLAY)
        assert game.colour == pile[-1].colour  # Colour values
        assert game.hand_sizes == (7, 7, 7, 7)
        flipped += len(pile) > 1
    assert flipped > 0  # the scan met first action cards


def test_house_rule_first_action_once_flips_only_one_more_card():
    seen_second_action = False
    for seed in range(300):
        game = PartyGame.new(4, seed=seed, house_rules=PartyRules(first_action="once"))
        pile = game.discard_pile
        assert len(pile) <= 2
        if len(pile) == 2:
            assert pile[0].rank > 9
        assert (game.to_act, game.direction) == (1, 1)
        assert game.hand_sizes == (7, 7, 7, 7)
        if len(pile) == 2 and pile[1].rank > 9:
            seen_second_action = True
            if pile[1].is_wild:
                assert game.phase == Phase.CHOOSE_COLOUR and game.colour is None
            else:
                assert game.phase == Phase.PLAY and game.colour == pile[1].colour
    assert seen_second_action


# -- the turn, waiting_for, legal_moves ---------------------------------------------------------


def test_the_player_to_act_plays_as_in_classic_and_waiting_for_names_them():
    game = party(FOUR, G4S, "R1,R5")
    assert game.waiting_for == (0,)
    assert texts(game.legal_actions()) == ["R7", "draw"]
    assert texts(game.legal_actions(0)) == ["R7", "draw"]
    apply(game, "R7")
    assert (game.to_act, game.phase, str(game.top_card), letter(game.colour)) == (
        1,
        Phase.PLAY,
        "R7",
        "R",
    )
    assert cards(game, 0) == ["B4", "G2", "Y9"]


def test_legal_moves_lists_every_players_actions_in_seat_order():
    game = party(FOUR, G4S, "R1,R5")
    moves = game.legal_moves()
    expected = [(p, a) for p in range(4) for a in game.legal_actions(p)]
    assert list(moves) == expected
    assert {p for p, _ in moves} == {0, 1, 2, 3}


# -- speed play ---------------------------------------------------------------------------


def test_speed_play_lists_every_distinct_card_for_the_players_not_to_act():
    game = party(FOUR, G4S, "R1,R5")
    assert game.speed_window
    assert set(texts(game.legal_actions(2))) == {"speed R5", "speed G3", "speed Y8"}
    assert set(texts(game.legal_actions(1))) == {"speed B1", "speed G6", "speed Y3"}


def test_a_right_speed_play_is_played_and_the_turn_continues_after_the_speed_player():
    game = party(FOUR, G4S, "R1,R5")
    apply(game, (2, "speed R5"))
    assert cards(game, 2) == ["G3", "Y8"]
    assert texts(game.discard_pile) == ["R1", "R5", "R5"]
    assert (game.to_act, game.phase, letter(game.colour)) == (3, Phase.PLAY, "R")
    assert cards(game, 0) == ["B4", "G2", "R7", "Y9"]
    assert len(game.draw_pile) == 16
    assert game.speed_window  # a new number card, and player 3 has not played


def test_a_wrong_speed_play_keeps_the_card_and_draws_one():
    game = party(FOUR, "B9," + G4S, "R1,R5")
    apply(game, (2, "speed G3"))
    assert cards(game, 2) == ["B9", "G3", "R5", "Y8"]
    assert texts(game.discard_pile) == ["R1", "R5"]
    assert (game.to_act, game.phase) == (0, Phase.PLAY)
    assert len(game.draw_pile) == 16


def test_the_player_to_act_has_no_speed_play():
    game = party(["R5,G2,B4", "B1,G6,Y3", "R5,G3,Y8", "B7,Y2,G8"], G4S, "R1,R5")
    assert texts(game.legal_actions(0)) == ["R5", "draw"]
    with pytest.raises(IllegalActionError):
        game.apply("speed R5", 0)


def test_the_window_closes_when_the_player_to_act_plays_a_non_number_card():
    game = party(["W,G2,B4", "B1,G6,Y3", "R5,G3,Y8", "B7,Y2,G8"], G4S, "R1,R5")
    apply(game, "W=G")
    assert not game.speed_window
    assert game.legal_actions(2) == ()
    before = game.notation(reveal=True)
    with pytest.raises(IllegalActionError):
        game.apply("speed R5", 2)
    assert game.notation(reveal=True) == before


def test_after_a_number_card_is_played_the_window_is_for_that_card():
    game = party(["R7,G2,B4", "B1,G6,Y3", "R5,G3,Y8", "B7,R7,G8"], G4S, "R1,R5")
    apply(game, "R7")
    assert game.speed_window
    apply(game, (3, "speed R7"))
    assert cards(game, 3) == ["B7", "G8"]
    assert game.to_act == 0
    apply(game, (2, "speed R5"))  # no longer identical: a wrong speed play
    assert cards(game, 2) == ["G3", "G4", "R5", "Y8"]
    assert (game.to_act, str(game.top_card)) == (0, "R7")


def test_drawing_leaves_the_window_open_by_default():
    game = party(FOUR, "R4," + G4S, "R1,R5")
    apply(game, "draw")
    assert (game.phase, game.to_act, str(game.drawn_card)) == (Phase.DRAWN, 0, "R4")
    assert game.speed_window
    apply(game, (2, "speed R5"))
    assert (game.to_act, game.phase) == (3, Phase.PLAY)
    assert cards(game, 0) == ["B4", "G2", "R4", "R7", "Y9"]
    assert cards(game, 2) == ["G3", "Y8"]


def test_house_rule_drawing_closes_the_window():
    game = party(FOUR, "R4," + G4S, "R1,R5", draw_closes_speed=True)
    apply(game, "draw")
    assert game.phase == Phase.DRAWN
    assert not game.speed_window
    assert game.legal_actions(2) == ()
    with pytest.raises(IllegalActionError):
        game.apply("speed R5", 2)


@pytest.mark.parametrize("top", ["RS", "R+2", "RR", "RP"])
def test_no_speed_play_on_a_card_that_is_not_a_number(top):
    game = party(["R7,G2,B4", "B1,G6,Y3", f"{top},G3,Y8", "B7,Y2,G8"], G4S, f"R1,{top}")
    assert not game.speed_window
    assert game.legal_actions(2) == ()


def test_no_speed_play_during_a_wild_draw_four_penalty():
    game = party(["W+4,R2,B4", "R5,G6,Y3", "B1,G3,Y8", "B7,Y2,G8"], G4S, "R1,R5")
    apply(game, "W+4=B")
    assert game.phase == Phase.PENALTY
    assert not game.speed_window
    assert all(a.kind.name != "SPEED_PLAY" for a in game.legal_actions(2))


def test_claims_are_resolved_by_the_order_of_apply():
    game = party(["R7,G2,B4", "B1,G6,Y3", "R5,G3,Y8", "R5,Y2,G8"], G4S, "R1,R5")
    apply(game, (2, "speed R5"))
    assert game.to_act == 3
    before = game.notation(reveal=True)
    with pytest.raises(IllegalActionError):  # player 3 is to act now: no speed play
        game.apply("speed R5", 3)
    assert game.notation(reveal=True) == before


def test_a_speed_play_with_two_cards_calls_uno_or_may_be_caught():
    hands = ["R7,G2,B4", "B1,G6,Y3", "R5,G3", "B7,Y2,G8"]
    assert "speed R5 uno" in texts(party(hands, G4S, "R1,R5").legal_actions(2))
    called = apply(party(hands, G4S, "R1,R5"), (2, "speed R5 uno"))
    assert called.catchable is None
    forgot = apply(party(hands, G4S, "R1,R5"), (2, "speed R5"))
    assert forgot.catchable == 2
    assert "catch 2" in texts(forgot.legal_actions(0))


def test_going_out_by_a_speed_play_ends_the_round():
    game = party(["R7,G2", "B1,G6,Y3", "R5", "B7,Y2,G8"], G4S, "R1,R5")
    apply(game, (2, "speed R5"))
    assert game.round_over and game.phase == Phase.ROUND_OVER
    assert (game.to_act, game.waiting_for) == (None, ())
    assert outcome(game).winner == 2
    assert outcome(game).points == 9 + 10 + 17
    assert game.scores == (0, 0, 36, 0)


def test_house_rule_no_going_out_by_a_speed_play():
    game = party(["R7,G2", "B1,G6,Y3", "R5", "B7,Y2,G8"], G4S, "R1,R5", speed_out=False)
    assert "speed R5" not in texts(game.legal_actions(2))
    with pytest.raises(IllegalActionError):
        game.apply("speed R5", 2)


# -- UNO and catches ---------------------------------------------------------------------


def test_any_other_player_may_catch_out_of_turn_and_the_first_catch_wins():
    game = party(["R7", "B1,G6,Y3", "R5,G3,Y8", "B7,Y2,G8"], G4S, "R1,R5", player=1, uno="0")
    assert game.catchable == 0
    for p in (1, 2, 3):
        assert "catch 0" in texts(game.legal_actions(p))
    assert "catch 0" not in texts(game.legal_actions(0))
    apply(game, (3, "catch 0"))
    assert cards(game, 0) == ["G4", "G4", "R7"]
    assert (game.to_act, game.phase, game.catchable) == (1, Phase.PLAY, None)
    before = game.notation(reveal=True)
    with pytest.raises(IllegalActionError):
        game.apply("catch 0", 2)
    assert game.notation(reveal=True) == before


def test_the_uno_penalty_house_rule_applies_to_catches():
    game = party(["R7", "B1,G6", "R5,G3", "B7,G8"], G4S, "R1,R5", player=1, uno="0", uno_penalty=4)
    apply(game, (2, "catch 0"))
    assert len(game.hand(0)) == 5


# -- Wild Draw Four ---------------------------------------------------------------------------


WD4 = "Y3,G7,B2,R4,G6,B6,B7,B8"


def test_wild_draw_four_with_a_plain_wild_in_hand_is_illegal():
    game = party(["W+4,W,B1", "G3,B4", "Y9"], WD4, "R1")
    apply(game, "W+4=B", "challenge")
    assert cards(game, 0) == ["B1", "B2", "G7", "R4", "W", "Y3"]
    assert cards(game, 1) == ["B4", "G3"]
    assert (game.to_act, game.phase, letter(game.colour)) == (1, Phase.PLAY, "B")


def test_wild_draw_four_with_only_party_wilds_in_hand_is_legal_by_default():
    game = party(["W+4,WP,WT,B1", "G3,B4", "Y9"], WD4, "R1")
    apply(game, "W+4=B", "challenge")
    assert len(game.hand(1)) == 8
    assert cards(game, 0) == ["B1", "WP", "WT"]
    assert (game.to_act, game.phase, letter(game.colour)) == (2, Phase.PLAY, "B")


def test_house_rule_party_wilds_also_make_wild_draw_four_illegal():
    game = party(["W+4,WP,B1", "G3,B4", "Y9"], WD4, "R1", wd4_all_wilds=True)
    apply(game, "W+4=B", "challenge")
    assert len(game.hand(0)) == 6
    assert cards(game, 1) == ["B4", "G3"]
    assert game.to_act == 1


def test_wild_draw_four_accepted_draws_four_and_skips():
    game = party(["W+4,WP,B1", "G3,B4", "Y9"], WD4, "R1")
    apply(game, "W+4=B")
    assert (game.phase, game.pending_draws, game.to_act) == (Phase.PENALTY, 4, 1)
    apply(game, "accept")
    assert cards(game, 1) == ["B2", "B4", "G3", "G7", "R4", "Y3"]
    assert game.to_act == 2


# -- Point Taken --------------------------------------------------------------------------------


POINT = ["RP,G2,B4", "B1,G6,Y3", "R5,G3,Y8", "B7,Y2,G8"]


def point_taken(**house):
    return apply(party(POINT, G4S, "R1,R5", **house), "RP")


def test_point_taken_matches_by_colour_and_starts_the_pointing():
    assert "RP" in texts(party(POINT, G4S, "R1,R5").legal_actions())
    assert "RP" in texts(party(POINT, G4S, "B1,BP", colour="B").legal_actions())
    assert "RP" not in texts(party(POINT, G4S, "B1,B5", colour="B").legal_actions())
    game = point_taken()
    assert (game.phase, game.to_act, game.pointer) == (Phase.POINT, None, 0)
    assert game.waiting_for == (0, 1, 2, 3)
    assert game.pointing == ()
    assert (str(game.top_card), letter(game.colour)) == ("RP", "R")
    assert set(texts(game.legal_actions(1))) == {"point 0", "point 2", "point 3"}
    assert set(texts(game.legal_actions(0))) == {"point 1", "point 2", "point 3"}
    with pytest.raises(StateError, match=r"0, 1, 2, 3|0,1,2,3"):
        game.legal_actions()


def test_each_pointing_choice_is_taken_once():
    game = point_taken()
    apply(game, (0, "point 1"))
    assert game.pointing == (0,)
    assert game.waiting_for == (1, 2, 3)
    assert game.legal_actions(0) == ()
    with pytest.raises(IllegalActionError):
        game.apply("point 2", 0)
    with pytest.raises(IllegalActionError):
        game.apply("point 1", 1)  # not at oneself


def test_when_the_last_choice_is_in_each_player_draws_one_per_pointer():
    game = apply(point_taken(), (0, "point 1"), (1, "point 2"), (2, "point 1"))
    assert game.phase == Phase.POINT and game.waiting_for == (3,)
    assert game.hand_sizes == (2, 3, 3, 3)
    apply(game, (3, "point 1"))
    assert game.hand_sizes == (2, 6, 4, 3)
    assert cards(game, 1) == ["B1", "G4", "G4", "G4", "G6", "Y3"]
    assert (game.phase, game.to_act, game.waiting_for) == (Phase.PLAY, 1, (1,))
    assert (game.pointer, game.pointing, letter(game.colour)) == (None, (), "R")
    assert len(game.draw_pile) == 12


def test_point_taken_draws_at_most_five():
    hands = ["RP,G2", "B1", "B2", "B3", "B4", "B5", "B6", "B7"]
    game = apply(party(hands, G4S, "R1"), "RP")
    assert game.waiting_for == tuple(range(8))
    for p in (0, 2, 3, 4, 5, 6, 7):
        apply(game, (p, "point 1"))
    apply(game, (1, "point 2"))
    assert game.hand_sizes == (1, 6, 2, 1, 1, 1, 1, 1)
    assert game.to_act == 1


def test_house_rule_the_player_of_point_taken_does_not_point():
    game = point_taken(pointer_points=False)
    assert game.waiting_for == (1, 2, 3)
    assert game.legal_actions(0) == ()
    apply(game, (1, "point 0"), (2, "point 0"), (3, "point 2"))
    assert game.hand_sizes == (4, 3, 4, 3)
    assert game.to_act == 1


def test_point_taken_as_a_last_card_points_then_ends_the_round():
    game = apply(party(["RP", "B1,G6,Y3", "R5,G3,Y8", "B7,Y2,G8"], G4S, "R1,R5"), "RP")
    assert game.phase == Phase.POINT and not game.round_over
    apply(game, (0, "point 1"), (1, "point 2"), (2, "point 1"), (3, "point 1"))
    assert game.round_over
    assert outcome(game).winner == 0
    assert game.hand_sizes == (0, 6, 4, 3)
    # 1: B1 G6 Y3 + three G4; 2: R5 G3 Y8 + G4; 3: B7 Y2 G8
    assert game.scores == (10 + 12 + 16 + 4 + 17, 0, 0, 0)


def test_no_pending_choice_is_visible_before_the_last_is_in():
    base = point_taken()
    one, other = base.copy(), base.copy()
    one.apply("point 1", 0)
    other.apply("point 2", 0)
    assert one.notation() == other.notation()
    assert repr(one) == repr(other)
    assert str(one) == str(other)
    assert one.pointing == other.pointing == (0,)
    assert one.waiting_for == other.waiting_for == (1, 2, 3)
    assert one.notation(reveal=True) != other.notation(reveal=True)
    errors = []
    for game in (one, other):
        with pytest.raises(IllegalActionError) as info:
            game.apply("point 3", 0)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_a_sealed_pointing_cannot_be_read_back_but_a_revealed_one_can():
    game = apply(point_taken(), (0, "point 1"), (1, "point 2"))
    with pytest.raises(NotationError, match=r"reveal=True"):
        PartyGame.from_notation(game.notation())
    read = PartyGame.from_notation(game.notation(reveal=True))
    assert read.notation(reveal=True) == game.notation(reveal=True)
    assert read.pointing == (0, 1)
    for g in (game, read):
        apply(g, (2, "point 1"), (3, "point 1"))
    assert read.notation(reveal=True) == game.notation(reveal=True)
    assert read.hand_sizes == (2, 6, 4, 3)


# -- scoring and the match -----------------------------------------------------------------------


def test_the_winner_scores_point_taken_20_and_the_four_wilds_50():
    game = party(["R5", "RP,W,W+4", "WP,WT,R5,RS"], "G4,G4", "R1")
    apply(game, "R5")
    assert outcome(game).winner == 0
    assert outcome(game).points == 20 + 50 + 50 + 50 + 50 + 5 + 20
    assert game.scores == (245, 0, 0)


def test_the_match_ends_at_the_target():
    game = party(["R5", "RP,W", "R5,RS"], "G4,G4", "R1", scores="90,0,0", target=100)
    apply(game, "R5")
    assert (game.match_over, game.match_winner) == (True, 0)


def test_the_next_round_deals_224_cards_with_the_deal_passing_left():
    game = PartyGame.new(3, seed=11, target=10_000)
    for _ in range(5_000):
        if game.round_over:
            break
        if game.to_act is None:  # pointing: the first player still to choose
            player = game.waiting_for[0]
            game.apply(game.legal_actions(player)[0], player)
        else:
            actions = game.legal_actions()
            active = [a for a in actions if not a.is_passive]
            game.apply((active or actions)[0])
    assert game.round_over
    assert game.scores[outcome(game).winner] == outcome(game).points
    game.next_round()
    assert (game.round, game.dealer, game.to_act) == (2, 1, 2)
    assert game.hand_sizes == (7, 7, 7)
    assert len(game.draw_pile) + len(game.discard_pile) == 224 - 21
    game.check_invariants()


# -- positions read from the party field (docs/notation.md) -----------------------------------


def test_reverse_with_two_players_acts_as_a_skip():
    game = party(["RR,B1", "G3"], G4S, "R1")
    apply(game, "RR")
    assert (game.to_act, game.phase, game.direction) == (0, Phase.PLAY, 1)  # as classic


def test_a_pile_up_in_progress_read_from_notation():
    game = PartyGame.from_notation(
        "party R2,R3/B2,G9,W/Y3,G4/B6,B7 B5,B8,G1,G2 R1,WP G + 2 pile - - 0,0,0,0 3 1 500 - 1:0 "
        "pile=W,G3"
    )
    assert (texts(game.pile), letter(game.pile_colour), game.to_act) == (["W", "G3"], "G", 2)
    assert texts(game.legal_actions(2)) == ["G4", "G4 uno"]
    apply(game, "G4 uno")
    assert texts(game.legal_actions(3)) == ["take"]
    apply(game, "take")
    assert cards(game, 3) == ["B6", "B7", "G3", "G4", "W"]
    assert (game.to_act, game.phase, letter(game.colour), game.pile) == (0, Phase.PLAY, "G", ())


def test_a_pile_goes_on_among_the_others_after_a_player_went_out():
    game = PartyGame.from_notation(
        "party /G5,B1/G6,B2 B5,B8 R1,WP G + 1 pile - - 0,0,0 2 1 500 - 1:0 pile=G3;out=0"
    )
    apply(game, "G5 uno")
    assert game.to_act == 2
    apply(game, "G6 uno")
    assert game.to_act == 1  # player 0 is out: skipped
    apply(game, "take")
    assert game.round_over and outcome(game).winner == 0
    assert game.scores == (1 + 3 + 5 + 6 + 2, 0, 0)


def test_a_revealed_pointing_read_from_notation_finishes_and_seals():
    revealed = (
        "party R3,G7/B2,B1/Y3,W/G4,G5 G1,G2,G3,G4,G5,G6,G7,G8,B7,B8 R1,RP R + 0 point - - "
        "0,0,0,0 3 1 500 - 1:0 point=3,-,-,1"
    )
    game = PartyGame.from_notation(revealed)
    assert game.notation() == revealed.replace("point=3,-,-,1", "point=?,-,-,?")
    assert (game.waiting_for, game.pointing, game.pointer) == ((1, 2), (0, 3), 0)
    assert set(texts(game.legal_actions(1))) == {"point 0", "point 2", "point 3"}
    apply(game, (1, "point 3"), (2, "point 3"))
    assert game.hand_sizes == (2, 3, 2, 5)
    assert (game.to_act, game.phase) == (1, Phase.PLAY)


def test_a_link_read_from_notation_doubles_a_draw():
    game = PartyGame.from_notation(
        "party WT,R2,R3/B2,B1/Y3,R4/G5,G6 G1,G2,G3,G4,G5,G6,G7,G8 R1 R + 0 play - - 0,0,0,0 3 1 "
        "500 pile_refuse=yes,uno=4 1:0 link=1+3"
    )
    assert game.links == (1, 3)
    apply(game, "R2", "draw")  # player 1 draws G1 (not playable); player 3 draws G2
    assert cards(game, 1) == ["B1", "B2", "G1"]
    assert cards(game, 3) == ["G2", "G5", "G6"]
    assert (game.to_act, game.phase) == (2, Phase.PLAY)


# -- last cards and direction -----------------------------------------------------------------


def test_after_a_speed_play_the_turn_goes_on_in_the_current_direction():
    game = party(FOUR, G4S, "R1,R5", direction="-")
    apply(game, (2, "speed R5"))
    assert (game.to_act, game.direction) == (1, -1)


def test_a_draw_two_as_a_last_card_still_draws_and_counts():
    game = party(["G+2", "G6,B1,Y3", "R5,G3,Y8", "B7,Y2,G8"], G4S, "R1,G5", colour="G")
    apply(game, "G+2")
    assert game.round_over and outcome(game).winner == 0
    assert cards(game, 1) == ["B1", "G4", "G4", "G6", "Y3"]
    assert game.scores == (18 + 16 + 17, 0, 0, 0)


def test_a_wild_pile_up_as_a_last_card_runs_its_pile_then_ends_the_round():
    game = pile_up(["WP", "G6,B1,Y3", "R5,R3,Y8", "B7,Y2,G8"])
    assert (game.round_over, game.phase, game.to_act) == (False, Phase.PILE, 1)
    apply(game, "G6", "take")
    assert game.round_over and outcome(game).winner == 0
    assert cards(game, 2) == ["G6", "G7", "R3", "R5", "W", "WT", "Y8"]
    assert game.scores == (4 + 129 + 17, 0, 0, 0)


def test_an_illegal_action_names_the_action_the_player_and_the_public_position():
    game = party(["W,G2,B4", "B1,G6,Y3", "R5,G3,Y8", "B7,Y2,G8"], G4S, "R1,R5")
    apply(game, "W=G")
    with pytest.raises(IllegalActionError) as info:
        game.apply("speed R5", 2)
    message = str(info.value)
    assert "'speed R5'" in message and "player 2" in message
    assert game.notation() in message
    pointing = apply(point_taken(), (0, "point 1"))
    with pytest.raises(IllegalActionError) as info:
        pointing.apply("point 2", 0)
    message = str(info.value)
    assert pointing.notation() in message
    assert pointing.notation(reveal=True) not in message
