"""Card faces (static/cards.js) in a real Chromium: every card of every family, taken
from the engines' own decks (classic, Showdown, UNO Party!, every code in the UNO code
space, Pitch's 54), drawn through the pages' own call sites (common.js ``cardElement``,
pitch_cards.js ``pitchCard``) has its central glyph, two corner indices, its colour
letter or suit, a "+N" badge where it draws, and its words. The pages are served to
the browser from the static folder by a route (no server, no socket). The card
sheets go to docs/screenshots/cards-uno.png and cards-pitch.png.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

import pytest

from engine.pitch.cards import DECK as PITCH_DECK
from engine.uno.cards import TEXT
from engine.uno.party_rules import load_party_deck
from engine.uno.rules import classic_deck, load_showdown_deck
from tests.screenshots import SHOTS

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "engine" / "apps" / "table" / "static"
ORIGIN = "http://cards.test"

#: A page with the stylesheets the display links, and nothing else.
SHEET = """<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/static/table.css"><link rel="stylesheet" href="/static/pitch.css">
<link rel="stylesheet" href="/static/cards.css"></head>
<body style="background:#0b3d20;padding:12px"><div id="sheet" style="display:flex;flex-wrap:wrap;gap:10px"></div>
</body></html>"""

#: Draws the given cards with the pages' call sites; returns what each face shows.
DRAW = """async ([family, cards]) => {
  const sheet = document.getElementById("sheet");
  const make = family === "uno"
    ? (await import("/static/common.js")).cardElement
    : (text) => pitchCard({ text, suit: text.endsWith("J") ? "J" : text[1] });
  const { pitchCard } = await import("/static/pitch_cards.js");
  const text = (el, sel) => { const e = el.querySelector(sel); return e ? e.textContent : null; };
  return cards.map((card) => {
    const el = make(card);
    sheet.append(el);
    const glyph = el.querySelector(".glyph");
    return {
      card: el.dataset.card, label: el.getAttribute("aria-label"), title: el.title,
      glyph: text(el, ".glyph"), corners: [...el.querySelectorAll(".corner")].map((c) => c.textContent),
      letter: text(el, ".cletter"), draw: text(el, ".badge.draw"), showdown: text(el, ".badge.showdown"),
      glyphSize: parseFloat(getComputedStyle(glyph).fontSize),
      visible: glyph.getBoundingClientRect().width > 0,
    };
  });
}"""


def _open_sheet(page):
    def serve(route):
        path = route.request.url.removeprefix(ORIGIN)
        if path == "/sheet":
            return route.fulfill(body=SHEET, content_type="text/html")
        file = STATIC / path.removeprefix("/static/")
        if path.startswith("/static/") and file.is_file():
            kind = mimetypes.guess_type(file.name)[0] or "text/plain"
            return route.fulfill(body=file.read_bytes(), content_type=kind)
        return route.fulfill(status=404, body="")

    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/sheet")


def uno_cards() -> list[str]:
    """Every distinct card of the engines' decks first, then every other code."""
    decks = [*classic_deck(), *load_showdown_deck(), *load_party_deck()]
    cards = list(dict.fromkeys(str(c) for c in decks))
    return cards + [t for t in TEXT if t and t not in cards]


#: What the words of a rank are, by the text after the colour letter.
RANK_WORDS = {"+2": "draw two", "R": "reverse", "S": "skip", "P": "point taken"}
WILD_WORDS = {
    "W": "wild",
    "W+4": "wild draw four",
    "WS": "wild showdown",
    "WP": "wild pile up",
    "WT": "wild drawn together",
}
COLOUR_WORDS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}


def expected_uno_words(text: str) -> str:
    face, _, showdown = text.partition("!")
    if face in WILD_WORDS:
        words = WILD_WORDS[face]
    else:
        words = f"{COLOUR_WORDS[face[0]]} {RANK_WORDS.get(face[1:], face[1:])}"
    return f"{words}, showdown {showdown}" if showdown else words


