"""``showdown play``: a person's decision at the UNO terminal: the menu, what may be
typed for it (a number, the action's text, a word's first letters), the follow-up
questions (a wild's colour, a Wild Showdown's opponent and cards), and the refusals."""

import re

import pytest

from engine import Game
from engine.uno.actions import Action
from engine.uno.terminal import Person
from engine.uno.terminal.person import _choose, _menu
from engine.uno.terminal.screen import UnoScreen
from tests.terminal_script import Script

# -- a person's decision ------------------------------------------------------------------


def seated(notation, names=("Ann", "Bob", "Cy"), *answers):
    game = Game.from_notation(notation)
    script = Script(*answers)
    table = UnoScreen(game, list(names), [0], script.input, script.print)
    return game, script, Person(table, names[0])


TURN = "showdown R5,W,G2/B1,Y1,Y2/G7,G8,G9 G1,B2 R1 R + 0 play - - 0,0,0 1 1 500 - 1:0"


def test_a_person_sees_the_table_their_hand_and_a_numbered_menu():
    game, script, person = seated(TURN)
    assert str(person.act(game, 0)) == "R5"
    assert script.lines[:9] == [
        "",
        "Round 1 · top card R1: red 1 · colour red · clockwise",
        "Cards in hand: Ann 3, Bob 3, Cy 3 · Scores: Ann 0, Bob 0, Cy 0",
        "Ann, your hand: R5 G2 W",
        "Your turn.",
        "   1. R5         play red 5",
        "   2. W          play Wild and name a colour",
        "   3. draw       draw a card",
        "Your choice (number or action; ? for help): ",
    ]


def test_a_wild_asks_for_its_colour():
    game, script, person = seated(
        TURN, ("Ann", "Bob", "Cy"), ("Your choice", "2"), ("Colour", "7"), ("Colour", "blue")
    )
    assert str(person.act(game, 0)) == "W=B"
    assert "Name a colour: 1. red, 2. yellow, 3. green, 4. blue" in script.lines
    assert "'7' is not a colour: type 1-4, R, Y, G, B or a colour's name." in script.lines


@pytest.mark.parametrize(
    "typed, chosen",
    [
        ("R5", "R5"),
        ("r5", "R5"),
        ("w=g", "W=G"),
        ("W=G", "W=G"),
        ("DRAW", "draw"),
        ("3", "draw"),
    ],
)
def test_a_person_may_type_the_action_instead_of_its_number(typed, chosen):
    game, _, person = seated(TURN, ("Ann", "Bob", "Cy"), ("Your choice", typed))
    assert str(person.act(game, 0)) == chosen


@pytest.mark.parametrize("typed", ["d", "dr", "D", " draw "])
def test_a_word_action_may_be_typed_by_its_first_letters(typed):
    game, _, person = seated(TURN, ("Ann", "Bob", "Cy"), ("Your choice", typed))
    assert str(person.act(game, 0)) == "draw"


#: Ann's turn; Bob holds one card and did not call UNO.
BOB_DID_NOT_CALL_UNO = "showdown G2,G3,G4/R1/Y1,Y2 B1,B2,B3 G9 G + 0 play 1 - 0,0,0 1 1 500 - 1:0"
WILD_DRAW_FOUR_AT_ANN = (
    "showdown G2,G3/R1,R2/Y1,Y2 B1,B2,B3,B4,B5,B6,B7 Y9,W+4 B - 0 penalty:4:legal - - "
    "0,0,0 1 1 500 - 1:0"
)


def test_first_letters_choose_the_one_action_they_begin():
    game, _, person = seated(
        BOB_DID_NOT_CALL_UNO,
        ("Ann", "Bob", "Cy"),
        ("Your choice", "c"),
    )
    assert str(person.act(game, 0)) == "catch 1"
    for typed, chosen in (("ch", "challenge"), ("a", "accept")):
        game, _, person = seated(
            WILD_DRAW_FOUR_AT_ANN, ("Ann", "Bob", "Cy"), ("Your choice", typed)
        )
        assert str(person.act(game, 0)) == chosen


def test_first_letters_that_begin_two_actions_are_refused_naming_them():
    legal = [Action.parse(text) for text in ("draw", "catch 1", "catch 2")]
    menu = _menu(legal, ["Ann", "Bob", "Cy"])
    assert _choose("c", menu, legal) == (
        None,
        "'c' begins more than one choice (catch Bob, catch Cy): type more of it, or its number.",
    )
    assert _choose("catch c", menu, legal) == ([Action.parse("catch 2")], "")


def test_a_card_is_never_chosen_by_its_first_letters():
    game, script, person = seated(
        TURN, ("Ann", "Bob", "Cy"), ("Your choice", "r"), ("Your choice", "1")
    )
    assert str(person.act(game, 0)) == "R5"
    assert any(line.startswith("'r' is not a choice") for line in script.lines)


def test_an_action_that_is_not_legal_is_refused_with_a_reason():
    game, script, person = seated(
        TURN,
        ("Ann", "Bob", "Cy"),
        ("Your choice", ""),
        ("Your choice", "G2"),
        ("Your choice", "R5 uno"),
        ("Your choice", "1"),
    )
    assert str(person.act(game, 0)) == "R5"
    assert "Type a number from 1 to 3, or an action as the menu writes it." in script.lines
    assert "G2 is not legal now: choose from the menu." in script.lines
    assert "R5 uno is not legal now: choose from the menu." in script.lines


