"""The league's wire: what a unit's uplink and the league server say over MQTT.

Standard library only, like the rest of the protocol package, so the uplink
on the Pi and ``showdown league`` check every message with the same code.
The topics (``<venue>`` and ``<unit>`` are :func:`clean_place` names)::

    uno-showdown/v1/<venue>/<unit>/result   uplink -> league, QoS 1, not retained
    uno-showdown/v1/<venue>/<unit>/status   uplink, retained; its last will says offline
    uno-showdown/v1/<venue>/<unit>/ack      league -> uplink, QoS 1: what it stored

A result message carries one showdown of the unit's journal or one finished
match of a browser table, under an id unique in the venue
(``<unit>:<showdown id>``, ``<unit>:match:<match id>``). The uplink resends
it until an ack names its id: the league stores it once (a second copy with
the same body is acked again; one with another body is refused), so nothing is
lost and nothing is counted twice.

>>> message = showdown_message("bar-1", "unit-2", 7, 1764525851.5, {
...     "showdown_id": "local-7", "players": {"a": "Ann", "b": "bot"}, "winner": "a",
...     "loser": "b", "reason": "faster", "tie_reruns": 0,
...     "reaction_us": {"a": 231000, "b": 264000}, "margin_us": 33000, "cards": 2,
...     "launch": "launched", "cards_counted": None, "bots": ["b"]})
>>> message["id"], result_topic("bar-1", "unit-2")
('unit-2:local-7', 'uno-showdown/v1/bar-1/unit-2/result')
>>> received = decode_result(result_topic("bar-1", "unit-2"), encode(message))
>>> [(o.player, o.bot, o.outcome, o.false_start, o.reaction_us) for o in received.outcomes]
[('Ann', False, 'win', False, 231000), ('bot', True, 'loss', False, 264000)]
>>> decode_result("uno-showdown/v1/bar-1/unit-3/result", encode(message))
Traceback (most recent call last):
...
firmware_host.protocol.league.WireError: the message says unit 'unit-2', its topic 'unit-3'
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from firmware_host.protocol._names import clean_name, clean_showdown_id
from firmware_host.protocol._values import Launch, Reason, Side

__all__ = [
    "WIRE_VERSION",
    "TOPIC_ROOT",
    "MAX_PAYLOAD_BYTES",
    "KINDS",
    "STATES",
    "WireError",
    "Outcome",
    "ResultMessage",
    "Status",
    "Ack",
    "clean_place",
    "split_broker",
    "broker_port",
    "MQTT_PORT",
    "MQTTS_PORT",
    "result_topic",
    "status_topic",
    "ack_topic",
    "subscription",
    "parse_topic",
    "encode",
    "showdown_message",
    "match_message",
    "decode_result",
    "status_message",
    "decode_status",
    "ack_message",
    "decode_ack",
    "MATCH_BOOK_SCHEMA",
]

#: The ``v`` of every message; a league refuses a newer one by name.
WIRE_VERSION = 1
TOPIC_ROOT = "uno-showdown/v1"
#: No message of ours comes near this; a bigger one is refused unread.
MAX_PAYLOAD_BYTES = 64 * 1024
#: What a result message carries: a unit's showdown or a browser table's match.
KINDS = ("showdown", "match")
#: A unit's ``status``: ``fault`` is alive but not serving (its journal unreadable, ...).
STATES = ("online", "offline", "fault")

# Lower-case letters, digits and inner dashes: safe in an MQTT topic, a Home
# Assistant object id, a file name and a URL, and the same to every reader.
_PLACE = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?")
#: The browser table's book of finished matches (``showdown table --results
#: PATH``, SQLite), which the uplink reads as it reads the unit's journal: one
#: row per finished match, in the order they finished; ``body`` is
#: :func:`match_message`'s body as canonical JSON (:func:`encode`).
MATCH_BOOK_SCHEMA = """CREATE TABLE IF NOT EXISTS matches (
    entry INTEGER PRIMARY KEY,
    match_id TEXT NOT NULL UNIQUE,
    finished_at REAL NOT NULL,
    body TEXT NOT NULL
)"""

_MATCH_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_TOPIC = re.compile(r"uno-showdown/v1/([^/]+)/([^/]+)/(result|status|ack)")
_MAX_PLAYERS = 16


class WireError(ValueError):
    """A message or topic that is not the league's: the message says why."""


