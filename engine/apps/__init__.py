"""The applications on the engine: the match driver, the terminal game, the demo, the
throughput measure (``showdown speed``), and the ``showdown`` command that runs them.
"""

from engine.apps.cli import COMMANDS, main
from engine.apps.demo import UnitDaemon, run_demo
from engine.apps.match_words import describe
from engine.apps.play import parse_players, play_game
from engine.match import Driver, MatchEvent, MatchResult, play_match
from engine.uno.narration import EVENT_KINDS

__all__ = [
    "main",
    "COMMANDS",
    "Driver",
    "MatchEvent",
    "MatchResult",
    "play_match",
    "describe",
    "EVENT_KINDS",
    "play_game",
    "parse_players",
    "run_demo",
    "UnitDaemon",
]
