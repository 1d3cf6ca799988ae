"""``showdown play --variant party`` in a pseudo-terminal, as a person plays it
against seven bots: a speed play out of turn (a wrong one first, with its
penalty), Point Taken with the reveal, a whole round, and a clean exit.

Seed 1: the first chance is a speed play on Y4. Seed 18: the person plays a
Point Taken on their second turn and a Wild Drawn Together later in round 1.
"""

import re
import time

import pyte
import pytest

from engine.uno.card_style import SYMBOLS
from tests.test_play_screen import Terminal


def hand_codes(lines):
    """The codes of the newest "Your hand:" line (on a terminal each card is
    "<symbol><code> <words>", the cards apart by ", ")."""
    line = [line for line in lines if line.startswith("Your hand: ")][-1]
    cards = line.removeprefix("Your hand: ").split(", ")
    return [card.split()[0].lstrip("".join(SYMBOLS.values())) for card in cards]


pytestmark = pytest.mark.slow


@pytest.fixture
def party():
    terminals = []

    def start(*args):
        terminal = Terminal(pyte.HistoryScreen, "play", "--variant", "party", *args)
        terminals.append(terminal)
        return terminal

    yield start
    for terminal in terminals:
        terminal.close()


def test_a_speed_play_out_of_turn_wrong_then_right(party):
    terminal = party("--seed", "1")
    terminal.wait_for_prompt("Out of turn (number or action; Enter: pass):")
    lines = terminal.lines()
    assert (
        "Speed play! The top card is Y4 and you hold Y4: you may play it now, out of turn "
        "before bot6 plays." in lines
    )
    assert hand_codes(lines) == ["R5", "R9", "Y4", "Y5", "G8", "B0", "BS"]
    terminal.answer("G7")
    terminal.wait_for_prompt("Out of turn")
    assert "You hold no G7: type a card of your hand, or Enter to pass." in terminal.lines()
    terminal.answer("R5")
    terminal.wait_for_prompt("R5 is not Y4: a wrong speed play; you keep it and draw 1.")
    terminal.answer("y")
    terminal.wait_for_prompt("Out of turn")  # the window is still open: Y4 is offered again
    lines = terminal.lines()
    wrong = [line for line in lines if line.startswith("You speed-play R5 on Y4")]
    assert wrong == ["You speed-play R5 on Y4: not the same card; you take it back and draw 1."]
    terminal.answer("1")
    terminal.wait_for_prompt("Your choice")
    right = [line for line in terminal.lines() if line.startswith("You speed-play Y4")]
    assert len(right) == 1 and re.fullmatch(
        r"You speed-play Y4 out of turn; \S+ plays next\.", right[0]
    )
    terminal.child.sendintr()
    assert terminal.wait_for_end() == 130
    assert "Interrupted: the game is abandoned." in terminal.lines()


def next_prompt(terminal, timeout: float = 20) -> str:
    """The next question the game asks, once it waits at it: a line with text
    and the cursor after it, unchanged for a moment. (Waiting for any prompt
    with ``wait_for_prompt("")`` would also match the blank line under output
    still being written, and an Enter typed there would answer a later prompt.)"""
    deadline = time.monotonic() + timeout
    while True:
        line = terminal.prompt().rstrip()
        if line and terminal.screen.cursor.x >= len(line):
            terminal._pump(0.1)
            if terminal.prompt().rstrip() == line and terminal.screen.cursor.x >= len(line):
                return line
        if terminal.ended or time.monotonic() > deadline:
            raise AssertionError(f"no prompt; the terminal shows:\n{terminal.text()}")
        terminal._pump(0.05)


def test_point_taken_then_a_whole_round_then_quit(party):
    terminal = party("--seed", "18")
    terminal.wait_for_prompt("Your choice")
    assert "Party! · speed window open on B8" in terminal.lines()
    assert hand_codes(terminal.lines()) == ["R2", "R7", "GP", "B9", "BR", "WT", "WT"]
    terminal.answer("B9")
    terminal.wait_for_prompt("Your choice")
    terminal.answer("gp")
    terminal.wait_for_prompt("Point at (number or name):")
    lines = terminal.lines()
    said = (
        "Point at someone (your Point Taken): everyone points at once; your choice is hidden "
        "until all are in. Each player then draws 1 card"
    )
    assert [line for line in lines if line.startswith(said)]
    assert "Party! · nobody has pointed yet" in lines
    assert "   2. point bot2  point at bot2 (3 cards)" in lines
    terminal.answer("you")
    terminal.wait_for_prompt("Point at")
    assert "You cannot point at yourself: choose another player." in terminal.lines()
    terminal.answer("bot5")
    prompts = 0
    while True:  # the rest of the round: the first choice each time, Enter out of turn
        prompt = next_prompt(terminal)
        if prompt.startswith("Press Enter to deal round 2"):
            break
        prompts += 1
        assert prompts < 200, terminal.text()
        if prompt.startswith("Colour"):
            terminal.answer("g")
        elif prompt.startswith("Link whom"):
            terminal.answer("2 3")
        elif prompt.startswith(("Your choice", "Point at")):
            terminal.answer("1")
        else:
            terminal.answer("")
    lines = terminal.lines()
    reveal = [line for line in lines if line.startswith("Everyone points: you at bot5, ")]
    assert len(reveal) == 1
    hidden = [line for line in lines if line == "bot1 points (whom stays hidden)."]
    assert hidden
    assert "You link bot1 and bot2: when one draws, the other draws as many." in lines
    assert [line for line in lines if line.startswith("Round 1 won by ")]
    terminal.answer("quit")
    terminal.wait_for_prompt("Quit the game?")
    terminal.answer("y")
    assert terminal.wait_for_end() == 0
    assert "The game is stopped: the table quit. The scores so far:" in terminal.lines()
