"""The league's standings at 100,000 results: how long a read takes on SQLite
and PostgreSQL, and how fast the results went in.

    .venv/bin/python benchmarks/league_standings.py [--results 100000] [--units 50]
        [--players 200] [--batch 500] [--calls 50] [--seed 1]
        [--backends sqlite,postgresql] [--postgres-url URL] [--json]

The results are a seeded mix, built as an uplink builds them
(``showdown_message`` / ``match_message``, then ``decode_result``): ``--units``
units over 5 venues (one in ten a browser table, whose results are matches),
over 7 days; ``--players`` players, one in five a bot; reactions of 150 to
450 ms, some false starts, timeouts and void ties. They are stored through
``Store.store`` in batches of ``--batch`` (one transaction each: what the
league server's ingest does), and the fill rate is reported.

Then each read runs once to warm up and ``--calls`` times more, one after
another; the median and the slowest of those are reported. The reads: the
standings of everyone (people, bots, both), of one venue, of one day, of one
venue on one day, the top 10; and ``units()``, ``figures()``, ``recent()``.
On PostgreSQL the naive query the issue measured (a GROUP BY over every
outcome with ``percentile_disc``) is timed beside them, for comparison.

PostgreSQL: ``--postgres-url`` (an empty database), or a throwaway server is
started from Debian's packages as the tests start one (tests/league_servers.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.league import Store, open_store
from firmware_host.protocol.league import (
    ResultMessage,
    decode_result,
    encode,
    match_message,
    result_topic,
    showdown_message,
)

VENUES = 5
DAYS = 7
#: 2025-11-24 00:00 UTC: the first day of the week the results fall in.
FIRST_DAY_AT = 1763942400.0
NAIVE_SQL = """
SELECT player, bot, COUNT(*) AS showdowns,
       SUM(CASE WHEN outcome = 'win' THEN 1 ELSE 0 END) AS wins,
       SUM(CASE WHEN outcome = 'loss' THEN 1 ELSE 0 END) AS losses,
       SUM(CASE WHEN false_start THEN 1 ELSE 0 END) AS false_starts,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY reaction_us) AS median_us,
       MIN(reaction_us) AS best_us
