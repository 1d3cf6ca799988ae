"""Every reason the rules refuse an UNO action on the player's own turn, in a
person's words (issue 22 item 5): for each, a position, the action, the words."""

import pytest

from engine.uno import read_game
from engine.uno.actions import Action
from engine.uno.refusals import why_not
from engine.uno.taps import refuse_illegal

NAMES = ["Ann", "Bob"]
GREEN_4 = "classic R5,W,G1/G3,Y9 G7 G4 G + 0 play - - 0,0 1 1 500 - 1:0"

CASES = [
    (
        "showdown Y5!3,W,G1/G3,Y9 G7 WS G + 0 face - - 0,0 1 1 500 - 1:0",
        "Y5!3",
        "choose whom to face first (face N xK)",
    ),
    (
        "showdown Y5!3,W,G1/G3,Y9 G7 WS G + 0 face - - 0,0 1 1 500 - 1:0",
        "face 0 x2",
        "you cannot face yourself: choose another player (face N xK)",
    ),
    (GREEN_4, "R9", "you do not hold R9"),
    (GREEN_4, "R5", "R5 does not match the green 4: play a green card or a 4, or draw"),
    (
        "classic R5,G1,Y3/G3,Y9 G7 GS G + 0 play - - 0,0 1 1 500 - 1:0",
        "R5",
        "R5 does not match the green Skip: play a green card or a Skip, or draw",
    ),
    (
        "classic R5,G1,Y3/G3,Y9 G7 W G + 0 play - - 0,0 1 1 500 - 1:0",
        "R5",
        "R5 does not match the Wild naming green: play a green card or a wild, or draw",
    ),
    (GREEN_4, "keep", "keep only after drawing: play a card or draw"),
    (GREEN_4, "accept", "there is no penalty to accept: play a card or draw"),
    (GREEN_4, "challenge", "there is no Wild Draw Four to challenge: play a card or draw"),
    (
        GREEN_4,
        "catch 1",
        "Bob holds 2 cards: catch only a player left with one who did not call UNO",
    ),
    (
        "classic R5,G1/G3 G7,Y9 G4 G + 0 play - - 0,0 1 1 500 - 1:0",
        "catch 1",
        "Bob called UNO in time: there is no one to catch",
    ),
    (
        "classic R5,G1,Y3/G3,Y9 G7 G4 G + 0 play - - 0,0 1 1 500 - 1:0",
        "G1 uno",
        "call UNO only as you play your second-to-last card: play G1 without uno",
    ),
    (
        "classic R5,W,G1/G3,Y9 G7 G4 G + 0 drawn - - 0,0 1 1 500 - 1:0",
        "R5",
        "you may play only the card you drew (G1), or keep it",
    ),
    (
        "classic R5,W,G1/G3,Y9 G7 W - + 0 colour - - 0,0 1 1 500 - 1:0",
        "R5",
        "name the colour first (colour R, Y, G or B)",
    ),
    (
        "classic R5,G1/G3,Y9 G7 W+4 G + 0 penalty:4:legal - - 0,0 1 1 500 - 1:0",
        "G1",
        "take the 4 cards first (accept), or challenge",
    ),
]


@pytest.mark.parametrize(("position", "tap", "words"), CASES)
def test_each_refusal_is_in_words(position: str, tap: str, words: str) -> None:
    game = read_game(position)
    action = Action.parse(tap)
    assert not game.is_legal(action, 0)
    assert why_not(game, 0, action, NAMES) == words
    assert refuse_illegal(game, 0, action, tap, NAMES, None) == words


def test_not_your_turn_names_whose_turn_it_is() -> None:
    game = read_game(GREEN_4)
    assert refuse_illegal(game, 1, Action.parse("G3"), "G3", NAMES, None) == (
        "it is not your turn: it is Ann's"
    )
