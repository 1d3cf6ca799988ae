"""The history page against a real unit: a ``showdown-unit run --mock`` daemon
plays showdowns of people (bench presses), of a person against a bot and of two
bots (the unit presses for them and starts by itself); the engine fetches its
journal over the link (engine.units.unit_history.UnitHistory) and the table's
history page, in Chromium through Playwright, draws a point for each showdown
of each player and a histogram, the bots apart from the people; on a phone
nothing overflows the screen; a unit that cannot be reached is said on the
page. The screenshot docs/screenshots/table-history.png comes from here."""

from __future__ import annotations

import random

import pytest

from engine.game.errors import UnitProblem, UnitUnreachable
from engine.units.unit_history import UnitHistory, player_histories
from tests.daemon_helpers import FAST_CONFIG, Client, refusing_port, running_daemon
from tests.screenshots import SHOTS
from tests.table_helpers import free_port, served

pytestmark = pytest.mark.slow

PEOPLE = {"a": "Ann", "b": "Bob"}
#: The showdowns played: players, bots (side -> median ms), presses (side, ms from GO).
#: Ann's presses against Robo lie 0.4 µs off the whole microseconds a bot presses
#: on, so the two are never on the same tick (see UNIT_CONFIG); the journal rounds
#: them to 251000 and 226000 µs.
SHOWDOWNS = [
    ("p1", PEOPLE, None, [("a", 262), ("b", 241)]),
    ("p2", PEOPLE, None, [("a", 231), ("b", 305)]),
    ("p3", PEOPLE, None, [("a", -40)]),  # Ann presses before GO: a false start
    ("p4", PEOPLE, None, [("a", 214), ("b", 288)]),
    ("p5", PEOPLE, None, [("a", 298), ("b", 257)]),
    ("p6", PEOPLE, None, [("a", 246), ("b", 276)]),
    ("x1", {"a": "Ann", "b": "Robo"}, {"b": 240}, [("a", 251.0004)]),
    ("x2", {"a": "Ann", "b": "Robo"}, {"b": 240}, [("a", 226.0004)]),
    ("b1", {"a": "Robo", "b": "Tin"}, {"a": 240, "b": 300}, []),
    ("b2", {"a": "Robo", "b": "Tin"}, {"a": 240, "b": 300}, []),
    ("b3", {"a": "Robo", "b": "Tin"}, {"a": 240, "b": 300}, []),
]
#: Each name's showdowns as a person and as a bot.
PEOPLE_SHOWDOWNS = {"Ann": 8, "Bob": 6}
BOT_SHOWDOWNS = {"Robo": 5, "Tin": 3}
#: The unit's timing for them, so that every press the tests read is recorded
#: whatever the bots draw and however late the daemon's loop runs:
#: - The loser's press is kept only while the cards fly (resolved, launching);
#:   the launch ends no sooner than settle_s + spin_up_s + 2 x per_card_s
#:   (0.025 + 0.2 + 0.02 = 245 ms) after the winner's press, as each timer is set
#:   from the loop's clock when the one before it fired. Presses and timers are
#:   deadlines of one loop, taken earliest first, so a press less than 245 ms
#:   after the winner's comes before the launch ends, however late the loop.
#:   The widest gaps to a press read here: Robo beating Ann, 251 - 150 = 101 ms
#:   (a bot never reacts under 150 ms); Bob losing, 74 ms (p2, p4).
#: - No tie threshold: only presses on the same tick tie, and Ann's never fall on
#:   a bot's (above). A tie against Robo would run the countdown again without
#:   Ann's press (a bench press belongs to one round) and lose her timed press.
UNIT_CONFIG = FAST_CONFIG.replace("[timing]\n", "[timing]\ntie_threshold_us = 0\n").replace(
    "spin_up_s = 0.02", "spin_up_s = 0.2"
)


