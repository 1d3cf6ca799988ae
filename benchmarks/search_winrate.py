"""How often the search bot ("strong") wins UNO rounds against the heuristic bot.

Paired deals: deal ``d`` (seeded from --seed and d) is played once with the
search bot in each seat and the opponents in the others, so every seat and
every deal's luck is shared out evenly; a deal is ``players`` rounds. One round
each, no match. The opponents are HeuristicBot (default) or, with
``--opponent prefer-play``, the prefer-play random bot (uniform over the
actions that play a card or decide something, drawing only when it must:
benchmarks/bot_winrate.py's PlayFirstBot, RLCard's random agent). A Showdown's
loser is drawn 50/50 from the deal's own generator; with ``--unit reactions``
the slower of the two presses loses instead, each press lognormal about its
player's median (the search bot's ``reaction_ms``, 230, and
``--opponent-ms`` for the others; spread 0.15, as the simulated people), and
the search bot is shown both reaction times (``SearchBot.saw_showdown``),
unless ``--blind``.
--playouts and --confidence, when not given, are the bot's plan for the game
(engine.uno.search_bot.plan_for); ``--playout kernel`` or ``own`` overrides its playouts.

Prints the wins, the rate with a Wilson 95% interval (against the fair share
1/players), and the search bot's CPU time per decision (median and p95,
time.process_time around each of its decisions, forced ones included).

    .venv/bin/python benchmarks/search_winrate.py --deals 200
    .venv/bin/python benchmarks/search_winrate.py --deals 200 --players 4
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bot_winrate import OPPONENTS, wilson
from engine.uno.game import Game
from engine.uno.search_bot import SearchBot
from engine.uno.search_reactions import SPREAD


def play_deal(
    deal: int,
    seed: int,
    players: int,
    variant: str,
    opponent: str,
    playouts: int | None,
    confidence: float | None,
    unit_kind: str = "coin",
    opponent_ms: float = 230.0,
    blind: bool = False,
    kernel: bool | None = None,
    credit: float | None = None,
    reads_plays: bool | None = None,
    misfit: float | None = None,
    steps: int | None = None,
) -> tuple[int, list[float]]:
    """Deal ``deal`` played once per seat of the search bot: its wins and its
    CPU seconds per decision."""
    wins, times = 0, []
    make = OPPONENTS[opponent]
    for seat in range(players):
        rng = random.Random(f"{seed}:{deal}")  # the same deal, bots and unit for each seat
        game = Game.new(players, variant, seed=rng.getrandbits(64))
        unit = random.Random(rng.getrandbits(64))
        agents = [make(random.Random(rng.getrandbits(64)), "opponent") for _ in range(players)]
        bot_rng = random.Random(f"{seed}:{deal}:{seat}")
        bot = SearchBot(
            bot_rng,
            playouts=playouts,
            confidence=confidence,
            kernel=kernel,
            credit=credit,
            reads_plays=reads_plays,
            misfit=misfit,
            steps=steps,
        )
        agents[seat] = bot
        medians = [opponent_ms] * players
        medians[seat] = bot.reaction_ms
        while not game.round_over:
            player = game.to_act
            if player is None:  # a showdown: the simulated unit
                if unit_kind == "coin":  # 50/50
                    game.apply(unit.choice(game.legal_actions()))
                    continue
                pending = game.pending_showdown
                assert pending is not None
                pair = (pending.challenger, pending.opponent)
                ms = {p: unit.lognormvariate(math.log(medians[p]), SPREAD) for p in pair}
                if not blind:
                    bot.saw_showdown(ms)
                game.settle_showdown(max(pair, key=ms.__getitem__))
                continue
            start = time.process_time()
            action = agents[player].act(game, player)
            if player == seat:
                times.append(time.process_time() - start)
            game.apply(action)
        wins += game.current == seat
    return wins, times


def _job(args: tuple) -> tuple[int, list[float]]:
    return play_deal(*args)


def run(
    deals: int,
    seed: int = 1,
    players: int = 2,
    variant: str = "classic",
    opponent: str = "heuristic",
    playouts: int | None = None,
    confidence: float | None = None,
    processes: int = 1,
    progress: int = 0,
    unit_kind: str = "coin",
    opponent_ms: float = 230.0,
    blind: bool = False,
    kernel: bool | None = None,
    credit: float | None = None,
    reads_plays: bool | None = None,
    misfit: float | None = None,
    steps: int | None = None,
) -> dict:
    options = (
        playouts,
        confidence,
        unit_kind,
        opponent_ms,
        blind,
        kernel,
        credit,
        reads_plays,
        misfit,
        steps,
    )
    jobs = [(d, seed, players, variant, opponent, *options) for d in range(deals)]
    start = time.process_time()
    if processes > 1:
        with multiprocessing.Pool(processes) as pool:
            results = pool.map(_job, jobs, chunksize=4)
    else:
        results = []
        for job in jobs:
            results.append(_job(job))
            if progress and len(results) % progress == 0:
                done = sum(w for w, _ in results)
                print(f"  {len(results)} deals: {done}/{len(results) * players}", file=sys.stderr)
    wins = sum(w for w, _ in results)
    times = sorted(t for _, ts in results for t in ts)
    rounds = deals * players
    return {
        "rounds": rounds,
        "wins": wins,
        "rate": wins / rounds,
        "ci95": wilson(wins, rounds),
        "median_ms": statistics.median(times) * 1000,
        "p95_ms": times[int(0.95 * (len(times) - 1))] * 1000,
        "max_ms": times[-1] * 1000,
        "decisions": len(times),
        "cpu_seconds": time.process_time() - start,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--variant", choices=("classic", "showdown"), default="classic")
    parser.add_argument("--opponent", choices=("heuristic", "play-first"), default="heuristic")
    parser.add_argument("--playouts", type=int, default=None, help="default: the bot's plan")
    parser.add_argument("--confidence", type=float, default=None, help="default: the plan's")
    parser.add_argument("--unit", choices=("coin", "reactions"), default="coin")
    parser.add_argument("--opponent-ms", type=float, default=230.0, help="with --unit reactions")
    parser.add_argument("--blind", action="store_true", help="reactions not shown to the bot")
    parser.add_argument("--playout", choices=("plan", "kernel", "own"), default="plan")
    parser.add_argument("--credit", type=float, default=None, help="default: the plan's")
    parser.add_argument("--misfit", type=float, default=None, help="default: the plan's")
    parser.add_argument("--steps", type=int, default=None, help="default: the plan's")
    parser.add_argument(
        "--reads-plays", choices=("plan", "yes", "no"), default="plan", help="the belief's"
    )
    parser.add_argument("--processes", type=int, default=1, help="at most 1 on a shared machine")
    parser.add_argument("--progress", type=int, default=0, help="a tally every N deals (stderr)")
    args = parser.parse_args(argv)
    r = run(
        args.deals,
        args.seed,
        args.players,
        args.variant,
        args.opponent,
        args.playouts,
        args.confidence,
        args.processes,
        args.progress,
        args.unit,
        args.opponent_ms,
        args.blind,
        None if args.playout == "plan" else args.playout == "kernel",
        args.credit,
        None if args.reads_plays == "plan" else args.reads_plays == "yes",
        args.misfit,
        args.steps,
    )
    low, high = r["ci95"]
    budget = "the plan's" if args.playouts is None else str(args.playouts)
    if args.playout != "plan":
        budget += f" {args.playout}"
    test = "the plan's" if args.confidence is None else f"{args.confidence:g}"
    if args.credit is not None:
        test += f", credit {args.credit:g}"
    if args.steps is not None:
        test += f", steps {args.steps}"
    if args.misfit is not None:
        test += f", misfit {args.misfit:g}"
    if args.reads_plays != "plan":
        test += f", reads plays {args.reads_plays}"
    unit = "" if args.unit == "coin" else f", unit by reactions (others {args.opponent_ms:g} ms)"
    unit += ", the bot not shown them" if args.blind and args.unit != "coin" else ""
    print(
        f"{args.variant}, {args.players} players, {args.deals} paired deals (seed {args.seed}"
        f"{unit}), search bot ({budget} playouts a decision, confidence {test}) against "
        f"{args.opponent}: won {r['wins']}/{r['rounds']} = {r['rate']:.1%} "
        f"(95% CI {low:.1%}-{high:.1%}; fair share {1 / args.players:.0%})"
    )
    print(
        f"per decision (CPU): median {r['median_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, "
        f"max {r['max_ms']:.1f} ms over {r['decisions']} decisions"
        + (f"; {r['cpu_seconds']:.0f} CPU-s" if args.processes == 1 else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
