"""The uplink as a service: the MQTT client, the sources and the outbox, one loop.

paho's network thread only puts what happened (connected, disconnected, a
message) into a :class:`~firmware_host.core.mailbox.Mailbox`; one loop
thread (:meth:`Uplink.run`) takes it, reads the journal and the match book,
feeds the :class:`~firmware_host.uplink.outbox.Outbox` and publishes what it
says is due. Nothing here writes the unit's files, and the unit never waits for
the uplink: a broker that is down, slow or restarting only makes results wait
in the journal, where they are anyway.

On each connection, before it says online, the uplink reads the retained
status of its own topic: if another machine says it is up under this name,
the uplink disconnects cleanly (so its last will does not overwrite the other
one's status) and stops with :class:`NameClashError`.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from firmware_host.core.mailbox import Mailbox
from firmware_host.protocol.league import (
    WireError,
    ack_topic,
    decode_ack,
    decode_status,
    encode,
    result_topic,
    status_message,
    status_topic,
)
from firmware_host.uplink.config import UplinkConfig
from firmware_host.uplink.errors import NameClashError, SourceError, UplinkError
from firmware_host.uplink.outbox import Outbox, Outgoing
from firmware_host.uplink.presence import (
    discovery_configs,
    figures,
    host_identity,
    last_message,
    last_topic,
    probe_topic,
)
from firmware_host.uplink.sources import JOURNAL, JournalSource, MatchBookSource
from firmware_host.uplink.state import UplinkState, state_path

__all__ = ["Uplink", "software_version"]

log = logging.getLogger(__name__)

#: A changed status is published at most this often (a busy unit changes it per result).
STATUS_AT_MOST_EVERY_S = 1.0
#: On a clean stop, how long the offline status may take to reach the broker.
GOODBYE_S = 2.0
#: paho tries again after a lost connection within these bounds (seconds).
RECONNECT_DELAY_S = (1, 5)


def software_version() -> str:
    try:
        return metadata.version("uno-showdown")
    except metadata.PackageNotFoundError:
        return "unknown"


class Uplink:
    """One unit's uplink: ``run()`` until :meth:`request_stop` or a signal."""

    def __init__(
        self,
        config: UplinkConfig,
        journal: str | os.PathLike,
        *,
        host: str | None = None,
        version: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ):
        self.config, self.journal = config, Path(journal)
        self.host = host or host_identity()
        self.version = version or software_version()
        self._clock, self._wall = clock, wall_clock
        self.mailbox = Mailbox()
        venue, unit = config.venue, config.unit
        self._topics = {
            "result": result_topic(venue, unit),
            "status": status_topic(venue, unit),
            "ack": ack_topic(venue, unit),
            "probe": probe_topic(venue, unit, secrets.token_hex(8)),
            "last": last_topic(venue, unit),
        }
        self.state_file = state_path(config.state or self.journal.parent, venue, unit)
        self._state: UplinkState | None = UplinkState(self.state_file)
        cursors, above = self._state.load()
        self.outbox = Outbox(
            cursors, above, window=config.window, resend_after_s=config.resend_after_s
        )
        self._sources: list[JournalSource | MatchBookSource] = [
            JournalSource(self.journal, venue, unit)
        ]
        if config.matches:
            self._sources.append(MatchBookSource(config.matches, venue, unit))
        self._after = {source.name: cursors.get(source.name, 0) for source in self._sources}
        self._faults: dict[str, str] = {}  # source -> why it cannot be read
        self._journal_entries: int | None = None
        self._last: Outgoing | None = None
        self._phase = "connecting"  # then "checking" (the name clash), then "ready"
        self._check_until = 0.0
        self._next_read = -math.inf
        self._more = False  # the last read stopped at the window: read again when it frees
        self._status_sent: tuple[str, dict[str, Any]] | None = None
        self._status_at = -math.inf
        self._client = self._make_client()

    # -- the MQTT client -------------------------------------------------------------

    def _make_client(self) -> mqtt.Client:
        config = self.config
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=config.client_id, clean_session=True
        )
        if config.username:
            client.username_pw_set(config.username, config.password or None)
        if config.uses_tls:
            client.tls_set(ca_certs=config.ca_file or None)
        client.will_set(self._topics["status"], self._status("offline"), qos=1, retain=True)
        client.reconnect_delay_set(*RECONNECT_DELAY_S)
        client.max_inflight_messages_set(min(config.window, 100))
        put = self.mailbox.put
        client.on_connect = lambda _c, _u, _f, code, _p: put(("connected", code))
        client.on_disconnect = lambda _c, _u, _f, code, _p: put(("disconnected", code))
        client.on_message = lambda _c, _u, msg: put(("message", msg.topic, msg.payload))
        return client

    def _status(self, state: str, fault: str | None = None) -> bytes:
        return encode(
            status_message(
                self.config.venue,
                self.config.unit,
                state,
                host=self.host,
                version=self.version,
                at=self._wall(),
                figures=self.figures(),
                fault=fault,
            )
        )

    def figures(self) -> dict[str, Any]:
        return figures(self.outbox.counts, self.outbox.pending, self._journal_entries)

    # -- the loop ----------------------------------------------------------------------

    def request_stop(self) -> None:
        """Stop :meth:`run` (any thread)."""
        self.mailbox.request_stop()

    def run(self) -> int:
        """Serve until asked to stop (0); NameClashError if another machine has
        the name. Publishes offline on the way out."""
        config = self.config
        log.info(
            "uplink %s/%s to %s:%d (journal %s, state %s)",
            config.venue,
            config.unit,
            config.host,
            config.port,
            self.journal,
            self.state_file,
        )
        self._client.connect_async(config.host, config.port, keepalive=config.keepalive_s)
        self._client.loop_start()
        clean = False
        try:
            while not self.mailbox.stop_requested:
                self.mailbox.wait(self._timeout())
                for item in self.mailbox.take():
                    if not isinstance(item, tuple):  # a signal, noted on the pipe
                        log.info("%s: stopping", getattr(item, "name", item))
                        self.mailbox.request_stop()
                    else:
                        self._handle(item)
                self._step()
            clean = True
        except NameClashError:
            self._client.disconnect()  # a clean goodbye: no last will over the other's status
            raise
        finally:
            self._goodbye(clean)
        return 0

    def _timeout(self) -> float:
        now = self._clock()
        times = [self._next_read]
        if self._phase == "checking":
            times.append(self._check_until)
        # Sends (results, status) wait for "ready": their deadlines, past while
        # the broker is down, would make this loop spin.
        if self._phase == "ready":
            times.append(self._status_at + self.config.status_every_s)
            deadline = self.outbox.next_deadline()
            if deadline is not None:
                times.append(deadline)
            if self._status_sent is not None and self._status_sent != self._status_now():
                times.append(self._status_at + STATUS_AT_MOST_EVERY_S)
        return min(max(0.0, min(times) - now), self.config.poll_s)

    def _handle(self, item: tuple) -> None:
        what = item[0]
        if what == "connected":
            self._connected(item[1])
        elif what == "disconnected":
            if self._phase != "connecting":
                log.warning("lost the broker (%s); results wait until it is back", item[1])
            self._phase = "connecting"
        elif what == "message":
            self._message(item[1], item[2])

    def _connected(self, code) -> None:
        if getattr(code, "is_failure", False):
            log.error(
                "the broker %s refused the connection: %s", self.config.broker, code
            )  # paho tries again; a password fixed in the broker lets it in
            return
        log.info("connected to %s; checking the name %s", self.config.broker, self.config.unit)
        topics = self._topics
        self._client.subscribe([(topics["status"], 1), (topics["ack"], 1), (topics["probe"], 1)])
        self._client.publish(topics["probe"], b"probe", qos=1)
        self._phase, self._check_until = "checking", self._clock() + self.config.clash_wait_s

    def _message(self, topic: str, payload: bytes) -> None:
        topics = self._topics
        if topic == topics["ack"]:
            self._ack(payload)
        elif topic == topics["status"] and self._phase == "checking":
            self._check_name(topic, payload)
        elif topic == topics["probe"] and self._phase == "checking":
            self._ready()

    def _check_name(self, topic: str, payload: bytes) -> None:
        if not payload:
            return  # no retained status (cleared)
        try:
            status = decode_status(topic, payload)
        except WireError as exc:
            log.warning("%s: a retained status that is not one, ignored: %s", topic, exc)
            return
        if status.host != self.host and status.state != "offline":
            since = datetime.fromtimestamp(status.at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            raise NameClashError(
                f"unit name {self.config.unit!r} of venue {self.config.venue!r} is "
                f"{status.state} on another machine (host {status.host}, since {since}): "
                "give this unit another name (uplink.unit) or stop the other uplink"
            )

    def _ready(self) -> None:
        topics = self._topics
        self._client.unsubscribe([topics["status"], topics["probe"]])
        self._phase = "ready"
        self.outbox.reconnected()
        self._publish_status(force=True)
        if self.config.ha_discovery:
            for topic, payload in discovery_configs(
                self.config.venue, self.config.unit, self.config.ha_prefix, self.version
            ):
                self._client.publish(topic, payload, qos=1, retain=True)
            self._publish_last()
        log.info(
            "online as %s/%s; %d results waiting for the league's ack",
            self.config.venue,
            self.config.unit,
            self.outbox.pending,
        )

    def _ack(self, payload: bytes) -> None:
        try:
            ack = decode_ack(payload)
        except WireError as exc:
            log.warning("%s: not an ack, ignored: %s", self._topics["ack"], exc)
            return
        done = self.outbox.settle(ack.stored)
        reasons = dict(ack.refused)
        refused = self.outbox.settle(reasons, refused=True)
        for item in refused:
            log.error("the league refused %s: %s", item.id, reasons[item.id])
        if done or refused:
            self._save({item.source for item in [*done, *refused]})
        if done:
            self._last = max(done, key=lambda item: (item.at, item.seq))
            log.debug("acked: %s", ", ".join(item.id for item in done))

    def _step(self) -> None:
        now = self._clock()
        if self._phase == "checking" and now >= self._check_until:
            log.warning("no answer to the name check in %.1f s: going on", self.config.clash_wait_s)
            self._ready()
        if now >= self._next_read or (self._more and self.outbox.free > 0):
            self._read()
            self._next_read = now + self.config.poll_s
        if self._phase == "ready":
            for item in self.outbox.due(now):
                log.debug("send %s", item.id)
                self._client.publish(self._topics["result"], item.payload, qos=1)
            self._publish_status()

    def _read(self) -> None:
        self._more = False
        for source in self._sources:
            if self.outbox.free < 1:
                self._more = True
                break
            try:
                done = frozenset(self.outbox.done_above(source.name))
                reading = source.read(self._after[source.name], done, self.outbox.free)
            except SourceError as exc:
                if self._faults.get(source.name) != str(exc):
                    log.error("%s", exc)
                self._faults[source.name] = str(exc)
                continue
            if self._faults.pop(source.name, None) is not None:
                log.info("%s can be read again", source.path)
            for item in reading.items:
                self.outbox.offer(item)
            for entry, why in reading.skipped:
                log.error(
                    "%s: entry %d is not a valid result, not sent: %s", source.path, entry, why
                )
                self.outbox.skip(source.name, entry)
            if reading.skipped:
                self._save({source.name})
            self._after[source.name] = reading.upto
            self._more = self._more or reading.full
            if source.name == JOURNAL:
                self._journal_entries = reading.entries

    # -- status ------------------------------------------------------------------------

    def _status_now(self) -> tuple[str, dict[str, Any]]:
        state = "fault" if self._faults else "online"
        return state, self.figures()

    def _publish_status(self, force: bool = False) -> None:
        now = self._clock()
        current = self._status_now()
        changed = current != self._status_sent
        state_changed = self._status_sent is None or current[0] != self._status_sent[0]
        if not (
            force
            or state_changed
            or (changed and now - self._status_at >= STATUS_AT_MOST_EVERY_S)
            or now - self._status_at >= self.config.status_every_s
        ):
            return
        fault = "; ".join(self._faults.values()) or None
        self._client.publish(
            self._topics["status"], self._status(current[0], fault), qos=1, retain=True
        )
        if self.config.ha_discovery and changed:
            self._publish_last()
        self._status_sent, self._status_at = current, now

    def _publish_last(self) -> None:
        last = self._last
        if last is not None:
            self._client.publish(
                self._topics["last"], last_message(last.id, last.at, last.summary), 1, True
            )

    # -- the end -------------------------------------------------------------------------

    def _save(self, sources: set[str]) -> None:
        if self._state is None:
            return
        try:
            self._state.save(
                {name: (self.outbox.cursor(name), self.outbox.done_above(name)) for name in sources}
            )
        except UplinkError as exc:  # sending goes on; a restart would resend more
            log.error("%s", exc)

    def _goodbye(self, clean: bool) -> None:
        client = self._client
        if clean and self._phase != "connecting":
            info = client.publish(self._topics["status"], self._status("offline"), 1, True)
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(GOODBYE_S)
            client.disconnect()
        elif clean:
            client.disconnect()
        client.loop_stop()
        log.info(
            "stopped: %d sent, %d acked, %d waiting",
            self.outbox.counts.sent,
            self.outbox.counts.acked,
            self.outbox.pending,
        )

    def close(self) -> None:
        """The state file and the mailbox; safe twice."""
        if self._state is not None:
            self._state.close()
            self._state = None
        with contextlib.suppress(OSError):
            self.mailbox.close()
