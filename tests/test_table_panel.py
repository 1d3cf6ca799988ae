"""The unit panel in a real Chromium (Playwright on Debian's Chromium): on a real
mock unit daemon it lights GO at the unit's go event, a click on the timer button
starts the countdown, holding a paddle down presses it (mouse and keyboard); on the
simulated unit it draws what it is fed and refuses a press with why. The screenshot
docs/screenshots/table-panel.png comes from here.
"""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from engine.apps.table.panel import SIM_PRESS_TEXT, UnitPanel
from engine.apps.table.room import Room
from engine.apps.table.server import create_app
from engine.units.live_sim import idle_outputs
from engine.units.watch import UnitWatcher
from firmware_host.protocol import Event
from tests.daemon_helpers import FAST_CONFIG, PLAYERS, Client, running_daemon
from tests.screenshots import SHOTS
from tests.table_helpers import Frames, free_port, served

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SHOT = SHOTS / "table-panel.png"

#: The host key the panel page carries on from the host display.
KEY = "panel-host-key"
#: A countdown slow enough to see, and GO that stays lit until someone presses.
PANEL_CONFIG = (
    FAST_CONFIG.replace("countdown_step_s = 0.05", "countdown_step_s = 0.3")
    .replace("flash_period_s = 0.025", "flash_period_s = 0.1")
    .replace("response_timeout_s = 2.0", "response_timeout_s = 15.0")
)


def panel_messages(frames: Frames) -> list[dict]:
    return [m for m in frames.messages if m.get("type") == "panel"]


@pytest.fixture
def unit_panel(tmp_path):
    """A mock unit daemon, and the table's server with the panel watching it:
    (the daemon, the server's URL)."""
    with running_daemon(tmp_path, config_text=PANEL_CONFIG) as daemon, free_port() as (sock, url):
        room = Room(seats=2, rng=random.Random(1), host_key=KEY)
        panel = UnitPanel(UnitWatcher(f"socket://127.0.0.1:{daemon.port}"), gate=room.host_gate)
        app = create_app(room, addons=[panel])
        with served(app, sock):
            yield daemon, url


def test_the_panel_lights_go_at_the_go_event_and_a_held_paddle_presses(unit_panel, page):
    daemon, url = unit_panel
    frames = Frames(page)
    page.set_viewport_size({"width": 1000, "height": 900})
    page.goto(f"{url}/panel#host={KEY}")  # carried on from the host's display
    expect(page.locator("#status")).to_have_text("connected")
    expect(page.locator("#problem")).to_be_hidden()
    expect(page.locator("#where")).to_have_text(f"The unit at socket://127.0.0.1:{daemon.port}")
    go = page.locator("#go")
    expect(go).to_have_attribute("data-lit", "false")

    client = Client.tcp(daemon.port)
    client.hello()
    assert client.request("showdown", showdown_id="p1", cards=2, players=PLAYERS)["ok"]
    expect(page.locator("#paddle-a-name")).to_have_text("Ann")
    expect(page.locator("#paddle-b-name")).to_have_text("Bob")
    assert client.unread_events == [] or all(
        e["event"] != "countdown" for e in client.unread_events
    )
    page.locator("#timer").click()  # the timer button, through bench_timer
    client.wait_for_event("countdown", step=1)
    expect(page.locator("#led-0")).to_have_attribute("data-lit", "true")
    client.wait_for_event("go")
    expect(go).to_have_attribute("data-lit", "true", timeout=3000)
    expect(page.locator("#go-light")).to_have_attribute("aria-label", "GO light: on")
    page.screenshot(path=str(SHOT), full_page=True)
    # What the page was sent before: the bar lit with GO dark (the countdown),
    # then the whole bar (the hold). Read from its frames, not its lights: GO
    # comes about 1 s after step 1, and a busy machine can get there before a
    # look at the GO light would.
    shown = [m["outputs"] for m in panel_messages(frames)]
    assert any(outputs["leds"][0] and not outputs["go"] for outputs in shown)  # the countdown
    assert any(all(outputs["leds"]) for outputs in shown)  # the hold

    paddle = page.locator("#paddle-a")
    box = paddle.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    expect(paddle).to_have_attribute("data-pressed", "true")  # the unit's own pin says so
    expect(paddle).to_have_attribute("aria-pressed", "true")
    page.mouse.up()
    result = client.wait_for_event("result")
    assert (result["winner"], result["reason"]) == ("a", "faster")
    assert result["reaction_us"]["a"] is not None
    expect(paddle).to_have_attribute("data-pressed", "false")
    expect(page.locator("#verdict")).to_contain_text("Ann wins")
    expect(go).to_have_attribute("data-lit", "false")
    assert frames.errors == []


def test_the_keyboard_presses_the_timer_button_and_a_paddle(unit_panel, page):
    daemon, url = unit_panel
    page.goto(f"{url}/panel#host={KEY}")  # carried on from the host's display
    expect(page.locator("#status")).to_have_text("connected")
    client = Client.tcp(daemon.port)
    client.hello()
    assert client.request("showdown", showdown_id="k1", cards=1, players=PLAYERS)["ok"]
    page.locator("#timer").focus()
    page.keyboard.press("Enter")
    client.wait_for_event("go")
    expect(page.locator("#go")).to_have_attribute("data-lit", "true")
    page.locator("#paddle-b").focus()
    page.keyboard.down(" ")
    expect(page.locator("#paddle-b")).to_have_attribute("data-pressed", "true")
    page.keyboard.up(" ")
    result = client.wait_for_event("result")
    assert (result["winner"], result["reason"]) == ("b", "faster")
    expect(page.locator("#paddle-b")).to_have_attribute("data-pressed", "false")


def test_the_simulated_units_panel_draws_what_it_is_fed_and_refuses_a_press(page):
    room = Room(seats=2, rng=random.Random(1), host_key=KEY)
    panel = UnitPanel(gate=room.host_gate)
    table = panel.table(None)  # as a LiveSimulatedUnit's table hook
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    app = create_app(room, addons=[panel])
    with free_port() as (sock, url), served(app, sock):
        page.goto(f"{url}/panel#host={KEY}")  # carried on from the host's display
        expect(page.locator("#status")).to_have_text("connected")
        expect(page.locator("#where")).to_contain_text("The simulated unit")
        go = {**idle_outputs(), "go": True, "buzzer": True}

        def feed():  # from another thread, as the unit's worker thread does
            table.event(None, Event("state", 8, {"state": "go", "previous": "hold"}))
            table.event(None, Event("outputs", 8, go))

        worker = threading.Thread(target=feed)
        worker.start()
        worker.join()
        expect(page.locator("#go")).to_have_attribute("data-lit", "true")
        expect(page.locator("#buzzer")).to_have_attribute("data-lit", "true")
        page.locator("#paddle-a").click()
        expect(page.locator("#refused")).to_have_text(SIM_PRESS_TEXT)
        expect(page.locator("#paddle-a")).to_have_attribute("data-pressed", "false")
    assert requests and all(r.startswith(url) for r in requests)  # nothing from elsewhere
