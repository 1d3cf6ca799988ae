"""``showdown-unit check-config``: check the config as the daemon does when it
starts, then print the effective config; or say the one thing wrong with it
(a :class:`~firmware_host.service.config.ConfigError`, said by the command
line's scaffold: the same line the daemon would print, exit 1 where the daemon
exits 78).

The checks are :func:`~firmware_host.service.daemon.check_start`, the very
function ``showdown-unit run`` calls before it starts: the file's keys and
values (the pin map included), the addresses, the token file, the journal's
file and folder and the pin backend's library. They run here, as whoever runs
this command: the service reads the token through its group and keeps its
journal in ``$STATE_DIRECTORY``. ``--file-only`` checks the file alone (what
the installer and ``motor-safe.sh`` need: they read a config meant for
another place or another user)."""

from __future__ import annotations

import dataclasses
import os

from firmware_host.service.config import add_config_argument, load_config

__all__ = ["add_arguments", "command", "render"]


def add_arguments(parser) -> None:
    add_config_argument(parser)
    parser.add_argument(
        "--file-only",
        action="store_true",
        help="check only the file's keys and values, not the token file, journal "
        "folder and pin backend it names on this machine",
    )


def command(args) -> int:
    from firmware_host.service import daemon  # the daemon's own start checks

    config = load_config(args.config, system=True)
    checked = None
    if not args.file_only:
        checked = daemon.check_start(config, default_source=daemon.config_source(args.config))
    print(render(config), end="")
    if checked is not None:
        print(_summary(config, checked), end="")
    return 0


def _summary(config, checked) -> str:
    """What the start checks found, as TOML comments after the config."""
    links = checked.links
    tcp = "no TCP"
    if links.listen is not None:
        auth = "clients send the token" if links.token is not None else "no token"
        tcp = f"tcp {links.listen[0]}:{links.listen[1]} ({auth})"
    serial = f", serial {links.serial}" if links.serial else ""
    journal = f"journal {checked.journal}"
    if (
        not config.journal.path
        and config.backend != "mock"
        and not os.environ.get("STATE_DIRECTORY")
    ):
        journal += " (yours: the service keeps its own in $STATE_DIRECTORY)"
    return (
        "\n# the daemon's start checks pass here:\n"
        f"#   {tcp}{serial}\n"
        f"#   {journal}\n"
        f"#   backend {config.backend}\n"
    )


def render(config) -> str:
    """The config as TOML that ``load_config`` reads back to the same value."""
    top, tables = [], []
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if dataclasses.is_dataclass(value):
            tables.append(f"\n[{field.name}]")
            for inner in dataclasses.fields(value):
                tables.append(f"{inner.name} = {_toml(getattr(value, inner.name))}")
        else:
            top.append(f"{field.name} = {_toml(value)}")
    return "\n".join(top + tables) + "\n"


def _toml(value) -> str:
    if value is None:
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)
