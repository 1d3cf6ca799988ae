"""``showdown play``: scripted people and bots at one screen: hidden hands, recaps,
commands, menus, EOF, Ctrl-C, quit."""

import argparse
import re

import pytest

from engine.apps import play_cmd
from engine.apps.play import bot_skill, parse_players, play_game, replay_command
from engine.apps.screen import wrap_help
from engine.units.ports import ManualUnit
from engine.uno.terminal.screen import HELP
from firmware_host.people.console import UsageError
from tests.terminal_script import Script


def play(players, script, **options):
    options = {"seed": 1, "target": 60, "control_fn": script.control, **options}
    return play_game(
        parse_players(players), input_fn=script.input, print_fn=script.print, **options
    )


def assert_hands_hidden(lines):
    """A person's hand (and new cards) show only on the private screen, after
    the screen was passed to them; the private screen is wiped before anyone
    else is called to it."""
    seated, private = None, False
    for line in lines:
        passed = re.match(r"Pass the screen to (\w+); \1, press Enter", line)
        if passed:
            assert not private, line
            seated = passed.group(1)
        elif line == "<private>":
            private = True
        elif line == "<public>":
            private, seated = False, None
        shown = re.match(r"(\w+), your hand:", line)
        if shown:
            assert private and shown.group(1) == seated, (line, seated)
        if re.match(r" +\(your new cards?:", line):
            assert private, line


# -- whole games -----------------------------------------------------------------------------


def test_two_people_and_two_bots_play_a_match_to_the_end():
    script = Script(("Your choice", "banana"), ("Your choice", "99"), ("Colour", "purple"))
    assert play("Ann,Bob,bot,random", script, seed=13, target=150) == 0
    text = script.text
    assert script.lines[:2] == [
        "Match: Ann, Bob, bot2, random3; showdown to 150 points.",
        "Seed 13. To play this game again: showdown play --players Ann,Bob,bot,random "
        "--seed 13 --target 150",
    ]
    assert re.search(
        r"(Ann|Bob|bot2|random3) wins the match with \d+ points after \d+ rounds?\.$", text
    )
    assert "'banana' is not a choice: type a number from 1 to " in text
    assert "There is no choice 99: type a number from 1 to " in text
    assert "'purple' is not a colour: type 1-4, R, Y, G, B or a colour's name." in text
    assert "Pass the screen to Ann; Ann, press Enter " in script.lines
    assert "Pass the screen to Bob; Bob, press Enter " in script.lines
    assert "Press Enter to deal round 2 " in script.lines
    assert "Showdown (" in text and "Round 1 won by" in text
    assert "Final scores:" in script.lines
    assert_hands_hidden(script.lines)


def test_a_game_with_one_person_never_asks_to_pass_the_screen():
    script = Script()
    assert play("Ann,bot,bot", script, seed=2) == 0
    assert not [line for line in script.lines if line.startswith("Pass the screen")]
    assert "<private>" not in script.lines  # nobody to hide the hand from
    assert "Ann, your hand: " in script.text
    assert script.lines[2].startswith("Round 1: ")  # no hand shown before the round starts


def test_the_seed_is_told_at_the_start_and_replays_the_same_game():
    first = Script()
    assert play("Ann,Bob,bot", first, seed=None) == 0
    told = re.fullmatch(
        r"Seed (\d+)\. To play this game again: showdown play --players Ann,Bob,bot "
        r"--seed \1 --target 60",
        first.lines[1],
    )
    assert told
    again = Script()
    assert play("Ann,Bob,bot", again, seed=int(told.group(1))) == 0
    assert again.lines == first.lines


def test_replay_command_names_what_differs_from_the_defaults():
    assert replay_command(["Ann", "bot"], 3) == "showdown play --players Ann,bot --seed 3"
    assert replay_command(["Ann Lee", "bot:180"], 3, variant="classic", unit="manual") == (
        "showdown play --players 'Ann Lee,bot:180' --seed 3 --variant classic --unit manual"
    )


# -- the recap: what happened since a person's last turn ------------------------------------

#: Seed 1, Ann, Bob and a bot, first choices: Ann plays R2!1 at Bob, who loses the showdown.
BOB_LOSES = ("Ann,Bob,bot", 1, 50)


