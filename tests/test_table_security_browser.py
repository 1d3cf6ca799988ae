"""The table's site against other sites, in a real Chromium (Playwright on Debian's
Chromium): a page from another origin (a second server on another port) cannot
open the table's socket, act, or frame the display, and the table's log names the
origin; every page of the table (display, phone, companion, panel, history) loads
under its Content-Security-Policy with no console error, no failed request (the
favicon included) and its own socket connected."""

from __future__ import annotations

import contextlib
import http.server
import logging
import random
import threading

import pytest
from playwright.sync_api import expect

from engine.apps.table.companion import CompanionRoom
from engine.apps.table.history_page import HistoryPage
from engine.apps.table.panel import UnitPanel
from engine.apps.table.room import Room
from engine.apps.table.server import create_app
from engine.units.unit_history import HistoryBook
from tests.table_helpers import free_port, served

pytestmark = pytest.mark.slow

#: The attacker's page: it opens the table's socket as a display and, if that
#: worked, starts a match; what happened is left in document.title.
ATTACK = """<!doctype html><html><head><meta charset="utf-8"><title>waiting</title></head>
<body><iframe id="frame" src="TABLE/"></iframe><script>
const ws = new WebSocket("WS/ws");
const seen = [];
ws.onopen = () => {
  seen.push("open");
  ws.send(JSON.stringify({type: "hello", role: "display"}));
  ws.send(JSON.stringify({type: "host", cmd: "start", bots: 2}));
};
ws.onmessage = () => seen.push("message");
ws.onerror = () => seen.push("error");
ws.onclose = (event) => { seen.push("close " + event.code); document.title = seen.join(", "); };
</script></body></html>
"""


@contextlib.contextmanager
def other_site(page_text: str):
    """A second web server on another port serving ``page_text`` at /: its URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = page_text.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_from_another_origin_cannot_connect_act_or_frame_the_table(page, caplog):
    caplog.set_level(logging.WARNING, logger="engine.apps.table.refused")
    room = Room(seats=4, rng=random.Random(1), code="TEST")
    with free_port() as (sock, table), served(create_app(room, pace_s=0), sock):
        attack = ATTACK.replace("TABLE", table).replace("WS", table.replace("http:", "ws:"))
        with other_site(attack) as evil:
            page.goto(evil)
            expect(page).to_have_title("error, close 1006")
            frame = page.frame_locator("#frame")
            expect(frame.locator("body")).not_to_contain_text("UNO Showdown")
        assert room.connections == [] and room.match is None  # nothing reached the room
        # The table's own page, from the table, connects as ever.
        page.goto(f"{table}/")
        expect(page.locator("#status")).to_contain_text("connected")
    port = table.rsplit(":", 1)[1]
    assert caplog.messages == [
        f"refused a WebSocket for /ws from 127.0.0.1: its page is from {evil!r}, not this "
        f"table (127.0.0.1:{port})"
    ]


@pytest.fixture
def site():
    """The table with its add-ons (the history page, the simulated unit's panel)
    and a companion table, each on its own free port: their URLs."""
    room = Room(seats=4, rng=random.Random(1), code="TEST")
    table_app = create_app(room, pace_s=0, addons=[HistoryPage(HistoryBook()), UnitPanel()])
    companion_app = create_app(CompanionRoom(), display_page="companion.html")
    with free_port() as (sock, table), free_port() as (sock2, companion):
        room.join_url = f"{table}/phone"
        with served(table_app, sock), served(companion_app, sock2):
            yield table, companion


def test_every_page_loads_under_its_policy_with_no_console_error(site, context):
    table, companion = site
    pages = {
        "display": (f"{table}/", "connected"),
        "phone": (f"{table}/phone", "connected"),
        "panel": (f"{table}/panel", "connected"),
        "history": (f"{table}/history", "updated"),
        "companion": (f"{companion}/", "connected"),
    }
    problems: list[str] = []
    for name, (url, ready) in pages.items():
        page = context.new_page()
        page.on(
            "console",
            lambda m, name=name: (
                problems.append(f"{name}: console {m.type}: {m.text}")
                if m.type in ("error", "warning")
                else None
            ),
        )
        page.on("pageerror", lambda e, name=name: problems.append(f"{name}: {e}"))
        page.on("requestfailed", lambda r, name=name: problems.append(f"{name}: failed {r.url}"))
        page.on(
            "response",
            lambda r, name=name: (
                problems.append(f"{name}: {r.status} {r.url}") if r.status >= 400 else None
            ),
        )
        page.goto(url)
        expect(page.locator("#status")).to_contain_text(ready)
        icon = page.evaluate(
            "fetch('/favicon.ico').then(r => r.status + ' ' + r.headers.get('content-type'))"
        )
        assert icon == "200 image/svg+xml", name
        page.close()
    assert problems == []
