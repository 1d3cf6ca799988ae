"""``showdown table``: the table in a browser, served for one table.

The host's display (a TV, a laptop) opens the host URL printed at start,
``http://HOST:PORT/#host=KEY`` (the key makes it the host; ``http://HOST:PORT/``
alone is a spectator's display); each person opens the phone page
(``/phone?code=ABCD``, by the QR code on the host's display), takes a seat and a
name; the host starts the match and the empty seats become bots. It listens on
loopback unless told (``--listen``), or on every address with ``--lan``, which
prints the join URL by IP address (older phones cannot resolve ``.local``) and
its QR code in the terminal. The match is saved after every action and
``--resume`` continues it (with the same host key, unless ``--new-host-key``).
A lobby seat whose phone is away ``--seat-timeout`` seconds is freed. Ctrl-C
stops the server; ``new host key`` typed at its terminal replaces a lost key.

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
from typing import Any, NamedTuple

from engine.apps.play import UNITS
from engine.apps.play_cmd import read_token, unit_argument
from engine.apps.table.guard import add_allow_host_argument
from engine.apps.table.limits import Limits
from engine.units import is_unit_url
from firmware_host.people.console import CommandError, UsageError, seed, whole_number

__all__ = [
    "add_arguments",
    "command",
    "parse_listen",
    "unit_words",
    "lan_address",
    "check_free",
    "check_unit",
    "default_save_path",
]

DEFAULT_PORT = 8700


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


def default_save_path(companion: bool = False, name: str | None = None) -> Path:
    """``$XDG_STATE_HOME/uno-showdown/table.json`` (``~/.local/state`` by default);
    ``companion.json`` for companion mode, or the ``name`` a companion room gives
    (its ``SAVE_NAME``: Pitch's scorekeeper keeps its own file)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    if name is None:
        name = "companion.json" if companion else "table.json"
    return Path(state) / "uno-showdown" / name


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


def check_unit(unit) -> None:
    """Connect to the unit at start-up, as ``showdown play`` does: CommandError
    with what happened and what to do when it cannot be reached or is not
    ready, rather than a pause at the first showdown."""
    from engine.game.errors import UnitProblem

    try:
        unit.open()
    except UnitProblem as problem:
        unit.close()
        raise CommandError(f"{problem}. What to do: {problem.what_to_do}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    _unit_and_address_arguments(parser)
    _game_arguments(parser)
    _save_arguments(parser)
    _site_arguments(parser)


def _table_unit(text: str) -> str:
    """The table's --unit: what play takes, or ``phones`` (the players' phones as paddles)."""
    return text if text == "phones" else unit_argument(text)


def _unit_and_address_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--unit",
        type=_table_unit,
        default=None,
        metavar="phones|sim|manual|URL",
        help="showdowns fought on the two players' phones as paddles (phones, the default; "
        "sim with --companion, which has no phones), simulated with made-up reactions (sim), "
        "reported by hand at this terminal (manual), or fought on the unit at URL "
        "(socket://HOST:PORT or a serial device)",
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


def _game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seats",
        type=whole_number(2, 16),
        default=4,
        help="seats at the table (default: 4; up to 10, or 16 with --variant party)",
    )
    parser.add_argument(
        "--variant",
        choices=("showdown", "classic", "party", "pitch"),  # engine.apps.table.setup.VARIANTS
        default="showdown",
        help="the game the host's form offers first (default: showdown; the host may "
        "choose another before starting)",
    )
    parser.add_argument(
        "--seed", type=seed, default=None, help="shuffle seed, to replay a match (default: random)"
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.8,
        metavar="SECONDS",
        help="pause between bot moves, so people can follow (default: 0.8); "
        "0 also decides the simulated unit's showdowns at once, with no countdown",
    )


def _save_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--save",
        type=Path,
        default=None,
        metavar="FILE",
        help="where the match is saved after every action (default: "
        "$XDG_STATE_HOME/uno-showdown/table.json)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        metavar="FILE",
        help="keep each finished match (players, scores, winners) in this SQLite file, "
        "for the venue league's uplink (docs/league.md); default: not kept",
    )
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument(
        "--resume", action="store_true", help="continue the match saved in the save file"
    )
    parser.add_argument(
        "--companion",
        action="store_true",
        help="for a table playing with real cards: the display page keeps the score (UNO: "
        "and starts the showdowns on the unit; Pitch: hand by hand) with no phones, no hands",
    )
    resume.add_argument(
        "--resume-if-saved",
        action="store_true",
        help="continue the match saved in the save file if there is one, else start a new "
        "table (for a service: its first start has no save file)",
    )
    parser.add_argument(
        "--new-host-key",
        action="store_true",
        help="with --resume or --resume-if-saved: a new host key for the saved table (the "
        "old host URL stops working); a new table always has a new key",
    )