def lines_between(lines, first, last):
    start = lines.index(first)
    return lines[start + 1 : lines.index(last, start)]


def test_the_recap_tells_bob_the_showdown_he_lost_and_the_card_he_took():
    players, seed, target = BOB_LOSES
    script = Script()
    play(players, script, seed=seed, target=target)
    lines = script.lines
    bob = lines.index("Pass the screen to Bob; Bob, press Enter ")
    assert lines[bob - 1 : bob + 8] == [
        "<public>",
        "Pass the screen to Bob; Bob, press Enter ",
        "<private>",
        "So far:",
        "  Round 1: Ann deals; GS (green) turned up; bot2 goes first.",
        "  bot2 plays G2.",
        "  Ann plays R2!1.",
        "  Showdown (R2!1): Ann vs you for 1 card. Ann wins: Ann 305.8 ms, you 329.4 ms, "
        "margin 23.6 ms. You take 1 card.",
        "  (your new card: G3)",
    ]
    # It is printed on Ann's own screen, in her words, after her last answer (her next
    # recap tells it again: the screen was wiped before she could read it).
    ann = lines_between(lines, "Pass the screen to Ann; Ann, press Enter ", "<public>")
    assert ann[-2:] == [
        "You play R2!1.",
        "Showdown (R2!1): you vs Bob for 1 card. You win: you 305.8 ms, Bob 329.4 ms, "
        "margin 23.6 ms. Bob takes 1 card.",
    ]


def test_a_later_recap_tells_what_happened_since_the_last_answer_at_the_screen():
    players, seed, target = BOB_LOSES
    script = Script()
    play(players, script, seed=seed, target=target)
    lines = script.lines
    second = [i for i, line in enumerate(lines) if line.startswith("Pass the screen to Ann")][1]
    # Not her own play (she chose it), but her showdown's verdict, wiped unread (issue 22).
    assert lines[second + 1 : second + 6] == [
        "<private>",
        "Since your last turn:",
        "  Showdown (R2!1): you vs Bob for 1 card. You win: you 305.8 ms, Bob 329.4 ms, "
        "margin 23.6 ms. Bob takes 1 card.",
        "  Bob plays R8.",
        "  bot2 plays B8.",
    ]


def test_names_read_naturally_and_prompts_show_no_ids_or_seat_numbers():
    script = Script()
    assert play("You,Bob,bot", script, seed=4, target=100, unit="manual") == 0
    text = script.text
    assert "You play" in text
    assert not re.search(r"\b[Yy]ou (plays|draws|keeps|takes|wins|faces|names|catches)\b", text)
    assert "m1:" not in text and "showdown_id" not in text
    prompts = [line for line in script.lines if line.endswith(" ")]
    assert not [p for p in prompts if re.search(r"\(\d\)|face \d|catch \d", p)]
    assert not re.search(r"^ +\d+\. (face|catch) \d", text, re.M)


# -- commands at any prompt ------------------------------------------------------------------


def folded(lines, width=80):
    return [part for line in lines for part in wrap_help(line, width)]


