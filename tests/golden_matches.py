"""Whole matches of fixed seeds, recorded: every event of each match, and the
position after every decision, as gzipped JSON lines in tests/data/golden_matches/.

The recordings were made before the engine was reshaped around one game
interface (issue 20), so a test can play the same seeds through the engine as
it is now and compare every decision and event with what the engine did then.
Write them again only when a rule changes on purpose:

    .venv/bin/python -m tests.golden_matches --write

Each match: a variant, a player count, a target, the bots (heuristic or
random, each with its own seed) and the simulated unit's seed. The record is
``Driver.events`` as ``MatchEvent.to_dict()``, with ``position`` (the game's
notation, UNO Party!'s with its hidden choices revealed) after each event.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from engine.match import Driver, MatchEvent
from engine.units.ports import SimulatedUnit
from engine.uno import new_game
from engine.uno.bots import HeuristicBot, RandomBot
from engine.uno.game import Game
from engine.uno.party import PartyGame
from engine.uno.party_rules import PartyRules
from engine.uno.rules import HouseRules

__all__ = ["GOLDEN", "Case", "CASES", "record", "read"]

GOLDEN = Path(__file__).resolve().parent / "data" / "golden_matches"


class Case(NamedTuple):
    name: str
    variant: str
    bots: str  # one letter a seat: h heuristic, r random
    target: int
    seed: int
    house_rules: str = "-"

    @property
    def path(self) -> Path:
        return GOLDEN / f"{self.name}.jsonl.gz"


CASES = (
    Case("classic-2-hr", "classic", "hr", 500, 11),
    Case("classic-4-hrrh", "classic", "hrrh", 500, 12),
    Case("classic-3-hrh-stack-until", "classic", "hrh", 200, 13, "stack,until,uno=4"),
    Case("showdown-2-hh", "showdown", "hh", 300, 21),
    Case("showdown-3-hrh", "showdown", "hrh", 300, 22),
    Case("showdown-6-rhrhrh", "showdown", "rhrhrh", 200, 23),
    Case("showdown-4-hrhr-stack", "showdown", "hrhr", 200, 24, "stack,ws=2-4"),
    Case("party-4-hrrr", "party", "hrrr", 200, 31),
    Case("party-8-hhrrrrrr", "party", "hhrrrrrr", 100, 32),
    Case(
        "party-6-hrhrhr-pile",
        "party",
        "hrhrhr",
        100,
        33,
        "pile_refuse=yes,cap_linked=yes,draw_closes_speed=yes",
    ),
)


def _position(game: Game | PartyGame) -> str:
    return game.notation(reveal=True) if isinstance(game, PartyGame) else game.notation()


def record(case: Case) -> Iterator[dict[str, Any]]:
    """The case's match, played now: each event with the position after it."""
    rng = random.Random(case.seed)
    rules_type = PartyRules if case.variant == "party" else HouseRules
    game = new_game(
        len(case.bots),
        case.variant,
        rng=rng,
        target=case.target,
        house_rules=rules_type.parse(case.house_rules),
    )
    agents = [
        HeuristicBot("h", reaction_ms=200 + 10 * n)
        if kind == "h"
        else RandomBot(random.Random(case.seed * 100 + n), "r", reaction_ms=250 + 10 * n)
        for n, kind in enumerate(case.bots)
    ]
    lines: list[dict[str, Any]] = []

    def log(event: MatchEvent) -> None:
        lines.append({**event.to_dict(), "position": _position(game)})

    match = Driver(
        game,
        agents,
        SimulatedUnit(random.Random(case.seed + 1)),
        log=log,
        debug=True,
        rng=random.Random(case.seed + 2),
    )
    match.run()
    yield from lines


def _normal(value: Any) -> Any:
    """JSON's view of a value (dict keys become text, tuples lists)."""
    return json.loads(json.dumps(value))


def read(case: Case) -> list[dict[str, Any]]:
    with gzip.open(case.path, "rt", encoding="utf-8") as file:
        return [json.loads(line) for line in file]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the recordings again")
    args = parser.parse_args(argv)
    if not args.write:
        parser.print_help()
        return 2
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        lines = [_normal(line) for line in record(case)]
        # mtime=0: the same record writes the same bytes
        with gzip.GzipFile(case.path, "wb", mtime=0) as raw, io.TextIOWrapper(raw, "utf-8") as file:
            for line in lines:
                file.write(json.dumps(line, sort_keys=True) + "\n")
        print(f"{case.path.name}: {len(lines)} events")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
