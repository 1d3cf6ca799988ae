"""``showdown play``: a match at the terminal for people sharing one screen, with bots.

``--players`` lists the seats in order: a name is a person, ``bot`` the
heuristic bot, ``random`` the random bot; ``bot:180`` a bot whose median
reaction after GO is 180 ms (100-1000) when a unit presses its paddle.
On a terminal each hand shows on a private screen that is wiped, scrollback
included, before the screen is passed on. Showdowns run on the simulated unit
(``--unit sim``), are reported by hand (``--unit manual``: type who won), or
are fought on a real unit (``--unit socket://HOST:PORT`` or ``--unit
/dev/ttyUSB0``: load the cards it names and press its timer button).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.apps.play import UNITS, parse_players, play_game, seat_names
from engine.apps.screen import terminal_control
from engine.units import is_unit_url, names_for_unit, token_from_text
from firmware_host.protocol.console import UsageError, positive_int, seed, whole_number

__all__ = ["add_arguments", "command", "read_token", "unit_argument"]


def _players(text: str) -> list[str]:
    try:
        return parse_players(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def unit_argument(text: str) -> str:
    """The --unit argument of play and table: sim, manual, or a unit's address."""
    if text in UNITS or is_unit_url(text):
        return text
    raise argparse.ArgumentTypeError(
        f"{text!r}: use sim, manual, or the unit's URL (socket://HOST:PORT) or serial device "
        "(/dev/...)"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players",
        type=_players,
        default=parse_players("You,bot,bot,bot"),
        help='seats in order: names of people, "bot" (heuristic) or "random"; '
        "a bot may take its reaction in ms for a unit to press with, 100-1000: "
        '"bot:180" (default: "You,bot,bot,bot")',
    )
    parser.add_argument(
        "--variant",
        choices=("showdown", "classic"),
        default="showdown",
        help="the rules (default: showdown)",
    )
    parser.add_argument(
        "--unit",
        type=unit_argument,
        default="sim",
        metavar="sim|manual|URL",
        help="showdowns simulated (sim, the default), reported by hand "
        "(manual), or fought on the unit at URL (socket://HOST:PORT, "
        "or a serial device such as /dev/ttyUSB0)",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        default=None,
        help="the unit's shared token, for a unit that listens beyond "
        "loopback (the file the daemon's --token-file names)",
    )
    parser.add_argument(
        "--baud",
        type=whole_number(50),
        default=115200,
        help="serial speed for a unit on a serial device (default: 115200)",
    )
    parser.add_argument(
        "--seed",
        type=seed,
        default=None,
        help="shuffle and bot seed, to replay a game (default: random; the game "
        "prints the one it uses)",
    )
    parser.add_argument(
        "--target", type=positive_int, default=500, help="points that win the match (default: 500)"
    )


def read_token(path) -> str:
    """The token in the file at ``path``, read as the daemon reads its own
    (``token_from_text``: one line of printable UTF-8, surrounding white space
    dropped). ValueError naming the file otherwise, in the daemon's words."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path}: not UTF-8 text (byte {exc.start}: {data[exc.start]:#04x})"
        ) from None
    return token_from_text(text, str(path))


def command(args: argparse.Namespace) -> int:
    """Play; arguments that do not fit together (a name the unit would refuse,
    a bad token file) are a UsageError (``showdown play: error: ...``, exit 2)."""
    options = None
    if args.unit not in UNITS:
        try:
            names_for_unit(seat_names(args.players))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        options = {"baudrate": args.baud}
        if args.token_file is not None:
            try:
                options["token"] = read_token(args.token_file)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
    elif args.token_file is not None:
        raise UsageError("--token-file is for a unit at a URL (--unit socket://...)")
    return play_game(
        args.players,
        variant=args.variant,
        unit=args.unit,
        seed=args.seed,
        target=args.target,
        input_fn=input,
        print_fn=print,
        control_fn=terminal_control(sys.stdout) if sys.stdout.isatty() else None,
        unit_options=options,
    )
