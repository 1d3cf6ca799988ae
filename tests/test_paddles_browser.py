"""Two phones as paddles in a real Chromium (two mobile contexts), each with its own
injected network delay (5 ms and 80 ms each way): the faster tapper wins whatever
the delay, a tap before GO is a false start, and taps 1 ms apart on the phones'
clocks are a tie when the phones' uncertainties overlap."""

from __future__ import annotations

import random
import threading

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from engine.apps.table.phone_port import PhonePaddles
from engine.units.ports import ShowdownOutcome, ShowdownRequest
from firmware_host.protocol import Reason
from tests.paddle_harness import DELAY_SCRIPT, PaddleServer, serving
from tests.table_helpers import free_port

pytestmark = pytest.mark.slow

PHONE = "Pixel 5"
FIGHTS = iter(range(1, 1000))  # each fight its own showdown id: a page's last round is stale
DELAYS_MS = {0: 5, 1: 80}


@pytest.fixture
def paddles(browser, playwright):
    server = PaddleServer()
    with free_port() as (sock, url), serving(server.app(), sock):
        pages = {}
        for seat, delay in DELAYS_MS.items():
            context = browser.new_context(**playwright.devices[PHONE])
            context.add_init_script(f"window.__delay = {delay};")
            context.add_init_script(DELAY_SCRIPT)
            page = context.new_page()
            page.goto(f"{url}/?seat={seat}")
            pages[seat] = page
        for page in pages.values():  # the clock burst is in
            page.wait_for_function("() => window.paddles.samples.length >= 8", timeout=10_000)
        yield server, pages
        for page in pages.values():
            page.context.close()


def fight(server: PaddleServer, act) -> tuple[ShowdownOutcome, list]:
    """Run one showdown on the port in a thread while ``act(id, round)`` taps on the pages."""
    request = ShowdownRequest(f"m1:r1:s{next(FIGHTS)}", 0, 1, "Near", "Far", 2)
    port = PhonePaddles(
        server.send,
        pace_rng=random.Random(4),
        bot_rng=random.Random(5),
        lead_s=0.5,
        step_s=0.3,
        hold_s=(0.2, 0.4),
        timeout_us=3_000_000,
        grace_s=2.0,
    )
    server.port = port
    done: list = []

    def run() -> None:
        done.append(port.run_showdown(request))
        with server.sent:
            server.sent.notify_all()

    before = server.rounds
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    rounds: list[int] = []
    while not done and len(rounds) < 4:
        server.wait_past(before + len(rounds), lambda: bool(done))
        if done:
            break
        rounds.append(len(rounds) + 1)
        act(request.showdown_id, len(rounds))
        server.wait_past(before + len(rounds), lambda: bool(done))
    thread.join(15)
    assert done, "the showdown never ended"
    return done[0], rounds


def in_round(showdown_id: str, number: int, *, go: bool) -> str:
    """A page condition: this phone is in that round (and, with ``go``, showed its GO)."""
    shown = " && window.paddles.round.shownGo !== null" if go else ""
    return (  # a function, not an expression: the page's CSP forbids eval when it polls
        f"() => window.paddles.round && window.paddles.round.showdown_id === '{showdown_id}'"
        f" && window.paddles.round.round === {number}{shown}"
    )


#: What a page was doing, for a wait that timed out (a rare failure on a loaded machine).
PAGE_STATE = """() => JSON.stringify({
  now: performance.now(), visibility: document.visibilityState,
  round: window.paddles.round, estimate: window.paddles.estimate(),
  seen: window.seen.slice(-12),
})"""


def wait_in_round(page, showdown_id: str, number: int, *, go: bool) -> None:
    """Until the page is in that round (and, with ``go``, showed its GO); a timeout
    says what the page was doing."""
    try:
        page.wait_for_function(in_round(showdown_id, number, go=go), timeout=10_000)
    except PlaywrightTimeoutError as exc:
        state = page.evaluate(PAGE_STATE)
        raise AssertionError(
            f"{page.url} never in round {number} of {showdown_id}: {state}"
        ) from exc


def tap_after_go(page, showdown_id: str, number: int, reaction_ms: float) -> None:
    """Wait until this phone showed GO for the round, then tap stamped reaction_ms after it."""
    wait_in_round(page, showdown_id, number, go=True)
    page.evaluate(
        "ms => window.paddles.tap({ timeStamp: window.paddles.round.shownGo + ms,"
        " preventDefault() {} })",
        reaction_ms,
    )


def result_taken(pages) -> None:
    """Until every page took the last showdown's result (its round put away), as at
    a table, where the next showdown comes turns later. Started at once, the far
    page (80 ms each way) once took the next round before the last result, and the
    result then put the new round away: twice in four full runs, not explained."""
    for page in pages.values():
        page.wait_for_function("() => window.paddles.round === null", timeout=10_000)


def test_the_faster_tapper_wins_whatever_the_delay(paddles) -> None:
    server, pages = paddles
    # the far phone (80 ms each way) is faster: its tap reaches the server later, and wins
    outcome, _ = fight(
        server, lambda i, n: (tap_after_go(pages[1], i, n, 200), tap_after_go(pages[0], i, n, 450))
    )
    assert (outcome.winner, outcome.reason) == (1, Reason.FASTER)
    assert outcome.reaction_us == {0: 450_000, 1: 200_000}
    result_taken(pages)
    outcome, _ = fight(
        server, lambda i, n: (tap_after_go(pages[0], i, n, 200), tap_after_go(pages[1], i, n, 450))
    )
    assert (outcome.winner, outcome.reason) == (0, Reason.FASTER)


def test_a_tap_before_go_is_a_false_start(paddles) -> None:
    server, pages = paddles

    def early(showdown_id: str, n: int) -> None:
        wait_in_round(pages[1], showdown_id, n, go=False)
        pages[1].locator(".paddle").tap()  # a real touch, in the countdown
        tap_after_go(pages[0], showdown_id, n, 300)

    outcome, _ = fight(server, early)
    assert (outcome.loser, outcome.reason) == (1, Reason.FALSE_START)


def test_taps_1_ms_apart_are_a_tie_when_the_uncertainties_overlap(paddles) -> None:
    server, pages = paddles
    uncertainty = [p.evaluate("window.paddles.estimate().uncertainty") for p in pages.values()]
    assert sum(uncertainty) > 1.0  # 80 ms each way: the far phone's is tens of ms

    def taps(showdown_id: str, n: int) -> None:
        if n == 1:  # 1 ms apart: a tie, fought again
            tap_after_go(pages[0], showdown_id, n, 250)
            tap_after_go(pages[1], showdown_id, n, 251)
        else:
            tap_after_go(pages[0], showdown_id, n, 500)
            tap_after_go(pages[1], showdown_id, n, 200)

    outcome, rounds = fight(server, taps)
    assert outcome.tie_reruns == 1 and len(rounds) == 2
    assert outcome.winner == 1
