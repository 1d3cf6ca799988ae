"""``showdown play`` as the people at the shared screen see it: the command runs in a
pseudo-terminal (pexpect) and its output is rendered by a terminal emulator (pyte)
that keeps the scrollback, so a test can read everything a person could scroll
back to. Two terminals: one without an alternate screen (pyte's own), one with
(xterm's mode 1049, emulated below).

The game: seed 1, Ann, Bob and a heuristic bot, target 50, the simulated unit.
Ann plays R2!1 at Bob, who loses the showdown and takes a card.
"""

import copy
import os
import re
import signal
import sys
import time
from pathlib import Path

import pexpect
import pyte
import pytest

from engine.uno.card_style import SYMBOLS

pytestmark = pytest.mark.slow

SHOWDOWN = str(Path(sys.executable).with_name("showdown"))
ARGS = ["play", "--players", "Ann,Bob,bot", "--seed", "1", "--target", "50"]
COLUMNS, ROWS = 160, 12  # few rows: a hand scrolls into the history


class AlternateScreen(pyte.HistoryScreen):
    """A terminal with xterm's alternate screen (private mode 1049): what is drawn
    there never scrolls into the history, and leaving it restores the normal
    screen as it was."""

    _MODE = 1049

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._saved = None

    def set_mode(self, *modes, **kwargs):
        if kwargs.get("private") and self._MODE in modes and self._saved is None:
            self._saved = (copy.deepcopy(self.buffer), copy.copy(self.cursor))
            pyte.Screen.erase_in_display(self, 2)
        super().set_mode(*modes, **kwargs)

    def reset_mode(self, *modes, **kwargs):
        if kwargs.get("private") and self._MODE in modes and self._saved is not None:
            self.buffer, self.cursor = self._saved
            self._saved = None
            self.dirty.update(range(self.lines))
        super().reset_mode(*modes, **kwargs)

    def index(self):
        if self._saved is not None:  # on the alternate screen: no history
            pyte.Screen.index(self)
        else:
            super().index()


