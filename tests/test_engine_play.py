"""``showdown play``: scripted people and bots at one screen, menus, hidden hands, EOF, Ctrl-C."""

import argparse
import re

import pytest

from engine import Game
from engine.apps import play_cmd
from engine.apps.play import Person, SharedScreen, parse_players, play_game
from firmware_host.protocol.console import UsageError


class Script:
    """Scripted input and a transcript of everything shown (prompts included).

    ``answers`` are (prompt prefix, reply) pairs, used in order for prompts that
    start with the prefix; a reply that is an exception class is raised. Other
    prompts get a default reply: Enter, the first menu entry, green, 3 cards,
    the challenger winning.
    """

    def __init__(self, *answers):
        self.answers = list(answers)
        self.lines = []

    def print(self, text=""):
        self.lines.append(text)

    def input(self, prompt):
        self.lines.append(prompt)
        for i, (prefix, reply) in enumerate(self.answers):
            if prompt.startswith(prefix):
                del self.answers[i]
                if isinstance(reply, type) and issubclass(reply, BaseException):
                    raise reply
                return reply
        if prompt.startswith("Your choice"):
            return "1"
        if prompt.startswith("Colour"):
            return "g"
        if prompt.startswith("How many"):
            return "3"
        if prompt.startswith("Who won?"):
            return re.match(r"Who won\? \(([^/]+)/", prompt).group(1)
        return ""

    @property
    def text(self):
        return "\n".join(self.lines)


def play(players, script, **options):
    options = {"seed": 1, "target": 60, **options}
    return play_game(
        parse_players(players), input_fn=script.input, print_fn=script.print, **options
    )


def assert_hands_hidden(lines):
    """A person's hand (and new cards) show only after the screen was passed to them."""
    seated = None
    for line in lines:
        passed = re.match(r"Pass to (\w+), press Enter", line)
        if passed:
            seated = passed.group(1)
        shown = re.match(r"(\w+), your hand:", line) or re.match(r"  \((\w+), your new card", line)
        if shown:
            assert shown.group(1) == seated, (line, seated)


# -- whole games -----------------------------------------------------------------------------


def test_two_people_and_two_bots_play_a_match_to_the_end():
    script = Script(("Your choice", "banana"), ("Your choice", "99"), ("Colour", "purple"))
    assert play("Ann,Bob,bot,random", script, seed=13, target=150) == 0
    text = script.text
    assert script.lines[0] == "Match: Ann, Bob, bot2, random3; showdown to 150 points."
    assert re.search(
        r"(Ann|Bob|bot2|random3) wins the match with \d+ points after \d+ rounds?\.$", text
    )
    assert "'banana' is not a choice: type a number from 1 to " in text
    assert "There is no choice 99: type a number from 1 to " in text
    assert "'purple' is not a colour: type 1-4, R, Y, G, B or a colour's name." in text
    assert (
        "Pass to Ann, press Enter " in script.lines and "Pass to Bob, press Enter " in script.lines
    )
    assert "Press Enter to deal round 2 " in script.lines
    assert "Showdown (" in text and "Round 1 won by" in text
    assert_hands_hidden(script.lines)


def test_a_game_with_one_person_never_asks_to_pass_the_screen():
    script = Script()
    assert play("Ann,bot,bot", script, seed=2) == 0
    assert not [line for line in script.lines if line.startswith("Pass to")]
    assert "Ann, your hand: " in script.text
    assert script.lines[1].startswith("Round 1: ")  # no hand shown before the round starts


def test_a_manual_unit_asks_who_won_and_asks_again_on_a_bad_answer():
    script = Script(("Who won?", "Zed"))
    assert play("Ann,Bob,bot", script, unit="manual", seed=4) == 0
    asked = [line for line in script.lines if line.startswith("Who won?")]
    assert len(asked) >= 2
    assert re.search(
        r"'Zed' is not \w+ \(\d\) or \w+ \(\d\): type who won, or f and who "
        r"false-started",
        script.text,
    )
    assert re.search(r"Showdown m1:r1:s1: \w+ \(\d\) vs \w+ \(\d\) for \d cards?\.", script.text)


def test_end_of_input_at_a_prompt_ends_the_game_cleanly_with_status_0():
    script = Script(("Your choice", "1"), ("Your choice", EOFError))
    assert play("Ann,Bob,bot", script) == 0
    assert script.lines[-2:] == ["", "Input ended: the game is abandoned."]