def _site_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seat-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="free a lobby seat (or one after a match is over) whose phone has been away "
        "this long (default: 120; 0: never)",
    )
    add_allow_host_argument(parser, "table")
    parser.add_argument(
        "--max-connections",
        type=whole_number(16, 100_000),
        default=Limits.max_connections,
        metavar="N",
        help="connections open at once, HTTP and WebSocket together (default: "
        f"{Limits.max_connections}); lowered with a warning if the open-file limit cannot "
        "hold them",
    )
    parser.add_argument(
        "--max-per-peer",
        type=whole_number(1, 100_000),
        default=Limits.max_per_peer,
        metavar="N",
        help=f"connections open at once from one address (default: {Limits.max_per_peer})",
    )


def command(args: argparse.Namespace) -> int:
    from engine.apps.table import access
    from engine.apps.table.guard import Hosts
    from engine.apps.table.host_console import HostConsole
    from engine.apps.table.panel import UnitPanel
    from engine.apps.table.server import UnitHooks, create_app, serve

    seat_timeout = _checked_options(args)
    book = None if args.results is None else _match_book(args.results)
    host, port, shown, base = _address(args)
    join_url = f"{base}/" if args.companion else f"{base}/phone"
    check_free(host, port)
    save = args.save or default_save_path(
        name=_companion_room(args.variant).SAVE_NAME if args.companion else None
    )
    table_seed = args.seed if args.seed is not None else secrets.randbits(32)
    rng = random.Random(table_seed)
    hooks = UnitHooks()
    wiring = _wiring(args, rng, hooks)
    unit, remote, addons, panel = wiring.unit, wiring.remote, wiring.addons, wiring.panel
    code = access.new_room_code()
    room = _new_room(args, rng, unit, code, join_url, save, base, seat_timeout)
    room.paddles = wiring.paddles
    room.match_book = book
    room.unit_words = unit_words(args.unit)
    resumed = _resume(args, room, save, code, join_url)
    for addon in addons:
        if isinstance(addon, UnitPanel):
            addon.gate = room.host_gate  # a press on the panel is the host's
    addons.append(HostConsole(room, base, read_stdin=args.unit != "manual"))
    if remote is not None:
        check_unit(remote)
    app = create_app(
        room,
        pace_s=args.pace,
        hooks=hooks,
        display_page=room.PAGE if args.companion else "display.html",
        addons=addons,
        limits=Limits(max_connections=args.max_connections, max_per_peer=args.max_per_peer),
        hosts=Hosts.serving(host, shown, args.allow_host),
    )
    _print_table(args, room, base, host, table_seed, save, resumed=resumed, panel=panel)
    try:
        serve(app, host, port)
    except KeyboardInterrupt:
        pass  # uvicorn shut down cleanly, then passed the Ctrl-C on
    finally:
        if remote is not None:
            remote.close()
    print("The table is closed.")
    return 0


def _match_book(path: Path):
    from engine.apps.table.match_book import MatchBook

    try:
        return MatchBook(path)
    except OSError as exc:
        raise UsageError(f"--results: {exc}") from None


