"""Pitch's notation: one line, a revealed line read back to the same game, hidden cards hidden."""

import random
import re

import pytest

from engine.game.errors import NotationError
from engine.pitch import FAMILY, PitchGame
from engine.pitch.notation import action_token, parse_token
from tests.pitch_helpers import deal_game, play_out
from tests.test_pitch_game import BIG

RULE_SETS = ["-", "burn_face=down,jokers=unmarked", "deal=threes,misdeal,ten_bid", "low=holder"]


def hidden_cards(game, seat=None):
    """The cards nobody (or only ``seat``) may see: hands, stock, discards, face-down burns."""
    cards = {c for s in range(4) if s != seat for c in game.hand(s)}
    cards |= set(game.deck) - {c for s in range(4) for c in game.hand(s)}
    cards -= {c for t in game.tricks for _, c in t.cards} | {c for _, c in game.trick}
    if game.rules.burn_face == "up":
        cards -= {c for _, c in game.burned}
    return cards


@pytest.mark.parametrize("rules", RULE_SETS)
def test_every_position_of_random_hands_round_trips_revealed(rules):
    rng = random.Random(rules)
    for seed in range(6):
        game = PitchGame.new(seed=seed, house_rules=rules)
        while True:
            line = game.notation(reveal=True)
            back = PitchGame.from_notation(line)
            assert back.notation(reveal=True) == line and back.notation() == game.notation()
            assert back.legal_actions() == game.legal_actions() and back.phase is game.phase
            assert [back.hand(s) for s in range(4)] == [game.hand(s) for s in range(4)]
            if game.round_over:
                break
            game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("rules", RULE_SETS)
def test_an_unrevealed_line_holds_counts_and_public_cards_only(rules):
    rng = random.Random(7)
    game = PitchGame.new(seed=8, house_rules=rules)
    while not game.round_over:
        line = game.notation()
        words = set(re.split(r"[ ,/]", line))
        assert not words & hidden_cards(game), line
        assert not set(re.split(r"[ ,/<>]", repr(game))) & hidden_cards(game)
        game.apply(rng.choice(game.legal_actions()))


def test_an_unrevealed_line_gives_the_counts_of_hands_and_stock():
    game = deal_game(BIG, actions=["bid 5", "pass", "pass", "pass", "trump H"])
    assert game.notation() == "pitch - 52 1 3 0,0 ? ?9/?6/?6/?6/?7 5,p,p,p,=H"
    with pytest.raises(NotationError, match="this notation is not revealed"):
        PitchGame.from_notation(game.notation())


def test_a_revealed_line_writes_the_deal_and_the_rng():
    game = deal_game(BIG, actions=["bid 5"])
    fields = game.notation(reveal=True).split(" ")
    assert fields[:7] == ["pitch", "-", "52", "1", "3", "0,0", "1:0"]
    assert fields[7].split("/")[0] == "AH,KH,QH,JH,JD,HJ,LJ,TH,9H" and fields[8] == "5"


def test_a_resumed_game_deals_the_same_next_hands():
    game = PitchGame.new(seed=12345)
    for _ in range(3):
        play_out(game)
        resumed = PitchGame.from_notation(game.notation(reveal=True))
        assert resumed.scores == game.scores and resumed.outcome == game.outcome
        if game.match_winner is not None:
            break
        game.next_round()
        resumed.next_round()
        assert resumed.notation(reveal=True) == game.notation(reveal=True)


def test_a_scored_match_reads_back_won():
    game = deal_game(BIG, scores=(50, 3), actions=["bid 5", "pass", "pass", "pass", "trump H"])
    play_out(game)
    back = FAMILY.from_notation(game.notation(reveal=True))
    assert back.match_winner == game.match_winner == 0 and back.round_over


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("pitch - 52 1 3 0,0", "a Pitch notation has 9 fields"),
        ("uno - 52 1 3 0,0 1:0 x -", "a Pitch notation has 9 fields"),
        ("pitch - 52 1 7 0,0 1:0 x -", "the notation's dealer is not a valid number: '7'"),
        ("pitch - 52 1 3 0 1:0 x -", "the notation's scores are A,B"),
        ("pitch - 52 1 3 0,0 zz x -", "the notation's rng is SEED:COUNT"),
        ("pitch nope 52 1 3 0,0 1:0 x -", "no house rule 'nope'"),
        ("pitch - 52 1 3 0,0 1:0 AH/KH -", "the notation's deal is 4 hands and the stock"),
    ],
)
def test_a_bad_line_is_refused_naming_the_field(line, words):
    with pytest.raises(NotationError, match=re.escape(words)):
        PitchGame.from_notation(line)


def test_a_bad_deal_or_action_is_refused():
    line = deal_game(BIG).notation(reveal=True)
    with pytest.raises(NotationError, match="repeats a card"):
        PitchGame.from_notation(line.replace("KH,", "AH,", 1))
    with pytest.raises(
        NotationError, match=r"action 2 \('4'\) cannot be played: .*bid higher than 5"
    ):
        PitchGame.from_notation(line[:-1] + "5,4")
    with pytest.raises(NotationError, match=r"action 1 \('ZZ'\)"):
        PitchGame.from_notation(line[:-1] + "ZZ")


def test_action_tokens_round_trip():
    for text in (
        "pass",
        "bid 4",
        "bid 10",
        "bid moon",
        "trump D",
        "keep",
        "give",
        "burn TH",
        "play LJ",
        "redeal",
    ):
        action = FAMILY.parse_action(text)
        assert parse_token(action_token(action)) is action
