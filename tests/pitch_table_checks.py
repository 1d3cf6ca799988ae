"""What the Pitch table's tests share: a search of a frame for hidden cards.

A frame holds a card if it holds its code as a word (``AH``, ``HJ``) or its
name (``ace of hearts``, ``high joker``) anywhere in its text, the log's lines
of the hand being played included (the older hands' lines name cards that
were played then, public since). A connection may be shown the cards played
and burned face up this hand, and a phone its own hand; any other card is
hidden from it (another seat's hand, the stock, a stock passed unseen, a
face-down burn, the discards).
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.pitch import DECK
from engine.pitch.words import card_name

__all__ = ["cards_shown", "public_cards", "hidden_shown", "check_frames"]

_CODES = re.compile(r"(?<![\w+!=])({})(?![\w+!=])".format("|".join(DECK)))
_NAMES = {card_name(c).lower(): c for c in DECK}
_NAME_RE = re.compile(
    r"(?<![\w])({})(?![\w])".format("|".join(re.escape(n) for n in _NAMES)), re.IGNORECASE
)
#: The trump's words name its off-jack (a rule, not where the card is).
_OFF_JACK = re.compile(r"the off-jack: [^)]*")
#: The host's QR codes (SVG paths): no text of the table's.
_SKIPPED = ("host_qr", "join_qr")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k not in _SKIPPED for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _this_hand(message: dict[str, Any]) -> dict[str, Any]:
    """The message with only the log's lines of the hand being played (newest first)."""
    if message.get("type") != "view":
        return message
    view = dict(message["view"])
    log = list(view.get("log") or [])
    view["log"] = log[: log.index("---")] if "---" in log else log
    return {**message, "view": view}


def cards_shown(message: dict[str, Any]) -> set[str]:
    """Every card a message shows, by code or by name (the log: this hand's lines)."""
    found: set[str] = set()
    for text in _strings(_this_hand(message)):
        text = _OFF_JACK.sub("", text)
        found.update(_CODES.findall(text))
        found.update(_NAMES[n.lower()] for n in _NAME_RE.findall(text))
    return found


def public_cards(game) -> set[str]:
    """The cards anybody may see now: played this hand, burned face up."""
    played = {c for trick in game.tricks for _, c in trick.cards} | {c for _, c in game.trick}
    burned = set() if game.rules.burn_face == "down" else {c for _, c in game.burned}
    return played | burned


def hidden_shown(game, seat: int | None, message: dict[str, Any]) -> set[str]:
    """The hidden cards ``message`` shows to the holder of ``seat`` (None: no seat)."""
    allowed = public_cards(game) | (set(game.hand(seat)) if seat is not None else set())
    return cards_shown(message) - allowed


def check_frames(room, conns: dict[str, Any]) -> int:
    """Take every frame waiting for ``conns`` (name -> connection) and check it
    now: no hidden card, no other seat's ``you``. How many frames were checked."""
    game, count = room.game, 0
    for who, conn in conns.items():
        for text in room.take(conn):
            message = json.loads(text)
            count += 1
            if message["type"] == "view":
                you = message["view"]["you"]
                assert you is None or you["seat"] == conn.seat, (who, you)
            if game is not None:
                leaked = hidden_shown(game, conn.seat, message)
                assert not leaked, (who, sorted(leaked), message)
    return count
