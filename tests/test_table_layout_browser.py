"""The table's pages fit the screens they are read on (issue 22): the phone pages at
320-430 px wide, the display at 1920x1080, 1366x768 and 1280x720 with 2 to 16 seats
whose names are as long as the server allows. One browser; each page is loaded once
and measured at every size (the viewport is set per case)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.layout_checks import CODE, HOST_KEY, LAYOUT_PROBLEMS, OUT_OF_VIEW, room_at
from tests.screenshots import SHOTS
from tests.table_helpers import free_port, served

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PHONE_WIDTHS = (320, 360, 390, 430)
DISPLAYS = ((1920, 1080), (1366, 768), (1280, 720))
#: What the host presses in play: the buttons, and the fold of many seats' bot buttons.
HOST_CONTROLS = "#host-extra > button, #host-extra > details > summary"
#: The texts that must never be cut without an ellipsis and a title.
NAMES = "#seats .name, #seats .count, #others li, .scores td, .seat-name"


def problems_at(page, width: int, height: int, names: str = NAMES) -> list[str]:
    page.set_viewport_size({"width": width, "height": height})
    return page.evaluate(LAYOUT_PROBLEMS, names)


def test_the_phones_join_page_fits_every_phone(browser):
    from engine.apps.table.room import Room
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = Room(
            seats=4, rng=random.Random(1), code=CODE, join_url=f"{url}/phone", host_key=HOST_KEY
        )
        with served(create_app(room, pace_s=0, round_pause_s=60), sock):
            page = browser.new_context(is_mobile=True, has_touch=True).new_page()
            page.goto(f"{url}/phone?code={CODE}")
            page.locator("#join").wait_for(state="visible")
            found = {w: problems_at(page, w, 640) for w in PHONE_WIDTHS}
            page.set_viewport_size({"width": 320, "height": 640})
            page.screenshot(path=str(SHOTS / "layout-phone-join-320.png"))
            assert found == {w: [] for w in PHONE_WIDTHS}
            # every free seat's button wholly in view at 320 px
            assert page.evaluate(OUT_OF_VIEW, "#free-seats button") == []


@pytest.mark.parametrize("variant", ["showdown", "classic", "party"])
def test_the_display_and_a_phone_fit_from_2_to_16_seats(browser, variant):
    from engine.apps.table.server import create_app
    from engine.uno.rules import Variant

    found: dict[str, list[str]] = {}
    most = Variant.named(variant).max_players  # Showdown and classic seat 10, Party! 16
    for players in (2, 8, most):
        with free_port() as (sock, url):
            room = room_at(url, players, variant)
            with served(create_app(room, pace_s=60, round_pause_s=60), sock):
                context = browser.new_context()
                display = context.new_page()
                display.goto(f"{url}/#host={HOST_KEY}")
                display.locator("#seats li").nth(players - 1).wait_for()
                for width, height in DISPLAYS:
                    found[f"display {players} seats {width}x{height}"] = problems_at(
                        display, width, height
                    )
                    # The host's buttons in view (many seats' bot buttons folded).
                    out = display.evaluate(OUT_OF_VIEW, HOST_CONTROLS)
                    found[f"host buttons below the fold, {players} seats {width}x{height}"] = out
                if variant == "party" and players == 8:
                    display.set_viewport_size({"width": 1920, "height": 1080})
                    display.screenshot(path=str(SHOTS / "layout-display-party-8-1920x1080.png"))
                if variant == "party" and players == 16:
                    display.set_viewport_size({"width": 1280, "height": 720})
                    display.screenshot(path=str(SHOTS / "layout-display-16-1280x720.png"))
                phone_context = browser.new_context(is_mobile=True, has_touch=True)
                phone_context.add_init_script(
                    "localStorage.setItem('uno-showdown.secret', 'secret-0')"
                )
                phone = phone_context.new_page()
                phone.goto(f"{url}/phone")
                phone.locator("#game").wait_for(state="visible")
                for width in PHONE_WIDTHS:
                    found[f"phone {players} seats {width}"] = problems_at(phone, width, 740)
                context.close()
                phone_context.close()
    assert found == {key: [] for key in found}


def test_many_seats_bot_buttons_fold_under_one_line_that_stays_open(browser):
    """More than four people: the host's "A bot plays for X" buttons are folded
    after Pause and End match; opened, the fold stays open as the view changes."""
    from engine.apps.table.server import create_app
    from tests.layout_checks import long_name

    with free_port() as (sock, url):
        room = room_at(url, 8, "classic")
        with served(create_app(room, pace_s=60, round_pause_s=60), sock):
            display = browser.new_page(viewport={"width": 1280, "height": 720})
            display.goto(f"{url}/#host={HOST_KEY}")
            fold = display.locator("#host-extra > details.seat-fold")
            fold.locator("summary", has_text="Seats: a bot plays for…").wait_for()
            assert display.locator("#host-extra > button").all_inner_texts() == [
                "Pause",
                "End match",
            ]
            assert not fold.locator("button").first.is_visible()  # folded
            fold.locator("summary").click()
            fold.locator("button[data-key='seat-2']").click()
            name = long_name(2)
            display.locator("#seats li[data-seat='2'] .badge.bot", has_text="bot").wait_for()
            # Redrawn since (the view changed): still open, the seat's button turned.
            fold.locator("summary", has_text="Seats: a bot plays for 1").wait_for()
            again = fold.locator("button[data-key='seat-2']")
            assert again.inner_text() == f"{name} plays again"
            assert again.is_visible()
            again.click()
            fold.locator("summary", has_text="Seats: a bot plays for…").wait_for()
            display.close()


def test_the_companion_page_fits_from_1024x768_up(browser, tmp_path):
    from engine.apps.table.companion import CompanionRoom
    from engine.apps.table.server import create_app
    from tests.layout_checks import long_name

    with free_port() as (sock, url):
        room = CompanionRoom(code=CODE, save=tmp_path / "companion.json", host_key=HOST_KEY)
        with served(create_app(room, pace_s=0, display_page="companion.html"), sock):
            page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
            page.goto(f"{url}/#host={HOST_KEY}")
            page.locator("#status", has_text="connected").wait_for()
            page.locator("#players").fill("\n".join(long_name(n) for n in range(6)))
            page.locator("#start").click()
            page.locator("#board tr[data-seat='5']").wait_for()
            names = "#board td, .seat-name"
            found = {
                f"{w}x{h}": problems_at(page, w, h, names)
                for w, h in ((1024, 768), (1280, 800), (1366, 768), (1920, 1080))
            }
            page.set_viewport_size({"width": 1024, "height": 768})
            page.screenshot(path=str(SHOTS / "layout-companion-1024x768.png"))
            assert found == {key: [] for key in found}


def test_the_scorekeeper_fits_a_phone(browser, tmp_path):
    from engine.apps.table.companion_pitch import PitchCompanionRoom
    from engine.apps.table.server import create_app
    from tests.layout_checks import long_name

    room = PitchCompanionRoom(code=CODE, save=tmp_path / "pitch.json", host_key=HOST_KEY)
    with free_port() as (sock, url), served(create_app(room, display_page=room.PAGE), sock):
        page = browser.new_context(is_mobile=True, has_touch=True).new_page()
        page.set_viewport_size({"width": 320, "height": 640})
        page.goto(f"{url}/#host={HOST_KEY}")
        for n in range(4):
            page.locator(f"#p{n}").fill(long_name(n))
        page.locator("#start").click()
        page.locator("#hand-form").wait_for()
        found = {w: problems_at(page, w, 700, ".team-score, .seat-name") for w in PHONE_WIDTHS}
        assert found == {w: [] for w in PHONE_WIDTHS}


def test_pitch_fits_the_phones_and_the_display_at_4_seats(browser):
    from engine.apps.table.room import Room
    from engine.apps.table.server import create_app
    from tests.layout_checks import long_name

    with free_port() as (sock, url):
        room = Room(
            seats=4, rng=random.Random(2), code=CODE, join_url=f"{url}/phone", host_key=HOST_KEY
        )
        with served(create_app(room, pace_s=60, round_pause_s=60), sock):
            phones = []
            for seat in range(4):
                page = browser.new_context(is_mobile=True, has_touch=True).new_page()
                page.goto(f"{url}/phone?code={CODE}")
                page.locator(f"#free-seats button[data-seat='{seat}']").tap()
                page.locator("#name").fill(long_name(seat))
                page.locator("#join-button").tap()
                page.locator("#game").wait_for(state="visible")
                phones.append(page)
            display = browser.new_context().new_page()
            display.goto(f"{url}/#host={HOST_KEY}")
            display.locator("#variant").select_option("pitch")
            display.locator("#bots").fill("0")
            display.locator("#start").click()
            display.locator("body.pitch-mode:not([data-phase='lobby'])").wait_for()
            phones[0].locator("#pitch-phone:not([hidden])").wait_for()
            found = {f"phone {w}": problems_at(phones[0], w, 740) for w in PHONE_WIDTHS}
            for width, height in DISPLAYS:
                found[f"display {width}x{height}"] = problems_at(display, width, height)
            assert found == {key: [] for key in found}
