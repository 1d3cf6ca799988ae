"""Reading a deck definition file (engine/uno/data/*_deck.toml or the user's copy)."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from engine.game.errors import DeckError

__all__ = ["read_deck_file"]


def read_deck_file(
    path: str | Path | None, packaged: str, keys: Iterable[str]
) -> tuple[dict[str, Any], str]:
    """A deck file's TOML table and the name to quote in errors: ``path``, or
    engine/uno/data/``packaged``. DeckError names the file for anything unreadable
    and for a key not among ``keys``. (The table is tomllib's ``dict[str, Any]``:
    a TOML value may be of any type, and the caller checks each.)"""
    source: Traversable | Path
    if path is None:
        source = resources.files("engine.uno") / "data" / packaged
        name = f"engine/uno/data/{packaged}"
    else:
        source, name = Path(path), str(path)
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckError(f"{name}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise DeckError(f"{name}: not valid TOML: {exc}") from None
    keys = tuple(keys)
    unknown = set(data) - set(keys)
    if unknown:
        raise DeckError(f"{name}: unknown key {sorted(unknown)[0]!r} (expected {', '.join(keys)})")
    return data, name
