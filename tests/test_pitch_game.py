"""10 Point Pitch's hand, phase by phase (RULES.md R1-R7), on dealt positions."""

import random

import pytest

from engine.game.errors import IllegalActionError, StateError
from engine.pitch import Action, Phase, PitchGame
from tests.pitch_helpers import deal_game, play_out

# Hearts trump: seat 0 holds nine trumps, the others few; the stock is dead but for none.
BIG = {
    0: "AH KH QH JH JD HJ LJ TH 9H",
    1: "2H 3H 4H 2C 3C 4C 5C 6C 7C",
    2: "5H 6H 2D 3D 4D 5D 6D 7D 8D",
    3: "7H 8H 8C 9C TC JC QC KC AC",
}


def legal(game, player=None):
    return [str(a) for a in game.legal_actions(player)]


def test_a_new_game_deals_nine_cards_each_and_a_stock_of_eighteen():
    game = PitchGame.new(seed=5)
    assert [game.hand_size(s) for s in range(4)] == [9, 9, 9, 9]
    assert game.stock_size == 18 and game.players == 4 and game.teams == ((0, 2), (1, 3))
    assert game.waiting_for == ((game.dealer + 1) % 4,) and game.phase is Phase.BID
    assert game.scores == (0, 0, 0, 0) and game.target == 52 and game.round == 1
    game.check_invariants()


def test_the_same_seed_deals_the_same_hands_and_dealer():
    one, two = PitchGame.new(seed=11), PitchGame.new(seed=11)
    assert one.dealer == two.dealer
    assert [one.hand(s) for s in range(4)] == [two.hand(s) for s in range(4)]
    assert {PitchGame.new(seed=s).dealer for s in range(40)} == {0, 1, 2, 3}


@pytest.mark.parametrize("players", [2, 3, 5])
def test_pitch_takes_exactly_four_players(players):
    with pytest.raises(ValueError, match=f"exactly 4 players, not {players}"):
        PitchGame.new(players, seed=1)


def test_the_deal_goes_one_card_at_a_time_from_the_dealers_left():
    game = PitchGame.new(seed=9, dealer=1)
    deck = game.deck
    assert game.dealt(2)[:2] == (deck[0], deck[4]) and game.dealt(1)[0] == deck[3]


def test_each_player_bids_once_higher_than_the_high_bid():
    game = deal_game(BIG)
    assert legal(game) == ["pass", "bid 4", "bid 5", "bid 6", "bid 7", "bid 8", "bid 9", "bid moon"]
    game.apply("bid 6")
    assert legal(game, 1) == ["pass", "bid 7", "bid 8", "bid 9", "bid moon"]
    assert legal(game, 0) == [] and legal(game, 2) == []
    game.apply("pass")
    game.apply("bid 8", 2)  # outbidding a partner is allowed
    assert game.high_bid == 8 and game.pitcher == 2 and game.contract is None
    game.apply("pass")
    assert game.phase is Phase.TRUMP and game.contract == 8 and game.waiting_for == (2,)
    assert game.bids == ((0, 6), (1, None), (2, 8), (3, None))


def test_the_dealer_may_not_take_the_contract_at_an_equal_bid():
    game = deal_game(BIG, actions=["pass", "bid 7", "pass"])
    assert legal(game) == ["pass", "bid 8", "bid 9", "bid moon"]


def test_a_stuck_dealer_must_bid_four():
    game = deal_game(BIG, actions=["pass", "pass", "pass"])
    assert legal(game) == ["bid 4"] and game.forced
    with pytest.raises(
        IllegalActionError, match="player 3 cannot pass: the dealer is stuck: bid 4"
    ):
        game.apply("pass")
    game.apply("bid 4")
    assert game.pitcher == 3 and game.contract == 4 and game.phase is Phase.TRUMP


def test_shoot_the_moon_ends_the_bidding_at_once():
    game = deal_game(BIG, actions=["bid 5", "bid moon"])
    assert game.phase is Phase.TRUMP and game.pitcher == 1 and game.contract == 10
    assert game.bids == ((0, 5), (1, 10))


