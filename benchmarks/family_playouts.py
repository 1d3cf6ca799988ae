"""Pitch and Party! playouts against the public API, side by side in one run, in CPU time.

For each game and policy: the same positions (fresh seeded deals, dealt before
the clock starts), each played to the end of its hand (Pitch) or round
(Party!, at each of ``--players``) by the fast playout (``play_out``) and by
the API loop it is tested against (``reference_play_out``: ``legal_actions``
or Party!'s ``legal_moves``, and ``apply``), interleaved repeat by repeat, each
with a ``random.Random`` made before the clock. Prints CPU microseconds per
hand or round of each (and per decision for Party!), the median of
``--repeat``, the ratio, and the decisions per hand or round. ``--policies``
picks some of the game's policies (all by default).

    PYTHONPATH=. .venv/bin/python benchmarks/family_playouts.py --repeat 7 --hands 1000
    PYTHONPATH=. .venv/bin/python benchmarks/family_playouts.py --game party --repeat 5 \
        --rounds 20 --players 4 8 16
    PYTHONPATH=. .venv/bin/python benchmarks/family_playouts.py --game party --policies heuristic
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.pitch import playout as pitch_playout
from engine.pitch.game import PitchGame
from engine.uno import party_playout
from engine.uno.party import PartyGame

#: A playout function: (game, policy, rng) -> a result with ``decisions``.
Playout = Callable[[Any, str, random.Random], Any]


def _time(playout: Playout, games: Sequence[Any], policy: str, seed: int) -> tuple[float, int]:
    """CPU seconds to play every game out; the decisions made."""
    rngs = [random.Random(seed + i) for i in range(len(games))]
    decisions = 0
    start = time.process_time()
    for game, rng in zip(games, rngs, strict=True):
        decisions += playout(game, policy, rng).decisions
    return time.process_time() - start, decisions


def side_by_side(
    games: Sequence[Any], policies: Sequence[str], fast: Playout, api: Playout, repeat: int
) -> dict[str, Any]:
    """Per policy: us per game of ``fast`` and ``api``, interleaved, medians."""
    table: dict[str, Any] = {}
    for policy in policies:
        fast_us: list[float] = []
        api_us: list[float] = []
        decisions = 0
        _time(fast, games[:3], policy, 0)  # warm-up
        for r in range(repeat):
            cpu, decisions = _time(fast, games, policy, r)
            fast_us.append(cpu / len(games) * 1e6)
            cpu, again = _time(api, games, policy, r)
            api_us.append(cpu / len(games) * 1e6)
            assert again == decisions  # the same games
        f, a = statistics.median(fast_us), statistics.median(api_us)
        per = decisions / len(games)
        table[policy] = {
            "playout_us": round(f, 1),
            "api_us": round(a, 1),
            "ratio": round(a / f, 2),
            "decisions": round(per, 1),
            "playout_us_per_decision": round(f / per, 2),
            "api_us_per_decision": round(a / per, 2),
        }
    return table


def _chosen(offered: Sequence[str], wanted: Sequence[str] | None, game: str) -> list[str]:
    """The policies asked for, in the game's order (all by default)."""
    if wanted is None:
        return list(offered)
    unknown = [p for p in wanted if p not in offered]
    if unknown:
        raise ValueError(f"{game} has no policy {unknown[0]!r} (its: {', '.join(offered)})")
    return [p for p in offered if p in wanted]


def pitch(
    repeat: int, hands: int, seed: int, policies: Sequence[str] | None = None
) -> dict[str, Any]:
    rng = random.Random(seed)
    games = [PitchGame.new(rng=rng) for _ in range(hands)]
    return side_by_side(
        games,
        _chosen(pitch_playout.POLICIES, policies, "Pitch"),
        pitch_playout.play_out,
        pitch_playout.reference_play_out,
        repeat,
    )


def party(
    repeat: int,
    rounds: int,
    seed: int,
    players: Sequence[int],
    policies: Sequence[str] | None = None,
) -> dict[str, Any]:
    chosen = _chosen(party_playout.POLICIES, policies, "UNO Party!")
    table: dict[str, Any] = {}
    for n in players:
        rng = random.Random(seed)
        games = [PartyGame.new(n, rng=rng) for _ in range(rounds)]
        table[f"{n} players"] = side_by_side(
            games,
            chosen,
            party_playout.play_out,
            party_playout.reference_play_out,
            repeat,
        )
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="interleaved repeats (5)")
    parser.add_argument("--hands", type=int, default=1000, help="hands or rounds per repeat")
    parser.add_argument("--rounds", type=int, default=20, help="Party! rounds per repeat (20)")
    parser.add_argument(
        "--players", type=int, nargs="+", default=[4, 8, 16], help="Party!'s players (4 8 16)"
    )
    parser.add_argument("--game", choices=("pitch", "party", "all"), default="pitch")
    parser.add_argument("--seed", type=int, default=1, help="the deals' seed (1)")
    parser.add_argument("--policies", nargs="+", help="some of the game's policies (all)")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.hands < 10 or args.rounds < 1:
        parser.error("--repeat and --rounds must be at least 1, --hands at least 10")
    if args.game == "all" and args.policies:
        parser.error("--policies takes one game's policies: give --game pitch or party")
    result: dict[str, Any] = {}
    try:
        if args.game in ("pitch", "all"):
            result["pitch (us per hand)"] = pitch(args.repeat, args.hands, args.seed, args.policies)
        if args.game in ("party", "all"):
            result["party (us per round)"] = party(
                args.repeat, args.rounds, args.seed, args.players, args.policies
            )
    except ValueError as exc:
        parser.error(str(exc))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
