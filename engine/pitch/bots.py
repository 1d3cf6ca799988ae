"""Pitch's bots by kind, behind the agent interface (engine.game.agents).

=========  ===============================================================
kind       the bot
=========  ===============================================================
``bot``    the heuristic (engine.pitch.heuristic.HeuristicBot)
``random`` uniform over the legal actions (engine.game.agents.RandomBot)
``strong`` the search bot (engine.pitch.search.SearchBot): sampled worlds
           solved exactly
=========  ===============================================================

Every bot decides from ``game.view(player)`` alone, and is deterministic
given its ``rng``. The all-seeing ceiling (engine.pitch.search.OmniscientBot)
is not a kind: it is for benchmarks only.

>>> import random
>>> make_bot("strong", "s1", random.Random(1))
SearchBot(name='s1', samples=12)
>>> make_bot("wise", "w", random.Random(1))
Traceback (most recent call last):
...
ValueError: no bot 'wise' in 10 Point Pitch (the bots: bot, random, strong)
"""

from __future__ import annotations

import random

from engine.game.agents import DEFAULT_REACTION_MS, RandomBot
from engine.pitch.heuristic import HeuristicBot
from engine.pitch.search import OmniscientBot, SearchBot

__all__ = ["BOT_KINDS", "make_bot", "HeuristicBot", "SearchBot", "OmniscientBot", "RandomBot"]

BOT_KINDS = ("bot", "random", "strong")


def make_bot(
    kind: str, name: str, rng: random.Random, *, reaction_ms: float | None = None
) -> HeuristicBot | RandomBot | SearchBot:
    """The bot of ``kind`` named ``name``; the random and search bots draw from
    a generator seeded from ``rng`` (the heuristic draws nothing)."""
    reaction = DEFAULT_REACTION_MS if reaction_ms is None else reaction_ms
    if kind == "bot":
        return HeuristicBot(name, reaction_ms=reaction)
    if kind == "random":
        return RandomBot(random.Random(rng.getrandbits(64)), name, reaction_ms=reaction)
    if kind == "strong":
        return SearchBot(random.Random(rng.getrandbits(64)), name, reaction_ms=reaction)
    raise ValueError(f"no bot {kind!r} in 10 Point Pitch (the bots: {', '.join(BOT_KINDS)})")
