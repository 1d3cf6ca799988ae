"""UNO Party!'s legality kept as the game changes (engine.uno.party_legality)
says at every decision exactly what the rule recomputed for every player says
(party_play.legal_for, the reference): the same actions in the same order, the
same claimants, over random games of 2-16 players under random house rules,
and in copies and games read back from their notation mid-round."""

import copy
import pickle
import random

from engine.uno.party import PartyGame
from engine.uno.party_play import legal_for
from engine.uno.party_rules import PartyRules
from tests.party_helpers import party, texts

#: Each house rule set to something other than its default, one game each.
OTHER_RULES = (
    PartyRules(first_action="once"),
    PartyRules(draw_closes_speed=True),
    PartyRules(speed_out=False),
    PartyRules(pointer_points=False),
    PartyRules(pile_wilds=False, pile_refuse=True),
    PartyRules(pile_out="at_once", pile_is_draw=True),
    PartyRules(link_self=False, relink="keep", cap_linked=True),
    PartyRules(wd4_all_wilds=True, uno_penalty=4, draw_until_playable=True),
)


EVERY_KIND = (
    "PLAY",
    "DRAW",
    "KEEP",
    "CHALLENGE",
    "ACCEPT",
    "CATCH",
    "SPEED_PLAY",
    "POINT",
    "TAKE_PILE",
)


def reference_moves(game):
    """Every (player, action) as the rule says, asked of every player anew."""
    return tuple((p, a) for p in range(game.players) for a in legal_for(game, p))


def reference_claimants(game):
    if game.to_act is None:
        return ()
    return tuple(p for p in range(game.players) if p != game.current and tuple(legal_for(game, p)))


def assert_as_the_rule_says(game):
    expected = reference_moves(game)
    position = game.notation(reveal=True)
    assert game.legal_moves() == expected, position
    for p in range(game.players):
        assert game.legal_actions(p) == tuple(a for q, a in expected if q == p), (p, position)
    assert game.claimants() == reference_claimants(game), position


def random_move(game, rng):
    """Uniform over every move at times (wrong speed plays, voluntary draws), else
    the player to act's, or a right speed play or a catch when there is one."""
    moves = game.legal_moves()
    if game.to_act is None or rng.random() < 0.3:
        return rng.choice(moves)
    claims = [
        (p, a)
        for p, a in moves
        if p != game.to_act
        and (a.kind.name == "CATCH" or (a.kind.name == "SPEED_PLAY" and a.card == game.top_card))
    ]
    if claims and rng.random() < 0.3:
        return rng.choice(claims)
    own = [(p, a) for p, a in moves if p == game.to_act]
    active = [(p, a) for p, a in own if not a.is_passive]
    return rng.choice(active or own)


def play_checked(game, rng, decisions):
    """Up to ``decisions`` random decisions (rounds dealt on to the match's end),
    each position checked; returns the kinds of action taken."""
    kinds = set()
    for _ in range(decisions):
        assert_as_the_rule_says(game)
        if game.round_over:
            if game.match_over:
                break
            game.next_round()
            continue
        player, action = random_move(game, rng)
        kinds.add(action.kind.name)
        game.apply(action, player)
    return kinds


def test_random_games_of_2_to_16_players_agree_with_the_rule_at_every_decision():
    rng = random.Random(24)
    kinds = set()
    for players in (2, 3, 4, 5, 6, 8, 11, 16):
        game = PartyGame.new(players, seed=rng.getrandbits(32), target=100)
        kinds |= play_checked(game, rng, 600)
    assert kinds == set(EVERY_KIND)  # every kind of Party! decision was checked after


def test_every_house_rule_agrees_with_the_rule_at_every_decision():
    rng = random.Random(25)
    for number, house in enumerate(OTHER_RULES):
        game = PartyGame.new(3 + number, seed=rng.getrandbits(32), house_rules=house, target=100)
        play_checked(game, rng, 300)


def test_copies_and_games_read_back_mid_round_agree_with_the_rule():
    rng = random.Random(26)
    game = PartyGame.new(6, seed=26, target=100)
    for _ in range(12):
        play_checked(game, rng, 40)
        copy = game.copy()
        read_back = PartyGame.from_notation(game.notation(reveal=True))
        for other in (copy, read_back):
            play_checked(other, random.Random(rng.random()), 30)
        assert_as_the_rule_says(game)  # a copy's decisions leave the original alone


