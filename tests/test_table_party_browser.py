"""UNO Party! at the browser table in a real Chromium (Playwright on Debian's
Chromium), phones at 390x844 with touch: the host chooses Party! and a house
rule on the form; two phones light their speed-play button on the identical
card, the first tap wins and the second is told who was first; a Point Taken
shows its 3-2-1 count on the display, each phone picks a target that only it
sees (checked on every frame each page receives) until the last is in, and the
display then reveals everyone's pointing at once; the mini pile and the link on
the display. Screenshots go to docs/screenshots/party-*.png."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.screenshots import SHOTS
from tests.table_helpers import Frames, free_port, served

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
NAMES = ("Ann", "Bob", "Cy", "Di")
HOST_KEY = "party-host-key"
# Ann to act on R5; Bob and Cy both hold the identical R5; Cy also a Point Taken.
SPEED = "party R7,G7/R5,B1,B2/R5,RP,W G1,G2,G3,G4,G5,G6 R1,R5 R + 0 play - - 0,0,0 2 1 500 - 1:0 -"
# A pile up (W, G3: green) that Cy must add to, Bob and Di linked.
# Ann holds a Wild Drawn Together; Bob and Di are linked.
LINKED = (
    "party WT,R2,R3/B2,B1/Y3,R4/G5,G6 G1,G2,G3,G4,G5,G6,G7,G8 R1 R + 0 play - - 0,0,0,0 "
    "3 1 500 - 1:0 link=1+3"
)
PILE = (
    "party R2,R3/B2,G9,W/Y3,G4/B6,B7 B5,B8,G1,G2 R1,WP G + 2 pile - - 0,0,0,0 3 1 500 - "
    "1:0 link=1+3;pile=W,G3"
)


def restored_room(notation: str, url: str):
    from engine.apps.table.room import Room
    from engine.uno.party import PartyGame

    game = PartyGame.from_notation(notation)
    room = Room(
        seats=game.players,
        rng=random.Random(4),
        code="PRTY",
        join_url=f"{url}/phone",
        host_key=HOST_KEY,
    )
    room.restore(
        {
            "format": 1,
            "code": "PRTY",
            "match_id": "m1",
            "variant": "party",
            "target": 500,
            "house_rules": "-",
            "seats": [
                {"name": NAMES[n], "kind": "person", "secret": f"secret-{n}", "reaction_ms": None}
                for n in range(game.players)
            ],
            "notation": notation,
            "showdowns": 0,
            "decisions": 0,
            "log": [],
        }
    )
    return room


def seated_phone(browser, url: str, seat: int):
    """A phone (390x844, touch) that holds ``seat`` by the secret it kept."""
    context = browser.new_context(**PHONE)
    context.add_init_script(f"localStorage.setItem('uno-showdown.secret', 'secret-{seat}')")
    page = context.new_page()
    frames = Frames(page)
    page.goto(f"{url}/phone")
    page.locator("#game").wait_for(state="visible")
    return page, frames


def display_page(browser, url: str):
    """The host's display (opened from the host URL)."""
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    frames = Frames(page)
    page.goto(f"{url}/#host={HOST_KEY}")
    return page, frames


def test_the_host_chooses_party_and_its_house_rules_on_the_form(browser):
    from engine.apps.table.room import Room
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = Room(
            seats=12, rng=random.Random(6), code="PRTY", join_url=f"{url}/phone", host_key=HOST_KEY
        )
        room.variant = "party"  # showdown table --variant party
        with served(create_app(room, pace_s=0.8, round_pause_s=60), sock):
            display, frames = display_page(browser, url)
            phone = browser.new_context(**PHONE).new_page()
            phone.goto(f"{url}/phone?code=PRTY")
            phone.locator("#free-seats button[data-seat='0']").tap()
            phone.locator("#name").fill("Ann")
            phone.locator("#join-button").tap()
            phone.locator("#game").wait_for(state="visible")
            expect(display.locator("#variant")).to_have_value("party")
            display.locator("details.house-rules summary").click()
            expect(display.locator("#party-rules")).to_be_visible()
            expect(display.locator("#classic-rules")).to_be_hidden()
            display.locator("#bots").fill("11")
            display.locator("#p-pile-refuse").check()
            display.locator("#p-relink").select_option("keep")
            display.locator("#p-uno").fill("4")
            display.locator("#host").screenshot(path=str(SHOTS / "party-display-setup.png"))
            display.locator("#start").click()
            display.locator("#top [data-card]").wait_for()
            assert room.game.players == 12
            assert str(room.game.house_rules) == "pile_refuse=yes,relink=keep,uno=4"
            rules = display.locator("#rules li")
            expect(rules.first).to_have_text("Party to 500 points")
            expect(display.locator("#rules")).to_contain_text("taking a pile you could add to: on")
            expect(display.locator("#seats li")).to_have_count(12)
            assert frames.errors == []


