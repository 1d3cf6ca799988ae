"""The browser table in a real Chromium (Playwright on Debian's Chromium): a display
and two phones (mobile emulation, touch) with a bot play a Showdown round to its end
on a simulated unit; no hand of one phone ever reaches the display or the other
phone, in the page or on the wire; illegal taps are refused with a message; a phone
reopened in the same browser rejoins its seat. Screenshots go to docs/screenshots/.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import socket
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.room_helpers import SHOWDOWN_NEXT
from tests.screenshots import SHOTS
from tests.table_helpers import Frames, card_lists, free_port, has_key, served, tapped

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "engine" / "apps" / "table" / "static"
PHONE = "Pixel 5"  # is_mobile, has_touch, a phone's viewport
#: The tables' host key and room code: the display opens the host URL, a phone the join URL.
HOST_KEY = "the-host-key"
CODE = "TEST"


# -- helpers ------------------------------------------------------------------------------


def open_phone(context, url: str, frames: Frames | None = None):
    """A phone page at /phone; its frames go to ``frames`` (a new Frames if None)."""
    page = context.new_page()
    if frames is None:
        frames = Frames(page)
    else:
        frames.watch(page)
    page.goto(f"{url}/phone?code={CODE}")
    return page, frames


def hand_of(page) -> list[str]:
    return page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")


def take_turn(page) -> int:
    """Tap the first thing the page offers: a colour in the chooser, a playable
    card (saying UNO first when the page offers it), an action, a catch. How
    many taps were made: 0 when there is nothing, or when it went away before
    the tap (a new view)."""
    chooser = page.locator("#chooser:not([hidden]) button")
    if chooser.count():
        return int(tapped(chooser.first))
    card = page.locator("#hand button.legal")
    if card.count():
        uno = page.locator("#uno")
        said = uno.is_enabled() and uno.get_attribute("aria-pressed") == "false" and tapped(uno)
        return int(said) + int(tapped(card.first))
    for where in ("#actions button[data-action]", "#catches button[data-action]"):
        button = page.locator(where)
        if button.count():
            return int(tapped(button.first))
    return 0


#: Counts the page's clicks (capture phase: before the page's own handlers);
#: installed once per page load. Returns the count so far.
COUNT_CLICKS = """() => {
  if (window.testClicks === undefined) {
    window.testClicks = 0;
    document.addEventListener("click", () => { window.testClicks += 1; }, true);
  }
  return window.testClicks;
}"""

#: Sends a ping with ``id`` on the page's socket and notes its pong in
#: window.testAnswered once the page has handled every message before it.
ROUND_TRIP = """(id) => {
  const socket = window.tableLink.socket;
  const seen = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "pong" && message.id === id) {
      socket.removeEventListener("message", seen);
      window.testAnswered = id;
    }
  };
  socket.addEventListener("message", seen);  // after the page's own listener
  return window.tableLink.send({ type: "ping", id });
}"""


def answered(page, clicks: int, taps: int) -> None:
    """Wait until ``page`` has handled its ``taps`` clicks (made after it had
    counted ``clicks``) and then the server's answer to all it sent: views,
    refusals. The server answers one socket's messages in order, so a ping sent
    now is answered after them; the page handles its messages in order, so when
    it sees the pong its screen shows that answer. A tap on an older screen
    would be refused ("it is not your turn"): the test's doing, not the table's."""
    page.wait_for_function("(n) => window.testClicks >= n", arg=clicks + taps)
    marker = f"answered-{clicks + taps}-{page.evaluate('() => performance.now()')}"
    assert page.evaluate(ROUND_TRIP, marker), "the page's socket is not open"
    page.wait_for_function("(id) => window.testAnswered === id", arg=marker)


# -- the real server, in-process on a free port ------------------------------------------


@pytest.fixture
def table_url():
    """``showdown table``'s app (engine.apps.table.server) on a simulated unit, bots
    without pacing, served by uvicorn in a thread on a free loopback port."""
    from engine.apps.table.room import Room
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = Room(
            seats=4,
            rng=random.Random(5),
            code=CODE,
            join_url=f"{url}/phone",
            host_key=HOST_KEY,
        )
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
    phone = playwright.devices[PHONE]
    display_context = browser.new_context(viewport={"width": 1920, "height": 1080})
    display = display_context.new_page()
    display_frames = Frames(display)
    display.goto(f"{table_url}/#host={HOST_KEY}")
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
            # The new socket's first message (one already on its way on the old
            # socket may come before it in the frames).
            wait_until(
                ann,
                lambda frames=ann_frames, before=before: any(
                    m["type"] == "welcome" for m in frames.messages[before:]
                ),
                "Ann's page to say hello again",
            )
            welcome = next(m for m in ann_frames.messages[before:] if m["type"] == "welcome")
            assert welcome["seat"] == 0
            ann.locator("#status", has_text="connected").wait_for()
            rejoined = True
            continue
        if not shot:
            # The display with a verdict up, the phone whose turn it is.
            playing = [p for p in (ann, bob) if p.locator("#hand button.legal").count()]
            if playing and (display.locator(".verdict").count() or len(hands_seen) > 60):
                screenshots(display, playing[0])
                shot = True
        for page in (ann, bob):
            clicks = page.evaluate(COUNT_CLICKS)
            if taps := take_turn(page):
                answered(page, clicks, taps)
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


# -- a table the test can stop, restart and reach into ----------------------------------


def listening(port: int = 0) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    return sock


class Table:
    """``showdown table``'s app on a free port, saved to ``tmp_path``: it can be
    stopped and started again from its save file on the same port (a crash and
    ``--resume``), and a connection's socket can be closed from the server."""

    def __init__(self, tmp_path, *, seats: int = 4, pace_s: float = 0.0, unit=None):
        self.save = tmp_path / "table.json"
        self.seats, self.pace_s, self.unit = seats, pace_s, unit
        self.sock = listening()
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.stack = contextlib.ExitStack()
        self.serve(self.new_room())

    def new_room(self):
        from engine.apps.table.room import Room

        return Room(
            seats=self.seats,
            rng=random.Random(5),
            code=CODE,
            join_url=f"{self.url}/phone",
            save=self.save,
            host_key=HOST_KEY,
            unit=self.unit,
        )

    def serve(self, room) -> None:
        from engine.apps.table.server import create_app

        self.room = room
        self.app = create_app(room, pace_s=self.pace_s, round_pause_s=60)
        self.stack.enter_context(served(self.app, self.sock))

    def stop(self) -> None:
        self.stack.close()
        self.sock.close()

    def restart(self) -> None:
        """Stop, then serve a new room restored from the save file on the same port."""
        self.stop()
        self.sock = listening(self.port)
        room = self.new_room()
        room.restore(json.loads(self.save.read_text()))
        self.serve(room)

    def drop(self, seat: int) -> None:
        """Close, from the server's side, the socket of the page holding ``seat``."""
        conn = next(c for c in self.room.connections if c.seat == seat)
        ws = self.app.state.sockets[conn]
        asyncio.run_coroutine_threadsafe(ws.close(code=1012), self.app.state.loop).result(5)