def test_naming_trump_discards_every_non_trump_and_refills_to_six():
    game = deal_game(BIG, actions=["bid 5", "pass", "pass", "pass", "trump H"])
    assert game.trump == "H" and game.refills == (0, 3, 4, 4)
    assert game.hand(1) == ("4H", "3H", "2H", "QD", "TD", "9D")  # drawn non-trumps are dead
    assert game.hand(3) == ("8H", "7H", "7S", "6S", "5S", "4S")
    assert game.trumps_in_hand(1) == 3 and game.hand_size(0) == 9
    assert game.phase is Phase.STOCK and legal(game) == ["keep", "give"]
    assert game.stock_size == 7
    game.check_invariants()


def test_the_off_jack_and_both_jokers_are_kept_as_trumps():
    game = deal_game(BIG, actions=["bid 5", "pass", "pass", "pass", "trump H"])
    assert {"JD", "HJ", "LJ"} <= set(game.hand(0))


def test_the_pitcher_may_give_the_stock_unseen_to_the_partner():
    game = deal_game(BIG, actions=["pass", "bid 6", "pass", "pass"])
    game.apply("trump H")
    assert game.phase is Phase.STOCK and game.waiting_for == (1,)
    left = game.stock_size
    game.apply("give")
    assert game.stock_receiver == 3 and game.stock_received == left and game.stock_kept is False
    assert game.stock_size == 0
    assert game.view(3).stock_seen == game.stock_cards and game.view(1).stock_seen == ()
    game.check_invariants()


def test_a_stock_that_runs_out_leaves_the_last_players_short():
    game = deal_game(BIG, actions=["pass", "bid 6", "pass", "pass", "trump S"])
    # Spades: seat 0 keeps the jokers, seat 3 the off-jack (JC); 4 + 6 + 6 = 16 of 18.
    assert game.refills == (4, 6, 6, 2) and game.stock_size == 0
    assert game.hand_size(3) == 3 and game.stock_kept is None  # no stock left to decide on
    assert game.phase is Phase.PLAY and game.waiting_for == (1,)


def test_more_than_six_trumps_burn_one_card_per_action():
    game = deal_game(BIG, actions=["bid 5", "pass", "pass", "pass", "trump H", "keep"])
    assert game.phase is Phase.BURN and game.waiting_for == (0,)
    assert len(legal(game)) == 9
    game.apply("burn 9H")
    game.apply("burn TH")
    assert game.phase is Phase.BURN
    game.apply("burn LJ")
    assert game.phase is Phase.PLAY and game.burned == ((0, "9H"), (0, "TH"), (0, "LJ"))
    assert game.trumps_in_hand(0) == 6 and game.waiting_for == (0,)
    game.check_invariants()


def test_only_trumps_may_be_played_and_the_highest_wins():
    game = deal_game(BIG, actions=["bid 5", "pass", "pass", "pass", "trump H", "keep"])
    for card in ("9H", "TH", "LJ"):
        game.apply(f"burn {card}")
    assert legal(game, 0) == ["play AH", "play KH", "play QH", "play JH", "play JD", "play HJ"]
    game.apply("play JD")
    with pytest.raises(IllegalActionError, match="QD is not a trump: you must play a trump"):
        game.apply("play QD")
    for text in ("play 2H", "play 6H", "play 8H"):
        game.apply(text)
    trick = game.tricks[0]
    assert trick.winner == 0 and trick.cards == ((0, "JD"), (1, "2H"), (2, "6H"), (3, "8H"))
    assert trick.points == 2 and game.taken == (2, 0) and game.leader == 0


