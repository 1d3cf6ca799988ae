"""``showdown speed``: how many rounds per second random agents play (the engine's
throughput; ``showdown bench``, its old name, still runs it).

Every decision is drawn at random (Python's ``random.Random``, seeded) from
``legal_actions()``; a pending showdown's result is one of its two ``loser``
actions, so it is decided 50/50 by the same generator. A *game* is one round
(a hand until someone goes out), as in the peer benchmark
(/work/shared/peers/bench_uno.py), and the counts mean the same:

decision  one ``apply()``
turn      counted each time the player whose turn it is changes, plus the final move

Policies: ``uniform`` chooses among all legal actions; ``prefer-play`` among
those that are not ``draw``/``keep`` when there are any (comparable with engines
that offer no voluntary draw).

UNO Party! (``--variant party``, 2-16 players): the choice is among
``legal_moves()``, every player's actions, the out-of-turn ones too (speed
plays, catches, everyone's pointing); ``prefer-play`` also leaves out the wrong
speed plays (a card not identical to the top one) when anything else is left.
Uniform over every player's moves makes wrong speed plays (a penalty card each)
most of the decisions, and rounds several times longer.

Every variant of every family (engine.game.registry) runs: the game is dealt
by its family, a game out of turn (``out_of_turn``) chooses among every
player's ``legal_moves()``, the others among the ``legal_actions()`` of the
player to act. The players a variant takes are the family's (it refuses the
others); ``--players`` by default the fewest it takes. 10 Point Pitch
(``--variant pitch``, 4 players): a game is one hand, from the deal to its
score; its actions have no passive kind, so ``prefer-play`` is uniform there;
a turn is counted whenever the seat to act changes, as UNO counts them.


>>> result = run(games=20, players=2, policy="prefer-play", seed=1, variant="classic")
>>> sorted(result)
['decisions_per_game', 'decisions_per_s', 'games', 'games_per_s', 'seconds', 'turns_per_game']
>>> result["games"]
20
>>> party = run(games=1, players=8, seed=7, variant="party")
>>> party["games"], sorted(party) == sorted(result)
(1, True)
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from typing import Any

from engine.game.registry import all_variants, family_playing
from firmware_host.people import console

__all__ = ["add_arguments", "command", "run", "players_error", "players_taken"]

POLICIES = ("uniform", "prefer-play")
VARIANTS = all_variants()
#: The player counts asked of a family (none takes more).
PLAYER_RANGE = range(2, 17)


def players_taken(variant: str) -> tuple[int, ...]:
    """The player counts ``variant``'s family deals (it refuses the others).

    >>> players_taken("pitch"), players_taken("party")[-1]
    ((4,), 16)
    """
    family = family_playing(variant)
    taken = []
    for players in PLAYER_RANGE:
        try:
            family.new(players, variant, seed=0)
        except ValueError:
            continue
        taken.append(players)
    return tuple(taken)


def run(
    *,
    games: int | None = None,
    seconds: float | None = None,
    players: int | None = None,
    policy: str = "uniform",
    seed: int = 0,
    variant: str = "showdown",
    clock=time.perf_counter,
) -> dict:
    """Play rounds until ``games`` are done or ``seconds`` have passed on ``clock``
    (``players`` None: the fewest the variant takes)."""
    if (games is None) == (seconds is None):
        raise ValueError("give games or seconds")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    prefer_play = policy == "prefer-play"
    rng = random.Random(seed)
    family = family_playing(variant)
    if players is None:
        players = players_taken(variant)[0]
    deal = lambda: family.new(players, variant, rng=rng)  # noqa: E731
    if getattr(family.new(players, variant, seed=0), "out_of_turn", False):
        return _run_party(games, seconds, deal, prefer_play, rng, clock)
    randrange = rng.randrange
    played = decisions = turns = 0
    start = clock()
    deadline = None if seconds is None else start + seconds
    while played != games and (deadline is None or clock() < deadline):
        game = deal()
        counted = getattr(game, "turns", None) is None
        seat = None
        while not game.round_over:
            actions: Sequence[Any] = game.legal_actions()
            if prefer_play and len(actions) > 1:
                active = [a for a in actions if not getattr(a, "is_passive", False)]
                if active:
                    actions = active
            if counted and game.waiting_for[0] != seat:
                seat = game.waiting_for[0]
                turns += 1
            game.apply(actions[randrange(len(actions))])
            decisions += 1
        if not counted:
            turns += getattr(game, "turns", 0)
        played += 1
    return _result(played, clock() - start, decisions, turns)


def _run_party(games, seconds, deal, prefer_play, rng, clock) -> dict:
    """Rounds of a game played out of turn (UNO Party!): a random (player,
    action) of ``legal_moves()``; prefer-play leaves out the game's
    ``passive_actions()`` (a set: a decision has tens of moves)."""
    randrange = rng.randrange
    played = decisions = turns = 0
    start = clock()
    deadline = None if seconds is None else start + seconds
    while played != games and (deadline is None or clock() < deadline):
        game = deal()
        while not game.round_over:
            moves: Sequence[tuple[int, Any]] = game.legal_moves()
            if prefer_play and len(moves) > 1:
                passive = game.passive_actions()
                active = [move for move in moves if move[1] not in passive]
                if active:
                    moves = active
            player, action = moves[randrange(len(moves))]
            game.apply(action, player)
            decisions += 1
        turns += game.turns
        played += 1
    return _result(played, clock() - start, decisions, turns)


def _result(played: int, elapsed: float, decisions: int, turns: int) -> dict:
    return {
        "games": played,
        "seconds": elapsed,
        "games_per_s": played / elapsed if elapsed > 0 else 0.0,
        "decisions_per_s": decisions / elapsed if elapsed > 0 else 0.0,
        "decisions_per_game": decisions / played if played else 0.0,
        "turns_per_game": turns / played if played else 0.0,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    amount = parser.add_mutually_exclusive_group()
    amount.add_argument("--games", type=console.positive_int, metavar="N", help="play N rounds")
    amount.add_argument(
        "--seconds", type=console.seconds, metavar="S", help="play for S seconds (default 10)"
    )
    parser.add_argument(
        "--players",
        type=console.whole_number(PLAYER_RANGE[0], PLAYER_RANGE[-1]),
        default=None,
        metavar="P",
        help="players per game, 2-10 (party: 2-16, pitch: 4; default the fewest)",
    )
    # prefer-play by default: uniform agents take voluntary draws and, in the
    # Showdown variant, play rounds of tens of thousands of decisions.
    parser.add_argument(
        "--policy",
        choices=POLICIES,
        default="prefer-play",
        help="how the random agents choose (default prefer-play)",
    )
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        default="showdown",
        help="rules to play (default showdown)",
    )
    parser.add_argument("--seed", type=console.seed, default=0, help="seed of the agents and deals")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def players_error(variant: str, players: int) -> str | None:
    """What is wrong with ``players`` for ``variant`` (as argparse says it), or None."""
    taken = players_taken(variant)
    if players in taken:
        return None
    low, high = taken[0], taken[-1]
    if low == high:
        return f"argument --players: {variant} takes exactly {low} players, not {str(players)!r}"
    return f"argument --players: must be a whole number from {low} to {high}, not {str(players)!r}"


def command(args) -> int:
    if args.players is None:
        args.players = players_taken(args.variant)[0]
    problem = players_error(args.variant, args.players)
    if problem is not None:  # checked once the variant is known
        args.parser.error(problem)
    duration = args.seconds if args.games is None and args.seconds is not None else None
    if args.games is None and duration is None:
        duration = 10.0
    result = run(
        games=args.games,
        seconds=duration,
        players=args.players,
        policy=args.policy,
        seed=args.seed,
        variant=args.variant,
    )
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{args.variant}, {args.players} players, {args.policy}: "
            f"{result['games_per_s']:.0f} games/s ({result['games']} games in "
            f"{result['seconds']:.2f} s), {result['decisions_per_game']:.1f} decisions/game, "
            f"{result['turns_per_game']:.1f} turns/game, "
            f"{result['decisions_per_s']:.0f} decisions/s"
        )
    return 0
