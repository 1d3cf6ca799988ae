"""How often the heuristic bot wins an eight-player UNO Party! match against random bots.

One ``HeuristicBot`` and seven others, played through the driver
(``engine.match.play_match``: claims rounds out of turn ordered by
reaction time, the pointing, the mini piles), matches to ``--target`` points.
The others are ``random`` bots (uniform over their legal actions; out of turn
they claim a random speed play or catch 5% of the times they are asked), or,
with ``--opponent``, ``play-first`` random bots (the same, but never ``draw``
or ``keep`` when anything else is legal) or heuristic bots (a fairness check:
about 1/8).

Each match is seeded from (--seed, match number): the deal, the bots and the
claims order. The heuristic bot sits in seat ``match % 8``, so every seat gets
the same number of matches. Prints the win rate with a Wilson 95% confidence
interval next to the baseline 1/8, the rate per seat, and the wall time.

    .venv/bin/python benchmarks/party_winrate.py --matches 2000 --seed 1 [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bot_winrate import OPPONENTS, wilson  # the same opponents and interval
from engine.match import play_match
from engine.units.ports import SimulatedUnit
from engine.uno.bots import HeuristicBot

PLAYERS = 8


def run(matches: int, seed: int = 1, target: int = 500, opponent: str = "random") -> dict:
    make = OPPONENTS[opponent]
    wins_by_seat = [0] * PLAYERS
    played_by_seat = [0] * PLAYERS
    rounds, decisions = [], []
    start = time.perf_counter()
    for m in range(matches):
        rng = random.Random(f"party:{seed}:{m}")  # a string seed: stable across runs
        seat = m % PLAYERS
        agents = [make(random.Random(rng.getrandbits(64)), opponent) for _ in range(PLAYERS)]
        agents[seat] = HeuristicBot()
        result = play_match(
            PLAYERS,
            agents,
            SimulatedUnit(random.Random(0)),  # Party! has no showdowns
            variant="party",
            seed=rng.getrandbits(64),
            target=target,
        )
        played_by_seat[seat] += 1
        wins_by_seat[seat] += result.winner == seat
        rounds.append(result.rounds)
        decisions.append(result.decisions)
    seconds = time.perf_counter() - start
    wins = sum(wins_by_seat)
    low, high = wilson(wins, matches)
    return {
        "matches": matches,
        "target": target,
        "opponent": opponent,
        "wins": wins,
        "rate": wins / matches,
        "ci95": [low, high],
        "baseline": 1 / PLAYERS,
        "by_seat": [
            w / n if n else None for w, n in zip(wins_by_seat, played_by_seat, strict=True)
        ],
        "mean_rounds": statistics.mean(rounds),
        "mean_decisions": statistics.mean(decisions),
        "max_decisions": max(decisions),
        "seconds": seconds,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000, help="matches to play (2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", type=int, default=500, help="match target score (500)")
    parser.add_argument("--opponent", choices=sorted(OPPONENTS), default="random")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.matches < 1 or args.target < 1:
        parser.error("--matches and --target must be at least 1")
    r = run(args.matches, args.seed, args.target, args.opponent)
    if args.json:
        print(json.dumps(r))
        return 0
    low, high = r["ci95"]
    print(
        f"party, {PLAYERS} players, target {args.target}, seed {args.seed}, "
        f"1 heuristic against 7 {args.opponent}: "
        f"heuristic bot won {r['wins']}/{r['matches']} = {r['rate']:.1%} "
        f"(95% CI {low:.1%}-{high:.1%}; baseline 1/{PLAYERS} = {r['baseline']:.1%})"
    )
    print(
        "by seat: "
        + ", ".join(
            f"{i}: {'-' if rate is None else f'{rate:.1%}'}" for i, rate in enumerate(r["by_seat"])
        )
    )
    print(
        f"mean rounds {r['mean_rounds']:.2f}, mean decisions {r['mean_decisions']:.0f} "
        f"(max {r['max_decisions']}), {r['seconds']:.1f} s "
        f"({r['seconds'] / r['matches'] * 1000:.1f} ms per match)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
