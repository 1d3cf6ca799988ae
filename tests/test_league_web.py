"""The league's pages and JSON (engine.league.web) on a real Store (SQLite in the
test's folder), driven through ASGI in the test's own event loop: the JSON
endpoints exact, bad query parameters refused in words, the pages served with
their headers, and the WebSocket's news after a stored batch."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from engine.apps.table.guard import SECURITY_HEADERS, Hosts
from engine.league.intake import take_batch
from engine.league.store_open import open_store
from engine.league.web import Changes, create_app
from firmware_host.protocol.league import encode, result_topic, status_topic
from tests.asgi_helpers import Asgi
from tests.league_server_helpers import AT, match, showdown, status

DAY_1, DAY_2 = "2025-11-30", "2025-12-01"


def fill(store) -> None:
    """Ann, Bob and Cat (people) and Robo (a bot) over two venues and two days."""
    results = [
        showdown("unit-1", 1),
        showdown("unit-1", 2, reactions=(250_000, 270_000)),
        showdown("unit-1", 3, winner="b", reason="false_start", reactions=(None, None)),
        showdown(
            "unit-2",
            4,
            b="Robo",
            winner=None,
            reason="timeout",
            reactions=(None, None),
            bots=("b",),
            at=AT + 86_400,
        ),
        match("table-1", 1),
        showdown("unit-1", 1, venue="cafe-2", a="Cat", b="Ann", reactions=(200_000, 300_000)),
    ]
    messages = [(result_topic(m["venue"], m["unit"]), encode(m)) for m in results]
    messages.append((status_topic("bar-1", "unit-1"), encode(status())))
    messages.append((result_topic("bar-1", "unit-1"), b"not json"))
    messages.append(("uno-showdown/v1/Bar/unit-1/result", encode(results[0])))
    take_batch(store, messages, lambda: AT + 100)


@pytest.fixture
def store(tmp_path):
    store = open_store(f"sqlite:{tmp_path / 'league.sqlite3'}")
    fill(store)
    yield store
    store.close()


def get(app, path: str) -> tuple[int, dict, object]:
    async def go():
        async with Asgi(app) as site:
            return await site.get(path)

    status_code, headers, body = asyncio.run(go())
    content = json.loads(body) if headers.get("content-type") == "application/json" else body
    return status_code, headers, content


def player(name, bot=False, **figures):
    row = dict.fromkeys(
        ("showdowns", "wins", "losses", "false_starts", "reactions", "matches", "match_wins"), 0
    )
    return {"player": name, "bot": bot, **row, "median_us": None, "best_us": None, **figures}


ANN = player(
    "Ann",
    showdowns=5,
    wins=2,
    losses=2,
    false_starts=1,
    reactions=3,
    median_us=250_000,
    best_us=231_000,
    matches=1,
    match_wins=1,
)
BOB = player("Bob", showdowns=3, wins=1, losses=2, reactions=2, median_us=264_000, best_us=264_000)
CAT = player("Cat", showdowns=1, wins=1, reactions=1, median_us=200_000, best_us=200_000)
ROBO = player("Robo", True, showdowns=1, matches=1)


def test_standings_json_of_the_people_across_every_venue_and_day(store):
    code, _, body = get(create_app(store), "/standings.json")
    assert code == 200
    assert {k: v for k, v in body.items() if k != "recent"} == {
        "venue": None,
        "day": None,
        "players": "people",
        "standings": [ANN, CAT, BOB],
        "venues": ["bar-1", "cafe-2"],
        "days": [DAY_1, DAY_2],
    }
    recent = [(r["venue"], r["id"]) for r in body["recent"]]
    assert recent[:3] == [("bar-1", "unit-2:s4"), ("bar-1", "unit-1:s3"), ("bar-1", "unit-1:s2")]
    assert sorted(recent[3:]) == [  # the same second: any order
        ("bar-1", "table-1:match:m1"),
        ("bar-1", "unit-1:s1"),
        ("cafe-2", "unit-1:s1"),
    ]
    assert body["recent"][0]["outcomes"] == [
        {
            "player": "Ann",
            "bot": False,
            "outcome": "none",
            "false_start": False,
            "reaction_us": None,
        },
        {
            "player": "Robo",
            "bot": True,
            "outcome": "none",
            "false_start": False,
            "reaction_us": None,
        },
    ]


def test_standings_json_filters_by_venue_day_and_players(store):
    app = create_app(store)
    _, _, bots = get(app, "/standings.json?players=bots")
    assert bots["standings"] == [ROBO]
    _, _, every = get(app, "/standings.json?players=all&venue=bar-1&day=2025-12-01")
    assert (every["venue"], every["day"], every["players"]) == ("bar-1", DAY_2, "all")
    assert [(p["player"], p["showdowns"]) for p in every["standings"]] == [
        ("Ann", 1),
        ("Robo", 1),
    ]
    _, _, cafe = get(app, "/standings.json?venue=cafe-2&limit=1")
    assert [p["player"] for p in cafe["standings"]] == ["Cat"]
    assert [r["venue"] for r in cafe["recent"]] == ["cafe-2"]
    assert cafe["days"] == [DAY_1]


@pytest.mark.parametrize(
    ("query", "error"),
    [
        (
            "venue=Bar%201",
            "venue must be 1 to 32 lower-case letters, digits and inner dashes (like bar-1), "
            "not 'Bar 1'",
        ),
        ("day=yesterday", "day must be a date as YYYY-MM-DD (UTC), not 'yesterday'"),
        ("day=2025-02-30", "day must be a date as YYYY-MM-DD (UTC), not '2025-02-30'"),
        ("players=robots", "players must be people, bots or all, not 'robots'"),
        ("limit=0", "limit must be a whole number from 1 to 1000, not '0'"),
        ("limit=ten", "limit must be a whole number from 1 to 1000, not 'ten'"),
        ("team=red", "unknown parameter 'team': this takes venue, day, players, limit"),
    ],
)
def test_a_bad_query_parameter_is_a_400_in_words(store, query, error):
    code, headers, body = get(create_app(store), f"/standings.json?{query}")
    assert (code, headers["content-type"], body) == (400, "application/json", {"error": error})


def test_units_json_says_each_units_state_results_and_refusals(store):
    code, _, body = get(create_app(store), "/units.json")
    assert code == 200 and body["venue"] is None and body["broker"] is None
    units = {(u["venue"], u["unit"]): u for u in body["units"]}
    assert set(units) == {
        ("bar-1", "unit-1"),
        ("bar-1", "unit-2"),
        ("bar-1", "table-1"),
        ("cafe-2", "unit-1"),
    }
    one = units["bar-1", "unit-1"]
    assert (one["state"], one["host"], one["version"], one["results"], one["refusals"]) == (
        "online",
        "pi-1",
        "0.1.0",
        3,
        1,
    )
    assert one["last_result_id"] == "unit-1:s3"
    # a unit that never sent a status is there all the same: units appear as they report
    assert (units["bar-1", "unit-2"]["state"], units["bar-1", "unit-2"]["results"]) == (None, 1)
    assert [(t["topic"], t["refusals"]) for t in body["refused_topics"]] == [
        ("uno-showdown/v1/Bar/unit-1/result", 1)
    ]
    assert body["refused_topics"][0]["last_refusal"].startswith("the topic's venue must be")
    _, _, cafe = get(create_app(store), "/units.json?venue=cafe-2")
    assert [(u["venue"], u["unit"]) for u in cafe["units"]] == [("cafe-2", "unit-1")]
    code, _, body = get(create_app(store), "/units.json?venue=-")
    assert code == 400 and body["error"].startswith("venue must be")


def test_figures_json_has_the_totals_and_the_broker_link(store):
    changes = Changes()
    changes.broker_link(True)
    code, _, body = get(create_app(store, changes), "/figures.json")
    assert code == 200
    assert body["broker"] == "connected"
    assert body["results"] == 6
    assert (body["refusals"], body["refusals_without_unit"]) == (2, 1)
    code, _, body = get(create_app(store), "/figures.json?x=1")
    assert (code, body) == (400, {"error": "unknown parameter 'x': this takes no parameters"})


@pytest.mark.parametrize("path", ["/", "/units"])
def test_the_pages_are_served_with_their_security_headers(store, path):
    code, headers, body = get(create_app(store), path)
    assert code == 200 and headers["content-type"].startswith("text/html")
    assert b"UNO Showdown league" in body
    for name, value in SECURITY_HEADERS:
        assert headers[name.decode()] == value.decode()


def test_a_request_naming_a_host_the_league_does_not_serve_is_refused(store):
    """DNS rebinding: a page of evil.example pointed at the league's address."""

    async def go():
        async with Asgi(create_app(store)) as site:
            return await site.get("/standings.json", host="evil.example:8090")

    code, headers, body = asyncio.run(go())
    assert code == 421
    assert body.decode().startswith(
        "This league answers to 127.0.0.1, ::1, localhost, not 'evil.example:8090'"
    )
    assert headers["x-frame-options"] == "DENY"  # the refusal has the headers too