def test_every_uno_card_of_every_deck_is_drawn_with_glyph_corners_colour_letter_and_words(page):
    cards = uno_cards()
    assert {"R2!1", "WT", "WP", "RP", "W+4", "WS", "B+2", "GS", "YR"} <= set(cards)
    page.set_viewport_size({"width": 1400, "height": 900})
    _open_sheet(page)
    faces = page.evaluate(DRAW, ["uno", cards])
    assert [f["card"] for f in faces] == cards
    for face in faces:
        text = face["card"]
        wild = text[0] == "W" and text in WILD_WORDS
        assert face["label"] == expected_uno_words(text), face
        assert face["title"] == face["label"], face
        assert face["glyph"] and face["visible"], face
        assert len(face["corners"]) == 2 and face["corners"][0] == face["corners"][1], face
        # an index, never the bare code (but a plain wild's index is its "W")
        assert face["corners"][0] and (face["corners"][0] != text or text == "W"), face
        assert face["letter"] == ("W" if wild else text[0]), face
        draws = {"+2": "+2", "W+4": "+4"}.get(text.partition("!")[0].lstrip("RYGB") or "")
        assert face["draw"] == draws, face
        showdown = text.partition("!")[2]
        assert face["showdown"] == (f"!{showdown}" if showdown else None), face
        assert face["glyphSize"] > 22, face  # bigger than the card's own 22 px text
    # the two P cards differ: Point Taken on a colour, Pile Up on a wild
    by_card = {f["card"]: f for f in faces}
    assert by_card["RP"]["glyph"] != by_card["WP"]["glyph"]
    assert by_card["RP"]["corners"][0] != by_card["WP"]["corners"][0]
    # the sheet: the engines' decks' distinct cards (the first ones drawn)
    page.evaluate(
        "n => { const s = document.getElementById('sheet'); [...s.children].slice(n).forEach(e => e.remove()); }",
        len({str(c) for c in [*classic_deck(), *load_showdown_deck(), *load_party_deck()]}),
    )
    page.locator("#sheet").screenshot(path=str(SHOTS / "cards-uno.png"))


def test_every_pitch_card_is_drawn_with_its_rank_and_suit_in_the_corners_and_words(page):
    page.set_viewport_size({"width": 1000, "height": 700})
    _open_sheet(page)
    faces = page.evaluate(DRAW, ["pitch", list(PITCH_DECK)])
    assert [f["card"] for f in faces] == list(PITCH_DECK)
    symbols = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
    suits = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
    ranks = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
    for face in faces:
        text = face["card"]
        if text in ("HJ", "LJ"):
            assert face["label"] == {"HJ": "high joker", "LJ": "low joker"}[text]
            assert face["glyph"] == {"HJ": "★", "LJ": "☆"}[text]
        else:
            rank = "10" if text[0] == "T" else text[0]
            assert face["label"] == f"{ranks.get(text[0], text[0])} of {suits[text[1]]}", face
            assert face["glyph"] == rank + symbols[text[1]], face
            assert face["corners"] == [rank + symbols[text[1]]] * 2, face
        assert face["title"] == face["label"] and face["visible"], face
    page.locator("#sheet").screenshot(path=str(SHOTS / "cards-pitch.png"))


def test_only_the_cards_a_line_names_beside_it_become_chips_and_the_text_stays(page):
    _open_sheet(page)
    got = page.evaluate(
        """async ([text, cards]) => {
          const { withCards } = await import("/static/cards.js");
          const line = document.createElement("p");
          line.append(...withCards(text, cards));
          document.body.append(line);
          return { text: line.textContent,
                   chips: [...line.querySelectorAll(".chip")].map((c) => [c.dataset.chip, c.getAttribute("aria-label")]) };
        }""",
        [
            "Ann plays B4!2 on B4; R9 stays a word; Bo leads AH.",
            [["uno", "B4!2"], ["pitch", "AH"], ["uno", "R9"]],
        ],
    )
    # B4 is not named beside the line, so it stays text; R9 is named and is a chip.
    assert got["chips"] == [
        ["B4!2", "blue 4, showdown 2"],
        ["R9", "red 9"],
        ["AH", "ace of hearts"],
    ]
    assert got["text"] == "Ann plays B4!2 on B4; R9 stays a word; Bo leads A♥."
