"""A terminal game: people sharing one screen, with bots, through the match driver.

People are agents like the bots: ``Person.act`` has the screen passed to the
person (:class:`engine.apps.screen.SharedScreen`: the hand shown to its owner
alone, a recap of what happened since their last turn), shows the table and
their hand, lists their legal actions as a numbered menu, and reads a choice.
Input and output are the injected ``input_fn(prompt) -> str`` and
``print_fn(text)`` (and ``control_fn`` for the private screen), so a test can
play a whole match with scripted input.

UNO Party! (``variant="party"``): the person also points (Point Taken), adds to
a mini pile or takes it, names a Wild Drawn Together's colour and its two
linked players, and is asked out of turn (``Person.react``) whenever they hold
the card identical to the top discard while the speed window is open, or can
catch someone without UNO: a keyboard cannot race, so the game stops and asks
before anyone's claim is applied; the driver then settles the claims by
reaction time, a person counting as the bots' default (230 ms).

>>> lines = []
>>> status = play_game(["bot", "random"], seed=3, target=50, input_fn=None,
...                    print_fn=lines.append)
>>> status, lines[:2]
(0, ['Match: bot0, random1; showdown to 50 points.', 'Seed 3. To play this game again: \
showdown play --players bot,random --seed 3 --target 50'])
>>> lines[-1].endswith("points after 1 round.") or lines[-1].endswith("rounds.")
True
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from collections.abc import Callable, Sequence
from typing import Protocol, cast

from engine.apps.players import (
    MAX_PARTY_PLAYERS,
    MAX_PLAYERS,
    PARTY_PLAYERS,
    RESERVED_NAMES,
    bot_skill,
    parse_players,
    replay_command,
    seat_names,
)
from engine.apps.screen import PARTY_HELP, QuitGame, SharedScreen
from engine.game.errors import NotationError
from engine.game.registry import family_playing
from engine.match import Driver
from engine.units.ports import ManualUnit, ShowdownOutcome, ShowdownRequest, SimulatedUnit, UnitPort
from engine.units.remote import PauseOnProblem, RemoteUnit, UnitProblem, is_unit_url
from engine.uno import FAMILY, new_game
from engine.uno.actions import Action, ActionKind
from engine.uno.bots import Agent, PlayerView
from engine.uno.card_style import use_colour
from engine.uno.cards import COLOURS, Card, Colour, Rank
from engine.uno.game import Game, Phase
from engine.uno.labels import action_text, card_order
from engine.uno.words import card_name
from firmware_host.people.words import plural

__all__ = [
    "play_game",
    "run_at_terminal",
    "terminal_game",
    "TerminalGame",
    "parse_players",
    "bot_skill",
    "replay_command",
    "Person",
    "SharedScreen",
    "QuitGame",
    "card_name",
    "action_text",
    "UNITS",
    "RESERVED_NAMES",
    "MAX_PLAYERS",
    "MAX_PARTY_PLAYERS",
    "PARTY_PLAYERS",
]

#: The unit ports a terminal game can name; a unit's URL or device path also
#: works (``socket://HOST:PORT``, ``/dev/ttyUSB0``: see ``engine.units.remote.is_unit_url``).
UNITS = ("sim", "manual")

_COLOUR_WORDS = ("red", "yellow", "green", "blue")
_WORDS = (
    "draw",
    "keep",
    "challenge",
    "accept",
    "catch",
    "colour",
    "face",
    "loser",
    "speed",
    "point",
    "take",
)


class Person:
    """An agent for a person at the shared screen.

    UNO Party!: ``act`` also takes the person's pointing choice and their turn at
    a mini pile; ``react`` offers what they may do out of turn (a speed play of
    the identical card, a catch) and returns None when they let it pass. An
    offer let pass is not made again until the turn moves on.
    """

    def __init__(self, screen: SharedScreen, name: str):
        self.screen = screen
        self.name = name
        self._passed: tuple | None = None  # the last offer let pass

    def __repr__(self) -> str:
        return f"Person({self.name!r})"

    def act(self, game: Game, player: int) -> Action:
        screen = self.screen
        screen.seat(player)
        screen.status(player)
        if game.phase is Phase.POINT:
            return self._point(game, player)
        screen.print_fn(self._situation(game, player))
        legal = game.legal_actions()
        menu = _menu(legal, screen.names)
        self._show_menu(game, menu)
        while True:
            answer = screen.ask("Your choice (number or action; ? for help): ")
            chosen, problem = _choose(answer, menu, legal)
            if chosen is None:
                screen.print_fn(problem)
                continue
            if len(chosen) == 1:
                return chosen[0]
            return self._follow_up(chosen)

    def _show_menu(self, game, menu: list[tuple[str, list[Action]]]) -> None:
        width = max(len(label) for label, _ in menu)
        for i, (label, actions) in enumerate(menu, 1):
            words = (
                action_text(actions[0], game, self.screen.names)
                if len(actions) == 1
                else _group_text(actions[0], self.screen.names)
            )
            self.screen.print_fn(f"  {i:>2}. {label:<{max(width, 9)}}  {words}")

    def _situation(self, game: Game, player: int) -> str:
        view = PlayerView(game, player)
        phase = game.phase.value
        names = self.screen.names
        drawn = view.drawn_card  # set in the "drawn" phase
        if phase == "drawn" and drawn is not None:
            return f"You drew {drawn} ({card_name(drawn)}): play it or keep it."
        if phase == "penalty":
            offender = names[view.next_player(-1)]
            return f"{offender} played {game.top_card} at you: {game.pending_draws} cards to draw."
        if phase == "colour":
            return "The first card is a wild: name the colour."
        if phase == "face":
            return "Your Wild Showdown: choose whom to face, then how many cards."
        if phase == "pile":
            return _pile_situation(game)
        return "Your turn."

    # -- UNO Party! ----------------------------------------------------------------

    def _point(self, game, player: int) -> Action:
        """Point Taken: whom ``player`` points at (the others' choices unseen)."""
        screen = self.screen
        names = screen.names
        pointer = game.pointer
        whose = "your" if pointer == player else f"{names[pointer]}'s"
        screen.print_fn(
            f"Point at someone ({whose} Point Taken): everyone points at once; your choice is "
            "hidden until all are in. Each player then draws 1 card per player pointing at "
            "them (at most 5)."
        )
        legal = tuple(a for a in game.legal_actions(player) if a.kind is ActionKind.POINT)
        menu = _menu(legal, names)
        self._show_menu(game, menu)
        while True:
            answer = screen.ask("Point at (number or name): ")
            chosen, problem = _choose(answer, menu, legal)
            if chosen is not None:
                return chosen[0]
            target = None if answer.isdigit() else _player_named(answer, names)
            if target is not None and Action.point(target) in legal:
                return Action.point(target)
            if target == player:
                problem = "You cannot point at yourself: choose another player."
            elif target is not None:
                problem = f"{names[target]} has no cards left: choose another player."
            elif answer and not answer.isdigit():
                problem = (
                    f"{answer!r} is not a player here: type a number from 1 to {len(menu)} "
                    "or a name from the menu."
                )
            screen.print_fn(problem)

    def react(self, game, player: int) -> Action | None:
        """UNO Party!: offer the person a speed play or a catch, out of turn.

        Offered only when they hold the card identical to the top discard while
        the speed window is open, or someone else can be caught; any other card
        of theirs typed here is a wrong speed play (asked to confirm). Enter lets
        the chance pass."""
        if game.phase is Phase.POINT or game.round_over:
            return None
        legal = game.legal_actions(player)
        top = game.top_card
        offers = [
            a
            for a in legal
            if (a.kind is ActionKind.SPEED_PLAY and a.card == top) or a.kind is ActionKind.CATCH
        ]
        if not offers:
            return None
        key = (game.round, game.turns, str(top), tuple(map(str, offers)))
        if key == self._passed:
            return None
        menu = self._offer(game, player, offers)
        screen = self.screen
        while True:
            answer = screen.ask("Out of turn (number or action; Enter: pass): ")
            if not answer:
                self._passed = key
                return None
            chosen, problem = _choose(answer, menu, legal)
            if chosen is None:
                chosen, problem = self._speed_typed(answer, game, legal, problem)
            if chosen is None:
                screen.print_fn(problem)
                continue
            action = chosen[0]
            if action.kind is ActionKind.SPEED_PLAY and action.card != top:
                sure = screen.ask(
                    f"{action.card} is not {top}: a wrong speed play; you keep it and draw 1. "
                    "Type y to do it, Enter not to: "
                )
                if sure.casefold() not in ("y", "yes"):
                    screen.print_fn("No speed play made.")
                    continue
            return action

    def _offer(self, game, player: int, offers: list[Action]) -> list:
        """The person is told of their chance out of turn (a speed play, a catch);
        the menu of it."""
        screen = self.screen
        names = screen.names
        top = game.top_card
        screen.seat(player)
        screen.print_fn("")
        speed = [a for a in offers if a.kind is ActionKind.SPEED_PLAY]
        if speed:
            to_act = "" if game.to_act is None else f" before {names[game.to_act]} plays"
            screen.print_fn(
                f"Speed play! The top card is {top} and you hold {top}: you may play it now, "
                f"out of turn{to_act}."
            )
        for catch in (a for a in offers if a.kind is ActionKind.CATCH):
            who = names[cast(int, catch.player)]
            screen.print_fn(f"{who} has one card and did not call UNO: you may catch {who}.")
        screen.print_fn(screen.hand_line(player))
        menu = _menu(offers, names)
        self._show_menu(game, menu)
        wrong = (
            " Another card of yours is a wrong speed play: it comes back and you draw 1."
            if speed or game.speed_window
            else ""
        )
        screen.print_fn(f"Enter lets the chance pass.{wrong}")
        return menu

    @staticmethod
    def _speed_typed(answer: str, game, legal, problem: str) -> tuple[list[Action] | None, str]:
        """A card typed at the out-of-turn prompt (``R2``, ``R2 uno``) as its speed play."""
        words = answer.split()
        if words and words[0].casefold() == "speed":
            words = words[1:]
        if not 1 <= len(words) <= 2 or words[1:] not in ([], ["uno"], ["UNO"]):
            return None, problem
        try:
            action = Action.speed(Card.parse(words[0].upper()), uno=len(words) == 2)
        except NotationError:
            return None, problem
        if action in legal:
            return [action], ""
        if not game.speed_window:
            return None, "The speed window is closed now: Enter lets the chance pass."
        return None, f"You hold no {words[0].upper()}: type a card of your hand, or Enter to pass."

    def _follow_up(self, actions: list[Action]) -> Action:
        """Ask the colour of a wild play (and a Wild Drawn Together's link), or
        the card count of a Wild Showdown."""
        screen = self.screen
        if actions[0].kind is ActionKind.PLAY:
            choices: dict[str, list[Action]] = {}
            for a in actions:
                choices.setdefault(str(a.colour), []).append(a)
            screen.print_fn(
                "Name a colour: "
                + ", ".join(f"{i}. {_COLOUR_WORDS[c]}" for i, c in enumerate(COLOURS, 1))
            )
            while True:
                answer = screen.ask("Colour (number, letter or name): ")
                colour = _parse_colour(answer)
                if colour is not None and str(colour) in choices:
                    break
                screen.print_fn(
                    f"{answer!r} is not a colour: type 1-4, R, Y, G, B or a colour's name."
                )
            same = choices[str(colour)]
            if len(same) == 1:
                return same[0]
            return self._link(same)
        counts = {a.count: a for a in actions if a.count is not None}
        low, high = min(counts), max(counts)
        while True:
            answer = screen.ask(f"How many cards ({low}-{high})? ")
            if answer.isdigit() and int(answer) in counts:
                return counts[int(answer)]
            screen.print_fn(f"{answer!r} is not a card count: type a number from {low} to {high}.")

    def _link(self, actions: list[Action]) -> Action:
        """A Wild Drawn Together's two linked players."""
        screen = self.screen
        names = screen.names
        links = {a.link: a for a in actions if a.link is not None}
        game = screen.game
        screen.print_fn(
            "Link two players: from now on, when one of them draws, the other draws as many."
        )
        screen.print_fn(
            "  "
            + ", ".join(
                f"{i}. {name} ({plural(size, 'card')})"
                for i, (name, size) in enumerate(zip(names, game.hand_sizes, strict=True), 1)
            )
        )
        while True:
            answer = screen.ask("Link whom (two numbers or names, e.g. 2 5): ")
            words = answer.replace("+", " ").replace(",", " ").split()
            seats = [_player_named(w, names) for w in words]
            if len(seats) != 2 or None in seats:
                screen.print_fn(
                    f"{answer!r} is not two players: type two of the numbers 1-{len(names)} "
                    "or two names."
                )
                continue
            a, b = sorted(cast("list[int]", seats))
            if a == b:
                screen.print_fn("A link joins two different players: name two.")
                continue
            if (a, b) not in links:
                screen.print_fn(
                    f"{names[a]} and {names[b]} cannot be linked here: name two others."
                )
                continue
            return links[a, b]


def _pile_situation(game) -> str:
    pile = game.pile
    colour = _COLOUR_WORDS[cast(Colour, game.pile_colour)]
    cards = f"{' '.join(map(str, pile))} ({plural(len(pile), 'card')})"
    if Action.take() in game.legal_actions() and len(game.legal_actions()) == 1:
        return (
            f"Wild Pile Up: the mini pile is {colour}: {cards}. You hold no {colour} card and "
            "no wild: you take the pile."
        )
    return (
        f"Wild Pile Up: the mini pile is {colour}: {cards}. Add a {colour} card or a wild "
        "(no effects), or take the whole pile if you cannot."
    )


def _player_named(text: str, names: Sequence[str]) -> int | None:
    """The seat typed as its menu number (1-n) or its name; None if neither."""
    text = text.strip()
    if text.isdigit():
        seat = int(text) - 1
        return seat if 0 <= seat < len(names) else None
    folded = [n.casefold() for n in names]
    return folded.index(text.casefold()) if text.casefold() in folded else None


def _menu(legal, names: Sequence[str]) -> list[tuple[str, list[Action]]]:
    """Menu entries: (label, actions). A wild's colours and a Wild Showdown's
    counts are grouped into one entry, asked for afterwards. Players are named
    (``catch Bob``, ``face Bob``), never numbered."""
    entries: dict[str, list[Action]] = {}
    plays = sorted(
        (a for a in legal if a.kind is ActionKind.PLAY), key=lambda a: (card_order(a.card), a.uno)
    )
    for action in plays + [a for a in legal if a.kind is not ActionKind.PLAY]:
        if action.kind is ActionKind.PLAY and action.colour is not None:
            label = str(action.card) + (" uno" if action.uno else "")
        elif action.kind is ActionKind.CHOOSE_SHOWDOWN:
            label = f"face {names[action.player]}"
        elif action.kind is ActionKind.CATCH:
            label = f"catch {names[action.player]}"
        elif action.kind is ActionKind.POINT:
            label = f"point {names[action.player]}"
        else:
            label = str(action)
        entries.setdefault(label, []).append(action)
    return list(entries.items())


def _group_text(action: Action, names) -> str:
    if action.card is not None and action.card.rank is Rank.WILD_DRAWN_TOGETHER:
        uno = ", calling UNO" if action.uno else ""
        if action.link is None:
            return f"play Wild Drawn Together and name a colour (the link stays){uno}"
        return f"play Wild Drawn Together: name a colour, then link two players{uno}"
    if action.kind is ActionKind.PLAY and action.card is not None:
        return f"play {card_name(action.card)} and name a colour" + (
            ", calling UNO" if action.uno else ""
        )
    return f"face {names[action.player]} in a showdown (then choose the cards)"


def _choose(answer: str, menu, legal) -> tuple[list[Action] | None, str]:
    """The menu entry or legal action typed as ``answer``, or (None, why not)."""
    if answer.isdigit():
        if 1 <= int(answer) <= len(menu):
            return menu[int(answer) - 1][1], ""
        return None, f"There is no choice {answer}: type a number from 1 to {len(menu)}."
    if not answer:
        return None, f"Type a number from 1 to {len(menu)}, or an action as the menu writes it."
    typed = " ".join(answer.split()).casefold()
    for label, actions in menu:
        if typed == label.casefold():
            return actions, ""
    text = _normalise(answer)
    try:
        action = Action.parse(text)
    except NotationError:
        return None, (
            f"{answer!r} is not a choice: type a number from 1 to {len(menu)} "
            "or an action as the menu writes it (e.g. R5, draw); ? explains them."
        )
    if action in legal:
        return [action], ""
    return None, f"{text} is not legal now: choose from the menu."


def _normalise(text: str) -> str:
    """Action text in the engine's case: ``r5 UNO`` -> ``R5 uno``, ``Colour g`` -> ``colour G``."""
    words = text.split()
    if not words:
        return ""
    first = words[0].lower()
    if first in _WORDS:
        words[0] = first
        if first == "colour":
            words[1:] = [w.upper() for w in words[1:]]
        elif first == "speed":
            words[1:] = [w.upper() if i == 0 else w.lower() for i, w in enumerate(words[1:])]
        else:
            words[1:] = [w.lower() for w in words[1:]]
    else:
        words[0] = words[0].upper()
        words[1:] = [w.lower() for w in words[1:]]
    return " ".join(words)


def _parse_colour(text: str) -> Colour | None:
    text = text.strip().lower()
    if text in ("1", "2", "3", "4"):
        return COLOURS[int(text) - 1]
    for colour, word in zip(COLOURS, _COLOUR_WORDS, strict=True):
        if text in (word, word[0]):
            return colour
    return None


class _FoughtAtTheTable:
    """A unit port whose showdowns the people at the table fight and hear
    (a real unit, a manual one): the seated hand is wiped from the screen first."""

    def __init__(self, port: UnitPort, screen: SharedScreen):
        self.port = port
        self.screen = screen

    def __repr__(self) -> str:
        return repr(self.port)

    def run_showdown(self, request: ShowdownRequest) -> ShowdownOutcome:
        self.screen.unseat()
        return self.port.run_showdown(request)


class TerminalGame(Protocol):
    """A family's game at the terminal: the module its ``Family.terminal`` names
    (UNO's is this one; 10 Point Pitch's engine.pitch.terminal). ``showdown
    play`` asks it, never a family's name, what differs between games."""

    #: The points that win a match unless ``--target`` says otherwise.
    TARGET: int
    #: What ``showdown play --help`` says of the family's games.
    EPILOG: str

    def seats(self, variant: str, players: list[str] | None) -> list[str]:
        """The seats of a ``variant`` game: ``players`` (as ``parse_players``
        reads them), or the variant's own when None; ValueError saying why
        the game cannot seat them."""
        ...

    def unit_refusal(self, variant: str) -> str | None:
        """Why a ``variant`` game takes no unit (it has no showdowns), or None."""
        ...

    def play_terminal(
        self,
        players: Sequence[str],
        *,
        variant: str,
        unit: str,
        seed: int | None,
        target: int,
        input_fn: Callable[[str], str] | None,
        print_fn: Callable[[str], None],
        control_fn: Callable[[str], None] | None,
        unit_options: dict | None,
    ) -> int:
        """Play a match at the terminal (as ``play_game``); the exit status."""
        ...


def terminal_game(variant: str) -> TerminalGame:
    """The terminal game of the family that plays ``variant`` (ValueError naming
    the variants for an unknown one).

    >>> terminal_game("party").TARGET
    500
    """
    # The module satisfies the protocol (tests/test_pitch_terminal.py); the cast, as
    # import_module returns a module whose attributes mypy cannot see.
    return cast(TerminalGame, importlib.import_module(family_playing(variant).terminal))


def play_game(
    players: Sequence[str],
    *,
    variant: str = "showdown",
    unit: str = "sim",
    seed: int | None = None,
    target: int | None = None,
    input_fn: Callable[[str], str] | None = input,
    print_fn: Callable[[str], None] = print,
    control_fn: Callable[[str], None] | None = None,
    unit_options: dict | None = None,
) -> int:
    """Play a match of ``variant`` at the terminal; return the exit status.

    The family that plays ``variant`` plays it (its ``TerminalGame``), to
    ``target`` points (None: the family's ``TARGET``). ``players`` as
    ``parse_players`` returns them; the other arguments as ``play_terminal``'s.
    """
    terminal = terminal_game(variant)
    return terminal.play_terminal(
        players,
        variant=variant,
        unit=unit,
        seed=seed,
        target=terminal.TARGET if target is None else target,
        input_fn=input_fn,
        print_fn=print_fn,
        control_fn=control_fn,
        unit_options=unit_options,
    )


# -- UNO's terminal game (UnoFamily.terminal names this module) ------------------------------

#: UNO's matches go to 500 points.
TARGET = 500

#: What ``showdown play --help`` says about UNO Party! at a keyboard.
EPILOG = (
    "UNO Party! (--variant party): 224 cards, 2-16 players (6-16 is the design range); "
    "without --players you play against 7 heuristic bots. Speed play at a keyboard: "
    "there is no race to type in, so whenever you could act out of turn (you hold the "
    "card identical to the top discard while the window is open, or someone can be "
    "caught without UNO) the game stops before the next player plays and asks you first; "
    "Enter lets the chance pass, and a chance let pass is not offered again that turn. "
    "Your claim then counts as a person's: the bots' claims are settled against it by "
    "reaction time, as at a real table. Typing another card of your hand there is a "
    "wrong speed play (asked to confirm): it comes back and you draw 1. Point Taken: "
    "everyone points at once; your choice stays hidden until all are in, then every "
    "choice is shown together."
)

#: ``showdown play`` without --players: you and three bots.
DEFAULT_PLAYERS = ("You", "bot", "bot", "bot")


def seats(variant: str, players: list[str] | None) -> list[str]:
    """UNO's seats: 2-10 players, 2-16 in UNO Party! (by default you and
    three bots, in Party! you and seven).

    >>> seats("party", None)[:3], seats("classic", ["Ann", "bot"])
    (['You', 'bot', 'bot'], ['Ann', 'bot'])
    """
    party = variant == "party"
    if players is None:
        return list(PARTY_PLAYERS if party else DEFAULT_PLAYERS)
    if not party and len(players) > MAX_PLAYERS:
        raise ValueError(
            f"{len(players)} players: {variant} takes 2-{MAX_PLAYERS} "
            f"(only --variant party takes up to {MAX_PARTY_PLAYERS})"
        )
    return players


def unit_refusal(variant: str) -> str | None:
    """UNO Party! has no showdowns; classic and Showdown take a unit."""
    return "UNO Party! has no showdowns: it takes no --unit" if variant == "party" else None


def play_terminal(
    players: Sequence[str],
    *,
    variant: str = "showdown",
    unit: str = "sim",
    seed: int | None = None,
    target: int = TARGET,
    input_fn: Callable[[str], str] | None = input,
    print_fn: Callable[[str], None] = print,
    control_fn: Callable[[str], None] | None = None,
    unit_options: dict | None = None,
) -> int:
    """Play an UNO match at the terminal; return the exit status.

    ``players`` as ``parse_players`` returns them. The seed (chosen at random
    when None) is told at the start with the command that replays the game.
    0 when the match ends, when the table quits (``quit``, confirmed) or the
    input ends (EOF), 130 when interrupted (Ctrl-C); either way the game stops
    with a message, the scores and no traceback. ``control_fn`` switches the
    terminal to the private screen and back (:class:`SharedScreen`).

    ``variant`` "party" plays UNO Party! (2-16 players; no unit): people are
    also asked, out of turn, whether to speed-play or catch (``Person.react``)
    and whom to point at.

    ``unit`` may be a unit's URL or serial device: the showdowns are fought on
    that unit (``engine.units.remote.RemoteUnit``, with ``unit_options``), which tells
    the table what to load and to press the timer button; a problem with the
    unit pauses the game and asks to retry or to name who takes the cards.
    Exit status 1 if the unit cannot be used at the start.
    """
    if unit not in UNITS and not is_unit_url(unit):
        raise ValueError(f"unit must be one of {', '.join(UNITS)} or a unit's URL, not {unit!r}")
    party = variant == "party"
    if party and unit != "sim":
        raise ValueError("UNO Party! has no showdowns: it takes no unit (leave --unit out)")
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    names = seat_names(players)
    skills = [bot_skill(p) for p in players]
    people = [seat for seat, skill in enumerate(skills) if skill is None]
    game = new_game(len(players), variant, rng=rng, target=target)
    replay = replay_command(players, seed, variant=variant, target=target, unit=unit)
    screen = SharedScreen(
        game,
        names,
        people,
        input_fn,
        print_fn,
        control_fn,
        told=is_unit_url(unit),
        unit_help=ManualUnit.HELP if unit == "manual" else (),
        rules_help=PARTY_HELP if party else (),
        replay=f"Seed {seed}. To play this game again: {replay}",
        # colour when the cards are printed to a terminal, unless NO_COLOR is set
        colour=use_colour(print_fn is print and sys.stdout.isatty(), os.environ),
    )
    agents = _agents(skills, names, screen, rng)
    port, remote = _unit_port(unit, screen, print_fn, rng, unit_options)
    match = Driver(game, agents, port, names=names, log=screen.on_event)
    return run_at_terminal(match, remote, screen, print_fn)


def run_at_terminal(
    match: Driver, remote: RemoteUnit | None, screen: SharedScreen, print_fn: Callable[[str], None]
) -> int:
    """Play ``match`` to its end (or until the table quits, the input ends, or
    Ctrl-C); the exit status (0; 130 for Ctrl-C; 1 if the unit cannot be
    opened). The unit (``remote``, None for none) is opened first and closed
    after; whatever happens, no hand stays on the screen."""

    def stop(why: str) -> None:
        screen.unseat()
        print_fn("")
        print_fn(why)
        if match.events:  # the match began: its scores so far
            screen.show_scores()

    try:
        if remote is not None:
            try:
                remote.open()
            except UnitProblem as problem:
                print_fn(f"error: {problem}. {problem.what_to_do}")
                return 1
        match.run()
    except QuitGame:
        stop("The game is stopped: the table quit. The scores so far:")
    except EOFError:
        stop("Input ended: the game is abandoned.")
    except KeyboardInterrupt:
        stop("Interrupted: the game is abandoned.")
        return 130
    finally:
        screen.unseat()  # whatever went wrong, no hand stays on the screen
        if remote is not None:
            remote.close()
    return 0


def _agents(
    skills: list, names: list[str], screen: SharedScreen, rng: random.Random
) -> list[Agent]:
    """Who decides for each seat: a person at the terminal, or a bot of its skill."""
    agents: list[Agent] = []
    for seat, skill in enumerate(skills):
        if skill is None:
            agents.append(Person(screen, names[seat]))
            continue
        kind, reaction_ms = skill
        # The family's bots by kind ("bot", "random", "strong"), each as it draws from rng.
        agents.append(FAMILY.make_bot(kind, names[seat], rng, reaction_ms=reaction_ms))
    return agents


def _unit_port(
    unit: str,
    screen: SharedScreen,
    print_fn: Callable[[str], None],
    rng: random.Random,
    unit_options: dict | None,
) -> tuple[UnitPort, RemoteUnit | None]:
    """The port the showdowns are fought on, and the RemoteUnit when it is one."""
    if is_unit_url(unit):
        remote = RemoteUnit(unit, say=print_fn, **(unit_options or {}))
        return _FoughtAtTheTable(PauseOnProblem(remote, screen.ask, print_fn), screen), remote
    if unit == "manual":
        return _FoughtAtTheTable(ManualUnit(screen.ask, print_fn), screen), None
    return SimulatedUnit(random.Random(rng.getrandbits(64))), None
