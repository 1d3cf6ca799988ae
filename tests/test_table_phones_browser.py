"""The whole table with ``--unit phones`` in a real Chromium: the table's own
server (as ``showdown table`` wires it: the phones' port, its hooks, the
history book), a display, two people's phones and a bot. A showdown between
the two people is fought on their phones, the faster tapper wins, and the
verdict (both reactions as the phones measured them) reaches the display's
panel, the log and the history page like any unit's; a showdown of a bot
against a person needs only that person's phone; a phone that goes silent
pauses the game and the host's choice (a bot presses for that person) plays on."""

from __future__ import annotations

import json
import random
import urllib.request

import pytest

from engine.apps.table.phone_port import PhonePaddles
from tests.screenshots import SHOTS
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
    from engine.apps.table.table_cmd import unit_words
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
        room.unit_words = unit_words("phones")
        app = create_app(room, pace_s=0, round_pause_s=60, hooks=hooks, addons=[HistoryPage(book)])
        with served(app, sock):
            yield url, room


def tap_at(page, round_message: dict, reaction_ms: float | None) -> None:
    """Once this phone showed the round's GO, a tap stamped ``reaction_ms`` after it
    (None: only wait for the GO)."""
    showdown_id, number = round_message["showdown_id"], round_message["round"]
    page.wait_for_function(
        "([id, n]) => { const r = window.tablePaddles.round;"
        " return r && r.showdown_id === id && r.round === n && r.shownGo !== null; }",
        arg=[showdown_id, number],
        timeout=10_000,
    )
    if reaction_ms is None:
        return
    page.evaluate(
        "ms => window.tablePaddles.tap({ timeStamp: window.tablePaddles.round.shownGo + ms,"
        " preventDefault() {} })",
        reaction_ms,
    )


def last(kinds: list, kind: str) -> int:
    """Where the last message of ``kind`` is among ``kinds`` (-1: none)."""
    return max((n for n, k in enumerate(kinds) if k == kind), default=-1)


def of_type(frames: Frames, kind: str) -> list[dict]:
    return [m for m in frames.messages if m.get("type") == kind]


def seated_table(browser, playwright, url: str):
    """The display (the host's) and Ann's and Bob's phones, a bot, the match started."""
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
        page.wait_for_function("() => window.tablePaddles.samples.length >= 8", timeout=10_000)
    return display, display_frames, phones


def play(display, display_frames, phones, on_round, done, handled: int = 0) -> int:
    """Take the people's turns until ``done()``; each paddle_round after the
    first ``handled`` goes to ``on_round(message, people)`` (the people in it:
    the players less the bots). How many rounds were handled by then."""
    for _ in range(1500):
        if done():
            return handled
        if any(v.get("phase") in ("over", "match_over") for v in display_frames.views()[-1:]):
            return handled
        rounds = of_type(display_frames, "paddle_round")
        if len(rounds) > handled:
            message = rounds[handled]
            handled += 1
            people = {p for p in message["players"] if p not in message["bots"]}
            assert people and people <= {0, 1}, message
            on_round(message, people)
            continue
        kinds = [m.get("type") for m in display_frames.messages]
        if last(kinds, "paddle_round") > last(kinds, "paddle_result"):
            display.wait_for_timeout(20)  # a round under way: wait for its end
            continue
        if (display_frames.views() or [{}])[-1].get("paused"):
            display.wait_for_timeout(20)  # the host decides
            continue
        for page, _ in phones.values():
            clicks = page.evaluate(COUNT_CLICKS)
            if taps := take_turn(page):
                answered(page, clicks, taps)
                break
        else:
            display.wait_for_timeout(20)
    return handled


