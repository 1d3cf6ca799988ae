"""``showdown-unit history``: recent results and each player's reaction times.

Reads the journal read-only, so it is safe while the daemon runs. With no
``--journal`` it looks where the daemon writes (``journal.path`` in the
config, else the default place); if there is no file there yet it says "no
results yet" and exits 0. A ``--journal`` file that does not exist is an error
(exit 1): the user named a file, and it is not there.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from firmware_host.config import add_config_argument, load_for_command
from firmware_host.journal import Journal, JournalError, default_journal_path

__all__ = ["add_arguments", "command", "render_text"]


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
                        help='print {"results": [...], "players": {...}} as JSON')
    add_config_argument(parser)
    parser.add_argument("--journal", metavar="PATH",
                        help="the journal file (default: where the daemon keeps it)")


def command(args) -> int:
    config = load_for_command(args.config)
    if config is None:
        return 1
    limit = args.limit or config.journal.history_limit
    if args.journal:
        path = Path(args.journal)
        if not path.exists():
            print(f"error: {path}: no such journal file", file=sys.stderr)
            return 1
    else:
        path = default_journal_path(config.journal.path, mock=config.backend == "mock")
    if not path.exists():
        history = {"results": [], "players": {}}
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
    of per-player figures. Times are shown in local time."""
    results, players = history["results"], history["players"]
    if not results:
        return f"no results yet in {path}\n"
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
    return "\n".join(lines) + "\n"


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
    launched = "no launch" if launch in (None, "none") else f"{cards} cards {launch}"
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


def _ms(microseconds) -> str:
    if not isinstance(microseconds, (int, float)) or isinstance(microseconds, bool):
        return "-"
    return f"{microseconds / 1000:.1f} ms"


def _local_time(iso) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    except (TypeError, ValueError):
        return "?"
