"""What the league does with a batch of messages off the broker, without the broker.

The sans-IO half of the ingest (ingest.py is the MQTT shell): :func:`read`
turns one ``(topic, payload)`` into a :class:`Received` (a checked result, a
checked status, or a refusal with the reason and the place it came from);
:func:`take_batch` stores a batch's results in one ``store.store`` call,
records its statuses and refusals, and returns the acks to publish, one per
unit. Nothing here acks what the store did not commit: a store error leaves
:func:`take_batch` before any ack is built.

On top of the wire's own checks (firmware_host.protocol.league, which is
fixed), a result is refused here when its message carries a field the wire does
not define (``extra``), or a match body or a match's player does: the league
stores the canonical bytes, and what it cannot read it will not keep. A
showdown's body is the unit journal's result dict, which may grow: its extra
keys are kept.

>>> from firmware_host.protocol.league import encode, showdown_message, result_topic
>>> body = {"showdown_id": "s1", "players": {"a": "Ann", "b": "Bob"}, "winner": "a",
...     "loser": "b", "reason": "faster", "tie_reruns": 0, "reaction_us": {"a": 1, "b": 2},
...     "margin_us": 1, "cards": 2, "launch": "launched", "cards_counted": None, "bots": []}
>>> message = showdown_message("bar-1", "unit-2", 1, 1764525851.5, body)
>>> read(result_topic("bar-1", "unit-2"), encode(message)).result.id
'unit-2:s1'
>>> refused = read(result_topic("bar-1", "unit-2"), encode({**message, "extra": 1}))
>>> refused.refusal.reason, refused.refusal.claimed_id
("unknown field 'extra' (a result has: at, body, id, kind, seq, unit, v, venue)", 'unit-2:s1')
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from firmware_host.protocol.league import (
    MAX_PAYLOAD_BYTES,
    ResultMessage,
    Status,
    WireError,
    ack_message,
    ack_topic,
    decode_result,
    decode_status,
    encode,
    parse_topic,
)

__all__ = [
    "RESULT_FIELDS",
    "Refusal",
    "Received",
    "BatchStore",
    "Taken",
    "read",
    "take_batch",
]

log = logging.getLogger(__name__)

#: The fields of a result message (firmware_host.protocol.league.showdown_message).
RESULT_FIELDS = frozenset({"v", "id", "venue", "unit", "kind", "seq", "at", "body"})
#: The fields of a match's body and of one of its players (match_message).
MATCH_FIELDS = frozenset({"match_id", "game", "players", "winners", "rounds"})
MATCH_PLAYER_FIELDS = frozenset({"name", "bot", "score"})
#: How much of a refused message's reason is kept and logged.
REASON_CHARS = 300


@dataclass(frozen=True)
class Refusal:
    """A message the league will not store: where it came from (``venue`` and
    ``unit`` from its topic when the topic is one of ours), why, and the id it
    claimed (a result's, when its JSON names one: that unit is told in its ack,
    so its uplink stops resending it)."""

    topic: str
    reason: str
    venue: str | None = None
    unit: str | None = None
    claimed_id: str | None = None


@dataclass(frozen=True)
class Received:
    """One message off the broker, read: exactly one of the three is set."""

    result: ResultMessage | None = None
    status: Status | None = None
    refusal: Refusal | None = None


def read(topic: str, payload: bytes) -> Received:
    """Check one message: a result, a status, or a refusal saying why not."""
    try:
        venue, unit, leaf = parse_topic(topic)
    except WireError as exc:
        return Received(refusal=Refusal(topic[:200], str(exc)))
    try:
        if leaf == "status":
            return Received(status=decode_status(topic, payload))
        if leaf != "result":
            raise WireError(f"the league reads result and status topics, not {leaf!r}")
        result = decode_result(topic, payload)
        _check_fields(result)
        return Received(result=result)
    except WireError as exc:
        claimed = _claimed_id(payload) if leaf == "result" else None
        reason = str(exc)[:REASON_CHARS]
        return Received(refusal=Refusal(topic, reason, venue, unit, claimed))


def _check_fields(result: ResultMessage) -> None:
    """The fields the wire does not check: none but its own (see the module doc)."""
    message = json.loads(result.raw)
    _only(message, RESULT_FIELDS, "a result")
    if result.kind == "match":
        _only(result.body, MATCH_FIELDS, "a match")
        for player in result.body["players"]:
            _only(player, MATCH_PLAYER_FIELDS, "a match's player")


def _only(mapping: dict[str, Any], allowed: frozenset[str], what: str) -> None:
    extra = sorted(set(mapping) - allowed)
    if extra:
        raise WireError(
            f"unknown field {extra[0]!r} ({what} has: {', '.join(sorted(allowed))})"[:REASON_CHARS]
        )


def _claimed_id(payload: bytes) -> str | None:
    """The id a refused result's JSON claims, if it is short text; else None."""
    if len(payload) > MAX_PAYLOAD_BYTES:
        return None
    try:
        message = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    claimed = message.get("id") if isinstance(message, dict) else None
    return claimed if isinstance(claimed, str) and 0 < len(claimed) <= 200 else None


