"""Perft for Pitch: the number of positions a given number of decisions away.

As python-chess's perft pins its move generator, these counts pin
``legal_actions`` and ``apply``: golden files (tests/data/pitch_perft/) hold
the counts of seeded positions, and a change of the rules shows as a changed
count. A finished hand is a leaf: it counts once, whatever depth is left.

>>> from engine.pitch.game import PitchGame
>>> game = PitchGame.new(seed=1, dealer=0)
>>> [perft(game, depth) for depth in range(4)]
[1, 8, 39, 148]
>>> divide(game, 1)["bid moon"]
1
"""

from __future__ import annotations

from engine.pitch.game import PitchGame

__all__ = ["perft", "divide"]


def perft(game: PitchGame, depth: int) -> int:
    """The leaf positions ``depth`` decisions from ``game`` (which is left unchanged)."""
    if depth < 0:
        raise ValueError(f"perft depth must be 0 or more, not {depth!r}")
    if depth == 0 or game.round_over:
        return 1
    actions = game.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        child = game.copy()
        child.apply(action)
        total += perft(child, depth - 1)
    return total


def divide(game: PitchGame, depth: int) -> dict[str, int]:
    """perft(depth - 1) after each legal action, by the action's text (a depth of 1 or more)."""
    if depth < 1:
        raise ValueError(f"divide depth must be 1 or more, not {depth!r}")
    counts = {}
    for action in game.legal_actions():
        child = game.copy()
        child.apply(action)
        counts[str(action)] = perft(child, depth - 1)
    return counts
