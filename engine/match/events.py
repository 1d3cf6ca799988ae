"""What a match reports: its events and its result.

The match (engine.match.match) emits the kinds every game has (``MATCH_KINDS``);
a game family's narration (engine.game.interface.Narration) adds its own, listed
in its package (engine.uno.narration for UNO). Every event's ``data`` holds
plain values (cards and colours as text, players as seat indices), so a log
line, a save file and a test read the same record.
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["MatchEvent", "MatchResult", "MATCH_KINDS"]

#: The events of every game's match, whatever its family:
#: match_start  players (names) and the family's match facts (variant, target...)
#: round_start  the family's round facts (dealer, who decides first, the notation...)
#: showdown     showdown_id, challenger, opponent, names, cause, cards, bots ({player:
#:              reaction_ms} for the bots of the two), loser, winner, reason, reaction_us
#:              ({player: us or None}), margin_us, tie_reruns, detail
#: round_end    winner, points, scores and the family's round facts
#: match_end    winner, scores, rounds, decisions, showdowns
#: claim_lost   player, action (a claim out of turn made illegal by an earlier one)
MATCH_KINDS = ("match_start", "round_start", "showdown", "round_end", "match_end", "claim_lost")


@dataclasses.dataclass(frozen=True)
class MatchEvent:
    """One line of a match's record: its kind, the round it happened in, its data."""

    kind: str
    round: int
    #: Plain values of mixed types by key (MATCH_KINDS lists them), hence Any.
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "round": self.round, **self.data}


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """A finished match: the winner, final scores, and the whole record."""

    winner: int
    scores: tuple[int, ...]
    rounds: int
    decisions: int
    showdowns: int
    events: tuple[MatchEvent, ...]
