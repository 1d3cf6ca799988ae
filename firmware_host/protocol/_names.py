"""Names, showdown ids and tokens: one check for every end."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from firmware_host.protocol._errors import _show
from firmware_host.protocol._messages import Request, encode
from firmware_host.protocol._values import SIDES

__all__ = [
    "MAX_NAME_CHARS",
    "MAX_TOKEN_CHARS",
    "clean_name",
    "clean_players",
    "clean_showdown_id",
    "token_from_text",
    "auth_line_bytes",
]

#: The longest player name, in characters once normalised.
MAX_NAME_CHARS = 40
#: The longest token a token file may hold.
MAX_TOKEN_CHARS = 256

_SHOWDOWN_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")

# Control, format (bidi overrides, zero-width), surrogate, private-use and
# unassigned characters, and line and paragraph separators: what lets one
# name pose as another, or breaks a line on a terminal.
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def _refused_character(text: str) -> str | None:
    if text.isascii() and text.isprintable():
        return None  # the common case, at C speed
    for char in text:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            return f"U+{ord(char):04X} ({unicodedata.category(char)})"
    return None


def clean_name(value: Any, field: str = "name") -> str:  # Any: what a client sent
    """A player name as the unit and the engine keep it: NFC-normalised, runs
    of white space made one space and none at the ends, 1 to MAX_NAME_CHARS
    characters, no control, format, private-use or unassigned character and
    no line or paragraph separator. ValueError naming ``field`` otherwise.

    >>> clean_name("  Zoe\\u0308   Smith ")
    'Zoë Smith'
    >>> clean_name("Ann\\u202eB", "players.a")
    Traceback (most recent call last):
    ...
    ValueError: field 'players.a' must be a name of 1 to 40 printable characters,
    not "Ann\\u202eB" (it holds U+202E (Cf))
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


def clean_players(value: Any, field: str = "players") -> dict[str, str]:  # Any: as above
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
        raise ValueError(
            f'field \'{field}\' must be an object {{"a": name, "b": name}}, not {_show(value)}'
        )
    for key in value:
        if key not in SIDES:
            raise ValueError(f"unknown field '{field}.{key}'")
    players: dict[str, str] = {}
    for side in SIDES:
        if side not in value:
            raise ValueError(f"missing field '{field}.{side}'")
        players[side] = clean_name(value[side], f"{field}.{side}")
    a, b = players.values()
    if a.casefold() == b.casefold():
        raise ValueError(f"field '{field}' must name two different players, not {_show(a)} twice")
    return players


def clean_showdown_id(value: Any, field: str = "showdown_id") -> str:  # Any: as above
    """A showdown id: 1 to 64 characters of ``A-Z a-z 0-9 . _ : -``; ValueError otherwise."""
    if not isinstance(value, str) or not _SHOWDOWN_ID.fullmatch(value):
        raise ValueError(
            f"field '{field}' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, not {_show(value)}"
        )
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
        raise ValueError(
            f"{source}: holds {len(lines)} lines; a token file holds the token on one line"
        )
    if len(token) > MAX_TOKEN_CHARS:
        raise ValueError(
            f"{source}: the token is {len(token)} characters; at most {MAX_TOKEN_CHARS}"
        )
    bad = _refused_character(token)
    if bad is not None:
        raise ValueError(f"{source}: the token holds {bad}; use printable characters")
    return token


def auth_line_bytes(token: str) -> int:
    """The length of the ``auth`` line that carries ``token`` (without its
    newline): the unit refuses at start a token its line limit cannot carry."""
    return len(encode(Request(1, "auth", {"token": token}))) - 1
