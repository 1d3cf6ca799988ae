"""``showdown-unit history``: recent results and each player's reaction times.

Where it reads, one of:

- no flag: where the daemon on this machine writes (``journal.path`` in the
  config, else the default place: ``$STATE_DIRECTORY``, else
  ``~/.local/state/uno-showdown``; a config with ``backend = "mock"`` uses the
  mock unit's place);
- ``--mock``: where ``showdown-unit run --mock`` writes (``journal.path`` if
  set, else ``$TMPDIR/uno-showdown-mock-<uid>``), the same place the mock
  daemon uses, so a bench session's results are found with the same flag;
- ``--journal PATH``: that file;
- ``--unit URL``: a running unit's journal, over the link (the protocol's
  ``history`` command; ``socket://HOST:PORT`` or a serial device, and
  ``--token-file`` when the unit wants a token).

A journal file is read read-only, so it is safe while the daemon runs. If
there is none yet it says "no results yet" and exits 0 (and, without
``--mock``, points at the mock unit's results if there are some); a
``--journal`` file that does not exist is an error (exit 1): the user named a
file, and it is not there. ``--player`` matches names without regard to
case; a name the journal does not know is an error (exit 1) that lists the
names it knows. Rows that are damaged are skipped, and a last line says which
and how to learn more. Each result's line is
:func:`firmware_host.people.words.history_line`; a bot's name is marked
"(bot)", and bots' figures are a table of their own, never in people's.

``showdown-unit journal check`` finds the journal the same way
(:func:`add_journal_arguments`, :func:`journal_location`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from firmware_host.commands.unit_client import UnitClient, read_token
from firmware_host.people.console import CommandError, positive_int
from firmware_host.people.words import history_line, ms, noun
from firmware_host.protocol import clean_name
from firmware_host.service.config import add_config_argument, load_config
from firmware_host.service.journal import Journal, default_journal_path

__all__ = ["add_arguments", "command", "render_text", "add_journal_arguments", "journal_location"]

#: What marks a bot's name in the text output.
BOT_MARK = " (bot)"


def add_arguments(parser) -> None:
    parser.epilog = (
        "Without --journal, --mock or --unit it reads the journal of the unit daemon on this "
        "machine. After a bench session with 'showdown-unit run --mock', read its results with "
        "'showdown-unit history --mock' (the mock unit keeps them apart from the real ones). "
        "--player matches names in any case; a name no showdown has is an error (exit 1) "
        "that lists the names there are. A bot's name is marked (bot), and the bots' figures "
        "are kept apart from people's."
    )
    parser.add_argument(
        "--player", metavar="NAME", help="only showdowns this player took part in (any case)"
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
        help='print {"results": [...], "players": {...}, "bots": {...}, "damaged": [...]}',
    )
    where = add_journal_arguments(parser)
    where.add_argument(
        "--unit",
        metavar="URL",
        help="read a running unit's journal over the link: socket://HOST:PORT or a serial "
        "device such as /dev/ttyUSB0",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help="with --unit: the file holding the unit's token (its server.token_file)",
    )


def add_journal_arguments(parser):
    """``--config`` and, one of them, ``--journal`` or ``--mock``, for every
    command that reads the journal; returns the group they are in."""
    add_config_argument(parser)
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--journal", metavar="PATH", help="the journal file (default: where the daemon keeps it)"
    )
    where.add_argument(
        "--mock",
        action="store_true",
        help="the mock unit's journal: where 'showdown-unit run --mock' writes",
    )
    return where


def journal_location(args, config) -> Path:
    """The journal a reading command looks at: ``--journal``, else where the
    daemon keeps it (``journal.path``, else the default place; ``--mock`` or
    a mock config: the mock unit's default place)."""
    if args.journal:
        return Path(args.journal)
    mock = getattr(args, "mock", False) or config.backend == "mock"
    return default_journal_path(config.journal.path, mock=mock)


def command(args) -> int:
    config = load_config(args.config, system=True)
    if args.token_file and not args.unit:
        raise CommandError("--token-file goes with --unit URL")
    player = None
    if args.player is not None:
        try:
            player = clean_name(args.player, "player")
        except ValueError as exc:  # the protocol's words, about the flag
            raise CommandError(str(exc).replace("field 'player' ", "--player ", 1)) from None
    if args.unit:
        history = _from_unit(args, config, player)
        text = render_text(history, f"the unit at {args.unit}", journal=None)
    else:
        path = journal_location(args, config)
        found = _from_file(args, config, path, player)
        if found is None:
            return 0
        history = found
        text = render_text(history, path, hint=_mock_hint(args, config, path))
    if args.json:
        print(json.dumps(history, indent=2, ensure_ascii=False))
    else:
        print(text, end="")
    return 0


def _from_file(args, config, path: Path, player: str | None) -> dict[str, Any] | None:
    """The history document of the journal at ``path``; None when it is not
    there yet (said so on stdout, exit 0)."""
    limit = args.limit or config.journal.history_limit
    if args.journal and not path.exists():
        raise CommandError(f"{path}: no such journal file")
    if not path.exists():
        if args.json:
            return {"results": [], "players": {}, "bots": {}, "damaged": []}
        print(f"no results yet ({path} does not exist)" + _mock_hint(args, config, path))
        return None
    with Journal(path, readonly=True) as journal:  # a JournalError: the scaffold's
        history = journal.history(limit, player)
        if player is not None and not _any(history):
            _unknown_player(player, journal.player_names(), path)
    return history


def _mock_hint(args, config, path: Path) -> str:
    """Where the mock unit's results are, when this was not that place and
    that place has a journal: a bench tester who ran ``run --mock`` looks there."""
    if args.journal or args.mock:
        return ""
    mock_path = default_journal_path(config.journal.path, mock=True)
    if mock_path == path or not mock_path.exists():
        return ""
    return (
        f"; the mock unit ('showdown-unit run --mock') keeps its results in {mock_path}: "
        "run 'showdown-unit history --mock'"
    )


def _from_unit(args, config, player: str | None) -> dict[str, Any]:
    """The history document of the running unit at ``--unit``."""
    token = read_token(args.token_file) if args.token_file else None
    asked: dict[str, Any] = {"player": player}
    if args.limit:
        asked["limit"] = args.limit
    with UnitClient(
        args.unit, token=token, token_file=args.token_file, baud=config.server.baud
    ) as unit:
        history = unit.request("history", **asked)
        history.setdefault("bots", {})  # a unit from before bots
        if player is not None and not _any(history):
            everyone = unit.request("history", limit=1)
            names = {*everyone.get("players", {}), *everyone.get("bots", {})}
            _unknown_player(player, sorted(names, key=lambda n: (n.casefold(), n)), args.unit)
    return history


def _any(history: dict) -> bool:
    return bool(history["results"] or history["players"] or history.get("bots"))


def _unknown_player(player: str, names: list[str], where) -> None:
    """Nothing for ``player``: an error listing the names there are (none
    at all: just no results yet, which is not an error)."""
    if names:
        raise CommandError(f"no player named {player!r} in {where}; known: {', '.join(names)}")


def _marked(result: dict) -> dict:
    """``result`` with each bot's name marked, for the text output."""
    bots = result.get("bots") or ()
    players = result.get("players")
    if not bots or not isinstance(players, dict):
        return result
    marked = {side: f"{name}{BOT_MARK}" if side in bots else name for side, name in players.items()}
    return {**result, "players": marked}


def render_text(
    history: dict, source: Path | str, *, journal: Path | str | None = "", hint: str = ""
) -> str:
    """The history document as lines for people: one per result (a bot's
    name marked), then a table of people's figures and one of the bots'
    (a bot's times never go into people's), then a line for any damaged rows
    that were skipped. Times are shown in local time. ``source`` says where
    it was read; ``journal`` is the file ``journal check`` would look at
    (None: the unit's own, over a link; "": ``source``); ``hint`` follows a
    "no results yet"."""
    results = history["results"]
    journal = source if journal == "" else journal
    if not results:
        return f"no results yet in {source}{hint}\n" + _damaged_line(history, journal)
    lines = [f"Recent results, newest first ({source}):"]
    lines += [history_line(_marked(result)) for result in results]
    people, bots = history["players"], history.get("bots") or {}
    if people:
        heading = "Reaction times (all recorded showdowns):"
        if bots:
            heading = "Reaction times of people (all recorded showdowns; the bots' are below):"
        lines += ["", heading, *_table(people)]
    if bots:
        lines += ["", "Bots (the unit pressed their paddles; all recorded showdowns):"]
        lines += _table(bots, "bot")
    return "\n".join(lines) + "\n" + _damaged_line(history, journal)


def _table(figures: dict, first: str = "player") -> list[str]:
    header = (first, "showdowns", "median", "best", "false starts", "wins", "losses")
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
        for name, s in figures.items()
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _damaged_line(history: dict, journal) -> str:
    damaged = history.get("damaged") or []
    if not damaged:
        return ""
    count = len(damaged)
    check = (
        "showdown-unit journal check on the unit"
        if journal is None
        else f"showdown-unit journal check --journal {journal}"
    )
    return (
        f"{count} damaged {noun(count, 'row')} skipped "
        f"({noun(count, 'entry', 'entries')} {', '.join(map(str, damaged))}): run {check}\n"
    )