@pytest.fixture
def table(tmp_path):
    table = Table(tmp_path)
    yield table
    table.stop()


def display_page(browser, url: str, key: str | None = HOST_KEY):
    """The display at 1080p: the host's (opened from the host URL) unless ``key`` is None."""
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    frames = Frames(page)
    page.goto(url if key is None else f"{url}/#host={key}")
    page.locator("#status", has_text="connected").wait_for()
    return page, frames


def phone_page(browser, playwright, url: str, seat: int, name: str):
    context = browser.new_context(**playwright.devices[PHONE])
    page, frames = open_phone(context, url)
    join(page, seat, name)
    return page, frames


def start_from(display, bots: int) -> None:
    display.locator("#bots").fill(str(bots))
    display.locator("#start").click()
    display.locator("#top [data-card]").wait_for()


def wait_until(page, condition, what: str, seconds: float = 10) -> None:
    for _ in range(int(seconds * 50)):
        if condition():
            return
        page.wait_for_timeout(20)
    raise AssertionError(f"timed out waiting for {what}")


def settled(page, table: Table) -> list[str]:
    """Wait until the match waits for a person and ``page`` (Ann's) shows seat 0's
    hand as the server holds it; that hand, sorted."""

    def held() -> list[str]:
        return sorted(str(card) for card in table.room.game.hand(0))

    wait_until(
        page,
        lambda: table.room.next_task() is None and sorted(hand_of(page)) == held(),
        "the match to wait for a person",
    )
    return held()


