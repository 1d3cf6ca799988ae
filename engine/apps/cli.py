"""``showdown``: the engine's command line.

Each subcommand lives in its own module, which provides ``add_arguments(parser)``
and ``command(args) -> int``; this file only lists them, and
:func:`firmware_host.people.console.run` (the scaffold the unit's
``showdown-unit`` uses too) does the rest: logging, Ctrl-C, the exit status.
``python -m engine`` runs it too.
"""

from __future__ import annotations

from firmware_host.people import console

__all__ = ["main", "build_parser", "COMMANDS", "RENAMED"]

PROG = "showdown"
DESCRIPTION = "UNO and UNO Showdown: the rules engine and its tools."

#: (subcommand, module, one-line help), in the order ``--help`` shows them.
COMMANDS = [
    ("speed", "engine.apps.speed", "random-agent throughput of the rules engine"),
    ("play", "engine.apps.play_cmd", "a match at the terminal: people at one screen, with bots"),
    ("demo", "engine.apps.demo", "bots play a whole match through a real unit daemon on mock pins"),
    ("table", "engine.apps.table.table_cmd", "the table in a browser: a display and phones"),
    ("league", "engine.league.league_cmd", "the venue league: results over MQTT, live standings"),
]

#: Old subcommand names that still work (hidden from --help), and their new ones.
RENAMED = {"bench": "speed"}


def build_parser():
    """The command's argparse parser (what ``main`` parses with)."""
    return console.build_parser(PROG, DESCRIPTION, COMMANDS, renamed=RENAMED)


def main(argv: list[str] | None = None) -> int:
    return console.run(argv, prog=PROG, description=DESCRIPTION, commands=COMMANDS, renamed=RENAMED)
