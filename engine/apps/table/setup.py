"""The games the browser table plays, and what the room asks of each.

Each game family names the module of its table adapter (``Family.table``,
engine.game.interface: UNO's is ``engine.uno.table``, Pitch's
``engine.pitch.table``); the room asks it for all that differs from game to
game (the seats, the target, the bots, the house rules from the host's form
and from a save file, the views, the log's words), so the room itself never
names a game. A family without the attribute is looked for at
``engine.<name>.table``.

>>> VARIANTS
('classic', 'showdown', 'party', 'pitch')
>>> table_of("party").seat_range("party")
(2, 16)
>>> table_of("chess")
Traceback (most recent call last):
...
ValueError: variant must be classic, showdown, party or pitch, not 'chess'
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from engine.game.interface import Family, GameState
from engine.game.registry import all_variants, family_of, family_playing

__all__ = ["VARIANTS", "table_of", "table_of_game", "variant_refusal", "host_forms", "in_words"]

#: Every variant of every family (the registry's order).
VARIANTS = all_variants()


def in_words(names: tuple[str, ...] | list[str]) -> str:
    """``("a", "b", "c")`` -> ``"a, b or c"``."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def variant_refusal(variant: Any) -> str | None:
    """Why ``variant`` is no game the table plays, or None."""
    if isinstance(variant, str) and variant in VARIANTS:
        return None
    return f"variant must be {in_words(VARIANTS)}, not {variant!r}"


def table_of(variant: str) -> ModuleType:
    """The table adapter of the family that plays ``variant``; ValueError if none does."""
    refused = variant_refusal(variant)
    if refused is not None:
        raise ValueError(refused)
    return _adapter(family_playing(variant))


def table_of_game(game: GameState) -> ModuleType:
    """The table adapter of ``game``'s family."""
    return _adapter(family_of(game))


def _adapter(family: Family) -> ModuleType:
    return importlib.import_module(family.table)


def host_forms() -> dict[str, Any]:
    """The host form's fields of each variant whose adapter describes them
    (the others' are display.html's own): served as /forms.json (server.py)."""
    forms = {}
    for variant in VARIANTS:
        form = table_of(variant).host_form(variant)
        if form is not None:
            forms[variant] = form
    return forms
