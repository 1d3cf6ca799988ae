"""``showdown play --variant party``: a person's UNO Party! decisions at the shared
screen, scripted: pointing, the mini pile, Wild Drawn Together's colour and link,
speed plays and catches out of turn, the Party facts on the screen, the events
in words, and the command line."""

import argparse

import pytest

from engine.apps import play_cmd
from engine.apps.play import parse_players, play_game
from engine.match import MatchEvent
from engine.uno.actions import Action
from engine.uno.narration import PARTY_EVENT_KINDS
from engine.uno.party import PartyGame
from engine.uno.terminal import PARTY_PLAYERS, Person
from engine.uno.terminal.screen import PARTY_HELP, UnoScreen, party_line
from engine.uno.words import event_text
from firmware_host.people.console import UsageError

NAMES = ("Ann", "Bob", "Cy", "Di")


class Script:
    """Scripted input and a transcript (prompts included). ``answers``: (prompt
    prefix, reply) pairs used in order; a reply that is an exception class is
    raised; other prompts get Enter, or "1" for a menu."""

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
        if prompt.startswith(("Your choice", "Point at")):
            return "1"
        if prompt.startswith("Colour"):
            return "g"
        if prompt.startswith("Link"):
            return "2 3"
        return ""

    def prompts(self, start):
        return [line for line in self.lines if line.startswith(start)]


def seated(notation, *answers, seat=0, names=NAMES):
    game = PartyGame.from_notation(notation)
    names = list(names[: game.players])
    script = Script(*answers)
    screen = UnoScreen(game, names, [seat], script.input, script.print)
    return game, script, Person(screen, names[seat])


# Bob played Point Taken (player 2 is the pointer: Cy); Bob pointed already (at Di).
POINTING = (
    "party R3,G7/B2,B1/Y3,W/G4,G5 G1,G2,G3,G4,G5,G6,G7,G8,B7,B8 R1,RP R + 2 point - - "
    "0,0,0,0 3 1 500 - 1:0 point=-,3,-,-"
)
# Ann must add to a green mini pile (W G3): her G9 or her W.
PILE = (
    "party B2,G9,W/R2,R3/Y3,G4/B6,B7 B5,B8,G1,G2 R1,WP G + 0 pile - - 0,0,0,0 3 1 500 - "
    "1:0 pile=W,G3"
)
# Ann holds a Wild Drawn Together.
DRAWN_TOGETHER = (
    "party WT,R2,R3/B2,B1/Y3,R4/G5,G6 G1,G2,G3,G4,G5,G6,G7,G8 R1 R + 0 play - - 0,0,0,0 "
    "3 1 500 - 1:0 -"
)
# Bob is to play on R5; Ann holds the other R5.
SPEED = "party R5,B1/R5,G7/Y3,W G1,G2 R1,R5 R + 1 play - - 0,0,0 2 1 500 - 1:0 -"
# Cy is to play; Bob has one card and did not call UNO; Ann holds no R6.
CATCH = "party R5,B1/G7/Y3,W,Y4 G1,G2 R1,R6 R + 2 play 1 - 0,0,0 2 1 500 - 1:0 -"


# -- Point Taken ---------------------------------------------------------------------------


def test_pointing_says_the_choice_is_hidden_and_shows_who_has_pointed_not_whom():
    game, script, person = seated(POINTING)
    assert person.act(game, 0) is Action.point(1)
    assert (
        "Point at someone (Cy's Point Taken): everyone points at once; your choice is hidden "
        "until all are in. Each player then draws 1 card per player pointing at them (at "
        "most 5)." in script.lines
    )
    assert "Party! · pointed: Bob (whom stays hidden)" in script.lines
    assert "Di" not in " ".join(line for line in script.lines if "pointed" in line)
    menu = script.lines[script.lines.index("Ann, your hand: R3 G7") + 2 :][:3]
    assert menu == [
        "   1. point Bob  point at Bob (2 cards)",
        "   2. point Cy   point at Cy (2 cards)",
        "   3. point Di   point at Di (2 cards)",
    ]


