"""The terminal's recap: the scores for the person at the screen.

The events are told in UNO's words (engine.uno.words.event_text).
"""

from __future__ import annotations

from collections.abc import Sequence

from firmware_host.people.words import plural

__all__ = ["scoreboard"]


def scoreboard(
    names: Sequence[str], scores: Sequence[int], hand_sizes: Sequence[int] | None = None
) -> list[str]:
    """The scores, best first, one player a line (and the cards in hand, mid-round).

    >>> print("\\n".join(scoreboard(["Ann", "Bob", "bot2"], [12, 120, 0], [3, 1, 7])))
      Bob   120 points  1 card in hand
      Ann    12 points  3 cards in hand
      bot2    0 points  7 cards in hand
    """
    width = max(map(len, names))
    order = sorted(range(len(names)), key=lambda p: (-scores[p], p))
    lines = []
    for p in order:
        line = f"  {names[p]:<{width}}  {scores[p]:>4} points"
        if hand_sizes is not None:
            line += f"  {plural(hand_sizes[p], 'card')} in hand"
        lines.append(line)
    return lines
