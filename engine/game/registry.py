"""The registry of game families: adding a game is a package and one line here.

Families are imported by name when first asked for, so ``engine.game`` imports
no family and a family may import ``engine.game``.

>>> family("uno").variants
('classic', 'showdown', 'party')
>>> family_playing("party").name
'uno'
>>> family_playing("chess")
Traceback (most recent call last):
...
ValueError: no game family plays 'chess' (the variants: classic, showdown, party, pitch)
"""

from __future__ import annotations

import importlib
from typing import cast

from engine.game.interface import Family, GameState

__all__ = ["FAMILIES", "family", "family_of", "family_playing", "all_variants"]

#: Family name -> the package whose ``FAMILY`` it is.
FAMILIES = {"uno": "engine.uno", "pitch": "engine.pitch"}


def family(name: str) -> Family:
    """The family registered as ``name``; ValueError naming the known ones."""
    try:
        package = FAMILIES[name]
    except KeyError:
        raise ValueError(f"no game family {name!r} (known: {', '.join(FAMILIES)})") from None
    # The package's FAMILY satisfies the Family protocol (tests/test_game_interface.py);
    # the cast, as import_module returns a module whose attributes mypy cannot see.
    return cast(Family, importlib.import_module(package).FAMILY)


def family_of(game: GameState) -> Family:
    """The family of a game (its ``family`` attribute)."""
    return family(game.family)


def all_variants() -> tuple[str, ...]:
    """Every variant of every family, in registry order."""
    return tuple(v for name in FAMILIES for v in family(name).variants)


def family_playing(variant: str) -> Family:
    """The family with the variant named ``variant``."""
    for name in FAMILIES:
        if variant in family(name).variants:
            return family(name)
    raise ValueError(
        f"no game family plays {variant!r} (the variants: {', '.join(all_variants())})"
    )
