"""``showdown``: the engine's command line.

Each subcommand lives in its own module, which provides ``add_arguments(parser)``
and ``command(args) -> int``; this file only lists them and dispatches, so the
modules stay independent. ``python -m engine`` runs it too.
"""

from __future__ import annotations

import argparse
import importlib
import logging

__all__ = ["main", "COMMANDS"]

#: (subcommand, module, one-line help), in the order ``--help`` shows them.
COMMANDS = [
    ("bench", "engine.apps.bench", "random-agent throughput of the rules engine"),
    ("play", "engine.apps.play_cmd", "a match at the terminal: people at one screen, with bots"),
    ("demo", "engine.apps.demo", "bots play a whole match through a real unit daemon on mock pins"),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="showdown",
        description="UNO and UNO Showdown: the rules engine and its tools.")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="log more (-v: info, -vv: debug)")
    sub = parser.add_subparsers(dest="subcommand", metavar="COMMAND", required=True)
    for name, module_name, help_text in COMMANDS:
        module = importlib.import_module(module_name)
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command_parser)
        command_parser.set_defaults(handler=module.command)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    return args.handler(args)