def test_ctrl_c_ends_the_game_cleanly_with_status_130():
    script = Script(("Pass to", KeyboardInterrupt))
    assert play("Ann,Bob,bot", script) == 130
    assert script.lines[-2:] == ["", "Interrupted: the game is abandoned."]


def test_bots_alone_play_without_any_input():
    lines = []
    assert (
        play_game(
            ["bot", "random", "bot"], seed=3, target=100, input_fn=None, print_fn=lines.append
        )
        == 0
    )
    assert lines[0] == "Match: bot0, random1, bot2; showdown to 100 points."
    assert "wins the match" in lines[-1]


def test_the_classic_variant_has_no_showdowns():
    script = Script()
    assert play("Ann,bot", script, variant="classic", seed=5) == 0
    assert script.lines[0] == "Match: Ann, bot1; classic to 60 points."
    assert "Showdown" not in script.text


# -- a person's decision ------------------------------------------------------------------


def seated(notation, names=("Ann", "Bob", "Cy"), *answers):
    game = Game.from_notation(notation)
    script = Script(*answers)
    table = SharedScreen(game, list(names), [0], script.input, script.print)
    return game, script, Person(table, names[0])


TURN = "showdown R5,W,G2/B1,Y1,Y2/G7,G8,G9 G1,B2 R1 R + 0 play - - 0,0,0 1 1 500 - 1:0"


