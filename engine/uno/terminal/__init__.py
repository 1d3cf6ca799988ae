"""UNO at the terminal: ``showdown play`` (classic, Showdown, UNO Party!).

UNO's :class:`engine.apps.play.TerminalGame` (``UnoFamily.terminal`` names this
module): people sharing one screen (engine.uno.terminal.screen: the hand shown to
its owner alone, a recap of what happened since their last turn) and bots, through
the match driver, the showdowns fought on a unit (simulated, manual, or a real one
by its URL or serial device). A person is an agent like the bots
(engine.uno.terminal.person). Input and output are the injected
``input_fn(prompt) -> str`` and ``print_fn(text)`` (and ``control_fn`` for the
private screen), so a test can play a whole match with scripted input.

UNO Party! (``variant="party"``): a keyboard cannot race, so whenever a person could
act out of turn the game stops and asks before anyone's claim is applied; the driver
then settles the claims by reaction time, a person counting as the bots' default
(230 ms).

>>> lines = []
>>> status = play_terminal(["bot", "random"], seed=3, target=50, input_fn=None,
...                        print_fn=lines.append)
>>> status, lines[:2]
(0, ['Match: bot0, random1; showdown to 50 points.', 'Seed 3. To play this game again: \
showdown play --players bot,random --seed 3 --target 50'])
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from engine.apps.play import UNITS, run_at_terminal, unit_port
from engine.apps.players import (
    MAX_PARTY_PLAYERS,
    MAX_PLAYERS,
    PARTY_PLAYERS,
    bot_skill,
    replay_command,
    seat_names,
)
from engine.game.agents import tell_people
from engine.match import Driver
from engine.units.ports import ManualUnit
from engine.units.remote import is_unit_url
from engine.uno import FAMILY, new_game
from engine.uno.bots import Agent
from engine.uno.card_style import use_colour
from engine.uno.terminal.person import Person
from engine.uno.terminal.screen import PARTY_HELP, UnoScreen

__all__ = [
    "TARGET",
    "EPILOG",
    "DEFAULT_PLAYERS",
    "PARTY_PLAYERS",
    "Person",
    "UnoScreen",
    "seats",
    "unit_refusal",
    "play_terminal",
]

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
    unit_options: dict[str, Any] | None = None,
) -> int:
    """Play an UNO match at the terminal; return the exit status.

    ``players`` as ``parse_players`` returns them. The seed (chosen at random
    when None) is told at the start with the command that replays the game.
    0 when the match ends, when the table quits (``quit``, confirmed) or the
    input ends (EOF), 130 when interrupted (Ctrl-C); either way the game stops
    with a message, the scores and no traceback. ``control_fn`` switches the
    terminal to the private screen and back (:class:`engine.apps.screen.SharedScreen`).

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
    screen = UnoScreen(
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
    tell_people(agents, {seat for seat, skill in enumerate(skills) if skill is None})
    port, remote = unit_port(unit, screen, print_fn, rng, unit_options)
    match = Driver(game, agents, port, names=names, log=screen.on_event)
    return run_at_terminal(match, remote, screen, print_fn)


def _agents(
    skills: Sequence[tuple[str, float | None] | None],
    names: list[str],
    screen: UnoScreen,
    rng: random.Random,
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
