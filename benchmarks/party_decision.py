"""CPU time per decision: classic at 2 and 8 players, UNO Party! at 4 to 16.

Each configuration plays the same seeded rounds with the agents of ``showdown
speed`` (``engine.apps.speed.run``, policy ``prefer-play``: for Party! a random
(player, action) of ``legal_moves()``, the wrong speed plays, ``draw`` and
``keep`` left out when anything else is legal), timed with
``time.process_time``. The configurations take turns within each run, and the
figure quoted is the median of ``--runs`` runs, in microseconds of CPU per
decision, next to its ratios to classic at 2 and at 8 players.

``--before DIR`` times another checkout of the engine too (say the commit
before a change, ``git worktree add /tmp/party-before <commit>``): each run
then plays every configuration once in each tree, alternating, each in a
fresh interpreter with ``PYTHONPATH`` pointing at its tree, and the decision
counts must agree (the same seeds play the same games in both).

    PYTHONPATH=. .venv/bin/python benchmarks/party_decision.py --runs 5 \
        [--before /tmp/party-before] [--tree NAME=DIR ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: (variant, players, rounds): about 7,000-20,000 decisions each with seed 1.
CONFIGS = (
    ("classic", 2, 300),
    ("classic", 8, 200),
    ("party", 4, 10),
    ("party", 6, 10),
    ("party", 8, 10),
    ("party", 12, 10),
    ("party", 16, 10),
)
SEED = 1
HERE = Path(__file__).resolve().parent.parent


def play_once(scale: float = 1.0) -> list[dict]:
    """Every configuration once, in this interpreter: CPU us per decision and
    the decision count (``scale`` multiplies the rounds, at least one)."""
    from engine.apps import speed  # the tree on sys.path: this one or --before's

    results = []
    for variant, players, rounds in CONFIGS:
        games = max(1, round(rounds * scale))
        result = speed.run(
            games=games,
            players=players,
            policy="prefer-play",
            seed=SEED,
            variant=variant,
            clock=time.process_time,
        )
        decisions = round(result["decisions_per_game"] * games)
        results.append(
            {
                "config": f"{variant} {players}",
                "decisions": decisions,
                "us_per_decision": result["seconds"] / decisions * 1e6,
            }
        )
    return results


def _play_in(tree: Path, scale: float) -> list[dict]:
    """``play_once`` in a fresh interpreter on ``tree``'s engine."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", "--scale", str(scale)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def run(
    runs: int,
    before: Path | None = None,
    scale: float = 1.0,
    others: dict[str, Path] | None = None,
) -> dict:
    """Median CPU us per decision by configuration (and by tree with ``before``
    and ``others``, each by its name)."""
    trees = {} if before is None else {"before": before}
    trees.update(others or {})
    trees["after"] = HERE
    separate = len(trees) > 1
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
    counts: dict[str, dict[str, int]] = {name: {} for name in trees}
    for _ in range(runs):
        for name, tree in trees.items():
            played = _play_in(tree, scale) if separate else play_once(scale)
            for row in played:
                samples[name].setdefault(row["config"], []).append(row["us_per_decision"])
                counts[name][row["config"]] = row["decisions"]
    if any(played != counts["after"] for played in counts.values()):
        raise SystemExit(f"the trees played different games: {counts}")
    medians = {
        name: {config: statistics.median(values) for config, values in by_config.items()}
        for name, by_config in samples.items()
    }
    return {"runs": runs, "decisions": counts["after"], "samples": samples, "median": medians}


def _table(result: dict) -> str:
    medians = result["median"]
    names = list(medians)
    head = "| config | decisions | " + " | ".join(
        f"{name} us/decision | {name} x classic 2 | {name} x classic 8" for name in names
    )
    ratio = "before" in medians
    lines = [head + (" | before/after |" if ratio else " |")]
    lines.append("|---" * (2 + 3 * len(names) + ratio) + "|")
    for config, decisions in result["decisions"].items():
        cells = [config, f"{decisions:,}"]
        for name in names:
            us = medians[name][config]
            cells += [f"{us:.2f}"] + [
                f"{us / medians[name][classic]:.1f}" for classic in ("classic 2", "classic 8")
            ]
        if ratio:
            cells.append(f"{medians['before'][config] / medians['after'][config]:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs to take the median of")
    parser.add_argument("--before", type=Path, help="another engine tree to time alongside")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="one more engine tree to time alongside, by name (repeatable)",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the rounds played")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(play_once(args.scale)))
        return 0
    others = {}
    for given in args.tree:
        name, _, tree = given.partition("=")
        if not name or not tree:
            parser.error(f"--tree takes NAME=DIR, not {given!r}")
        others[name] = Path(tree)
    result = run(args.runs, args.before, args.scale, others)
    print(json.dumps(result) if args.json else _table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
