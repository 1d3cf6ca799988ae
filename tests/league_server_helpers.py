"""What the league server's tests share: result messages as a unit's uplink
makes them, an uplink stand-in on a real broker (publish QoS 1, collect the
acks), and waiting for a condition with a timeout (never a sleep)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_host.protocol.league import (
    Ack,
    ack_topic,
    decode_ack,
    encode,
    match_message,
    result_topic,
    showdown_message,
    status_message,
    status_topic,
)

__all__ = [
    "AT",
    "showdown",
    "match",
    "status",
    "payload",
    "wait_for",
    "Uplink",
    "resend_until_acked",
]

#: 2025-11-30 18:04:11 UTC: the day of every result unless told.
AT = 1764525851.5
WAIT_S = 20.0


def showdown(
    unit: str = "unit-1",
    n: int = 1,
    *,
    venue: str = "bar-1",
    a: str = "Ann",
    b: str = "Bob",
    winner: str | None = "a",
    reason: str = "faster",
    reactions: tuple[int | None, int | None] = (231_000, 264_000),
    bots: tuple[str, ...] = (),
    at: float = AT,
) -> dict[str, Any]:
    """The message of a unit's showdown number ``n``."""
    loser = None if winner is None else ("b" if winner == "a" else "a")
    return showdown_message(
        venue,
        unit,
        n,
        at + n,
        {
            "showdown_id": f"s{n}",
            "players": {"a": a, "b": b},
            "winner": winner,
            "loser": loser,
            "reason": reason,
            "tie_reruns": 0,
            "reaction_us": {"a": reactions[0], "b": reactions[1]},
            "margin_us": None,
            "cards": 2,
            "launch": "launched",
            "cards_counted": None,
            "bots": list(bots),
        },
    )


def match(unit: str = "table-1", n: int = 1, *, venue: str = "bar-1", at: float = AT) -> dict:
    """A browser table's finished match: Ann (person) beats Robo (bot)."""
    return match_message(
        venue,
        unit,
        n,
        at + n,
        f"m{n}",
        game="uno",
        players=[
            {"name": "Ann", "bot": False, "score": 500},
            {"name": "Robo", "bot": True, "score": 120},
        ],
        winners=["Ann"],
        rounds=3,
    )


def status(unit: str = "unit-1", state: str = "online", *, venue: str = "bar-1") -> dict:
    return status_message(
        venue, unit, state, host="pi-1", version="0.1.0", at=AT, figures={"journal": 3}
    )


def payload(message: dict) -> bytes:
    return encode(message)


def wait_for(
    check: Callable[[], Any], what: str, timeout: float = WAIT_S, every: float = 0.02
) -> Any:
    """``check()``'s first true value, polled ``every`` seconds; AssertionError
    naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        threading.Event().wait(every)


class Uplink:
    """A unit's uplink, reduced to what the league sees: publishes result
    messages QoS 1 (and statuses, retained) and collects the acks to its units."""

    def __init__(self, host: str, port: int, venue: str = "bar-1"):
        import paho.mqtt.client as mqtt

        self.venue = venue
        self.acks: list[tuple[str, Ack]] = []
        self._lock = threading.Lock()
        self._subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.reconnect_delay_set(0.1, 1.0)  # type: ignore[arg-type]  # paho takes seconds as floats; its stub says int
        self.client.on_connect = self._connected
        self.client.on_subscribe = lambda *args: self._subscribed.set()
        self.client.on_message = self._message
        self.client.connect_async(host, port, keepalive=10)
        self.client.loop_start()
        if not self._subscribed.wait(WAIT_S):
            raise AssertionError(f"the test uplink could not subscribe at {host}:{port}")

    def _connected(self, client, userdata, flags, reason_code, properties) -> None:
        client.subscribe(f"uno-showdown/v1/{self.venue}/+/ack", qos=1)

    def _message(self, client, userdata, message) -> None:
        with self._lock:
            self.acks.append((message.topic, decode_ack(message.payload)))

    def publish(self, message: dict) -> None:
        topic = result_topic(message["venue"], message["unit"])
        self.client.publish(topic, encode(message), qos=1).wait_for_publish(WAIT_S)

    def publish_raw(self, topic: str, data: bytes) -> None:
        self.client.publish(topic, data, qos=1).wait_for_publish(WAIT_S)

    def publish_status(self, message: dict) -> None:
        topic = status_topic(message["venue"], message["unit"])
        self.client.publish(topic, encode(message), qos=1, retain=True).wait_for_publish(WAIT_S)

    def stored(self, unit: str | None = None) -> list[str]:
        """Every id an ack said stored (of ``unit``'s acks only, if given), in order."""
        topic = None if unit is None else ack_topic(self.venue, unit)
        with self._lock:
            return [i for t, ack in self.acks if topic in (None, t) for i in ack.stored]

    def refused(self) -> list[tuple[str, str]]:
        with self._lock:
            return [pair for _, ack in self.acks for pair in ack.refused]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def as_json(data: bytes) -> Any:
    return json.loads(data)


def resend_until_acked(
    uplink: Uplink, messages: list[dict], *, every_s: float = 0.5, timeout: float = 60.0
) -> None:
    """As a real uplink does: publish every message not yet acked, again every
    ``every_s``, until each id is acked (a broker that is down: publish fails,
    try again later)."""
    deadline = time.monotonic() + timeout
    while True:
        acked = set(uplink.stored()) | {id_ for id_, _ in uplink.refused()}
        waiting = [m for m in messages if m["id"] not in acked]
        if not waiting:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(waiting)} of {len(messages)} never acked")
        for message in waiting:
            topic = result_topic(message["venue"], message["unit"])
            uplink.client.publish(topic, encode(message), qos=1)  # rc ignored: retried
        threading.Event().wait(every_s)
