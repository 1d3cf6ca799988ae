"""Result messages for the league's tests, built as an uplink builds them
(``showdown_message`` / ``match_message``, then decoded off the wire)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from firmware_host.protocol.league import (
    ResultMessage,
    Status,
    decode_result,
    decode_status,
    encode,
    match_message,
    result_topic,
    showdown_message,
    status_message,
    status_topic,
)

__all__ = [
    "AT",
    "DAY",
    "journal_result",
    "showdown",
    "match",
    "status",
    "wire",
]

#: 2025-11-30 18:04:11.5 UTC.
AT = 1764525851.5
DAY = "2025-11-30"
NEXT_DAY_AT = AT + 86_400


def journal_result(
    showdown_id: str,
    a: str = "Ann",
    b: str = "Bob",
    launch: str = "launched",
    bots: Sequence[str] = (),
) -> dict[str, Any]:
    """A finished showdown as a unit's journal keeps it (the uplink's tests
    write it with ``Journal.record``): A faster by 50 ms."""
    return {
        "showdown_id": showdown_id,
        "players": {"a": a, "b": b},
        "bots": list(bots),
        "winner": "a",
        "loser": "b",
        "reason": "faster",
        "tie_reruns": 0,
        "reaction_us": {"a": 200_000, "b": 250_000},
        "margin_us": 50_000,
        "cards": 2,
        "launch": launch,
        "cards_counted": None,
    }


def wire(message: dict[str, Any]) -> ResultMessage:
    return decode_result(result_topic(message["venue"], message["unit"]), encode(message))


def showdown(
    n: int,
    a: str = "Ann",
    b: str = "Bob",
    *,
    winner: str | None = "a",
    reason: str = "faster",
    reaction_us: tuple[int | None, int | None] = (231_000, 264_000),
    bots: Sequence[str] = (),
    unit: str = "unit-1",
    venue: str = "bar-1",
    at: float = AT,
    showdown_id: str | None = None,
    cards: int = 2,
    n_seq: int | None = None,
) -> ResultMessage:
    """One showdown of ``unit``: ``winner`` ``a``, ``b`` or None (a timeout)."""
    loser = None if winner is None else "b" if winner == "a" else "a"
    if winner is None and reason == "faster":
        reason = "timeout"
    body = {
        "showdown_id": showdown_id or f"local-{n}",
        "players": {"a": a, "b": b},
        "winner": winner,
        "loser": loser,
        "reason": reason,
        "tie_reruns": 0,
        "reaction_us": {"a": reaction_us[0], "b": reaction_us[1]},
        "margin_us": None,
        "cards": cards,
        "launch": "launched" if winner else "none",
        "cards_counted": None,
        "bots": list(bots),
    }
    return wire(showdown_message(venue, unit, n if n_seq is None else n_seq, at, body))


def match(
    n: int,
    players: Sequence[tuple[str, bool, int]],
    winners: Sequence[str],
    *,
    unit: str = "table-1",
    venue: str = "bar-1",
    at: float = AT,
) -> ResultMessage:
    """One finished match of a browser table: ``players`` are (name, bot, score)."""
    seats = [{"name": name, "bot": bot, "score": score} for name, bot, score in players]
    message = match_message(
        venue, unit, n, at, f"m{n}", game="uno", players=seats, winners=winners, rounds=3
    )
    return wire(message)


def status(
    unit: str = "unit-1",
    state: str = "online",
    *,
    venue: str = "bar-1",
    at: float = AT,
    figures: dict[str, Any] | None = None,
    fault: str | None = None,
) -> Status:
    message = status_message(
        venue, unit, state, host="pi-1", version="0.1.0", at=at, figures=figures, fault=fault
    )
    return decode_status(status_topic(venue, unit), encode(message))
