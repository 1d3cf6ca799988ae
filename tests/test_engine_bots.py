"""Bots: always legal, and each heuristic shown on a position built from notation.

Notation fields (docs/notation.md): variant hands draw discard colour direction
player phase uno showdown scores dealer round target house-rules rng.
"""

import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Action, Card, Colour, Game, HouseRules
from engine.uno.bots import HeuristicBot, PlayerView, RandomBot


def position(
    hands,
    discard="R1",
    colour="R",
    player=0,
    phase="play",
    uno="-",
    draw="G1,B2",
    scores=None,
    variant="showdown",
    direction="+",
    target=500,
):
    scores = scores or ",".join("0" * len(hands.split("/")))
    return Game.from_notation(
        f"{variant} {hands} {draw} {discard} {colour} {direction} {player} "
        f"{phase} {uno} - {scores} 1 1 {target} - 1:0"
    )


def choice(game, player=None):
    player = game.to_act if player is None else player
    return str(HeuristicBot().act(game, player))


# -- only legal actions ------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 6),
    variant=st.sampled_from(["classic", "showdown"]),
    steps=st.integers(0, 400),
    stacking=st.booleans(),
)
def test_bots_only_ever_return_legal_actions(seed, players, variant, steps, stacking):
    rng = random.Random(seed)
    game = Game.new(players, variant, seed=seed, house_rules=HouseRules(stacking=stacking))
    bots = [HeuristicBot(), RandomBot(random.Random(seed + 1))]
    for step in range(steps):
        if game.round_over:
            if game.match_over:
                return
            game.next_round()
        pending = game.pending_showdown
        if pending is not None:
            game.apply(Action.showdown_result(rng.choice((pending.challenger, pending.opponent))))
            continue
        legal = game.legal_actions()
        for bot in bots:
            assert bot.act(game, game.to_act) in legal
        # Walk on with either bot, so positions come from both kinds of play.
        game.apply(bots[step % 2].act(game, game.to_act))


def test_random_bot_is_seeded_and_uniform():
    game = position("R5,R6,R7/G3,Y9,Y3", "R1")
    legal = game.legal_actions()  # R5 R6 R7 draw
    picks = [RandomBot(random.Random(9)).act(game, 0) for _ in range(3)]
    assert picks == [RandomBot(random.Random(9)).act(game, 0) for _ in range(3)]
    bot = RandomBot(random.Random(4))
    counts = Counter(str(bot.act(game, 0)) for _ in range(4000))
    assert set(counts) == {str(a) for a in legal}
    # 1000 each expected; 4.5 standard deviations (27) either way.
    assert all(870 <= n <= 1130 for n in counts.values()), counts


# -- the view -----------------------------------------------------------------------------


def test_a_view_shows_the_own_hand_and_public_facts_only():
    game = position("R5,B5/G3,Y9,Y3", "R1")
    view = PlayerView(game, 1)
    assert [str(c) for c in view.hand] == ["G3", "Y9", "Y3"]
    assert view.hand_sizes == (2, 3)
    assert view.legal_actions() == ()  # not player 1's decision
    assert view.drawn_card is None
    for secret in ("hands", "draw_pile", "hand", "notation", "copy", "apply"):
        if secret != "hand":
            assert not hasattr(view, secret), secret


def test_unseen_cards_are_the_deck_less_own_hand_and_discards():
    game = position("R5,B5/G3,Y9,Y3", "G1,R1", variant="classic")
    unseen = PlayerView(game, 0).unseen_cards()
    assert sum(unseen.values()) == 108 - 2 - 2
    assert unseen[Card.parse("R5")] == 1 and unseen[Card.parse("R1")] == 1
    assert unseen[Card.parse("G3")] == 2  # the other hand is not seen


# -- the heuristic bot ------------------------------------------------------------------


def test_keeps_the_wild_when_a_coloured_card_matches():
    assert choice(position("W,R5,G2/B1,Y1,Y2", "R1")) == "R5"


def test_plays_the_wild_when_nothing_else_matches():
    assert choice(position("W,G2,G7,B4/B1,Y1,Y2", "R1")) == "W=G"


