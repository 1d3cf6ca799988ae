"""A Pitch hand's score (RULES.md R9): the contract made or set, the Moon, the game's end.

>>> from engine.pitch.rules import PitchRules
>>> out = score_hand(PitchRules(), 52, (10, 20), pitcher=1, contract=5, taken=(3, 7))
>>> out.made, out.team_scores, out.winner, out.points, out.match_winner
(True, (13, 27), 1, 7, None)
>>> score_hand(PitchRules(), 52, (10, 20), pitcher=2, contract=6, taken=(4, 6)).team_scores
(4, 26)
"""

from __future__ import annotations

import dataclasses

from engine.pitch.actions import MOON, contract_points
from engine.pitch.rules import PitchRules

__all__ = ["HandOutcome", "score_hand"]


@dataclasses.dataclass(frozen=True)
class HandOutcome:
    """A scored hand. ``winner``: the pitcher if the contract was made, else the
    seat left of the pitcher; ``points``: what the winner's team added (may be
    0); ``scores``: the four seats' (partners equal); ``match_winner``: None or
    the first seat of the winning team (0 or 1); ``taken``: the points each team
    took (team A = seats 0 and 2, team B = 1 and 3); ``burned_points``: the
    points burned, scored by nobody."""

    winner: int
    points: int
    scores: tuple[int, ...]
    match_winner: int | None
    pitcher: int
    contract: int
    taken: tuple[int, int]
    made: bool
    moon: bool
    burned_points: int = 0

    @property
    def team_scores(self) -> tuple[int, int]:
        return (self.scores[0], self.scores[1])


def score_hand(
    rules: PitchRules,
    target: int,
    before: tuple[int, int],
    *,
    pitcher: int,
    contract: int,
    taken: tuple[int, int],
    burned_points: int = 0,
) -> HandOutcome:
    """Score a played hand: ``before``, the team scores at its start; ``taken``, each team's."""
    side = pitcher % 2
    need = contract_points(contract)
    made = taken[side] >= need
    moon = contract == MOON
    scores = [before[0] + taken[0], before[1] + taken[1]]  # the defenders always add theirs
    winner_team: int | None = None
    if moon:
        scores[side], winner_team = _moon(rules, target, before[side], taken[side], made, side)
    elif made:
        scores[side] = before[side] + (taken[side] if rules.made == "taken" else need)
    else:
        scores[side] = before[side] - need
    if winner_team is None:
        winner_team = _out(rules, target, scores, side)
    winner = pitcher if made else (pitcher + 1) % 4
    team = winner % 2
    return HandOutcome(
        winner=winner,
        points=scores[team] - before[team],
        scores=(scores[0], scores[1], scores[0], scores[1]),
        match_winner=winner_team,
        pitcher=pitcher,
        contract=contract,
        taken=taken,
        made=made,
        moon=moon,
        burned_points=burned_points,
    )


def _moon(
    rules: PitchRules, target: int, before: int, took: int, made: bool, side: int
) -> tuple[int, int | None]:
    """The Moon bidders' new score and the match's winning team, if the Moon decides it."""
    if not made:
        return before - contract_points(MOON), 1 - side  # a failed Moon loses the game at once
    base = before if rules.moon_score == "before" else before + took
    if base > 0 or (base == 0 and rules.moon_zero == "wins"):
        return max(before + took, target), side
    return 0, None


def _out(rules: PitchRules, target: int, scores: list[int], side: int) -> int | None:
    """The team that reached the target after the hand (both: by ``both_out``), or None."""
    reached = [team for team in (0, 1) if scores[team] >= target]
    if len(reached) == 1:
        return reached[0]
    if not reached:
        return None
    if rules.both_out == "higher" and scores[0] != scores[1]:
        return 0 if scores[0] > scores[1] else 1
    return side
