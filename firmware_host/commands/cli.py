"""``showdown-unit``: the unit's command line.

Each subcommand lives in its own module, which provides ``add_arguments(parser)``
and ``command(args) -> int``; this file only lists them and dispatches, so the
modules stay independent and a missing optional dependency only breaks its own
subcommand. ``python -m firmware_host`` runs it too.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

__all__ = ["main", "COMMANDS"]

#: (subcommand, module, one-line help), in the order ``--help`` shows them.
COMMANDS = [
    ("check-config", "firmware_host.commands.check_config", "print the effective config, or the one thing wrong with it"),
    ("selftest", "firmware_host.commands.selftest_cmd", "light, sound and spin every device once and check the inputs read idle"),
    ("history", "firmware_host.commands.history_cmd", "recent showdown results and each player's reaction times"),
    ("journal", "firmware_host.commands.journal_cmd", "look after the results journal: 'journal check' reports any damage"),
    ("diagram", "firmware_host.commands.diagram", "print the showdown state machine as a Mermaid diagram"),
    ("simulate", "firmware_host.sim.simulate", "play many showdowns on mock pins and virtual time, check every decision"),
    ("run", "firmware_host.commands.run_cmd", "run the unit standalone on its pins (--mock: on the keyboard)"),
    ("demo", "firmware_host.commands.demo_cmd", "a short showdown session on mock pins, then a 1000-showdown simulation"),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="showdown-unit",
        description="Controller for the UNO Showdown unit (Raspberry Pi or mock pins).")
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
    try:
        args = build_parser().parse_args(argv)
        level = {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)
        # journald stamps each line itself, so the format carries no time.
        logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
        # transitions logs every state change at INFO; our machine logs its own, once.
        logging.getLogger("transitions").setLevel(max(level, logging.WARNING))
        return args.handler(args)
    except KeyboardInterrupt:
        # Ctrl-C before a command took charge of it (``run`` handles its own
        # once its pins are claimed): one line, no traceback.
        print("interrupted", file=sys.stderr)
        return 130

