"""The Pitch scorekeeper in a real Chromium (Playwright on Debian's Chromium): the
host's page names the four players and starts a match to 52, enters three hands
(one by the point cards, one a set), has a bad entry refused in the server's
words, undoes the last hand, and a spectator's page follows the scores. The
screenshots docs/screenshots/pitch_scorekeeper_*.png come from this test: a
phone (390x844) and a TV (1920x1080)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.screenshots import SHOTS
from tests.table_helpers import Frames, free_port, served

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def scorekeeper(tmp_path):
    """The scorekeeper's table served on a free port: (url, room)."""
    from engine.apps.table.companion_pitch import PitchCompanionRoom
    from engine.apps.table.server import create_app

    room = PitchCompanionRoom(code="PTCH", save=tmp_path / "pitch.json", host_key="pitch-key")
    with free_port() as (sock, url), served(create_app(room, display_page=room.PAGE), sock):
        yield url, room


def start(page, names=("Ann", "Bob", "Cy", "Dee"), house_rules=()):
    for n, name in enumerate(names):
        page.locator(f"#p{n}").fill(name)
    if house_rules:
        page.locator(".house-rules summary").click()
        for rule in house_rules:
            page.locator(f".house input[data-rule='{rule}']").check()
    page.locator("#first-dealer").select_option("3")  # Dee deals first
    page.locator("#start").click()
    page.locator("#hand-form").wait_for()


def enter_numbers(page, pitcher, bid, a, b):
    page.locator("#pitcher").select_option(str(pitcher))
    page.locator(f"#bids label[data-bid='{bid}']").click()
    page.locator("#modes label", has_text="As two numbers").click()
    page.locator("#took-0").fill(str(a))
    page.locator("#took-1").fill(str(b))
    page.locator("#score-hand").click()


def scores(page):
    return [page.locator(f".team[data-team='{t}'] .team-score").inner_text() for t in (0, 1)]


def test_the_host_enters_three_hands_a_set_and_an_undo_on_a_phone(browser, scorekeeper):
    url, room = scorekeeper
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    frames = Frames(page)
    page.goto(f"{url}/#host=pitch-key")
    page.locator("#status", has_text="connected").wait_for()
    start(page, house_rules=["low"])  # low to holder: the 2 counts for who played it
    expect(page.locator("#next-hand")).to_have_text("Hand 1: Dee deals")
    assert page.locator("#house li").all_inner_texts() == [
        "the 2 counts for the team that played it"
    ]
    assert room.keeper.rules.low == "holder"
    assert page.locator(".team-name").all_inner_texts() == ["A Ann and Cy", "B Bob and Dee"]

    # Hand 1: Ann bids 5 and takes 7.
    enter_numbers(page, 0, 5, 7, 3)
    page.locator("#sheet tr[data-hand='1']").wait_for()
    assert scores(page) == ["7", "3"]
    expect(page.locator("#next-hand")).to_have_text("Hand 2: Ann deals")

    # A bad entry: 12 points in a hand, refused in the server's words; nothing scored.
    enter_numbers(page, 1, 6, 8, 4)
    expect(page.locator("#host-message.refused")).to_have_text(
        "Ann and Cy took 8 and Bob and Dee 4: 12 points, but a hand holds 10"
    )
    assert len(room.keeper.hands) == 1

    # Hand 2: Bob bids 6 and is set, ticked by the point cards (the 10 burned).
    page.locator("#pitcher").select_option("1")
    page.locator("#bids label[data-bid='6']").click()
    page.locator("#modes label", has_text="By the point cards").click()
    expect(page.locator("#point-cards tr[data-card='2'] .card-note")).to_have_text(
        "1 point, for the team that played it"
    )
    for key, team in {"A": 0, "J": 1, "OJ": 1, "HJ": 0, "LJ": 1, "T": "burned", "2": 0}.items():
        page.locator(f"#point-cards tr[data-card='{key}'] label[data-team='{team}']").tap()
    expect(page.locator("#cards-total")).to_have_text(
        "Ann and Cy 3 · Bob and Dee 3 · burned 1 · 1 card still to say"
    )
    page.locator("#point-cards tr[data-card='3'] label[data-team='0']").tap()
    expect(page.locator("#cards-total")).to_have_text("Ann and Cy 6 · Bob and Dee 3 · burned 1")
    page.locator("#bids").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "pitch_scorekeeper_phone_cards.png"))
    page.locator("#score-hand").click()
    page.locator("#sheet tr[data-hand='2'].set").wait_for()
    assert scores(page) == ["13", "−3"]

    # Hand 3: Cy bids 4 and makes it.
    enter_numbers(page, 2, 4, 6, 4)
    page.locator("#sheet tr[data-hand='3']").wait_for()
    assert scores(page) == ["19", "1"]
    assert page.locator("#sheet tr").count() == 3
    page.screenshot(path=str(SHOTS / "pitch_scorekeeper_phone.png"), full_page=True)

    # Undo the third hand: the scores go back, Cy's deal comes round again.
    expect(page.locator("#undo")).to_have_text("Undo hand 3 (Cy bid 4, made)")
    page.locator("#undo").click()
    expect(page.locator("#next-hand")).to_have_text("Hand 3: Bob deals")
    assert scores(page) == ["13", "−3"]
    assert page.locator("#log li").first.inner_text() == "Undone: hand 3 (Cy bid 4, made)."
    assert room.scores == (13, -3) and room.keeper.dealer == 1
    assert frames.errors == []
    context.close()


