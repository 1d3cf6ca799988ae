"""What a page that fits means, measured in the page: no sideways scroll, no element
whose right edge leaves the viewport, no name or count clipped (it fits, or it ends
in an ellipsis and carries the full text in a title)."""

from __future__ import annotations

import random
from typing import Any

from firmware_host.protocol import MAX_NAME_CHARS

HOST_KEY = "layout-host-key"
CODE = "WIDE"

#: The page's problems, as short strings ("" entries never; [] when it fits).
LAYOUT_PROBLEMS = """(names) => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  if (document.documentElement.scrollWidth > width)
    problems.push(`scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  const visible = (el) => el.getClientRects().length > 0 &&
    getComputedStyle(el).visibility !== "hidden";
  // inside a scroller of its own (the log, a hand) an element may run on: the box scrolls
  const scrolled = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden") return true;
    }
    return false;
  };
  for (const el of document.body.querySelectorAll("*")) {
    if (!visible(el) || el.closest(".visually-hidden") || scrolled(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 0.5)
      problems.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className} ends at ${Math.round(r.right)} > ${width}`);
  }
  // text that runs out of its own box (a long word that does not wrap)
  for (const el of document.body.querySelectorAll("main *")) {
    if (!visible(el) || el.closest(".visually-hidden") || scrolled(el)) continue;
    if (["SELECT", "INPUT", "TEXTAREA", "IMG", "svg"].includes(el.tagName)) continue;
    if (getComputedStyle(el).overflowX === "visible" && el.clientWidth > 0 &&
        el.scrollWidth > el.clientWidth + 1 && !el.matches(names))
      problems.push(`overflows its box: ${el.tagName.toLowerCase()}#${el.id}.${el.className}`);
  }
  for (const el of document.querySelectorAll(names)) {
    if (!visible(el)) continue;
    const clipped = el.scrollWidth > el.clientWidth + 1;
    const ellipsis = getComputedStyle(el).textOverflow === "ellipsis" && el.title === el.textContent.trim();
    if (clipped && !ellipsis)
      problems.push(`clipped: ${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim()}"`);
  }
  return problems.slice(0, 12);
}"""

#: The ids of the elements matching the selector that are not wholly inside the viewport.
OUT_OF_VIEW = """(selector) => {
  const w = document.documentElement.clientWidth, h = document.documentElement.clientHeight;
  return [...document.querySelectorAll(selector)]
    .filter((el) => el.getClientRects().length > 0)
    .filter((el) => { const r = el.getBoundingClientRect();
      return r.left < 0 || r.top < 0 || r.right > w + 0.5 || r.bottom > h + 0.5; })
    .map((el) => el.id || el.textContent.trim());
}"""


def long_name(n: int) -> str:
    """A name of the longest length the server keeps, different for each seat."""
    return f"Seat{n + 1} Maximiliana Wolfeschlegelsteinhausen"[:MAX_NAME_CHARS]


def room_at(url: str, players: int, variant: str) -> Any:
    """A room restored mid-round: ``players`` people with the longest names,
    whose phones hold the secrets ``secret-<seat>``."""
    from engine.apps.table.room import Room
    from engine.uno import new_game

    game = new_game(players, variant, seed=players)
    room = Room(
        seats=players, rng=random.Random(3), code=CODE, join_url=f"{url}/phone", host_key=HOST_KEY
    )
    room.restore(
        {
            "format": 1,
            "code": CODE,
            "match_id": "m1",
            "variant": variant,
            "target": 500,
            "house_rules": "-",
            "seats": [
                {
                    "name": long_name(n),
                    "kind": "person",
                    "secret": f"secret-{n}",
                    "reaction_ms": None,
                }
                for n in range(players)
            ],
            "notation": game.notation(reveal=True),
            "showdowns": 0,
            "decisions": 0,
            "log": [f"{long_name(n)} plays a card." for n in range(players)],
        }
    )
    return room
