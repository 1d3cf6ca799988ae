"""Playouts for 10 Point Pitch: a game played to the end of the hand or the match
by a named policy, fast, on plain ints.

``play_out(game, policy, rng)`` copies the position into its own lists of card
codes (the game is not changed) and plays every decision itself
(engine.pitch.playout_fast): no Action, no view and no ``apply()`` per
decision. The same ``rng`` gives exactly the game the public API plays with
the same policy: ``reference_play_out`` is that loop over ``waiting_for`` /
``legal_actions`` / ``apply``, and tests/test_pitch_playout.py compares every
decision of the two. The policies (``POLICIES``), choosing from
``legal_actions()`` as the game lists them:

``random``     uniform over ``legal_actions()``: ``int(rng.random() * k)`` among
               k > 1 actions, nothing drawn from ``rng`` for a single one;
``heuristic``  what ``engine.pitch.heuristic.HeuristicBot()`` chooses (no rng).

There is no ``prefer-play``: it prefers any action to a draw or a keep, and
Pitch has no draw; every decision of trick play is a play. Only the deals are
random in Pitch, and they come from the game's own seed: the same ``rng``
plays the same decisions.

>>> import random
>>> from engine.pitch.game import PitchGame
>>> game = PitchGame.new(seed=7, dealer=3)
>>> result = play_out(game, "heuristic", random.Random(1))
>>> result.winner in range(4), result.decisions > 0, game.round_over
(True, True, False)
>>> result == reference_play_out(game, "heuristic", random.Random(1))
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal, NamedTuple

from engine.pitch.actions import Action
from engine.pitch.game import PitchGame
from engine.pitch.heuristic import HeuristicBot
from engine.pitch.playout_codes import OVER
from engine.pitch.playout_fast import play_hand
from engine.pitch.playout_state import HandState

__all__ = ["play_out", "reference_play_out", "PitchPlayoutResult", "POLICIES", "MAX_DECISIONS"]

#: The policies by name.
POLICIES = ("random", "heuristic")
#: The decisions after which a playout stops by default.
MAX_DECISIONS = 100_000


class PitchPlayoutResult(NamedTuple):
    """A playout's end: the last hand's winner (the first seat of its team's
    side as HandOutcome says) and the points it added, the decisions made (all
    hands), the seats' scores and the match winner (None while the match goes
    on). Stopped by ``max_decisions``: winner None, points 0."""

    winner: int | None
    points: int
    decisions: int
    scores: tuple[int, ...]
    match_winner: int | None


def _uniform(legal: Sequence[Action], rng: random.Random) -> Action:
    k = len(legal)
    return legal[int(rng.random() * k)] if k > 1 else legal[0]


def _check(policy: str, to: str) -> None:
    if policy not in POLICIES:
        raise ValueError(f"no playout policy {policy!r} (the policies: {', '.join(POLICIES)})")
    if to not in ("hand", "match"):
        raise ValueError(f"play out to 'hand' or 'match', not {to!r}")


def play_out(
    game: PitchGame,
    policy: str,
    rng: random.Random,
    *,
    to: Literal["hand", "match"] = "hand",
    log: list[Action] | None = None,
    max_decisions: int = MAX_DECISIONS,
) -> PitchPlayoutResult:
    """Play ``game`` (left unchanged) to the end of the hand or the match with
    ``policy`` (one of POLICIES), choosing with ``rng``; ``log``, when given,
    receives every decision as the game's Action (slower). A game copied and
    given other hands (a determinized copy) plays out as it stands."""
    _check(policy, to)
    st = HandState(game)
    heuristic = policy == "heuristic"
    decisions = 0
    while True:
        decisions += play_hand(st, heuristic, rng.random, log, max_decisions - decisions)
        outcome = st.outcome
        if st.phase != OVER or outcome is None:
            return PitchPlayoutResult(None, 0, decisions, st.scores, None)
        if to == "hand" or outcome.match_winner is not None:
            return PitchPlayoutResult(
                outcome.winner, outcome.points, decisions, outcome.scores, outcome.match_winner
            )
        st.next_round()


def reference_play_out(
    game: PitchGame,
    policy: str,
    rng: random.Random,
    *,
    to: Literal["hand", "match"] = "hand",
    log: list[Action] | None = None,
    max_decisions: int = MAX_DECISIONS,
) -> PitchPlayoutResult:
    """``play_out`` through the public API, on a copy of ``game``: the
    definition of what a playout plays (and the API's speed)."""
    _check(policy, to)
    game = game.copy()
    bot = HeuristicBot() if policy == "heuristic" else None
    decisions = 0
    while True:
        while not game.round_over:
            if decisions >= max_decisions:
                return PitchPlayoutResult(None, 0, decisions, game.scores, None)
            player = game.waiting_for[0]
            if bot is not None:
                action = bot.act(game, player)
            else:
                action = _uniform(game.legal_actions(player), rng)
            if log is not None:
                log.append(action)
            game.apply(action)
            decisions += 1
        outcome = game.outcome
        assert outcome is not None  # the hand is over
        if to == "hand" or outcome.match_winner is not None:
            return PitchPlayoutResult(
                outcome.winner, outcome.points, decisions, outcome.scores, outcome.match_winner
            )
        game.next_round()
