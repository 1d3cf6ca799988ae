"""The history page's routes (engine.apps.table.history_page) in the table's app,
driven through ASGI without a server: /history.json's figures from a HistoryBook,
each failure as JSON with a message and what to do (a bad limit 400, a unit
problem 502, a bug 500, never a traceback), and /history's page, which loads
nothing from elsewhere."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

from engine.apps.table.guard import Hosts
from engine.apps.table.history_page import HistoryPage
from engine.apps.table.room import Room
from engine.apps.table.server import create_app
from engine.game.errors import UnitUnreachable
from engine.units.ports import ShowdownOutcome, ShowdownRequest
from engine.units.unit_history import History, HistoryBook
from tests.async_helpers import run_coroutine
from tests.room_helpers import taken

STATIC = Path(__file__).resolve().parents[1] / "engine" / "apps" / "table" / "static"


def get(app, path: str, query: str = "") -> tuple[int, dict[str, str], bytes]:
    """GET ``path`` from the ASGI ``app``: (status, headers, body)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"table.test")],
        "server": ("table.test", 80),
        "client": ("127.0.0.1", 5000),
    }
    sent: list[dict] = []
    requested: list[bool] = []

    async def receive():
        if not requested:  # the request, then nothing: the client stays connected
            requested.append(True)
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()

    async def send(message):
        sent.append(message)

    async def call():
        await app(scope, receive, send)

    run_coroutine(call())
    start = sent[0]
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])


def app_on(source):
    room = Room(seats=2, rng=random.Random(1), code="TEST", join_url="http://table.test/phone")
    return create_app(room, addons=[HistoryPage(source)], hosts=Hosts(["table.test"]))


def json_of(app, query: str = "") -> tuple[int, dict]:
    status, headers, body = get(app, "/history.json", query)
    assert headers["content-type"] == "application/json"
    assert headers["cache-control"] == "no-store"
    return status, json.loads(body)


def booked() -> HistoryBook:
    times = iter(range(1764525851, 1764529999, 30))
    book = HistoryBook(now=lambda: float(next(times)))
    for n, (a_us, b_us) in enumerate([(263000, 241000), (230000, 250000), (210000, 300000)], 1):
        request = ShowdownRequest(f"m1:r1:s{n}", 0, 1, "Ann", "bot2", 2, bots={1: 250})
        loser = 0 if a_us > b_us else 1
        book.record(request, ShowdownOutcome(loser, 1 - loser, "faster", {0: a_us, 1: b_us}))
    return book


def test_the_figures_of_a_table_with_no_unit_come_from_its_book():
    status, body = json_of(app_on(booked()))
    assert status == 200
    assert body["source"] == "this table's showdowns (no unit: kept until the server stops)"
    assert (body["showdowns"], body["more"]) == (3, False)
    assert [p["name"] for p in body["people"]] == ["Ann"]
    assert [p["name"] for p in body["bots"]] == ["bot2"]
    ann = body["people"][0]
    assert (ann["wins"], ann["losses"], ann["median_reaction_us"]) == (2, 1, 230000)
    assert [p["reaction_us"] for p in ann["points"]] == [263000, 230000, 210000]
    assert body["bots"][0]["median_reaction_us"] == 250000


def test_the_limit_is_passed_to_the_source():
    status, body = json_of(app_on(booked()), "limit=2")
    assert status == 200
    assert (body["showdowns"], body["limit"], body["more"]) == (2, 2, True)


def test_a_bad_limit_is_a_json_error_naming_it():
    for query, shown in [("limit=0", "'0'"), ("limit=abc", "'abc'"), ("limit=1001", "'1001'")]:
        status, body = json_of(app_on(booked()), query)
        assert status == 400
        assert body == {
            "error": f"limit must be a whole number from 1 to 1000, not {shown}",
            "what_to_do": "Ask for 1 to 1000 showdowns.",
        }


class Failing:
    source = "the unit at socket://127.0.0.1:9"

    def __init__(self, error: Exception):
        self.error = error

    def history(self, limit: int) -> History:
        raise self.error


