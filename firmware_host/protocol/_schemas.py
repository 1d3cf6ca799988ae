"""What each command takes: argument checks per command, and a request line
read into a checked Request."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from firmware_host.protocol._errors import ProtocolError, _show
from firmware_host.protocol._framing import _decode_object
from firmware_host.protocol._messages import Request
from firmware_host.protocol._names import clean_name, clean_players, clean_showdown_id
from firmware_host.protocol._values import SIDES, Side

__all__ = [
    "COMMANDS",
    "BENCH_COMMANDS",
    "BOT_REACTION_MS",
    "check_arguments",
    "clean_bots",
    "decode_request",
]

#: The range of a bot's median reaction time (``bots.<side>.reaction_ms``), in ms.
BOT_REACTION_MS = (100, 1000)


#: A value as json.loads made it (Any: any JSON type); each check below narrows
#: it, and says what it must be otherwise.
_JSON = Any
#: A field's check: its name and value in, the value to keep out (or _Invalid).
_Check = Callable[[str, _JSON], _JSON]


class _Invalid(Exception):
    """An argument failed its check; the text is the error message and
    ``code`` the error code (``bad_request`` unless the field has its own)."""

    def __init__(self, message: str, code: str = "bad_request"):
        super().__init__(message)
        self.code = code


def _whole(lo: int | None = None, hi: int | None = None) -> _Check:
    def check(name: str, value: _JSON) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Invalid(f"field '{name}' must be a whole number, not {_show(value)}")
        if lo is not None and hi is not None and not lo <= value <= hi:
            raise _Invalid(f"field '{name}' must be {lo} to {hi}, not {value}")
        if lo is not None and value < lo:
            raise _Invalid(f"field '{name}' must be >= {lo}, not {value}")
        return value

    return check


def _number(name: str, value: _JSON) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _Invalid(f"field '{name}' must be a number, not {_show(value)}")
    return value


def _token(name: str, value: _JSON) -> str:
    if not isinstance(value, str) or not value:
        raise _Invalid(f"field '{name}' must be a non-empty string")
    return value


def _flag(name: str, value: _JSON) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(f"field '{name}' must be true or false, not {_show(value)}")
    return value


def _checked_by(clean: Callable[[_JSON, str], _JSON]) -> _Check:
    """A schema check from a ``clean_*`` function (ValueError -> _Invalid)."""

    def check(name: str, value: _JSON) -> _JSON:
        try:
            return clean(value, name)
        except ValueError as exc:
            raise _Invalid(str(exc)) from None

    return check


_name = _checked_by(clean_name)
_showdown_id = _checked_by(clean_showdown_id)
_players = _checked_by(clean_players)


def _cards(name: str, value: _JSON) -> int:
    """A card count: every bad one is ``invalid_cards`` (the unit answers a
    count above its ``showdown.max_cards`` with that code too)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _Invalid(
            f"field '{name}' must be a whole number >= 1, not {_show(value)}", "invalid_cards"
        )
    return value


def clean_bots(value: Any, name: str = "bots") -> dict[Side, float]:  # Any: JSON, checked
    """The ``bots`` of a showdown as ``{side: reaction_ms}`` (sides in order),
    or ValueError naming the field. ``None`` is no bots.

    >>> clean_bots({"b": {"reaction_ms": 230}, "a": {"reaction_ms": 180.5}})
    {'a': 180.5, 'b': 230.0}
    >>> clean_bots({"a": {"reaction_ms": 50}})
    Traceback (most recent call last):
    ...
    ValueError: field 'bots.a.reaction_ms' must be a number from 100 to 1000, not 50
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(
            f'field \'{name}\' must be an object like {{"b": {{"reaction_ms": 230}}}}, '
            f"not {_show(value)}"
        )
    lo, hi = BOT_REACTION_MS
    bots: dict[Side, float] = {}
    for key in value:
        if key not in SIDES:
            raise ValueError(
                f'field \'{name}\' may only have the keys "a" and "b", not {_show(key)}'
            )
    for side in SIDES:
        if side not in value:
            continue
        bot, where = value[side], f"{name}.{side}"
        if not isinstance(bot, Mapping):
            raise ValueError(
                f"field '{where}' must be an object {{\"reaction_ms\": N}}, not {_show(bot)}"
            )
        for key in bot:
            if key != "reaction_ms":
                raise ValueError(f"unknown field '{where}.{key}'")
        if "reaction_ms" not in bot:
            raise ValueError(f"missing field '{where}.reaction_ms'")
        reaction = bot["reaction_ms"]
        if (
            isinstance(reaction, bool)
            or not isinstance(reaction, (int, float))
            or not math.isfinite(reaction)
            or not lo <= reaction <= hi
        ):
            raise ValueError(
                f"field '{where}.reaction_ms' must be a number from {lo} to {hi}, "
                f"not {_show(reaction)}"
            )
        bots[side] = float(reaction)
    return bots


def _bots(name: str, value: _JSON) -> dict[Side, dict[str, float]]:
    """``bots`` checked, in the request's own shape (the unit cleans it again)."""
    try:
        bots = clean_bots(value, name)
    except ValueError as exc:
        raise _Invalid(str(exc), "invalid_argument") from None
    return {side: {"reaction_ms": reaction_ms} for side, reaction_ms in bots.items()}


def _side(name: str, value: _JSON) -> str:
    if value not in SIDES:
        raise _Invalid(f'field \'{name}\' must be "a" or "b", not {_show(value)}')
    return str(value)  # the text it is: "a" or "b"