def ctrl_c_as_at_a_terminal() -> None:
    """Ctrl-C interrupts the child, as it does a command typed at a terminal, even
    when the tests were started in the background (``make test &``), which leaves
    SIGINT ignored for every process started from it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """``showdown`` in a pseudo-terminal, rendered as a person sees it."""

    def __init__(self, screen_class, *args):
        self.screen = screen_class(COLUMNS, ROWS, history=10_000)
        self.stream = pyte.ByteStream(self.screen)
        env = {**os.environ, "TERM": "xterm", "COLUMNS": str(COLUMNS), "LINES": str(ROWS)}
        self.child = pexpect.spawn(
            SHOWDOWN,
            list(args),
            dimensions=(ROWS, COLUMNS),
            env=env,
            preexec_fn=ctrl_c_as_at_a_terminal,
        )
        self.ended = False
        self.line_feeds = 0  # every "\n" the program wrote, its echo of an Enter included

    def close(self):
        self.child.close(force=True)

    def _pump(self, timeout):
        try:
            data = self.child.read_nonblocking(65536, timeout)
        except pexpect.TIMEOUT:
            return
        except pexpect.EOF:
            self.ended = True
            return
        self.line_feeds += data.count(b"\n")
        self.stream.feed(data)

    def lines(self):
        """Every line a person can see or scroll to: the scrollback, then the screen."""

        def row(line):
            return "".join(line[x].data for x in range(self.screen.columns)).rstrip()

        history = self.screen.history
        return (
            [row(line) for line in history.top]
            + [line.rstrip() for line in self.screen.display]
            + [row(line) for line in history.bottom]
        )

    def text(self):
        return "\n".join(self.lines())

    def prompt(self):
        return self.screen.display[self.screen.cursor.y]

    def wait_for_prompt(self, start, timeout=20):
        """Wait until the program waits for an answer at a prompt starting ``start``."""
        deadline = time.monotonic() + timeout
        while not (
            self.prompt().startswith(start) and self.screen.cursor.x >= len(self.prompt().rstrip())
        ):
            if self.ended or time.monotonic() > deadline:
                raise AssertionError(f"no prompt {start!r}; the terminal shows:\n{self.text()}")
            self._pump(0.1)
        self._pump(0.05)  # anything after the prompt would be a bug: let it show

    def answer(self, text, timeout=20):
        """Type ``text`` and Enter, and wait until the terminal has taken the
        Enter (the cursor left the prompt's line), so the next wait_for_prompt
        cannot match the prompt just answered."""
        # The line feed the Enter's echo makes, not the prompt's text: a menu
        # asked again ("There is no choice 2") shows the same prompt on the
        # next line, and waiting for other text there waited out the timeout.
        fed = self.line_feeds
        self.child.send(text + "\r")
        deadline = time.monotonic() + timeout
        while self.line_feeds == fed:
            if self.ended or time.monotonic() > deadline:
                break
            self._pump(0.05)

    def wait_for_end(self, timeout=20):
        deadline = time.monotonic() + timeout
        while not self.ended:
            if time.monotonic() > deadline:
                raise AssertionError(f"still running; the terminal shows:\n{self.text()}")
            self._pump(0.1)
        self.child.close()
        return self.child.exitstatus


@pytest.fixture(params=[pyte.HistoryScreen, AlternateScreen], ids=["plain", "alternate"])
def terminal(request):
    terminal = Terminal(request.param, *ARGS)
    yield terminal
    terminal.close()


def hand_of(terminal, name):
    lines = [line for line in terminal.lines() if line.startswith(f"{name}, your hand: ")]
    assert len(lines) == 1, lines
    # on a terminal each card is "<symbol><code> <words>", the cards apart by ", "
    cards = lines[0].split(": ", 1)[1].split(", ")
    return [card.split()[0].lstrip("".join(SYMBOLS.values())) for card in cards]


def test_after_the_screen_passes_to_bob_nothing_of_anns_hand_is_left(terminal):
    terminal.wait_for_prompt("Pass the screen to Ann; Ann, press Enter")
    assert (
        "Seed 1. To play this game again: showdown play --players Ann,Bob,bot --seed 1 "
        "--target 50" in terminal.lines()
    )
    terminal.answer("")
    terminal.wait_for_prompt("Your choice")
    ann = hand_of(terminal, "Ann")
    assert ann == ["R2!1", "R4!2", "R+2", "Y4!2", "G1", "GS", "B8"]
    terminal.answer("1")  # R2!1: a showdown against Bob, who loses it

    terminal.wait_for_prompt("Pass the screen to Bob; Bob, press Enter")
    text = terminal.text()
    assert "your hand:" not in text and "Your choice" not in text
    for card in ann:
        assert not re.search(rf"(?<!\S){re.escape(card)}(?!\S)", text), (card, text)
    assert text.strip() == "Pass the screen to Bob; Bob, press Enter"

    terminal.answer("")
    terminal.wait_for_prompt("Your choice")
    lines = terminal.lines()
    assert not [line for line in lines if line.startswith("Ann, your hand")]
    assert (
        "  Showdown (R2!1): Ann vs you for 1 card. Ann wins: Ann 305.8 ms, you 329.4 ms, "
        "margin 23.6 ms. You take 1 card." in lines
    )
    assert "  (your new card: ■G3 green 3)" in lines  # on a terminal: symbol, code, words
    assert hand_of(terminal, "Bob") == ["R8", "Y2", "Y5", "Y6", "G1", "G3", "B3", "WS"]


def test_help_explains_the_cards_and_quit_confirms_then_shows_the_scores(terminal):
    terminal.wait_for_prompt("Pass the screen to Ann")
    terminal.answer("help")
    terminal.wait_for_prompt("Pass the screen to Ann")
    lines = terminal.lines()
    assert "  R7!2    a Showdown symbol: playing it starts a showdown for 2 cards with the " in (
        "\n".join(lines)
    )
    assert (
        "  W+4     Wild Draw Four: name the colour; the next player draws 4, or challenges it"
        in (lines)
    )
    terminal.answer("")
    terminal.wait_for_prompt("Your choice")
    terminal.answer("quit")
    terminal.wait_for_prompt("Quit the game? Type y to quit, Enter to go on:")
    terminal.answer("")
    terminal.wait_for_prompt("Your choice")
    assert "The game goes on." in terminal.lines()
    terminal.answer("quit")
    terminal.wait_for_prompt("Quit the game?")
    terminal.answer("y")
    assert terminal.wait_for_end() == 0
    lines = terminal.lines()
    assert not [line for line in lines if "your hand:" in line]  # the private screen is wiped
    end = lines.index("The game is stopped: the table quit. The scores so far:")
    assert lines[end + 1 : end + 6] == [
        "Round 1; 50 points win the match.",
        "  Ann      0 points  7 cards in hand",
        "  Bob      0 points  7 cards in hand",
        "  bot2     0 points  6 cards in hand",
        "Seed 1. To play this game again: showdown play --players Ann,Bob,bot --seed 1 --target 50",
    ]


def test_ctrl_c_while_a_hand_shows_leaves_no_trace_of_it(terminal):
    terminal.wait_for_prompt("Pass the screen to Ann")
    terminal.answer("")
    terminal.wait_for_prompt("Your choice")
    terminal.child.sendintr()
    assert terminal.wait_for_end() == 130
    text = terminal.text()
    assert "your hand:" not in text and "R4!2" not in text
    assert "Interrupted: the game is abandoned." in text
