"""How often the heuristic bot wins a match against random bots.

The opponents are ``random`` bots (uniform over the legal actions, so they
draw instead of playing about half the time and call UNO half the time) or,
with ``--opponent``, ``play-first`` random bots (uniform over the actions that
play a card or decide something, drawing only when nothing else is legal) or
copies of the heuristic bot (a fairness check: about 1/players).

Each match is seeded from (--seed, match number): the deal, the random bots and
the simulated unit. The heuristic bot sits in seat ``match % players``, so
every seat gets the same number of matches. Prints the win rate with a Wilson
95% confidence interval, the rate per seat, and the time taken.

    .venv/bin/python benchmarks/bot_winrate.py --matches 2000 --seed 1
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.match import play_match
from engine.units.ports import SimulatedUnit
from engine.uno.bots import Agent, HeuristicBot, RandomBot


class PlayFirstBot(RandomBot):
    """A random bot that never draws or keeps when it could do anything else."""

    def act(self, game, player):
        legal = game.legal_actions()
        active = [a for a in legal if not a.is_passive]
        return self.rng.choice(active or legal)


#: Each kind of opponent, made as ``make(rng, name)``.
OPPONENTS: dict[str, Callable[[random.Random, str], Agent]] = {
    "random": RandomBot,
    "play-first": PlayFirstBot,
    "heuristic": lambda rng, name: HeuristicBot(name),
}


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default)."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run(
    matches: int,
    seed: int,
    players: int = 4,
    variant: str = "showdown",
    target: int = 500,
    opponent: str = "random",
) -> dict:
    make = OPPONENTS[opponent]
    wins_by_seat = [0] * players
    played_by_seat = [0] * players
    rounds, decisions = [], []
    start = time.perf_counter()
    for m in range(matches):
        rng = random.Random(f"{seed}:{m}")  # a string seed: stable across runs and versions
        seat = m % players
        agents = [make(random.Random(rng.getrandbits(64)), opponent) for _ in range(players)]
        agents[seat] = HeuristicBot()
        result = play_match(
            players,
            agents,
            SimulatedUnit(random.Random(rng.getrandbits(64))),
            variant=variant,
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
        "wins": wins,
        "rate": wins / matches,
        "ci95": (low, high),
        "by_seat": [w / n for w, n in zip(wins_by_seat, played_by_seat, strict=True)],
        "mean_rounds": statistics.mean(rounds),
        "mean_decisions": statistics.mean(decisions),
        "max_decisions": max(decisions),
        "seconds": seconds,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", choices=("showdown", "classic"), default="showdown")
    parser.add_argument("--target", type=int, default=500)
    parser.add_argument("--opponent", choices=sorted(OPPONENTS), default="random")
    args = parser.parse_args(argv)
    r = run(args.matches, args.seed, args.players, args.variant, args.target, args.opponent)
    low, high = r["ci95"]
    print(
        f"{args.variant}, {args.players} players, target {args.target}, seed {args.seed}, "
        f"against {args.opponent}: "
        f"heuristic bot won {r['wins']}/{r['matches']} = {r['rate']:.1%} "
        f"(95% CI {low:.1%}-{high:.1%}; chance is {1 / args.players:.0%})"
    )
    print("by seat: " + ", ".join(f"{i}: {rate:.1%}" for i, rate in enumerate(r["by_seat"])))
    print(
        f"mean rounds {r['mean_rounds']:.2f}, mean decisions {r['mean_decisions']:.0f} "
        f"(max {r['max_decisions']}), {r['seconds']:.1f} s "
        f"({r['seconds'] / r['matches'] * 1000:.1f} ms per match)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
