"""Playouts against uno-engine (npm), side by side in one run, in CPU time.

Classic UNO, 2 players, the prefer-play policy (../shared/peers' definition),
one round per game. Each repeat times, interleaved:

``deal+playout``  ``engine.uno.playout.play_out_new``: a fresh seeded deal (the
                  game ``Game.new`` deals, made straight into the playout's
                  lists) and its round, as uno-engine's ``new Game`` and its round;
``Game.new+playout`` ``Game.new`` + ``play_out``: the same deals and rounds
                  through a Game;
``playout``       ``play_out`` alone, from games dealt before the clock starts;
``uno-engine``    benchmarks/uno_engine/rounds.js: ``new Game`` and a random
                  prefer-play round, in one Node.js process that stays up between
                  repeats (CPU time by ``process.cpuUsage``, its own);
``uno-engine deal`` the same script dealing only (so its rounds less its deal
                  can be set against ``playout``);
``api``           ``Game.new`` + engine.uno.policies.reference_play_out: the same
                  rounds through the public API (legal_actions / apply), the
                  reference the playouts are tested against.

The rows above run the kernel play_out runs (``kernel``: the mypyc extension
when ``make build`` built it); the ``... (interpreted)`` rows run its Python
source in the same repeats. Prints rounds per CPU-second of each, median of
``--repeat``, and the ratios (of the medians; and the lowest of deal+playout's
over uno-engine's, repeat by repeat).
``--policies`` instead times each policy in classic and Showdown, playout
against the API (no Node.js): CPU microseconds per round from a fresh deal,
the deal not counted, median of ``--repeat``.
Installs uno-engine 2.0.3 into ``--node-dir`` (default /tmp/uno-showdown-uno-engine)
with npm on first use; node_modules is never part of the repository.

    PYTHONPATH=. .venv/bin/python benchmarks/playout_bench.py --repeat 7 --rounds 3000
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.uno import playout
from engine.uno.game import Game
from engine.uno.playout import play_out, play_out_new
from engine.uno.policies import reference_play_out

SCRIPT_DIR = Path(__file__).resolve().parent / "uno_engine"
POLICY = "prefer-play"


def install_uno_engine(node_dir: Path) -> None:
    """uno-engine under ``node_dir``/node_modules, installed with npm if missing."""
    if (node_dir / "node_modules" / "uno-engine").is_dir():
        return
    node_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(SCRIPT_DIR / "package.json", node_dir / "package.json")
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--silent"], cwd=node_dir, check=True
    )


class UnoEngine:
    """The Node.js script, kept running: ask it for rounds, read its CPU time."""

    def __init__(self, node_dir: Path):
        self.process = subprocess.Popen(
            ["node", str(SCRIPT_DIR / "rounds.js")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={"UNO_ENGINE_DIR": str(node_dir), "PATH": "/usr/bin:/bin:/usr/local/bin"},
        )

    def run(self, command: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=10)


def deal_and_play(rounds: int, rng: random.Random) -> tuple[float, int]:
    """CPU seconds for ``rounds`` fresh deals and their playouts; decisions made."""
    decisions = 0
    start = time.process_time()
    for _ in range(rounds):
        decisions += play_out_new(2, "classic", POLICY, rng).decisions
    return time.process_time() - start, decisions


def game_and_play(rounds: int, rng: random.Random) -> tuple[float, int]:
    """As deal_and_play, each deal a Game (``Game.new``) played out."""
    decisions = 0
    start = time.process_time()
    for _ in range(rounds):
        decisions += play_out(Game.new(2, "classic", rng=rng), POLICY, rng).decisions
    return time.process_time() - start, decisions


def deal_and_play_api(rounds: int, rng: random.Random) -> tuple[float, int]:
    """As deal_and_play, through the public API (engine.uno.policies)."""
    decisions = 0
    start = time.process_time()
    for _ in range(rounds):
        game = Game.new(2, "classic", rng=rng)
        decisions += reference_play_out(game, POLICY, rng).decisions
    return time.process_time() - start, decisions


def play_only(games: list[Game], rng: random.Random) -> tuple[float, int]:
    """CPU seconds for playing out ``games``, dealt beforehand; decisions made."""
    decisions = 0
    start = time.process_time()
    for game in games:
        decisions += play_out(game, POLICY, rng).decisions
    return time.process_time() - start, decisions


def run(repeat: int, rounds: int, node_dir: Path, seed: int) -> dict[str, Any]:
    install_uno_engine(node_dir)
    node = UnoEngine(node_dir)
    rng = random.Random(seed)
    try:
        node.run(str(rounds))  # warm-up: Node's JIT, Python's caches
        deal_and_play(rounds // 10, rng)
        kernel, source = playout.KERNEL, playout.interpreted_kernel()
        rates: dict[str, list[float]] = {
            "deal+playout": [],
            "Game.new+playout": [],
            "playout": [],
            "uno-engine": [],
            "uno-engine deal": [],
            "api": [],
            "deal+playout (interpreted)": [],
        }
        per_round: dict[str, int] = {}
        for _ in range(repeat):
            cpu, decisions = deal_and_play(rounds, rng)
            rates["deal+playout"].append(rounds / cpu)
            per_round["ours"] = decisions
            answer = node.run(str(rounds))
            rates["uno-engine"].append(rounds / answer["cpu_s"])
            per_round["uno-engine"] = answer["decisions"]
            cpu, _ = game_and_play(rounds, rng)
            rates["Game.new+playout"].append(rounds / cpu)
            games = [Game.new(2, "classic", rng=rng) for _ in range(rounds)]
            cpu, _ = play_only(games, rng)
            rates["playout"].append(rounds / cpu)
            answer = node.run(f"deal {rounds}")
            rates["uno-engine deal"].append(rounds / answer["cpu_s"])
            cpu, _ = deal_and_play_api(rounds // 4, rng)
            rates["api"].append(rounds // 4 / cpu)
            playout.KERNEL = source
            try:
                cpu, _ = deal_and_play(rounds // 2, rng)
                rates["deal+playout (interpreted)"].append(rounds // 2 / cpu)
            finally:
                playout.KERNEL = kernel
    finally:
        node.close()
    medians = {name: statistics.median(values) for name, values in rates.items()}
    # Repeat by repeat (each ours beside uno-engine's next to it): the lowest ratio.
    lowest = min(a / b for a, b in zip(rates["deal+playout"], rates["uno-engine"], strict=True))
    # uno-engine's rounds less its deal: 1 / (1/rounds_rate - 1/deal_rate).
    undealt = 1 / (1 / medians["uno-engine"] - 1 / medians["uno-engine deal"])
    return {
        "repeat": repeat,
        "rounds": rounds,
        "kernel": "compiled" if playout.is_compiled(playout.KERNEL) else "interpreted",
        "rounds_per_cpu_s": {name: round(m) for name, m in medians.items()},
        "uno_engine_play_only_per_cpu_s": round(undealt),
        "ratio_deal_and_playout_vs_uno_engine": round(
            medians["deal+playout"] / medians["uno-engine"], 2
        ),
        "lowest_repeat_ratio_deal_and_playout_vs_uno_engine": round(lowest, 2),
        "ratio_game_new_and_playout_vs_uno_engine": round(
            medians["Game.new+playout"] / medians["uno-engine"], 2
        ),
        "ratio_interpreted_deal_and_playout_vs_uno_engine": round(
            medians["deal+playout (interpreted)"] / medians["uno-engine"], 2
        ),
        "ratio_playout_vs_uno_engine_less_deal": round(medians["playout"] / undealt, 2),
        "ratio_deal_and_playout_vs_api": round(medians["deal+playout"] / medians["api"], 2),
        "decisions_per_round": {
            "ours": round(per_round["ours"] / rounds, 1),
            "uno-engine": round(per_round["uno-engine"] / rounds, 1),
        },
    }


def policy_table(repeat: int, rounds: int, seed: int, players: int) -> dict[str, Any]:
    """Per policy and variant: play_out and reference_play_out, us per round."""
    table: dict[str, Any] = {}
    for variant in ("classic", "showdown"):
        for policy in ("prefer-play", "heuristic"):
            rng = random.Random(seed)
            games = [Game.new(players, variant, rng=rng) for _ in range(rounds)]
            fast: list[float] = []
            slow: list[float] = []
            for _ in range(repeat):
                start = time.process_time()
                for game in games:
                    play_out(game, policy, rng)
                fast.append((time.process_time() - start) / rounds * 1e6)
                start = time.process_time()
                for game in games[: rounds // 4]:
                    reference_play_out(game, policy, rng)
                slow.append((time.process_time() - start) / (rounds // 4) * 1e6)
            f, a = statistics.median(fast), statistics.median(slow)
            table[f"{variant} {policy}"] = {
                "playout_us": round(f, 1),
                "api_us": round(a, 1),
                "ratio": round(a / f, 2),
            }
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="interleaved repeats (5)")
    parser.add_argument("--rounds", type=int, default=2000, help="rounds per repeat (2000)")
    parser.add_argument("--seed", type=int, default=1, help="the deals' seed (1)")
    parser.add_argument(
        "--node-dir",
        type=Path,
        default=Path("/tmp/uno-showdown-uno-engine"),
        help="where npm installs uno-engine (/tmp/uno-showdown-uno-engine)",
    )
    parser.add_argument(
        "--policies", action="store_true", help="time each policy against the API instead"
    )
    parser.add_argument("--players", type=int, default=2, help="players, with --policies (2)")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.rounds < 10:
        parser.error("--repeat must be at least 1 and --rounds at least 10")
    if args.policies:
        table = policy_table(args.repeat, args.rounds, args.seed, args.players)
        print(json.dumps(table, indent=2))
        return 0
    print(json.dumps(run(args.repeat, args.rounds, args.node_dir, args.seed), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
