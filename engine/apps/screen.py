"""The screen the people of ``showdown play`` share: who sits at it, what they see.

A hand is private. Before a person sees theirs, the game asks the table to
pass the screen ("Pass the screen to Bob; Bob, press Enter") with nothing
private on it; then the person's turn runs on a *private screen*: a recap of
everything since their last turn, their new cards, the table, their hand and
the menu. When someone else needs the screen (their turn, a showdown the table
fights at the unit, the round's end), the private screen is wiped, screen and
scrollback, and the public one comes back. With one person at the table there
is nobody to hide from: no passing, no private screen, no recap (they saw it
all happen).

A person has read what the screen showed when they answer a prompt at it, not
before: what comes after their last answer (their showdown's verdict, the bots'
plays, their new cards) is wiped unread when the screen passes on, so it is in
their next recap; at the round's end, the public screen tells it first (the
play that ends the round, say), in the table's words. Only a person's own
choice, echoed right after they made it, counts as read.

On a terminal (``terminal_control``) the private screen is the terminal's
alternate screen, which keeps no scrollback; leaving it clears it, then
clears the normal screen and its scrollback too (``ESC[2J``, ``ESC[3J``,
``ESC[H``), so a terminal without an alternate screen keeps no trace either.

Every prompt (``SharedScreen.ask``) takes the commands: ``?`` or ``help``,
``scores``, ``hand``, ``quit`` (asks to confirm, then raises :class:`QuitGame`).
"""

from __future__ import annotations

import re
import shutil
import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from engine.apps.recap import scoreboard
from engine.match import MatchEvent
from firmware_host.people.words import noun

__all__ = [
    "SharedScreen",
    "QuitGame",
    "terminal_control",
    "wrap_help",
    "COMMANDS",
    "COMMANDS_HELP",
    "ENTER_PRIVATE",
    "LEAVE_PRIVATE",
]

#: The alternate screen, cleared, cursor home.
ENTER_PRIVATE = "\033[?1049h\033[2J\033[H"
#: Clear it and its scrollback, leave it, then clear the normal screen and its
#: scrollback too (for a terminal that has no alternate screen).
LEAVE_PRIVATE = "\033[2J\033[3J\033[H\033[?1049l\033[2J\033[3J\033[H"

#: The words every prompt takes besides its own answers.
COMMANDS = ("?", "help", "scores", "hand", "quit")

#: What ``help`` says first at every game: the commands every prompt takes.
COMMANDS_HELP = (
    "Commands at any prompt: ? or help (this), scores, hand (your hand, once you "
    "are at the screen), quit (asks first).",
)

_KEY = re.compile(r"^( +\S.*?  +)(?=\S)")


def wrap_help(line: str, width: int) -> list[str]:
    """A help line folded to ``width``, its text under its text, not under its key.

    >>> wrap_help("  R5 uno  play it and call UNO (do, when it leaves you one card)", 40)
    ['  R5 uno  play it and call UNO (do, when', '          it leaves you one card)']
    >>> wrap_help("Cards: a colour letter and a rank:", 40)
    ['Cards: a colour letter and a rank:']
    """
    key = _KEY.match(line)
    indent = " " * len(key.group(1)) if key else "  "
    return textwrap.wrap(line, max(width, 40), subsequent_indent=indent) or [""]


class QuitGame(Exception):
    """The table chose ``quit`` and confirmed it."""


def terminal_control(out: TextIO) -> Callable[[str], None]:
    """A ``control_fn`` for a real terminal: ``"private"`` enters the private
    screen, ``"public"`` wipes it and goes back (see the module docstring)."""

    def control(what: str) -> None:
        out.write(ENTER_PRIVATE if what == "private" else LEAVE_PRIVATE)
        out.flush()

    return control


