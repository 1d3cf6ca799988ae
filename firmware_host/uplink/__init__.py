"""The league uplink: the service beside a unit that sends every result to the
venue's league over MQTT (issue 23; docs/uplink.md).

It reads the unit's journal (and the browser table's match book) read-only,
publishes each result in order with QoS 1 and resends it until the league's
ack names it, keeping how far it got in a small state file of its own; a
retained status (online, offline as its last will, fault) carries its counts.

The pieces, one idea each: :mod:`~firmware_host.uplink.outbox` (sans-IO: what
is in flight, what is due, the cursor), :mod:`~firmware_host.uplink.sources`
(reading the journal and the match book), :mod:`~firmware_host.uplink.state`
(the cursor's file), :mod:`~firmware_host.uplink.config` (the ``[uplink]``
settings), :mod:`~firmware_host.uplink.presence` (status figures, the host's
identity, Home Assistant discovery) and :mod:`~firmware_host.uplink.service`
(the MQTT client and the loop; it imports paho, so it is not imported here).
"""

from firmware_host.uplink.config import UplinkConfig, build_config, load_uplink_config
from firmware_host.uplink.errors import NameClashError, SourceError, UplinkConfigError, UplinkError
from firmware_host.uplink.outbox import Counts, Outbox, Outgoing
from firmware_host.uplink.presence import discovery_configs, host_identity, last_topic
from firmware_host.uplink.sources import JournalSource, MatchBookSource, Reading
from firmware_host.uplink.state import UplinkState, state_path

__all__ = [
    "UplinkConfig",
    "build_config",
    "load_uplink_config",
    "UplinkError",
    "UplinkConfigError",
    "NameClashError",
    "SourceError",
    "Outbox",
    "Outgoing",
    "Counts",
    "JournalSource",
    "MatchBookSource",
    "Reading",
    "UplinkState",
    "state_path",
    "host_identity",
    "discovery_configs",
    "last_topic",
]
