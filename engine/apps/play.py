"""A game at the terminal: people sharing one screen, with bots, through the match driver.

``showdown play`` asks the family that plays the variant for its terminal game
(:class:`TerminalGame`: the module its ``Family.terminal`` names: UNO's
engine.uno.terminal, 10 Point Pitch's engine.pitch.terminal), never a family's
name; what every game shares is here: the run to the match's end with its exits
(:func:`run_at_terminal`), the unit the showdowns are fought on (:func:`unit_port`),
and the screen (engine.apps.screen.SharedScreen, which each family subclasses).

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
import random
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
)
from engine.apps.screen import QuitGame, SharedScreen
from engine.game.registry import family_playing
from engine.match import Driver
from engine.units.ports import ManualUnit, ShowdownOutcome, ShowdownRequest, SimulatedUnit, UnitPort
from engine.units.remote import PauseOnProblem, RemoteUnit, UnitProblem, is_unit_url

__all__ = [
    "play_game",
    "run_at_terminal",
    "terminal_game",
    "unit_port",
    "TerminalGame",
    "parse_players",
    "bot_skill",
    "replay_command",
    "SharedScreen",
    "QuitGame",
    "UNITS",
    "RESERVED_NAMES",
    "MAX_PLAYERS",
    "MAX_PARTY_PLAYERS",
    "PARTY_PLAYERS",
]

#: The unit ports a terminal game can name; a unit's URL or device path also
#: works (``socket://HOST:PORT``, ``/dev/ttyUSB0``: see ``engine.units.remote.is_unit_url``).
UNITS = ("sim", "manual")


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
    (UNO's engine.uno.terminal, 10 Point Pitch's engine.pitch.terminal). ``showdown
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


def unit_port(
    unit: str,
    screen: SharedScreen,
    print_fn: Callable[[str], None],
    rng: random.Random,
    unit_options: dict | None,
) -> tuple[UnitPort, RemoteUnit | None]:
    """The port a terminal game's showdowns are fought on (``unit``: "sim", "manual",
    or a unit's URL or device), and the RemoteUnit when it is one; a real or manual
    unit's showdowns wipe the seated hand from ``screen`` first."""
    if is_unit_url(unit):
        remote = RemoteUnit(unit, say=print_fn, **(unit_options or {}))
        return _FoughtAtTheTable(PauseOnProblem(remote, screen.ask, print_fn), screen), remote
    if unit == "manual":
        return _FoughtAtTheTable(ManualUnit(screen.ask, print_fn), screen), None
    return SimulatedUnit(random.Random(rng.getrandbits(64))), None
