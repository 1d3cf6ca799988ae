"""``showdown play`` in a pseudo-terminal: what the private screen showed after a
person's last answer is not lost when it is wiped (issue 22).

Seed 2207285897, Ann, Bob and a heuristic bot. Answering every menu with its
first choice, Ann plays a showdown card at Bob in round 1 and loses it: the
verdict is printed on her screen just before it passes to Bob. Answering with
the second choice (the first when there is one), bot2 goes out in round 1
while a person's hand is on the screen. 10 Point Pitch shares the screen's
code: the trick that ends a hand is on the screen with the hand's score.
"""

import re

import pyte
import pytest

from tests.test_party_play_pty import next_prompt
from tests.test_pitch_terminal_pty import answer as pitch_answer
from tests.test_play_screen import Terminal

pytestmark = pytest.mark.slow

ARGS = ["play", "--players", "Ann,Bob,bot", "--seed", "2207285897"]
# Ann's own showdown at Bob, lost: told to her as "you vs Bob ... You take 1 card."
ANNS_LOSS = re.compile(r"^Showdown \(.*\): you vs Bob for 1 card\. .*You take 1 card\.$")
# The same showdown in Bob's recap (his screen is not wiped before he reads it).
BOBS_WIN = re.compile(r"^  Showdown \(.*\): Ann vs you for 1 card\. .*Ann takes 1 card\.$")


@pytest.fixture
def terminal():
    terminal = Terminal(pyte.HistoryScreen, *ARGS)
    yield terminal
    terminal.close()


def answer_for(prompt: str, choice: str) -> str:
    if prompt.startswith("Your choice"):
        return choice
    if prompt.startswith("Colour"):
        return "r"
    if prompt.startswith("How many"):
        return "1"
    return ""  # Enter: passing the screen


def test_ann_sees_the_verdict_of_her_own_showdown_in_her_next_recap(terminal):
    printed = False  # the verdict was printed on Ann's screen, then wiped as it passed to Bob
    for _ in range(200):
        prompt = next_prompt(terminal)
        lines = terminal.lines()
        if (
            printed
            and prompt.startswith("Your choice")
            and any(line.startswith("Ann, your hand:") for line in lines)
        ):
            break
        printed = printed or any(BOBS_WIN.match(line) for line in lines)
        assert not prompt.startswith("Press Enter to deal"), terminal.text()
        terminal.answer(answer_for(prompt, "1"))
    else:
        raise AssertionError(terminal.text())
    recap = lines[lines.index("Since your last turn:") :]
    assert [line for line in recap if ANNS_LOSS.match(line.removeprefix("  "))], lines
    assert not [line for line in lines if line.startswith("Bob, your hand:")]


def test_the_play_that_ends_the_round_is_on_the_screen_before_the_scores(terminal):
    for _ in range(400):
        prompt = next_prompt(terminal)
        if prompt.startswith("Press Enter to deal round 2"):
            break
        above = terminal.screen.display[terminal.screen.cursor.y - 1]
        choice = "1" if above.startswith("There is no choice 2") else "2"  # a menu of one
        terminal.answer(answer_for(prompt, choice))
    else:
        raise AssertionError(terminal.text())
    lines = terminal.lines()
    won = [i for i, line in enumerate(lines) if line.startswith("Round 1 won by bot2")]
    assert len(won) == 1, lines
    assert re.fullmatch(r"bot2 plays .+, going out\.", lines[won[0] - 1]), lines
    assert not [line for line in lines if "your hand:" in line]  # the private screen is wiped


def test_pitch_the_last_trick_is_on_the_screen_before_the_hands_score():
    # Seed 11, Ann and Bob with two bots, passing every bid and playing the first card:
    # bot3 takes the hand's last trick while Bob's hand is on the screen.
    terminal = Terminal(
        pyte.HistoryScreen,
        "play",
        "--variant",
        "pitch",
        "--players",
        "Ann,Bob,bot,bot",
        "--seed",
        "11",
    )
    try:
        for _ in range(100):
            prompt = next_prompt(terminal)
            if prompt.startswith("Press Enter to deal hand 2"):
                break
            pitch_answer(
                terminal, "pass" if prompt.startswith("Your bid") else answer_for(prompt, "1")
            )
        else:
            raise AssertionError(terminal.text())
        lines = terminal.lines()
        scored = [i for i, line in enumerate(lines) if line.startswith("Hand 1: ")]
        assert len(scored) == 1, lines
        assert re.match(r"bot3 takes the trick \(1 point\): ", lines[scored[0] - 1]), lines
        assert not [line for line in lines if "your hand:" in line]
    finally:
        terminal.close()