def play(client: Client, showdown_id, players, bots, presses) -> dict:
    """One showdown on the unit, to its result event."""
    arm = {"bots": {side: {"reaction_ms": ms} for side, ms in bots.items()}} if bots else {}
    reply = client.request("showdown", showdown_id=showdown_id, cards=2, players=players, **arm)
    assert reply["ok"], reply
    for side, offset_ms in presses:
        assert client.request("bench_press", side=side, offset_ms=offset_ms)["ok"]
    if bots is None or len(bots) < 2:
        assert client.request("bench_timer")["ok"]
    # Two bots: the unit starts by itself (timing.bot_start_s after arming).
    result = client.wait_for_event("result", showdown_id=showdown_id)
    client.wait_for_event("state", state="idle")
    return result


@pytest.fixture(scope="module")
def unit_url(tmp_path_factory):
    """The URL of a mock unit daemon whose journal holds SHOWDOWNS."""
    with running_daemon(tmp_path_factory.mktemp("unit"), config_text=UNIT_CONFIG) as daemon:
        with Client.tcp(daemon.port) as client:
            client.hello()
            for showdown in SHOWDOWNS:
                play(client, *showdown)
        yield f"socket://127.0.0.1:{daemon.port}"


@pytest.fixture
def closed_url():
    with refusing_port() as port:
        yield f"socket://127.0.0.1:{port}"  # nothing listens there


@pytest.fixture
def history_site(unit_url):
    """The table's app with the history page on the unit, served on a free port."""
    yield from site_on(unit_url)


def site_on(url: str):
    from engine.apps.table.history_page import HistoryPage
    from engine.apps.table.room import Room
    from engine.apps.table.server import create_app

    with free_port() as (sock, site):
        room = Room(seats=2, rng=random.Random(5), code="TEST", join_url=f"{site}/phone")
        app = create_app(room, pace_s=0, addons=[HistoryPage(UnitHistory(url))])
        with served(app, sock):
            yield site


# -- the engine reads a real unit's journal -------------------------------------------


def test_the_engine_reads_the_units_journal_people_and_bots_apart(unit_url):
    history = UnitHistory(unit_url).history(limit=1000)
    assert [row.showdown_id for row in history.rows] == [s[0] for s in reversed(SHOWDOWNS)]
    assert history.skipped == () and history.damaged == () and not history.more
    people, bots = player_histories(history.rows)
    assert {name: p.showdowns for name, p in people.items()} == PEOPLE_SHOWDOWNS
    assert {name: b.showdowns for name, b in bots.items()} == BOT_SHOWDOWNS
    ann, bob = people["Ann"], people["Bob"]
    assert (ann.false_starts, ann.losses + ann.wins) == (1, 8)
    # The bench presses land on their ticks: Ann's timed presses, exactly.
    assert sorted(ann.timed) == [214000, 226000, 231000, 246000, 251000, 262000, 298000]
    assert ann.median_reaction_us == 246000
    assert [p.outcome for p in bob.points] == ["won", "lost", "won", "lost", "won", "lost"]
    # Bob's losing presses too (74 ms after Ann's in p2 and p4); none in p3.
    assert sorted(bob.timed) == [241000, 257000, 276000, 288000, 305000]
    # The bots' own draws are random; their showdowns are theirs alone.
    assert [p.against for p in bots["Tin"].points] == ["Robo"] * 3
    assert [p.against_bot for p in people["Ann"].points] == [False] * 6 + [True] * 2


def test_a_limit_reads_the_latest_only(unit_url):
    history = UnitHistory(unit_url).history(limit=3)
    assert [row.showdown_id for row in history.rows] == ["b3", "b2", "b1"]
    assert history.more


def test_a_unit_that_is_not_there_is_said_with_what_to_do(closed_url):
    with pytest.raises(UnitUnreachable) as caught:
        UnitHistory(closed_url, reply_timeout_s=2).history()
    address = closed_url.removeprefix("socket://")
    assert str(caught.value) == (
        f"cannot read the history of the unit at {closed_url}: "
        f"connection refused: nothing listens at {address}"
    )
    assert "server.listen" in caught.value.what_to_do