def last_you(frames: Frames) -> dict:
    return frames.views()[-1]["you"]


# -- reconnecting -----------------------------------------------------------------------


def test_a_phone_whose_socket_the_server_drops_comes_back_by_itself_to_its_seat(
    browser, playwright, table
):
    display, _ = display_page(browser, table.url)
    ann, ann_frames = phone_page(browser, playwright, table.url, 0, "Ann")
    start_from(display, bots=1)
    ann.locator("#hand [data-card]").first.wait_for()
    # Each page shows its own round trip; the display shows Ann's next to her name.
    ann.locator("#status", has_text=re.compile(r"connected · \d+ ms")).wait_for()
    display.locator("#status", has_text=re.compile(r"connected · \d+ ms")).wait_for()
    display.locator("#seats li[data-seat='0'] .lag", has_text=re.compile(r"^\d+ ms$")).wait_for()
    hand = settled(ann, table)

    before = len(ann_frames.messages)
    table.drop(0)
    wait_until(
        ann,
        lambda: any(m.get("type") == "welcome" for m in ann_frames.messages[before:]),
        "Ann's page to say hello again",
    )
    welcome = next(m for m in ann_frames.messages[before:] if m["type"] == "welcome")
    assert welcome["seat"] == 0 and welcome["secret"]
    wait_until(ann, lambda: ann_frames.views()[-1]["you"] is not None, "Ann's whole view")
    assert sorted(c["text"] for c in last_you(ann_frames)["hand"]) == hand
    ann.locator("#status", has_text="connected").wait_for()
    assert sorted(hand_of(ann)) == hand and ann.locator("#me").inner_text() == "Ann"
    display.locator("#seats li[data-seat='0']:not(.away)").wait_for()
    assert ann_frames.errors == []


def test_after_a_restart_from_the_save_file_the_open_pages_come_back_by_themselves(
    browser, playwright, table
):
    display, display_frames = display_page(browser, table.url)
    ann, ann_frames = phone_page(browser, playwright, table.url, 0, "Ann")
    start_from(display, bots=1)
    ann.locator("#hand [data-card]").first.wait_for()
    hand = settled(ann, table)
    top = display.locator("#top [data-card]").get_attribute("data-card")
    notation = table.room.game.notation()

    table.restart()  # the server stops (the pages lose their sockets) and comes back
    assert table.room.game.notation() == notation
    # Both pages say hello to the new server by themselves (backoff up to 8 s).
    wait_until(
        ann,
        lambda: (
            {(c.role, c.seat) for c in table.room.connections} == {("display", None), ("phone", 0)}
        ),
        "the display and Ann's phone to be back on the new server",
        seconds=30,
    )
    display.locator("#status", has_text="connected").wait_for()
    ann.locator("#status", has_text="connected").wait_for()
    ann.locator("#hand [data-card]").first.wait_for()
    assert sorted(hand_of(ann)) == hand
    assert ann.locator("#me").inner_text() == "Ann" and ann.locator("#join").is_hidden()
    assert display.locator("#top [data-card]").get_attribute("data-card") == top
    # and the match goes on: Ann plays a card on the new server
    ann.locator("#hand button.legal").first.wait_for()
    plays = len(table.room.match.events)
    assert take_turn(ann)
    wait_until(ann, lambda: len(table.room.match.events) > plays, "Ann's play")
    assert display_frames.errors == ann_frames.errors == []


# -- the host's pause, and a seat handed to a bot ---------------------------------------


def test_the_host_pauses_every_screen_shows_it_and_a_tap_is_refused(browser, playwright, table):
    display, _ = display_page(browser, table.url)
    ann, ann_frames = phone_page(browser, playwright, table.url, 0, "Ann")
    start_from(display, bots=1)
    ann.locator("#hand button.legal").first.wait_for()
    display.locator("#host-extra button[data-key='pause']").click()
    display.locator("#host-paused").wait_for(state="visible")
    ann.locator("#host-paused").wait_for(state="visible")
    assert display.locator("#log li").first.inner_text() == "The host paused the game."
    assert display.locator("#host-extra button[data-key='pause']").inner_text() == "Resume"
    hand = sorted(hand_of(ann))
    ann.locator("#hand button.legal").first.tap()
    assert refused_shown(ann, ann_frames, None) == (
        "the host paused the game: wait until the host resumes it"
    )
    assert sorted(hand_of(ann)) == hand
    display.locator("#host-extra button[data-key='pause']").click()
    display.locator("#host-paused").wait_for(state="hidden")
    ann.locator("#host-paused").wait_for(state="hidden")
    plays = len(table.room.match.events)
    assert take_turn(ann)
    wait_until(ann, lambda: len(table.room.match.events) > plays, "Ann's play after resume")


