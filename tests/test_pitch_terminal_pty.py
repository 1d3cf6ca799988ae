"""``showdown play --variant pitch`` in a pseudo-terminal, as people see it (pexpect and
pyte, with the scrollback: tests/test_play_screen.py's Terminal).

One person and three bots play a whole match to its end: every card the terminal ever
shows is the person's own (their hand, their new cards) or was played or burned before;
the same game replayed in-process with the same answers, each line checked against the
cards hidden as it was printed, leaks nothing either, and shows the same lines. Two people
and two bots: whenever the screen is passed, no hand is left on it or in its scrollback.
"""

import re
import time

import pexpect
import pyte
import pytest

from tests.test_party_play_pty import next_prompt
from tests.test_pitch_terminal import CARD, GENERIC, Script, play
from tests.test_play_screen import AlternateScreen, Terminal

pytestmark = pytest.mark.slow

SEED = 11
OWN = re.compile(r"^(?:Your hand: |\s+\(your new cards?: |\s+\d+\. )")
MADE_PUBLIC = re.compile(r"^\s*\S+ (?:plays?|burns?) the [\w ]+ \((\w\w)\)\.$")


def answer(terminal, text, timeout=20):
    """Type ``text`` and Enter, and wait until the terminal has echoed the Enter (a new
    line): the next prompt is then a new one, even when it reads the same as this one
    and the screen scrolled it onto the same row."""
    terminal.child.send(text + "\r")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = terminal.child.read_nonblocking(65536, 0.05)
        except pexpect.TIMEOUT:
            continue
        except pexpect.EOF:
            terminal.ended = True
            return
        terminal.stream.feed(data)
        if b"\n" in data:
            return
    raise AssertionError(f"{text!r} was not taken; the terminal shows:\n{terminal.text()}")


def answer_for(prompt):
    if prompt.startswith("Your bid"):
        return "pass"
    if prompt.startswith("Your choice"):
        return "1"
    return ""


def unseen_cards(lines):
    """The cards each line shows that the person had not seen and nobody had played."""
    own, public, unseen = set(), set(), []
    for line in lines:
        cards = set(CARD.findall(GENERIC.sub("", line)))
        if OWN.match(line):
            own |= cards
        made = MADE_PUBLIC.match(line)
        if made:
            public.add(made.group(1))
        unseen += [(line, card) for card in sorted(cards - own - public)]
    return unseen


def test_one_person_and_three_bots_play_a_whole_match_and_no_hidden_card_shows():
    terminal = Terminal(pyte.HistoryScreen, "play", "--variant", "pitch", "--seed", str(SEED))
    answers = []
    try:
        while True:
            try:
                prompt = next_prompt(terminal)
            except AssertionError:
                if terminal.ended:
                    break
                raise
            assert len(answers) < 400, terminal.text()
            reply = answer_for(prompt)
            answers.append(reply)
            answer(terminal, reply)
        assert terminal.wait_for_end() == 0
        lines = terminal.lines()
    finally:
        terminal.close()
    assert lines[0] == "Match: 10 Point Pitch to 52, You and bot2 against bot1 and bot3."
    assert re.fullmatch(
        r"(You and bot2|bot1 and bot3) win the match, -?\d+ to "
        r"-?\d+\.",
        [line for line in lines if line][-1],
    )
    assert "Final scores:" in lines
    assert not [line for line in lines if re.match(r"bot\d, your hand", line)]
    assert unseen_cards(lines) == []

    script = Script(*(("", reply) for reply in answers))
    assert play("You,bot,bot,bot", script, seed=SEED) == 0
    assert script.leaks == []
    shown = set(lines)
    told = [line for line in script.lines if len(line) < 150 and not line.endswith(": ")]
    assert [line for line in told if line.rstrip() not in shown] == []


def test_two_people_pass_the_screen_and_no_hand_is_left_on_it():
    for screen in (pyte.HistoryScreen, AlternateScreen):
        terminal = Terminal(
            screen, "play", "--variant", "pitch", "--players", "Ann,bot,Bob,bot", "--seed", "3"
        )
        passes = 0
        try:
            while passes < 6:
                prompt = next_prompt(terminal)
                if prompt.startswith("Pass the screen to"):
                    passes += 1
                    hands = [line for line in terminal.lines() if ", your hand:" in line]
                    assert hands == [], (screen, hands)
                answer(terminal, answer_for(prompt))
            next_prompt(terminal)
            answer(terminal, "quit")
            next_prompt(terminal)
            answer(terminal, "y")
            assert terminal.wait_for_end() == 0
        finally:
            terminal.close()
