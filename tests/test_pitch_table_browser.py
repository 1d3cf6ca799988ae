"""10 Point Pitch at the browser table in a real Chromium (as test_table_browser.py):
a display and four phones; two people play, the host hands their partners' seats to
bots; a hand is played to its end. Every frame queued for every connection is checked
for hidden cards when it is queued (the game as it is then), and every frame each
page received: the display holds no hand, a phone only its own. Screenshots at TV
(1920x1080) and phone (390x844) sizes go to docs/screenshots/pitch_*.png."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.apps.table.room import Room
from tests.pitch_table_checks import cards_shown, hidden_shown, public_cards
from tests.screenshots import SHOTS
from tests.table_helpers import Frames, free_port, has_key, served, tapped

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
HOST_KEY = "the-host-key"
CODE = "TEST"
PEOPLE = ["Ann", "Bob", "Cy", "Di"]


class CheckedRoom(Room):
    """A room that checks each view it queues, for each connection, against the
    game as it is at that moment: the hidden cards any frame showed, noted."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.leaks: list[tuple[int | None, list[str]]] = []
        self.checked = 0

    def _queue_views(self) -> None:
        before = {id(conn): len(conn.outbox) for conn in self.connections}
        super()._queue_views()
        game = self.game
        if game is None or game.family != "pitch":
            return
        for conn in self.connections:
            for text in conn.outbox[before.get(id(conn), 0) :]:
                message = json.loads(text) if isinstance(text, str) else text
                self.checked += 1
                leaked = hidden_shown(game, conn.seat, message)
                if leaked:
                    self.leaks.append((conn.seat, sorted(leaked)))


@pytest.fixture
def table():
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = CheckedRoom(
            seats=4, rng=random.Random(8), code=CODE, join_url=f"{url}/phone", host_key=HOST_KEY
        )
        with served(create_app(room, pace_s=0, round_pause_s=60), sock):
            yield url, room


def phone_context(browser, playwright):
    device = dict(playwright.devices["Pixel 5"])
    device["viewport"] = {"width": 390, "height": 844}
    return browser.new_context(**device)


def join(page, url: str, seat: int, name: str) -> None:
    page.goto(f"{url}/phone?code={CODE}")
    page.locator(f"#free-seats button[data-seat='{seat}']").tap()
    page.locator("#name").fill(name)
    page.locator("#join-button").tap()
    page.locator("#game").wait_for(state="visible")


def take_turn(page, bid_high: bool) -> bool:
    """Tap what the phone offers: the highest bid short of the Moon (``bid_high``)
    or the first (pass, or the dealer's bid), a suit, keep, or a marked card (a
    burn, a play). Whether a tap was made."""
    for where in (
        "#actions .bids button[data-action]:not([data-action='bid moon'])",
        "#actions .suits button",
        "#actions button[data-action='keep']",
        "#hand button.legal",
    ):
        found = page.locator(where)
        if found.count():
            return tapped(found.last if bid_high and "bids" in where else found.first)
    return False


def hand_over(room) -> bool:
    game = room.game
    return game is not None and game.round_over


def shot(page, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"pitch_{name}.png"))


