"""The Grafana dashboard (docs/grafana/league.json): every rawSql of it, with
Grafana's macros and the dashboard's variables filled in as Grafana fills
them, run against a real PostgreSQL the league's store filled."""

from __future__ import annotations

import json
import re
from pathlib import Path

import psycopg
import pytest

from engine.league import open_store
from tests.league_results import AT, NEXT_DAY_AT, match, showdown, status

DASHBOARD = Path(__file__).resolve().parent.parent / "docs" / "grafana" / "league.json"
#: Each panel's columns, as its query names them.
COLUMNS = {
    "Results stored": ["results", "matches", "refusals"],
    "Units by state": ["state", "units"],
    "Players": ["people", "bots"],
    "Standings": [
        "player",
        "who",
        "wins",
        "losses",
        "showdowns",
        "false_starts",
        "median_ms",
        "best_ms",
        "matches",
        "match_wins",
    ],
    "Results per hour": ["time", "kind", "results"],
    "Median reaction per hour": ["time", "who", "median_ms"],
    "False starts per day": ["day", "false_starts", "showdowns"],
    "Units": [
        "venue",
        "unit",
        "state",
        "version",
        "host",
        "status_at",
        "results",
        "last_result_id",
        "last_result_at",
        "refusals",
        "last_refusal",
    ],
}


def dashboard():
    return json.loads(DASHBOARD.read_text(encoding="utf-8"))


def queries():
    """(panel title, rawSql) of every panel's targets."""
    return [
        (panel["title"], target["rawSql"])
        for panel in dashboard()["panels"]
        for target in panel["targets"]
    ]


def grafana_sql(sql: str, venue: str, who: str) -> str:
    """What Grafana sends: its macros expanded (as its PostgreSQL data source
    does, for a range holding every test result) and the variables put in."""
    low, high = int(AT - 86_400), int(NEXT_DAY_AT + 86_400)
    sql = re.sub(r"\$__unixEpochFilter\((\w+)\)", rf"\1 >= {low} AND \1 <= {high}", sql)
    sql = re.sub(r"\$__unixEpochGroupAlias\((\w+), *'1h'\)", r'floor(\1/3600)*3600 AS "time"', sql)
    sql = sql.replace("$venue", venue).replace("$who", who)
    assert "$" not in sql, f"a macro or variable the test does not know: {sql}"
    return sql


def test_every_panel_is_listed_here_and_queries_the_league_data_source():
    board = dashboard()
    assert [title for title, _ in queries()] == list(COLUMNS)
    source = {"type": "grafana-postgresql-datasource", "uid": "${DS_LEAGUE}"}
    for panel in board["panels"]:
        assert panel["datasource"] == source, panel["title"]
        assert all(t["datasource"] == source and t["rawQuery"] for t in panel["targets"])
    assert [v["name"] for v in board["templating"]["list"]] == ["venue", "who"]
    assert len({panel["id"] for panel in board["panels"]}) == len(board["panels"])


@pytest.fixture
def filled(postgres_server):
    url = postgres_server.new_database()
    try:
        with open_store(url) as store:
            store.record_status(status("unit-1", figures={"showdowns": 4}))
            store.record_status(status("unit-2", "offline"))
            store.store(
                [
                    showdown(1, reaction_us=(200_000, 250_000)),
                    showdown(2, winner="b", reason="false_start", reaction_us=(-1, 230_000)),
                    showdown(3, "Ann", "Robo", bots=["b"], winner="b"),
                    showdown(1, unit="unit-2", venue="bar-2", at=NEXT_DAY_AT),
                    match(1, [("Ann", False, 300), ("Bot 1", True, 20)], ["Ann"]),
                ]
            )
            store.store([showdown(1, winner="b")])  # a conflict: a refusal
        yield url
    finally:
        postgres_server.drop_database(url)


@pytest.mark.parametrize("venue", ["*", "bar-1"])
@pytest.mark.parametrize("who", ["people", "bots", "everyone"])
def test_each_query_returns_rows_with_its_columns(filled, venue, who):
    with psycopg.connect(filled) as connection:
        for title, sql in queries():
            cursor = connection.execute(grafana_sql(sql, venue, who))
            assert [column.name for column in cursor.description] == COLUMNS[title], title
            assert cursor.fetchall(), f"{title} gave no rows for venue {venue}, {who}"


def test_the_standings_panel_shows_the_stores_standings(filled):
    (sql,) = [sql for title, sql in queries() if title == "Standings"]
    with psycopg.connect(filled) as connection:
        rows = connection.execute(grafana_sql(sql, "*", "people")).fetchall()
        venue_rows = connection.execute(
            grafana_sql(dashboard()["templating"]["list"][0]["query"], "*", "people")
        ).fetchall()
    with open_store(filled) as store:
        expected = store.standings()
    assert [(r[0], r[2], r[3], r[4], r[5]) for r in rows] == [
        (s["player"], s["wins"], s["losses"], s["showdowns"], s["false_starts"]) for s in expected
    ]
    assert [float(r[6]) for r in rows] == [s["median_us"] / 1000 for s in expected]
    assert sorted(venue_rows) == [("bar-1", "bar-1"), ("bar-2", "bar-2"), ("every venue", "*")]
