"""``showdown-unit uplink``: send every result of this unit to the venue's league.

A service of its own beside the unit daemon (systemd/uno-showdown-uplink.service):
it reads the journal read-only, publishes each result over MQTT and resends it
until the league's ack names it (docs/uplink.md). Settings come from the
``[uplink]`` table of ``/etc/uno-showdown/uplink.toml`` (or ``--config``) and
the flags below, which override it. SIGTERM or Ctrl-C stop it cleanly: it says
offline first. Exit 78 (EX_CONFIG, which systemd does not restart) for a bad
setting or a unit name another machine is online with; 0 when stopped.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from pathlib import Path
from typing import Any

from firmware_host.people.console import CommandError, positive_int, seconds, whole_number
from firmware_host.service.config import ConfigError, load_config
from firmware_host.service.journal_files import default_journal_path
from firmware_host.uplink import (
    NameClashError,
    UplinkConfigError,
    UplinkError,
    load_uplink_config,
)

__all__ = ["add_arguments", "command", "EX_CONFIG"]

log = logging.getLogger(__name__)

#: A setting the uplink cannot run with, or a name taken: a restart cannot fix it.
EX_CONFIG = 78
_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

#: flag -> (config key, argparse keywords); the key's default is the config's.
_FLAGS: dict[str, tuple[str, dict[str, Any]]] = {
    "--broker": (
        "broker",
        {"metavar": "HOST[:PORT]", "help": "the MQTT broker (port 1883, 8883 with TLS)"},
    ),
    "--venue": ("venue", {"metavar": "NAME", "help": "the venue's name, like bar-1"}),
    "--unit": ("unit", {"metavar": "NAME", "help": "this unit's name, unique in the venue"}),
    "--journal": (
        "journal",
        {"metavar": "PATH", "help": "the unit's journal (default: the daemon's)"},
    ),
    "--matches": (
        "matches",
        {"metavar": "PATH", "help": "the table's match book (SQLite), if any"},
    ),
    "--state": (
        "state",
        {
            "metavar": "DIR",
            "help": "the folder of the uplink's state file (default: the journal's)",
        },
    ),
    "--username": ("username", {"metavar": "NAME", "help": "the broker's user name"}),
    "--password-file": (
        "password_file",
        {"metavar": "FILE", "help": "its password, on the first line"},
    ),
    "--tls": (
        "tls",
        {"action": "store_const", "const": True, "help": "TLS to the broker (the system's CAs)"},
    ),
    "--ca-file": ("ca_file", {"metavar": "FILE", "help": "TLS with this CA certificate file"}),
    "--keepalive": (
        "keepalive_s",
        {
            "metavar": "S",
            "type": whole_number(1, 60),
            "help": "MQTT keepalive (default 10 s: a dead unit is offline within 15 s)",
        },
    ),
    "--window": (
        "window",
        {"metavar": "N", "type": positive_int, "help": "results in flight at most (default 200)"},
    ),
    "--resend-after": (
        "resend_after_s",
        {
            "metavar": "S",
            "type": seconds,
            "help": "resend a result not acked after this (default 5 s; doubled at each "
            "unanswered resend, up to 60 s)",
        },
    ),
    "--poll": (
        "poll_s",
        {"metavar": "S", "type": seconds, "help": "read the journal this often (default 0.5 s)"},
    ),
    "--status-every": (
        "status_every_s",
        {
            "metavar": "S",
            "type": seconds,
            "help": "publish the status at least this often (default 10 s)",
        },
    ),
    "--ha-discovery": (
        "ha_prefix",
        {
            "metavar": "PREFIX",
            "nargs": "?",
            "const": "homeassistant",
            "help": "publish Home Assistant discovery configs (prefix default homeassistant)",
        },
    ),
}


def add_arguments(parser) -> None:
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the uplink's TOML file (default: /etc/uno-showdown/uplink.toml if present)",
    )
    parser.add_argument(
        "--unit-config",
        metavar="FILE",
        help="the unit's config, where its journal is found "
        "(default: /etc/uno-showdown/unit.toml if present)",
    )
    for flag, (key, keywords) in _FLAGS.items():
        parser.add_argument(flag, dest=key, default=None, **keywords)


def settings(args: argparse.Namespace):
    """The uplink's config from the file and the flags; exit 78 if it is bad."""
    flags = {key: getattr(args, key, None) for key, _ in _FLAGS.values()}
    if flags["ha_prefix"] is not None:
        flags["ha_discovery"] = True
    try:
        return load_uplink_config(args.config, flags)
    except UplinkConfigError as exc:
        raise CommandError(str(exc), EX_CONFIG) from None


def journal_path(config, args) -> Path:
    """``journal`` if set, else where the unit daemon of this machine keeps it."""
    if config.journal:
        return Path(config.journal)
    try:
        unit = load_config(args.unit_config, system=True)
    except ConfigError as exc:
        raise CommandError(str(exc), EX_CONFIG) from None
    return default_journal_path(unit.journal.path, mock=unit.backend == "mock")


def command(args) -> int:
    from firmware_host.uplink.service import Uplink  # paho: only for this command

    config = settings(args)
    try:
        uplink = Uplink(config, journal_path(config, args))
    except UplinkError as exc:
        raise CommandError(str(exc)) from None
    restore = _install_signals(uplink)
    # One line for the person who started it (the rest goes to the log, -v).
    print(
        f"The uplink: {config.venue}/{config.unit} to the broker at {config.host}:{config.port}, "
        f"from {uplink.journal}. Ctrl-C stops it.",
        flush=True,
    )
    try:
        return uplink.run()
    except NameClashError as exc:
        raise CommandError(str(exc), EX_CONFIG) from None
    except UplinkError as exc:
        raise CommandError(str(exc)) from None
    finally:
        restore()
        uplink.close()


def _install_signals(uplink):
    """SIGTERM, SIGINT, SIGHUP: noted on the uplink's mailbox, which stops."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous_fd = signal.set_wakeup_fd(uplink.mailbox.wakeup_fd)
    previous = {signum: signal.signal(signum, _noted) for signum in _SIGNALS}

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(previous_fd)

    return restore


def _noted(signum, frame) -> None:
    """Nothing to do: the number is on the mailbox's pipe already."""
