"""Agents: anything that decides for a player, and the random bot over the game interface.

An agent's ``act(game, player)`` returns one of ``game.legal_actions(player)``.
It may add ``react(game, player) -> action | None`` (a claim out of turn, for a
game whose ``claimants()`` can be non-empty), ``reaction_ms`` (how fast it
claims, and how fast a unit presses its paddle in a showdown) and
``saw_showdown(reactions_ms)`` (shown every showdown's reaction times, by
player, in ms: a bot may learn how fast its opponents are) and
``people_at(seats)`` (told which seats people play, the others being bots: a
bot may read a bot's plays as its own kind's, and not a person's): all optional.
A family's own bots (engine.uno.bots) sit beside this one.

>>> from engine.uno import FAMILY
>>> game = FAMILY.new(2, "classic", seed=1)
>>> bot = RandomBot(random.Random(1))
>>> bot.act(game, game.waiting_for[0]) in game.legal_actions()
True
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Mapping
from typing import Any, Protocol

__all__ = [
    "Agent",
    "RandomBot",
    "DEFAULT_REACTION_MS",
    "DEFAULT_REACT_CHANCE",
    "REACTION_MS_RANGE",
    "check_reaction_ms",
    "tell_showdown",
    "tell_people",
]

#: A bot's reaction after GO when a unit presses its paddle: the median of a
#: person's (firmware_host.people.reactions.HUMAN).
DEFAULT_REACTION_MS = 230.0
#: The reaction medians a unit takes for a bot, in ms (both ends included).
REACTION_MS_RANGE = (100.0, 1000.0)
#: How often a random bot claims an out-of-turn action it may make.
DEFAULT_REACT_CHANCE = 0.05


def check_reaction_ms(value: object, who: str = "a bot") -> float:
    """``value`` as a bot's reaction median in ms; ValueError unless it is a
    number from 100 to 1000.

    >>> check_reaction_ms(180)
    180.0
    >>> check_reaction_ms(50, "bot1")
    Traceback (most recent call last):
    ...
    ValueError: reaction_ms of bot1 must be a number from 100 to 1000 (ms, the median of its \
reaction after GO), not 50
    """
    low, high = REACTION_MS_RANGE
    if (
        not isinstance(value, (int, float))
        or isinstance(value, bool)
        or not low <= value <= high  # NaN fails too
    ):
        raise ValueError(
            f"reaction_ms of {who} must be a number from {low:g} to {high:g} (ms, the "
            f"median of its reaction after GO), not {value!r}"
        )
    return float(value)


def tell_showdown(agents: Iterable[object], reaction_us: Mapping[int, int | None]) -> None:
    """Show a showdown's reaction times (µs by player, None where none was
    measured) to every agent with a ``saw_showdown``, in ms.

    >>> class Watcher:
    ...     def saw_showdown(self, reactions_ms):
    ...         print(reactions_ms)
    >>> tell_showdown([Watcher(), RandomBot(random.Random(1))], {0: 231_500, 1: None})
    {0: 231.5, 1: None}
    """
    reactions_ms = {p: None if us is None else us / 1000 for p, us in reaction_us.items()}
    for agent in agents:
        saw = getattr(agent, "saw_showdown", None)
        if saw is not None:
            saw(dict(reactions_ms))


def tell_people(agents: Iterable[object], seats: Collection[int]) -> None:
    """Tell every agent with a ``people_at`` which ``seats`` people play (at
    the start of a match, and whenever a seat changes hands).

    >>> class Reader:
    ...     def people_at(self, seats):
    ...         print(sorted(seats))
    >>> tell_people([Reader(), RandomBot(random.Random(1))], {2, 0})
    [0, 2]
    """
    for agent in agents:
        told = getattr(agent, "people_at", None)
        if told is not None:
            told(frozenset(seats))


class Agent(Protocol):
    """Anything that decides for a player (see the module docstring). The game
    and the action are Any: the family's own types (engine.game.interface)."""

    def act(self, game: Any, player: int) -> Any: ...


class RandomBot:
    """Chooses uniformly among the legal actions with its own seeded ``rng``.

    ``reaction_ms`` is the median of its reaction after GO when a unit presses
    its paddle in a showdown (100 to 1000 ms; a person's median by default),
    and how fast it claims out of turn. ``react_chance``: how often (0 to 1)
    it claims, when asked, one of its out-of-turn actions at random (in UNO
    Party!: a speed play, right or wrong, or a catch).
    """

    def __init__(
        self,
        rng: random.Random,
        name: str = "random",
        *,
        reaction_ms: float = DEFAULT_REACTION_MS,
        react_chance: float = DEFAULT_REACT_CHANCE,
    ):
        if not isinstance(react_chance, (int, float)) or not 0 <= react_chance <= 1:
            raise ValueError(
                f"react_chance of bot {name!r} must be from 0 to 1, not {react_chance!r}"
            )
        self.rng = rng
        self.name = name
        self.reaction_ms = check_reaction_ms(reaction_ms, f"bot {name!r}")
        self.react_chance = float(react_chance)

    def act(self, game: Any, player: int) -> Any:
        return self.rng.choice(game.legal_actions(player))

    def react(self, game: Any, player: int) -> Any | None:
        """Now and then (``react_chance``) a random out-of-turn action. Draws one
        number from ``rng`` whenever the player may claim, two when it claims."""
        if player not in game.claimants():
            return None
        if self.rng.random() >= self.react_chance:
            return None
        return self.rng.choice(game.legal_actions(player))

    def __repr__(self) -> str:
        return f"RandomBot(name={self.name!r})"
