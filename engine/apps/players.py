"""The players of a game at the terminal: the ``--players`` list read (people's
names, ``bot`` and ``random`` bots with their reactions), each seat's name, and
the command that replays a game (``engine.apps.play``).
"""

from __future__ import annotations

import functools
import math
import shlex
from collections.abc import Sequence

from engine.apps.screen import COMMANDS
from engine.game.agents import REACTION_MS_RANGE
from engine.game.registry import FAMILIES, family
from engine.units.ports import ManualUnit
from firmware_host.people.words import plural

__all__ = [
    "bot_kinds",
    "MAX_PARTY_PLAYERS",
    "MAX_PLAYERS",
    "PARTY_PLAYERS",
    "RESERVED_NAMES",
    "bot_skill",
    "parse_players",
    "replay_command",
    "seat_names",
]


@functools.cache
def bot_kinds() -> tuple[str, ...]:
    """What a --players entry may say instead of a person's name (with ``:MS``,
    a bot's reaction on a unit: ``bot:180``): every family's bots, each once, in
    registry order ("bot", "random", and 10 Point Pitch's "strong"); the game
    played says which it has. The families load when it is first asked.

    >>> bot_kinds()[:2]
    ('bot', 'random')
    """
    kinds = (kind for name in FAMILIES for kind in getattr(family(name), "bot_kinds", ()))
    return tuple(dict.fromkeys(kinds))


def __getattr__(name: str) -> tuple[str, ...]:
    """``BOT_KINDS``: ``bot_kinds()``, asked for when first used (not at import,
    which would load every family)."""
    if name == "BOT_KINDS":
        return bot_kinds()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Words no player may be called: the prompts' commands, the manual unit's answers.
RESERVED_NAMES = (*COMMANDS, *ManualUnit.AGAIN)
#: Players a --players list may seat: UNO Party! takes more than the others.
MAX_PLAYERS = 10
MAX_PARTY_PLAYERS = 16
#: ``showdown play --variant party`` without --players: you and seven bots.
PARTY_PLAYERS = ("You", *("bot",) * 7)


def bot_skill(entry: str) -> tuple[str, float | None] | None:
    """A --players entry that is a bot: (its kind, its reaction in ms or None);
    None for a person. ValueError for a bot's reaction that is not 100-1000 ms,
    or a person given one.

    >>> bot_skill("bot"), bot_skill("random:300"), bot_skill("Ann")
    (('bot', None), ('random', 300.0), None)
    """
    kind, colon, skill = entry.partition(":")
    kind = kind.strip().lower()
    if kind not in bot_kinds():
        if colon:
            raise ValueError(
                f"{entry!r}: only a bot (bot or random) takes a reaction time, e.g. bot:180; "
                "a name has no ':'"
            )
        return None
    if not colon:
        return kind, None
    low, high = REACTION_MS_RANGE
    try:
        value = float(skill)
    except ValueError:
        value = math.nan
    if not low <= value <= high:
        raise ValueError(
            f"{entry!r}: a bot's reaction is its median time to press after GO, in ms, "
            f"from {low:g} to {high:g}: e.g. {kind}:180 (quick) or {kind}:400 (slow)"
        )
    return kind, value


def parse_players(text: str, max_players: int = MAX_PLAYERS) -> list[str]:
    """The --players list: names of people, ``bot`` or ``random``, a bot
    perhaps with its reaction in ms (``bot:180``); raises ValueError. A game
    takes 2 to ``max_players`` (10; UNO Party! takes up to 16).

    >>> parse_players("Ann, Bob,bot,BOT:180, random:250.5")
    ['Ann', 'Bob', 'bot', 'bot:180', 'random:250.5']
    """
    entries = []
    for part in text.split(","):
        entry = part.strip()
        if not entry:
            raise ValueError(
                f"empty name in {text!r}: write names separated by commas, e.g. Ann,Bob,bot,random"
            )
        skill = bot_skill(entry)
        if skill is not None:
            kind, ms = skill
            entry = kind if ms is None else f"{kind}:{ms:g}"
        elif entry.casefold() in RESERVED_NAMES:
            raise ValueError(
                f"a player cannot be called {entry!r}: the game takes it as a command or an answer "
                f"({', '.join(RESERVED_NAMES)})"
            )
        entries.append(entry)
    if not 2 <= len(entries) <= max_players:
        raise ValueError(
            f"{plural(len(entries), 'player')} in {text!r}: a game takes 2-{MAX_PLAYERS} "
            f"(UNO Party!: 2-{MAX_PARTY_PLAYERS})"
        )
    people = [e.casefold() for e in entries if bot_skill(e) is None]
    doubled = sorted({p for p in people if people.count(p) > 1})
    if doubled:
        raise ValueError(f"two players are called {doubled[0]!r}: names must differ")
    return entries


def seat_names(players: Sequence[str]) -> list[str]:
    """The names the seats go by: a person's own, a bot's kind and its seat.

    >>> seat_names(["Ann", "bot:180", "random"])
    ['Ann', 'bot1', 'random2']
    """
    names = []
    for seat, entry in enumerate(players):
        skill = bot_skill(entry)
        names.append(entry if skill is None else f"{skill[0]}{seat}")
    return names


def replay_command(
    players: Sequence[str],
    seed: int,
    *,
    variant: str = "showdown",
    target: int = 500,
    unit="sim",
    default_target: int = 500,
) -> str:
    """The command line that deals this game again (the same seed, seats and
    rules); ``--target`` only when it is not the game's ``default_target``.

    >>> replay_command(["Ann Lee", "bot:180"], 7, target=100)
    "showdown play --players 'Ann Lee,bot:180' --seed 7 --target 100"
    """
    words = ["showdown", "play", "--players", ",".join(players), "--seed", str(seed)]
    if variant != "showdown":
        words += ["--variant", variant]
    if target != default_target:
        words += ["--target", str(target)]
    if unit != "sim":
        words += ["--unit", unit]
    return shlex.join(words)