def test_a_person_sees_the_table_their_hand_and_a_numbered_menu():
    game, script, person = seated(TURN)
    assert str(person.act(game, 0)) == "R5"
    assert script.lines[:9] == [
        "",
        "Round 1 · top card R1 (red 1) · colour red · clockwise",
        "Cards in hand: Ann 3, Bob 3, Cy 3 · Scores: Ann 0, Bob 0, Cy 0",
        "Ann, your hand: R5 G2 W",
        "Your turn.",
        "   1. R5         play red 5",
        "   2. W          play Wild and name a colour",
        "   3. draw       draw a card",
        "Your choice (number or action): ",
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
    assert "   1. face 1     face Bob in a showdown (then choose the cards)" in script.lines
    assert "'9' is not a card count: type a number from 1 to 3." in script.lines
    game, _, person = seated(
        "showdown R5,G2/B1,Y1,Y2/G7,G8,G9 G1,B2 R1,WS G + 0 face - - 0,0,0 1 1 500 - 1:0",
        ("Ann", "Bob", "Cy"),
        ("Your choice", "face 1 x3"),
    )
    assert str(person.act(game, 0)) == "face 1 x3"


def test_a_wild_draw_four_offers_challenge_and_accept_in_words():
    game, script, person = seated(
        "showdown G2,G3/R1,R2/Y1,Y2 B1,B2,B3,B4,B5,B6,B7 Y9,W+4 B - 0 penalty:4:legal - - "
        "0,0,0 1 1 500 - 1:0",
        ("Ann", "Bob", "Cy"),
        ("Your choice", "accept"),
    )
    assert str(person.act(game, 0)) == "accept"
    assert "Bob played W+4 at you: 4 cards to draw." in script.lines
    assert (
        "   1. challenge  challenge the Wild Draw Four: if it was legal you draw 6 instead of 4"
    ) in script.lines
    assert "   2. accept     draw 4 cards (your turn ends)" in script.lines


def test_a_catch_is_offered_by_name():
    game, script, person = seated(
        "showdown G2,G3,G4/R1/Y1,Y2 B1,B2,B3 G9 G + 0 play 1 - 0,0,0 1 1 500 - 1:0"
    )
    person.act(game, 0)
    assert "   5. catch 1    catch Bob, who did not call UNO (Bob draws 2)" in script.lines


def test_the_drawn_card_is_shown_with_the_choice_to_play_or_keep_it():
    game, script, person = seated(
        "showdown G2,G3,G4,R7/R1/Y1,Y2 B1,B2,B3 G9,R1 R + 0 drawn - - 0,0,0 1 1 500 - 1:0",
        ("Ann", "Bob", "Cy"),
        ("Your choice", "keep"),
    )
    assert str(person.act(game, 0)) == "keep"
    assert "You drew R7 (red 7): play it or keep it." in script.lines


def test_passing_the_screen_clears_it_first():
    game = Game.from_notation(TURN)
    script = Script()
    cleared = []
    table = SharedScreen(
        game,
        ["Ann", "Bob", "Cy"],
        [0, 1],
        script.input,
        script.print,
        lambda: cleared.append(len(script.lines)),
    )
    Person(table, "Ann").act(game, 0)
    assert cleared == [0] and script.lines[:2] == ["", "Pass to Ann, press Enter "]
    Person(table, "Ann").act(game, 0)
    assert cleared == [0]  # Ann is still at the screen


# -- the command line ----------------------------------------------------------------------


def parse(*argv):
    parser = argparse.ArgumentParser(prog="showdown play")
    play_cmd.add_arguments(parser)
    return parser.parse_args(argv)


def test_the_command_line_defaults():
    args = parse()
    assert (args.players, args.variant, args.unit, args.seed, args.target) == (
        ["You", "bot", "bot", "bot"],
        "showdown",
        "sim",
        None,
        500,
    )
    args = parse(
        "--players",
        "Ann, Bob ,bot,random",
        "--unit",
        "manual",
        "--seed",
        "3",
        "--target",
        "100",
        "--variant",
        "classic",
    )
    assert (args.players, args.variant, args.unit, args.seed, args.target) == (
        ["Ann", "Bob", "bot", "random"],
        "classic",
        "manual",
        3,
        100,
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--unit", "pi:7700"],
            "argument --unit: 'pi:7700': use sim, manual, or the unit's URL "
            "(socket://HOST:PORT) or serial device (/dev/...)",
        ),
        (["--players", "Ann"], "argument --players: 1 player in 'Ann': a game takes 2-10"),
        (
            ["--players", "Ann,ann"],
            "argument --players: two players are called 'ann': names must differ",
        ),
        (["--players", "Ann,,bot"], "argument --players: empty name in 'Ann,,bot'"),
        (["--target", "0"], "argument --target: must be a whole number >= 1, not '0'"),
        (["--seed", "-1"], "argument --seed: must be a whole number >= 0, not '-1'"),
    ],
)
def test_the_command_line_refuses_bad_options_with_a_reason(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse(*argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_the_command_plays_through_input_and_print(monkeypatch, capsys):
    replies = iter(["", "1"])

    def fake_input(prompt):
        print(prompt)
        try:
            return next(replies)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    assert play_cmd.command(parse("--players", "Ann,Bob", "--seed", "1")) == 0
    out = capsys.readouterr().out
    assert out.startswith("Match: Ann, Bob; showdown to 500 points.\n")
    assert out.endswith("Input ended: the game is abandoned.\n")


def test_showdown_play_is_a_subcommand_of_the_engine_cli(capsys):
    from engine.apps import cli

    with pytest.raises(SystemExit) as exit_:
        cli.main(["play", "--unit", "pi:7700"])
    assert exit_.value.code == 2
    assert "use sim, manual, or the unit's URL" in capsys.readouterr().err
    assert cli.main(["play", "--players", "bot,random", "--seed", "2", "--target", "50"]) == 0
    assert "wins the match" in capsys.readouterr().out


def test_play_passes_the_token_file_and_baud_to_the_remote_unit(monkeypatch, tmp_path):
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    seen = {}
    monkeypatch.setattr(play_cmd, "play_game", lambda players, **kwargs: seen.update(kwargs) or 0)
    args = parse(
        "--players",
        "Ann,Bob",
        "--unit",
        "socket://127.0.0.1:7700",
        "--token-file",
        str(token),
        "--baud",
        "9600",
    )
    assert play_cmd.command(args) == 0
    assert seen["unit"] == "socket://127.0.0.1:7700"
    assert seen["unit_options"] == {"baudrate": 9600, "token": "s3cret"}


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "{path}: no such file"),
        ("\n", "{path}: the file is empty"),
        ("one\ntwo\n", "{path}: holds 2 lines; a token file holds the token on one line"),
    ],
)
def test_play_refuses_a_missing_or_empty_token_file(tmp_path, capsys, content, message):
    path = tmp_path / "token"
    if content is not None:
        path.write_text(content)
    args = parse("--unit", "socket://127.0.0.1:7700", "--token-file", str(path))
    with pytest.raises(UsageError, match="^" + re.escape(message.format(path=path)) + "$"):
        play_cmd.command(args)


def test_play_refuses_a_token_file_without_a_unit_url(tmp_path, capsys):
    from engine.apps import cli

    assert cli.main(["play", "--token-file", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: showdown play ")
    assert err.splitlines()[-1] == (
        "showdown play: error: --token-file is for a unit at a URL (--unit socket://...)"
    )
