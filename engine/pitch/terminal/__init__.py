"""10 Point Pitch at the terminal: ``showdown play --variant pitch``.

Pitch's :class:`engine.apps.play.TerminalGame` (``PitchFamily.terminal`` names
this module): four seats, people and bots in any mix, partners opposite (seats
0 and 2 against 1 and 3), to 52 points by default, no unit (Pitch has no
showdowns). People share one screen as in UNO: each hand is shown on a private
screen that is wiped before the screen is passed on (engine.pitch.terminal.screen);
a person decides at a numbered menu or types the action
(engine.pitch.terminal.person); whatever is forced plays itself (R7).

>>> lines = []
>>> status = play_terminal(["bot", "random", "bot", "random"], seed=5, target=11,
...                        input_fn=None, print_fn=lines.append)
>>> status, lines[1]
(0, 'Seed 5. To play this game again: showdown play --players bot,random,bot,random --seed 5 \
--variant pitch --target 11')
>>> lines[-1].endswith("the match, " + lines[-1].split("the match, ")[1])
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from engine.apps.play import run_at_terminal
from engine.apps.players import bot_skill, replay_command, seat_names
from engine.match import Driver
from engine.pitch import FAMILY
from engine.pitch.game import PitchGame
from engine.pitch.terminal.person import AutoPlay, PitchPerson
from engine.pitch.terminal.screen import PitchScreen
from firmware_host.people.words import plural

__all__ = [
    "TARGET",
    "EPILOG",
    "DEFAULT_PLAYERS",
    "seats",
    "unit_refusal",
    "play_terminal",
    "set_up",
]

#: A Pitch match goes to 52 points (RULES.md R1).
TARGET = 52

#: ``showdown play --variant pitch`` without --players: you and bot2 against bot1 and bot3.
DEFAULT_PLAYERS = ("You", "bot", "bot", "bot")

#: What ``showdown play --help`` says about 10 Point Pitch.
EPILOG = (
    "10 Point Pitch (--variant pitch): exactly 4 players, partners opposite: the 1st and "
    "3rd against the 2nd and 4th (--players Ann,bot,Bob,bot: Ann and Bob against two "
    "bots); bots: bot (heuristic), strong (search), random; to 52 points unless --target "
    "says otherwise; no unit (Pitch has no showdowns). Hands stay private as in UNO; at "
    "a bid type the bid (5, moon, pass), then the suit (hearts or h), keep or give, and "
    "cards as AH, 10h or hj; ? at any prompt tells the rules."
)


def seats(variant: str, players: list[str] | None) -> list[str]:
    """Pitch's seats: exactly four (by default you and three bots).

    >>> seats("pitch", None)
    ['You', 'bot', 'bot', 'bot']
    >>> seats("pitch", ["Ann", "bot", "Bob"])
    Traceback (most recent call last):
    ...
    ValueError: 3 players: 10 Point Pitch takes exactly 4, partners opposite (the 1st and \
3rd against the 2nd and 4th), e.g. --players Ann,bot,Bob,bot
    """
    if players is None:
        return list(DEFAULT_PLAYERS)
    if len(players) != 4:
        raise ValueError(
            f"{plural(len(players), 'player')}: 10 Point Pitch takes exactly 4, partners "
            "opposite (the 1st and 3rd against the 2nd and 4th), e.g. --players Ann,bot,Bob,bot"
        )
    return players


def unit_refusal(variant: str) -> str | None:
    """Pitch has no showdowns: it never takes a unit."""
    return "10 Point Pitch has no showdowns: it takes no --unit"


def play_terminal(
    players: Sequence[str],
    *,
    variant: str = "pitch",
    unit: str = "sim",
    seed: int | None = None,
    target: int = TARGET,
    input_fn: Callable[[str], str] | None = input,
    print_fn: Callable[[str], None] = print,
    control_fn: Callable[[str], None] | None = None,
    unit_options: dict[str, Any] | None = None,
) -> int:
    """Play a Pitch match at the terminal; the exit status (as engine.apps.play's:
    0 at the end, on quit or end of input, 130 on Ctrl-C). ValueError for a unit
    (``unit`` other than "sim") or players other than four."""
    if unit != "sim" or unit_options:
        raise ValueError(f"{unit_refusal(variant)} (leave --unit out)")
    match, screen = set_up(
        seats(variant, list(players)),
        variant=variant,
        seed=seed,
        target=target,
        input_fn=input_fn,
        print_fn=print_fn,
        control_fn=control_fn,
    )
    return run_at_terminal(match, None, screen, print_fn)


def set_up(
    players: Sequence[str],
    *,
    variant: str = "pitch",
    seed: int | None = None,
    target: int = TARGET,
    input_fn: Callable[[str], str] | None = input,
    print_fn: Callable[[str], None] = print,
    control_fn: Callable[[str], None] | None = None,
) -> tuple[Driver, PitchScreen]:
    """The match of ``players`` ready to run, and its screen. The seed (at random
    when None) deals the game and seeds the bots, so it replays the same game."""
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    names = seat_names(players)
    skills = [bot_skill(p) for p in players]
    people = [seat for seat, skill in enumerate(skills) if skill is None]
    game: PitchGame = FAMILY.new(4, variant, seed=seed, target=target)
    replay = replay_command(players, seed, variant=variant, target=target, default_target=TARGET)
    screen = PitchScreen(
        game,
        names,
        people,
        input_fn,
        print_fn,
        control_fn,
        replay=f"Seed {seed}. To play this game again: {replay}",
    )
    bots_rng = random.Random(f"bots {seed}")  # apart from the deal's, so deals do not shift
    agents = []
    for seat, skill in enumerate(skills):
        if skill is None:
            agents.append(AutoPlay(PitchPerson(screen, names[seat]), screen, person=True))
        else:
            bot = _bot(skill[0], names[seat], bots_rng, skill[1])
            agents.append(AutoPlay(bot, screen, person=False))
    match = Driver(game, agents, None, names=names, log=screen.on_event)  # no showdowns
    return match, screen


def _bot(kind: str, name: str, rng: random.Random, reaction_ms: float | None) -> Any:
    """The family's bot of ``kind`` (FAMILY.make_bot)."""
    options = {} if reaction_ms is None else {"reaction_ms": reaction_ms}
    return FAMILY.make_bot(kind, name, rng, **options)
