"""The match, for every game: fed decision by decision (``Match``), or played to
the end by a blocking loop over agents and a unit port (``Driver``, ``play_match``).

It imports the game interface and the unit ports' values, and no game family:
the family of a game is found through the registry (engine.game.registry).
"""

from engine.match.driver import Driver, play_match
from engine.match.events import MATCH_KINDS, MatchEvent, MatchResult
from engine.match.match import (
    CLAIM_JITTER,
    Claim,
    Decide,
    Match,
    Need,
    NextRound,
    Over,
    Showdown,
)

__all__ = [
    "Match",
    "Need",
    "Decide",
    "Showdown",
    "NextRound",
    "Over",
    "Claim",
    "CLAIM_JITTER",
    "Driver",
    "play_match",
    "MatchEvent",
    "MatchResult",
    "MATCH_KINDS",
]
