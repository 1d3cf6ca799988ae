"""How the uplink shows itself: which machine it is, its status, its last
result, and its Home Assistant discovery configs.

The status is the wire's (:func:`firmware_host.protocol.league.status_message`),
retained, with the uplink's counts as ``figures``. Home Assistant discovery
(off by default) puts two retained config topics under its prefix, so the unit
appears as one device with a status sensor (read from the status topic) and a
last-result sensor, read from a retained summary on the unit's own
``uno-showdown/v1/<venue>/<unit>/last`` (not a league topic: the league reads
results, never summaries).

>>> [topic for topic, _ in discovery_configs("bar-1", "unit-2", "homeassistant", "0.1.0")]
['homeassistant/sensor/uno-showdown-bar-1-unit-2/status/config', \
'homeassistant/sensor/uno-showdown-bar-1-unit-2/last/config']
>>> last_topic("bar-1", "unit-2")
'uno-showdown/v1/bar-1/unit-2/last'
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from firmware_host.protocol.league import (
    TOPIC_ROOT,
    WIRE_VERSION,
    clean_place,
    encode,
    status_topic,
)
from firmware_host.uplink.outbox import Counts

__all__ = [
    "MACHINE_ID",
    "host_identity",
    "figures",
    "last_topic",
    "last_message",
    "probe_topic",
    "discovery_configs",
]

MACHINE_ID = Path("/etc/machine-id")


def host_identity(machine_id: Path = MACHINE_ID) -> str:
    """Which machine this is: ``/etc/machine-id``, else the host name. Two
    uplinks under one unit name are told apart by it."""
    try:
        text = machine_id.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    return text or socket.gethostname()


def figures(counts: Counts, pending: int, journal_entries: int | None) -> dict[str, Any]:
    """The status's ``figures``: what was sent, acked and is still pending,
    the last result the league stored and the rows in the journal."""
    return {
        "sent": counts.sent,
        "resent": counts.resent,
        "acked": counts.acked,
        "refused": counts.refused,
        "skipped": counts.skipped,
        "pending": pending,
        "last_id": counts.last_id,
        "last_result_at": counts.last_result_at,
        "journal_entries": journal_entries,
    }


def last_topic(venue: str, unit: str) -> str:
    """The unit's retained last-result summary (Home Assistant's sensor)."""
    return f"{TOPIC_ROOT}/{clean_place(venue, 'venue')}/{clean_place(unit)}/last"


def probe_topic(venue: str, unit: str, nonce: str) -> str:
    """Where the uplink sends itself one message after it subscribes to its
    status: when the message comes back, the broker has delivered any retained
    status there was (it keeps the order of one client's messages). ``nonce``
    keeps two uplinks' probes apart."""
    return f"{TOPIC_ROOT}/{clean_place(venue, 'venue')}/{clean_place(unit)}/probe/{nonce}"


def last_message(id_: str, at: float, summary: str) -> bytes:
    return encode({"v": WIRE_VERSION, "id": id_, "at": at, "summary": summary})


def discovery_configs(venue: str, unit: str, prefix: str, version: str) -> list[tuple[str, bytes]]:
    """(topic, payload) of each Home Assistant MQTT discovery config, retained."""
    node = f"uno-showdown-{clean_place(venue, 'venue')}-{clean_place(unit)}"
    device: Mapping[str, Any] = {
        "identifiers": [node],
        "name": f"UNO Showdown {unit} ({venue})",
        "manufacturer": "uno-showdown",
        "model": "Showdown unit",
        "sw_version": version,
    }
    status = status_topic(venue, unit)
    available = {
        "availability_topic": status,
        "availability_template": "{{ value_json.state }}",
        "payload_available": "online",
        "payload_not_available": "offline",
    }
    sensors = [
        (
            "status",
            {
                "name": "Status",
                "state_topic": status,
                "value_template": "{{ value_json.state }}",
                "json_attributes_topic": status,
                "json_attributes_template": "{{ value_json.figures | tojson }}",
                "icon": "mdi:lan-connect",
            },
        ),
        (
            "last",
            {
                "name": "Last result",
                "state_topic": last_topic(venue, unit),
                "value_template": "{{ value_json.summary[:255] }}",
                "json_attributes_topic": last_topic(venue, unit),
                "icon": "mdi:cards-playing",
                **available,
            },
        ),
    ]
    configs = []
    for key, sensor in sensors:
        payload = {
            **sensor,
            "unique_id": f"{node}-{key}",
            "object_id": f"{node}-{key}".replace("-", "_"),
            "device": device,
        }
        configs.append((f"{prefix}/sensor/{node}/{key}/config", encode(payload)))
    return configs