def test_two_people_and_two_bots_play_a_pitch_hand_and_no_frame_shows_a_hidden_card(
    browser, playwright, table
):
    url, room = table
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display_frames = Frames(display)
    display.goto(f"{url}/#host={HOST_KEY}")
    display.locator("#status", has_text="connected").wait_for()
    phones, frames = [], []
    for seat, name in enumerate(PEOPLE):
        page = phone_context(browser, playwright).new_page()
        frames.append(Frames(page))
        join(page, url, seat, name)
        phones.append(page)
    # The host chooses Pitch: its own house rules and bots on the form.
    display.locator("#variant").select_option("pitch")
    display.locator("#bots").fill("0")
    display.locator("details.house-rules summary").click()
    assert display.locator("#pitch-rules input[type=checkbox]").count() == 17
    assert display.locator("#target-input").input_value() == "52"
    assert display.locator("#bot-kind option").all_inner_texts() == [
        "bot (heuristic)",
        "random",
        "strong (search)",
    ]
    display.locator("#pr-low").check()  # the 2 scores for its holder
    display.locator("#host").screenshot(path=str(SHOTS / "pitch_host_form.png"))
    display.locator("#start").click()
    display.locator("#pitch .ptable").wait_for()
    assert str(room.game.rules) == "low=holder"
    # Cy and Di (Ann's and Bob's partners) are handed to bots: their phones watch.
    for seat in (2, 3):
        display.locator(f"#host-extra button[data-key='seat-{seat}']").click()
        display.locator(
            f"#host-extra button[data-key='seat-{seat}']", has_text="plays again"
        ).wait_for()
    people = phones[:2]
    for page in phones:
        page.locator("#hand [data-card]").first.wait_for()
    # Only legal bids are offered; a bid below the high bid, sent by hand, is refused in words.
    shots = {"bid": False, "play": False, "trump": False, "stock": False}
    refused = False
    for _ in range(600):
        if hand_over(room):
            break
        phase = room.game.phase.value
        for n, page in enumerate(people):
            if room.game.to_act != n:
                continue
            legal = [str(a) for a in room.game.legal_actions(n)]
            if phase == "bid" and not shots["bid"]:
                page.locator("#actions .bids button").first.wait_for()
                offered = page.locator("#actions .bids button").evaluate_all(
                    "l => l.map(e => e.dataset.action)"
                )
                assert offered == legal
                shot(page, "phone_bid")
                shots["bid"] = True
            if phase == "play" and not shots["play"] and page.locator("#hand button.legal").count():
                marked = page.locator("#hand button.legal").evaluate_all(
                    "l => l.map(e => e.dataset.card)"
                )
                assert sorted(f"play {c}" for c in marked) == sorted(legal)
                shot(page, "phone_play")
                shot(display, "display_play")
                shots["play"] = True
                if not refused and page.locator("#hand button.dead").count():
                    page.locator("#hand button.dead").first.tap()
                    page.locator("#refused").wait_for(state="visible")
                    assert "trump" in page.locator("#refused").inner_text()
                    refused = True
            for kind, where in (
                ("trump", "#actions .suits button"),
                ("stock", "#actions button[data-action='keep']"),
            ):
                if phase == kind and not shots[kind] and page.locator(where).count():
                    shot(page, f"phone_{kind}")
                    shot(display, f"display_{kind}")
                    shots[kind] = True
            if take_turn(page, bid_high=n == 0):  # Ann bids high, Bob passes
                page.wait_for_timeout(30)
        display.wait_for_timeout(20)
    else:
        pytest.fail("the hand did not end")
    display.locator(".pbanner").first.wait_for()
    shot(display, "display_over")
    shot(phones[0], "phone_over")
    assert shots["bid"] and shots["play"]
    game = room.game
    assert room.checked > 100 and room.leaks == [], room.leaks[:5]
    # What each page received: the display no hand, a phone its own seat's only, and no
    # card outside what was ever public this hand and the phone's own cards.
    public = public_cards(game)
    for view in display_frames.views():
        assert view["you"] is None and not has_key(view, "hand")
        assert cards_shown({"type": "view", "view": view}) <= public
    for seat, got in enumerate(frames):
        own = set(game.dealt(seat)) | set(game.drawn(seat))
        if game.stock_receiver == seat:
            own |= set(game.stock_cards)
        for view in got.views():
            assert view["you"] is None or view["you"]["seat"] == seat
            assert cards_shown({"type": "view", "view": view}) <= public | own
    assert all(f.errors == [] for f in [display_frames, *frames])


def test_the_hosts_choice_of_game_outlives_the_tables_first_view(browser):
    """The host picks Pitch after the welcome but before the table's first view reaches
    the page (a slow Wi-Fi, a loaded host): that view, naming the lobby's game, does not take the choice back."""
    import re

    from engine.apps.table.server import create_app

    room = Room(seats=4, rng=random.Random(2), code=CODE, host_key=HOST_KEY)
    with free_port() as (sock, url), served(create_app(room, pace_s=60), sock):
        page = browser.new_context().new_page()
        held: list = []
        routes: list = []
        holding = [True]

        def hold_the_servers_views(ws):
            routes.append(ws)

            def to_page(frame):
                if holding[0] and json.loads(frame)["type"] == "view":
                    held.append(frame)  # the welcome passes: it shows the host's form
                else:
                    ws.send(frame)

            ws.connect_to_server().on_message(to_page)

        page.route_web_socket(re.compile(r"/ws$"), hold_the_servers_views)
        page.goto(f"{url}/#host={HOST_KEY}")
        page.locator("#variant").select_option("pitch")
        while held:  # the held frames first, in order, then the rest as they come
            routes[0].send(held.pop(0))
        holding[0] = False
        page.locator("#seats li").first.wait_for()
        assert page.locator("#variant").input_value() == "pitch"
        assert page.locator("#pitch-rules").get_attribute("hidden") is None  # its rules shown
