"""End to end, as a venue runs it (issue 23): one mosquitto; ``showdown league``
as a process on SQLite; two mock unit daemons, each with its uplink process
(``showdown-unit uplink --journal``); a browser table (the table's app with its
match book, played in Chromium) whose finished match goes through a third
uplink (``--matches``). Simulated people fight a match of showdowns on unit-1,
bots one on unit-2, and the table plays one match to its end. Then the
league's standings page, in real Chromium, shows every player of both units
and of the table's match, each figure equal to a recount made from the
journals and the match book alone.

Waits are for events (a READY=1, a port, the page's rows) with a generous
limit, never a sleep for a timer.
"""

from __future__ import annotations

import json
import random
import urllib.request

import pytest

from engine.apps.table.match_book import MatchBook
from engine.units.remote import RemoteUnit
from tests.daemon_helpers import running_daemon
from tests.e2e_helpers import E2E_CONFIG, check_against_journal, fast_table, play
from tests.league_e2e_helpers import (
    VENUE,
    counted,
    league_process,
    players_of,
    recount,
    standings_rows,
    uplink_process,
)
from tests.league_server_helpers import wait_for
from tests.table_helpers import free_port, served

pytestmark = pytest.mark.slow

WAIT_S = 30.0  # a safety limit: everything here ends on its event long before
HOST_KEY = "the-host-key"
CODE = "TEST"


def play_the_table(browser, playwright, tmp_path, book_path):
    """A two-seat browser table with a match book: Dee joins from a phone, the
    host starts a match to 50 against one bot and hands Dee's seat to a bot;
    the match is played to its end. Returns its match id."""
    from engine.apps.table.room import Room
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = Room(
            seats=2, rng=random.Random(7), code=CODE, join_url=f"{url}/phone", host_key=HOST_KEY
        )
        room.match_book = MatchBook(book_path)
        with served(create_app(room, pace_s=0, round_pause_s=0), sock):
            display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
            display.goto(f"{url}/#host={HOST_KEY}")
            display.locator("#status", has_text="connected").wait_for()
            phone = browser.new_context(**playwright.devices["Pixel 5"]).new_page()
            phone.goto(f"{url}/phone?code={CODE}")
            phone.locator("#free-seats button[data-seat='0']").tap()
            phone.locator("#name").fill("Dee")
            phone.locator("#join-button").tap()
            phone.locator("#game").wait_for(state="visible")
            display.locator("#bots").fill("1")
            display.locator("#target-input").fill("50")
            display.locator("#start").click()
            display.locator("#top [data-card]").wait_for()
            display.locator("#host-extra button[data-key='seat-0']").click()
            wait_for(lambda: room.match_book.rows(), "the match to be over and booked", WAIT_S)
            match_id = room.match_id
        room.match_book.close()
    return match_id


def standings_json(url: str) -> dict:
    with urllib.request.urlopen(f"{url}/standings.json?players=all", timeout=5) as reply:
        return json.load(reply)


def test_two_units_and_a_browser_table_report_to_one_league_and_its_standings_add_up(
    mosquitto, browser, playwright, tmp_path
):
    units = {"unit-1": tmp_path / "unit-1", "unit-2": tmp_path / "unit-2"}
    for folder in units.values():
        folder.mkdir()
    book = tmp_path / "table" / "matches.sqlite3"
    book.parent.mkdir()
    with (
        league_process(mosquitto, tmp_path / "league") as league,
        running_daemon(units["unit-1"], config_text=E2E_CONFIG) as people_unit,
        running_daemon(units["unit-2"], config_text=E2E_CONFIG) as bots_unit,
        uplink_process(
            mosquitto, tmp_path / "uplinks", "unit-1", journal=people_unit.journal_path
        ) as first,
        uplink_process(
            mosquitto, tmp_path / "uplinks", "unit-2", journal=bots_unit.journal_path
        ) as second,
        uplink_process(
            mosquitto,
            tmp_path / "uplinks",
            "table-1",
            journal=tmp_path / "table" / "no-unit-here.sqlite3",  # a table with no unit
            matches=book,
        ) as third,
    ):
        # Simulated people at unit-1 (a table presses their paddles), bots at unit-2.
        people = RemoteUnit(
            f"socket://127.0.0.1:{people_unit.port}", table=fast_table(2), id_prefix="people"
        )
        with people:
            people_match = play(people, seed=2, target=40)
        bots = RemoteUnit(f"socket://127.0.0.1:{bots_unit.port}", id_prefix="bots")
        with bots:
            bots_match = play(bots, seed=2, target=25, bots=True)
        assert check_against_journal(people_match, people, people_unit.journal_path) >= 10
        assert check_against_journal(bots_match, bots, bots_unit.journal_path) >= 1
        match_id = play_the_table(browser, playwright, tmp_path, book)

        tally, results = recount([people_unit.journal_path, bots_unit.journal_path], [book])

        def all_stored() -> bool:
            for process, what in (
                (league, "the league"),
                (first, "uplink unit-1"),
                (second, "uplink unit-2"),
                (third, "uplink table-1"),
            ):
                process.check_alive(what)
            data = standings_json(league.url)
            stored = sum(p["showdowns"] for p in data["standings"]) // 2
            matches = sum(p["matches"] for p in data["standings"]) // 2
            return stored + matches == results

        wait_for(all_stored, f"the league to hold all {results} results", WAIT_S)

        page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{league.url}/?players=all&venue={VENUE}")
        page.locator("#status", has_text="live").wait_for()
        page.locator("#standings tbody tr").nth(len(tally) - 1).wait_for()
        shown = standings_rows(page)
        recent = page.locator("#recent li").all_inner_texts()
        # The units page: each uplink's unit online, with its results counted.
        page.goto(f"{league.url}/units")
        for unit in ("unit-1", "unit-2", "table-1"):
            page.locator(f"tr[data-unit='{VENUE}/{unit}'] .state.online").wait_for()
        assert errors == []

    assert shown == counted(tally)
    # Every player of both units and the table's match, people and bots apart.
    assert {name for name, bot in tally if not bot} == {"Ann", "Bob", "Cat", "Dee"}
    assert {name for name, bot in tally if bot} == {"Ann", "Bob", "Cat", "bot1"}
    assert players_of(tally) == {"person": 4, "bot": 4}
    assert shown[("Dee", False)][4] == shown[("bot1", True)][4] == 1  # one match each
    assert shown[("Dee", False)][5] + shown[("bot1", True)][5] == 1  # one of them won it
    assert any("match: " in line and "table-1" in line for line in recent)
    assert match_id
