"""The applications on the engine: the terminal game, the demo, the throughput
measure (``showdown speed``), the browser table, and the ``showdown`` command
that runs them. The match they play is engine.match's.
"""

from engine.apps.cli import COMMANDS, main
from engine.apps.demo import UnitDaemon, run_demo
from engine.apps.play import parse_players, play_game

__all__ = ["main", "COMMANDS", "play_game", "parse_players", "run_demo", "UnitDaemon"]