def test_plays_the_wild_when_an_opponent_is_about_to_go_out():
    assert choice(position("R5,W,G2,G7/B1", "R1", draw="G1,B2,Y5")) == "W=G"


def test_names_the_colour_it_holds_most():
    assert choice(position("W,B1,B2,G3/B1,Y1,Y2", "R7")) == "W=B"
    # A tie goes to the colour worth more points.
    assert choice(position("W,B1,G2,Y5,Y3,G9/B1,Y1,Y2", "R7")) == "W=G"


def test_names_the_majority_colour_for_a_wild_turned_first():
    game = position("Y1,B1,B2,G3/B1,Y1,Y2", "W", colour="-", phase="colour")
    assert choice(game) == "colour B"


def test_calls_uno_with_its_second_to_last_card():
    assert choice(position("R5,G2/B1,Y1,Y2", "R1")) == "R5 uno"


def test_calls_uno_when_playing_the_card_it_drew():
    game = position("G2,R5/B1,Y1,Y2", "R1", phase="drawn")
    assert choice(game) == "R5 uno"


def test_catches_a_player_who_did_not_call_uno():
    game = position("R5,G2,B7/B1/Y3,Y4", "R1", player=2, uno="1")
    assert choice(game) == "catch 1"


def test_prefers_an_action_card_against_a_next_player_with_few_cards():
    assert choice(position("R5,RS,G7/B1", "R1", draw="G1,B2,Y5")) == "RS"
    assert choice(position("R5,R+2,G7/B1", "R1", draw="G1,B2,Y5")) == "R+2"
    # With plenty of cards next, the action card is kept for later.
    assert choice(position("R5,RS,G7/B1,Y1,Y2,Y3,Y4", "R1")) == "R5"


def test_plays_the_colour_it_holds_most_then_the_higher_card():
    assert choice(position("R5,G1,G2,G9/B1,Y1,Y2", "R1,G5", colour="G")) == "G9"
    assert choice(position("R1,R5,G1,R2,G9/B1,Y1,Y2", "R1,Y1", colour="Y")) == "R1"


def test_plays_rather_than_draws_and_plays_the_card_it_drew():
    assert choice(position("R5,G2,G3/B1,Y1,Y2", "R1")) != "draw"
    assert choice(position("G2,G3,R5/B1,Y1,Y2", "R1", phase="drawn")) == "R5"
    assert choice(position("G2,G3/B1,Y1,Y2", "R1")) == "draw"


def test_keeps_a_drawn_wild_unless_an_opponent_is_about_to_go_out():
    assert choice(position("G2,G3,W/B1,Y1,Y2", "R1", phase="drawn")) == "keep"
    assert choice(position("G2,G3,W/B1", "R1", phase="drawn", draw="G1,B2,Y5")) == "W=G"


def test_plays_a_wild_draw_four_only_when_it_is_legal():
    # The next player is about to go out, but holding red makes W+4 dishonest.
    assert choice(position("R5,W+4,G2/B1", "R1", draw="G1,B2,Y5")) == "R5"
    assert choice(position("W+4,G2,G3/B1", "R1", draw="G1,B2,Y5")) == "W+4=G"


def _wd4_position(offender_hand, covered="G3", colour="B"):
    # Player 0 played W+4 over `covered`; player 1 decides.
    return position(
        f"{offender_hand}/R1,R2,R3",
        f"{covered},W+4",
        colour=colour,
        player=1,
        phase="penalty:4:legal",
    )


def test_challenges_when_the_offender_must_have_held_the_colour():
    game = _wd4_position(",".join(["R5"] * 15))
    assert HeuristicBot.held_colour_chance(PlayerView(game, 1)) > 0.95
    assert choice(game) == "challenge"


def test_accepts_when_the_offender_probably_held_no_card_of_the_colour():
    game = _wd4_position("R5")
    assert HeuristicBot.held_colour_chance(PlayerView(game, 1)) < 1 / 3
    assert choice(game) == "accept"


