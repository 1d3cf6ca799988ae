"""The daemon as a service: the protocol server and its transports, the results journal,
config, sd_notify, and the Daemon that wires them to the core.

Each name is imported on first use, so a command that only needs the config
(``check-config``, ``history``) loads no server, transport or serial code.
"""

import importlib

_HOMES = {
    "config": (
        "ConfigError",
        "TimingConfig",
        "LauncherConfig",
        "ShowdownConfig",
        "ServerConfig",
        "JournalConfig",
        "UnitConfig",
        "load_config",
        "add_config_argument",
        "SYSTEM_CONFIG",
        "BACKENDS",
        "TIE_POLICIES",
    ),
    "journal": (
        "Journal",
        "JournalEntry",
        "JournalReport",
        "JournalLock",
        "JournalError",
        "JournalConflictError",
        "JournalDamagedError",
        "JournalLockedError",
        "default_journal_path",
        "SCHEMA_VERSION",
        "FILENAME",
    ),
    "server": (
        "Server",
        "Session",
        "CommandWorker",
        "MAX_IN_FLIGHT",
        "READ_PAUSE_BYTES",
        "software_version",
    ),
    "transports": ("Reactor", "parse_address", "is_loopback", "SERIAL_RETRY_S"),
    "sdnotify": ("Notifier", "WatchdogPacer"),
    "daemon": (
        "Daemon",
        "Links",
        "JournalWriter",
        "EX_CONFIG",
        "apply_flags",
        "check_links",
        "read_token",
        "journal_path",
        "restart_keys",
        "config_source",
    ),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = list(_MODULE_OF)


def __getattr__(name):
    if name in _MODULE_OF:
        module = importlib.import_module(f"firmware_host.service.{_MODULE_OF[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'firmware_host.service' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *__all__])
