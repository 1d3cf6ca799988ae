"""Every house rule of PitchRules: the [choice] of RULES.md by default, the alternative on demand."""

import pytest

from engine.game.errors import NotationError
from engine.match import Match
from engine.pitch import DECK, PLAIN_TEN, PitchGame, PitchRules
from engine.pitch.rules import RULE_CHOICES
from engine.pitch.scoring import score_hand
from tests.pitch_helpers import deal_game
from tests.test_pitch_game import BIG, legal

# Hearts trump; the fillers are dead cards (no heart, no JD, no joker).
DEAD = [c for c in DECK if c[1] in "SC" or (c[1] == "D" and c != "JD")]
LEAD = {0: "AH 2H 3H 4H QH JH JD HJ", 1: "KH", 2: "6H 7H 8H", 3: "5H 9H"}
LEAD_STOCK = "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS LJ TH"
LEAD_START = ["bid 5", "pass", "pass", "pass", "trump H", "give"]


def lead_game(rules="-", burns=("burn QH", "burn 4H")):
    """Seat 0 pitches hearts, gives the stock (LJ TH) to seat 2, burns two; seat 1 holds KH alone."""
    return deal_game(LEAD, LEAD_STOCK, rules=rules, fill=DEAD, actions=[*LEAD_START, *burns])


def first_trick(game):
    for text in ("play 2H", "play KH", "play 6H", "play 5H"):
        game.apply(text)


def test_rules_text_round_trips_and_names_a_bad_rule():
    for name, (_default, *others) in RULE_CHOICES.items():
        for value in others:
            rules = PitchRules(**{name: value})
            assert PitchRules.parse(str(rules)) == rules and str(rules) != "-"
    assert str(PitchRules()) == "-" and PitchRules.parse("-") == PitchRules()
    with pytest.raises(NotationError, match="no house rule 'jokes'"):
        PitchRules.parse("jokes=unmarked")
    with pytest.raises(ValueError, match="house rule stuck is 'four' or 'any', not 'five'"):
        PitchRules(stuck="five")
    assert PitchGame.new(seed=1, house_rules="low=holder").rules.low == "holder"


def test_the_lead_passes_left_from_a_winner_without_trumps():
    game = lead_game()
    first_trick(game)
    assert game.tricks[0].winner == 1 and game.out[1] and game.leader == 2


def test_house_rule_lead_partner_passes_it_to_the_partner_first():
    game = lead_game("lead=partner")
    first_trick(game)
    assert game.tricks[0].winner == 1 and game.leader == 3


def test_the_two_goes_to_the_taker_or_by_house_rule_to_its_holder():
    game = lead_game()
    first_trick(game)
    assert game.taken == (0, 1) and game.tricks[0].points == 1
    game = lead_game("low=holder")
    first_trick(game)
    assert game.taken == (1, 0) and game.tricks[0].points == 0


def test_marked_jokers_rank_high_over_low_unmarked_the_first_played_is_high():
    for rules, winner in (("-", 0), ("jokers=unmarked", 2)):
        game = lead_game(rules)
        first_trick(game)
        for text in ("play LJ", "play 9H", "play HJ"):  # seat 1 is out
            game.apply(text)
        assert game.tricks[1].winner == winner, rules


def test_unmarked_jokers_are_one_choice_when_both_are_held():
    game = deal_game(BIG, rules="jokers=unmarked", actions=["bid 5", "pass", "pass", "pass"])
    game.apply("trump H")
    game.apply("keep")
    assert "burn HJ" in legal(game) and "burn LJ" not in legal(game)


def test_any_trump_may_be_burned_or_by_house_rule_no_point_card_while_holding_a_blank():
    game = lead_game(burns=())
    assert len(legal(game)) == 8
    game = lead_game("burn=protected", burns=())
    assert legal(game) == ["burn 4H", "burn QH"]
    game.apply("burn QH")
    game.apply("burn 4H")
    assert game.phase.value == "play"


def test_burns_are_face_up_or_by_house_rule_face_down_to_all_but_the_burner():
    game = lead_game("burn_face=down")
    assert game.view(0).burned == ((0, "QH"), (0, "4H"))
    assert game.view(1).burned == ((0, None), (0, None)) == game.view(None).burned
    assert "x?" in game.notation() and "xQH" not in game.notation()
    assert "xQH" in game.notation(reveal=True)
    assert PitchGame.from_notation(game.notation(reveal=True)).notation() == game.notation()
    assert lead_game().view(1).burned == ((0, "QH"), (0, "4H"))