def test_the_second_to_last_card_may_be_played_with_or_without_calling_uno():
    game, script, person = seated(
        "showdown R5,G2/B1,Y1,Y2/G7,G8,G9 G1,B2 R1 R + 0 play - - 0,0,0 1 1 500 - 1:0",
        ("Ann", "Bob", "Cy"),
        ("Your choice", "r5 UNO"),
    )
    assert str(person.act(game, 0)) == "R5 uno"
    assert "   2. R5 uno     play red 5 and call UNO" in script.lines


def test_a_wild_showdown_asks_whom_to_face_then_how_many_cards():
    game, script, person = seated(
        "showdown R5,G2/B1,Y1,Y2/G7,G8,G9 G1,B2 R1,WS G + 0 face - - 0,0,0 1 1 500 - 1:0",
        ("Ann", "Bob", "Cy"),
        ("Your choice", "2"),
        ("How many", "9"),
        ("How many", "2"),
    )
    assert str(person.act(game, 0)) == "face 2 x2"
    assert "Your Wild Showdown: choose whom to face, then how many cards." in script.lines
    assert "   1. face Bob   face Bob in a showdown (then choose the cards)" in script.lines
    assert "'9' is not a card count: type a number from 1 to 3." in script.lines
    game, _, person = seated(
        "showdown R5,G2/B1,Y1,Y2/G7,G8,G9 G1,B2 R1,WS G + 0 face - - 0,0,0 1 1 500 - 1:0",
        ("Ann", "Bob", "Cy"),
        ("Your choice", "face 1 x3"),
    )
    assert str(person.act(game, 0)) == "face 1 x3"  # the engine's action text works too
    game, script, person = seated(
        "showdown R5,G2/B1,Y1,Y2/G7,G8,G9 G1,B2 R1,WS G + 0 face - - 0,0,0 1 1 500 - 1:0",
        ("Ann", "Bob", "Cy"),
        ("Your choice", "FACE  cy"),
        ("How many", "1"),
    )
    assert str(person.act(game, 0)) == "face 2 x1"
    assert not [line for line in script.lines if re.search(r"face \d", line)]


def test_a_wild_draw_four_offers_challenge_and_accept_in_words():
    game, script, person = seated(
        WILD_DRAW_FOUR_AT_ANN, ("Ann", "Bob", "Cy"), ("Your choice", "accept")
    )
    assert str(person.act(game, 0)) == "accept"
    assert "Bob played W+4 at you: 4 cards to draw." in script.lines
    assert (
        "   1. challenge  challenge the Wild Draw Four: if it was legal you draw 6 instead of 4"
    ) in script.lines
    assert "   2. accept     draw 4 cards (your turn ends)" in script.lines


def test_a_catch_is_offered_by_name():
    game, script, person = seated(BOB_DID_NOT_CALL_UNO)
    person.act(game, 0)
    assert "   5. catch Bob  catch Bob, who did not call UNO (Bob draws 2)" in script.lines
    game, script, person = seated(
        BOB_DID_NOT_CALL_UNO,
        ("Ann", "Bob", "Cy"),
        ("Your choice", "catch bob"),
    )
    assert str(person.act(game, 0)) == "catch 1"


def test_the_drawn_card_is_shown_with_the_choice_to_play_or_keep_it():
    game, script, person = seated(
        "showdown G2,G3,G4,R7/R1/Y1,Y2 B1,B2,B3 G9,R1 R + 0 drawn - - 0,0,0 1 1 500 - 1:0",
        ("Ann", "Bob", "Cy"),
        ("Your choice", "keep"),
    )
    assert str(person.act(game, 0)) == "keep"
    assert "You drew R7 (red 7): play it or keep it." in script.lines


def test_passing_the_screen_wipes_the_last_hand_and_shows_the_next_on_the_private_screen():
    game = Game.from_notation(TURN)
    script = Script()
    table = UnoScreen(
        game, ["Ann", "Bob", "Cy"], [0, 1], script.input, script.print, script.control
    )
    Person(table, "Ann").act(game, 0)
    assert script.lines[:3] == ["Pass the screen to Ann; Ann, press Enter ", "<private>", ""]
    Person(table, "Ann").act(game, 0)
    assert script.lines.count("<private>") == 1  # Ann is still at the screen
    table.seat(1)
    at = script.lines.index("Pass the screen to Bob; Bob, press Enter ")
    assert script.lines[at - 1 : at + 2] == [
        "<public>",
        "Pass the screen to Bob; Bob, press Enter ",
        "<private>",
    ]
    table.unseat()
    table.unseat()  # twice is once
    assert script.lines[-1] == "<public>" and script.lines.count("<public>") == 2


def test_the_terminal_control_wipes_screen_and_scrollback():
    import io

    from engine.apps.screen import terminal_control

    out = io.StringIO()
    control = terminal_control(out)
    control("private")
    control("public")
    assert out.getvalue() == (
        "\033[?1049h\033[2J\033[H"  # the alternate screen, cleared
        "\033[2J\033[3J\033[H\033[?1049l"  # cleared with its scrollback, and left
        "\033[2J\033[3J\033[H"  # the normal screen and its scrollback too
    )
