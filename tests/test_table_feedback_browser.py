"""Turn and moment feedback in a real Chromium (feedback.js, issue 22): the phone whose
turn it is lights up, buzzes and chimes once (navigator.vibrate and AudioContext are
stubbed by an init script that records the calls); a muted phone only lights up, and
its switch is remembered; a draw puts "+N" beside the drawer on the other phones; the display shows a winner banner at a match's and a round's
end, over the last showdown, and clears it when the next round is dealt."""

from __future__ import annotations

import random

import pytest

from tests.layout_checks import CODE, HOST_KEY, room_at
from tests.screenshots import SHOTS
from tests.table_helpers import free_port, served

pytestmark = pytest.mark.slow


#: Records each buzz and each tone started instead of making them.
STUBS = """
window.testFeedback = { vibrate: [], tones: 0 };
navigator.vibrate = (pattern) => { window.testFeedback.vibrate.push(pattern); return true; };
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.state = "running"; this.destination = {}; }
  resume() { return Promise.resolve(); }
  createOscillator() {
    return { frequency: {}, connect: (next) => next, stop() {},
      start() { window.testFeedback.tones += 1; } };
  }
  createGain() {
    return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (next) => next };
  }
};
"""


def phone_of(browser, url: str, seat: int, muted: bool | None = None):
    context = browser.new_context(
        is_mobile=True, has_touch=True, viewport={"width": 390, "height": 800}
    )
    context.add_init_script(STUBS)
    script = f"localStorage.setItem('uno-showdown.secret', 'secret-{seat}');"
    if muted is not None:
        # once: a reload must find what the switch stored
        script += (
            "if (localStorage.getItem('uno-showdown.mute') === null) "
            f"localStorage.setItem('uno-showdown.mute', '{int(muted)}');"
        )
    context.add_init_script(script)
    page = context.new_page()
    page.goto(f"{url}/phone")
    page.locator("#game").wait_for(state="visible")
    return context, page


def test_the_phone_whose_turn_it_is_lights_buzzes_and_chimes_unless_muted(browser):
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = room_at(url, 2, "classic")
        mine = room.game.to_act
        with served(create_app(room, pace_s=60, round_pause_s=60), sock):
            context, page = phone_of(browser, url, mine)
            page.locator("body.your-turn").wait_for()
            fired = page.evaluate("window.testFeedback")
            assert len(fired["vibrate"]) == 1 and fired["tones"] == 2
            page.screenshot(path=str(SHOTS / "feedback-phone-turn.png"))
            assert page.locator("#mute-turn").get_attribute("aria-pressed") == "false"
            context.close()

            context, other = phone_of(browser, url, 1 - mine)
            other.locator("#turn").filter(has_text="turn").wait_for()
            assert "your-turn" not in (other.locator("body").get_attribute("class") or "")
            assert other.evaluate("window.testFeedback") == {"vibrate": [], "tones": 0}
            context.close()

            context, page = phone_of(browser, url, mine, muted=True)
            page.locator("body.your-turn").wait_for()  # muted: still lit, but silent and still
            assert page.evaluate("window.testFeedback") == {"vibrate": [], "tones": 0}
            switch = page.locator("#mute-turn")
            assert switch.get_attribute("aria-pressed") == "true"
            switch.tap()
            assert page.evaluate("localStorage.getItem('uno-showdown.mute')") == "0"
            page.reload()
            page.locator("body.your-turn").wait_for()
            assert page.locator("#mute-turn").get_attribute("aria-pressed") == "false"
            assert len(page.evaluate("window.testFeedback")["vibrate"]) == 1
            context.close()


def test_a_draw_shows_plus_n_beside_the_drawer_on_the_other_phones(browser):
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = room_at(url, 2, "classic")
        mine = room.game.to_act
        with served(create_app(room, pace_s=60, round_pause_s=60), sock):
            drawer_context, drawer = phone_of(browser, url, mine)
            watcher_context, watcher = phone_of(browser, url, 1 - mine)
            beside = watcher.locator("#others li").filter(has_text=room.seats[mine].name[:12])
            beside.wait_for()
            assert beside.locator(".badge.plus").count() == 0  # nobody has drawn yet
            drawer.locator("#actions button[data-action=draw]").tap()
            beside.locator(".badge.plus").filter(has_text="+1").wait_for()
            assert room.seats[mine].drew == 1  # the server's count, not a guess from the cards
            watcher.screenshot(path=str(SHOTS / "feedback-phone-plus.png"))
            drawer_context.close()
            watcher_context.close()


def start(display, target: int) -> None:
    display.locator("#bots").fill("1")
    display.locator("#variant").select_option("classic")
    display.locator("#target-input").fill(str(target))
    display.locator("#start").click()


def test_a_winner_banner_at_the_match_and_round_end_cleared_for_the_next_round(browser):
    from engine.apps.table.room import Room
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = Room(
            seats=2, rng=random.Random(8), code=CODE, join_url=f"{url}/phone", host_key=HOST_KEY
        )
        with served(create_app(room, pace_s=0.02, round_pause_s=60), sock):
            display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
            display.goto(f"{url}/#host={HOST_KEY}")
            phone = browser.new_context(is_mobile=True, has_touch=True).new_page()
            phone.goto(f"{url}/phone?code={CODE}")
            phone.locator("#free-seats button[data-seat='0']").tap()
            phone.locator("#name").fill("Ann")
            phone.locator("#join-button").tap()
            phone.locator("#game").wait_for(state="visible")
            banner = display.locator("#winner")
            start(display, target=50)  # the form's least: a round or a few
            display.locator("[data-key=seat-0]").click()  # a bot plays Ann's hand
            for _ in range(50):
                banner.filter(has_text="win").wait_for()
                # the banner replaces the last showdown's reveal
                assert display.locator("#showdown-body").is_hidden()
                title = banner.locator(".winner-title").inner_text()
                if title.endswith("the match!"):
                    break
                assert title.endswith(f"wins round {room.game.round}"), title
                display.locator("[data-key=next_round]").click()
                banner.wait_for(state="hidden")  # cleared for the next round
            winner = max(range(2), key=lambda n: room.game.scores[n])
            assert title == f"{room.seats[winner].name} wins the match!"
            on_phone = phone.locator("#winner .winner-title")
            on_phone.filter(has_text="the match!").wait_for()
            assert on_phone.inner_text() == ("You win the match!" if winner == 0 else title)
            scores = banner.locator(".winner-scores li").all_inner_texts()
            assert len(scores) == 2 and str(max(room.game.scores)) in scores[0]
            display.screenshot(path=str(SHOTS / "winner-banner-display.png"))
            phone.screenshot(path=str(SHOTS / "winner-banner-phone.png"))

            start(display, target=500)  # a new match: the banner goes
            banner.wait_for(state="hidden")
