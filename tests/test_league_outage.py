"""Issue 23's outage test: 50 units, each with its own journal and the real
uplink, send their showdowns to the real ``showdown league`` process through a
real mosquitto, while the broker is SIGKILLed and started again, and then the
league process is: at the end nothing is lost, nothing is stored twice, and the
standings equal a recount from the units' journals.

The issue's 10,000 results run in benchmarks/league_load.py (figures in
docs/reliability.md); here 50 units send what fits in well under a minute.
Every kill and restart waits for an event (results stored, a drained fleet),
never for a timer; a wait's timeout is only a safety limit.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.league.store_open import open_store
from tests.league_servers import Mosquitto, free_port
from tests.league_uplinks import (
    Fleet,
    LeagueProcess,
    db_rows,
    league_standings,
    recount,
    wait_until,
)

pytestmark = pytest.mark.slow

UNITS = 50
RESULTS = 2_700  # 54 a unit: each third still outlasts its kill and restart
DRAIN_S = 90.0


def _at(actions: dict[int, Callable[[], object]]) -> Callable[[int], None]:
    """A writer's hook: run ``actions[k]`` once the k-th result is written."""

    def hook(k: int) -> None:
        if k in actions:
            actions[k]()

    return hook


def _run_outage(tmp_path: Path, mosquitto: Mosquitto, db: str) -> None:
    league = LeagueProcess(tmp_path, mosquitto.url, free_port(), db).start()
    fleet = Fleet(tmp_path / "units", mosquitto.url, UNITS).start()
    third = RESULTS // 3
    try:
        fleet.write(third)  # the first third: the fleet runs in
        # (a) The broker SIGKILLed a quarter into the next third and started
        # again at three quarters: the units keep writing their journals.
        fleet.write(
            third, on_written=_at({third // 4: mosquitto.kill, 3 * third // 4: mosquitto.start})
        )
        wait_until(fleet.drained, "the fleet drained after the broker's restart", DRAIN_S)
        # (b) The league process SIGKILLed with batches in hand, and restarted.
        fleet.write(third, on_written=_at({third // 4: league.kill, 3 * third // 4: league.start}))
        wait_until(fleet.drained, "the fleet drained after the league's restart", DRAIN_S)
        standings = league.get("/standings.json?players=all&limit=100")["standings"]
    finally:
        fleet.stop()
        league.stop()
    written = sum(fleet.written)
    assert written == 3 * third
    # 0 lost, 0 stored twice: a row per id, two outcome rows per result.
    assert db_rows(db, "SELECT COUNT(*), COUNT(DISTINCT id) FROM results") == [(written, written)]
    assert db_rows(db, "SELECT COUNT(*) FROM outcomes") == [(2 * written,)]
    per_unit = db_rows(db, "SELECT unit, COUNT(*), MAX(seq) FROM results GROUP BY unit")
    assert sorted(per_unit) == sorted(
        (name, count, count) for name, count in zip(fleet.names, fleet.written, strict=True)
    )
    with open_store(db) as store:  # the units page counts each once, too
        units = {unit["unit"]: unit["results"] for unit in store.units()}
    assert units == dict(zip(fleet.names, fleet.written, strict=True))
    assert league_standings(standings) == recount(fleet.journals)
    assert fleet.resent() > 0  # the outages did make the units send again


def test_50_units_through_a_broker_kill_and_a_league_kill_lose_nothing_sqlite(mosquitto, tmp_path):
    _run_outage(tmp_path, mosquitto, f"sqlite:{tmp_path / 'league.sqlite3'}")


def test_50_units_through_a_broker_kill_and_a_league_kill_lose_nothing_postgres(
    mosquitto, postgres_url, tmp_path
):
    _run_outage(tmp_path, mosquitto, postgres_url)


def test_regression_the_uplink_spun_while_the_broker_was_down(tmp_path):
    """Found by the outage test: while the broker was down the uplink's loop
    waited 0 s per turn (the status's deadlines passed, but a status is only
    sent when connected), so 50 uplinks took both cores and their unit's
    journal writes crawled. Not connected, it waits for its next journal read."""
    from firmware_host.service.journal import Journal
    from firmware_host.uplink import build_config
    from firmware_host.uplink.service import Uplink

    now = [1000.0]
    journal = tmp_path / "results.sqlite3"
    Journal(journal).close()
    config = build_config(
        {"broker": f"127.0.0.1:{free_port()}", "venue": "bar-1", "unit": "unit-1", "poll_s": 0.5}
    )
    uplink = Uplink(config, journal, host="pi-1", clock=lambda: now[0])
    try:
        uplink._step()  # reads the journal: the next read is due in poll_s
        assert uplink._timeout() == 0.5
        now[0] += 60.0  # a minute without a broker: every status deadline is past
        uplink._step()
        assert uplink._timeout() == 0.5
    finally:
        uplink.close()
