"""The unit's wire protocol: JSON Lines, sans-IO, standard library only.

Both ends import this module: the daemon (``ServerConnection``) and the engine's
remote unit (``ClientConnection``). Neither end does any I/O here: a transport
feeds received bytes in and gets message objects out, and asks for the bytes to
send. Sockets, serial ports and threads live in the thin shell around it, in the
style of h11 and wsproto. ``docs/protocol.md`` describes the wire format.

One line is one UTF-8 JSON object, ended by ``\\n`` or ``\\r\\n``. A request is
``{"id": 1, "cmd": "status"}``; each gets exactly one reply, ``{"id": 1, "ok":
true, ...}`` or ``{"id": 1, "ok": false, "error": {"code": ..., "message": ...}}``;
the unit pushes events as ``{"event": "go", "seq": 7, ...}``.

>>> server, client = ServerConnection(), ClientConnection()
>>> request_id, line = client.send_request("hello")
>>> line
b'{"id":1,"cmd":"hello","version":1}\\n'
>>> [request] = server.receive_data(line)
>>> request
Request(id=1, cmd='hello', args={'version': 1})
>>> reply = server.hello_reply(request, unit={"name": "bench"}, capabilities=[], seq=0)
>>> client.receive_data(server.send(reply))
[Reply(id=1, data={'version': 1, 'unit': {'name': 'bench'}, 'capabilities': [], 'seq': 0}, cmd='hello')]
>>> server.receive_data(b'{"id": 2, "cmd": "showdown", "cards": 0}\\n')
[ProtocolError('bad_request', "missing field 'showdown_id'", request_id=2)]
"""

from __future__ import annotations

import abc
import enum
import hmac
import json
import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from itertools import accumulate
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "PROTOCOL_VERSION", "MIN_PROTOCOL_VERSION", "DEFAULT_MAX_LINE_BYTES",
    "CLIENT_MAX_LINE_BYTES", "ERROR_CODES", "LOCAL_ERROR_CODES", "COMMANDS",
    "BENCH_COMMANDS", "EVENTS", "ProtocolError", "Request", "Reply", "ErrorReply",
    "Event", "EventGap", "EventSequencer", "ConnectionState", "ServerConnection",
    "ClientConnection", "encode", "decode_request", "check_arguments",
    "negotiate_version", "MAX_DEPTH", "MAX_NAME_CHARS", "MAX_TOKEN_CHARS",
    "MAX_AUTH_FAILURES", "clean_name", "clean_players", "clean_showdown_id",
    "token_from_text", "auth_line_bytes",
]

#: The highest protocol version this module speaks, and the lowest.
PROTOCOL_VERSION = 1
MIN_PROTOCOL_VERSION = 1
#: The unit's limit on one request line (config ``server.max_line_bytes``).
DEFAULT_MAX_LINE_BYTES = 4096
#: The client's limit on one incoming line: a ``history`` reply is long.
CLIENT_MAX_LINE_BYTES = 1_048_576
#: The deepest nesting of arrays and objects either end reads (a request needs 2).
MAX_DEPTH = 32
#: The longest player name, in characters once normalised.
MAX_NAME_CHARS = 40
#: The longest token a token file may hold.
MAX_TOKEN_CHARS = 256
#: Wrong tokens one connection may send; the last one closes it.
MAX_AUTH_FAILURES = 3

#: Error codes sent on the wire, with what they mean.
ERROR_CODES = {
    "bad_json": "the line is not valid UTF-8 JSON",
    "bad_request": "the JSON is not a valid request; the message names the field",
    "unknown_command": "no command of that name",
    "line_too_long": "the line is longer than the unit's limit; it was discarded",
    "unsupported_version": "no protocol version both ends speak",
    "unauthorized": "auth is required first, or the token is wrong",
    "hello_required": "hello must come before any other command",
    "busy": "the unit is running a showdown (or another one is armed)",
    "not_armed": "start needs an armed showdown",
    "invalid_cards": "the card count is more than the unit's max_cards",
    "invalid_argument": "the unit refused a value the schema allows (e.g. a bench time)",
    "paddle_held": "start while a paddle is held down: the unit stays armed",
    "unknown_showdown": "no result for that showdown id",
    "not_mock": "bench commands need a unit on mock pins",
    "closed": "the unit is shutting down",
    "fault": "the unit is in its fault state, or failed doing the command",
    "http_refused": "the line looks like HTTP: this port speaks JSON lines; the unit closes the link",
    "hello_timeout": "auth and hello did not come in time; the unit closes the link",
}
#: Codes a connection reports to its own side only: nothing is sent for them.
LOCAL_ERROR_CODES = {
    "truncated_line": "the link closed in the middle of a line",
    "bad_message": "a line from the unit is neither a reply nor an event",
    "unexpected_reply": "a reply whose id matches no pending request",
}