class HeldUnit:
    """A simulated unit whose showdowns end only once the test lets them go."""

    def __init__(self):
        from engine.units.ports import SimulatedUnit

        self.inner = SimulatedUnit(random.Random(1))
        self.out = threading.Event()  # a showdown is at the unit
        self.go = threading.Event()

    def run_showdown(self, request):
        self.out.set()
        self.go.wait(30)
        return self.inner.run_showdown(request)


@contextlib.contextmanager
def ann_at_a_showdown_card(browser, playwright, tmp_path, *, bot_playing: bool):
    """Ann and a bot at a table on a :class:`HeldUnit`, come back from a save file
    in which Ann's next card starts a showdown (as if the table had crashed there);
    a bot plays Ann's seat when ``bot_playing``. Yields the table, the unit, the
    display and Ann's phone and frames; then lets the unit go and stops the table."""
    unit = HeldUnit()
    table = Table(tmp_path, seats=2, unit=unit)
    try:
        display, _ = display_page(browser, table.url)
        ann, ann_frames = phone_page(browser, playwright, table.url, 0, "Ann")
        start_from(display, bots=1)
        table.stop()  # nothing saves over the file while it is rewritten
        saved = json.loads(table.save.read_text())
        saved["notation"] = SHOWDOWN_NEXT
        saved["seats"][0]["bot_playing"] = bot_playing
        table.save.write_text(json.dumps(saved))
        table.restart()
        yield table, unit, display, ann, ann_frames
    finally:
        unit.go.set()
        table.stop()


def test_a_seat_taken_back_during_a_showdown_comes_back_to_its_phone_after_the_verdict(
    browser, playwright, tmp_path
):
    with ann_at_a_showdown_card(browser, playwright, tmp_path, bot_playing=True) as at:
        table, unit, display, ann, ann_frames = at
        assert unit.out.wait(30), "the bot's card did not start a showdown"
        ann.locator("#bot-playing").wait_for(state="visible")
        ann.locator("#take-back").tap()
        words = "A bot plays for you until this showdown's verdict."
        expect(ann.locator("#bot-playing-words")).to_have_text(words)
        expect(ann.locator("#prompt")).to_have_text("You play again after this showdown.")
        expect(ann.locator("#take-back")).to_be_hidden()
        assert table.room.seats[0].bot_playing  # the showdown is fought as it was named
        display.locator("#log li", has_text="Ann plays again after this showdown.").wait_for()
        waiting = display.locator("#host-extra button[data-key='seat-0']")
        expect(waiting).to_have_text("Ann plays again after the showdown")
        expect(waiting).to_be_disabled()
        unit.go.set()
        ann.locator("#bot-playing").wait_for(state="hidden")
        display.locator("#log li", has_text=re.compile(r"^Ann plays again\.$")).wait_for()
        expect(waiting).to_have_text("A bot plays for Ann")
        assert not table.room.seats[0].bot_playing and 0 not in table.room.bots
        assert ann_frames.errors == []