def _checked_options(args: argparse.Namespace) -> float:
    """The options that go together checked (a UsageError if not); the seat timeout."""
    from engine.apps.table.lobby import DEFAULT_SEAT_TIMEOUT_S

    if args.unit is None:  # the default: the phones, where there are phones
        args.unit = "sim" if args.companion else "phones"
    if args.companion and args.results is not None:
        raise UsageError("--results keeps the phones' table's matches; not a companion table's yet")
    if args.companion and args.unit == "phones":
        raise UsageError("--unit phones is for the phones' table; --companion has no phones")
    if args.token_file is not None and (args.unit in UNITS or args.unit == "phones"):
        raise UsageError("--token-file is for a unit at a URL (--unit socket://...)")
    if not 0 <= args.pace <= 10:
        raise UsageError(f"--pace must be from 0 to 10 seconds, not {args.pace:g}")
    if args.companion and args.seats != 4:
        raise UsageError("--seats is for phones; with --companion the host names the players")
    if args.seats > 10 and args.variant != "party":
        raise UsageError(
            f"--seats {args.seats}: more than 10 seats only for UNO Party! (--variant party)"
        )
    if args.companion and args.variant == "party":
        raise UsageError("--variant party is played with phones, not with --companion")
    if args.companion and args.seat_timeout is not None:
        raise UsageError("--seat-timeout is for the phones' seats; --companion has none")
    seat_timeout = DEFAULT_SEAT_TIMEOUT_S if args.seat_timeout is None else args.seat_timeout
    if not 0 <= seat_timeout <= 86_400:
        raise UsageError(f"--seat-timeout must be from 0 to 86400 seconds, not {seat_timeout:g}")
    return float(seat_timeout)


def _address(args: argparse.Namespace) -> tuple[str, int, str, str]:
    """Where to listen (host, port), the address shown for it, and the table's base URL."""
    if args.listen is not None:
        host, port = args.listen
        host = host or ("0.0.0.0" if args.lan else "127.0.0.1")
    else:
        host, port = ("0.0.0.0" if args.lan else "127.0.0.1"), DEFAULT_PORT
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    return host, port, shown, f"http://{shown}:{port}"


def _companion_room(variant: str) -> Any:
    """The class of the companion room the family of ``variant`` names."""
    import importlib

    from engine.game.registry import family_playing

    module, _, name = family_playing(variant).companion.partition(":")
    return getattr(importlib.import_module(module), name)


def _new_room(
    args: argparse.Namespace,
    rng: random.Random,
    unit: Any,
    code: str,
    join_url: str,
    save: Path,
    base: str,
    seat_timeout: float,
) -> Any:
    """The game's room, or with ``--companion`` the one its family names."""

    from engine.apps.table.room import Room

    if args.companion:
        companion = _companion_room(args.variant)
        return companion(rng=rng, unit=unit, code=code, join_url=join_url, save=save, base_url=base)
    room = Room(
        seats=args.seats,
        rng=rng,
        unit=unit,
        code=code,
        join_url=join_url,
        save=save,
        base_url=base,
        seat_timeout_s=seat_timeout,
    )
    room.variant = args.variant
    return room


def _resume(args: argparse.Namespace, room: Any, save: Path, code: str, join_url: str) -> bool:
    """``--resume`` or ``--resume-if-saved``: the room restored from ``save``
    (the room code it had, a new host key with ``--new-host-key``); whether it was."""
    if not (args.resume or args.resume_if_saved):
        return False
    resumed = False
    flag = "--resume" if args.resume else "--resume-if-saved"
    try:
        room.restore(json.loads(save.read_text(encoding="utf-8")))
        resumed = True
    except FileNotFoundError:
        if args.resume:
            raise UsageError(f"--resume: {save}: no such file (no match was saved there)") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{flag}: {save}: {exc}") from None
    if resumed:  # the room code the table had: it may be written down or shown already
        code = room.code = saved_code(save) or code
    room.code, room.join_url = code, join_url
    if resumed and args.new_host_key:
        room.new_host_key()  # saved at once: the old key is gone even after a crash
    return resumed


def _print_table(
    args: argparse.Namespace,
    room: Any,
    base: str,
    host: str,
    table_seed: int,
    save: Path,
    *,
    resumed: bool,
    panel: bool,
) -> None:
    """The table's URLs, its seed and its save file, at the terminal (the phones' QR with --lan)."""
    from engine.apps.table import access

    code, join_url = room.code, room.join_url
    phones = join_url if args.companion else access.join_link(join_url, code)
    print(f"The table (room {code}), seed {table_seed}:")
    print(f"  host:    {access.host_url(base, room.host_key)}   (the host's: keep it secret)")
    if args.companion:
        print(f"  companion: {base}/   (a spectator's: the score, no host controls)")
    else:
        print(f"  display: {base}/   (a spectator's: no host controls)")
        print(f"  phones:  {phones}")
    print(f"  history: {base}/history")
    if panel:
        print(f"  unit panel: {base}/panel")
    if args.resume_if_saved and not resumed:
        print(f"  saved to {save} (nothing saved there yet: a new table)")
    else:
        print(f"  saved to {save}" + (" (resumed)" if resumed else ""))
    if args.lan:
        import segno

        segno.make(phones).terminal(out=sys.stdout, compact=True)
    elif host in ("127.0.0.1", "::1", "localhost"):
        print("  (loopback only: phones cannot reach it; --lan opens it to the LAN)")
    print("Ctrl-C stops the table.", flush=True)


