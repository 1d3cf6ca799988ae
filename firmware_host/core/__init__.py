"""The unit's core: the showdown state machine and its decision, timers, clock and loop.

It drives the hw/ board and imports nothing else of the daemon but the protocol's values and checks.
"""

from firmware_host.core.bench import (
    BENCH_HORIZON_S,
    MAX_DELAY_S,
    PRESS_HOLD_S,
    Bench,
    PinLevels,
    pin_states,
)
from firmware_host.core.clock import Clock, VirtualClock, monotonic
from firmware_host.core.deadlines import Deadlines
from firmware_host.core.decide import Decision, Outcome, is_early, measure
from firmware_host.core.errors import (
    BusyError,
    InvalidArgumentError,
    InvalidCardsError,
    NotArmedError,
    NotMockError,
    PaddleHeldError,
    UnitClosedError,
    UnitError,
    UnitFaultError,
    UnknownShowdownError,
)
from firmware_host.core.loop import COMMAND_TIMEOUT_S, MAX_WAIT_S, RETRY_S, EventLoop
from firmware_host.core.machine import (
    IGNORED,
    STATES,
    TRANSITIONS,
    InputEvent,
    Recorder,
    RecordFailed,
    Showdown,
    ShowdownCore,
)
from firmware_host.core.mailbox import Mailbox
from firmware_host.core.result import Result, UnitEvent
from firmware_host.core.show import Show
from firmware_host.core.unit import Unit, UnitBench
from firmware_host.core.verdict import launch_outcome, result_of
from firmware_host.core.virtual_paddles import BOT_DEADLINES, VirtualPaddles, bot_reactions

# decide() itself is not re-exported: the name would hide the module
# firmware_host.core.decide. Import it from there.
__all__ = [
    # unit
    "Unit",
    "UnitBench",
    # result, verdict (the values in them: firmware_host.protocol's Side, Reason, Launch, ...)
    "Result",
    "UnitEvent",
    "result_of",
    "launch_outcome",
    # errors
    "UnitError",
    "BusyError",
    "NotArmedError",
    "InvalidCardsError",
    "InvalidArgumentError",
    "PaddleHeldError",
    "UnitFaultError",
    "UnknownShowdownError",
    "NotMockError",
    "UnitClosedError",
    # machine
    "STATES",
    "TRANSITIONS",
    "IGNORED",
    "InputEvent",
    "Showdown",
    "ShowdownCore",
    "Recorder",
    "RecordFailed",
    # show, the bots' paddles
    "Show",
    "VirtualPaddles",
    "bot_reactions",
    "BOT_DEADLINES",
    # decide
    "Outcome",
    "Decision",
    "measure",
    "is_early",
    # bench
    "Bench",
    "PinLevels",
    "pin_states",
    "BENCH_HORIZON_S",
    "MAX_DELAY_S",
    "PRESS_HOLD_S",
    # clock, deadlines, loop, mailbox
    "Clock",
    "monotonic",
    "VirtualClock",
    "Deadlines",
    "EventLoop",
    "COMMAND_TIMEOUT_S",
    "MAX_WAIT_S",
    "RETRY_S",
    "Mailbox",
]
