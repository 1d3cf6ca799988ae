"""The venue league under load and through outages: results/s into the store,
the latency from a unit's journal to the standings, and what a broker kill
and a league kill cost (issue 23).

    .venv/bin/python benchmarks/league_load.py [--runs 3] [--backends sqlite,postgresql]
        [--only throughput,latency,outage] [--postgres-url URL]

Everything is real but the units: a mosquitto per run, ``showdown league`` as
a process of its own (``--db`` SQLite in a file, or a database on a
throwaway PostgreSQL 15 from Debian's packages), and N simulated units, each
with its own journal written with the unit's ``Journal`` and the REAL uplink
(firmware_host.uplink) in a thread of this process (tests/league_uplinks.py).

- throughput: 50 units with 200 results each already in their journals (10,000)
  start their uplinks; results/s is what the league stored between its first
  and its last commit (``stored_at``), and the whole drain is given beside it.
- latency: 100 units write 2,000 results at 200 a second while their uplinks
  run; per result, from its journal write returning to the league's commit of
  it (the same transaction updates the standings row that
  ``/standings.json`` reads), p50 and p99; and a ``GET /standings.json``'s own time.
- outage: 50 units write 10,000 results at up to 500 a second; the broker
  (SIGKILL) or the league process (SIGKILL) goes down at 30 % of them and is
  started again at 60 %; the uplinks run with their shipped settings (a
  resend after 5 s, a window of 200). Lost (written, never stored), stored twice (rows per
  id), the standings against a recount from the journals, the resends, the
  copies of a result the broker carried more than once (a watcher on the
  result topic), and the time to drain: from the restart until every result
  written before it is acked, and from the last write until all are.

The figures of each run are printed as JSON, then the median of the runs.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import logging
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.league_servers import Mosquitto, PostgresServer, free_port
from tests.league_uplinks import (
    Fleet,
    LeagueProcess,
    db_rows,
    league_standings,
    recount,
    wait_until,
)

SCENARIOS = ("throughput", "latency", "outage")
DRAIN_S = 300.0
#: The uplink's defaults (firmware_host/uplink/config.py), as a venue runs it.
SHIPPED = {"poll_s": 0.5, "resend_after_s": 5.0, "window": 200, "status_every_s": 10.0}


@contextlib.contextmanager
def databases(backend: str, url: str | None, folder: Path) -> Iterator[Callable[[], str]]:
    """A maker of empty databases of ``backend``: one per run."""
    if backend == "sqlite":
        counter = iter(range(1, 10**6))
        yield lambda: f"sqlite:{folder / f'league-{next(counter)}.sqlite3'}"
        return
    if url:
        yield lambda: url
        return
    server_folder = Path(tempfile.mkdtemp(prefix="league-load-pg-"))
    server = PostgresServer(server_folder).start()
    try:
        yield server.new_database
    finally:
        server.stop()
        shutil.rmtree(server_folder, ignore_errors=True)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Servers:
    """A broker and a league on ``db`` for one run, in ``folder``."""

    def __init__(self, folder: Path, db: str):
        (folder / "mosquitto").mkdir(parents=True)
        self.db = db
        self.broker = Mosquitto(folder / "mosquitto").start()
        self.league = LeagueProcess(folder, self.broker.url, free_port(), db).start()

    def close(self) -> None:
        self.league.stop()
        self.broker.stop()


class CopyWatcher:
    """Counts every copy of every result the broker delivers (QoS 1)."""

    def __init__(self, broker: Mosquitto):
        import paho.mqtt.client as mqtt

        self.copies: collections.Counter[str] = collections.Counter()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="copy-watcher")
        self.client.reconnect_delay_set(1, 2)
        self.client.on_connect = lambda c, *_: c.subscribe("uno-showdown/v1/+/+/result", qos=1)
        self.client.on_message = self._message
        self.client.connect(broker.host, broker.port, keepalive=10)
        self.client.loop_start()

    def _message(self, client, userdata, message) -> None:
        self.copies[json.loads(message.payload)["id"]] += 1

    def duplicates(self) -> int:
        return sum(count - 1 for count in self.copies.values())

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def throughput(folder: Path, db: str, units: int = 50, each: int = 200) -> dict[str, Any]:
    servers = Servers(folder, db)
    fleet = Fleet(folder / "units", servers.broker.url, units, settings={"window": each})
    try:
        fleet.write(units * each)
        started = time.monotonic()
        fleet.start()
        wait_until(fleet.drained, "the fleet drained", DRAIN_S)
        drain_s = time.monotonic() - started
    finally:
        fleet.stop()
        servers.close()
    ((count, first, last),) = db_rows(
        db, "SELECT COUNT(*), MIN(stored_at), MAX(stored_at) FROM results"
    )
    return {
        "units": units,
        "results": count,
        "results_per_s": round(count / (last - first)),
        "drain_s": round(drain_s, 2),
        "drain_results_per_s": round(count / drain_s),
    }


def latency(
    folder: Path, db: str, units: int = 100, total: int = 2_000, rate: float = 200.0
) -> dict[str, Any]:
    servers = Servers(folder, db)
    fleet = Fleet(folder / "units", servers.broker.url, units, settings={"poll_s": 0.1})
    try:
        fleet.start()
        wait_until(fleet.ready, "every uplink ready", DRAIN_S)
        fleet.write(total, per_second=rate)
        wait_until(fleet.drained, "the fleet drained", DRAIN_S)
        page_ms = []
        for _ in range(10):
            began = time.perf_counter()
            with urllib.request.urlopen(f"{servers.league.url}/standings.json", timeout=10) as r:
                r.read()
            page_ms.append((time.perf_counter() - began) * 1000)
            threading.Event().wait(0.3)  # the table's server limits one address's connection rate
    finally:
        fleet.stop()
        servers.close()
    stored = dict(db_rows(db, "SELECT id, stored_at FROM results"))
    waits = [(stored[id_] - at) * 1000 for id_, at in fleet.recorded_at.items()]
    return {
        "units": units,
        "results": len(waits),
        "rate_per_s": rate,
        "uplink_poll_s": 0.1,
        "p50_ms": round(_percentile(waits, 0.50), 1),
        "p99_ms": round(_percentile(waits, 0.99), 1),
        "max_ms": round(max(waits), 1),
        "standings_json_ms": round(statistics.median(page_ms), 1),
    }


def outage(
    folder: Path, db: str, kill: str, units: int = 50, total: int = 10_000, rate: float = 500.0
) -> dict[str, Any]:
    servers = Servers(folder, db)
    # The uplink's shipped defaults: a whole window resent every second by 50
    # units while the league is down starves this machine (see docs/reliability.md).
    fleet = Fleet(folder / "units", servers.broker.url, units, settings=SHIPPED)
    watcher = CopyWatcher(servers.broker)
    down, up = (
        (servers.broker.kill, servers.broker.start)
        if kill == "broker"
        else (
            servers.league.kill,
            servers.league.start,
        )
    )
    marks: dict[str, Any] = {}
    drained_at: list[float] = []

    def watch_drain() -> None:
        while not fleet.drained(marks["written_at_restart"]):
            threading.Event().wait(0.02)
        drained_at.append(time.monotonic())

    def hook(k: int) -> None:
        if k == int(total * 0.3):
            marks["kill_s"] = time.monotonic() - marks["start"]
            down()
        elif k == int(total * 0.6):
            up()
            marks["restart"] = time.monotonic()
            marks["restart_s"] = marks["restart"] - marks["start"]
            marks["written_at_restart"] = list(fleet.written)
            threading.Thread(target=watch_drain, daemon=True).start()

    try:
        fleet.start()
        wait_until(fleet.ready, "every uplink ready", DRAIN_S)
        marks["start"] = time.monotonic()
        fleet.write(total, on_written=hook, per_second=rate)
        last_write = time.monotonic()
        wait_until(fleet.drained, "the fleet drained", DRAIN_S)
        all_acked = time.monotonic()
        wait_until(lambda: drained_at, "the backlog drained", DRAIN_S)
        standings = servers.league.get("/standings.json?players=all&limit=100")["standings"]
    finally:
        watcher.close()
        fleet.stop()
        servers.close()
    written = sum(fleet.written)
    ((rows, ids),) = db_rows(db, "SELECT COUNT(*), COUNT(DISTINCT id) FROM results")
    return {
        "kill": kill,
        "units": units,
        "uplink_resend_after_s": SHIPPED["resend_after_s"],
        "results": written,
        "write_s": round(last_write - marks["start"], 1),
        "kill_at_s": round(marks["kill_s"], 1),
        "restart_at_s": round(marks["restart_s"], 1),
        "lost": written - ids,
        "stored_twice": rows - ids,
        "standings_equal_recount": league_standings(standings) == recount(fleet.journals),
        "resends": fleet.resent(),
        "duplicate_copies_on_broker": watcher.duplicates(),
        "backlog_drain_s": round(drained_at[0] - marks["restart"], 2),
        "drain_after_last_write_s": round(all_acked - last_write, 2),
    }


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each number's median over the runs; other values as in the first run."""
    merged: dict[str, Any] = {}
    for key, value in runs[0].items():
        values = [run[key] for run in runs]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            merged[key] = round(statistics.median(values), 2)
        elif isinstance(value, bool):
            merged[key] = all(values)
        else:
            merged[key] = value
    return merged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--only", default=",".join(SCENARIOS))
    parser.add_argument("--postgres-url", help="an empty database (default: a throwaway server)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)  # the uplinks' "lost the broker", 50 times over
    chosen = args.only.split(",")
    for name in chosen:
        if name not in SCENARIOS:
            parser.error(f"--only: {name!r} is not one of {', '.join(SCENARIOS)}")
    jobs: dict[str, Callable[[Path, str], dict[str, Any]]] = {
        "throughput": throughput,
        "latency": latency,
        "outage_broker": lambda folder, db: outage(folder, db, "broker"),
        "outage_league": lambda folder, db: outage(folder, db, "league"),
    }
    figures: dict[str, Any] = {
        "command": " ".join(["benchmarks/league_load.py", *(argv or sys.argv[1:])]),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "runs": args.runs,
        "backends": {},
    }
    with tempfile.TemporaryDirectory(prefix="league-load-") as top:
        for backend in args.backends.split(","):
            if backend not in ("sqlite", "postgresql"):
                parser.error(f"--backends: {backend!r} is not sqlite or postgresql")
            one: dict[str, Any] = {}
            with databases(backend, args.postgres_url, Path(top)) as new_db:
                for name, job in jobs.items():
                    if name.split("_")[0] not in chosen:
                        continue
                    runs = []
                    for run in range(args.runs):
                        folder = Path(top) / f"{backend}-{name}-{run}"
                        runs.append(job(folder, new_db()))
                        print(json.dumps({backend: {name: runs[-1]}}), file=sys.stderr, flush=True)
                    one[name] = median_of(runs)
            figures["backends"][backend] = one
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
