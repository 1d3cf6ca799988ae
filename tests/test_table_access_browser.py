"""Who may do what at the table, in a real Chromium (Playwright): the display
opened from the host URL is the host (its controls, the room code, the host URL
as a QR), any other display a spectator with no host controls whose crafted host
messages are refused in words; a new host key turns the host's display into a
spectator at once; the key and the room code reach no phone and no spectator in
any frame; a phone joins with the code from its URL, or typed, and a wrong code
is refused; the host frees and moves seats with the keyboard; the unit panel
presses only with the key carried on from the host's display; the companion's
spectators see the score without controls. Pages at 1920x1080 and 360x740;
screenshots go to docs/screenshots/table-access-*.png.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.screenshots import SHOTS
from tests.table_helpers import Frames, free_port, served

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
KEY = "host-key-for-the-browser-test"
CODE = "QXZW"
TV = {"width": 1920, "height": 1080}
SMALL = {"width": 360, "height": 740}
HOST_ONLY = (
    "host controls need the host's key: open the host URL printed where the table was started"
)


class Table:
    """The table's app with the simulated unit's panel, served on a free port."""

    def __init__(self, room, **options):
        from engine.apps.table.panel import UnitPanel
        from engine.apps.table.server import create_app

        self.room = room
        self.panel = UnitPanel(gate=room.host_gate)
        self.app = create_app(room, pace_s=0, round_pause_s=60, addons=[self.panel], **options)

    def on_loop(self, function, *args):
        """Run ``function`` on the server's event loop (the room's thread); its result."""

        async def call():
            return function(*args)

        future = asyncio.run_coroutine_threadsafe(call(), self.app.state.loop)
        return future.result(5)


@pytest.fixture
def table():
    from engine.apps.table.room import Room

    with free_port() as (sock, url):
        room = Room(
            seats=4,
            rng=random.Random(5),
            code=CODE,
            join_url=f"{url}/phone",
            base_url=url,
            host_key=KEY,
        )
        served_table = Table(room)
        served_table.url = url
        with served(served_table.app, sock):
            yield served_table


def page_at(browser, url: str, viewport=TV, **context):
    page = browser.new_context(viewport=viewport, **context).new_page()
    frames = Frames(page)
    page.goto(url)
    page.locator("#status", has_text="connected").wait_for()
    return page, frames


def join(page, seat: int, name: str) -> None:
    page.locator(f"#free-seats button[data-seat='{seat}']").click()
    page.locator("#name").fill(name)
    page.locator("#join-button").click()


def frames_text(frames: Frames) -> str:
    return json.dumps(frames.messages)


def test_the_host_has_the_controls_and_a_spectator_none_and_its_host_messages_are_refused(
    browser, table
):
    host, host_frames = page_at(browser, f"{table.url}/#host={KEY}")
    spectator, spectator_frames = page_at(browser, table.url)
    # The host: its controls, the room code, the join QR and the host QR as data: images.
    expect(host.locator("#host")).to_be_visible()
    expect(host.locator("#spectator")).to_be_hidden()
    expect(host.locator("#room")).to_have_text(CODE)
    expect(host.locator("#join-url")).to_have_text(f"{table.url}/phone?code={CODE}")
    assert host.locator("#join-qr").get_attribute("src").startswith("data:image/svg+xml")
    host.screenshot(path=str(SHOTS / "table-access-host.png"), full_page=True)
    expect(host.locator("#host-qr")).to_be_hidden()  # folded until the host opens it
    host.locator("#host-link summary").click()
    expect(host.locator("#host-url")).to_have_text(f"{table.url}/#host={KEY}")
    assert host.locator("#host-qr").get_attribute("src").startswith("data:image/svg+xml")
    assert host.locator("#panel-link").get_attribute("href") == f"/panel#host={KEY}"
    # The spectator: no host controls drawn, no room code, the code-less join QR.
    expect(spectator.locator("#host")).to_be_hidden()
    expect(spectator.locator("#spectator")).to_be_visible()
    expect(spectator.locator("#room-line")).to_be_hidden()
    expect(spectator.locator("#room")).to_have_text("")
    expect(spectator.locator("#room-note")).to_be_visible()
    expect(spectator.locator("#join-url")).to_have_text(f"{table.url}/phone")
    assert spectator.locator("#join-qr").get_attribute("src") == "/qr.svg"
    assert spectator.locator("#host button:visible, #host input:visible").count() == 0
    assert spectator.locator("#panel-link").get_attribute("href") == "/panel"
    spectator.screenshot(path=str(SHOTS / "table-access-spectator.png"))
    # A host message crafted on the spectator's socket: refused in words, shown.
    spectator.evaluate("window.tableLink.send({type: 'host', cmd: 'start', bots: 3, id: 7})")
    expect(spectator.locator("#spectator-message")).to_have_text(HOST_ONLY)
    assert {"type": "refused", "id": 7, "message": HOST_ONLY} in spectator_frames.messages
    assert table.room.match is None
    for page in (host, spectator):  # and at a phone's size, nothing runs off the side
        page.set_viewport_size(SMALL)
        assert page.evaluate("document.documentElement.scrollWidth") <= SMALL["width"]
    host.screenshot(path=str(SHOTS / "table-access-host-small.png"), full_page=True)
    assert host_frames.errors == spectator_frames.errors == []


def test_a_new_host_key_makes_the_hosts_display_a_spectator_and_it_forgets_the_key(browser, table):
    host, frames = page_at(browser, f"{table.url}/#host={KEY}")
    expect(host.locator("#host")).to_be_visible()
    new = table.on_loop(table.room.new_host_key)
    expect(host.locator("#host")).to_be_hidden()
    expect(host.locator("#spectator-message")).to_have_text(
        "the host key was replaced: this display is a spectator now "
        "(open the new host URL printed where the table was started)"
    )
    assert host.evaluate("location.hash") == ""  # a reconnect tries no old key
    assert not any(c.host for c in table.room.connections)
    again, _ = page_at(browser, f"{table.url}/#host={new}")
    expect(again.locator("#host")).to_be_visible()
    assert frames.errors == []


def test_the_key_and_the_code_reach_no_phone_and_no_spectator_in_any_frame(
    browser, playwright, table
):
    host, host_frames = page_at(browser, f"{table.url}/#host={KEY}")
    _, spectator_frames = page_at(browser, table.url)
    phones = []
    for seat, name in ((0, "Ann"), (1, "Bob")):
        page, frames = page_at(
            browser, f"{table.url}/phone?code={CODE.lower()}", **playwright.devices["Pixel 5"]
        )
        join(page, seat, name)
        page.locator("#game").wait_for(state="visible")
        phones.append((page, frames))
    host.locator("#host-link summary").click()
    host.locator("#start").click()
    host.locator("#top [data-card]").wait_for()
    host.locator("#host-extra button[data-key='pause']").click()
    host.locator("#host-paused").wait_for(state="visible")
    table.on_loop(table.room.new_host_key)
    expect(host.locator("#host")).to_be_hidden()
    for frames in (spectator_frames, *(f for _, f in phones)):
        assert frames.messages
        for message in frames.messages:  # frame by frame
            text = json.dumps(message)
            assert KEY not in text and table.room.host_key not in text, message
            assert CODE not in text and "host_qr" not in text and "join_qr" not in text, message
            assert message.get("host") is not True, message
    assert KEY in frames_text(host_frames)  # the host's own welcome had it


def test_a_phone_joins_with_the_code_from_its_url_or_typed_and_a_wrong_code_is_refused(
    browser, playwright, table
):
    device = playwright.devices["Pixel 5"]
    scanned, _ = page_at(browser, f"{table.url}/phone?code={CODE}", **device)
    expect(scanned.locator("#code")).to_have_value(CODE)
    join(scanned, 0, "Ann")
    scanned.locator("#game").wait_for(state="visible")

    typed, frames = page_at(browser, f"{table.url}/phone", viewport=SMALL, has_touch=True)
    expect(typed.locator("#code")).to_have_value("")
    assert typed.evaluate("document.documentElement.scrollWidth") <= SMALL["width"]
    typed.locator("#code").fill("ABCD")
    join(typed, 1, "Bob")
    expect(typed.locator("#refused")).to_have_text("wrong room code: it is on the display")
    assert typed.evaluate("document.activeElement.id") == "code"
    typed.screenshot(path=str(SHOTS / "table-access-phone-code.png"))
    typed.locator("#code").fill(CODE.lower())
    typed.locator("#join-button").click()
    typed.locator("#game").wait_for(state="visible")
    assert [s.name for s in table.room.seats] == ["Ann", "Bob", None, None]
    assert typed.evaluate("document.documentElement.scrollWidth") <= SMALL["width"]
    assert frames.errors == []


def test_the_host_frees_and_moves_seats_with_the_keyboard_and_the_phone_is_told(
    browser, playwright, table
):
    host, host_frames = page_at(browser, f"{table.url}/#host={KEY}")
    device = playwright.devices["Pixel 5"]
    ann, ann_frames = page_at(browser, f"{table.url}/phone?code={CODE}", **device)
    join(ann, 0, "Ann")
    bob, _ = page_at(browser, f"{table.url}/phone?code={CODE}", **device)
    join(bob, 1, "Bob")
    host.locator("#seat-list li[data-seat='1']").wait_for()
    # Bob down to seat 3 with the keyboard: the focus stays on his button.
    host.locator("#seat-list button[data-key='down-Bob']").focus()
    host.keyboard.press("Enter")
    host.locator("#seat-list li[data-seat='2'] .seat-name", has_text="3. Bob").wait_for()
    assert host.evaluate("document.activeElement.dataset.key") == "down-Bob"
    assert [s.name for s in table.room.seats] == ["Ann", None, "Bob", None]
    expect(host.locator("#log li").first).to_have_text("The host moved Bob to seat 3.")
    # Ann's seat freed: her phone is told, and is back at the seats to pick.
    host.locator("#seat-list button[data-key='free-Ann']").focus()
    host.keyboard.press("Enter")
    expect(ann.locator("#refused")).to_have_text(
        "The host freed your seat: pick a seat again to play."
    )
    ann.locator("#join").wait_for(state="visible")
    expect(host.locator("#log li").first).to_have_text("The host freed seat 1 (Ann).")
    assert ann.evaluate("localStorage.getItem('uno-showdown.secret')") is None
    host.screenshot(path=str(SHOTS / "table-access-seats.png"), full_page=True)
    # Clear the lobby: asked twice.
    host.locator("#lobby-extra button[data-key='clear']").focus()
    host.keyboard.press("Enter")
    expect(host.locator("#lobby-extra button[data-key='clear']")).to_have_text(
        "Really free every seat?"
    )
    host.keyboard.press("Enter")
    expect(bob.locator("#refused")).to_have_text(
        "The host cleared the lobby: pick a seat again to play."
    )
    assert [s.kind for s in table.room.seats] == [None] * 4
    assert host_frames.errors == ann_frames.errors == []


def test_the_unit_panel_presses_only_with_the_key_carried_on_from_the_hosts_display(browser, table):
    from engine.apps.table.panel import PANEL_HOST_ONLY, SIM_PRESS_TEXT

    host, _ = page_at(browser, f"{table.url}/#host={KEY}")
    host.locator("#panel-link").click()
    host.wait_for_url(f"{table.url}/panel#host={KEY}")
    host.locator("#status", has_text="connected").wait_for()
    expect(host.locator("#watch-note")).to_be_hidden()
    host.locator("#paddle-a").click()
    expect(host.locator("#refused")).to_have_text(SIM_PRESS_TEXT)  # the host may press

    watcher, frames = page_at(browser, f"{table.url}/panel")
    expect(watcher.locator("#watch-note")).to_be_visible()
    watcher.locator("#timer").click()
    expect(watcher.locator("#refused")).to_have_text(PANEL_HOST_ONLY)
    assert {"type": "refused", "id": None, "message": PANEL_HOST_ONLY} in frames.messages
    assert KEY not in frames_text(frames)
    assert frames.errors == []


def test_the_companions_spectators_see_the_score_without_host_controls(browser):
    from engine.apps.table.companion import CompanionRoom
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = CompanionRoom(rng=random.Random(3), host_key=KEY, base_url=url)
        app = create_app(room, pace_s=0, display_page="companion.html")
        with served(app, sock):
            host, _ = page_at(browser, f"{url}/#host={KEY}")
            spectator, frames = page_at(browser, url)
            expect(host.locator("#host")).to_be_visible()
            host.locator("#players").fill("Ann\nBob")
            host.locator("#start").click()
            expect(spectator.locator("#board tr")).to_have_count(2)
            expect(spectator.locator("#host")).to_be_hidden()
            expect(spectator.locator("#spectator")).to_be_visible()
            spectator.evaluate("window.tableLink.send({type: 'host', cmd: 'end'})")
            expect(spectator.locator("#spectator-message")).to_have_text(HOST_ONLY)
            assert room.started and KEY not in frames_text(frames)
            spectator.screenshot(path=str(SHOTS / "table-access-companion-spectator.png"))
            assert frames.errors == []
