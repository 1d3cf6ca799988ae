"""Pitch's bots against each other: paired deals, seats swapped, games to 52.

``--pair X,Y`` (kinds: random, bot, strong, omniscient): for each deal seed
two games, team A (seats 0 and 2) bot X and team B (seats 1 and 3) bot Y,
then the same seed with the teams swapped. A game's seed fixes its deals
whatever is played (PitchGame: only the deals use the game's rng), so luck
of the cards cancels out between the two games of a pair. ``--games N`` is
the number of games (N/2 seeds, rounded up). Each game's bots are seeded
from (--seed, the deal seed, the seat), so a run is the same every time.

Prints X's win rate with a Wilson 95% interval, each bot's CPU time per
decision (median and p90 of the decisions with more than one legal action,
and the mean over all), and hands per second of CPU time (all four bots
deciding); ``--jobs J`` plays the seeds in J processes.

    nice .venv/bin/python benchmarks/pitch_bots.py --pair strong,bot --games 2000 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bot_winrate import wilson  # the same interval as UNO's benchmarks
from engine.game.agents import RandomBot
from engine.pitch.game import PitchGame
from engine.pitch.heuristic import HeuristicBot
from engine.pitch.search import OmniscientBot, SearchBot

KINDS = ("random", "bot", "strong", "omniscient")
TARGET = 52


def make_agent(kind: str, rng: random.Random, samples: int) -> Any:
    if kind == "random":
        return RandomBot(rng, kind)
    if kind == "bot":
        return HeuristicBot(kind)
    if kind == "strong":
        return SearchBot(rng, kind, samples=samples)
    if kind == "omniscient":
        return OmniscientBot(kind)
    raise ValueError(f"no bot {kind!r} (the kinds: {', '.join(KINDS)})")


def play_game(seed: int, kinds: tuple[str, str], bot_seed: int, samples: int) -> dict:
    """One game to 52, team A ``kinds[0]``, team B ``kinds[1]``: the winning
    team, the hands, and each kind's CPU seconds per decision with a choice."""
    agents = [
        make_agent(kinds[seat % 2], random.Random(f"{bot_seed}:{seed}:{seat}"), samples)
        for seat in range(4)
    ]
    game = PitchGame.new(seed=seed, target=TARGET)
    times: dict[str, list[float]] = {kinds[0]: [], kinds[1]: []}
    forced = {kinds[0]: 0.0, kinds[1]: 0.0}
    hands = 0
    clock = time.process_time
    while True:
        while game.waiting_for:
            seat = game.waiting_for[0]
            choices = len(game.legal_actions())
            start = clock()
            action = agents[seat].act(game, seat)
            spent = clock() - start
            if choices > 1:
                times[kinds[seat % 2]].append(spent)
            else:
                forced[kinds[seat % 2]] += spent
            game.apply(action, seat)
        hands += 1
        if game.match_winner is not None:
            break
        game.next_round()
    return {"winner": game.match_winner, "hands": hands, "times": times, "forced": forced}