@pytest.mark.parametrize(
    "typed, problem",
    [
        ("ann", "You cannot point at yourself: choose another player."),
        ("9", "There is no choice 9: type a number from 1 to 3."),
        ("Zed", "'Zed' is not a player here: type a number from 1 to 3 or a name from the menu."),
        ("", "Type a number from 1 to 3, or an action as the menu writes it."),
    ],
)
def test_a_bad_pointing_answer_is_explained_and_asked_again(typed, problem):
    game, script, person = seated(POINTING, ("Point at", typed), ("Point at", "di"))
    assert person.act(game, 0) is Action.point(3)
    assert problem in script.lines
    assert len(script.prompts("Point at (")) == 2


def test_pointing_by_the_menu_label_works_too():
    game, _, person = seated(POINTING, ("Point at", "point cy"))
    assert person.act(game, 0) is Action.point(2)


# -- Wild Pile Up ---------------------------------------------------------------------------


def test_at_a_mini_pile_the_person_adds_a_card_of_its_colour_or_a_wild():
    game, script, person = seated(PILE, ("Your choice", "take"), ("Your choice", "w"))
    assert str(person.act(game, 0)) == "W"
    assert "Party! · mini pile (green, 2 cards): W G3" in script.lines
    assert (
        "Wild Pile Up: the mini pile is green: W G3 (2 cards). Add a green card or a wild "
        "(no effects), or take the whole pile if you cannot." in script.lines
    )
    assert "   1. G9         add green 9 to the mini pile" in script.lines
    assert "   2. W          add Wild to the mini pile" in script.lines
    assert "take is not legal now: choose from the menu." in script.lines


def test_a_person_with_nothing_to_add_is_told_and_takes_the_pile():
    game, script, person = seated(
        "party B2,R9/R2,R3/Y3,G4/B6,B7 B5,B8,G1,G2 R1,WP G + 0 pile - - 0,0,0,0 3 1 500 - "
        "1:0 pile=W,G3"
    )
    assert person.act(game, 0) is Action.take()
    assert (
        "Wild Pile Up: the mini pile is green: W G3 (2 cards). You hold no green card and "
        "no wild: you take the pile." in script.lines
    )
    assert "   1. take       take the mini pile (2 cards) into your hand" in script.lines


# -- Wild Drawn Together -------------------------------------------------------------------


def test_wild_drawn_together_asks_the_colour_then_the_two_linked_players():
    game, script, person = seated(
        DRAWN_TOGETHER,
        ("Your choice", "wt"),
        ("Colour", "b"),
        ("Link", "2"),
        ("Link", "bob bob"),
        ("Link", "7 2"),
        ("Link", "Cy+bob"),
    )
    assert str(person.act(game, 0)) == "WT=B 1+2"
    assert (
        "   3. WT         play Wild Drawn Together: name a colour, then link two players"
        in script.lines
    )
    assert (
        "Link two players: from now on, when one of them draws, the other draws as many."
        in script.lines
    )
    assert "  1. Ann (3 cards), 2. Bob (2 cards), 3. Cy (2 cards), 4. Di (2 cards)" in script.lines
    assert "'2' is not two players: type two of the numbers 1-4 or two names." in script.lines
    assert "A link joins two different players: name two." in script.lines
    assert "'7 2' is not two players: type two of the numbers 1-4 or two names." in script.lines


def test_wild_drawn_together_may_be_typed_in_full():
    game, _, person = seated(DRAWN_TOGETHER, ("Your choice", "wt=g 0+3"))
    assert str(person.act(game, 0)) == "WT=G 0+3"


def test_a_link_is_shown_on_the_screen():
    game, script, person = seated(DRAWN_TOGETHER[:-1] + "link=1+3")
    person.act(game, 0)
    assert "Party! · speed window open on R1 · linked: Bob + Di" in script.lines


# -- out of turn: speed plays and catches --------------------------------------------------


