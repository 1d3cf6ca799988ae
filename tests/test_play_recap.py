"""The recap of ``showdown play``: every match event in words, told to the table
or to the person at the screen ("You play R5", never "You plays")."""

import pytest

from engine.apps.recap import scoreboard
from engine.match import MatchEvent
from engine.uno.narration import EVENT_KINDS
from engine.uno.words import event_text

NAMES = ["Ann", "Bob", "bot2"]


def showdown(**changes):
    data = {
        "showdown_id": "m1:r1:s1",
        "challenger": 0,
        "opponent": 1,
        "names": ["Ann", "Bob"],
        "cause": "R7!2",
        "cards": 2,
        "loser": 1,
        "winner": 0,
        "reason": "faster",
        "reaction_us": {0: 231049, 1: 254512},
        "margin_us": 23463,
        "tie_reruns": 0,
        "detail": "",
    }
    return MatchEvent("showdown", 1, {**data, **changes})


#: (event, told to the table, told to Bob at the screen)
EXAMPLES = [
    (
        MatchEvent(
            "match_start",
            1,
            {"players": NAMES, "variant": "showdown", "target": 500, "house_rules": "-"},
        ),
        "Match: Ann, Bob, bot2; showdown to 500 points.",
        "Match: Ann, Bob, bot2; showdown to 500 points.",
    ),
    (
        MatchEvent(
            "round_start",
            2,
            {
                "dealer": 1,
                "first": 1,
                "top": "G7",
                "colour": "G",
                "hand_sizes": [7, 7, 7],
                "scores": [0, 0, 0],
                "notation": "",
            },
        ),
        "Round 2: Bob deals; G7 (green) turned up; Bob goes first.",
        "Round 2: you deal; G7 (green) turned up; you go first.",
    ),
    (
        MatchEvent(
            "play",
            1,
            {
                "player": 1,
                "action": "W+4=R uno",
                "card": "W+4",
                "colour": "R",
                "uno": True,
                "cards_left": 1,
                "draws": {},
            },
        ),
        "Bob plays W+4, naming red and calls UNO (1 left).",
        "You play W+4, naming red and call UNO (1 left).",
    ),
    (
        MatchEvent(
            "play",
            1,
            {
                "player": 2,
                "action": "B+2",
                "card": "B+2",
                "colour": "B",
                "uno": False,
                "cards_left": 0,
                "draws": {1: 2},
            },
        ),
        "bot2 plays B+2, going out; Bob draws 2.",
        "bot2 plays B+2, going out; you draw 2.",
    ),
    (
        MatchEvent("draw", 1, {"player": 1, "action": "draw", "cards": 1, "can_play": False}),
        "Bob draws a card.",
        "You draw a card.",
    ),
    (
        MatchEvent("draw", 1, {"player": 1, "action": "draw", "cards": 3, "can_play": True}),
        "Bob draws 3 cards.",
        "You draw 3 cards.",
    ),
    (
        MatchEvent("keep", 1, {"player": 1, "action": "keep"}),
        "Bob keeps the card.",
        "You keep the card.",
    ),
    (
        MatchEvent("accept", 1, {"player": 1, "action": "accept", "cards": 4}),
        "Bob draws 4 cards (the penalty).",
        "You draw 4 cards (the penalty).",
    ),
    (
        MatchEvent(
            "challenge",
            1,
            {
                "player": 1,
                "action": "challenge",
                "offender": 0,
                "succeeded": True,
                "drew": 0,
                "cards": 4,
            },
        ),
        "Bob challenges the Wild Draw Four: Ann held a card of the colour; Ann draws 4.",
        "You challenge the Wild Draw Four: Ann held a card of the colour; Ann draws 4.",
    ),
    (
        MatchEvent(
            "challenge",
            1,
            {
                "player": 0,
                "action": "challenge",
                "offender": 1,
                "succeeded": True,
                "drew": 1,
                "cards": 4,
            },
        ),
        "Ann challenges the Wild Draw Four: Bob held a card of the colour; Bob draws 4.",
        "Ann challenges the Wild Draw Four: you held a card of the colour; you draw 4.",
    ),
    (
        MatchEvent(
            "challenge",
            1,
            {
                "player": 1,
                "action": "challenge",
                "offender": 0,
                "succeeded": False,
                "drew": 1,
                "cards": 6,
            },
        ),
        "Bob challenges the Wild Draw Four: it was legal; Bob draws 6.",
        "You challenge the Wild Draw Four: it was legal; you draw 6.",
    ),
    (
        MatchEvent("catch", 1, {"player": 0, "action": "catch 1", "caught": 1, "cards": 2}),
        "Ann catches Bob without UNO: Bob draws 2.",
        "Ann catches you without UNO: you draw 2.",
    ),
    (
        MatchEvent("colour", 1, {"player": 1, "action": "colour Y", "colour": "Y"}),
        "Bob names yellow.",
        "You name yellow.",
    ),
    (
        MatchEvent("face", 1, {"player": 0, "action": "face 1 x3", "opponent": 1, "count": 3}),
        "Ann faces Bob in a showdown for 3 cards.",
        "Ann faces you in a showdown for 3 cards.",
    ),
    (
        showdown(),
        "Showdown (R7!2): Ann vs Bob for 2 cards. Ann wins: Ann 231.0 ms, Bob 254.5 ms, "
        "margin 23.5 ms. Bob takes 2 cards.",
        "Showdown (R7!2): Ann vs you for 2 cards. Ann wins: Ann 231.0 ms, you 254.5 ms, "
        "margin 23.5 ms. You take 2 cards.",
    ),
    (
        MatchEvent(
            "round_end",
            1,
            {"winner": 1, "points": 57, "scores": [0, 57, 0], "hand_sizes": [3, 0, 2]},
        ),
        "Round 1 won by Bob for 57 points.",
        "Round 1 won by you for 57 points.",
    ),
    (
        MatchEvent(
            "match_end",
            3,
            {"winner": 1, "scores": [40, 520, 0], "rounds": 3, "decisions": 300, "showdowns": 9},
        ),
        "Bob wins the match with 520 points after 3 rounds.",
        "You win the match with 520 points after 3 rounds.",
    ),
]


