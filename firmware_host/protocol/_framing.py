"""Lines and JSON: splitting a byte stream into bounded lines, and reading one
line as a JSON object (nesting depth, duplicate keys and constants refused)."""

from __future__ import annotations

import json
import re
from enum import Enum
from itertools import accumulate
from typing import Any, Final, NoReturn

from firmware_host.protocol._errors import ProtocolError, _show

__all__ = ["DEFAULT_MAX_LINE_BYTES", "CLIENT_MAX_LINE_BYTES", "MAX_DEPTH"]

#: The unit's limit on one request line (config ``server.max_line_bytes``).
DEFAULT_MAX_LINE_BYTES = 4096
#: The client's limit on one incoming line: a ``history`` reply is long.
CLIENT_MAX_LINE_BYTES = 1_048_576
#: The deepest nesting of arrays and objects either end reads (a request needs 2).
MAX_DEPTH = 32


class _Marker(Enum):
    TOO_LONG = "too long"


#: A line over the limit, in place of its bytes (an enum member: a type checker
#: tells it from the lines' bytes by ``is``).
_TOO_LONG: Final = _Marker.TOO_LONG


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

    def feed(self, data: bytes) -> list[bytes | _Marker]:
        lines: list[bytes | _Marker] = []
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            piece = data[start:end]
            start = end + 1
            if self._discarding:
                self._discarding = False  # the over-long line was reported already
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


# Any below: a JSON object's values, of any JSON type, checked by whoever reads them.
def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def _decode_object(line: bytes, what: str) -> dict[str, Any]:
    """One line as a JSON object; ProtocolError with code bad_json or bad_request."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(
            "bad_json",
            f"line is not valid UTF-8 (byte 0x{line[exc.start]:02x} at offset {exc.start})",
        ) from None
    if _depth(line) > MAX_DEPTH:
        raise ProtocolError(
            "bad_json",
            f"line is not valid JSON here: arrays and objects nested deeper than {MAX_DEPTH}",
        )
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


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON value")


# One decoder for every line: json.loads would build a new one per call.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_object)


def _kind(value: Any) -> str:  # Any: a decoded JSON value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return {list: "an array", str: "a string", int: "a number", float: "a number"}[type(value)]