def test_the_league_answers_to_the_names_it_is_given_and_any_address_of_its_own(store):
    app = create_app(store, hosts=Hosts(["league.local"], any_address=True))

    async def go():
        async with Asgi(app) as site:
            return [
                (await site.get("/figures.json", host=host))[0]
                for host in ("league.local:8090", "192.168.1.9:8090", "other.local")
            ]

    assert asyncio.run(go()) == [200, 200, 421]


def test_a_websocket_from_another_site_s_page_is_refused(store):
    async def go():
        async with Asgi(create_app(store)) as site:
            socket = await site.websocket("/ws", headers=[("origin", "http://evil.example")])
            return socket.answer

    answer = asyncio.run(go())
    assert answer["status"] == 403
    assert answer["body"] == b"This league's sockets are for its own pages only.\n"


def test_the_tables_style_is_served_as_it_is(store):
    from engine.league.web import TABLE_STATIC

    code, _, body = get(create_app(store), "/static/table.css")
    assert code == 200 and body == (TABLE_STATIC / "table.css").read_bytes()
    code, _, _ = get(create_app(store), "/static/league.css")
    assert code == 200


def test_the_websocket_says_changed_after_news_from_another_thread(store):
    changes = Changes()
    app = create_app(store, changes)

    async def go():
        async with Asgi(app) as site:
            socket = await site.websocket("/ws")
            assert socket.accepted
            while not changes.listeners:  # the socket's handler is listening
                await asyncio.sleep(0)
            for _ in range(3):  # the ingest thread, a burst of batches
                thread = threading.Thread(target=changes.notify, args=({"results"},))
                thread.start()
                thread.join()
            first = await socket.json()
            changes.notify({"units"})
            second = await socket.json()
            await socket.close()
            return first, second

    first, second = asyncio.run(go())
    assert first == {"type": "changed", "what": ["results"]}
    assert second == {"type": "changed", "what": ["units"]}


def test_news_before_the_app_started_goes_nowhere():
    Changes().notify({"results"})  # no loop bound yet: dropped, no error


def test_a_database_that_fails_a_read_is_a_503_in_words():
    from engine.league.store import StoreError

    class Failing:
        def __getattr__(self, name):
            def fail(*args, **kwargs):
                raise StoreError("cannot read 'sqlite:league.sqlite3': disk I/O error")

            return fail

    code, _, body = get(create_app(Failing()), "/figures.json")
    assert (code, body) == (
        503,
        {
            "error": "the league's database failed: cannot read 'sqlite:league.sqlite3': "
            "disk I/O error"
        },
    )
