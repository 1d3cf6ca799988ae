"""The uplink's settings: an ``[uplink]`` table in its own TOML file, then flags.

The file is ``/etc/uno-showdown/uplink.toml`` when it exists (or ``--config
FILE``); it is the uplink's own, not the unit's ``unit.toml``, whose loader
refuses tables it does not know. Every flag overrides its key. A bad value is
an :class:`UplinkConfigError`, one line naming the file and the key (or the
flag): ``uplink.toml: uplink.venue: must be 1 to 32 lower-case letters, ...``.

>>> config = build_config({"broker": "mqtt.local", "venue": "bar-1", "unit": "unit-2"})
>>> config.host, config.port, config.client_id, config.keepalive_s
('mqtt.local', 1883, 'bar-1-unit-2', 10)
>>> build_config({"broker": "mqtt.local:0", "venue": "bar-1", "unit": "u"}, {"broker": "--broker"})
Traceback (most recent call last):
...
firmware_host.uplink.errors.UplinkConfigError: --broker: the port must be 1 to 65535, not '0'
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from firmware_host.protocol.league import WireError, broker_port, clean_place, split_broker
from firmware_host.uplink.errors import UplinkConfigError

__all__ = ["UplinkConfig", "build_config", "load_uplink_config", "SYSTEM_CONFIG", "SECTION"]

SYSTEM_CONFIG = Path("/etc/uno-showdown/uplink.toml")
SECTION = "uplink"


def _spec(default: Any, lo: float | None = None, hi: float | None = None) -> Any:
    return field(default=default, metadata={"lo": lo, "hi": hi})


@dataclass(frozen=True)
class UplinkConfig:
    """What the uplink runs with; ``password`` is read from ``password_file``."""

    broker: str = ""  # HOST[:PORT]
    venue: str = ""
    unit: str = ""
    journal: str = ""  # "" = where the unit daemon keeps it
    matches: str = ""  # the table's match book; "" = none
    state: str = ""  # the folder of the uplink's state file; "" = beside the journal
    username: str = ""
    password_file: str = ""
    tls: bool = False
    ca_file: str = ""  # implies tls
    keepalive_s: int = _spec(10, 1, 60)
    window: int = _spec(200, 1, 10_000)
    resend_after_s: float = _spec(5.0, 0.05, 600.0)
    poll_s: float = _spec(0.5, 0.01, 60.0)
    status_every_s: float = _spec(10.0, 0.1, 3600.0)
    clash_wait_s: float = _spec(3.0, 0.05, 60.0)
    ha_discovery: bool = False
    ha_prefix: str = "homeassistant"
    password: str = field(default="", repr=False)  # not a key: from password_file

    @property
    def host(self) -> str:
        return split_broker(self.broker)[0]

    @property
    def port(self) -> int:
        return broker_port(split_broker(self.broker)[1], self.uses_tls)

    @property
    def uses_tls(self) -> bool:
        return self.tls or bool(self.ca_file)

    @property
    def client_id(self) -> str:
        return f"{self.venue}-{self.unit}"


_KEYS = {f.name: f for f in dataclasses.fields(UplinkConfig) if f.name != "password"}
_REQUIRED = ("broker", "venue", "unit")


def load_uplink_config(
    path: str | os.PathLike | None,
    flags: Mapping[str, Any] | None = None,
    *,
    system: bool = True,
) -> UplinkConfig:
    """The ``[uplink]`` table of ``path`` (or of :data:`SYSTEM_CONFIG` when
    ``system`` and it exists), then ``flags`` (key -> value; None = not given)."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    if path is None and system and SYSTEM_CONFIG.exists():
        path = SYSTEM_CONFIG
    if path is not None:
        name = str(path)
        for key, value in _read_table(Path(path)).items():
            values[key], sources[key] = value, f"{name}: {SECTION}.{key}"
    for key, value in (flags or {}).items():
        if value is not None:
            values[key], sources[key] = value, f"--{key.replace('_', '-')}"
    return build_config(values, sources)


def _read_table(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UplinkConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UplinkConfigError(f"{path}: not UTF-8 text") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UplinkConfigError(f"{path}: not valid TOML: {exc}") from None
    for key, value in document.items():
        if key != SECTION:
            what = f"[{key}]: unknown table" if isinstance(value, dict) else f"{key}: a key"
            raise UplinkConfigError(f"{path}: {what} (this file has one table, [{SECTION}])")
    table = document.get(SECTION, {})
    for key in table:
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise UplinkConfigError(f"{path}: {SECTION}.{key}: unknown key (known: {known})")
    return dict(table)


def build_config(
    values: Mapping[str, Any], sources: Mapping[str, str] | None = None
) -> UplinkConfig:
    """Check every value; ``sources`` names where each came from (for errors)."""
    sources = sources or {}

    def fail(key: str, message: str) -> NoReturn:
        raise UplinkConfigError(f"{sources.get(key, f'{SECTION}.{key}')}: {message}")

    checked: dict[str, Any] = {}
    for key, value in values.items():
        if key not in _KEYS:
            fail(key, f"unknown key (known: {', '.join(sorted(_KEYS))})")
        checked[key] = _check(_KEYS[key], value, lambda message, key=key: fail(key, message))
    for key in _REQUIRED:
        if not checked.get(key):
            fail(key, "is required") if key in sources else _missing(key)
    for key in ("venue", "unit"):
        try:
            clean_place(checked[key], key)
        except WireError as exc:
            fail(key, str(exc).removeprefix(f"{key} "))
    try:
        split_broker(checked["broker"])
    except WireError as exc:
        fail("broker", str(exc))
    if checked.get("ha_prefix", "homeassistant") == "" or "#" in checked.get("ha_prefix", ""):
        fail("ha_prefix", "must be a topic prefix such as 'homeassistant'")
    for key in ("ca_file", "password_file"):
        if checked.get(key) and not Path(checked[key]).is_file():
            fail(key, f"no such file: {checked[key]}")
    if checked.get("password_file"):
        checked["password"] = _password(
            checked["password_file"], lambda m: fail("password_file", m)
        )
        if not checked.get("username"):
            fail("password_file", "goes with a username")
    return UplinkConfig(**checked)


def _missing(key: str) -> NoReturn:
    raise UplinkConfigError(
        f"{SECTION}.{key} is required: set it in {SYSTEM_CONFIG} or pass --{key}"
    )


def _check(spec: dataclasses.Field, value: Any, fail) -> Any:
    kind = spec.type if isinstance(spec.type, str) else spec.type.__name__
    if kind == "bool":
        if not isinstance(value, bool):
            fail(f"must be true or false, not {value!r}")
        return value
    if kind == "str":
        if not isinstance(value, str):
            fail(f"must be a string, not {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(f"must be a {'whole number' if kind == 'int' else 'number'}, not {value!r}")
    if kind == "int" and not isinstance(value, int):
        fail(f"must be a whole number, not {value!r}")
    lo, hi = spec.metadata.get("lo"), spec.metadata.get("hi")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        fail(f"must be from {lo} to {hi}, not {value!r}")
    return value if kind == "int" else float(value)


def _password(path: str, fail) -> str:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
    password = lines[0].strip() if lines else ""
    if not password:
        fail(f"{path} is empty: its first line is the password")
    return password
