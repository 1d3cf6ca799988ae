"""``showdown-unit check-config``: print the effective config, or the one error line
(a :class:`~firmware_host.service.config.ConfigError`, said by the command line's
scaffold, exit 1)."""

from __future__ import annotations

import dataclasses

from firmware_host.service.config import add_config_argument, load_config

__all__ = ["add_arguments", "command", "render"]


def add_arguments(parser) -> None:
    add_config_argument(parser)


def command(args) -> int:
    config = load_config(args.config, system=True)
    print(render(config), end="")
    return 0


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