def test_help_at_a_prompt_explains_cards_and_actions_then_asks_again(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # the help is folded to the terminal's width
    script = Script(("Your choice", "?"), ("Pass the screen", "help"))
    play("Ann,Bob,bot", script, seed=1, target=50)
    lines = script.lines
    help_lines = folded(HELP)
    first = lines.index(help_lines[0])
    assert lines[first - 1] == "Pass the screen to Ann; Ann, press Enter "
    assert lines[first : first + len(help_lines)] == help_lines
    assert lines[first + len(help_lines)] == "Pass the screen to Ann; Ann, press Enter "
    at = lines.index("  W+4     Wild Draw Four: name the colour; the next player draws 4, or")
    assert lines[at + 1] == "          challenges it"
    assert max(len(line) for line in help_lines) <= 80
    second = lines.index(help_lines[0], first + 1)
    assert lines[second - 1].startswith("Your choice")
    assert lines[second + len(help_lines)].startswith("Your choice")


def test_help_with_a_manual_unit_tells_the_answers_at_the_unit(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    script = Script(("Who won?", "help"))
    play("Ann,Bob,bot", script, seed=1, target=50, unit="manual")
    lines = script.lines
    unit_help = folded(ManualUnit.HELP, 100)
    at = lines.index(unit_help[0])
    assert lines[at - len(folded(HELP, 100)) - 1].startswith("Who won?")
    assert lines[at : at + len(unit_help)] == unit_help


def test_scores_shows_the_scoreboard_and_the_seed():
    script = Script(("Your choice", "scores"))
    play("Ann,Bob,bot", script, seed=1, target=50)
    lines = script.lines
    at = lines.index("Round 1; 50 points win the match.")
    assert lines[at + 1 : at + 5] == [
        "  Ann      0 points  7 cards in hand",
        "  Bob      0 points  7 cards in hand",
        "  bot2     0 points  6 cards in hand",
        "Seed 1. To play this game again: showdown play --players Ann,Bob,bot --seed 1 --target 50",
    ]


def test_hand_shows_the_seated_hand_and_no_hand_at_the_gate():
    script = Script(("Pass the screen", "hand"), ("Your choice", "HAND"))
    play("Ann,Bob,bot", script, seed=1, target=50)
    lines = script.lines
    gate = lines.index("Pass the screen to Ann; Ann, press Enter ")
    assert lines[gate + 1] == (
        "No hand is shown now: each player sees their own once the screen is passed to them."
    )
    choice = next(i for i, line in enumerate(lines) if line.startswith("Your choice"))
    assert lines[choice + 1] == "Ann, your hand: R2!1 R4!2 R+2 Y4!2 G1 GS B8"


def test_quit_asks_to_confirm_and_then_ends_with_the_scores_and_status_0():
    script = Script(
        ("Your choice", "quit"),
        ("Quit the game?", "n"),
        ("Your choice", "1"),
        ("Pass the screen to Bob", "Quit"),
        ("Quit the game?", "y"),
    )
    assert play("Ann,Bob,bot", script, seed=1, target=50) == 0
    lines = script.lines
    first = lines.index("Quit the game? Type y to quit, Enter to go on: ")
    assert lines[first + 1] == "The game goes on."
    assert lines[first + 2].startswith("Your choice")
    end = lines.index("The game is stopped: the table quit. The scores so far:")
    assert lines[end - 3 : end] == [  # at the gate: no hand on the screen
        "Pass the screen to Bob; Bob, press Enter ",
        "Quit the game? Type y to quit, Enter to go on: ",
        "",
    ]
    assert lines[end + 1 :] == [
        "Round 1; 50 points win the match.",
        "  Ann      0 points  6 cards in hand",
        "  Bob      0 points  8 cards in hand",
        "  bot2     0 points  6 cards in hand",
        "Seed 1. To play this game again: showdown play --players Ann,Bob,bot --seed 1 --target 50",
    ]


def test_a_quit_while_a_hand_shows_wipes_it_first():
    script = Script(("Your choice", "quit"), ("Quit the game?", "yes"))
    assert play("Ann,Bob,bot", script, seed=1, target=50) == 0
    lines = script.lines
    assert (
        lines.index("<public>")
        == lines.index("The game is stopped: the table quit. The scores so far:") - 2
    )


@pytest.mark.parametrize("name", ["help", "Quit", "?", "scores", "hand", "tie", "Nobody"])
def test_a_player_cannot_be_called_by_a_command_or_an_answer(name):
    with pytest.raises(ValueError, match=f"a player cannot be called {re.escape(repr(name))}: "):
        parse_players(f"Ann,{name}")


# -- the end of a game ---------------------------------------------------------------------


def test_a_manual_unit_asks_who_won_and_asks_again_on_a_bad_answer():
    script = Script(("Who won?", "Zed"))
    assert play("Ann,Bob,bot", script, unit="manual", seed=4) == 0
    asked = [line for line in script.lines if line.startswith("Who won?")]
    assert len(asked) >= 2
    assert re.search(
        r"'Zed' is not \w+ or \w+: type who won, f and who pressed before GO "
        r"\(e\.g\. f \w+\), tie or nobody\.",
        script.text,
    )
    showdown = next(i for i, line in enumerate(script.lines) if line.startswith("Showdown: "))
    assert re.fullmatch(
        r"Showdown: \w+ vs \w+ for \d cards?\. Load (it|them) into the unit and fight it\.",
        script.lines[showdown],
    )
    # The hand was wiped before the table looked at the screen for the showdown.
    assert (
        "<private>"
        not in script.lines[
            max(i for i in range(showdown) if script.lines[i] == "<public>") : showdown
        ]
    )


def test_a_manual_showdown_is_told_once():
    script = Script()
    play("Ann,Bob,bot", script, unit="manual", seed=1, target=50)
    lines = script.lines
    asked = next(i for i, line in enumerate(lines) if "Who won?" in line)
    assert lines[asked + 1] == "Showdown (R2!1): Ann vs Bob for 1 card. Ann wins. Bob takes 1 card."
    assert "Pass the screen to Bob" in lines[asked + 2]


def test_end_of_input_at_a_prompt_ends_the_game_cleanly_with_status_0():
    script = Script(("Your choice", "1"), ("Your choice", EOFError))
    assert play("Ann,Bob,bot", script) == 0
    end = script.lines.index("Input ended: the game is abandoned.")
    assert script.lines[end - 2 : end] == ["<public>", ""]
    assert script.lines[end + 1].startswith("Round 1; 60 points win the match.")


def test_ctrl_c_ends_the_game_cleanly_with_status_130():
    script = Script(("Pass the screen", KeyboardInterrupt))
    assert play("Ann,Bob,bot", script) == 130
    end = script.lines.index("Interrupted: the game is abandoned.")
    assert script.lines[end - 1] == ""
    assert "<private>" not in script.lines


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


# -- bots' reactions ---------------------------------------------------------------------------


def test_a_bot_may_be_given_its_reaction_in_ms():
    assert parse_players("Ann,bot:180,Random:300.5,bot") == [
        "Ann",
        "bot:180",
        "random:300.5",
        "bot",
    ]
    assert bot_skill("bot:100") == ("bot", 100.0) and bot_skill("random:1000") == ("random", 1000.0)


def test_play_gives_each_bot_its_reaction(monkeypatch):
    import engine.uno.bots as bots_module  # the family's make_bot builds its bots from here

    made = []

    class Recording(bots_module.HeuristicBot):
        def __init__(self, *args, **kwargs):
            made.append(kwargs.get("reaction_ms"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(bots_module, "HeuristicBot", Recording)
    lines = []
    play_game(["bot:180", "bot"], seed=3, target=20, input_fn=None, print_fn=lines.append)
    assert made == [180.0, None]


@pytest.mark.parametrize(
    "entry, message",
    [
        (
            "bot:50",
            "'bot:50': a bot's reaction is its median time to press after GO, in ms, "
            "from 100 to 1000: e.g. bot:180 (quick) or bot:400 (slow)",
        ),
        ("random:1001", "'random:1001': a bot's reaction is its median time"),
        ("bot:fast", "'bot:fast': a bot's reaction is its median time"),
        ("bot:", "'bot:': a bot's reaction is its median time"),
        ("bot:nan", "'bot:nan': a bot's reaction is its median time"),
        ("Ann:200", "'Ann:200': only a bot (bot or random) takes a reaction time, e.g. bot:180"),
    ],
)
def test_a_bad_reaction_is_a_clear_usage_error(entry, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse("--players", f"Bob,{entry}")
    assert exit_.value.code == 2
    assert f"argument --players: {message}" in capsys.readouterr().err


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
    assert out.startswith("Match: Ann, Bob; showdown to 500 points.\nSeed 1. ")
    assert "\nInput ended: the game is abandoned.\n" in out
    assert "\033[" not in out  # not a terminal: no screen control


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


def test_a_strong_bot_is_told_which_seats_people_play(monkeypatch):
    from engine.uno import FAMILY
    from engine.uno.search_bot import SearchBot

    made = []
    make_bot = FAMILY.make_bot

    def recorded(*args, **kwargs):
        made.append(make_bot(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(FAMILY, "make_bot", recorded)
    script = Script(("Your choice", EOFError))
    assert play("Ann,strong,Bob,bot", script, variant="classic") == 0
    strong = [bot for bot in made if isinstance(bot, SearchBot)]
    assert len(strong) == 1 and strong[0].people == {0, 2}