FROM outcomes WHERE kind = 'showdown' AND NOT bot
GROUP BY player, bot ORDER BY wins DESC, best_us LIMIT 100
"""


def results(count: int, units: int, players: int, seed: int) -> list[ResultMessage]:
    rng = random.Random(seed)
    names = [f"Player {n:03d}" for n in range(players)]
    bots = set(rng.sample(names, players // 5))
    places = [(f"venue-{n % VENUES + 1}", f"unit-{n + 1:02d}") for n in range(units)]
    tables = set(rng.sample(places, max(1, units // 10)))
    made = []
    for n in range(count):
        venue, unit = places[n % units]
        at = FIRST_DAY_AT + rng.random() * DAYS * 86_400
        if (venue, unit) in tables:
            seated = rng.sample(names, rng.randint(2, 4))
            seats = [{"name": name, "bot": name in bots, "score": rng.randrange(500)}
                     for name in seated]  # fmt: skip
            message = match_message(
                venue, unit, n, at, f"m{n}", game="uno", players=seats,
                winners=[rng.choice(seated)], rounds=3,
            )  # fmt: skip
        else:
            message = showdown_message(venue, unit, n, at, _showdown(rng, n, names, bots))
        made.append(decode_result(result_topic(venue, unit), encode(message)))
    return made


def _showdown(rng: random.Random, n: int, names: list[str], bots: set[str]) -> dict[str, Any]:
    a, b = rng.sample(names, 2)
    reason = rng.choices(("faster", "false_start", "timeout", "tie_void"), (90, 6, 3, 1))[0]
    winner = rng.choice("ab") if reason in ("faster", "false_start") else None
    reactions: dict[str, int | None] = {side: rng.randrange(150_000, 450_000) for side in "ab"}
    if reason == "timeout":
        reactions = {"a": None, "b": None}
    return {
        "showdown_id": f"local-{n}",
        "players": {"a": a, "b": b},
        "winner": winner,
        "loser": None if winner is None else "b" if winner == "a" else "a",
        "reason": reason,
        "tie_reruns": 0,
        "reaction_us": reactions,
        "margin_us": None,
        "cards": 2,
        "launch": "launched" if winner else "none",
        "cards_counted": None,
        "bots": [side for side, name in (("a", a), ("b", b)) if name in bots],
    }


def timed(call: Callable[[], object], calls: int) -> dict[str, float]:
    call()  # warm: the first read fills the caches and the connection pool
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    return {"median_ms": round(statistics.median(samples), 2), "max_ms": round(max(samples), 2)}


def one_backend(
    store: Store,
    made: list[ResultMessage],
    args: argparse.Namespace,
    naive: Callable[[], object] | None = None,
) -> dict[str, Any]:
    start = time.perf_counter()
    for first in range(0, len(made), args.batch):
        store.store(made[first : first + args.batch])
    fill_s = time.perf_counter() - start
    day = time.strftime("%Y-%m-%d", time.gmtime(FIRST_DAY_AT + 2 * 86_400))
    reads: dict[str, Callable[[], object]] = {
        "standings (people)": lambda: store.standings(),
        "standings (bots)": lambda: store.standings(bots=True),
        "standings (everyone)": lambda: store.standings(bots=None),
        "standings (one venue)": lambda: store.standings(venue="venue-1"),
        "standings (one day)": lambda: store.standings(day=day),
        "standings (venue and day)": lambda: store.standings(venue="venue-1", day=day),
        "standings (top 10)": lambda: store.standings(limit=10),
        "units()": store.units,
        "figures()": store.figures,
        "recent(20)": store.recent,
    }
    figures = {
        "results": store.figures()["results"],
        "fill_s": round(fill_s, 1),
        "fill_results_per_s": round(len(made) / fill_s),
        "reads": {name: timed(read, args.calls) for name, read in reads.items()},
    }
    if naive is not None:
        figures["reads"]["naive GROUP BY (people)"] = timed(naive, max(3, args.calls // 10))
    return figures


@contextlib.contextmanager
def postgres(url: str | None) -> Iterator[str]:
    if url:
        yield url
        return
    from tests.league_servers import PostgresServer

    folder = Path(tempfile.mkdtemp(prefix="league-bench-pg-"))
    server = PostgresServer(folder).start()
    try:
        yield server.new_database()
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def run_postgres(made: list[ResultMessage], args: argparse.Namespace) -> dict[str, Any]:
    import psycopg

    with postgres(args.postgres_url) as url, open_store(url) as store:

        def naive() -> object:
            with psycopg.connect(url) as connection:
                return connection.execute(NAIVE_SQL).fetchall()

        return one_backend(store, made, args, naive)


def run_sqlite(made: list[ResultMessage], args: argparse.Namespace) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="league-bench-") as folder,
        open_store(f"sqlite:{folder}/league.sqlite3") as store,
    ):
        return one_backend(store, made, args)


def report(figures: dict[str, Any]) -> str:
    lines = [figures["command"], f"{figures['results']:,} results, made in {figures['make_s']} s"]
    for backend, one in figures["backends"].items():
        lines.append(
            f"{backend}: filled in {one['fill_s']} s ({one['fill_results_per_s']:,} results/s, "
            f"batches of {figures['batch']})"
        )
        for name, read in one["reads"].items():
            median, slowest = read["median_ms"], read["max_ms"]
            lines.append(f"  {name:28} median {median:8.2f} ms   max {slowest:8.2f} ms")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--units", type=int, default=50)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--batch", type=int, default=500, help="results per store() call")
    parser.add_argument("--calls", type=int, default=50, help="timed calls of each read")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--postgres-url", help="an empty database (default: a throwaway server)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    made = results(args.results, args.units, args.players, args.seed)
    figures: dict[str, Any] = {
        "command": " ".join(["benchmarks/league_standings.py", *(argv or sys.argv[1:])]),
        "results": len(made),
        "make_s": round(time.perf_counter() - start, 1),
        "batch": args.batch,
        "backends": {},
    }
    runs = {"sqlite": run_sqlite, "postgresql": run_postgres}
    for backend in args.backends.split(","):
        if backend not in runs:
            parser.error(f"--backends: {backend!r} is not sqlite or postgresql")
        figures["backends"][backend] = runs[backend](made, args)
    print(json.dumps(figures, indent=1) if args.json else report(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