def test_a_seat_handed_to_a_bot_during_a_showdown_is_kept_or_the_bots_after_the_verdict(
    browser, playwright, tmp_path
):
    with ann_at_a_showdown_card(browser, playwright, tmp_path, bot_playing=False) as at:
        table, unit, display, ann, ann_frames = at
        wait_until(ann, lambda: sorted(hand_of(ann)) == ["G2", "R5!2"], "the restored hand")
        ann.locator("#hand button.legal").first.wait_for()
        assert take_turn(ann)
        assert unit.out.wait(30), "Ann's card did not start a showdown"
        hand_over = display.locator("#host-extra button[data-key='seat-0']")
        hand_over.filter(has_text="A bot plays for Ann").click()
        words = "A bot plays for you after this showdown."
        expect(ann.locator("#bot-playing-words")).to_have_text(words)
        expect(hand_over).to_have_text("Ann keeps playing (a bot after the showdown)")
        # Ann keeps her seat from her phone; the host hands it over again.
        ann.locator("#take-back", has_text="Keep my seat").tap()
        ann.locator("#bot-playing").wait_for(state="hidden")
        display.locator("#log li", has_text="Ann keeps playing.").wait_for()
        hand_over.filter(has_text="A bot plays for Ann").click()
        expect(ann.locator("#bot-playing-words")).to_have_text(words)
        assert not table.room.seats[0].bot_playing  # she fights this showdown herself
        unit.go.set()
        display.locator("#log li", has_text=re.compile(r"^A bot plays for Ann\.$")).wait_for()
        expect(ann.locator("#bot-playing-words")).to_have_text("A bot plays for you.")
        expect(ann.locator("#take-back")).to_have_text("Take my seat back")
        expect(hand_over).to_have_text("Ann plays again")
        assert table.room.seats[0].bot_playing and 0 in table.room.bots
        assert ann_frames.errors == []


def test_a_seat_handed_to_a_bot_and_back_and_its_hand_stays_on_its_phone(
    browser, playwright, table
):
    display, display_frames = display_page(browser, table.url)
    ann, ann_frames = phone_page(browser, playwright, table.url, 0, "Ann")
    bob, bob_frames = phone_page(browser, playwright, table.url, 1, "Bob")
    start_from(display, bots=0)
    ann.locator("#hand [data-card]").first.wait_for()
    display.locator("#host-extra button[data-key='seat-0']", has_text="A bot plays for Ann").click()
    display.locator("#seats li[data-seat='0'] .badge.bot", has_text="bot").wait_for()
    assert display.locator("#seats li[data-seat='0'] .name").inner_text() == "Ann"
    ann.locator("#bot-playing").wait_for(state="visible")
    assert ann.locator("#hand [data-card]").count() > 0  # Ann still sees her hand
    assert ann.locator("#hand button.legal").count() == 0
    # The bot plays Ann's turns while Bob plays his own, for a few turns.
    hands_seen = set()
    for _ in range(12):
        hands_seen.add(tuple(sorted(hand_of(ann))))
        before = len(bob_frames.messages)
        if take_turn(bob):
            wait_for_frame(bob, bob_frames, before)
        else:
            bob.wait_for_timeout(50)
    assert any(
        e.kind != "match_start" and e.data.get("player") == 0
        for e in table.room.match.events
        if e.kind in ("play", "draw")
    )
    # Ann takes her seat back from her phone.
    ann.locator("#take-back").tap()
    ann.locator("#bot-playing").wait_for(state="hidden")
    display.locator("#seats li[data-seat='0'] .name", has_text=re.compile("^Ann$")).wait_for()
    expect(display.locator("#seats li[data-seat='0'] .badge.bot", has_text="bot")).to_have_count(0)
    expect(display.locator("#log li").first).to_have_text("Ann plays again.")
    # Handed to a bot again, and given back from the display.
    display.locator("#host-extra button[data-key='seat-0']").click()
    ann.locator("#bot-playing").wait_for(state="visible")
    display.locator("#host-extra button[data-key='seat-0']", has_text="Ann plays again").click()
    ann.locator("#bot-playing").wait_for(state="hidden")
    hands_seen.add(tuple(sorted(hand_of(ann))))
    # Nothing of any hand Ann held reached the display or Bob.
    hands_seen = {hand for hand in hands_seen if len(hand) >= 2}
    for who, frames in (("display", display_frames), ("Bob", bob_frames)):
        for view in frames.views():
            for cards in card_lists({k: v for k, v in view.items() if k != "you"}):
                assert tuple(cards) not in hands_seen, (who, cards)
            you = view.get("you")
            assert you is None or you["seat"] == 1, (who, you)
    assert display_frames.errors == ann_frames.errors == bob_frames.errors == []


# -- the keyboard -------------------------------------------------------------------------