class BatchStore(Protocol):
    """What :func:`take_batch` needs of engine.league.store's Store."""

    def store(self, messages: list[ResultMessage]) -> list[tuple[str, str | None]]: ...
    def record_refusal(
        self, venue: str | None, unit: str | None, topic: str, reason: str, at: float
    ) -> None: ...
    def record_status(self, status: Status) -> None: ...


@dataclass(frozen=True)
class Taken:
    """What a batch came to: the acks to publish (``(topic, payload)``, one per
    unit with results in the batch) and what changed (``"results"`` when any
    result was stored or refused, ``"units"`` when a status or a refusal was
    recorded), for the pages."""

    acks: list[tuple[str, bytes]]
    changed: frozenset[str]


def take_batch(
    store: BatchStore, messages: Iterable[tuple[str, bytes]], now: Callable[[], float]
) -> Taken:
    """Read, record and store one batch; the acks for it (after the store's commit).

    Statuses and refusals are recorded one by one (a failure logged, the batch
    goes on); the results go to ``store.store`` in one call, one transaction.
    If that raises, so does this, and no ack is built: the uplinks resend."""
    results: list[ResultMessage] = []
    refused: dict[tuple[str, str], list[tuple[str, str]]] = {}
    changed: set[str] = set()
    for topic, payload in messages:
        received = read(topic, payload)
        if received.result is not None:
            results.append(received.result)
        elif received.status is not None:
            _record(store.record_status, received.status, what=f"the status on {topic}")
            changed.add("units")
        elif received.refusal is not None:
            refusal = received.refusal
            log.warning("refused a message on %s: %s", refusal.topic, refusal.reason)
            _record(
                store.record_refusal,
                refusal.venue,
                refusal.unit,
                refusal.topic,
                refusal.reason,
                now(),
                what=f"the refusal on {topic}",
            )
            changed.add("units")
            if refusal.claimed_id is not None and refusal.venue and refusal.unit:
                place = (refusal.venue, refusal.unit)
                refused.setdefault(place, []).append((refusal.claimed_id, refusal.reason))
    answers = store.store(results) if results else []
    if results:
        changed.add("results")
    return Taken(_acks(results, answers, refused), frozenset(changed))


def _record(method: Callable[..., None], *args: Any, what: str) -> None:
    try:
        method(*args)
    except Exception:  # the store's own error, or a bug: the batch goes on
        log.exception("could not record %s", what)


def _acks(
    results: Sequence[ResultMessage],
    answers: Sequence[tuple[str, str | None]],
    refused: dict[tuple[str, str], list[tuple[str, str]]],
) -> list[tuple[str, bytes]]:
    """One ack per unit: its ids stored and refused, each once, in batch order."""
    if len(answers) != len(results):
        raise RuntimeError(f"the store answered {len(answers)} of {len(results)} results")
    per_unit: dict[tuple[str, str], tuple[dict[str, None], dict[str, str]]] = {}
    for result, (id_, reason) in zip(results, answers, strict=True):
        stored, refusals = per_unit.setdefault((result.venue, result.unit), ({}, {}))
        if reason is None:
            stored.setdefault(id_, None)
        else:
            refusals.setdefault(id_, reason)
    for place, pairs in refused.items():
        stored, refusals = per_unit.setdefault(place, ({}, {}))
        for id_, reason in pairs:
            refusals.setdefault(id_, reason)
    return [
        (ack_topic(venue, unit), encode(ack_message(list(stored), list(refusals.items()))))
        for (venue, unit), (stored, refusals) in per_unit.items()
    ]