def test_showdowns_are_fought_on_the_peoples_phones_at_the_whole_table(
    browser, playwright, phones_table
):
    url, _ = phones_table
    display, display_frames, phones = seated_table(browser, playwright, url)
    # the unit is chosen at start (--unit): the display says which, in words
    assert "players' phones" in display.locator("#unit-words").inner_text()
    fought: dict[str, set[int]] = {}  # showdown id -> the people in it

    shot: list[str] = []

    def on_round(message: dict, people: set[int]) -> None:
        if not fought:  # the display's panel draws GO at the phones' instant
            display.locator("#showdown-body .go").wait_for(timeout=10_000)
        if len(people) == 2 and not shot:  # Ann's phone and the display at GO, for the docs
            tap_at(phones[0][0], message, None)
            # the GO screen covers the page: it says who faces whom (Ann's phone: "You")
            assert "You" in phones[0][0].locator(".paddle-who").inner_text()
            assert "Ann" in display.locator(".paddle-who").inner_text()
            phones[0][0].screenshot(path=str(SHOTS / "paddles-phone-go.png"))
            display.screenshot(path=str(SHOTS / "paddles-display-go.png"))
            shot.append(message["showdown_id"])
        fought[message["showdown_id"]] = people
        for seat in sorted(people, key=TAP_MS.__getitem__):
            tap_at(phones[seat][0], message, TAP_MS[seat])

    def decided() -> dict[str, dict]:
        return {
            m["showdown_id"]: m
            for m in of_type(display_frames, "paddle_result")
            if m["kind"] == "decided"
        }

    def kinds() -> tuple[list[str], list[str]]:
        over = decided()
        both = [i for i, p in fought.items() if len(p) == 2 and i in over]
        return both, [i for i, p in fought.items() if len(p) == 1 and i in over]

    play(display, display_frames, phones, on_round, lambda: all(kinds()))
    both, alone = kinds()
    assert both and alone, (fought, decided())

    # Ann against Bob: Ann tapped faster on her phone and won; both reactions are the phones'.
    ann_bob = decided()[both[0]]
    assert ann_bob["loser"] == 1 and ann_bob["reaction_us"] == {"0": 210_000, "1": 430_000}
    # A bot against a person: the person's reaction is their phone's, the bot's its own press.
    person = next(iter(fought[alone[0]]))
    assert decided()[alone[0]]["reaction_us"][str(person)] == round(TAP_MS[person] * 1000)

    # The verdict reached the display's panel, the log and the history like any unit's
    # (the view with the outcome comes after the port's last paddle_result).
    def verdicts() -> list[dict]:
        return [
            v["showdown"]
            for v in display_frames.views()
            if v.get("showdown") and v["showdown"].get("stage") == "decided"
        ]

    for _ in range(500):
        ann_won = [s for s in verdicts() if {s["challenger"], s["opponent"]} == {0, 1}]
        if ann_won:
            break
        display.wait_for_timeout(10)
    assert ann_won, verdicts()
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


def test_a_silent_phone_pauses_the_game_and_the_host_has_a_bot_press_for_it(
    browser, playwright, phones_table
):
    url, _ = phones_table
    display, display_frames, phones = seated_table(browser, playwright, url)
    bob = phones[1][0]
    silenced: list[dict] = []  # the round in which Bob's phone went silent
    refought: list[dict] = []  # the rounds fought again after the host's choice

    def on_round(message: dict, people: set[int]) -> None:
        if not silenced and 1 in people:  # Bob's phone loses its network: no answer at all
            bob.evaluate(
                "() => { window.__answer = window.tablePaddles.answer;"
                " window.tablePaddles.answer = () => {}; }"
            )
            silenced.append(message)
        elif silenced and message["showdown_id"] == silenced[0]["showdown_id"]:
            refought.append(message)
        for seat in sorted(people - {1} if message in silenced else people):
            tap_at(phones[seat][0], message, TAP_MS[seat])

    def stood_in() -> bool:
        if not silenced:
            return False
        choice = display.locator("#host-extra button", has_text="A bot presses for Bob")
        if choice.count():
            assert "Bob's phone did not answer" in display.locator("#paused").inner_text()
            choice.click()
            bob.evaluate("() => { window.tablePaddles.answer = window.__answer; }")
            return True
        return False

    handled = play(display, display_frames, phones, on_round, stood_in)
    assert silenced, "Bob was in no showdown on the phones"

    def verdict() -> dict | None:
        for view in display_frames.views():
            sd = view.get("showdown") or {}
            bob_in = sd.get("stage") == "decided" and 1 in (sd["challenger"], sd["opponent"])
            if bob_in and any("a bot presses for Bob" in str(x) for x in view.get("log", [])):
                return sd
        return None

    play(display, display_frames, phones, on_round, lambda: verdict() is not None, handled)
    sd = verdict()
    assert sd is not None, display_frames.views()[-1]
    # fought again with a bot pressing for Bob; his reaction is none, not the bot's
    assert not refought or all(1 in m["bots"] for m in refought)
    side = "challenger" if sd["challenger"] == 1 else "opponent"
    assert sd["reactions"][side] is None
    assert display_frames.errors == [] and all(f.errors == [] for _, f in phones.values())
