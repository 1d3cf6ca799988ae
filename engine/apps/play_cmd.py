"""``showdown play``: a match at the terminal for people sharing one screen, with bots.

``--players`` lists the seats in order: a name is a person, ``bot`` the
heuristic bot, ``random`` the random bot; ``bot:180`` a bot whose median
reaction after GO is 180 ms (100-1000) when a unit presses its paddle.
On a terminal each hand shows on a private screen that is wiped, scrollback
included, before the screen is passed on. Showdowns run on the simulated unit
(``--unit sim``), are reported by hand (``--unit manual``: type who won), or
are fought on a real unit (``--unit socket://HOST:PORT`` or ``--unit
/dev/ttyUSB0``: load the cards it names and press its timer button).

``--variant party`` plays UNO Party! (2-16 players, 6-16 the design range; by
default you and seven bots; no unit). A keyboard cannot race: whenever you may
act out of turn (you hold the card identical to the top discard while the
speed-play window is open, or a player can be caught without UNO), the game
stops and asks you before anyone else's claim counts. See ``PARTY_EPILOG``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.apps.play import (
    MAX_PARTY_PLAYERS,
    MAX_PLAYERS,
    PARTY_PLAYERS,
    UNITS,
    parse_players,
    play_game,
    seat_names,
)
from engine.apps.screen import terminal_control
from engine.units import is_unit_url, names_for_unit, token_from_text
from firmware_host.people.console import UsageError, positive_int, seed, whole_number

__all__ = ["add_arguments", "command", "read_token", "unit_argument", "PARTY_EPILOG"]

_DEFAULT_PLAYERS = parse_players("You,bot,bot,bot")

#: What ``showdown play --help`` says about UNO Party! at a keyboard.
PARTY_EPILOG = (
    "UNO Party! (--variant party): 224 cards, 2-16 players (6-16 is the design range); "
    "without --players you play against 7 heuristic bots. Speed play at a keyboard: "
    "there is no race to type in, so whenever you could act out of turn (you hold the "
    "card identical to the top discard while the window is open, or someone can be "
    "caught without UNO) the game stops before the next player plays and asks you first; "
    "Enter lets the chance pass, and a chance let pass is not offered again that turn. "
    "Your claim then counts as a person's: the bots' claims are settled against it by "
    "reaction time, as at a real table. Typing another card of your hand there is a "
    "wrong speed play (asked to confirm): it comes back and you draw 1. Point Taken: "
    "everyone points at once; your choice stays hidden until all are in, then every "
    "choice is shown together."
)


def _players(text: str) -> list[str]:
    try:
        return parse_players(text, MAX_PARTY_PLAYERS)
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
    parser.epilog = PARTY_EPILOG
    parser.add_argument(
        "--players",
        type=_players,
        default=_DEFAULT_PLAYERS,
        help='seats in order: names of people, "bot" (heuristic) or "random"; '
        "a bot may take its reaction in ms for a unit to press with, 100-1000: "
        f'"bot:180"; 2-{MAX_PLAYERS} players, 2-{MAX_PARTY_PLAYERS} in party '
        '(default: "You,bot,bot,bot"; in party: You and 7 bots)',
    )
    parser.add_argument(
        "--variant",
        choices=("showdown", "classic", "party"),
        default="showdown",
        help="the rules (default: showdown); party: UNO Party!, see below",
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
    players = args.players
    if args.variant == "party":
        if players is _DEFAULT_PLAYERS:
            players = list(PARTY_PLAYERS)
        if args.unit != "sim":
            raise UsageError("UNO Party! has no showdowns: it takes no --unit")
    elif len(players) > MAX_PLAYERS:
        raise UsageError(
            f"{len(players)} players: {args.variant} takes 2-{MAX_PLAYERS} "
            f"(only --variant party takes up to {MAX_PARTY_PLAYERS})"
        )
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
        players,
        variant=args.variant,
        unit=args.unit,
        seed=args.seed,
        target=args.target,
        input_fn=input,
        print_fn=print,
        control_fn=terminal_control(sys.stdout) if sys.stdout.isatty() else None,
        unit_options=options,
    )