def tab_to(page, test: str, presses: int = 60) -> None:
    """Press Tab until ``test`` (a JS expression about ``e``, the focused element) holds."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate(f"(() => {{ const e = document.activeElement; return !!({test}); }})()"):
            return
    raise AssertionError(f"Tab never reached an element where {test}")


def test_the_host_starts_and_pauses_and_a_card_is_played_with_the_keyboard_alone(
    browser, playwright, table
):
    display, _ = display_page(browser, table.url)
    context = browser.new_context(**playwright.devices[PHONE])
    ann, ann_frames = open_phone(context, table.url)
    join(ann, 0, "Ann")
    # The display's host controls: set the bots with the keyboard and start.
    tab_to(display, "e.id === 'bots'")
    display.keyboard.press("Control+A")
    display.keyboard.type("1")
    tab_to(display, "e.id === 'start'")
    display.keyboard.press("Enter")
    display.locator("#top [data-card]").wait_for()
    assert [s.kind for s in table.room.seats] == ["person", "bot"]
    # Pause and resume from the keyboard: the focus stays on the toggle.
    tab_to(display, "e.dataset.key === 'pause'")
    display.keyboard.press("Enter")
    display.locator("#host-paused").wait_for(state="visible")
    assert display.evaluate("document.activeElement.dataset.key") == "pause"
    display.keyboard.press("Enter")
    display.locator("#host-paused").wait_for(state="hidden")
    # Ann plays a card with the keyboard alone (a wild asks its colour, also by keyboard).
    ann.locator("#hand button.legal").first.wait_for()
    tab_to(ann, "e.classList.contains('legal')")
    card = ann.evaluate("document.activeElement.dataset.card")

    def anns_plays():
        return [
            e.data["card"]
            for e in table.room.match.events
            if e.kind == "play" and e.data["player"] == 0
        ]

    plays = len(anns_plays())
    ann.keyboard.press("Enter")
    if card.startswith("W"):
        ann.locator("#chooser:not([hidden]) button").first.wait_for()
        assert ann.evaluate("document.activeElement.closest('#chooser') !== null")
        ann.keyboard.press("Enter")
    wait_until(ann, lambda: len(anns_plays()) > plays, "Ann's card to be played")
    assert anns_plays()[-1] == card
    refusals = [m for m in ann_frames.messages if m.get("type") == "refused"]
    assert refusals == []
    # The turn is said to screen readers, on the display and on the phone.
    assert display.locator("#announce").get_attribute("aria-live") == "polite"
    assert display.locator("#announce-verdict").get_attribute("aria-live") == "assertive"
    ann.locator("#hand button.legal").first.wait_for()  # Ann's turn again
    expect(display.locator("#turn")).to_have_text("Ann to play")
    expect(display.locator("#announce")).to_have_text("Ann to play")
    assert ann.locator("#turn").get_attribute("aria-live") == "polite"
    expect(ann.locator("#turn")).to_have_text("Your turn")


def test_the_host_sets_up_the_rules_on_the_form_and_a_bad_one_is_refused_with_why(
    browser, playwright, table
):
    display, display_frames = display_page(browser, table.url)
    phone_page(browser, playwright, table.url, 0, "Ann")
    display.locator("#bots").fill("2")
    display.locator("details.house-rules summary").click()
    display.locator("#bot-kind").select_option("random")
    display.locator("#reaction").fill("400")
    display.locator("#stacking").check()
    display.locator("#uno-penalty").fill("4")
    display.locator("#first-card").select_option("flip")
    display.locator("#ws-low").fill("3")
    display.locator("#ws-high").fill("1")
    display.locator("#start").click()
    expect(display.locator("#host-message")).to_have_text(
        "house rules: showdown_cards must be (low, high) with 1 <= low <= high <= 7, not (3, 1)"
    )
    assert table.room.match is None
    display.locator("#ws-high").fill("4")
    display.locator("#start").click()
    display.locator("#top [data-card]").wait_for()
    assert str(table.room.game.house_rules) == "stack,uno=4,first=flip,ws=3-4"
    rules = display.locator("#rules li")
    expect(rules).to_have_text(
        [
            "Showdown to 500 points",
            "bots: random, react in 400 ms",
            "stacking +2 and +4: on",
            "draw until playable: off",
            "UNO penalty: 4 cards",
            "first card: flip",
            "Wild Showdown: 3 to 4 cards",
        ]
    )
    assert display.locator("#host-form").is_hidden()  # while the match is played
    assert display_frames.errors == []