def test_the_deal_is_single_cards_or_by_house_rule_threes():
    single = PitchGame.new(seed=2, dealer=0)
    threes = PitchGame.new(seed=2, dealer=0, house_rules="deal=threes")
    deck = threes.deck
    assert single.dealt(1)[:2] == (deck[0], deck[4])
    assert threes.dealt(1)[:3] == deck[0:3] and threes.dealt(2)[:3] == deck[3:6]
    assert threes.dealt(0)[-3:] == deck[33:36]


def test_house_rule_misdeal_lets_a_hand_without_face_or_point_cards_ask_for_a_redeal():
    poor = {0: "4C 5C 6C 7C 8C 9C 4D 5D 6D"}
    assert "redeal" not in legal(deal_game(poor))
    game = deal_game(poor, rules="misdeal")
    assert legal(game)[-1] == "redeal"
    game.apply("redeal")
    assert game.shuffles == 1 and game.dealer == 3 and game.round == 1 and game.bids == ()
    assert game.dealt(0) == tuple(game.shuffled_deck(1)[0:36:4])
    assert "redeal" not in legal(deal_game({0: "4C 5C 6C 7C 8C 9C 4D 5D QD"}, rules="misdeal"))


def test_house_rule_ten_bid_adds_a_plain_ten_below_the_moon():
    game = deal_game(BIG, rules="ten_bid")
    assert legal(game)[-3:] == ["bid 9", "bid 10", "bid moon"]
    game.apply("bid 10")
    assert legal(game) == ["pass", "bid moon"] and game.high_bid == PLAIN_TEN
    made = score_hand(game.rules, 52, (5, 5), pitcher=0, contract=PLAIN_TEN, taken=(10, 0))
    assert made.team_scores == (15, 5) and made.match_winner is None and not made.moon
    set_ = score_hand(game.rules, 52, (5, 5), pitcher=0, contract=PLAIN_TEN, taken=(9, 1))
    assert set_.team_scores == (-5, 6)


def test_house_rule_dealer_equal_lets_the_dealer_take_the_high_bid():
    game = deal_game(BIG, rules="dealer_equal", actions=["pass", "bid 7", "pass"])
    assert legal(game) == ["pass", "bid 7", "bid 8", "bid 9", "bid moon"]
    game.apply("bid 7")
    assert game.pitcher == 3 and game.contract == 7


def test_house_rule_stuck_any_lets_the_stuck_dealer_bid_any_amount_but_not_pass():
    game = deal_game(BIG, rules="stuck=any", actions=["pass", "pass", "pass"])
    assert legal(game) == ["bid 4", "bid 5", "bid 6", "bid 7", "bid 8", "bid 9", "bid moon"]


def test_the_refill_is_from_the_dealers_left_or_by_house_rule_from_the_pitcher():
    spades = ["pass", "pass", "bid 5", "pass", "trump S"]
    assert deal_game(BIG, actions=spades).refills == (4, 6, 6, 2)
    assert deal_game(BIG, rules="refill=pitcher", actions=spades).refills == (4, 3, 6, 5)


def test_a_short_stock_leaves_players_short_or_by_house_rule_they_draw_discards():
    spades = ["pass", "pass", "bid 5", "pass", "trump S"]
    game = deal_game(BIG, rules="short_stock=discards", actions=spades)
    assert game.refills == (4, 6, 6, 5) and game.hand_size(3) == 6
    game.check_invariants()


def test_refill_counts_are_public_or_by_house_rule_hidden_from_the_others():
    actions = ["bid 5", "pass", "pass", "pass", "trump H"]
    assert deal_game(BIG, actions=actions).view(2).refills == (0, 3, 4, 4)
    game = deal_game(BIG, rules="refill_counts=hidden", actions=actions[:-1])
    match = Match(game)
    match.act(0, game.legal_actions()[2])  # trump H
    refill = next(e for e in match.events if e.kind == "refill")
    assert refill.data["counts"] == [None, None, None, None]
    assert game.view(2).refills == (None, None, 4, None) and game.refills == (0, 3, 4, 4)