def test_deep_copies_and_pickled_games_keep_their_legality_with_them():
    rng = random.Random(27)
    game = PartyGame.new(6, seed=27)
    play_checked(game, rng, 60)
    for other in (copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
        play_checked(other, random.Random(1), 60)


def test_a_caught_player_may_speed_play_the_cards_they_drew():
    # Player 1 played R1 without UNO; 2 catches them: 1 draws G8 and G7, both
    # speed plays at once (their hand changed though 1 took no decision).
    game = party(["R5,R6,R7", "B1", "Y3,Y4,Y5"], draw="G8,G7", discard="R1", player=2, uno="1")
    assert "speed G7" not in texts(game.legal_actions(1))
    game.apply("catch 1", player=2)
    assert texts(game.legal_actions(1)) == ["speed B1", "speed G8", "speed G7"]
    assert game.legal_moves() == reference_moves(game)


def test_a_two_card_hand_gets_uno_when_the_top_card_becomes_its_own():
    # Player 2 keeps B2,R5 while player 0 plays R5 on R1: 2 may now speed-play R5
    # with UNO, though their hand did not change.
    game = party(["R5,G7,Y1", "B1,B3,B4", "B2,R5"], discard="R1")
    assert texts(game.legal_actions(2)) == ["speed B2", "speed R5"]
    game.apply("R5")
    assert texts(game.legal_actions(2)) == ["speed B2", "speed R5", "speed R5 uno"]
    assert game.legal_moves() == reference_moves(game)


def test_a_pointing_choice_changes_only_its_makers_actions():
    game = party(["RP,G7", "B2,B1", "Y3,W"], draw="G1,G2,G3", discard="R1")
    game.apply("RP")
    before = game.legal_moves()
    game.apply("point 2", player=0)
    assert game.legal_actions(0) == ()
    assert game.legal_moves() == tuple((p, a) for p, a in before if p != 0)
    assert game.legal_moves() == reference_moves(game)


def test_a_wild_dealt_first_asks_its_colour_and_opens_the_window_once_named():
    game = party(["R5,G7,Y1", "B1,B3,B4", "B2,R5,Y9"], discard="W", colour="-", phase="colour")
    assert game.legal_moves() == reference_moves(game)
    assert game.claimants() == ()
    game.apply("colour G")
    assert game.legal_moves() == reference_moves(game)
    assert game.claimants() == ()  # a wild on top: no speed plays


def test_the_window_closing_takes_every_speed_play_away():
    # An action card on top closes the speed window for everyone at once.
    game = party(["RS,G7,Y1", "B1,B3,B4", "B2,R5,Y9"], discard="R1")
    assert game.claimants() == (1, 2)
    game.apply("RS")
    assert game.claimants() == ()
    assert game.legal_moves() == reference_moves(game)


def test_wild_drawn_together_offers_the_links_of_its_own_game_s_rules():
    # The same seats under other house rules: Wild Drawn Together's links differ.
    hands = ["WT,G7,Y1", "B1,B3,B4", "B2,R5,Y9"]
    default = party(hands, discard="R1")
    no_self = party(hands, discard="R1", link_self=False)
    assert len(default.legal_actions(0)) == 4 * 3 + 2
    assert len(no_self.legal_actions(0)) == 4 * 1 + 2
    for game in (default, no_self):
        assert game.legal_moves() == reference_moves(game)


def test_a_card_played_from_a_pair_moves_its_twin_to_where_it_now_first_is():
    # Ann plays the first of her two R5s: her next speed plays follow her hand,
    # G7 first, then the R5 left, then B1.
    game = party(["R5,G7,R5,B1", "B2,B3,B4", "Y2,Y3,Y4"], discard="R1")
    assert texts(game.legal_actions(1)) == ["speed B2", "speed B3", "speed B4"]
    game.apply("R5")
    assert texts(game.legal_actions(0)) == ["speed G7", "speed R5", "speed B1"]
    assert game.legal_moves() == reference_moves(game)