def play_seeds(task: tuple[list[int], str, str, int, int]) -> dict:
    """The games of some seeds, both seatings; one process's share."""
    seeds, x, y, bot_seed, samples = task
    start = time.process_time()
    x_wins = games = hands = 0
    times: dict[str, list[float]] = {x: [], y: []}
    decisions = {x: 0, y: 0}
    forced = {x: 0.0, y: 0.0}
    for seed in seeds:
        for kinds, x_team in (((x, y), 0), ((y, x), 1)):
            result = play_game(seed, kinds, bot_seed, samples)
            games += 1
            hands += result["hands"]
            x_wins += result["winner"] == x_team
            for kind, spent in result["times"].items():
                times[kind] += spent
            for kind, spent in result["forced"].items():
                forced[kind] += spent
    for kind in times:
        decisions[kind] = len(times[kind])
    cpu = time.process_time() - start
    return {
        "x_wins": x_wins,
        "games": games,
        "hands": hands,
        "times": times,
        "forced": forced,
        "cpu": cpu,
    }


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(x: str, y: str, games: int, *, seed: int = 1, jobs: int = 1, samples: int = 12) -> dict:
    for kind in (x, y):
        if kind not in KINDS:
            raise ValueError(f"no bot {kind!r} (the kinds: {', '.join(KINDS)})")
    seeds = [seed * 1_000_003 + i for i in range((games + 1) // 2)]
    chunks = [seeds[i :: jobs * 8] for i in range(jobs * 8)] if jobs > 1 else [seeds]
    tasks = [(c, x, y, seed, samples) for c in chunks if c]
    wall = time.perf_counter()
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            parts = pool.map(play_seeds, tasks)
    else:
        parts = [play_seeds(t) for t in tasks]
    wall = time.perf_counter() - wall
    total = {"x_wins": 0, "games": 0, "hands": 0, "cpu": 0.0}
    times: dict[str, list[float]] = {x: [], y: []}
    forced = {x: 0.0, y: 0.0}
    for part in parts:
        for key in total:
            total[key] += part[key]
        for kind in part["times"]:
            times[kind] += part["times"][kind]
            forced[kind] += part["forced"][kind]
    low, high = wilson(int(total["x_wins"]), int(total["games"]))
    per_bot = {}
    for kind, spent in times.items():
        per_bot[kind] = {
            "decisions": len(spent),
            "median_ms": 1000 * statistics.median(spent) if spent else 0.0,
            "p90_ms": 1000 * _percentile(spent, 0.9) if spent else 0.0,
            "max_ms": 1000 * max(spent) if spent else 0.0,
            "mean_ms": 1000 * sum(spent) / len(spent) if spent else 0.0,
        }
    return {
        "pair": [x, y],
        "games": total["games"],
        "seeds": len(seeds),
        "x_wins": total["x_wins"],
        "rate": total["x_wins"] / total["games"],
        "ci95": [low, high],
        "hands": total["hands"],
        "hands_per_game": total["hands"] / total["games"],
        "cpu_seconds": total["cpu"],
        "hands_per_cpu_s": total["hands"] / total["cpu"] if total["cpu"] else 0.0,
        "wall_seconds": wall,
        "jobs": jobs,
        "samples": samples,
        "per_bot": per_bot,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pair", default="bot,random", help="X,Y: the two bots (bot,random)")
    parser.add_argument("--games", type=int, default=200, help="games to play (200: 100 seeds x 2)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (1)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (1)")
    parser.add_argument("--samples", type=int, default=12, help="the search bot's worlds (12)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    pair = args.pair.split(",")
    if len(pair) != 2 or any(k not in KINDS for k in pair):
        parser.error(f"--pair takes two of {', '.join(KINDS)}, as X,Y: not {args.pair!r}")
    if args.games < 2 or args.jobs < 1 or args.samples < 1:
        parser.error("--games must be at least 2, --jobs and --samples at least 1")
    r = run(pair[0], pair[1], args.games, seed=args.seed, jobs=args.jobs, samples=args.samples)
    if args.json:
        print(json.dumps(r))
        return 0
    x, y = r["pair"]
    low, high = r["ci95"]
    print(
        f"pitch, to {TARGET}, {r['games']} games ({r['seeds']} seeds x 2 seatings), seed "
        f"{args.seed}: {x} won {r['x_wins']}/{r['games']} = {r['rate']:.1%} against {y} "
        f"(95% CI {low:.1%}-{high:.1%})"
    )
    for kind, t in r["per_bot"].items():
        print(
            f"  {kind}: {t['decisions']} decisions with a choice, CPU ms per decision: "
            f"median {t['median_ms']:.2f}, p90 {t['p90_ms']:.2f}, max {t['max_ms']:.1f}, "
            f"mean {t['mean_ms']:.2f}"
        )
    print(
        f"  {r['hands']} hands ({r['hands_per_game']:.1f} per game), "
        f"{r['hands_per_cpu_s']:.1f} hands per CPU second, {r['cpu_seconds']:.0f} CPU s, "
        f"{r['wall_seconds']:.0f} s wall with {r['jobs']} job(s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
