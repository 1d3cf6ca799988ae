"""Companion mode in a real Chromium (Playwright on Debian's Chromium), against a
real unit: a ``showdown-unit run --mock`` daemon in a subprocess, reached by
``RemoteUnit`` over TCP with the table server's hooks. The companion page names
the players, starts a showdown; a protocol client presses both paddles and the
timer button with the bench commands; the page follows the unit live (armed,
countdown, GO) and shows the unit's own verdict and who took the cards. Then the
host scores a round from the cards left in a hand, a bad entry is refused with
the server's words, and undo takes the round back. The screenshot
docs/screenshots/table-companion.png comes from this test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from firmware_host.people.words import duel_verdict
from tests.daemon_helpers import Client, running_daemon
from tests.screenshots import SHOTS
from tests.table_helpers import Frames, free_port, served

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SHOT = SHOTS / "table-companion.png"


@pytest.fixture
def companion(tmp_path):
    """The companion table on a real mock unit daemon: (url, daemon, room)."""
    from engine.apps.table.companion import CompanionRoom
    from engine.apps.table.server import UnitHooks, create_app
    from engine.units.remote import RemoteUnit

    with running_daemon(tmp_path) as daemon, free_port() as (sock, url):
        hooks = UnitHooks()
        unit = RemoteUnit(
            f"socket://127.0.0.1:{daemon.port}", table=hooks, say=hooks.say, id_prefix="comp"
        )
        room = CompanionRoom(
            unit=unit, code="TEST", save=tmp_path / "companion.json", host_key="companion-key"
        )
        app = create_app(
            room,
            pace_s=0,
            hooks=hooks,
            display_page="companion.html",
        )
        try:
            with served(app, sock):
                yield url, daemon, room
        finally:
            unit.close()


def test_the_companion_page_runs_a_showdown_on_a_real_unit_and_keeps_the_score(browser, companion):
    url, daemon, room = companion
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    frames = Frames(page)
    page.goto(f"{url}/#host=companion-key")  # the host URL
    page.locator("#status", has_text="connected").wait_for()

    # The host names the players (keyboard only) and starts the match. The form
    # shows once the welcome says this page is the host, which can come well after
    # "connected" (the socket's opening) on a loaded machine: keys typed before it
    # went nowhere, and the match was started with no players (CI, 7 December).
    page.locator("#players").wait_for()
    page.locator("#players").focus()
    page.keyboard.type("Ann\nBob\nCy")
    page.locator("#target-input").fill("200")
    page.locator("#start").press("Enter")
    page.locator("#board tr[data-seat='2']").wait_for()
    assert page.locator("#board tr").all_inner_texts()[0].split("\t")[:2] == ["Ann", "0"]
    size = page.locator("#board td").first.evaluate("e => getComputedStyle(e).fontSize")
    assert float(size.removesuffix("px")) >= 48  # readable from the chairs

    # A showdown: Ann played the card at Bob, 3 cards loaded.
    with Client.tcp(daemon.port) as bench:
        bench.hello()
        page.locator("#challenger").select_option("0")
        page.locator("#opponent").select_option("1")
        page.locator("#cards").fill("3")
        page.locator("#fight").click()
        armed = bench.wait_for_event("armed")
        assert armed["cards"] == 3 and armed["players"] == {"a": "Ann", "b": "Bob"}
        page.locator("#showdown-body", has_text="Ann ⚔ Bob").wait_for()
        page.locator("#showdown-body", has_text="Load 3 cards").wait_for()
        # Ann presses 180 ms after GO, Bob 260 ms; then the timer button starts it.
        assert bench.request("bench_press", side="a", offset_ms=180)["ok"]
        assert bench.request("bench_press", side="b", offset_ms=260)["ok"]
        assert bench.request("bench_timer")["ok"]
        result = bench.wait_for_event("result")
    # The page shows the unit's verdict, in the unit's words, and who took the cards.
    assert (result["winner"], result["loser"], result["reason"]) == ("a", "b", "faster")
    expected = duel_verdict(
        {0: "Ann", 1: "Bob"},
        0,
        1,
        "faster",
        {0: result["reaction_us"]["a"], 1: result["reaction_us"]["b"]},
        result["margin_us"],
        result["tie_reruns"],
    )
    # the unit's result event comes before the verdict's words: wait for the words
    expect(page.locator("#showdown-body .verdict")).to_have_text(expected)
    expect(page.locator("#took")).to_have_text("Bob took 3 cards")
    expect(page.locator("#announce-verdict")).to_have_text(f"{expected}. Bob took the cards.")
    assert page.locator("#board tr[data-seat='1'] .took").inner_text() == "+3 cards"
    log = page.locator("#log li").all_inner_texts()
    assert any(line.endswith("Bob took 3 cards.") for line in log), log
    # ... having followed the unit live: its events, the countdown and GO drawn.
    events = [m["name"] for m in frames.messages if m.get("type") == "event"]
    assert {"armed", "countdown", "go", "result"} <= set(events), events
    stages = [v["showdown"]["stage"] for v in frames.views() if v.get("showdown")]
    assert stages.index("countdown") < stages.index("go") < stages.index("decided"), stages
    page.screenshot(path=str(SHOT))

    # The end of the round: Cy went out; Ann's hand by its cards, Bob's by points.
    page.locator("#winner").select_option("2")
    page.locator("#hand-0").fill("r5 G+2 W+4")
    page.locator("#hand-1").fill("X9")
    page.locator("#end-round").click()
    page.locator("#host-message.refused").wait_for()
    assert page.locator("#host-message").inner_text() == (
        "Bob's hand: invalid card 'X9': expected e.g. R5, B+2, YR, GS, W, W+4, WS or R7!2"
    )
    page.locator("#hand-1").fill("30")
    page.locator("#end-round").click()
    page.locator("#board tr[data-seat='2'] .points", has_text="105").wait_for()
    assert room.scores == [0, 0, 5 + 20 + 50 + 30]
    assert page.locator("#undo").inner_text() == "Undo: round 1: Cy won 105 points"

    # Undo, from the keyboard: the round is taken back, the showdown's entry stays.
    page.locator("#undo").focus()
    page.keyboard.press("Enter")
    page.locator("#undo", has_text="Undo: Bob took 3 cards").wait_for()
    assert page.locator("#board tr[data-seat='2'] .points").inner_text() == "0"
    assert page.locator("#log li").first.inner_text() == "Undone: round 1: Cy won 105 points."

    # Cy goes out with 250 points in the other hands: past the target, Cy wins.
    page.locator("#winner").select_option("2")
    page.locator("#total").fill("250")
    page.locator("#end-round").click()
    page.locator("#champion", has_text="Cy wins the match!").wait_for()
    assert page.locator("#announce").inner_text() == "Cy wins the match!"
    assert page.locator("#showdown-form").is_hidden()
    assert page.locator("#start").inner_text() == "Start a new match"
    assert room.phase == "match_over" and room.scores == [0, 0, 250]
    assert frames.errors == []


def test_the_companion_page_loads_light_and_fetches_nothing_from_elsewhere(browser, tmp_path):
    from engine.apps.table.companion import CompanionRoom
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        app = create_app(CompanionRoom(), display_page="companion.html")
        with served(app, sock):
            page = browser.new_page()
            responses: list = []
            page.on("response", lambda response: responses.append(response))
            page.goto(url)
            page.wait_for_load_state("networkidle")
            page.locator("#status", has_text="connected").wait_for()
            fetched = {r.url: len(r.body()) for r in responses}
            assert all(u.startswith(url) for u in fetched), fetched
            assert sum(fetched.values()) < 150_000, fetched
            assert {u.rsplit("/", 1)[-1] for u in fetched} >= {
                "table.css",
                "common.js",
                "showdown.js",
                "companion.js",
            }
            page.close()


def test_the_companion_page_shows_its_lag_and_a_phone_hears_it_plays_with_real_cards(browser):
    """Issue 22: /phone on a companion table showed "unknown message type
    'ping'"; the companion page showed no lag."""
    from engine.apps.table.companion import CompanionRoom
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        app = create_app(CompanionRoom(), display_page="companion.html")
        with served(app, sock):
            page = browser.new_page()
            page.goto(url)
            expect(page.locator("#status")).to_have_text(re.compile(r"^connected · \d+ ms$"))
            phone = browser.new_page()
            phone.goto(f"{url}/phone")
            expect(phone.locator("#refused")).to_have_text(
                "this table plays with real cards: there is no hand to hold on a phone"
            )
            page.close()
            phone.close()