def test_a_unit_with_a_token_wants_it(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("correct horse battery staple\n")
    token_file.chmod(0o600)
    config = f'[server]\ntoken_file = "{token_file}"\n'
    with running_daemon(tmp_path, config_text=FAST_CONFIG + config) as daemon:
        url = f"socket://127.0.0.1:{daemon.port}"
        with pytest.raises(UnitProblem) as caught:
            UnitHistory(url).history()
        assert str(caught.value) == f"the unit at {url} asks for a token and none was given"
        with pytest.raises(UnitProblem) as caught:
            UnitHistory(url, token="wrong horse").history()
        assert str(caught.value).startswith(f"the unit at {url} refused the token: ")
        assert UnitHistory(url, token="correct horse battery staple").history().rows == ()


# -- the page in a browser ---------------------------------------------------------------


def test_the_history_page_draws_each_players_showdowns_and_spread(history_site, unit_url, page):
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{history_site}/history")
    people, bots = page.locator("#people"), page.locator("#bots")
    for name, count in PEOPLE_SHOWDOWNS.items():
        card = people.locator(f"article[data-player='{name}']")
        card.locator("svg.timeline .pt").nth(count - 1).wait_for()
        assert card.locator("svg.timeline .pt").count() == count
        assert card.locator("svg.histogram rect.bar").count() >= 1
        assert card.get_attribute("data-bot") == "false"
    for name, count in BOT_SHOWDOWNS.items():
        card = bots.locator(f"article[data-player='{name}']")
        assert card.locator("svg.timeline .pt").count() == count
        assert card.get_attribute("data-bot") == "true"
    # Robo played only as a bot, so is nowhere among the people.
    assert people.locator("article[data-player='Robo']").count() == 0
    ann = people.locator("article[data-player='Ann']")
    # One cross for the false start; the bars count every timed press.
    assert ann.locator("svg.timeline .pt.false_start").count() == 1
    counts = ann.locator("svg.histogram rect.bar").evaluate_all(
        "bars => bars.map(b => Number(b.dataset.count))"
    )
    assert sum(counts) == 7
    summary = ann.locator("p.summary").inner_text()
    # Her wins against the bot depend on its draws; the rest is the bench's.
    wins = player_histories(UnitHistory(unit_url).history().rows)[0]["Ann"].wins
    assert summary == (
        f"Ann: 8 showdowns, {wins} wins, {8 - wins} losses, 1 false start; median reaction "
        "246.0 ms, best 214.0 ms (7 timed presses, from 214.0 ms to 298.0 ms)."
    )
    # Each chart is named by its heading and the summary (screen readers, no sight of it).
    labelled = ann.locator("svg.timeline").get_attribute("aria-labelledby").split()
    assert page.locator(f"#{labelled[1]}").inner_text() == summary
    ann.locator("details summary").first.click()
    assert ann.locator("table.rows tbody tr").first.locator("td").nth(4).inner_text() == "lost"
    assert (
        page.locator("#source")
        .inner_text()
        .startswith(f"From the unit at {unit_url}: 11 showdowns, ")
    )
    assert errors == []
    page.screenshot(path=str(SHOTS / "table-history.png"), full_page=True)


def test_on_a_phone_the_charts_fit_the_screen(history_site, browser, playwright):
    context = browser.new_context(**playwright.devices["Pixel 5"])
    try:
        page = context.new_page()
        page.goto(f"{history_site}/history")
        page.locator("#people article[data-player='Ann'] svg.timeline .pt").nth(7).wait_for()
        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0
        width = page.locator("#people svg.timeline").first.evaluate(
            "svg => svg.getBoundingClientRect().width"
        )
        assert 250 <= width <= page.viewport_size["width"]
    finally:
        context.close()


def test_a_unit_that_cannot_be_reached_is_said_on_the_page(closed_url, page):
    for site in site_on(closed_url):
        page.goto(f"{site}/history")
        problem = page.locator("#problem")
        problem.wait_for(state="visible")
        text = problem.inner_text()
        assert text.startswith(f"cannot read the history of the unit at {closed_url}: ")
        assert "Check that the unit is switched on" in text
        assert page.locator("#status").inner_text() == "could not read the history"
