"""Pitch's narration (public events), its words and its taps."""

import json
import random

from engine.match import Match
from engine.pitch import FAMILY, PitchGame
from engine.pitch.narration import EVENT_KINDS
from engine.pitch.taps import DECISION_EVENTS, parse_tap, refuse_early, refuse_illegal
from engine.pitch.words import action_text, bid_name, card_name, event_text
from tests.pitch_helpers import deal_game
from tests.test_pitch_game import BIG

NAMES = ["Ann", "Bob", "Cy", "Di"]


def played_match(seed, rules="-"):
    game = PitchGame.new(seed=seed, house_rules=rules)
    match = Match(game, names=NAMES)
    match.begin()
    rng = random.Random(seed)
    while game.match_winner is None:
        if game.round_over:
            match.next_round()
        match.act(game.waiting_for[0], rng.choice(game.legal_actions()))
    return match


def test_a_hand_is_told_event_by_event():
    game = deal_game(BIG)
    match = Match(game, names=NAMES)
    match.begin()
    for text in ("bid 5", "pass", "pass", "pass", "trump H", "keep", "burn 9H", "burn TH"):
        match.act(game.waiting_for[0], FAMILY.parse_action(text))
    match.act(0, FAMILY.parse_action("burn LJ"))
    for text in ("play JD", "play 2H", "play 5H", "play 7H"):
        match.act(game.waiting_for[0], FAMILY.parse_action(text))
    told = [event_text(e, NAMES) for e in match.events[2:]]
    assert told == [
        "Ann bids 5.",
        "Bob passes.",
        "Cy passes.",
        "Di passes.",
        "Ann pitches at 5.",
        "Ann names hearts trump (the off-jack: jack of diamonds).",
        "Everyone discards the non-trumps and draws back to 6: Ann 0, Bob 3, Cy 4, Di 4.",
        "Ann takes the rest of the stock (7 cards).",
        "Ann burns the 9 of hearts.",
        "Ann burns the 10 of hearts.",
        "Ann burns the low joker.",
        "Ann plays the jack of diamonds.",
        "Bob plays the 2 of hearts.",
        "Cy plays the 5 of hearts.",
        "Di plays the 7 of hearts.",
        "Ann takes the trick (2 points).",
    ]
    assert event_text(match.events[2], NAMES, you=0) == "You bid 5."


def test_every_event_kind_is_told_and_its_data_is_plain_and_public():
    seen = set()
    for seed in range(8):
        match = played_match(seed, "burn_face=down" if seed % 2 else "misdeal")
        for event in match.events:
            seen.add(event.kind)
            json.dumps(event.data)  # plain values
            for you in (None, 0, 1):
                assert event_text(event, NAMES, you).endswith(".")
            if event.kind == "burn" and seed % 2:
                assert event.data["card"] is None
            if event.kind == "round_start":
                assert " ? " in event.data["notation"]  # the public notation
    assert seen >= set(EVENT_KINDS) - {"redeal"}


def test_the_words_of_cards_bids_and_actions():
    assert card_name("AH") == "ace of hearts" and card_name("TC") == "10 of clubs"
    assert card_name("LJ") == "low joker" and card_name(None) == "a card face down"
    assert [bid_name(b) for b in (4, 10, 11, None)] == ["4", "Shoot the Moon", "10", "pass"]
    texts = ["bid moon", "trump S", "keep", "burn 3H", "play HJ", "redeal"]
    assert [action_text(FAMILY.parse_action(t)) for t in texts] == [
        "bid Shoot the Moon",
        "name spades trump",
        "keep the rest of the stock",
        "burn the 3 of hearts",
        "play the high joker",
        "ask for a redeal",
    ]


def test_taps_are_read_and_refused_in_the_players_words():
    game = deal_game(BIG, actions=["pass", "pass", "pass"])
    assert parse_tap("Bid 4") is FAMILY.parse_action("bid 4")
    assert parse_tap("play 1H") == "'play 1H' is not an action: '1H' is no card"
    assert refuse_early(game, 3, parse_tap("pass"), "pass", NAMES, None) is None
    assert refuse_illegal(game, 3, parse_tap("pass"), "pass", NAMES, None) == (
        "the dealer is stuck: bid 4"
    )
    assert refuse_illegal(game, 1, parse_tap("bid 4"), "bid 4", NAMES, None) == (
        "it is not your turn: it is Di's"
    )
    game.apply("bid 4")
    game.apply("trump H")
    assert refuse_illegal(game, 3, parse_tap("play 2C"), "play 2C", NAMES, None) == (
        "keep the rest of the stock or give it unseen to your partner (keep, give)"
    )
    assert {"bid", "play", "burn", "trump", "stock"} <= DECISION_EVENTS