def test_the_identical_card_is_offered_as_a_speed_play_before_the_next_player_plays():
    game, script, person = seated(SPEED, ("Out of turn", "1"))
    assert person.react(game, 0) is Action.speed("R5")
    assert script.lines[1:6] == [
        "Speed play! The top card is R5 and you hold R5: you may play it now, out of turn "
        "before Bob plays.",
        "Ann, your hand: R5 B1",
        "   1. speed R5      play your red 5 now, out of turn: play goes on after you",
        "   2. speed R5 uno  play your red 5 now, out of turn and call UNO: play goes on after you",
        "Enter lets the chance pass. Another card of yours is a wrong speed play: it comes "
        "back and you draw 1.",
    ]


def test_enter_lets_the_chance_pass_and_it_is_not_offered_again_that_turn():
    game, script, person = seated(SPEED)
    assert person.react(game, 0) is None
    assert len(script.prompts("Out of turn")) == 1
    assert person.react(game, 0) is None  # the same chance: not asked again
    assert len(script.prompts("Out of turn")) == 1


def test_a_card_typed_out_of_turn_is_its_speed_play():
    game, _, person = seated(SPEED, ("Out of turn", "r5 uno"))
    assert person.react(game, 0) is Action.speed("R5", uno=True)


def test_a_wrong_speed_play_shows_its_penalty_and_is_made_once_confirmed():
    game, script, person = seated(
        SPEED,
        ("Out of turn", "B1"),
        ("B1 is not R5", ""),
        ("Out of turn", "speed b1"),
        ("B1 is not R5", "y"),
    )
    assert person.react(game, 0) is Action.speed("B1")
    assert (
        script.prompts("B1 is not R5")
        == [
            "B1 is not R5: a wrong speed play; you keep it and draw 1. Type y to do it, Enter not to: "
        ]
        * 2
    )
    assert "No speed play made." in script.lines


@pytest.mark.parametrize(
    "typed, problem",
    [
        ("G7", "You hold no G7: type a card of your hand, or Enter to pass."),
        ("draw", "draw is not legal now: choose from the menu."),
        ("5", "There is no choice 5: type a number from 1 to 2."),
        ("xyz", "'xyz' is not a choice: type a number from 1 to 2 or an action as the menu "),
    ],
)
def test_a_bad_answer_out_of_turn_is_explained_and_asked_again(typed, problem):
    game, script, person = seated(SPEED, ("Out of turn", typed))
    assert person.react(game, 0) is None
    assert any(line.startswith(problem) for line in script.lines), script.lines
    assert len(script.prompts("Out of turn")) == 2


def test_no_identical_card_and_nobody_to_catch_asks_nothing():
    game, script, person = seated(SPEED.replace("R5,B1/R5,G7", "R4,B1/R5,G7"))
    assert game.legal_actions(0)  # wrong speed plays are legal, but not offered
    assert person.react(game, 0) is None
    assert script.lines == []


def test_a_player_without_uno_is_offered_as_a_catch_out_of_turn():
    game, script, person = seated(CATCH, ("Out of turn", "catch bob"))
    assert person.react(game, 0) is Action.catch(1)
    assert "Bob has one card and did not call UNO: you may catch Bob." in script.lines
    assert "   1. catch Bob  catch Bob, who did not call UNO (Bob draws 2)" in script.lines


def test_nothing_is_offered_out_of_turn_while_everyone_points():
    game, script, person = seated(POINTING)
    assert person.react(game, 0) is None
    assert script.lines == []


# -- the screen and the events ---------------------------------------------------------------


def test_the_party_line_shows_the_window_the_pile_the_link_and_who_pointed():
    assert party_line(PartyGame.from_notation(SPEED), NAMES) == "Party! · speed window open on R5"
    assert party_line(PartyGame.from_notation(PILE), NAMES) == (
        "Party! · mini pile (green, 2 cards): W G3"
    )
    assert party_line(PartyGame.from_notation(POINTING), NAMES) == (
        "Party! · pointed: Bob (whom stays hidden)"
    )
    quiet = "party R5,B1/R5,G7/Y3,W G1,G2 R1,RS R + 1 play - - 0,0,0 2 1 500 - 1:0 -"
    assert party_line(PartyGame.from_notation(quiet), NAMES) == ""


