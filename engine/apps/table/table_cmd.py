"""``showdown table``: the table in a browser, served for one table.

A display (a TV, a laptop) opens ``http://HOST:PORT/``; each person opens the
phone page (``/phone``, by the QR code), takes a seat and a name; the host
starts the match from the display and the empty seats become bots. It listens
on loopback unless told (``--listen``), or on every address with ``--lan``,
which prints the join URL by IP address (older phones cannot resolve ``.local``)
and its QR code in the terminal. The match is saved after every action and
``--resume`` continues it. Ctrl-C stops the server.

This module imports no web library until the command runs, so ``showdown
--help`` works without the ``table`` extra.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import socket
import sys
from pathlib import Path

from engine.apps.play import UNITS
from engine.apps.play_cmd import read_token, unit_argument
from engine.units import is_unit_url
from firmware_host.protocol.console import CommandError, UsageError, seed, whole_number

__all__ = [
    "add_arguments",
    "command",
    "parse_listen",
    "lan_address",
    "check_free",
    "default_save_path",
]

DEFAULT_PORT = 8700
_CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read aloud across a room


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``:PORT``, or ``PORT``) -> (host, port); ValueError otherwise.

    >>> parse_listen("127.0.0.1:8700"), parse_listen(":9000"), parse_listen("[::1]:80")
    (('127.0.0.1', 8700), ('', 9000), ('::1', 80))
    """
    host, colon, port = text.rpartition(":")
    if not colon:
        host, port = "", text
    host = host.removeprefix("[").removesuffix("]")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: give HOST:PORT with a port from 1 to 65535, e.g. 0.0.0.0:8700")
    return host, int(port)


def _listen(text: str) -> tuple[str, int]:
    try:
        return parse_listen(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def lan_address() -> str:
    """This machine's address on the LAN (the one its default route leaves by);
    no packet is sent. 127.0.0.1 when there is no network."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routing only, nothing is sent
        return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def default_save_path() -> Path:
    """``$XDG_STATE_HOME/uno-showdown/table.json`` (``~/.local/state`` by default)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "uno-showdown" / "table.json"


def check_free(host: str, port: int) -> None:
    """CommandError, saying what to do, if nothing can listen on ``host:port``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CommandError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
                "choose another with --listen HOST:PORT"
            ) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--unit",
        type=unit_argument,
        default="sim",
        metavar="sim|manual|URL",
        help="showdowns simulated (sim, the default), reported by hand at this terminal "
        "(manual), or fought on the unit at URL (socket://HOST:PORT or a serial device)",
    )
    parser.add_argument(
        "--token-file", metavar="FILE", default=None, help="the unit's shared token (--unit URL)"
    )
    parser.add_argument(
        "--listen",
        type=_listen,
        default=None,
        metavar="HOST:PORT",
        help=f"where to listen (default: 127.0.0.1:{DEFAULT_PORT}; "
        f"with --lan 0.0.0.0:{DEFAULT_PORT})",
    )
    parser.add_argument(
        "--lan",
        action="store_true",
        help="listen on the LAN: print the join URL by IP address and its QR code",
    )
    parser.add_argument(
        "--seats", type=whole_number(2, 10), default=4, help="seats at the table (default: 4)"
    )
    parser.add_argument(
        "--seed", type=seed, default=None, help="shuffle seed, to replay a match (default: random)"
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.8,
        metavar="SECONDS",
        help="pause between bot moves, so people can follow (default: 0.8)",
    )
    parser.add_argument(
        "--save",
        type=Path,
        default=None,
        metavar="FILE",
        help="where the match is saved after every action (default: "
        "$XDG_STATE_HOME/uno-showdown/table.json)",
    )
    parser.add_argument(
        "--resume", action="store_true", help="continue the match saved in the save file"
    )


def command(args: argparse.Namespace) -> int:
    from engine.apps.table.room import Room
    from engine.apps.table.server import UnitHooks, create_app, serve
    from engine.units import ManualUnit, RemoteUnit, SimulatedUnit, UnitPort

    if args.token_file is not None and args.unit in UNITS:
        raise UsageError("--token-file is for a unit at a URL (--unit socket://...)")
    if not 0 <= args.pace <= 10:
        raise UsageError(f"--pace must be from 0 to 10 seconds, not {args.pace:g}")
    if args.listen is not None:
        host, port = args.listen
        host = host or ("0.0.0.0" if args.lan else "127.0.0.1")
    else:
        host, port = ("0.0.0.0" if args.lan else "127.0.0.1"), DEFAULT_PORT
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    base = f"http://{shown}:{port}"
    join_url = f"{base}/phone"
    check_free(host, port)
    save = args.save or default_save_path()
    table_seed = args.seed if args.seed is not None else secrets.randbits(32)
    rng = random.Random(table_seed)
    hooks = UnitHooks()
    unit: UnitPort
    if is_unit_url(args.unit):
        token = None
        if args.token_file is not None:
            try:
                token = read_token(args.token_file)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
        unit = RemoteUnit(args.unit, table=hooks, say=hooks.say, token=token)
    elif args.unit == "manual":
        unit = ManualUnit(input, print)
    else:
        unit = SimulatedUnit(random.Random(rng.getrandbits(64)))
    letters = random.Random(table_seed)
    code = "".join(letters.choice(_CODE_LETTERS) for _ in range(4))
    room = Room(seats=args.seats, rng=rng, unit=unit, code=code, join_url=join_url, save=save)
    if args.resume:
        try:
            room.restore(json.loads(save.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise UsageError(f"--resume: {save}: no such file (no match was saved there)") from None
        except (OSError, ValueError) as exc:
            raise UsageError(f"--resume: {save}: {exc}") from None
        room.code, room.join_url = code, join_url
    app = create_app(room, pace_s=args.pace, hooks=hooks)
    print(f"The table (room {code}), seed {table_seed}:")
    print(f"  display: {base}/")
    print(f"  phones:  {join_url}")
    print(f"  saved to {save}" + (" (resumed)" if args.resume else ""))
    if args.lan:
        import segno

        segno.make(join_url).terminal(out=sys.stdout, compact=True)
    elif host in ("127.0.0.1", "::1", "localhost"):
        print("  (loopback only: phones cannot reach it; --lan opens it to the LAN)")
    print("Ctrl-C stops the table.", flush=True)
    try:
        serve(app, host, port)
    except KeyboardInterrupt:
        pass  # uvicorn shut down cleanly, then passed the Ctrl-C on
    finally:
        if isinstance(unit, RemoteUnit):
            unit.close()
    print("The table is closed.")
    return 0