def test_the_challenge_odds_come_from_hand_size_and_unseen_cards():
    game = _wd4_position("R5,R6,R7")
    # Unseen: 112 cards less the own hand (3) and the discards (G3, W+4) = 107,
    # of which green: 25 in the deck less the G3 on the pile = 24.
    expected = 1 - math.comb(107 - 24, 3) / math.comb(107, 3)
    assert HeuristicBot.held_colour_chance(PlayerView(game, 1)) == expected
    assert choice(game) == "challenge"  # 0.54 > 1/3


def test_does_not_challenge_when_the_covered_colour_cannot_be_seen():
    game = _wd4_position(",".join(["R5"] * 15), covered="W")
    assert HeuristicBot.held_colour_chance(PlayerView(game, 1)) is None
    assert choice(game) == "accept"


def test_a_wild_showdown_faces_the_player_nearest_to_going_out_for_the_most_cards():
    game = position("R5,G2/B1,Y1,Y2,Y3,Y4/G5,G6/Y7,Y8,Y9", "R1,WS", colour="G", phase="face")
    assert choice(game) == "face 2 x3"


def test_a_wild_showdown_breaks_a_hand_size_tie_by_the_higher_score():
    game = position(
        "R5,G2/B1,Y1/G5,G6/Y7,Y8", "R1,WS", colour="G", phase="face", scores="0,100,300,50"
    )
    assert choice(game) == "face 2 x3"


def test_a_wild_showdown_risks_the_fewest_cards_against_a_player_far_from_winning():
    game = position("R5,G2/B1,Y1,Y2,Y3,Y4/G5,G6,G7,G8,G9", "R1,WS", colour="G", phase="face")
    assert choice(game) == "face 1 x1"
    # ... unless that player is close to winning the match.
    game = position(
        "R5,G2/B1,Y1,Y2,Y3,Y4/G5,G6,G7,G8,G9", "R1,WS", colour="G", phase="face", scores="0,400,0"
    )
    assert choice(game) == "face 1 x3"


def test_stacks_a_draw_two_under_the_stacking_house_rule():
    game = Game.from_notation(
        "classic R5,B+2/G3,Y9,Y3 G7,G8 R1,R+2 R + 1 penalty:2 - - 0,0 1 1 500 stack 1:0"
    )
    assert str(HeuristicBot().act(game, 1)) == "accept"  # no Draw Two to stack
    game = Game.from_notation(
        "classic R5,B5/G3,B+2,Y3 G7,G8 R1,R+2 R + 1 penalty:2 - - 0,0 1 1 500 stack 1:0"
    )
    assert str(HeuristicBot().act(game, 1)) == "B+2"


def test_heuristic_bot_is_deterministic():
    game = Game.new(4, "showdown", seed=11)
    assert HeuristicBot().act(game, game.to_act) == HeuristicBot().act(game, game.to_act)
    assert HeuristicBot.best_colour([]) is Colour.RED


def test_a_bot_s_reaction_on_the_unit_is_a_person_s_median_unless_given():
    assert HeuristicBot().reaction_ms == RandomBot(random.Random(1)).reaction_ms == 230.0
    assert HeuristicBot("fast", reaction_ms=150).reaction_ms == 150.0
    assert RandomBot(random.Random(1), "slow", reaction_ms=1000).reaction_ms == 1000.0
    assert HeuristicBot(reaction_ms=100).reaction_ms == 100.0


@pytest.mark.parametrize("value", [99.9, 1000.5, 0, -230, float("nan"), "230", True, None])
def test_a_bot_s_reaction_out_of_range_is_refused_naming_the_bot(value):
    message = (
        "reaction_ms of bot 'fast' must be a number from 100 to 1000 (ms, the median of its "
        f"reaction after GO), not {value!r}"
    )
    with pytest.raises(ValueError) as caught:
        HeuristicBot("fast", reaction_ms=value)
    assert str(caught.value) == message
    with pytest.raises(ValueError) as caught:
        RandomBot(random.Random(1), "fast", reaction_ms=value)
    assert str(caught.value) == message