def test_a_seat_without_trumps_is_out_and_tricks_go_on_without_it():
    game = deal_game(BIG, actions=["bid 5", "pass", "pass", "pass", "trump H", "keep"])
    for card in ("9H", "TH", "LJ"):
        game.apply(f"burn {card}")
    for text in ("play AH", "play 2H", "play 5H", "play 7H", "play KH", "play 3H", "play 6H"):
        game.apply(text)
    assert game.waiting_for == (3,)
    game.apply("play 8H")  # seats 2 and 3 are now out
    assert game.out == (False, False, True, True)
    game.apply("play QH")
    game.apply("play 4H")
    assert len(game.tricks) == 3 and game.tricks[2].cards == ((0, "QH"), (1, "4H"))
    assert game.out == (False, True, True, True) and game.waiting_for == (0,)
    for text in ("play JH", "play JD", "play HJ"):  # one trick each, seat 0 alone
        game.apply(text)
    assert game.round_over and game.phase is Phase.OVER and game.waiting_for == ()
    assert game.taken == (8, 0) and game.outcome.burned_points == 2


def test_the_lead_passes_left_when_the_winner_has_no_trump():
    game = deal_game(BIG, actions=["bid 5", "pass", "pass", "pass", "trump H", "keep"])
    for card in ("9H", "TH", "LJ"):
        game.apply(f"burn {card}")
    for text in ("play JD", "play 2H", "play 5H", "play 7H", "play AH", "play 3H", "play 6H"):
        game.apply(text)
    game.apply("play 8H")
    for text in ("play KH", "play 4H", "play QH", "play JH"):
        game.apply(text)
    assert game.tricks[-1].winner == 0 and game.leader == 0


def test_an_illegal_action_changes_nothing():
    game = deal_game(BIG, actions=["bid 5"])
    before = game.notation(reveal=True)
    for text, player, words in [
        ("bid 4", 1, "player 1 cannot bid 4: bid higher than 5"),
        ("bid 6", 2, "player 2 cannot bid 6: it is player 1's turn to bid"),
        ("play AH", 1, "player 1 cannot play AH: it is the bidding: bid or pass"),
        ("redeal", 1, "a redeal needs the misdeal house rule"),
        ("bid 10", 1, "there is no plain 10 bid: bid moon"),
    ]:
        with pytest.raises(IllegalActionError, match=words):
            game.apply(text, player)
        assert game.notation(reveal=True) == before


def test_a_refusal_never_names_a_hidden_card():
    game = deal_game(BIG, actions=["bid 5", "pass", "pass", "pass", "trump H", "keep"])
    with pytest.raises(IllegalActionError) as caught:
        game.apply("play 2H", 1)
    hidden = set(game.hand(0)) | set(game.hand(1)) - {"2H"}
    assert not any(card in str(caught.value) for card in hidden)


def test_copy_is_independent():
    game = deal_game(BIG, actions=["bid 5", "pass", "pass", "pass", "trump H", "keep"])
    other = game.copy()
    other.apply("burn 9H")
    assert game.trumps_in_hand(0) == 9 and other.trumps_in_hand(0) == 8
    assert game.burned == () and game.phase is Phase.BURN


def test_next_round_passes_the_deal_left():
    game = PitchGame.new(seed=3, dealer=2)
    with pytest.raises(StateError, match="the hand is not over"):
        game.next_round()
    play_out(game)
    if game.match_winner is None:
        game.next_round()
        assert game.dealer == 3 and game.round == 2 and game.waiting_for == (0,)
        assert game.shuffles == 1 and game.phase is Phase.BID


@pytest.mark.parametrize("seed", range(40))
def test_random_hands_keep_every_card_and_score_ten_points(seed):
    rng = random.Random(seed)
    game = PitchGame.new(seed=seed)
    while not game.round_over:
        action = rng.choice(game.legal_actions())
        assert isinstance(action, Action) and game.is_legal(action)
        game.apply(action)
        game.check_invariants()
    outcome = game.outcome
    assert sum(outcome.taken) + outcome.burned_points == 10
    assert len(game.tricks) <= 6 and not any(
        game.hand(s) and game.trumps_in_hand(s) for s in range(4)
    )