def test_a_unit_that_cannot_be_read_is_a_json_error_with_what_to_do():
    problem = UnitUnreachable(
        "cannot read the history of the unit at socket://127.0.0.1:9: connection refused",
        url="socket://127.0.0.1:9",
        what_to_do="Check that the unit is switched on.",
    )
    status, body = json_of(app_on(Failing(problem)))
    assert status == 502
    assert body == {
        "error": "cannot read the history of the unit at socket://127.0.0.1:9: connection refused",
        "what_to_do": "Check that the unit is switched on.",
        "source": "the unit at socket://127.0.0.1:9",
    }


def test_a_bug_in_the_source_is_a_json_error_not_a_traceback(caplog):
    status, body = json_of(app_on(Failing(KeyError("results"))))
    assert status == 500
    assert body["error"] == (
        "the history could not be read from the unit at socket://127.0.0.1:9: 'results'"
    )
    assert "Traceback" not in json.dumps(body)
    assert "reading the history from the unit at socket://127.0.0.1:9 failed" in caplog.text


def test_the_page_is_served_and_loads_nothing_from_elsewhere():
    status, headers, body = get(app_on(booked()), "/history")
    assert status == 200 and headers["content-type"].startswith("text/html")
    page = body.decode()
    assert '<script type="module" src="/static/history.js"></script>' in page
    script = (STATIC / "history.js").read_text()
    for text in (page, script):
        urls = set(re.findall(r"https?://[^\s\"'`)]+", text))
        assert urls <= {"http://www.w3.org/2000/svg"}, urls


def test_a_table_with_no_unit_records_its_showdowns_in_the_book_bots_marked():
    """The wiring of ``showdown table --unit sim``: the room's unit port is the
    simulated unit wrapped by the book, and the page reads the book."""
    from engine.units.ports import SimulatedUnit

    book = HistoryBook()
    room = Room(
        seats=3,
        rng=random.Random(2),
        unit=book.recording(SimulatedUnit(random.Random(3))),
        code="TEST",
        join_url="http://table.test/phone",
    )
    display, phone = room.connect(), room.connect()
    room.receive(
        display, json.dumps({"type": "hello", "role": "display", "host_key": room.host_key})
    )
    room.receive(phone, json.dumps({"type": "hello", "role": "phone", "secret": None}))
    room.receive(phone, json.dumps({"type": "join", "seat": 0, "name": "Ann", "code": "TEST"}))
    room.receive(display, json.dumps({"type": "host", "cmd": "start", "variant": "showdown"}))
    acted = 0
    for _ in range(5000):  # the room's tasks, as the server's Runner does them
        if len(book) >= 3:
            break
        task = room.next_task()
        if task == "bot":
            room.bot_step()
        elif task == "showdown":
            request = room.showdown_request()
            room.finish_showdown(room.unit.run_showdown(request))
        elif task == "next_round":
            room.next_round()
        else:  # Ann's turn: her first legal action
            views = [m["view"] for m in taken(room, phone) if m.get("type") == "view"]
            acted += 1
            action = views[-1]["you"]["legal"][0]["action"]
            room.receive(phone, json.dumps({"type": "act", "action": action, "id": acted}))
    rows = book.history().rows
    assert len(rows) == 3
    for row in rows:
        for side in ("a", "b"):
            assert (side in row.bots) == row.players[side].startswith("bot"), row
    status, body = json_of(app_on(book))
    assert status == 200 and body["showdowns"] == 3
    assert {p["name"] for p in body["people"]} <= {"Ann"}
    assert all(p["name"].startswith("bot") for p in body["bots"])
    assert sum(p["showdowns"] for p in body["people"] + body["bots"]) == 6


def test_a_table_without_a_unit_panel_says_why_at_its_address():
    """The display links to /panel; with --unit manual or a serial unit there is
    none, and the page says so and what to do, instead of a bare 404."""
    status, headers, body = get(app_on(booked()), "/panel")
    assert status == 404 and headers["content-type"].startswith("text/html")
    assert "No unit panel" in body.decode() and "--unit socket://HOST:PORT" in body.decode()