def saved_code(save: Path) -> str | None:
    """The room code in the save file, if it holds a well-formed one."""
    try:
        code = json.loads(save.read_text(encoding="utf-8")).get("code")
    except (OSError, ValueError, AttributeError):
        return None
    from engine.apps.table.access import is_room_code

    return code if is_room_code(code) else None


def unit_words(unit: str) -> str:
    """Which unit fights the showdowns (``--unit``), in words for the display.

    >>> unit_words("phones")
    "Showdowns on the players' phones: each phone is a paddle (--unit phones)."
    """
    if unit == "phones":
        return "Showdowns on the players' phones: each phone is a paddle (--unit phones)."
    if unit == "manual":
        return "Showdowns fought by hand: their results are typed at the table's terminal."
    if unit == "sim":
        return "Showdowns on a simulated unit: nobody presses, the reactions are made up."
    return f"Showdowns on the UNO Showdown unit at {unit}."


class _Wiring(NamedTuple):
    """The unit port the table fights its showdowns on (every showdown recorded
    for the history page when there is no unit journal to read), the RemoteUnit
    when it is one, and the add-ons: the history page, and the unit panel when
    there is a unit to draw (a simulated one, or one on the network)."""

    unit: Any
    remote: Any
    addons: list[Any]
    panel: bool
    paddles: Any = None  # the phones' port, which the room hands the phones' taps


def _wiring(args: argparse.Namespace, rng: random.Random, hooks) -> _Wiring:
    from engine.apps.table.history_page import HistoryPage
    from engine.apps.table.panel import UnitPanel
    from engine.units import (
        LiveSimulatedUnit,
        ManualUnit,
        RemoteUnit,
        SimulatedUnit,
        UnitWatcher,
    )
    from engine.units.unit_history import HistoryBook, UnitHistory

    if is_unit_url(args.unit):
        token = None
        if args.token_file is not None:
            try:
                token = read_token(args.token_file)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
        # One id prefix for every run: the room's match ids are new for each match
        # and saved, so a resumed match arms the showdown it was fighting under
        # the same id, and the unit answers it from its journal (fought once).
        remote = RemoteUnit(args.unit, table=hooks, say=hooks.say, token=token, id_prefix="t")
        addons: list[Any] = [HistoryPage(UnitHistory(args.unit, token=token))]
        if "://" in args.unit:  # on the network: the panel watches over a link of its own
            addons.append(UnitPanel(UnitWatcher(args.unit, token=token)))
        return _Wiring(remote, remote, addons, panel=len(addons) > 1)
    book = HistoryBook()
    addons = [HistoryPage(book)]
    if args.unit == "manual":
        return _Wiring(book.recording(ManualUnit(input, print)), None, addons, panel=False)
    unit_rng = random.Random(rng.getrandbits(64))
    if args.unit == "phones":
        from engine.apps.table.phone_port import PhonePaddles

        pace_rng = random.Random(unit_rng.getrandbits(64))
        paddles = PhonePaddles(hooks.paddle, pace_rng=pace_rng, bot_rng=unit_rng)
        return _Wiring(book.recording(paddles), None, addons, panel=False, paddles=paddles)
    if args.pace == 0:  # no pauses for people: the showdowns are decided at once
        return _Wiring(book.recording(SimulatedUnit(unit_rng)), None, addons, panel=False)
    panel = UnitPanel()
    live = LiveSimulatedUnit(unit_rng, table=panel.table(hooks), say=hooks.say)
    return _Wiring(book.recording(live), None, [*addons, panel], panel=True)
