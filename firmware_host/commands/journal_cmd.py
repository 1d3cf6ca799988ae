"""``showdown-unit journal check``: is the results journal sound?

Finds the journal as ``showdown-unit history`` does (``--journal PATH``,
``--mock`` for the one ``run --mock`` writes, else the daemon's), opens it read-only (it
creates and changes nothing, so it is safe while the daemon runs), runs
SQLite's integrity check and validates every row, and prints what it found.
Exit 0 if the journal is sound; 1 if it has problems, or if it is missing or
cannot be read at all (one ``error:`` line, the scaffold's).
"""

from __future__ import annotations

import json

from firmware_host.commands.history_cmd import add_journal_arguments, journal_location
from firmware_host.people.console import CommandError
from firmware_host.service.config import load_config
from firmware_host.service.journal import Journal, JournalDamagedError

__all__ = ["add_arguments", "command"]


def add_arguments(parser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="SQLite's integrity check and every row validated (read-only)",
        description="SQLite's integrity check and every row validated; reads the "
        "journal read-only and changes nothing",
    )
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    add_journal_arguments(check)


def command(args) -> int:
    config = load_config(args.config, system=True)
    path = journal_location(args, config)
    if not path.exists():
        raise CommandError(f"{path}: no such journal file")
    try:
        with Journal(path, readonly=True) as journal:  # other JournalErrors: the scaffold's
            report = journal.check()
    except JournalDamagedError as exc:
        raise CommandError(exc.detail) from None  # its hint is this command
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(report)
    return 0 if report.ok else 1
