"""Playouts for UNO Party!: a game played to the end of the round or the match
by a named policy over every player's moves, fast, on plain lists.

Party! lets anyone act out of turn (speed plays, catches, everyone's pointing),
so a Party! policy chooses among ``legal_moves()``, every (player, action) pair
in seat order, as ``showdown speed`` does (engine.apps.speed):

``random``       uniform over ``legal_moves()``;
``prefer-play``  uniform over the moves that are not ``draw``, ``keep`` or a
                 wrong speed play (a card other than the top one) when there
                 are any, else over all (engine.apps.speed's prefer-play).

A uniform choice among ``k > 1`` moves takes ``int(rng.random() * k)``; a
choice of one takes nothing (engine.uno.playout's rule; ``showdown speed``
takes ``randrange``, so its games differ).

``heuristic``    every seat plays as HeuristicBot, its claims out of turn
                 ordered as engine.match orders them, from ``rng`` (each
                 seat's ``reaction_ms``): engine.uno.party_playout_heuristic,
                 which states the contract.

``play_out(game, policy, rng)`` copies the position into its own lists
(engine.uno.party_playout_state; the game is not changed) and plays every
decision itself: no Action, no ``legal_moves()`` and no ``apply()`` per
decision, and a player's moves are listed only for the player chosen (the
others' are counted). ``reference_play_out`` is the same loop over the public
API; tests/test_party_playout.py compares every decision of the two.

>>> import random
>>> from engine.uno.party import PartyGame
>>> game = PartyGame.new(4, seed=3)
>>> result = play_out(game, "prefer-play", random.Random(1))
>>> result == reference_play_out(game, "prefer-play", random.Random(1)), game.turns
(True, 0)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Literal

from engine.game.agents import DEFAULT_REACTION_MS
from engine.uno import party_playout_heuristic as heuristic
from engine.uno.actions import Action
from engine.uno.party import PartyGame
from engine.uno.party_notation import WAITING
from engine.uno.party_playout_state import (
    DRAWN,
    K_CATCH,
    K_KEEP,
    K_SPEED,
    OVER,
    PLAYING,
    POINTING,
    Move,
    PartyState,
    action_of,
)
from engine.uno.playout import MAX_DECISIONS, PlayoutResult

__all__ = ["play_out", "reference_play_out", "POLICIES", "action_of"]

#: The policies by name, as ``play_out`` takes them.
POLICIES = ("random", "prefer-play", "heuristic")


def _check(policy: str, to: str) -> None:
    if policy not in POLICIES:
        raise ValueError(
            f"no UNO Party! playout policy {policy!r} (the policies: {', '.join(POLICIES)})"
        )
    if to not in ("round", "match"):
        raise ValueError(f"play out to 'round' or 'match', not {to!r}")


def play_out(
    game: PartyGame,
    policy: str,
    rng: random.Random,
    *,
    to: Literal["round", "match"] = "round",
    log: list[tuple[int, Action]] | None = None,
    max_decisions: int = MAX_DECISIONS,
    reaction_ms: float | Sequence[float] = DEFAULT_REACTION_MS,
) -> PlayoutResult:
    """Play ``game`` (left unchanged) to the end of the round or the match with
    ``policy`` (one of POLICIES), choosing with ``rng``; ``log``, when given,
    receives every decision as (player, the game's Action); ``reaction_ms``
    (one for all or one per seat) is the heuristic's."""
    _check(policy, to)
    if policy == "heuristic":
        return heuristic.play_out(
            game, rng, to=to, log=log, max_decisions=max_decisions, reaction_ms=reaction_ms
        )
    st = PartyState(game)
    prefer = policy == "prefer-play"
    decisions = 0
    while True:
        decisions += play_round(st, prefer, rng.random, log, max_decisions - decisions)
        if st.phase != OVER:
            return PlayoutResult(None, 0, decisions, tuple(st.scores), None)
        winner = st.current
        if to == "round" or st.match_winner() is not None:
            return PlayoutResult(
                winner, st.points(), decisions, tuple(st.scores), st.match_winner()
            )
        st.next_round()


def play_round(
    st: PartyState,
    prefer: bool,
    pick: Callable[[], float],
    log: list[tuple[int, Action]] | None,
    budget: int,
) -> int:
    """Decide until the round is over or ``budget`` decisions; the decisions made."""
    decisions = 0
    while st.phase != OVER and decisions < budget:
        decisions += 1
        target = st.catch_target()
        if prefer and st.phase != POINTING:  # the pointing has no passive moves
            player, move = _preferred(st, st.current, target, pick)
        else:
            player, move = _uniform(st, st.current, target, pick)
        if log is not None:
            log.append((player, action_of(move)))
        st.apply(player, move)
    return decisions


def _uniform(
    st: PartyState,
    current: int,
    target: int,
    pick: Callable[[], float],
    mine: list[Move] | None = None,
) -> tuple[int, Move]:
    """A uniform pick among every player's moves: counted player by player,
    listed only for the player the pick falls on (``mine``: the player to
    act's, when listed already)."""
    n = st.n
    if st.phase == POINTING:  # whom each may point at (anyone else holding cards), a catch
        choices = st.choices
        assert choices is not None
        holding = sum(1 for hand in st.hands if hand)
        counts = [
            (holding - (1 if hand else 0) if choices[p] == WAITING else 0)
            + (target >= 0 and target != p)
            for p, hand in enumerate(st.hands)
        ]
        k = sum(counts)
        i = int(pick() * k) if k > 1 else 0
        for p in range(n):
            if i < counts[p]:
                return p, st.moves_of(p, False, target)[i]
            i -= counts[p]
        raise AssertionError("a pick beyond the moves")
    window = st.window()
    if mine is not None:
        own = len(mine)
    elif st.phase == PLAYING:
        own = st.turn_count(current, target)  # listed only if the pick falls on it
    else:
        mine = st.moves_of(current, window, target)
        own = len(mine)
    # Everyone else's count (len(moves_of(p, ...))), for all at once: a hand of
    # three or more offers its distinct cards; a smaller one holding the top card
    # one more (with UNO) or, under speed_out=no, its last card less.
    hands = st.hands
    if window:
        counts = st.distinct[:]
        top = st.discard[-1]
        for p, hand in enumerate(hands):
            if 0 < len(hand) <= 2 and top in hand:
                if len(hand) == 2:
                    counts[p] += 1
                elif not st.speed_out:
                    counts[p] -= 1
    else:
        counts = [0] * n
    if target >= 0:
        counts = [c + 1 for c in counts]
        counts[target] -= 1
    counts[current] = own
    k = sum(counts)
    i = int(pick() * k) if k > 1 else 0
    for p in range(n):
        if i < counts[p]:
            if p != current:
                return p, st.nth_other(p, i, window, target)
            if mine is None:  # a turn's play, counted
                return p, st.nth_turn(current, i, target)
            return p, mine[i]
        i -= counts[p]
    raise AssertionError("a pick beyond the moves")


def _preferred(
    st: PartyState, current: int, target: int, pick: Callable[[], float]
) -> tuple[int, Move]:
    """prefer-play's pick: among the active moves (in seat order: the player to
    act's but draw and keep, the others' right speed plays and catches), or,
    with none, among all. One active move is taken as is (then the reference
    takes it unfiltered or filtered, and draws nothing either way). The player
    to act's moves are counted, and listed only if the pick falls on them."""
    hands = st.hands
    window = st.window()
    top = st.discard[-1]
    speed_out = st.speed_out
    before: list[tuple[int, Move]] = []  # the others' active moves, seats before and after
    after: list[tuple[int, Move]] = []
    for p in range(st.n):
        if p == current:
            continue
        active = before if p < current else after
        if window:
            hand = hands[p]
            if top in hand:
                if len(hand) == 2:
                    active += ((p, (K_SPEED, top, 0)), (p, (K_SPEED, top, 1)))
                elif len(hand) > 1 or speed_out:
                    active.append((p, (K_SPEED, top, 0)))
        if target >= 0 and target != p:
            active.append((p, (K_CATCH, target)))
    phase = st.phase
    mine = None
    if phase == PLAYING:
        own = st.turn_count(current, target) - 1  # its last move is draw
    else:
        mine = st.moves_of(current, window, target)
        own = len(mine) - (phase == DRAWN)  # keep
    k = len(before) + own + len(after)
    if k == 0:
        return _uniform(st, current, target, pick, mine)
    i = int(pick() * k) if k > 1 else 0
    if i < len(before):
        return before[i]
    i -= len(before)
    if i >= own:
        return after[i - own]
    if mine is None:  # a turn's play: its moves are the plays, a catch, then draw
        return current, st.nth_turn(current, i, target)
    return current, [m for m in mine if m[0] != K_KEEP][i]


def reference_play_out(
    game: PartyGame,
    policy: str,
    rng: random.Random,
    *,
    to: Literal["round", "match"] = "round",
    log: list[tuple[int, Action]] | None = None,
    max_decisions: int = MAX_DECISIONS,
    reaction_ms: float | Sequence[float] = DEFAULT_REACTION_MS,
) -> PlayoutResult:
    """``play_out`` through the public API (``legal_moves`` / ``apply``), on a
    copy of ``game``: the definition of what a playout plays."""
    _check(policy, to)
    if policy == "heuristic":
        return heuristic.reference_play_out(
            game, rng, to=to, log=log, max_decisions=max_decisions, reaction_ms=reaction_ms
        )
    game = game.copy()
    prefer = policy == "prefer-play"
    decisions = 0
    while True:
        while not game.round_over:
            if decisions >= max_decisions:
                return PlayoutResult(None, 0, decisions, game.scores, None)
            moves: Sequence[tuple[int, Action]] = game.legal_moves()
            if prefer and len(moves) > 1:
                passive = game.passive_actions()  # draw, keep, a speed play of another card
                active = [m for m in moves if m[1] not in passive]
                if active:
                    moves = active
            k = len(moves)
            player, action = moves[int(rng.random() * k)] if k > 1 else moves[0]
            if log is not None:
                log.append((player, action))
            game.apply(action, player)
            decisions += 1
        outcome = game.outcome
        assert outcome is not None  # the round is over
        if to == "round" or game.match_over:
            return PlayoutResult(
                outcome.winner, outcome.points, decisions, outcome.scores, outcome.match_winner
            )
        game.next_round()
