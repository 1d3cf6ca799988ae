"""The cards a log line or a refusal names, said explicitly beside the text.

The pages draw a card named in a line of text as a small chip (static/cards.js,
``withCards``). Which words are cards is never guessed from the text: the room
lists, beside each log line, the cards the event that made it holds in its data
(``event_cards``: the card played, the card turned up, a showdown's cause) that
the line names as words (so it never says more than the line), and
beside a refusal the card of the refused action when the refusal names it
(``action_cards``). The text
itself is unchanged, so plain-text readers (the history page, saved logs, the
terminal) read it as before. Each card is ``[family, text]``: the family whose
table module lists the text in its ``CARD_TEXTS`` ("uno", "pitch"). See
docs/table.md, "Cards in the log and in refusals".

>>> event_cards({"player": 0, "card": "B4!2", "top": "R7", "draws": {}}, "Ann plays B4!2 on R7.")
[['uno', 'B4!2'], ['uno', 'R7']]
>>> event_cards({"player": 0, "card": "8D"}, "Ann plays the 8 of diamonds.")
[]
>>> action_cards({"type": "act", "action": "W+4=R"}, "W+4 is not legal now")
[['uno', 'W+4']]
>>> action_cards({"type": "act", "action": "AH"}, "you do not hold AH")
[['pitch', 'AH']]
>>> play_r9 = {"type": "act", "action": "R9"}
>>> action_cards(play_r9, "it is not your turn"), action_cards(play_r9, "R9!2 is not yours")
([], [])
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import Any

from engine.game.registry import FAMILIES, family

__all__ = ["CARD_KEYS", "card_of", "event_cards", "action_cards"]

#: The keys of an event's data that hold one card (engine.match's events, Pitch's).
CARD_KEYS = ("card", "top", "cause")


@functools.cache
def _family_of_card() -> dict[str, str]:
    """Card text -> its family, from every family's table module (once)."""
    found: dict[str, str] = {}
    for name in FAMILIES:
        for text in importlib.import_module(family(name).table).CARD_TEXTS:
            if found.setdefault(text, name) != name:
                raise ValueError(f"{text!r} is a card of {found[text]} and of {name}")
    return found


def card_of(value: Any) -> list[str] | None:
    """``[family, text]`` when ``value`` is the text of a card of some family."""
    if isinstance(value, str):
        name = _family_of_card().get(value)
        if name is not None:
            return [name, value]
    return None


def event_cards(data: Mapping[str, Any], line: str) -> list[list[str]]:
    """The cards an event's data names under CARD_KEYS that its log ``line``
    names as words, in that order, once each: never more than the line says
    (a line in words, "the 8 of diamonds", lists none)."""
    found: list[list[str]] = []
    for key in CARD_KEYS:
        card = card_of(data.get(key))
        if card is not None and card not in found and _names(line, card[1]):
            found.append(card)
    return found


def action_cards(message: Mapping[str, Any], refused: str) -> list[list[str]]:
    """The card of an action message ("R9", "W+4=R": the card before the "="),
    when the refusal ``refused`` names it as a word (else none: nothing to draw)."""
    action = message.get("action")
    if message.get("type") != "act" or not isinstance(action, str):
        return []
    card = card_of(action.split("=", 1)[0])
    if card is None or not _names(refused, card[1]):
        return []
    return [card]


def _names(text: str, card: str) -> bool:
    """Whether ``text`` holds the card text ``card`` as a whole word."""
    at = text.find(card)
    while at >= 0:
        end = at + len(card)
        if (at == 0 or not _word(text[at - 1])) and (end == len(text) or not _word(text[end])):
            return True
        at = text.find(card, at + 1)
    return False


def _word(char: str) -> bool:
    return char.isalnum() or char in "!+"
