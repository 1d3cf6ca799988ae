"""``showdown-unit history``: recent results and each player's reaction times.

Reads the journal read-only, so it is safe while the daemon runs. With no
``--journal`` it looks where the daemon writes (``journal.path`` in the
config, else the default place); if there is no file there yet it says "no
results yet" and exits 0. A ``--journal`` file that does not exist is an error
(exit 1): the user named a file, and it is not there. Rows that are damaged
are skipped, and a last line says which and how to learn more.

``showdown-unit journal check`` finds the journal the same way
(:func:`add_journal_arguments`, :func:`journal_location`).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from firmware_host.service.config import add_config_argument, load_for_command
from firmware_host.service.journal import Journal, JournalError, default_journal_path

__all__ = ["add_arguments", "command", "render_text", "add_journal_arguments",
           "journal_location"]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, not {text!r}")
    return value


def add_arguments(parser) -> None:
    parser.add_argument("--player", metavar="NAME",
                        help="only showdowns this player took part in (exact name)")
    parser.add_argument("--limit", type=_positive, metavar="N",
                        help="how many results to show (default: journal.history_limit)")
    parser.add_argument("--json", action="store_true",
                        help='print {"results": [...], "players": {...}, "damaged": [...]} '
                             'as JSON')
    add_journal_arguments(parser)


def add_journal_arguments(parser) -> None:
    """``--config`` and ``--journal``, for every command that reads the journal."""
    add_config_argument(parser)
    parser.add_argument("--journal", metavar="PATH",
                        help="the journal file (default: where the daemon keeps it)")


def journal_location(args, config) -> Path:
    """The journal a reading command looks at: ``--journal``, else where the
    daemon keeps it (``journal.path``, else the default place)."""
    if args.journal:
        return Path(args.journal)
    return default_journal_path(config.journal.path, mock=config.backend == "mock")


def command(args) -> int:
    config = load_for_command(args.config)
    if config is None:
        return 1
    limit = args.limit or config.journal.history_limit
    path = journal_location(args, config)
    if args.journal and not path.exists():
        print(f"error: {path}: no such journal file", file=sys.stderr)
        return 1
    if not path.exists():
        history = {"results": [], "players": {}, "damaged": []}
        if not args.json:
            print(f"no results yet ({path} does not exist)")
            return 0
    else:
        try:
            with Journal(path, readonly=True) as journal:
                history = journal.history(limit, args.player)
        except JournalError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
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
    lines += [_result_line(result) for result in results]
    lines += ["", "Reaction times (all recorded showdowns):"]
    header = ("player", "showdowns", "median", "best", "false starts", "wins", "losses")
    rows = [(name, str(s["showdowns"]), _ms(s["median_reaction_us"]), _ms(s["best_reaction_us"]),
             str(s["false_starts"]), str(s["wins"]), str(s["losses"]))
            for name, s in players.items()]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n" + _damaged_line(history, path)


def _damaged_line(history: dict, path) -> str:
    damaged = history.get("damaged") or []
    if not damaged:
        return ""
    rows = "row" if len(damaged) == 1 else "rows"
    entries = "entry" if len(damaged) == 1 else "entries"
    return (f"{len(damaged)} damaged {rows} skipped ({entries} {', '.join(map(str, damaged))}): "
            f"run showdown-unit journal check --journal {path}\n")


def _result_line(result: dict) -> str:
    players = result.get("players") or {}
    name = {side: players.get(side, "?") for side in ("a", "b")}
    winner, loser, reason = result.get("winner"), result.get("loser"), result.get("reason")
    if reason == "false_start" and loser in name:
        outcome = f"false start by {name[loser]}"
    elif winner in name:
        outcome = f"{name[winner]} won ({reason})"
    elif reason == "timeout":
        outcome = "nobody pressed in time"
    else:
        outcome = f"no winner ({reason})"
    reaction = result.get("reaction_us") or {}
    launch = result.get("launch")
    cards = result.get("cards")
    launched = _launch_text(launch, cards, result.get("cards_counted"))
    return "  ".join([
        _local_time(result.get("recorded_at")),
        str(result.get("showdown_id")),
        f"{name['a']} vs {name['b']}",
        outcome,
        f"A {_ms(reaction.get('a'))}",
        f"B {_ms(reaction.get('b'))}",
        f"margin {_ms(result.get('margin_us'))}",
        launched,
    ])


def _launch_text(launch, cards, counted) -> str:
    if launch in (None, "none"):
        return "no launch"
    if launch == "pending":
        return f"{cards} cards launching"
    if launch == "interrupted":
        return (f"launch of {cards} cards interrupted"
                + ("" if counted is None else f", {counted} counted out"))
    return f"{cards} cards {launch}"


def _ms(microseconds) -> str:
    if not isinstance(microseconds, (int, float)) or isinstance(microseconds, bool):
        return "-"
    return f"{microseconds / 1000:.1f} ms"


def _local_time(iso) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    except (TypeError, ValueError):
        return "?"
