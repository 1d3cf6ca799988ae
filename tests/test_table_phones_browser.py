"""The whole table with ``--unit phones`` in a real Chromium: the table's own
server (as ``showdown table`` wires it: the phones' port, its hooks, the
history book), a display, two people's phones and a bot. A showdown between
the two people is fought on their phones, the faster tapper wins, and the
verdict (both reactions as the phones measured them) reaches the display's
panel, the log and the history page like any unit's; a showdown of a bot
against a person needs only that person's phone."""

from __future__ import annotations

import json
import random
import urllib.request

import pytest

from engine.apps.table.phone_port import PhonePaddles
from tests.table_helpers import Frames, free_port, served
from tests.test_table_browser import (
    CODE,
    COUNT_CLICKS,
    HOST_KEY,
    PHONE,
    answered,
    join,
    open_phone,
    take_turn,
)

pytestmark = pytest.mark.slow

#: How many ms after GO each person taps: Ann is the faster.
TAP_MS = {0: 210.0, 1: 430.0}


@pytest.fixture
def phones_table():
    """The table's app with the phones as paddles (short countdowns), its
    history book, served on a free loopback port; yields (url, room)."""
    from engine.apps.table.history_page import HistoryPage
    from engine.apps.table.room import Room
    from engine.apps.table.server import UnitHooks, create_app
    from engine.units.unit_history import HistoryBook

    hooks = UnitHooks()
    port = PhonePaddles(
        hooks.paddle,
        pace_rng=random.Random(4),
        bot_rng=random.Random(5),
        lead_s=0.4,
        step_s=0.2,
        hold_s=(0.2, 0.3),
        timeout_us=3_000_000,
        grace_s=3.0,
    )
    book = HistoryBook()
    with free_port() as (sock, url):
        room = Room(
            seats=4,
            rng=random.Random(5),
            code=CODE,
            join_url=f"{url}/phone",
            host_key=HOST_KEY,
            unit=book.recording(port),
        )
        room.paddles = port
        app = create_app(room, pace_s=0, round_pause_s=60, hooks=hooks, addons=[HistoryPage(book)])
        with served(app, sock):
            yield url, room


def tap_at(page, round_message: dict, reaction_ms: float) -> None:
    """Once this phone showed the round's GO, a tap stamped ``reaction_ms`` after it."""
    showdown_id, number = round_message["showdown_id"], round_message["round"]
    page.wait_for_function(
        "([id, n]) => { const r = window.tablePaddles.round;"
        " return r && r.showdown_id === id && r.round === n && r.shownGo !== null; }",
        arg=[showdown_id, number],
        timeout=10_000,
    )
    page.evaluate(
        "ms => window.tablePaddles.tap({ timeStamp: window.tablePaddles.round.shownGo + ms,"
        " preventDefault() {} })",
        reaction_ms,
    )


def of_type(frames: Frames, kind: str) -> list[dict]:
    return [m for m in frames.messages if m.get("type") == kind]


def test_showdowns_are_fought_on_the_peoples_phones_at_the_whole_table(
    browser, playwright, phones_table
):
    url, _ = phones_table
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display_frames = Frames(display)
    display.goto(f"{url}/#host={HOST_KEY}")
    phones = {}
    for seat, name in ((0, "Ann"), (1, "Bob")):
        page, frames = open_phone(browser.new_context(**playwright.devices[PHONE]), url)
        join(page, seat, name)
        phones[seat] = (page, frames)
    display.locator("#bots").fill("1")
    display.locator("#variant").select_option("showdown")
    display.locator("#start").click()
    for page, _ in phones.values():  # the welcome said paddles: the clocks are set
        page.wait_for_function("window.tablePaddles.samples.length >= 8", timeout=10_000)

    handled: set[tuple[str, int]] = set()
    fought: dict[str, set[int]] = {}  # showdown id -> the people in it
    decided: dict[str, dict] = {}  # showdown id -> its last paddle_result
    for _ in range(1500):
        both = [i for i, p in fought.items() if len(p) == 2 and i in decided]
        alone = [i for i, p in fought.items() if len(p) == 1 and i in decided]
        if both and alone:
            break
        if any(v.get("phase") in ("over", "match_over") for v in display_frames.views()[-1:]):
            break
        for message in of_type(display_frames, "paddle_result"):
            if message["kind"] == "decided":
                decided[message["showdown_id"]] = message
        new = [
            m
            for m in of_type(display_frames, "paddle_round")
            if (m["showdown_id"], m["round"]) not in handled
        ]
        if new:
            message = new[0]
            handled.add((message["showdown_id"], message["round"]))
            people = {p for p in message["players"] if p not in message["bots"]}
            assert people and people <= {0, 1}, message
            fought[message["showdown_id"]] = people
            if len(handled) == 1:  # the display's panel draws GO at the phones' instant
                display.locator("#showdown-body .go").wait_for(timeout=10_000)
            for seat in sorted(people, key=TAP_MS.__getitem__):
                tap_at(phones[seat][0], message, TAP_MS[seat])
            continue
        if any(i not in decided for i in fought):  # a round under way: wait for its end
            display.wait_for_timeout(20)
            continue
        for page, _ in phones.values():
            clicks = page.evaluate(COUNT_CLICKS)
            if taps := take_turn(page):
                answered(page, clicks, taps)
                break
        else:
            display.wait_for_timeout(20)
    assert both and alone, (fought, decided)

    # Ann against Bob: Ann tapped faster on her phone and won; both reactions are the phones'.
    ann_bob = decided[both[0]]
    assert ann_bob["loser"] == 1 and ann_bob["reaction_us"] == {"0": 210_000, "1": 430_000}
    # A bot against a person: the person's reaction is their phone's, the bot's its own press.
    person = next(iter(fought[alone[0]]))
    assert decided[alone[0]]["reaction_us"][str(person)] == round(TAP_MS[person] * 1000)

    # The verdict reached the display's panel, the log and the history like any unit's.
    verdicts = [
        v["showdown"]
        for v in display_frames.views()
        if v.get("showdown") and v["showdown"].get("stage") == "decided"
    ]
    ann_won = [s for s in verdicts if {s["challenger"], s["opponent"]} == {0, 1}]
    assert ann_won, verdicts
    assert ann_won[0]["loser"] == 1
    assert sorted(ann_won[0]["reactions"].values()) == [210.0, 430.0]
    log = " ".join(str(line) for line in display_frames.views()[-1].get("log", []))
    assert "Bob" in log and "Ann" in log, log
    with urllib.request.urlopen(f"{url}/history.json") as response:
        history = json.load(response)
    assert history["showdowns"] >= 2
    people = {p["name"]: p for p in history["people"]}
    assert {"Ann", "Bob"} <= set(people), history
    # The panel followed the rounds: a countdown of the phones' round, then the verdict.
    counting = [
        v["showdown"] for v in display_frames.views() if (v.get("showdown") or {}).get("paddle")
    ]
    assert counting and all(s["stage"] == "countdown" and s["steps"] == 3 for s in counting)
    # Nothing went wrong on any page, and the game never paused for a phone.
    assert not any(v.get("paused") for v in display_frames.views())
    assert display_frames.errors == [] and all(f.errors == [] for _, f in phones.values())
