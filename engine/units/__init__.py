"""Unit ports, where a game's showdowns are fought: simulated (at once, or live as a
unit shows them), manual, or a real unit over its wire protocol
(``firmware_host.protocol``; the words and the reaction model they use are
``firmware_host.people``'s); and a watcher of a real unit's outputs, for the unit panel.
"""

from engine.units.live_sim import DEMO_PACE, UNIT_PACE, LiveSimulatedUnit, Pace
from engine.units.ports import (
    REASONS,
    ManualUnit,
    ShowdownOutcome,
    ShowdownRequest,
    SimulatedUnit,
    UnitPort,
)
from engine.units.remote import (
    PauseOnProblem,
    RemoteUnit,
    UnitBusy,
    UnitFault,
    UnitJam,
    UnitProblem,
    UnitUnreachable,
    UnitVersionError,
    is_unit_url,
    names_for_unit,
)
from engine.units.unit_link import (
    AuthFailed,
    CommandRefused,
    ConnectFailure,
    LinkLost,
    ProtocolViolation,
    UnitFlooding,
    UnitLink,
    VersionMismatch,
)
from engine.units.watch import UnitWatcher, Watching
from firmware_host.protocol import token_from_text

__all__ = [
    # ports
    "UnitPort",
    "ShowdownRequest",
    "ShowdownOutcome",
    "SimulatedUnit",
    "ManualUnit",
    "REASONS",
    # live_sim
    "LiveSimulatedUnit",
    "Pace",
    "UNIT_PACE",
    "DEMO_PACE",
    # remote
    "RemoteUnit",
    "PauseOnProblem",
    "is_unit_url",
    "names_for_unit",
    "UnitProblem",
    "UnitUnreachable",
    "UnitBusy",
    "UnitVersionError",
    "UnitFault",
    "UnitJam",
    # unit_link
    "UnitLink",
    "LinkLost",
    "ConnectFailure",
    "UnitFlooding",
    "ProtocolViolation",
    "CommandRefused",
    "VersionMismatch",
    "AuthFailed",
    # watch
    "UnitWatcher",
    "Watching",
    # a token file, read as the unit reads its own
    "token_from_text",
]
