"""Unit ports, where a game's showdowns are fought: simulated, manual, or a real unit
over its wire protocol (``firmware_host.protocol``, whose words and reaction model they use too).
"""

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
from firmware_host.protocol import token_from_text

__all__ = [
    # ports
    "UnitPort",
    "ShowdownRequest",
    "ShowdownOutcome",
    "SimulatedUnit",
    "ManualUnit",
    "REASONS",
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
    # a token file, read as the unit reads its own
    "token_from_text",
]