def test_a_tv_shows_the_match_and_a_spectator_follows_it(browser, scorekeeper):
    url, room = scorekeeper
    tv = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    frames = Frames(tv)
    tv.goto(f"{url}/#host=pitch-key")
    tv.locator("#status", has_text="connected").wait_for()
    start(tv, ("Ann", "Bob", "Cy", "Dee"))
    enter_numbers(tv, 0, 5, 7, 3)
    tv.locator("#sheet tr[data-hand='1']").wait_for()
    enter_numbers(tv, 1, 6, 5, 5)  # set
    tv.locator("#sheet tr[data-hand='2']").wait_for()
    enter_numbers(tv, 3, 4, 3, 7)
    tv.locator("#sheet tr[data-hand='3']").wait_for()
    size = tv.locator(".team-score").first.evaluate("e => getComputedStyle(e).fontSize")
    assert float(size.removesuffix("px")) >= 96  # read from across the room
    tv.screenshot(path=str(SHOTS / "pitch_scorekeeper_tv.png"))

    # A spectator's page: the scores, no host controls.
    watcher = tv.context.new_page()
    watcher.goto(url)
    watcher.locator(".team[data-team='1'] .team-score", has_text="4").wait_for()
    assert watcher.locator("#host").is_hidden() and watcher.locator("#spectator").is_visible()
    assert [
        watcher.locator(f".team[data-team='{t}'] .team-score").inner_text() for t in (0, 1)
    ] == [
        "15",
        "4",
    ]
    # The Moon made from 15: Ann and Cy win at once, on both pages.
    tv.locator("#pitcher").select_option("2")
    tv.locator("#bids label[data-bid='moon']").click()
    tv.locator("#took-0").fill("10")
    tv.locator("#took-1").fill("0")
    tv.locator("#score-hand").click()
    expect(tv.locator("#champion")).to_have_text("Ann and Cy win the match!")
    expect(watcher.locator("#champion")).to_have_text("Ann and Cy win the match!")
    assert tv.locator("#hand-form").is_hidden() and tv.locator("#start").is_visible()
    tv.screenshot(path=str(SHOTS / "pitch_scorekeeper_tv_won.png"))
    watcher.screenshot(path=str(SHOTS / "pitch_scorekeeper_tv_spectator.png"))
    assert room.phase == "match_over" and room.scores == (52, 4)
    assert frames.errors == []


def test_the_page_loads_light_under_its_policy_and_fetches_nothing_from_elsewhere(
    browser, scorekeeper
):
    url, _room = scorekeeper
    page = browser.new_page()
    responses: list = []
    console: list[str] = []
    page.on("response", lambda response: responses.append(response))
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else None)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.locator("#status", has_text="connected").wait_for()
    fetched = {r.url: len(r.body()) for r in responses}
    assert all(u.startswith(url) for u in fetched), fetched
    assert sum(fetched.values()) < 150_000, fetched
    assert {u.rsplit("/", 1)[-1] for u in fetched} >= {
        "table.css",
        "common.js",
        "scorekeeper.css",
        "scorekeeper.js",
    }
    assert console == []  # a style or script the policy refused would be logged here
    page.close()