def _one_timing(args: Mapping[str, _JSON]) -> None:
    """A bench edge is timed by at most one of offset_ms and at_tick (neither: now)."""
    if args["offset_ms"] is not None and args["at_tick"] is not None:
        raise _Invalid("give at most one of fields 'offset_ms' and 'at_tick'")


def _not_negative(name: str, value: _JSON) -> float:
    number = _number(name, value)
    if number < 0:
        raise _Invalid(f"field '{name}' must be >= 0, not {value}")
    return number


# delay_ms: the edge's callback arrives this long after its tick (a busy pin backend).
_TIMING: dict[str, _Check] = {
    "side": _side,
    "offset_ms": _number,
    "at_tick": _number,
    "delay_ms": _not_negative,
}
_TIMING_OPTIONAL = {"offset_ms", "at_tick", "delay_ms"}
# hold: a press stays down (else it lets go by itself after a short hold).
_PRESS: dict[str, _Check] = {**_TIMING, "hold": _flag}
_PRESS_OPTIONAL = {*_TIMING_OPTIONAL, "hold"}

# command -> (argument checks, optional argument names, whole-request check)
_Whole = Callable[[Mapping[str, _JSON]], None]
_SCHEMAS: dict[str, tuple[dict[str, _Check], set[str], _Whole | None]] = {
    "hello": ({"version": _whole()}, set(), None),
    "auth": ({"token": _token}, set(), None),
    "ping": ({}, set(), None),
    "status": ({}, set(), None),
    "watch": ({"outputs": _flag}, set(), None),
    "showdown": (
        {"showdown_id": _showdown_id, "cards": _cards, "players": _players, "bots": _bots},
        {"bots"},
        None,
    ),
    "start": ({}, set(), None),
    "cancel": ({}, set(), None),
    "result": ({"showdown_id": _showdown_id}, set(), None),
    "history": ({"limit": _whole(1, 1000), "player": _name}, {"limit", "player"}, None),
    "selftest": ({}, set(), None),
    "bench_press": (_PRESS, _PRESS_OPTIONAL, _one_timing),
    "bench_release": (_TIMING, _TIMING_OPTIONAL, _one_timing),
    "bench_timer": ({}, set(), None),
}
#: Every command, in the order docs/protocol.md lists them.
COMMANDS = tuple(_SCHEMAS)
#: Commands only a unit on mock pins carries out (others answer "not_mock").
BENCH_COMMANDS = ("bench_press", "bench_release", "bench_timer")


def _check_fields(
    given: Mapping[str, _JSON], checks: dict[str, _Check], optional: set[str], prefix: str = ""
) -> dict[str, _JSON]:
    for key in given:
        if key not in checks:
            raise _Invalid(f"unknown field '{prefix}{key}'")
    args: dict[str, Any] = {}  # Any: each value as its check returned it
    for key, check in checks.items():
        if key in optional and given.get(key) is None:
            args[key] = None  # absent, or null: the same thing
        elif key in given:
            args[key] = check(prefix + key, given[key])
        else:
            raise _Invalid(f"missing field '{prefix}{key}'")
    return args


def check_arguments(
    cmd: str, given: Mapping[str, _JSON], request_id: _JSON = None
) -> dict[str, _JSON]:
    """``given`` checked against ``cmd``'s schema, with absent optional
    arguments as None; raises ProtocolError (``unknown_command``/``bad_request``).

    >>> check_arguments("history", {"limit": 5})
    {'limit': 5, 'player': None}
    >>> check_arguments("result", {"showdown_id": "a b"})
    Traceback (most recent call last):
    ...
    firmware_host.protocol._errors.ProtocolError: bad_request: field 'showdown_id' must be
    1 to 64 characters of A-Z a-z 0-9 . _ : -, not "a b"
    """
    if cmd not in _SCHEMAS:
        raise ProtocolError(
            "unknown_command",
            f"unknown command {_show(cmd)}; the commands are {', '.join(_SCHEMAS)}",
            request_id,
        )
    checks, optional, whole = _SCHEMAS[cmd]
    try:
        args = _check_fields(dict(given), checks, optional)
        if whole is not None:
            whole(args)
    except _Invalid as exc:
        raise ProtocolError(exc.code, str(exc), request_id) from None
    return args


def _is_id(value: Any) -> bool:  # Any: a decoded JSON value
    if isinstance(value, bool):
        return False
    return isinstance(value, (str, int)) or (isinstance(value, float) and math.isfinite(value))


def _envelope(line: bytes) -> tuple[_JSON, str, dict[str, _JSON]]:
    """A request line's id, command and argument fields."""
    obj = _decode_object(line, "a request")
    if "id" not in obj:
        raise ProtocolError("bad_request", "missing field 'id'")
    request_id = obj.pop("id")
    if not _is_id(request_id):
        raise ProtocolError(
            "bad_request", f"field 'id' must be a number or a string, not {_show(request_id)}"
        )
    if "cmd" not in obj:
        raise ProtocolError("bad_request", "missing field 'cmd'", request_id)
    cmd = obj.pop("cmd")
    if not isinstance(cmd, str):
        raise ProtocolError(
            "bad_request", f"field 'cmd' must be a string, not {_show(cmd)}", request_id
        )
    return request_id, cmd, obj


def decode_request(line: bytes) -> Request:
    """One request line (without its newline) as a checked Request, with no
    connection state; raises ProtocolError."""
    request_id, cmd, given = _envelope(line)
    return Request(request_id, cmd, check_arguments(cmd, given, request_id))
