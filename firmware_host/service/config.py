"""The unit's configuration: packaged default TOML, then a user file, then flags.

Everything is loaded with :mod:`tomllib` into frozen dataclasses and every key is
checked. A bad value raises :class:`ConfigError`, whose message is one line that
names the file and the key, so ``check-config`` and the daemon can print it as is.

>>> config = load_config(None)
>>> config.pins.paddle_a, config.timing.tie_policy, config.launcher.max_run_s
(17, 'rerun', 3.0)
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

from hw.pinmap import OPTIONAL_DEVICES, PinConflictError, PinMap

__all__ = [
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
]

log = logging.getLogger(__name__)

SYSTEM_CONFIG = Path("/etc/uno-showdown/unit.toml")
BACKENDS = ("auto", "mock", "lgpio", "rpigpio")
TIE_POLICIES = ("rerun", "void")
_BCM_PINS = range(0, 28)


class ConfigError(ValueError):
    """A configuration value is wrong; the message names the file and the key."""


def _spec(default, lo=None, hi=None, choices=None, lo_open=False):
    """A dataclass field that carries its own validation limits."""
    meta = {"lo": lo, "hi": hi, "choices": choices, "lo_open": lo_open}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class TimingConfig:
    countdown_step_s: float = _spec(1.0, lo=0.0, hi=10.0, lo_open=True)
    flash_period_s: float = _spec(0.25, lo=0.0, hi=5.0, lo_open=True)
    beep_s: float = _spec(0.08, lo=0.0, hi=5.0)
    go_tone_s: float = _spec(0.4, lo=0.0, hi=5.0)
    hold_min_s: float = _spec(0.5, lo=0.0, hi=30.0)
    hold_max_s: float = _spec(2.5, lo=0.0, hi=30.0)
    settle_s: float = _spec(0.025, lo=0.0, hi=1.0)
    tie_threshold_us: int = _spec(200, lo=0, hi=1_000_000)
    tie_policy: str = _spec("rerun", choices=TIE_POLICIES)
    max_tie_reruns: int = _spec(3, lo=0, hi=100)
    min_reaction_ms: int = _spec(0, lo=0, hi=1000)
    press_lockout_s: float = _spec(0.05, lo=0.0, hi=5.0)
    response_timeout_s: float = _spec(5.0, lo=0.0, hi=600.0, lo_open=True)
    paddle_warning_s: float = _spec(1.5, lo=0.0, hi=30.0)
    bot_start_s: float = _spec(1.0, lo=0.0, hi=60.0)


@dataclass(frozen=True)
class LauncherConfig:
    speed: float = _spec(0.8, lo=0.0, hi=1.0, lo_open=True)
    spin_up_s: float = _spec(0.3, lo=0.0, hi=10.0)
    per_card_s: float = _spec(0.25, lo=0.0, hi=10.0)
    max_run_s: float = _spec(3.0, lo=0.0, hi=30.0, lo_open=True)


@dataclass(frozen=True)
class ShowdownConfig:
    default_cards: int = _spec(2, lo=1, hi=100)
    max_cards: int = _spec(10, lo=1, hi=100)


@dataclass(frozen=True)
class ServerConfig:
    listen: str = "127.0.0.1:7700"
    allow_remote: bool = False
    token_file: str = ""
    serial: str = ""
    baud: int = _spec(115200, lo=50, hi=4_000_000)
    max_clients: int = _spec(8, lo=1, hi=1000)
    max_line_bytes: int = _spec(4096, lo=256, hi=1_048_576)
    send_buffer_bytes: int = _spec(1_048_576, lo=65_536, hi=67_108_864)
    send_stall_s: float = _spec(30.0, lo=1.0, hi=3600.0)
    hello_timeout_s: float = _spec(10.0, lo=0.0, hi=600.0, lo_open=True)


@dataclass(frozen=True)
class JournalConfig:
    path: str = ""
    history_limit: int = _spec(50, lo=1, hi=10_000)


@dataclass(frozen=True)
class UnitConfig:
    backend: str = _spec("auto", choices=BACKENDS)
    unit_name: str = "showdown-unit"
    pins: PinMap = field(default_factory=PinMap)
    timing: TimingConfig = field(default_factory=TimingConfig)
    launcher: LauncherConfig = field(default_factory=LauncherConfig)
    showdown: ShowdownConfig = field(default_factory=ShowdownConfig)
    server: ServerConfig = field(default_factory=ServerConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)

    def replace(self, **changes) -> UnitConfig:
        """A copy with top-level fields changed (sections are replaced whole)."""
        return dataclasses.replace(self, **changes)


_SECTIONS = {
    "pins": PinMap,
    "timing": TimingConfig,
    "launcher": LauncherConfig,
    "showdown": ShowdownConfig,
    "server": ServerConfig,
    "journal": JournalConfig,
}


def load_config(path: str | os.PathLike | None = None, *, system: bool = False) -> UnitConfig:
    """Load the packaged default, then ``path`` (or, with ``system=True`` and no
    path, ``/etc/uno-showdown/unit.toml`` if it exists) on top of it."""
    default_text = resources.files("firmware_host.service").joinpath("default.toml").read_text()
    merged = _parse(default_text, "<packaged default.toml>")
    sources = {key: "<packaged default.toml>" for key in _keys(merged)}
    if path is None and system and SYSTEM_CONFIG.exists():
        path = SYSTEM_CONFIG
    if path is not None:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"{path}: not UTF-8 text (byte {exc.start}: {exc.object[exc.start]:#04x})"
            ) from None
        user = _parse(text, str(path))
        for key in _keys(user):
            sources[key] = str(path)
        _merge(merged, user, str(path))
    return _build(merged, sources)


def add_config_argument(parser) -> None:
    """The ``--config FILE`` option of every subcommand that reads the config."""
    parser.add_argument(
        "--config", metavar="FILE", help=f"config file (default: {SYSTEM_CONFIG} if present)"
    )


def _parse(text: str, name: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML: {exc}") from None


def _keys(table: dict, prefix: str = ""):
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _keys(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"


def _merge(base: dict, override: dict, name: str) -> None:
    for key, value in override.items():
        if key in _SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{name}: {key}: must be a table [{key}]")
            base.setdefault(key, {}).update(value)
        elif isinstance(value, dict):  # a table that is none of ours: a misspelt section
            known = ", ".join(f"[{section}]" for section in sorted(_SECTIONS))
            raise ConfigError(f"{name}: [{key}]: unknown section (known: {known})")
        else:
            base[key] = value


#: Raises the ConfigError for a key: ``fail(key, message)``.
_Fail = Callable[[str, str], NoReturn]


def _build(merged: dict, sources: dict[str, str]) -> UnitConfig:
    def fail(key: str, message: str) -> NoReturn:
        raise ConfigError(f"{sources.get(key, '<config>')}: {key}: {message}")

    top = {}
    for key, value in merged.items():
        if key in _SECTIONS:
            continue
        top[key] = value
    values = _check_fields(UnitConfig, top, "", fail, skip=set(_SECTIONS))
    for name, cls in _SECTIONS.items():
        table = merged.get(name, {})
        if cls is PinMap:
            values[name] = _build_pins(table, fail, sources)
        else:
            values[name] = cls(**_check_fields(cls, table, f"{name}.", fail))
    timing = values["timing"]
    if timing.hold_max_s < timing.hold_min_s:
        fail("timing.hold_max_s", f"must be >= timing.hold_min_s ({timing.hold_min_s})")
    showdown = values["showdown"]
    if showdown.default_cards > showdown.max_cards:
        fail("showdown.default_cards", f"must be <= showdown.max_cards ({showdown.max_cards})")
    return UnitConfig(**values)


# Keys that older versions wrote into every installed config: read and ignored.
_RETIRED = {
    "server.send_queue_lines": "a client is now dropped by bytes it does not read "
    "(server.send_buffer_bytes, server.send_stall_s)",
}


def _check_fields(cls, table: dict, prefix: str, fail: _Fail, skip=()) -> dict:
    known = {f.name: f for f in dataclasses.fields(cls) if f.name not in skip}
    values = {}
    for key, value in table.items():
        if prefix + key in _RETIRED:
            log.warning(
                "config key %s%s is no longer used and is ignored: %s",
                prefix,
                key,
                _RETIRED[prefix + key],
            )
            continue
        if key not in known:
            fail(prefix + key, f"unknown key (known: {', '.join(sorted(known))})")
        values[key] = _check_value(known[key], value, prefix + key, fail)
    return values


def _check_value(spec: dataclasses.Field, value: Any, key: str, fail: _Fail):
    kind = spec.type if isinstance(spec.type, str) else spec.type.__name__
    meta = spec.metadata
    if kind == "bool":
        if not isinstance(value, bool):
            fail(key, f"must be true or false, not {value!r}")
        return value
    if kind == "str":
        if not isinstance(value, str):
            fail(key, f"must be a string, not {value!r}")
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            fail(key, f"must be a whole number, not {value!r}")
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            fail(key, f"must be a number, not {value!r}")
        value = float(value)
    if meta.get("choices") and value not in meta["choices"]:
        fail(key, f"must be one of {', '.join(map(repr, meta['choices']))}, not {value!r}")
    lo, hi = meta.get("lo"), meta.get("hi")
    if lo is not None and (value <= lo if meta.get("lo_open") else value < lo):
        fail(key, f"must be {'>' if meta.get('lo_open') else '>='} {lo}, not {value!r}")
    if hi is not None and value > hi:
        fail(key, f"must be <= {hi}, not {value!r}")
    return value


def _build_pins(table: dict, fail: _Fail, sources: dict[str, str]) -> PinMap:
    known = {f.name for f in dataclasses.fields(PinMap)}
    values: dict[str, Any] = {}
    for key, value in table.items():
        full = f"pins.{key}"
        if key not in known:
            fail(full, f"unknown device (known: {', '.join(sorted(known))})")
        if key == "countdown_leds":
            if not isinstance(value, list) or not value:
                fail(full, f"must be a non-empty list of BCM pins, not {value!r}")
            values[key] = tuple(_check_pin(v, full, fail) for v in value)
        elif value in ("", None):
            if key not in OPTIONAL_DEVICES:
                fail(
                    full,
                    f"is required (only {', '.join(sorted(OPTIONAL_DEVICES))} may be left empty)",
                )
            values[key] = None
        else:
            values[key] = _check_pin(value, full, fail)
    for key in OPTIONAL_DEVICES:
        values.setdefault(key, None)
    try:
        return PinMap(**values)
    except PinConflictError as exc:
        # Blame the device the user's file set, if it set one of the two.
        names = [name.split("[")[0] for name in exc.devices]
        user_set = [n for n in names if not sources.get(f"pins.{n}", "").startswith("<")]
        blamed = (user_set or names)[-1]
        fail(f"pins.{blamed}", str(exc))


def _check_pin(value, key: str, fail: _Fail) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in _BCM_PINS:
        fail(key, f"must be a BCM pin number 0-27, not {value!r}")
    return value