#: The events the unit pushes to every client that completed hello.
EVENTS = ("state", "armed", "countdown", "go", "false_start", "tie", "paddle_held",
          "result", "launched", "cancelled", "fault")

_CONNECTION_COMMANDS = ("auth", "hello")
_SHOWDOWN_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_CODE = re.compile(r"[a-z][a-z0-9_]*")


class ProtocolError(ValueError):
    """A line that could not be taken as a message: its error ``code``, a
    ``message`` for people, and the request id when it could be read.

    Connections return these rather than raise them; the server answers each
    with ``send(error.to_reply())``. ``ClientConnection.send_request`` raises
    one for bad arguments, with the message the unit would have sent.
    """

    def __init__(self, code: str, message: str, request_id: Any = None, *,
                 close: bool = False):
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.request_id = code, message, request_id
        #: The server answers this line, then closes the link; nothing after
        #: it on the link is read.
        self.close = close

    def to_reply(self) -> "ErrorReply":
        """The error reply a server sends for this line."""
        return ErrorReply(self.request_id, self.code, self.message)

    def _key(self):
        return (self.code, self.message, self.request_id)

    def __eq__(self, other):
        return isinstance(other, ProtocolError) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        close = ", close=True" if self.close else ""
        return (f"ProtocolError({self.code!r}, {self.message!r}, "
                f"request_id={self.request_id!r}{close})")


@dataclass(frozen=True)
class Request:
    """A checked request: ``args`` holds every argument of ``cmd``'s schema
    (optional ones absent from the line, or null, are ``None``)."""

    id: int | float | str
    cmd: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def reply(self, **data) -> "Reply":
        return Reply(self.id, data, self.cmd)

    def fail(self, code: str, message: str) -> "ErrorReply":
        """An error reply. ``code`` should be one of ERROR_CODES; any
        lower_case_word is sent, so a code added to the unit cannot crash it."""
        if not isinstance(code, str) or not _CODE.fullmatch(code):
            raise ValueError(f"error code must be a lower_case_word, not {code!r}")
        return ErrorReply(self.id, code, message, self.cmd)


@dataclass(frozen=True)
class Reply:
    """``ok: true``. ``cmd`` is the request's command (the client fills it in)."""

    ok: ClassVar[bool] = True
    id: int | float | str
    data: Mapping[str, Any] = field(default_factory=dict)
    cmd: str | None = None


@dataclass(frozen=True)
class ErrorReply:
    """``ok: false`` with an error code and message; ``id`` is None when the
    unit could not read the request's id."""

    ok: ClassVar[bool] = False
    id: int | float | str | None
    code: str
    message: str
    cmd: str | None = None


@dataclass(frozen=True)
class Event:
    """Something the unit did, numbered by the unit's event sequence."""

    name: str
    seq: int
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EventGap:
    """The client saw event ``received`` when it expected ``expected``: events
    were lost (a dropped link or a restarted unit). Fetch missed results with
    ``result``."""

    expected: int
    received: int


class EventSequencer:
    """Numbers events: one sequence per unit, shared by all its clients, so a
    client that misses one sees a gap.

    >>> events = EventSequencer()
    >>> events.event("go", showdown_id="sd-1").seq, events.event("countdown", step=1).seq
    (1, 2)
    >>> events.last
    2
    """

    def __init__(self, last: int = 0):
        self.last = last

    def event(self, name: str, **data) -> Event:
        if name not in EVENTS:
            raise ValueError(f"unknown event {name!r} (known: {', '.join(EVENTS)})")
        self.last += 1
        return Event(name, self.last, data)