def test_speed_play_race_and_point_taken_pointing_revealed_at_once(browser):
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = restored_room(SPEED, url)
        with served(create_app(room, pace_s=0.8, round_pause_s=60), sock):
            display, display_frames = display_page(browser, url)
            pages = [seated_phone(browser, url, seat) for seat in range(3)]
            (ann, ann_frames), (bob, bob_frames), (cy, cy_frames) = pages
            # The speed-play button lights on both phones holding R5, not on Ann's.
            expect(bob.locator("#speed button")).to_have_text("SPEED! Play R5 now")
            expect(cy.locator("#speed button")).to_be_visible()
            expect(ann.locator("#speed")).to_be_hidden()
            expect(display.locator("#party-speed")).to_be_visible()
            bob.screenshot(path=str(SHOTS / "party-phone-speed.png"))
            # Bob taps first; Cy's claim, sent a moment later, is too late. (Bob's
            # play is awaited first: the two pages' sockets keep no order between
            # them, and a busy Chromium could send his tap's message after hers.)
            bob.locator("#speed button").tap()
            expect(display.locator("#log li").first).to_have_text(
                re.compile(r"Bob speed-plays R5 out of turn( \(\d left\))?; Cy plays next\.")
            )
            cy.evaluate("window.tableLink.act('speed R5')")
            expect(cy.locator("#refused")).to_have_text("too late: Bob played first")
            expect(cy.locator("#turn")).to_have_text("Your turn")
            # Cy plays her Point Taken: the display counts 3-2-1, everyone points.
            cy.locator("#hand button[data-card='RP']").tap()
            expect(display.locator("#party-count")).to_have_text("3")
            expect(display.locator("#party-point")).to_contain_text("Point Taken by Cy")
            for page in (ann, bob, cy):
                expect(page.locator("#pointing button")).to_have_count(2)
            ann.screenshot(path=str(SHOTS / "party-phone-point.png"))
            ann.locator("#pointing button[data-action='point 1']").tap()
            expect(ann.locator("#pointing")).to_have_text("You point at Bob.")
            bob.locator("#pointing button[data-action='point 2']").tap()
            expect(bob.locator("#pointing")).to_have_text("You point at Cy.")
            expect(display.locator("#party-waiting")).to_contain_text("Waiting for Cy")
            expect(display.locator("#party-count")).to_have_text("Point!")
            display.screenshot(path=str(SHOTS / "party-display-point.png"))
            # Nobody's choice has reached any other page yet, on the wire or on screen.
            assert "You point at" not in cy.locator("body").inner_text()
            assert "You point at" not in display.locator("body").inner_text()
            before_last = {
                "display": list(display_frames.messages),
                "ann": list(ann_frames.messages),
                "bob": list(bob_frames.messages),
                "cy": list(cy_frames.messages),
            }
            cy.locator("#pointing button[data-action='point 1']").tap()
            reveal = display.locator("#party-reveal")
            expect(reveal.locator(".pointing li")).to_have_text(
                ["Ann → Bob", "Bob → Cy", "Cy → Bob"]
            )
            expect(reveal.locator(".pointing-draws li")).to_have_text(["Bob draws 2", "Cy draws 1"])
            display.screenshot(path=str(SHOTS / "party-display-reveal.png"))
            own = {"display": None, "ann": 0, "bob": 1, "cy": 2}
            for who, messages in before_last.items():
                views = [m["view"] for m in messages if m.get("type") == "view"]
                assert views
                for view in views:
                    assert (view.get("party") or {}).get("reveal") is None
                    you = view.get("you")
                    if you is not None:
                        assert you["seat"] == own[who]
                        chosen = (you.get("point") or {}).get("chosen")
                        assert chosen is None or who in ("ann", "bob")
                    text = str(view)
                    for name in ("Bob", "Cy"):
                        if who not in ("ann", "bob"):
                            assert f"You point at {name}" not in text
            for frames in (display_frames, ann_frames, bob_frames, cy_frames):
                assert frames.errors == []


