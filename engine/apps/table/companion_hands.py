"""Companion mode's hands: what the hands left at the end of a round are worth.

The host enters, for each player who did not win, the points left in the hand
or its cards (counted with the engine's card values, so the score is exact), or
the points of all those hands in one total (``engine.apps.table.companion``).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from engine.game.errors import NotationError
from engine.uno.cards import Card
from engine.uno.rules import classic_deck, load_showdown_deck

__all__ = ["hand_points", "round_hands"]

_DIGITS = re.compile(r"[0-9]+")
_CARD_SEPARATORS = re.compile(r"[\s,;]+")


@functools.cache
def _deck_limits() -> tuple[int, int]:
    """(cards, points) of the biggest deck: no hand holds more."""
    decks = (classic_deck(), load_showdown_deck())
    return max(map(len, decks)), max(sum(card.points for card in deck) for deck in decks)


def hand_points(value: Any, whose: str = "the hand") -> tuple[int, list[str] | None]:
    """What a hand left at the end of a round is worth: ``value`` is its points
    (a whole number, or its text) or its cards (their texts, in a list or one
    string, separated by spaces or commas; lower case is fine). Returns
    ``(points, cards)`` (cards None when points were given); ValueError naming
    ``whose`` hand otherwise.

    >>> hand_points("r5 g+2, W+4 ws"), hand_points(37), hand_points("12")
    ((115, ['R5', 'G+2', 'W+4', 'WS']), (37, None), (12, None))
    >>> hand_points("R5 X9", "Bob's hand")
    Traceback (most recent call last):
    ...
    ValueError: Bob's hand: invalid card 'X9': expected e.g. R5, B+2, YR, GS, W, W+4, WS or R7!2
    """
    most_cards, most_points = _deck_limits()
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        value = int(value.strip())
    if type(value) is int:
        if not 0 <= value <= most_points:
            raise ValueError(
                f"{whose}: {value} points is not a whole number from 0 to {most_points} "
                "(the whole deck)"
            )
        return value, None
    if isinstance(value, str):
        texts = [text for text in _CARD_SEPARATORS.split(value.strip()) if text]
    elif isinstance(value, list) and all(isinstance(text, str) for text in value):
        texts = [text.strip() for text in value]
    else:
        texts = []
    if not texts:
        raise ValueError(
            f"{whose}: give its points (a whole number) or its cards (e.g. R5 G+2 W+4), "
            f"not {json.dumps(value, ensure_ascii=False)}"
        )
    if len(texts) > most_cards:
        raise ValueError(f"{whose}: {len(texts)} cards is more than a deck holds ({most_cards})")
    try:
        cards = [Card.parse(text.upper()) for text in texts]
    except NotationError as exc:
        raise ValueError(f"{whose}: {exc}") from None
    return sum(card.points for card in cards), [str(card) for card in cards]


def round_hands(
    message: dict[str, Any], players: list[str], winner: int
) -> str | tuple[int, list[dict[str, Any]]]:
    """The points the round is won for and each hand's entry (``{seat,
    points, cards}``; none when a total was given), from the host's ``round``
    message: its ``points`` (the total) or its ``hands`` (each player's but the
    winner's, by seat number); or why they are refused, in words."""
    others = [n for n in range(len(players)) if n != winner]
    if "points" in message and "hands" in message:
        return "give the points in total or each hand, not both"
    if "points" in message:
        try:
            total, _ = hand_points(message["points"], "the points left in the other hands")
        except ValueError as exc:
            return str(exc)
        return total, []
    given = message.get("hands")
    if not isinstance(given, dict):
        return (
            "give the points left in the other hands (points) or each hand "
            '(hands: {"1": "R5 G+2"} or {"1": 27})'
        )
    seats = {}
    for key, value in given.items():
        seat = int(key) if _DIGITS.fullmatch(key) else None
        if seat is None or seat not in others:
            names = ", ".join(f"{n} ({players[n]})" for n in others)
            return f"hands are for the players who did not win: {names}; not {key!r}"
        seats[seat] = value
    missing = [players[n] for n in others if n not in seats]
    if missing:
        return f"{' and '.join(missing)}: give the points or the cards left in the hand"
    hands: list[dict[str, Any]] = []
    for seat in others:
        try:
            points, cards = hand_points(seats[seat], f"{players[seat]}'s hand")
        except ValueError as exc:
            return str(exc)
        hands.append({"seat": seat, "points": points, "cards": cards})
    return sum(hand["points"] for hand in hands), hands