def encode(message: Request | Reply | ErrorReply | Event) -> bytes:
    """One message as one line of bytes.

    >>> encode(ErrorReply(None, "bad_json", "line is not valid JSON"))
    b'{"id":null,"ok":false,"error":{"code":"bad_json","message":"line is not valid JSON"}}\\n'
    """
    if isinstance(message, Request):
        head, body = {"id": message.id, "cmd": message.cmd}, message.args
    elif isinstance(message, Reply):
        head, body = {"id": message.id, "ok": True}, message.data
    elif isinstance(message, ErrorReply):
        head = {"id": message.id, "ok": False,
                "error": {"code": message.code, "message": message.message}}
        body = {}
    elif isinstance(message, Event):
        head, body = {"event": message.name, "seq": message.seq}, message.data
    else:
        raise TypeError(f"cannot encode {type(message).__name__}")
    clash = head.keys() & body.keys()
    if clash:
        raise ValueError(f"data may not use the key {sorted(clash)[0]!r}")
    obj = {**head, **body}
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (only an escape in the peer's JSON can make one)
        # cannot be UTF-8: escape everything instead.
        return (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode("ascii")


def negotiate_version(client_version: int) -> int:
    """The version a connection speaks: the highest both ends know.

    A client sends the highest version it speaks; the unit answers with the
    highest version it speaks that is not above the client's.

    >>> negotiate_version(1), negotiate_version(7)
    (1, 1)
    """
    if client_version < MIN_PROTOCOL_VERSION:
        raise ProtocolError("unsupported_version", (
            f"client speaks up to version {client_version}; "
            f"this unit speaks versions {MIN_PROTOCOL_VERSION} to {PROTOCOL_VERSION}"))
    return min(client_version, PROTOCOL_VERSION)


# --- Names, ids and tokens: one check for every end ---------------------------

# Control, format (bidi overrides, zero-width), surrogate, private-use and
# unassigned characters, and line and paragraph separators: what lets one
# name pose as another, or breaks a line on a terminal.
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def _refused_character(text: str) -> str | None:
    if text.isascii() and text.isprintable():
        return None                     # the common case, at C speed
    for char in text:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            return f"U+{ord(char):04X} ({unicodedata.category(char)})"
    return None


def clean_name(value: Any, field: str = "name") -> str:
    """A player name as the unit and the engine keep it: NFC-normalised, runs
    of white space made one space and none at the ends, 1 to MAX_NAME_CHARS
    characters, no control, format, private-use or unassigned character and
    no line or paragraph separator. ValueError naming ``field`` otherwise.

    >>> clean_name("  Zoe\\u0308   Smith ")
    'Zoë Smith'
    >>> clean_name("Ann\\u202eB", "players.a")
    Traceback (most recent call last):
    ...
    ValueError: field 'players.a' must be a name of 1 to 40 printable characters, not "Ann\\u202eB" (it holds U+202E (Cf))
    """
    rule = f"field '{field}' must be a name of 1 to {MAX_NAME_CHARS} printable characters"
    if not isinstance(value, str):
        raise ValueError(f"{rule}, not {_show(value)}")
    name = value if value.isascii() else unicodedata.normalize("NFC", value)
    bad = _refused_character(name)
    if bad is not None:
        raise ValueError(f"{rule}, not {_show(value)} (it holds {bad})")
    name = " ".join(name.split())
    if not 1 <= len(name) <= MAX_NAME_CHARS:
        raise ValueError(f"{rule}, not {_show(value)}")
    return name


def clean_players(value: Any, field: str = "players") -> dict[str, str]:
    """``{"a": name, "b": name}`` with both names cleaned by :func:`clean_name`;
    the two must differ (ignoring case). ValueError otherwise.

    >>> clean_players({"a": "Ann", "b": " Bob"})
    {'a': 'Ann', 'b': 'Bob'}
    >>> clean_players({"a": "Ann", "b": "ANN"})
    Traceback (most recent call last):
    ...
    ValueError: field 'players' must name two different players, not "Ann" twice
    """
    if not isinstance(value, Mapping):
        raise ValueError(f"field '{field}' must be an object {{\"a\": name, \"b\": name}}, "
                         f"not {_show(value)}")
    for key in value:
        if key not in ("a", "b"):
            raise ValueError(f"unknown field '{field}.{key}'")
    players = {}
    for side in ("a", "b"):
        if side not in value:
            raise ValueError(f"missing field '{field}.{side}'")
        players[side] = clean_name(value[side], f"{field}.{side}")
    if players["a"].casefold() == players["b"].casefold():
        raise ValueError(f"field '{field}' must name two different players, not "
                         f"{_show(players['a'])} twice")
    return players


def clean_showdown_id(value: Any, field: str = "showdown_id") -> str:
    """A showdown id: 1 to 64 characters of ``A-Z a-z 0-9 . _ : -``; ValueError otherwise."""
    if not isinstance(value, str) or not _SHOWDOWN_ID.fullmatch(value):
        raise ValueError(f"field '{field}' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, "
                         f"not {_show(value)}")
    return value


def token_from_text(text: str, source: str) -> str:
    """The token a token file holds, read the same way at both ends: one
    line, surrounding white space dropped, 1 to MAX_TOKEN_CHARS printable
    characters. ValueError naming ``source`` (the file) otherwise.

    >>> token_from_text("s3cret\\n", "token")
    's3cret'
    >>> token_from_text("one\\ntwo\\n", "/etc/uno-showdown/token")
    Traceback (most recent call last):
    ...
    ValueError: /etc/uno-showdown/token: holds 2 lines; a token file holds the token on one line
    """
    token = text.strip()
    if not token:
        raise ValueError(f"{source}: the file is empty")
    lines = token.splitlines()
    if len(lines) > 1:
        raise ValueError(f"{source}: holds {len(lines)} lines; a token file holds the token "
                         "on one line")
    if len(token) > MAX_TOKEN_CHARS:
        raise ValueError(f"{source}: the token is {len(token)} characters; at most "
                         f"{MAX_TOKEN_CHARS}")
    bad = _refused_character(token)
    if bad is not None:
        raise ValueError(f"{source}: the token holds {bad}; use printable characters")
    return token


def auth_line_bytes(token: str) -> int:
    """The length of the ``auth`` line that carries ``token`` (without its
    newline): the unit refuses at start a token its line limit cannot carry."""
    return len(encode(Request(1, "auth", {"token": token}))) - 1


# --- Argument schemas -------------------------------------------------------

class _Invalid(Exception):
    """An argument failed its check; the text is the error message."""


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (RecursionError, ValueError):     # nothing decoded here is this deep
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 40 else text[:39] + "…"


def _whole(lo: int | None = None, hi: int | None = None):
    def check(name, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Invalid(f"field '{name}' must be a whole number, not {_show(value)}")
        if hi is not None and not lo <= value <= hi:
            raise _Invalid(f"field '{name}' must be {lo} to {hi}, not {value}")
        if lo is not None and value < lo:
            raise _Invalid(f"field '{name}' must be >= {lo}, not {value}")
        return value
    return check


def _number(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _Invalid(f"field '{name}' must be a number, not {_show(value)}")
    return value


def _token(name, value):
    if not isinstance(value, str) or not value:
        raise _Invalid(f"field '{name}' must be a non-empty string")
    return value


def _flag(name, value):
    if not isinstance(value, bool):
        raise _Invalid(f"field '{name}' must be true or false, not {_show(value)}")
    return value


def _checked_by(clean):
    """A schema check from a ``clean_*`` function (ValueError -> _Invalid)."""
    def check(name, value):
        try:
            return clean(value, name)
        except ValueError as exc:
            raise _Invalid(str(exc)) from None
    return check


_name = _checked_by(clean_name)
_showdown_id = _checked_by(clean_showdown_id)
_players = _checked_by(clean_players)


def _side(name, value):
    if value not in ("a", "b"):
        raise _Invalid(f"field '{name}' must be \"a\" or \"b\", not {_show(value)}")
    return value


def _one_timing(args):
    """A bench edge is timed by at most one of offset_ms and at_tick (neither: now)."""
    if args["offset_ms"] is not None and args["at_tick"] is not None:
        raise _Invalid("give at most one of fields 'offset_ms' and 'at_tick'")


_Check = Callable[[str, Any], Any]
def _not_negative(name, value):
    if _number(name, value) < 0:
        raise _Invalid(f"field '{name}' must be >= 0, not {value}")
    return value


# delay_ms: the edge's callback arrives this long after its tick (a busy pin backend).
_TIMING = {"side": _side, "offset_ms": _number, "at_tick": _number, "delay_ms": _not_negative}
_TIMING_OPTIONAL = {"offset_ms", "at_tick", "delay_ms"}
# hold: a press stays down (else it lets go by itself after a short hold).
_PRESS = {**_TIMING, "hold": _flag}
_PRESS_OPTIONAL = {*_TIMING_OPTIONAL, "hold"}

# command -> (argument checks, optional argument names, whole-request check)
_SCHEMAS: dict[str, tuple[dict[str, _Check], set[str], Callable | None]] = {
    "hello": ({"version": _whole()}, set(), None),
    "auth": ({"token": _token}, set(), None),
    "ping": ({}, set(), None),
    "status": ({}, set(), None),
    "showdown": ({"showdown_id": _showdown_id, "cards": _whole(1), "players": _players},
                 set(), None),
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


def _check_fields(given: dict, checks: dict[str, _Check], optional: set[str],
                  prefix: str = "") -> dict:
    for key in given:
        if key not in checks:
            raise _Invalid(f"unknown field '{prefix}{key}'")
    args = {}
    for key, check in checks.items():
        if key in optional and given.get(key) is None:
            args[key] = None   # absent, or null: the same thing
        elif key in given:
            args[key] = check(prefix + key, given[key])
        else:
            raise _Invalid(f"missing field '{prefix}{key}'")
    return args


def check_arguments(cmd: str, given: Mapping[str, Any], request_id: Any = None) -> dict:
    """``given`` checked against ``cmd``'s schema, with absent optional
    arguments as None; raises ProtocolError (``unknown_command``/``bad_request``).

    >>> check_arguments("history", {"limit": 5})
    {'limit': 5, 'player': None}
    >>> check_arguments("result", {"showdown_id": "a b"})
    Traceback (most recent call last):
    ...
    firmware_host.protocol.ProtocolError: bad_request: field 'showdown_id' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, not "a b"
    """
    if cmd not in _SCHEMAS:
        raise ProtocolError("unknown_command", f"unknown command {_show(cmd)}", request_id)
    checks, optional, whole = _SCHEMAS[cmd]
    try:
        args = _check_fields(dict(given), checks, optional)
        if whole is not None:
            whole(args)
    except _Invalid as exc:
        raise ProtocolError("bad_request", str(exc), request_id) from None
    return args


# --- Lines -------------------------------------------------------------------

_TOO_LONG = object()   # a line over the limit, in place of its bytes


class _LineBuffer:
    """Splits a byte stream into lines of at most ``limit`` bytes (not counting
    the ``\\n`` or ``\\r\\n``). The rest of an over-long line is dropped up to its
    newline, so memory stays bounded by the limit."""

    def __init__(self, limit: int):
        if limit < 1:
            raise ValueError(f"max_line_bytes must be >= 1, not {limit}")
        self.limit = limit
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> list:
        lines, start = [], 0
        while (end := data.find(b"\n", start)) >= 0:
            piece = data[start:end]
            start = end + 1
            if self._discarding:
                self._discarding = False   # the over-long line was reported already
                continue
            # A line's \r may have arrived in the buffer just before the \n.
            if len(self._buffer) + len(piece) > self.limit + 1:
                lines.append(_TOO_LONG)
            else:
                line = bytes(self._buffer + piece)
                line = line[:-1] if line.endswith(b"\r") else line
                lines.append(line if len(line) <= self.limit else _TOO_LONG)
            self._buffer.clear()
        rest = data[start:]
        if rest and not self._discarding:
            size = len(self._buffer) + len(rest)
            if size > self.limit + 1 or (size == self.limit + 1 and not rest.endswith(b"\r")):
                lines.append(_TOO_LONG)
                self._buffer.clear()
                self._discarding = True
            else:
                self._buffer += rest
        return lines

    def eof(self) -> int:
        """How many bytes of an unfinished line were left (0 if none)."""
        left = len(self._buffer)
        self._buffer.clear()
        self._discarding = False
        return left


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))


def _depth(line: bytes) -> int:
    """How deep the line's arrays and objects nest (brackets inside strings
    do not count). Cheap for ordinary lines: they have few brackets at all."""
    if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return 0
    brackets = _JSON_STRING.sub(b"", line).translate(None, _NOT_BRACKETS)
    return max(accumulate(1 if byte in b"[{" else -1 for byte in brackets), default=0)


class _DuplicateKey(ValueError):
    pass


def _object(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def _decode_object(line: bytes, what: str) -> dict:
    """One line as a JSON object; ProtocolError with code bad_json or bad_request."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError("bad_json", f"line is not valid UTF-8 (byte 0x{line[exc.start]:02x} "
                                        f"at offset {exc.start})") from None
    if _depth(line) > MAX_DEPTH:
        raise ProtocolError("bad_json", f"line is not valid JSON here: arrays and objects "
                                        f"nested deeper than {MAX_DEPTH}")
    try:
        value = _DECODER.decode(text)
    except _DuplicateKey as exc:
        raise ProtocolError("bad_request", f"field {_show(exc.args[0])} is given twice") from None
    except ValueError as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        where = f" at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise ProtocolError("bad_json", f"line is not valid JSON: {reason}{where}") from None
    if not isinstance(value, dict):
        raise ProtocolError("bad_request", f"{what} must be a JSON object, not {_kind(value)}")
    return value


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON value")


# One decoder for every line: json.loads would build a new one per call.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_object)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return {list: "an array", str: "a string", int: "a number", float: "a number"}[type(value)]


def _is_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, (str, int)) or (isinstance(value, float) and math.isfinite(value))


def _envelope(line: bytes) -> tuple[Any, str, dict]:
    """A request line's id, command and argument fields."""
    obj = _decode_object(line, "a request")
    if "id" not in obj:
        raise ProtocolError("bad_request", "missing field 'id'")
    request_id = obj.pop("id")
    if not _is_id(request_id):
        raise ProtocolError("bad_request", f"field 'id' must be a number or a string, "
                                           f"not {_show(request_id)}")
    if "cmd" not in obj:
        raise ProtocolError("bad_request", "missing field 'cmd'", request_id)
    cmd = obj.pop("cmd")
    if not isinstance(cmd, str):
        raise ProtocolError("bad_request", f"field 'cmd' must be a string, not {_show(cmd)}",
                            request_id)
    return request_id, cmd, obj


def decode_request(line: bytes) -> Request:
    """One request line (without its newline) as a checked Request, with no
    connection state; raises ProtocolError."""
    request_id, cmd, given = _envelope(line)
    return Request(request_id, cmd, check_arguments(cmd, given, request_id))


# --- The two ends -----------------------------------------------------------

# An HTTP request line ("POST / HTTP/1.1") or header line ("Host: ..."): a
# browser page or any HTTP client aimed at the unit's port.
_HTTP_REQUEST_LINE = re.compile(rb"[A-Z]{3,16} \S+ HTTP/\d")
_HTTP_HEADER = re.compile(rb"[A-Za-z0-9!#$%&'*+.^_`|~-]+:")


def _looks_like_http(line: bytes) -> bool:
    return bool(_HTTP_REQUEST_LINE.match(line) or _HTTP_HEADER.match(line))


class ConnectionState(enum.Enum):
    """Where a server connection is: waiting for auth, for hello, or ready."""

    AUTH = "auth"
    HELLO = "hello"
    READY = "ready"
    CLOSED = "closed"


class _Connection(abc.ABC):
    def __init__(self, max_line_bytes: int):
        self._lines = _LineBuffer(max_line_bytes)
        self._closed = False

    def receive_data(self, data: bytes) -> list:
        """Feed received bytes; get one item per complete non-blank line.
        ``b""`` is no data (pyserial's read timeout), not end of file."""
        if self._closed:
            raise RuntimeError("receive_data() after receive_eof()")
        items = []
        for line in self._lines.feed(bytes(data)):
            if line is _TOO_LONG:
                items.append(ProtocolError("line_too_long", (
                    f"line longer than {self._lines.limit} bytes; "
                    "discarded up to the next newline")))
            elif line.strip(b" \t\r"):
                items.extend(self._line(line))
                if items and getattr(items[-1], "close", False):
                    self._closing(items[-1])
                    break
        return items

    def _closing(self, error: ProtocolError) -> None:
        """A line that ends the link was read (only the server has such lines)."""

    def receive_eof(self) -> list[ProtocolError]:
        """The link closed: report an unfinished line, if there was one."""
        if self._closed:
            return []
        self._closed = True
        left = self._lines.eof()
        if not left:
            return []
        return [ProtocolError("truncated_line", f"link closed in the middle of a line "
                                                f"({left} bytes discarded)")]

    close = receive_eof

    @abc.abstractmethod
    def _line(self, line: bytes) -> list:
        """What one complete line yields at this end of the link."""


class ServerConnection(_Connection):
    """The unit's end of one client's link.

    ``receive_data`` returns Requests (checked; answer each with exactly one
    ``send(request.reply(...))`` or ``send(request.fail(code, message))``) and
    ProtocolErrors (answer each with ``send(error.to_reply())``). With a
    ``token``, ``auth`` must come first; then ``hello``, then anything.
    ``auth`` and the version rule are handled here: an ``auth`` Request only
    comes out once the token matched, and a ``hello`` one once the version is
    agreed (answer it with ``hello_reply``).
    """

    def __init__(self, *, token: str | None = None,
                 max_line_bytes: int = DEFAULT_MAX_LINE_BYTES):
        super().__init__(max_line_bytes)
        self._token = token.encode("utf-8") if token else None
        self.state = ConnectionState.AUTH if self._token else ConnectionState.HELLO
        self.version: int | None = None
        self.auth_failures = 0

    @property
    def ready(self) -> bool:
        """Hello done: the client gets events and may send any command."""
        return self.state is ConnectionState.READY

    def receive_eof(self) -> list[ProtocolError]:
        self.state = ConnectionState.CLOSED
        return super().receive_eof()

    close = receive_eof

    def send(self, message: Reply | ErrorReply | Event) -> bytes:
        """The bytes that carry a reply or an event to this client."""
        if not isinstance(message, (Reply, ErrorReply, Event)):
            raise TypeError(f"a server sends replies and events, not {type(message).__name__}")
        return encode(message)

    def hello_reply(self, request: Request, *, unit: Mapping[str, Any],
                    capabilities: list[str], seq: int) -> Reply:
        """The answer to ``hello``: the agreed version, the unit's identity and
        capabilities, and the last event seq (so the client can spot gaps)."""
        return request.reply(version=self.version, unit=dict(unit),
                             capabilities=list(capabilities), seq=seq)

    def _line(self, line: bytes) -> list:
        try:
            return [self._request(line)]
        except ProtocolError as error:
            return [error]

    def _closing(self, error: ProtocolError) -> None:
        # Nothing after this line is read: not the rest of this chunk, not later data.
        self.state = ConnectionState.CLOSED
        self._closed = True
        self._lines.eof()

    def _request(self, line: bytes) -> Request:
        if not line.lstrip(b" \t").startswith(b"{") and _looks_like_http(line):
            raise ProtocolError("http_refused", "this port speaks JSON lines, not HTTP: "
                                                "closing the link", close=True)
        request_id, cmd, given = _envelope(line)
        if self.state is ConnectionState.AUTH and cmd != "auth":
            raise ProtocolError("unauthorized", f"send auth with the unit's token before "
                                                f"{_show(cmd)}", request_id)
        if cmd in _SCHEMAS and self.state is ConnectionState.HELLO \
                and cmd not in _CONNECTION_COMMANDS:
            raise ProtocolError("hello_required", f"send hello before {_show(cmd)}", request_id)
        args = check_arguments(cmd, given, request_id)
        if cmd == "auth":
            self._authenticate(args["token"], request_id)
        elif cmd == "hello":
            try:
                self.version = negotiate_version(args["version"])
            except ProtocolError as error:
                raise ProtocolError(error.code, error.message, request_id) from None
            self.state = ConnectionState.READY
        return Request(request_id, cmd, args)

    def _authenticate(self, token: str, request_id) -> None:
        if self._token is None:
            return  # no token configured: auth is accepted and changes nothing
        given = token.encode("utf-8", "surrogatepass")
        if not hmac.compare_digest(given, self._token):
            self.auth_failures += 1
            if self.auth_failures >= MAX_AUTH_FAILURES:
                raise ProtocolError("unauthorized", f"wrong token ({self.auth_failures} tries): "
                                                    "closing the link", request_id, close=True)
            raise ProtocolError("unauthorized", "wrong token", request_id)
        if self.state is ConnectionState.AUTH:
            self.state = ConnectionState.HELLO


class ClientConnection(_Connection):
    """The engine's end of the link to a unit.

    ``send_request`` checks the arguments as the unit would and numbers the
    request; ``receive_data`` returns Reply and ErrorReply objects (matched to
    their request: ``cmd`` filled in, dropped from ``pending``), Events,
    EventGaps when event numbers skip, and ProtocolErrors for lines it could
    not use.
    """

    def __init__(self, *, max_line_bytes: int = CLIENT_MAX_LINE_BYTES,
                 version: int = PROTOCOL_VERSION):
        super().__init__(max_line_bytes)
        self.max_version = version
        self.version: int | None = None        # agreed in the hello reply
        self.last_seq: int | None = None       # the last event number seen
        self.pending: dict[Any, str] = {}      # request id -> command
        self._next_id = 1

    def send_request(self, cmd: str, **args) -> tuple[int, bytes]:
        """Number and encode a request; ``hello`` gets this client's version if
        none is given. Raises ProtocolError for an unknown command or bad
        arguments, with the message the unit would send."""
        if cmd == "hello":
            args.setdefault("version", self.max_version)
        check_arguments(cmd, args)
        request_id = self._next_id
        self._next_id += 1
        self.pending[request_id] = cmd
        return request_id, encode(Request(request_id, cmd, args))

    def _line(self, line: bytes) -> list:
        try:
            obj = _decode_object(line, "a message")
        except ProtocolError as error:
            return [error if error.code == "bad_json"
                    else ProtocolError("bad_message", error.message)]
        if "event" in obj:
            return self._event(obj)
        if "id" in obj and isinstance(obj.get("ok"), bool):
            return [self._reply(obj)]
        return [ProtocolError("bad_message", "a message must be a reply (id and ok) or an "
                                             f"event (event and seq), not {_show(obj)}")]

    def _event(self, obj: dict) -> list:
        name, seq = obj.pop("event"), obj.pop("seq", None)
        if not isinstance(name, str) or isinstance(seq, bool) or not isinstance(seq, int):
            return [ProtocolError("bad_message", "an event needs a string 'event' and a "
                                                 f"whole number 'seq', not {_show(name)}, "
                                                 f"{_show(seq)}")]
        items = []
        if self.last_seq is not None and seq != self.last_seq + 1:
            items.append(EventGap(self.last_seq + 1, seq))
        self.last_seq = seq
        items.append(Event(name, seq, obj))
        return items

    def _reply(self, obj: dict):
        request_id, ok = obj.pop("id"), obj.pop("ok")
        if not ok:
            error = obj.get("error")
            if (not isinstance(error, dict) or not isinstance(error.get("code"), str)
                    or not error["code"] or not isinstance(error.get("message"), str)):
                return ProtocolError("bad_message", "an error reply needs 'error' with a "
                                                    f"string code and message, not {_show(error)}",
                                     request_id)
        if request_id is None and not ok:
            return ErrorReply(None, error["code"], error["message"])  # unit could not read an id
        try:
            cmd = self.pending.pop(request_id)
        except (KeyError, TypeError):
            return ProtocolError("unexpected_reply", f"reply to unknown request id "
                                                     f"{_show(request_id)}", request_id)
        if not ok:
            return ErrorReply(request_id, error["code"], error["message"], cmd)
        if cmd == "hello":
            version = obj.get("version")
            if (isinstance(version, bool) or not isinstance(version, int)
                    or not MIN_PROTOCOL_VERSION <= version <= self.max_version):
                return ProtocolError("unsupported_version", (
                    f"unit answered version {_show(version)}; this client speaks versions "
                    f"{MIN_PROTOCOL_VERSION} to {self.max_version}"), request_id)
            self.version = version
            seq = obj.get("seq")
            if isinstance(seq, int) and not isinstance(seq, bool):
                self.last_seq = seq
        return Reply(request_id, obj, cmd)