class SharedScreen:
    """The screen the people share (the *table* is the people at the unit:
    :class:`engine.units.remote.Table`).

    Who sits at the screen, the wipes and the recaps are here, the same for every
    game; each family's terminal game (engine.apps.play.TerminalGame) subclasses it
    and says what its game shows in the hooks: ``event_line`` and ``status`` (which
    it must write), ``HELP_LINES``, ``card_key``, ``cards_text``, ``hand_line``,
    ``show_scores``, ``show_round_end`` and ``show_final_scores``
    (engine.uno.terminal.screen, engine.pitch.terminal.screen).

    ``people`` are the seats of people (the rest are bots); ``control_fn(what)``
    switches to the ``"private"`` screen and back to the ``"public"`` one
    (None: the output is not a terminal). ``told``: the unit port tells the
    table each verdict itself (a real unit), so the showdown's event is not
    told again as it happens (a recap still tells it). ``unit_help``: lines
    that ``help`` adds about the unit's own answers, ``rules_help`` about the
    variant's own cards (UNO Party!'s). ``replay``: the command
    that plays this game again.
    """

    def __init__(
        self,
        game: Any,  # the family's game (the subclass's own)
        names: Sequence[str],
        people: Sequence[int],
        input_fn: Callable[[str], str] | None,
        print_fn: Callable[[str], None],
        control_fn: Callable[[str], None] | None = None,
        *,
        told: bool = False,
        unit_help: Sequence[str] = (),
        rules_help: Sequence[str] = (),
        replay: str = "",
    ):
        self.game = game
        self.names = list(names)
        self.people = list(people)
        self.input_fn = input_fn
        self.print_fn = print_fn
        self.control_fn = control_fn
        self.told = told
        self.unit_help = list(unit_help)
        self.rules_help = list(rules_help)
        self.replay = replay
        self.solo = len(self.people) == 1
        # With one person at the table there is nobody to hide the hand from.
        self.at_screen: int | None = self.people[0] if self.solo else None
        self.private = False
        self.events: list[MatchEvent] = []
        self._round_start = 0  # index in events of the current round's start
        # Events each person has read: those on the screen when they last answered at it.
        self._seen = dict.fromkeys(self.people, 0)
        # What each person has read of their hand: nothing is news at the start.
        self._known = {p: Counter(game.hand(p)) for p in self.people}
        # The hand as the private screen now shows it (its "new cards" are told against it).
        self._shown: Counter = Counter()
        self._echo_due = False  # the next event may be the seated person's choice, echoed

    # -- prompts and commands ---------------------------------------------------

    def ask(self, prompt: str) -> str:
        """Ask ``prompt``; the commands are answered here, and the prompt asked again."""
        if self.input_fn is None:  # input_fn=None is for bots only: nobody to ask
            raise TypeError("this screen has no input_fn to ask with")
        while True:
            answer = self.input_fn(prompt).strip()
            self._read()
            command = answer.casefold()
            if command not in COMMANDS:
                return answer
            if command in ("?", "help"):
                self.show_help()
            elif command == "scores":
                self.show_scores()
            elif command == "hand":
                self.show_hand()
            else:
                self.confirm_quit()

    #: What ``help`` says first: the commands, then the family's cards and actions.
    HELP_LINES: Sequence[str] = COMMANDS_HELP

    def event_line(self, event: MatchEvent, player: int | None) -> str:
        """``event`` in words, told to ``player`` (None: to the table)."""
        raise NotImplementedError("each family's screen tells its own events")

    def card_key(self, card: Any) -> Any:
        """The key that sorts a hand's cards as the hand shows them."""
        return str(card)

    def cards_text(self, cards: Sequence[Any]) -> str:
        """Some cards, as the screen writes them (in a hand's order)."""
        return " ".join(map(str, cards))

    def show_help(self) -> None:
        width = min(shutil.get_terminal_size().columns, 100)
        for line in (*self.HELP_LINES, *self.rules_help, *self.unit_help):
            for part in wrap_help(line, width):
                self.print_fn(part)

    def show_scores(self) -> None:
        game = self.game
        self.print_fn(f"Round {game.round}; {game.target} points win the match.")
        sizes = None if game.round_over else game.hand_sizes
        for line in scoreboard(self.names, game.scores, sizes):
            self.print_fn(line)
        if self.replay:
            self.print_fn(self.replay)

    def show_hand(self) -> None:
        player = self.at_screen
        if player is None:
            self.print_fn(
                "No hand is shown now: each player sees their own once the screen is "
                "passed to them."
            )
            return
        self.print_fn(self.hand_line(player))

    def confirm_quit(self) -> None:
        assert self.input_fn is not None  # ask has one
        answer = self.input_fn("Quit the game? Type y to quit, Enter to go on: ").strip()
        if answer.casefold() in ("y", "yes"):
            raise QuitGame
        self.print_fn("The game goes on.")

    # -- who sits at the screen -----------------------------------------------------

    def seat(self, player: int) -> None:
        """Make ``player`` the one at the screen: wipe the last hand, have the
        screen passed, then tell them what happened since their last turn."""
        if self.at_screen == player:
            return
        self.unseat()
        name = self.names[player]
        self.ask(f"Pass the screen to {name}; {name}, press Enter ")
        if self.control_fn is not None:
            self.control_fn("private")
        self.private = True
        self.at_screen = player
        self._shown = self._known[player]
        self._recap(player)
        self.show_new_cards()

    def unseat(self) -> None:
        """Wipe the private screen (screen and scrollback) and go back to the public one.
        What its person had not read yet stays for their next recap."""
        if self.private:
            if self.control_fn is not None:
                self.control_fn("public")
            self.private = False
        if self.at_screen is not None and not self.solo:
            self.at_screen = None

    def _read(self) -> None:
        """The person at the screen answered: they have read all it shows."""
        player = self.at_screen
        if player is None:
            return
        self._seen[player] = len(self.events)
        self._known[player] = self._shown = Counter(self.game.hand(player))
        self._echo_due = True

    def _unread(self) -> list[MatchEvent]:
        """The events the private screen shows that its person has not read
        (their own choice, echoed as they made it, aside)."""
        player = self.at_screen
        if not self.private or player is None or self.solo:
            return []
        return self.events[max(self._seen[player], self._round_start) :]

    def _recap(self, player: int) -> None:
        start = max(self._seen[player], self._round_start)
        lines = [self.event_line(e, player) for e in self.events[start:]]
        self._seen[player] = len(self.events)
        if lines:
            self.print_fn("Since your last turn:" if start > self._round_start else "So far:")
            for line in lines:
                self.print_fn(f"  {line}")

    def show_new_cards(self) -> None:
        """Tell the person at the screen which cards joined their hand since they last looked."""
        player = self.at_screen
        if player is None:
            return
        hand = Counter(self.game.hand(player))
        new = hand - self._shown
        self._shown = hand
        if new:
            cards = sorted(new.elements(), key=self.card_key)
            self.print_fn(f"  (your new {noun(len(cards), 'card')}: {self.cards_text(cards)})")

    # -- the match as it happens ---------------------------------------------------

    def on_event(self, event: MatchEvent) -> None:
        """The driver's log: tell the event to whoever is at the screen."""
        unread = self._unread()
        self.events.append(event)
        kind = event.kind
        seated = self.at_screen
        if self._echo_due and seated is not None and event.data.get("player") == seated:
            self._seen[seated] = len(self.events)  # their own choice: they know it
        self._echo_due = False
        if kind == "round_start":
            self._round_start = len(self.events) - 1
            if not self.solo:
                self.unseat()
            for p in self.people:  # the new hands: nothing in them is news
                self._known[p] = Counter(self.game.hand(p))
            if self.at_screen is not None:
                self._shown = self._known[self.at_screen]
        elif kind in ("round_end", "match_end"):
            self.unseat()
            for earlier in unread:  # wiped unread: the table is told before the scores
                self.print_fn(self.event_line(earlier, None))
        if kind == "match_end":
            self.show_final_scores(event)
            return
        if not (kind == "showdown" and self.told):
            self.print_fn(self.event_line(event, self.at_screen))
        if kind == "match_start" and self.replay:
            self.print_fn(self.replay)
        if kind == "round_end":
            self.show_round_end()
            if self.people and self.game.match_winner is None:
                self.ask(self.deal_prompt())
        elif kind not in ("match_start", "round_start"):
            self.show_new_cards()

    def deal_prompt(self) -> str:
        """What the people are asked between rounds."""
        return f"Press Enter to deal round {self.game.round + 1} "

    def show_final_scores(self, event: MatchEvent) -> None:
        """The match is won (``event``: its match_end): the final scores, the replay, the winner."""
        self.print_fn("Final scores:")
        for line in scoreboard(self.names, event.data["scores"]):
            self.print_fn(line)
        if self.replay:
            self.print_fn(self.replay)
        self.print_fn(self.event_line(event, None))

    def show_round_end(self) -> None:
        """The round is scored: what is left to show of it (nothing, unless the family says)."""

    # -- the seated player's view --------------------------------------------------

    def hand_line(self, player: int) -> str:
        hand = self.cards_text(sorted(self.game.hand(player), key=self.card_key))
        name = self.names[player]
        return f"Your hand: {hand}" if name.casefold() == "you" else f"{name}, your hand: {hand}"

    def status(self, player: int) -> None:
        """The table as ``player`` sees it at their turn, then their hand; the hand
        shown counts as read (``self._known[player]``)."""
        raise NotImplementedError("each family's screen shows its own table")
