"""``showdown league``: the venue league's server.

Subscribes to the broker for every unit's results and statuses (of every venue,
or of ``--venue`` only), stores each result once (``--db``: SQLite in a file by
default, ``postgresql://...`` for a league), acks it to its unit, and serves the
standings and units pages (``--listen``). A broker that is down at the start
is retried, and said so, while the pages serve what is stored. Ctrl-C or
SIGTERM stops it cleanly. docs/league.md is the organiser's page.

This module imports no web or MQTT library until the command runs, so
``showdown --help`` works without the ``league`` extra.
"""

from __future__ import annotations

import argparse
import logging
import signal
from pathlib import Path
from typing import Any

from engine.apps.table.guard import add_allow_host_argument
from firmware_host.people.console import UsageError
from firmware_host.protocol.league import WireError, broker_port, clean_place, split_broker

__all__ = ["add_arguments", "command", "DEFAULT_DB", "DEFAULT_PORT"]

log = logging.getLogger(__name__)

DEFAULT_DB = "sqlite:./league.sqlite3"
DEFAULT_PORT = 8090


def _address(text: str) -> tuple[str, int]:
    """--listen HOST:PORT (or :PORT, on loopback), as the table reads it."""
    from engine.apps.table.table_cmd import parse_listen

    try:
        host, port = parse_listen(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return host or "127.0.0.1", port


def _broker(text: str) -> tuple[str, int | None]:
    """--broker HOST[:PORT]: (host, port), the port None when left out (1883, or
    8883 with --tls)."""
    try:
        return split_broker(text)
    except WireError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _venue(text: str) -> str:
    try:
        return clean_place(text, "the venue")
    except WireError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--broker",
        type=_broker,
        required=True,
        metavar="HOST:PORT",
        help="the MQTT broker the units' uplinks publish to (port 1883 unless given; "
        "8883 with --tls)",
    )
    parser.add_argument("--username", default=None, metavar="U", help="the broker login's name")
    parser.add_argument(
        "--password-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="a file holding the broker login's password on its first line (with --username)",
    )
    parser.add_argument("--tls", action="store_true", help="talk to the broker over TLS")
    parser.add_argument(
        "--ca-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="TLS, the broker's certificate checked against the CA certificate(s) in FILE "
        "(as the uplink's --ca-file; --tls alone: the system's)",
    )
    parser.add_argument(
        "--db",
        default=DEFAULT_DB,
        metavar="URL",
        help=f"where results are kept: sqlite:PATH, a file path, or postgresql://... "
        f"(default: {DEFAULT_DB})",
    )
    parser.add_argument(
        "--listen",
        type=_address,
        default=("127.0.0.1", DEFAULT_PORT),
        metavar="HOST:PORT",
        help=f"where the pages are served (default: 127.0.0.1:{DEFAULT_PORT}; "
        f"0.0.0.0:{DEFAULT_PORT} for the venue's network)",
    )
    add_allow_host_argument(parser, "league")
    parser.add_argument(
        "--venue",
        type=_venue,
        default=None,
        metavar="V",
        help="take the results of this venue only (default: every venue on the broker)",
    )


def _password(args: argparse.Namespace) -> str | None:
    if args.password_file is None:
        if args.username is not None:
            raise UsageError("--username needs --password-file FILE (the broker's password)")
        return None
    if args.username is None:
        raise UsageError("--password-file is for a broker login: give --username too")
    try:
        lines = args.password_file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--password-file {args.password_file}: cannot read it: {exc}") from None
    if not lines or not lines[0]:
        raise UsageError(f"--password-file {args.password_file}: its first line is empty")
    return lines[0]


def _broker_options(args: argparse.Namespace) -> Any:
    from engine.league.ingest import Broker

    if args.ca_file is not None:
        if not args.ca_file.is_file():
            raise UsageError(f"--ca-file {args.ca_file}: no such file")
        args.tls = True  # a CA file is TLS, as for the uplink
    host, port = args.broker
    port = broker_port(port, args.tls)
    return Broker(
        host,
        port,
        username=args.username,
        password=_password(args),
        tls=args.tls,
        cafile=None if args.ca_file is None else str(args.ca_file),
    )


def _open_store(url: str) -> Any:
    from engine.league.store import StoreError
    from engine.league.store_open import open_store

    try:
        return open_store(url)
    except StoreError as exc:
        raise UsageError(f"--db: {exc}") from None


#: What ``showdown league`` imports from each extra: the table's web server, the broker's client.
_EXTRAS = {"uvicorn": "table", "starlette": "table", "h11": "table", "paho": "league"}


def check_extras() -> None:
    """UsageError naming the extras to install when a library the league needs is missing."""
    missing = sorted({extra for module, extra in _EXTRAS.items() if not _importable(module)})
    if missing:
        raise UsageError(
            f"showdown league needs the {' and '.join(missing)} extra"
            f"{'s' if len(missing) > 1 else ''}: pip install 'uno-showdown[table,league]'"
        )


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def command(args: argparse.Namespace) -> int:
    check_extras()
    from engine.apps.table.guard import Hosts
    from engine.apps.table.table_cmd import check_free, lan_address
    from engine.apps.table.transport import uvicorn_config
    from engine.league.ingest import Ingest
    from engine.league.store import safe_url
    from engine.league.web import Changes, create_app

    broker = _broker_options(args)
    host, port = args.listen
    store = _open_store(args.db)
    try:
        check_free(host, port)
    except BaseException:
        store.close()
        raise
    changes = Changes()
    ingest = Ingest(
        store,
        broker,
        venue=args.venue,
        on_change=changes.notify,
        on_connected=changes.broker_link,
    )
    changes.broker = "reconnecting"
    wildcard = host in ("0.0.0.0", "::")
    shown = lan_address() if wildcard else host
    app = create_app(store, changes, hosts=Hosts.serving(host, shown, args.allow_host))
    shown = f"[{shown}]" if ":" in shown else shown
    print(f"The league: results in {safe_url(args.db)}")
    print(f"  standings: http://{shown}:{port}/")
    print(f"  units:     http://{shown}:{port}/units")
    where = f"venue {args.venue}" if args.venue else "every venue"
    print(f"  broker:    {broker}, {where}")
    print("Ctrl-C stops the league.", flush=True)
    ingest.start()
    try:
        _league_server(uvicorn_config(app, host=host, port=port)).run()
    except KeyboardInterrupt:
        pass  # uvicorn shut down cleanly, then passed the Ctrl-C on
    finally:
        ingest.stop()
        store.close()
    print("The league is closed.")
    return 0


def _league_server(config: Any) -> Any:
    """uvicorn's Server for ``config``, SIGTERM a clean stop (see below)."""
    import uvicorn

    class LeagueServer(uvicorn.Server):
        """uvicorn's server, but SIGTERM is a clean stop: uvicorn raises the
        signal again after its shutdown (the process dies by it, before the
        ingest's last batch is acked and the store closed); here serving ends
        and the command stops the rest. Ctrl-C still comes back as
        KeyboardInterrupt, which the command catches."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            if sig == signal.SIGTERM:
                self._captured_signals.remove(sig)

    return LeagueServer(config)
