"""``showdown-unit``: the unit's command line.

Each subcommand lives in its own module, which provides ``add_arguments(parser)``
and ``command(args) -> int``; this file only lists them and the errors they may
leave to it, and :func:`firmware_host.people.console.run` (the scaffold the
engine's ``showdown`` uses too) does the rest: logging, Ctrl-C, one ``error:``
line and the exit status. The modules stay independent, and a missing optional
dependency only breaks its own subcommand. ``python -m firmware_host`` runs it too.
"""

from __future__ import annotations

from gpiozero import GPIOZeroError

from firmware_host.core.errors import UnitError
from firmware_host.people import console
from firmware_host.service.config import ConfigError
from firmware_host.service.journal import JournalError

__all__ = ["main", "build_parser", "COMMANDS", "ERRORS"]

PROG = "showdown-unit"
DESCRIPTION = "Controller for the UNO Showdown unit (Raspberry Pi or mock pins)."

#: (subcommand, module, one-line help), in the order ``--help`` shows them.
COMMANDS = [
    (
        "check-config",
        "firmware_host.commands.check_config",
        "check the config as the daemon does at start; print it, or what is wrong",
    ),
    (
        "selftest",
        "firmware_host.commands.selftest_cmd",
        "light, sound and spin every device once and check the inputs read idle",
    ),
    (
        "history",
        "firmware_host.commands.history_cmd",
        "recent showdown results and each player's reaction times",
    ),
    (
        "journal",
        "firmware_host.commands.journal_cmd",
        "look after the results journal: 'journal check' reports any damage",
    ),
    (
        "diagram",
        "firmware_host.commands.diagram",
        "print the showdown state machine as a Mermaid diagram",
    ),
    (
        "simulate",
        "firmware_host.sim.simulate",
        "play many showdowns on mock pins and virtual time, check every decision",
    ),
    (
        "run",
        "firmware_host.commands.run_cmd",
        "run the unit standalone on its pins (--mock: on the keyboard)",
    ),
    (
        "uplink",
        "firmware_host.commands.uplink_cmd",
        "send every result to the venue's league over MQTT (a service beside the unit)",
    ),
    (
        "demo",
        "firmware_host.commands.demo_cmd",
        "four showdowns told step by step (a win, a false start, a near-tie re-run, "
        "a timeout), then a 1000-showdown simulation",
    ),
]

#: The errors a subcommand may leave to the scaffold: one ``error:`` line, exit 1.
#: (``run`` says its own exit status for a config it cannot use: 78, so that
#: systemd does not restart it; ``check-config`` says the same line, exit 1.)
ERRORS = {ConfigError: 1, JournalError: 1, GPIOZeroError: 1, UnitError: 1}


def build_parser():
    """The command's argparse parser (what ``main`` parses with)."""
    return console.build_parser(PROG, DESCRIPTION, COMMANDS)


def main(argv: list[str] | None = None) -> int:
    # transitions logs every state change at INFO; our machine logs its own, once.
    return console.run(
        argv,
        prog=PROG,
        description=DESCRIPTION,
        commands=COMMANDS,
        errors=ERRORS,
        quieter=("transitions",),
    )