def test_the_mini_pile_and_the_link_on_the_display_and_the_phone(browser):
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = restored_room(PILE, url)
        with served(create_app(room, pace_s=0.8, round_pause_s=60), sock):
            display, frames = display_page(browser, url)
            cy, _ = seated_phone(browser, url, 2)
            expect(display.locator("#party-pile .pile-cards [data-card]")).to_have_count(2)
            expect(display.locator("#party-pile")).to_contain_text(
                "Pile up: 2 cards, green. Cy adds or takes."
            )
            expect(display.locator("#party-link")).to_have_text("Linked: Bob and Di draw together.")
            expect(cy.locator("#prompt")).to_have_text(
                "Pile up! Add a green card or a wild to the pile (2 cards)."
            )
            expect(cy.locator("#hand button.legal")).to_have_count(1)
            display.screenshot(path=str(SHOTS / "party-display-pile.png"))
            cy.screenshot(path=str(SHOTS / "party-phone-pile.png"))
            cy.locator("#hand button.legal").tap()
            expect(display.locator("#party-pile .pile-cards [data-card]")).to_have_count(3)
            expect(display.locator("#party-pile")).to_contain_text("Di adds or takes.")
            assert frames.errors == []


def test_a_wild_drawn_together_links_the_two_players_the_phone_picks(browser):
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = restored_room(LINKED, url)
        with served(create_app(room, pace_s=0.8, round_pause_s=60), sock):
            display, frames = display_page(browser, url)
            ann, ann_frames = seated_phone(browser, url, 0)
            expect(display.locator("#party-link")).to_have_text("Linked: Bob and Di draw together.")
            ann.locator("#hand button[data-card='WT']").tap()
            expect(ann.locator("#chooser")).to_be_visible()
            ann.locator("#link-a").select_option("0")
            ann.locator("#link-b").select_option("2")
            ann.screenshot(path=str(SHOTS / "party-phone-link.png"))
            ann.locator("#chooser button[data-key='link-G']").tap()
            expect(display.locator("#party-link")).to_have_text("Linked: Ann and Cy draw together.")
            expect(display.locator("#log li").first).to_have_text(
                "Ann links Ann and Cy: when one draws, the other draws as many."
            )
            assert room.game.links == (0, 2)
            assert frames.errors == [] and ann_frames.errors == []


# A pile of one card (G3: green) that Cy must add to.
PILE_OF_ONE = (
    "party R2,R3/B2,G9,W/Y3,G4/B6,B7 B5,B8,G1,G2 R1,WP G + 2 pile - - 0,0,0,0 3 1 500 - 1:0 pile=G3"
)


def test_a_pile_of_one_card_is_said_in_the_singular(browser):
    """Issue 22: "Pile up: 1 cards"."""
    from engine.apps.table.server import create_app

    with free_port() as (sock, url):
        room = restored_room(PILE_OF_ONE, url)
        with served(create_app(room, pace_s=0.8, round_pause_s=60), sock):
            display, frames = display_page(browser, url)
            cy, _ = seated_phone(browser, url, 2)
            expect(display.locator("#party-pile")).to_contain_text(
                "Pile up: 1 card, green. Cy adds or takes."
            )
            expect(cy.locator("#prompt")).to_have_text(
                "Pile up! Add a green card or a wild to the pile (1 card)."
            )
            assert frames.errors == []
