"""The browser table in a real Chromium (Playwright on Debian's Chromium): a display
and two phones (mobile emulation, touch) with a bot play a Showdown round to its end
on a simulated unit; no hand of one phone ever reaches the display or the other
phone, in the page or on the wire; illegal taps are refused with a message; a phone
reopened in the same browser rejoins its seat. Screenshots go to docs/screenshots/.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.table_helpers import Frames, card_lists, free_port, has_key, served, tapped

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "docs" / "screenshots"
STATIC = ROOT / "engine" / "apps" / "table" / "static"
PHONE = "Pixel 5"  # is_mobile, has_touch, a phone's viewport


# -- helpers ------------------------------------------------------------------------------


def open_phone(context, url: str, frames: Frames | None = None):
    """A phone page at /phone; its frames go to ``frames`` (a new Frames if None)."""
    page = context.new_page()
    if frames is None:
        frames = Frames(page)
    else:
        frames.watch(page)
    page.goto(f"{url}/phone")
    return page, frames


def hand_of(page) -> list[str]:
    return page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")


def take_turn(page) -> bool:
    """Tap the first thing the page offers: a colour in the chooser, a playable
    card (saying UNO first when the page offers it), an action, a catch. False
    when there is nothing, or when it went away before the tap (a new view)."""
    chooser = page.locator("#chooser:not([hidden]) button")
    if chooser.count():
        return tapped(chooser.first)
    card = page.locator("#hand button.legal")
    if card.count():
        uno = page.locator("#uno")
        if uno.is_enabled() and uno.get_attribute("aria-pressed") == "false":
            tapped(uno)
        return tapped(card.first)
    for where in ("#actions button[data-action]", "#catches button[data-action]"):
        button = page.locator(where)
        if button.count():
            return tapped(button.first)
    return False


# -- the real server, in-process on a free port ------------------------------------------


@pytest.fixture
def table_url():
    """``showdown table``'s app (engine.apps.table.server) on a simulated unit, bots
    without pacing, served by uvicorn in a thread on a free loopback port."""
    from engine.apps.table.room import Room
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = Room(seats=4, rng=random.Random(5), code="TEST", join_url=f"{url}/phone")
        with served(create_app(room, pace_s=0, round_pause_s=60), sock):
            yield url


# -- the tests ------------------------------------------------------------------------------


def round_ended(frames: Frames) -> bool:
    return any(
        v.get("phase") in ("over", "match_over") or (v.get("round") or 1) > 1
        for v in frames.views()
    )


def wait_for_frame(page, frames: Frames, before: int) -> None:
    """Wait (up to 5 s) until ``page`` has received a frame after the first ``before``."""
    for _ in range(500):
        if len(frames.messages) > before:
            return
        page.wait_for_timeout(10)


def screenshots(display, phone) -> None:
    display.screenshot(path=str(SHOTS / "table-display.png"))
    phone.screenshot(path=str(SHOTS / "table-phone.png"))


def refused_shown(page, frames: Frames, msg_id) -> str:
    """The message of the last refusal ``page`` received (with ``msg_id`` unless
    None), once the page shows exactly it."""
    page.locator("#refused").wait_for(state="visible")
    refusals = [m for m in frames.messages if m.get("type") == "refused"]
    if msg_id is not None:
        refusals = [m for m in refusals if m.get("id") == msg_id]
    assert refusals, frames.messages[-3:]
    message = refusals[-1]["message"]
    assert page.locator("#refused").inner_text() == message
    return message


def join(page, seat: int, name: str) -> None:
    page.locator(f"#free-seats button[data-seat='{seat}']").tap()
    page.locator("#name").fill(name)
    page.locator("#join-button").tap()
    page.locator("#game").wait_for(state="visible")


def test_a_display_two_phones_and_a_bot_play_a_showdown_round_and_no_hand_leaks(
    browser, playwright, table_url
):
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone = playwright.devices[PHONE]
    display_context = browser.new_context(viewport={"width": 1920, "height": 1080})
    display = display_context.new_page()
    display_frames = Frames(display)
    display.goto(table_url)
    context_a = browser.new_context(**phone)
    context_b = browser.new_context(**phone)
    ann, ann_frames = open_phone(context_a, table_url)
    bob, bob_frames = open_phone(context_b, table_url)

    join(ann, 0, "Ann")
    join(bob, 1, "Bob")
    display.locator("#bots").fill("1")
    display.locator("#variant").select_option("showdown")
    display.locator("#start").click()
    display.locator("#top [data-card]").wait_for()
    ann.locator("#hand [data-card]").first.wait_for()

    # Readable from the chairs (at least 48 px at 1080p), said to screen readers,
    # and every card on a phone is a button (keyboard, switch access).
    for selector in ("#turn", "#seats li", "#top .card"):
        size = display.locator(selector).first.evaluate("e => getComputedStyle(e).fontSize")
        assert float(size.removesuffix("px")) >= 48, (selector, size)
    assert display.locator("#announce").inner_text() == display.locator("#turn").inner_text()
    assert set(ann.locator("#hand [data-card]").evaluate_all("l => l.map(e => e.tagName)")) == {
        "BUTTON"
    }

    # A card Ann does not hold, sent over her socket: refused, the server's words shown.
    absent = next(c for c in ("R0", "Y0", "G0", "B0", "R9") if c not in hand_of(ann))
    ann.evaluate(f"window.tableLink.send({{type: 'act', action: '{absent}', id: 999}})")
    assert refused_shown(ann, ann_frames, 999)
    # A tap on a card not marked playable: refused too (out of turn or not legal).
    for page, frames in ((ann, ann_frames), (bob, bob_frames)):
        unmarked = page.locator("#hand button.card:not(.legal)")
        if unmarked.count():
            before = len(frames.messages)
            unmarked.first.tap()
            wait_for_frame(page, frames, before)
            assert refused_shown(page, frames, None)
            break
    else:
        pytest.fail("no phone shows a card that is not playable")

    hands_seen: list[list[str]] = []
    rejoined = shot = False
    for _ in range(800):
        if round_ended(display_frames):
            break
        hands_seen.append(sorted(hand_of(ann)))
        if not rejoined and len(hands_seen) > 6:
            # Close Ann's page; a new page in the same browser (same localStorage)
            # rejoins her seat, and she plays on from it.
            ann.close()
            ann, ann_frames = open_phone(context_a, table_url, ann_frames)
            ann.locator("#hand [data-card]").first.wait_for()
            assert ann.locator("#me").inner_text() == "Ann"
            assert ann.locator("#join").is_hidden()
            assert [v["you"]["seat"] for v in ann_frames.views()[-1:]] == [0]
            # A socket that drops: the page reconnects by itself, says hello with
            # its secret and gets its seat and hand back.
            before = len(ann_frames.messages)
            ann.evaluate("window.tableLink.socket.close()")
            wait_for_frame(ann, ann_frames, before)
            ann.locator("#status", has_text="connected").wait_for()
            assert ann_frames.messages[before]["type"] == "welcome"
            assert ann_frames.messages[before]["seat"] == 0
            rejoined = True
            continue
        if not shot:
            # The display with a verdict up, the phone whose turn it is.
            playing = [p for p in (ann, bob) if p.locator("#hand button.legal").count()]
            if playing and (display.locator(".verdict").count() or len(hands_seen) > 60):
                screenshots(display, playing[0])
                shot = True
        for page, frames in ((ann, ann_frames), (bob, bob_frames)):
            before = len(frames.messages)
            if take_turn(page):
                wait_for_frame(page, frames, before)
                break
        else:
            display.wait_for_timeout(20)
    else:
        pytest.fail("the round did not end in 800 steps")
    assert rejoined
    if not shot:
        screenshots(display, ann)

    # Nothing of Ann's hand reached the display or Bob: no "you" but Bob's own, no
    # list of cards equal to a hand Ann held, and on the display's page no card
    # outside the discard pile.
    ann_hands = {tuple(hand) for hand in hands_seen if len(hand) >= 2}
    for who, frames in (("display", display_frames), ("Bob", bob_frames)):
        assert frames.views(), who
        for view in frames.views():
            you = view.get("you")
            assert you is None or (who == "Bob" and you["seat"] == 1), (who, you)
            for cards in card_lists({k: v for k, v in view.items() if k != "you"}):
                assert tuple(cards) not in ann_hands, (who, cards)
    for view in display_frames.views():
        assert view.get("you") is None and not has_key(view, "hand"), view
    # Every tap during the round was taken: the only refusals are the two above
    # (a page reopened starts new action ids that the server has not seen).
    refusals = [m for m in ann_frames.messages + bob_frames.messages if m["type"] == "refused"]
    assert len(refusals) == 2, refusals
    assert display_frames.errors == ann_frames.errors == bob_frames.errors == []
    assert display.locator("[data-card]").count() == display.locator("#top [data-card]").count()


def test_a_page_load_weighs_well_under_150_kb_and_fetches_nothing_from_elsewhere(
    browser, table_url
):
    for path in ("/", "/phone"):
        page = browser.new_page()
        responses: list = []
        page.on("response", lambda response, responses=responses: responses.append(response))
        page.goto(f"{table_url}{path}")
        page.wait_for_load_state("networkidle")
        fetched = {r.url: len(r.body()) for r in responses}
        assert all(url.startswith(table_url) for url in fetched), fetched
        assert sum(fetched.values()) < 150_000, fetched
        assert {url.rsplit("/", 1)[-1] for url in fetched} >= (
            {"table.css", "common.js", "display.js", "qr.svg"}
            if path == "/"
            else {"table.css", "common.js", "phone.js"}
        )
        page.close()
