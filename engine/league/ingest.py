"""The league's MQTT subscriber: results and statuses in, acks out.

A thin shell around :func:`engine.league.intake.take_batch`. paho's network
thread only queues what arrives; one batch thread takes up to
``batch_max`` messages or what came within ``batch_wait_s`` of the first,
hands them to the store in one transaction, and only after that commit
publishes one ack per unit (QoS 1). A store error acks nothing: it is logged,
the batch dropped, and the uplinks resend what was not acked (after a pause,
so a store that is down is not hammered). paho reconnects by itself when the
broker goes away (and keeps trying when it is down at start); the
subscriptions are made again on each connect. A result from a unit that never
sent a status is stored all the same: units appear as they report.
"""

from __future__ import annotations

import logging
import queue
import socket
import ssl
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt

from engine.league.intake import BatchStore, take_batch
from firmware_host.protocol.league import subscription

__all__ = ["Broker", "Ingest", "BATCH_MAX", "BATCH_WAIT_S"]

log = logging.getLogger(__name__)

#: A batch: at most this many messages, or what arrived this long after its first.
BATCH_MAX = 500
BATCH_WAIT_S = 0.05
#: After a store error, the pause before the next batch (doubling to the most).
STORE_RETRY_S = (0.5, 10.0)
#: paho's reconnect delays in whole seconds (its type): soon after a broker
#: restart, never more than this apart.
RECONNECT_S = (1, 5)
KEEPALIVE_S = 20


@dataclass(frozen=True)
class Broker:
    """Where the broker is and how to log in to it."""

    host: str
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    cafile: str | None = None

    def __str__(self) -> str:
        return f"{self.host}:{self.port}" + (" (TLS)" if self.tls else "")


_STOP = object()  # the batch thread's last item


class Ingest:
    """Subscribes ``broker`` for the results and statuses of every venue (or of
    ``venue``), stores them in ``store`` and acks them. ``on_change(what)`` is
    called from the batch thread after each batch that changed something
    (``what``: a frozenset of ``"results"``, ``"units"``); ``on_connected(up)``
    when the broker link comes or goes. :meth:`start`, then :meth:`stop`."""

    def __init__(
        self,
        store: BatchStore,
        broker: Broker,
        *,
        venue: str | None = None,
        on_change: Callable[[frozenset[str]], None] | None = None,
        on_connected: Callable[[bool], None] | None = None,
        batch_max: int = BATCH_MAX,
        batch_wait_s: float = BATCH_WAIT_S,
        clock: Callable[[], float] = time.time,
    ):
        self.store, self.broker, self.venue = store, broker, venue
        self.on_change, self.on_connected = on_change, on_connected
        self.batch_max, self.batch_wait_s, self.clock = batch_max, batch_wait_s, clock
        self.connected = threading.Event()  # subscribed: results reach the league
        self.batches = 0  # batches stored and acked, for the tests and the log
        self._inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._failures = 0
        self._subscribing: int | None = None
        self.client = self._client()

    def _client(self) -> mqtt.Client:
        client_id = f"showdown-league-{socket.gethostname()[:20]}-{uuid.uuid4().hex[:8]}"
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
        if self.broker.username is not None:
            client.username_pw_set(self.broker.username, self.broker.password)
        if self.broker.tls:
            client.tls_set(ca_certs=self.broker.cafile, cert_reqs=ssl.CERT_REQUIRED)
        client.reconnect_delay_set(*RECONNECT_S)
        client.on_connect = self._connected
        client.on_subscribe = self._subscribed
        client.on_connect_fail = self._connect_failed
        client.on_disconnect = self._disconnected
        client.on_message = self._message
        return client

    # -- life ---------------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background (retrying while the broker is down) and
        start taking batches; returns at once."""
        self._thread = threading.Thread(target=self._run, name="league-ingest", daemon=True)
        self._thread.start()
        log.info("connecting to the broker at %s", self.broker)
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=KEEPALIVE_S)
        self.client.loop_start()

    def stop(self) -> None:
        """Disconnect and finish the batch in hand (its acks go out if the link is up)."""
        self._stopping.set()
        self._inbox.put(_STOP)
        if self._thread is not None:
            self._thread.join(10)
        self.client.disconnect()
        self.client.loop_stop()

    # -- paho's thread: queue only ------------------------------------------------

    def _connected(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.warning("the broker at %s refused the league: %s", self.broker, reason_code)
            return
        # Ready (``connected``) once the broker granted the subscriptions, not
        # before: what is published before then never reaches the league.
        _, mid = client.subscribe(
            [(subscription(leaf, self.venue), 1) for leaf in ("result", "status")]
        )
        self._subscribing = mid
        log.info("connected to the broker at %s; subscribing", self.broker)

    def _subscribed(self, client, userdata, mid, reason_codes, properties) -> None:
        if mid != self._subscribing:
            return
        refused = [code for code in reason_codes if code.is_failure]
        if refused:
            log.error("the broker at %s refused the subscriptions: %s", self.broker, refused)
            return
        log.info("subscribed at the broker at %s", self.broker)
        self.connected.set()
        if self.on_connected is not None:
            self.on_connected(True)

    def _connect_failed(self, client, userdata) -> None:
        log.warning("cannot reach the broker at %s; retrying (pages keep serving)", self.broker)

    def _disconnected(self, client, userdata, flags, reason_code, properties) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        if was and not self._stopping.is_set():
            log.warning("lost the broker at %s (%s); reconnecting", self.broker, reason_code)
            if self.on_connected is not None:
                self.on_connected(False)

    def _message(self, client, userdata, message: mqtt.MQTTMessage) -> None:
        self._inbox.put((message.topic, bytes(message.payload)))

    # -- the batch thread -----------------------------------------------------------

    def _run(self) -> None:
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            if batch:
                self._take(batch)

    def _next_batch(self) -> list[tuple[str, bytes]] | None:
        """The next batch; None when told to stop (the messages before it taken first)."""
        first = self._inbox.get()
        if first is _STOP:
            return None
        batch = [first]
        deadline = time.monotonic() + self.batch_wait_s
        while len(batch) < self.batch_max:
            left = deadline - time.monotonic()
            try:
                item = self._inbox.get(timeout=left) if left > 0 else self._inbox.get_nowait()
            except queue.Empty:
                break
            if item is _STOP:
                self._inbox.put(_STOP)  # after this batch
                break
            batch.append(item)
        return batch

    def _publish(self, acks: list[tuple[str, bytes]]) -> None:
        """The acks, QoS 1: queued by paho while the link is down, sent when it is back."""
        for topic, payload in acks:
            self.client.publish(topic, payload, qos=1)

    def _take(self, batch: list[tuple[str, bytes]]) -> None:
        try:
            taken = take_batch(self.store, batch, self.clock)
        except Exception:  # the store failed: no acks; the uplinks resend
            self._failures += 1
            pause = min(STORE_RETRY_S[0] * 2 ** (self._failures - 1), STORE_RETRY_S[1])
            log.exception(
                "could not store a batch of %d messages: none acked, the uplinks resend them; "
                "next batch in %.1f s",
                len(batch),
                pause,
            )
            self._stopping.wait(pause)
            return
        self._failures = 0
        self._publish(taken.acks)
        self.batches += 1
        log.debug("batch of %d messages: %d acks", len(batch), len(taken.acks))
        if taken.changed and self.on_change is not None:
            try:
                self.on_change(taken.changed)
            except Exception:
                log.exception("the pages' change hook failed")
