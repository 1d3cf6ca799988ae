"""The environment's cost per step against the engine's own, side by side in one run.

Two loops over the same variant and number of players, in CPU time
(``time.process_time``), interleaved in slices so both see the same load:

- engine: the game interface's own loop: the first player the game waits for
  applies a uniformly random legal action (``random.Random.choice``); a pending
  showdown is settled by a random legal result; a finished round deals a new
  match (as the environment's reset does).
- env: ``engine.rl.environment``'s AEC loop: ``last()`` (the observation and the mask),
  then a uniformly random action among the mask's ones (``masked_choice``); a finished episode
  resets. Claim windows' passes count as steps (they are decisions of the env).

Prints steps per CPU-second for each and the ratio (engine / env: how many
times the env costs the engine's step).

    .venv/bin/python benchmarks/rl_env_bench.py --variant classic --players 2 --seconds 2 [--json]

A/B against another tree (``--beside DIR``, e.g. main exported with ``git
archive`` and its compiled extensions copied beside its sources): ``--runs``
runs of each tree's own copy of this script, each in a process of its own,
alternating (this tree, DIR, DIR, this tree, ...) so both see the same load;
prints each run and the medians.

    .venv/bin/python benchmarks/rl_env_bench.py --variant classic --players 4 --seconds 3 \
        --beside /tmp/main --runs 5
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from engine.game.registry import family_playing
from engine.rl import env as make_env


def engine_steps(variant: str, players: int, seed: int):
    """A generator that plays ``steps`` random decisions each time it is sent a count."""
    family = family_playing(variant)
    rng = random.Random(seed)
    game = family.new(players, variant, seed=rng.getrandbits(32))
    count = yield 0
    while True:
        for _ in range(count):
            if game.round_over:
                game = family.new(players, variant, seed=rng.getrandbits(32))
            waiting = game.waiting_for
            if waiting:
                player = waiting[0]
                game.apply(rng.choice(game.legal_actions(player)), player)
            else:  # a pending showdown: a random result
                game.apply(rng.choice(game.legal_actions()))
        count = yield count


def masked_choice(mask: np.ndarray, rng: random.Random) -> int:
    """A uniformly random action among the mask's ones: the k-th one, k drawn
    among their count (the same choice as indexing the list of their numbers,
    without building it; faster than np.flatnonzero on a mask of a hundred-odd
    actions, most of them zero)."""
    raw = mask.tobytes()
    k = rng.randrange(raw.count(1))
    i = raw.find(1)
    while k:
        i = raw.find(1, i + 1)
        k -= 1
    return i


def env_steps(variant: str, players: int, seed: int, max_steps: int):
    env = make_env(variant, players=players, max_steps=max_steps)
    env.reset(seed=seed)
    rng = random.Random(seed)
    count = yield 0
    while True:
        done = 0
        while done < count:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                while env.agents:
                    env.step(None)
                env.reset()
                continue
            env.step(masked_choice(observation["action_mask"], rng))
            done += 1
        count = yield count


def measure(variant: str, players: int, seconds: float, seed: int = 1, max_steps: int = 2000):
    loops = {
        "engine": engine_steps(variant, players, seed),
        "env": env_steps(variant, players, seed, max_steps),
    }
    for loop in loops.values():
        next(loop)
    steps = dict.fromkeys(loops, 0)
    cpu = dict.fromkeys(loops, 0.0)
    chunk = {"engine": 2000, "env": 1000}
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        for name, loop in loops.items():  # interleaved: both under the same load
            start = time.process_time()
            steps[name] += loop.send(chunk[name])
            cpu[name] += time.process_time() - start
    rates = {name: steps[name] / cpu[name] for name in loops}
    return {
        "variant": variant,
        "players": players,
        "engine_steps_per_s": round(rates["engine"]),
        "env_steps_per_s": round(rates["env"]),
        "ratio": round(rates["engine"] / rates["env"], 2),
        "cpu_s": round(sum(cpu.values()), 2),
    }


def beside(args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    """``args.runs`` runs of this tree's benchmark and of ``args.beside``'s, alternating."""
    trees = {"this": Path(__file__).resolve().parent.parent, "beside": Path(args.beside)}
    common = ["--variant", args.variant, "--players", str(args.players), "--seconds"]
    common += [str(args.seconds), "--seed", str(args.seed), "--max-steps", str(args.max_steps)]
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for run in range(args.runs):
        order = ("this", "beside") if run % 2 == 0 else ("beside", "this")
        for name in order:
            script = trees[name] / "benchmarks" / "rl_env_bench.py"
            command = [sys.executable, str(script), *common, "--json"]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            result = json.loads(done.stdout)
            results[name].append(result)
            print(
                f"{name}: {result['ratio']}x ({result['engine_steps_per_s']:,} engine, "
                f"{result['env_steps_per_s']:,} env steps/s)",
                flush=True,
            )
    for name, runs in results.items():
        ratios = [r["ratio"] for r in runs]
        print(
            f"{name} ({trees[name]}): median {statistics.median(ratios)}x "
            f"({min(ratios)}-{max(ratios)}, {len(ratios)} runs), engine "
            f"{round(statistics.median(r['engine_steps_per_s'] for r in runs)):,} steps/s, env "
            f"{round(statistics.median(r['env_steps_per_s'] for r in runs)):,} steps/s"
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--beside", help="another tree to run alternately with this one")
    parser.add_argument("--runs", type=int, default=5, help="runs of each tree (--beside)")
    args = parser.parse_args(argv)
    if args.beside:
        beside(args)
        return 0
    result = measure(args.variant, args.players, args.seconds, args.seed, args.max_steps)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['variant']}, {result['players']} players: engine "
            f"{result['engine_steps_per_s']:,} steps/s, env {result['env_steps_per_s']:,} "
            f"steps/s: the env costs {result['ratio']}x the engine's step "
            f"({result['cpu_s']} CPU-s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