def clean_place(value: Any, field: str = "unit") -> str:
    """A venue or unit name: 1 to 32 lower-case letters, digits and inner
    dashes (``bar-1``). WireError naming ``field`` otherwise.

    >>> clean_place("bar-1")
    'bar-1'
    >>> clean_place("Bar 1", "venue")
    Traceback (most recent call last):
    ...
    firmware_host.protocol.league.WireError: venue must be 1 to 32 lower-case letters, \
digits and inner dashes (like bar-1), not 'Bar 1'
    """
    if not isinstance(value, str) or not _PLACE.fullmatch(value):
        raise WireError(
            f"{field} must be 1 to 32 lower-case letters, digits and inner dashes "
            f"(like bar-1), not {value!r}"
        )
    return value


#: The broker's ports when its address names none: MQTT, and MQTT over TLS.
MQTT_PORT, MQTTS_PORT = 1883, 8883


def split_broker(text: str) -> tuple[str, int | None]:
    """A broker's address as both ends take it (``HOST``, ``HOST:PORT``,
    ``[V6]:PORT``) -> (host, port, None when it names none); WireError in words.

    >>> split_broker("mqtt.local"), split_broker("10.0.0.5:1884"), split_broker("[::1]:1883")
    (('mqtt.local', None), ('10.0.0.5', 1884), ('::1', 1883))
    >>> split_broker("mqtt:0")
    Traceback (most recent call last):
    ...
    firmware_host.protocol.league.WireError: the port must be 1 to 65535, not '0'
    """
    port: str | None
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
        if not bracket or (rest and port is None):
            host = ""  # refused below
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, None  # a name, or an IPv6 address without a port
    if not host or any(c in host for c in "/ []") or host.strip() != host:
        raise WireError(f"must be HOST or HOST:PORT, not {text!r}")
    if port is not None and not (port.isdigit() and 1 <= int(port) <= 65535):
        raise WireError(f"the port must be 1 to 65535, not {port!r}")
    return host, None if port is None else int(port)


def broker_port(port: int | None, tls: bool) -> int:
    """The port to reach the broker on: the one given, or MQTT's (over TLS: 8883)."""
    return port if port is not None else (MQTTS_PORT if tls else MQTT_PORT)


def _topic(venue: str, unit: str, leaf: str) -> str:
    return f"{TOPIC_ROOT}/{clean_place(venue, 'venue')}/{clean_place(unit)}/{leaf}"


def result_topic(venue: str, unit: str) -> str:
    return _topic(venue, unit, "result")


def status_topic(venue: str, unit: str) -> str:
    return _topic(venue, unit, "status")


def ack_topic(venue: str, unit: str) -> str:
    return _topic(venue, unit, "ack")


def subscription(leaf: str, venue: str | None = None) -> str:
    """The filter for one leaf of every unit: of one venue, or of all (``+``).

    >>> subscription("result"), subscription("status", "bar-1")
    ('uno-showdown/v1/+/+/result', 'uno-showdown/v1/bar-1/+/status')
    """
    place = "+" if venue is None else clean_place(venue, "venue")
    return f"{TOPIC_ROOT}/{place}/+/{leaf}"


def parse_topic(topic: str) -> tuple[str, str, str]:
    """``(venue, unit, leaf)`` of one of our topics; WireError otherwise.

    >>> parse_topic("uno-showdown/v1/bar-1/unit-2/status")
    ('bar-1', 'unit-2', 'status')
    """
    found = _TOPIC.fullmatch(topic)
    if not found:
        raise WireError(f"not a league topic: {topic[:200]!r}")
    venue, unit, leaf = found.groups()
    return clean_place(venue, "the topic's venue"), clean_place(unit, "the topic's unit"), leaf