PARTY_EVENTS = [
    (
        MatchEvent(
            "speed",
            1,
            {"player": 1, "action": "speed R5", "card": "R5", "top": "R5", "right": True,
             "uno": False, "cards_left": 2, "drew": 0, "draws": {}, "next": 2},
        ),
        "Bob speed-plays R5 out of turn (2 left); Cy plays next.",
        "You speed-play R5 out of turn (2 left); Cy plays next.",
    ),
    (
        MatchEvent(
            "speed",
            1,
            {"player": 1, "action": "speed B1", "card": "B1", "top": "R5", "right": False,
             "uno": False, "cards_left": 3, "drew": 1, "draws": {1: 1, 3: 1}, "next": 2},
        ),
        "Bob speed-plays B1 on R5: not the same card; Bob takes it back and draws 1; "
        "Di draws 1 (linked).",
        "You speed-play B1 on R5: not the same card; you take it back and draw 1; "
        "Di draws 1 (linked).",
    ),
    (
        MatchEvent("point_taken", 1, {"player": 2, "waiting": [0, 1, 2, 3]}),
        "Cy's Point Taken: everyone points at another player; nobody sees whom until all have "
        "pointed.",
        "Cy's Point Taken: everyone points at another player; nobody sees whom until all have "
        "pointed.",
    ),
    (
        MatchEvent("pointed", 1, {"player": 1}),
        "Bob points (whom stays hidden).",
        "You point (whom stays hidden).",
    ),
    (
        MatchEvent(
            "pointing",
            1,
            {"player": 2, "choices": {0: 1, 1: 3, 2: 1, 3: 1}, "draws": {1: 3, 3: 1}},
        ),
        "Everyone points: Ann at Bob, Bob at Di, Cy at Bob, Di at Bob. Bob draws 3; Di draws 1.",
        "Everyone points: Ann at you, you at Di, Cy at you, Di at you. You draw 3; Di draws 1.",
    ),
    (
        MatchEvent(
            "pile_start", 1, {"player": 0, "flipped": ["W", "G3"], "colour": "G", "next": 1}
        ),
        "Wild Pile Up: the mini pile is W G3 (green). In turn, each adds a green card or a wild "
        "(no effects), or takes the pile. Bob adds first.",
        "Wild Pile Up: the mini pile is W G3 (green). In turn, each adds a green card or a wild "
        "(no effects), or takes the pile. You add first.",
    ),
    (
        MatchEvent(
            "pile_add",
            1,
            {"player": 1, "action": "G9", "card": "G9", "uno": False, "cards_left": 2, "next": 2},
        ),
        "Bob adds G9 to the mini pile (2 left).",
        "You add G9 to the mini pile (2 left).",
    ),
    (
        MatchEvent(
            "pile_take",
            1,
            {"player": 1, "action": "take", "cards": ["W", "G3", "G9"], "draws": {1: 3}},
        ),
        "Bob takes the mini pile: 3 cards.",
        "You take the mini pile: 3 cards.",
    ),
    (
        MatchEvent("link", 1, {"player": 0, "linked": [1, 3]}),
        "Ann links Bob and Di: when one draws, the other draws as many.",
        "Ann links you and Di: when one draws, the other draws as many.",
    ),
    (
        MatchEvent("claim_lost", 1, {"player": 1, "action": "catch 2"}),
        "Bob's catch of Cy came too late: someone was quicker.",
        "Your catch of Cy came too late: someone was quicker.",
    ),
    (
        MatchEvent(
            "draw",
            1,
            {"player": 1, "action": "draw", "cards": 1, "can_play": False,
             "draws": {1: 1, 3: 1}},
        ),
        "Bob draws a card; Di draws 1 (linked).",
        "You draw a card; Di draws 1 (linked).",
    ),
]  # fmt: skip


def test_every_party_event_kind_has_an_example():
    assert {event.kind for event, _, _ in PARTY_EVENTS} >= set(PARTY_EVENT_KINDS)


@pytest.mark.parametrize("event, table, bob", PARTY_EVENTS, ids=lambda x: getattr(x, "kind", None))
def test_each_party_event_is_told_to_the_table_and_to_the_person_at_the_screen(event, table, bob):
    assert event_text(event, list(NAMES)) == table
    assert event_text(event, list(NAMES), you=1) == bob


