"""``showdown-unit history``: recent results and each player's reaction times.

Reads the journal read-only, so it is safe while the daemon runs. With no
``--journal`` it looks where the daemon writes (``journal.path`` in the
config, else the default place); if there is no file there yet it says "no
results yet" and exits 0. A ``--journal`` file that does not exist is an error
(exit 1): the user named a file, and it is not there. Rows that are damaged
are skipped, and a last line says which and how to learn more. Each result's
line is :func:`firmware_host.protocol.words.history_line`.

``showdown-unit journal check`` finds the journal the same way
(:func:`add_journal_arguments`, :func:`journal_location`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from firmware_host.protocol.console import CommandError, positive_int
from firmware_host.protocol.words import history_line, ms, noun
from firmware_host.service.config import add_config_argument, load_config
from firmware_host.service.journal import Journal, default_journal_path

__all__ = ["add_arguments", "command", "render_text", "add_journal_arguments", "journal_location"]


def add_arguments(parser) -> None:
    parser.add_argument(
        "--player", metavar="NAME", help="only showdowns this player took part in (exact name)"
    )
    parser.add_argument(
        "--limit",
        type=positive_int,
        metavar="N",
        help="how many results to show (default: journal.history_limit)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"results": [...], "players": {...}, "damaged": [...]} as JSON',
    )
    add_journal_arguments(parser)


def add_journal_arguments(parser) -> None:
    """``--config`` and ``--journal``, for every command that reads the journal."""
    add_config_argument(parser)
    parser.add_argument(
        "--journal", metavar="PATH", help="the journal file (default: where the daemon keeps it)"
    )


def journal_location(args, config) -> Path:
    """The journal a reading command looks at: ``--journal``, else where the
    daemon keeps it (``journal.path``, else the default place)."""
    if args.journal:
        return Path(args.journal)
    return default_journal_path(config.journal.path, mock=config.backend == "mock")


def command(args) -> int:
    config = load_config(args.config, system=True)
    limit = args.limit or config.journal.history_limit
    path = journal_location(args, config)
    if args.journal and not path.exists():
        raise CommandError(f"{path}: no such journal file")
    if not path.exists():
        history: dict[str, Any] = {"results": [], "players": {}, "damaged": []}
        if not args.json:
            print(f"no results yet ({path} does not exist)")
            return 0
    else:
        with Journal(path, readonly=True) as journal:  # a JournalError: the scaffold's
            history = journal.history(limit, args.player)
    if args.json:
        print(json.dumps(history, indent=2, ensure_ascii=False))
    else:
        print(render_text(history, path), end="")
    return 0


def render_text(history: dict, path: Path | str) -> str:
    """The history document as lines for people: one per result, then a table
    of per-player figures, then a line for any damaged rows that were skipped.
    Times are shown in local time."""
    results, players = history["results"], history["players"]
    if not results:
        return f"no results yet in {path}\n" + _damaged_line(history, path)
    lines = [f"Recent results, newest first ({path}):"]
    lines += [history_line(result) for result in results]
    lines += ["", "Reaction times (all recorded showdowns):"]
    header = ("player", "showdowns", "median", "best", "false starts", "wins", "losses")
    rows = [
        (
            name,
            str(s["showdowns"]),
            ms(s["median_reaction_us"]),
            ms(s["best_reaction_us"]),
            str(s["false_starts"]),
            str(s["wins"]),
            str(s["losses"]),
        )
        for name, s in players.items()
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n" + _damaged_line(history, path)


def _damaged_line(history: dict, path) -> str:
    damaged = history.get("damaged") or []
    if not damaged:
        return ""
    count = len(damaged)
    return (
        f"{count} damaged {noun(count, 'row')} skipped "
        f"({noun(count, 'entry', 'entries')} {', '.join(map(str, damaged))}): "
        f"run showdown-unit journal check --journal {path}\n"
    )