def encode(message: Mapping[str, Any]) -> bytes:
    """Canonical JSON: equal messages are equal bytes (the league compares a
    resent result with the stored one by its body)."""
    return json.dumps(message, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


@dataclass(frozen=True)
class Outcome:
    """What one result means for one player: the rows standings count.

    ``outcome`` is ``win``, ``loss`` or ``none`` (a timeout, a void tie, a
    match's drawn seat); ``reaction_us`` is a showdown's measured reaction
    (None for a match, a false start before GO, a side that never pressed).
    """

    player: str
    bot: bool
    outcome: str
    false_start: bool
    reaction_us: int | None


@dataclass(frozen=True)
class ResultMessage:
    """A result as the league received it, checked."""

    id: str
    venue: str
    unit: str
    kind: str
    seq: int
    at: float
    body: dict[str, Any]
    outcomes: tuple[Outcome, ...]
    raw: bytes  # the canonical bytes: what a resend is compared with

    @property
    def day(self) -> str:
        """The UTC day of ``at``, ``YYYY-MM-DD``: standings are kept by day."""
        import time

        return time.strftime("%Y-%m-%d", time.gmtime(self.at))


def showdown_message(
    venue: str, unit: str, seq: int, recorded_at: float, result: Mapping[str, Any]
) -> dict[str, Any]:
    """The result message of one showdown of the unit's journal: ``seq`` is
    its journal entry (the order the unit decided in), ``result`` the
    journal's result dict, launch outcome included."""
    showdown_id = clean_showdown_id(result.get("showdown_id"))
    message = {
        "v": WIRE_VERSION,
        "id": f"{clean_place(unit)}:{showdown_id}",
        "venue": clean_place(venue, "venue"),
        "unit": unit,
        "kind": "showdown",
        "seq": seq,
        "at": recorded_at,
        "body": dict(result),
    }
    _check(message)
    return message


def match_message(
    venue: str,
    unit: str,
    seq: int,
    finished_at: float,
    match_id: str,
    *,
    game: str,
    players: Sequence[Mapping[str, Any]],
    winners: Sequence[str],
    rounds: int,
) -> dict[str, Any]:
    """The result message of one finished match of a browser table.

    ``players`` are ``{"name", "bot", "score"}`` in seat order; ``winners``
    the names of the seats that won the match (one, or the tied ones).
    """
    if not isinstance(match_id, str) or not _MATCH_ID.fullmatch(match_id):
        raise WireError(f"a match id is 1 to 64 letters, digits, '.', '_' or '-', not {match_id!r}")
    message = {
        "v": WIRE_VERSION,
        "id": f"{clean_place(unit)}:match:{match_id}",
        "venue": clean_place(venue, "venue"),
        "unit": unit,
        "kind": "match",
        "seq": seq,
        "at": finished_at,
        "body": {
            "match_id": match_id,
            "game": game,
            "players": [dict(player) for player in players],
            "winners": list(winners),
            "rounds": rounds,
        },
    }
    _check(message)
    return message


def decode_result(topic: str, payload: bytes) -> ResultMessage:
    """A result message off the broker, checked against its topic and the
    rules of its kind. WireError says what is wrong: bad JSON, a field
    missing or of the wrong type, a unit or venue other than the topic's."""
    venue, unit, leaf = parse_topic(topic)
    if leaf != "result":
        raise WireError(f"not a result topic: {topic!r}")
    message = _json(payload)
    for field, wanted in (("venue", venue), ("unit", unit)):
        if message.get(field) != wanted:
            raise WireError(
                f"the message says {field} {message.get(field)!r}, its topic {wanted!r}"
            )
    outcomes = _check(message)
    return ResultMessage(
        id=message["id"],
        venue=venue,
        unit=unit,
        kind=message["kind"],
        seq=message["seq"],
        at=float(message["at"]),
        body=message["body"],
        outcomes=outcomes,
        raw=encode(message),
    )


def _json(payload: bytes) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise WireError(f"payload of {len(payload)} bytes, over {MAX_PAYLOAD_BYTES}")
    try:
        message = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise WireError(f"not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise WireError(f"a message is a JSON object, not {type(message).__name__}")
    version = message.get("v")
    if version != WIRE_VERSION:
        raise WireError(f"wire version {version!r}; this league speaks {WIRE_VERSION}")
    return message


def _field(message: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = message.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _types(kind)):
        raise WireError(f"field {name!r} is missing or not {_type_words(kind)}: {value!r}"[:300])
    return value


def _types(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _type_words(kind: type | tuple[type, ...]) -> str:
    return " or ".join(t.__name__ for t in _types(kind))


def _check(message: Mapping[str, Any]) -> tuple[Outcome, ...]:
    """Every field of a result message; its outcomes, per player."""
    unit = clean_place(_field(message, "unit", str))
    clean_place(_field(message, "venue", str), "venue")
    kind = _field(message, "kind", str)
    if kind not in KINDS:
        raise WireError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    seq = _field(message, "seq", int)
    if seq < 0:
        raise WireError(f"seq must be 0 or more, not {seq}")
    at = _field(message, "at", (int, float))
    if not math.isfinite(at) or at < 0:
        raise WireError(f"at must be Unix seconds, not {at!r}")
    body = _field(message, "body", dict)
    if kind == "showdown":
        outcomes = _showdown_outcomes(body)
        wanted = f"{unit}:{body['showdown_id']}"
    else:
        outcomes = _match_outcomes(body)
        wanted = f"{unit}:match:{body['match_id']}"
    if message.get("id") != wanted:
        raise WireError(f"id must be {wanted!r}, not {message.get('id')!r}"[:300])
    return outcomes


def _showdown_outcomes(body: Mapping[str, Any]) -> tuple[Outcome, ...]:
    try:
        clean_showdown_id(body.get("showdown_id"))
    except ValueError as exc:
        raise WireError(str(exc)) from None
    players, reactions = _field(body, "players", dict), _field(body, "reaction_us", dict)
    bots = _field(body, "bots", list)
    if set(players) != {"a", "b"} or set(reactions) != {"a", "b"}:
        raise WireError("players and reaction_us must have exactly the sides 'a' and 'b'")
    try:
        reason = Reason(str(body.get("reason")))
        Launch(str(body.get("launch")))
        winner, loser = (
            None if body.get(name) is None else Side(str(body[name]))
            for name in ("winner", "loser")
        )
        names = {side: clean_name(players[side], f"players.{side}") for side in ("a", "b")}
    except ValueError as exc:
        raise WireError(str(exc)) from None
    if reason.decides != (winner is not None and loser is not None and winner != loser):
        raise WireError(f"reason {reason} with winner {winner!r} and loser {loser!r}")
    outcomes = []
    for side in ("a", "b"):
        reaction = reactions[side]
        if reaction is not None and (not isinstance(reaction, int) or isinstance(reaction, bool)):
            raise WireError(
                f"reaction_us.{side} must be whole microseconds or null, not {reaction!r}"
            )
        outcome = "win" if side == winner else "loss" if side == loser else "none"
        false_start = reason == Reason.FALSE_START and side == loser
        measured = None if false_start or reaction is None or reaction < 0 else reaction
        outcomes.append(Outcome(names[side], side in bots, outcome, false_start, measured))
    return tuple(outcomes)


def _match_outcomes(body: Mapping[str, Any]) -> tuple[Outcome, ...]:
    match_id = _field(body, "match_id", str)
    if not _MATCH_ID.fullmatch(match_id):
        raise WireError(f"match_id must be 1 to 64 letters, digits, '.', '_' or '-': {match_id!r}")
    game = _field(body, "game", str)
    if not 1 <= len(game) <= 40:
        raise WireError(f"game must be a name of 1 to 40 characters, not {game!r}")
    _field(body, "rounds", int)
    players, winners = _field(body, "players", list), _field(body, "winners", list)
    if not 2 <= len(players) <= _MAX_PLAYERS:
        raise WireError(f"a match has 2 to {_MAX_PLAYERS} players, not {len(players)}")
    names = []
    for index, player in enumerate(players):
        if not isinstance(player, dict):
            raise WireError(f"players[{index}] must be an object")
        try:
            names.append(clean_name(player.get("name"), f"players[{index}].name"))
        except ValueError as exc:
            raise WireError(str(exc)) from None
        _field(player, "bot", bool)
        _field(player, "score", int)
    if len(set(names)) != len(names):
        raise WireError("two players of a match have the same name")
    if not winners or any(name not in names for name in winners):
        raise WireError(f"winners must name players of the match, not {winners!r}"[:300])
    return tuple(
        Outcome(name, player["bot"], "win" if name in winners else "loss", False, None)
        for name, player in zip(names, players, strict=True)
    )


# -- status ------------------------------------------------------------------------


@dataclass(frozen=True)
class Status:
    """A unit's retained status: ``state`` one of :data:`STATES`; ``host``
    names the machine the uplink runs on (two uplinks claiming one unit name
    are told apart by it); ``figures`` are the uplink's counts."""

    venue: str
    unit: str
    state: str
    host: str
    version: str
    at: float
    figures: dict[str, Any]
    fault: str | None


def status_message(
    venue: str,
    unit: str,
    state: str,
    *,
    host: str,
    version: str,
    at: float,
    figures: Mapping[str, Any] | None = None,
    fault: str | None = None,
) -> dict[str, Any]:
    if state not in STATES:
        raise WireError(f"state must be one of {', '.join(STATES)}, not {state!r}")
    return {
        "v": WIRE_VERSION,
        "venue": clean_place(venue, "venue"),
        "unit": clean_place(unit),
        "state": state,
        "host": host,
        "version": version,
        "at": at,
        "figures": dict(figures or {}),
        "fault": fault,
    }


def decode_status(topic: str, payload: bytes) -> Status:
    venue, unit, leaf = parse_topic(topic)
    if leaf != "status":
        raise WireError(f"not a status topic: {topic!r}")
    message = _json(payload)
    state = _field(message, "state", str)
    if state not in STATES:
        raise WireError(f"state must be one of {', '.join(STATES)}, not {state!r}")
    if message.get("venue") != venue or message.get("unit") != unit:
        raise WireError("the status names another unit than its topic")
    fault = message.get("fault")
    if fault is not None and not isinstance(fault, str):
        raise WireError("fault must be text or null")
    return Status(
        venue=venue,
        unit=unit,
        state=state,
        host=_field(message, "host", str),
        version=_field(message, "version", str),
        at=float(_field(message, "at", (int, float))),
        figures=_field(message, "figures", dict),
        fault=fault,
    )


# -- acks --------------------------------------------------------------------------


@dataclass(frozen=True)
class Ack:
    """The league's answer to results of one unit: ids stored (now or
    before, with the same body) and ids refused, each with the reason. Either
    way the uplink sends that id no more."""

    stored: tuple[str, ...]
    refused: tuple[tuple[str, str], ...]


def ack_message(stored: Sequence[str], refused: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    return {
        "v": WIRE_VERSION,
        "stored": list(stored),
        "refused": [{"id": id_, "reason": reason} for id_, reason in refused],
    }


def decode_ack(payload: bytes) -> Ack:
    message = _json(payload)
    stored = _field(message, "stored", list)
    refused = _field(message, "refused", list)
    if not all(isinstance(id_, str) for id_ in stored):
        raise WireError("stored must be a list of ids")
    pairs = []
    for item in refused:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise WireError("refused must be a list of {id, reason}")
        pairs.append((item["id"], str(item.get("reason", ""))))
    return Ack(tuple(stored), tuple(pairs))
