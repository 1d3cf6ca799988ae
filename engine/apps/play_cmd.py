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
stops and asks you before anyone else's claim counts (its game's EPILOG says more).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
from pathlib import Path

from engine.apps.play import UNITS, play_game, terminal_game
from engine.apps.players import (
    MAX_PARTY_PLAYERS,
    MAX_PLAYERS,
    bot_skill,
    parse_players,
    seat_names,
)
from engine.apps.screen import terminal_control
from engine.game.registry import FAMILIES, all_variants, family, family_playing
from engine.units import is_unit_url, names_for_unit, token_from_text
from firmware_host.people.console import UsageError, positive_int, seed, whole_number

__all__ = ["add_arguments", "command", "read_token", "unit_argument", "DEFAULT_VARIANT"]

#: What ``showdown play`` plays without ``--variant``; the defaults shown are its game's.
DEFAULT_VARIANT = "showdown"


class _DefaultPlayers(list):
    """``--players`` left out: the game's own seats apply (the default variant's
    here, for the help and the tests, told apart from typed players by its type)."""


class _DefaultTarget(int):
    """``--target`` left out: each game's own applies (an int, for the help and
    the tests, told apart from a typed ``--target 500`` by its type)."""


def _epilog() -> str:
    """Every family's word on its games at the terminal, one paragraph each,
    folded to the terminal's width (the parser shows it as it is)."""
    width = min(shutil.get_terminal_size().columns, 100) - 2
    return "\n\n".join(
        textwrap.fill(terminal_game(family(name).variants[0]).EPILOG, width) for name in FAMILIES
    )


def _targets() -> str:
    """Each family's default target: "500 in classic/showdown/party, 52 in pitch"."""
    targets = []
    for name in FAMILIES:
        variants = family(name).variants
        targets.append(f"{terminal_game(variants[0]).TARGET} in {'/'.join(variants)}")
    return ", ".join(targets)


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
    default_game = terminal_game(DEFAULT_VARIANT)
    default_seats = default_game.seats(DEFAULT_VARIANT, None)
    parser.epilog = _epilog()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # the epilog's paragraphs
    parser.add_argument(
        "--players",
        type=_players,
        default=_DefaultPlayers(parse_players(",".join(default_seats))),
        help='seats in order: names of people, "bot" (heuristic), "strong" (search) or '
        '"random"; '
        "a bot may take its reaction in ms for a unit to press with, 100-1000: "
        f'"bot:180"; 2-{MAX_PLAYERS} players, 2-{MAX_PARTY_PLAYERS} in party '
        f'(default: "{",".join(default_seats)}"; in party: You and 7 bots)',
    )
    parser.add_argument(
        "--variant",
        choices=all_variants(),
        default=DEFAULT_VARIANT,
        help=f"the game (default: {DEFAULT_VARIANT}); party: UNO Party!, pitch: 10 Point Pitch, "
        "see below",
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
        "--target",
        type=positive_int,
        default=_DefaultTarget(default_game.TARGET),
        help=f"points that win the match (default: the game's: {_targets()})",
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
    a bad token file, players the game cannot seat) are a UsageError
    (``showdown play: error: ...``, exit 2). The game that plays ``--variant``
    decides its seats, whether it takes a unit and its default target."""
    terminal = terminal_game(args.variant)
    given = None if isinstance(args.players, _DefaultPlayers) else args.players
    try:
        players = terminal.seats(args.variant, given)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    _check_bots(args.variant, players)
    refusal = terminal.unit_refusal(args.variant)
    if refusal is not None and args.unit != "sim":
        raise UsageError(refusal)
    options = None
    if args.unit not in UNITS:
        try:
            names_for_unit(seat_names(players))
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
        target=None if isinstance(args.target, _DefaultTarget) else args.target,
        input_fn=input,
        print_fn=print,
        control_fn=terminal_control(sys.stdout) if sys.stdout.isatty() else None,
        unit_options=options,
    )


def _check_bots(variant: str, players: list[str]) -> None:
    """UsageError for a bot the game that plays ``variant`` does not have."""
    kinds = getattr(family_playing(variant), "bot_kinds", None)
    if kinds is None:  # a family without bots by kind yet: the game says
        return
    for entry in players:
        skill = bot_skill(entry)
        if skill is not None and skill[0] not in kinds:
            raise UsageError(
                f"{entry!r}: --variant {variant} has no {skill[0]!r} bot "
                f"(its bots: {', '.join(kinds)})"
            )
