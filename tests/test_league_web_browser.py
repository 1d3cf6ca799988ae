"""The league's pages in a real Chromium (Playwright on Debian's Chromium), fed by
the real chain: results an uplink publishes to a real broker (mosquitto), the
ingest, a real Store (SQLite), the server as ``showdown league`` serves it. The
standings page on a phone (390x844) and a venue TV (1920x1080) shows them and
updates live, without a reload, when more arrive; the units page shows each
unit's state. Both fit every phone from 320 to 430 px (no sideways scroll, long
names ellipsed with a title: tests/layout_checks.py). Screenshots go to
docs/screenshots/league-*.png."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.league.ingest import Broker, Ingest
from engine.league.store_open import open_store
from engine.league.web import Changes, create_app
from tests.layout_checks import LAYOUT_PROBLEMS, long_name
from tests.league_server_helpers import Uplink, showdown, status, wait_for
from tests.screenshots import SHOTS
from tests.table_helpers import free_port, served

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PHONE = {"width": 390, "height": 844}
TV = {"width": 1920, "height": 1080}
PHONE_WIDTHS = (320, 360, 390, 430)
#: The texts that must never be cut without an ellipsis and a title.
NAMES = ".standings .who, #units td.name"
WHO = ".standings .who"


@pytest.fixture
def league(mosquitto, tmp_path):
    """(uplink, page URL): the ingest and the pages on one store, a test uplink."""
    store = open_store(f"sqlite:{tmp_path / 'league.sqlite3'}")
    changes = Changes()
    ingest = Ingest(
        store,
        Broker(mosquitto.host, mosquitto.port),
        on_change=changes.notify,
        on_connected=changes.broker_link,
    )
    ingest.start()
    uplink = Uplink(mosquitto.host, mosquitto.port)
    try:
        with free_port() as (sock, url), served(create_app(store, changes), sock):
            yield uplink, url
    finally:
        uplink.close()
        ingest.stop()
        store.close()


def publish(uplink: Uplink, messages: list[dict]) -> None:
    for message in messages:
        uplink.publish(message)
    ids = {m["id"] for m in messages}
    wait_for(lambda: ids <= set(uplink.stored()), "the results acked")


def first_results() -> list[dict]:
    return [
        showdown("unit-1", 1),
        showdown("unit-1", 2, reactions=(250_000, 290_000)),
        showdown("unit-2", 3, a=long_name(0), b="Bob", reactions=(199_000, 305_000)),
        showdown("unit-2", 4, b="Robo", bots=("b",), reactions=(240_000, 180_000), winner="b"),
    ]


def problems(page, width: int, height: int) -> list[str]:
    page.set_viewport_size({"width": width, "height": height})
    return page.evaluate(LAYOUT_PROBLEMS, NAMES)


def test_the_standings_update_live_on_a_phone_and_a_tv(browser, league):
    uplink, url = league
    publish(uplink, first_results())
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    tv = browser.new_context(viewport=TV).new_page()
    errors: list[str] = []
    for page in (phone, tv):
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{url}/")
        page.locator("#status", has_text="live").wait_for()
        page.locator("#standings tbody tr").nth(2).wait_for()
    names = phone.locator(WHO).all_inner_texts()
    assert names == ["Ann", long_name(0), "Bob"]  # people only: Robo the bot is apart
    assert phone.locator(f"{WHO}[title='{long_name(0)}']").count() == 1
    # more results arrive: both pages show them without a reload
    publish(
        uplink,
        [showdown("unit-3", n, a="Dee", b="Ann", reactions=(170_000, 260_000)) for n in (5, 6, 7)],
    )
    for page in (phone, tv):
        page.locator(f"{WHO} >> nth=0", has_text="Dee").wait_for()
        page.locator("#recent li", has_text="Dee beat Ann").first.wait_for()
    row = tv.locator("#standings tbody tr").first.locator("td").all_inner_texts()
    assert row == ["1", "Dee", "3", "0", "3", "0", "170 ms", "170 ms", "0", "0"]
    found = {f"phone {w}": problems(phone, w, 844) for w in PHONE_WIDTHS}
    phone.set_viewport_size(PHONE)
    phone.screenshot(path=str(SHOTS / "league-standings-phone-390x844.png"), full_page=True)
    found["tv"] = problems(tv, TV["width"], TV["height"])
    tv.screenshot(path=str(SHOTS / "league-standings-tv-1920x1080.png"))
    assert found == {key: [] for key in found}
    assert errors == []


def test_the_filters_show_the_bots_apart_and_keep_to_the_url(browser, league):
    uplink, url = league
    publish(uplink, first_results())
    page = browser.new_context(viewport=TV).new_page()
    page.goto(f"{url}/")
    page.locator("#standings tbody tr").nth(2).wait_for()
    page.locator("#players").select_option("bots")
    page.locator(f"{WHO}", has_text="Robo").wait_for()
    assert page.locator(WHO).all_inner_texts() == ["Robo"]
    assert page.url.endswith("/?players=bots")
    page.goto(f"{url}/?players=all&venue=bar-1")
    page.locator(f"{WHO}", has_text="Robo").wait_for()
    assert page.locator("#venue").input_value() == "bar-1"
    assert len(page.locator(WHO).all_inner_texts()) == 4


def test_the_units_page_shows_each_units_state_live(browser, league):
    uplink, url = league
    uplink.publish_status(status("unit-1", "online"))
    publish(uplink, first_results())
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    tv = browser.new_context(viewport=TV).new_page()
    for page in (phone, tv):
        page.goto(f"{url}/units")
        page.locator("#units tbody tr").nth(1).wait_for()
        page.locator("#units .state.online").wait_for()
    uplink.publish_status(
        {**status("unit-2", "fault"), "fault": "the journal cannot be read: disk I/O error"}
    )
    for page in (phone, tv):
        page.locator("tr[data-unit='bar-1/unit-2'] .state.fault").wait_for()
        page.locator("#figures dd", has_text="connected").wait_for()
    found = {f"phone {w}": problems(phone, w, 844) for w in PHONE_WIDTHS}
    phone.set_viewport_size(PHONE)
    phone.screenshot(path=str(SHOTS / "league-units-phone-390x844.png"), full_page=True)
    found["tv"] = problems(tv, TV["width"], TV["height"])
    tv.screenshot(path=str(SHOTS / "league-units-tv-1920x1080.png"))
    assert found == {key: [] for key in found}


def test_a_refusal_on_a_topic_naming_no_unit_is_listed_on_the_units_page(browser, league):
    uplink, url = league
    uplink.publish_raw("uno-showdown/v1/Bar 1/unit-1/result", b"{}")
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(f"{url}/units")
    page.locator("#topics li", has_text="1 × uno-showdown/v1/Bar 1/unit-1/result").wait_for()
    assert page.locator("#topics .why").inner_text().startswith("the topic's venue must be")
    found = {f"phone {w}": problems(page, w, 844) for w in PHONE_WIDTHS}
    assert found == {key: [] for key in found}