def test_help_in_a_party_game_explains_the_party_cards_and_speed_play():
    game, script, person = seated(SPEED, ("Out of turn", "?"), ("Out of turn", ""))
    person.screen.rules_help = list(PARTY_HELP)
    person.react(game, 0)
    text = " ".join(script.lines)
    assert "Wild Pile Up: names no colour" in text
    assert "speed G7    speed-play G7 (out of turn)" in text


# -- whole games and the command line ------------------------------------------------------


def test_a_person_plays_a_party_match_against_seven_bots_to_the_end():
    script = Script()
    assert (
        play_game(
            list(PARTY_PLAYERS),
            variant="party",
            seed=18,
            target=60,
            input_fn=script.input,
            print_fn=script.print,
        )
        == 0
    )
    assert script.lines[1] == (
        "Seed 18. To play this game again: showdown play --players "
        "You,bot,bot,bot,bot,bot,bot,bot --seed 18 --variant party --target 60"
    )
    assert script.prompts("Point at")
    assert script.prompts("Link whom")
    assert any(line.startswith("Everyone points: ") for line in script.lines)
    assert " wins the match with " in script.lines[-1]


def test_end_of_input_out_of_turn_ends_the_party_game_cleanly():
    script = Script(("Out of turn", EOFError))
    status = play_game(
        list(PARTY_PLAYERS), variant="party", seed=1, input_fn=script.input, print_fn=script.print
    )
    assert status == 0
    assert "Input ended: the game is abandoned." in script.lines


def test_ctrl_c_while_pointing_ends_the_party_game_with_status_130():
    script = Script(("Point at", KeyboardInterrupt))
    status = play_game(
        list(PARTY_PLAYERS), variant="party", seed=18, input_fn=script.input, print_fn=script.print
    )
    assert status == 130
    assert "Interrupted: the game is abandoned." in script.lines


def test_party_takes_no_unit():
    with pytest.raises(ValueError, match="UNO Party! has no showdowns"):
        play_game(["You", "bot"], variant="party", unit="manual", input_fn=None)


def parse(*argv):
    parser = argparse.ArgumentParser(prog="showdown play")
    play_cmd.add_arguments(parser)
    return parser.parse_args(argv)


def test_party_without_players_seats_you_and_seven_bots(monkeypatch):
    seen = {}
    monkeypatch.setattr(play_cmd, "play_game", lambda players, **kw: seen.update(p=players) or 0)
    assert play_cmd.command(parse("--variant", "party")) == 0
    assert seen["p"] == ["You", "bot", "bot", "bot", "bot", "bot", "bot", "bot"]
    assert play_cmd.command(parse("--variant", "party", "--players", "Ann,bot")) == 0
    assert seen["p"] == ["Ann", "bot"]


def test_up_to_sixteen_players_only_in_party(monkeypatch):
    monkeypatch.setattr(play_cmd, "play_game", lambda players, **kw: 0)
    twelve = ",".join(["You"] + ["bot"] * 11)
    assert play_cmd.command(parse("--variant", "party", "--players", twelve)) == 0
    with pytest.raises(UsageError, match=r"12 players: showdown takes 2-10 \(only --variant party"):
        play_cmd.command(parse("--players", twelve))
    with pytest.raises(UsageError, match="UNO Party! has no showdowns: it takes no --unit"):
        play_cmd.command(parse("--variant", "party", "--unit", "manual"))
    with pytest.raises(
        ValueError, match=r"17 players in .*: a game takes 2-10 \(UNO Party!: 2-16\)"
    ):
        parse_players(",".join(["bot"] * 17), 16)


def test_help_says_how_speed_play_works_at_a_keyboard():
    parser = argparse.ArgumentParser(prog="showdown play")
    play_cmd.add_arguments(parser)
    text = " ".join(parser.format_help().split())
    assert "without --players you play against 7 heuristic bots" in text
    assert "the game stops before the next player plays and asks you first" in text