def test_the_examples_cover_every_event_kind():
    assert {event.kind for event, _, _ in EXAMPLES} == set(EVENT_KINDS)


@pytest.mark.parametrize("event, table, bob", EXAMPLES, ids=lambda x: getattr(x, "kind", None))
def test_each_event_is_told_to_the_table_and_to_the_person_at_the_screen(event, table, bob):
    assert event_text(event, NAMES) == table
    assert event_text(event, NAMES, you=1) == bob
    if "bot2" not in table:  # told to someone the event is not about: as the table hears it
        assert event_text(event, NAMES, you=2) == table


def test_a_player_called_you_reads_naturally_to_the_table():
    play = EXAMPLES[2][0]
    assert event_text(play, ["Ann", "You", "bot2"]) == (
        "You play W+4, naming red and call UNO (1 left)."
    )


def test_a_false_start_is_one_verdict():
    event = showdown(
        reason="false_start", loser=0, winner=1, reaction_us={0: None, 1: None}, margin_us=None
    )
    assert event_text(event, NAMES) == (
        "Showdown (R7!2): Ann vs Bob for 2 cards. False start by Ann. Ann takes 2 cards."
    )
    assert event_text(event, NAMES, you=0) == (
        "Showdown (R7!2): you vs Bob for 2 cards. False start by you. You take 2 cards."
    )


def test_a_showdown_after_near_ties_and_one_decided_by_hand():
    assert event_text(showdown(tie_reruns=2), NAMES).endswith(
        "margin 23.5 ms, after 2 near-tie re-runs. Bob takes 2 cards."
    )
    by_hand = showdown(reaction_us={0: None, 1: None}, margin_us=None, cards=1)
    assert event_text(by_hand, NAMES) == (
        "Showdown (R7!2): Ann vs Bob for 1 card. Ann wins. Bob takes 1 card."
    )
    late = showdown(reaction_us={0: 231049, 1: None}, margin_us=None)
    assert event_text(late, NAMES, you=1) == (
        "Showdown (R7!2): Ann vs you for 2 cards. Ann wins: Ann 231.0 ms; you did not "
        "press. You take 2 cards."
    )


def test_a_name_starting_a_sentence_is_kept_as_written():
    event = EXAMPLES[4][0]  # Bob draws a card
    assert event_text(event, ["Ann", "bob", "bot2"]) == "bob draws a card."


def test_the_scoreboard_lists_the_best_first():
    assert scoreboard(["Ann", "Bob"], [10, 10]) == ["  Ann    10 points", "  Bob    10 points"]
    assert scoreboard(["Ann", "Bob"], [0, 120], [1, 5]) == [
        "  Bob   120 points  5 cards in hand",
        "  Ann     0 points  1 card in hand",
    ]
