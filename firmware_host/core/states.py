"""The showdown machine as one table: its states, its transitions and the
inputs each state ignores on purpose.

:class:`~firmware_host.core.machine.ShowdownCore` runs this table with the
:mod:`transitions` library (what each state does on entry and exit is
:class:`~firmware_host.core.phases.Phases`'); ``showdown-unit diagram`` draws
it, and docs/timing.md shows that drawing. Triggers are past-tense events.

>>> sorted(IGNORED["launching"])
['paddle_pressed', 'timer_pressed']
>>> [t["dest"] for t in TRANSITIONS if t["trigger"] == "hold_elapsed"]
['go']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware_host.core.show import Show
from firmware_host.core.virtual_paddles import BOT_DEADLINES
from firmware_host.protocol import UnitState

if TYPE_CHECKING:
    from transitions.core import TransitionConfigDict  # only in its type stubs

__all__ = ["STATES", "TRANSITIONS", "IGNORED", "MACHINE_DEADLINES"]

#: The machine's states by name: :class:`~firmware_host.protocol.UnitState`'s
#: text, as transitions takes them (it would name an enum's states by member name).
STATES = tuple(state.value for state in UnitState)
_NOT_FAULT = [state for state in STATES if state != "fault"]

# The whole machine. Triggers are what happened; the core fires them from
# inputs (paddle_pressed, timer_pressed, card_passed), commands (arm_received,
# start_received, cancelled) and its own deadlines (the *_elapsed ones,
# settled). Transitions with the same trigger and source are tried in order.
TRANSITIONS: list[TransitionConfigDict] = [
    # trigger              source                  dest           guard / action
    dict(trigger="arm_received", source=["idle", "armed"], dest="armed"),
    dict(
        trigger="timer_pressed",
        source="idle",
        dest="armed",
        before="_arm_standalone",
        after="_request_start",
    ),
    dict(trigger="timer_pressed", source="armed", dest="countdown", unless="paddle_is_held"),
    dict(trigger="timer_pressed", source="armed", dest=None, after="_warn_paddle_held"),
    dict(trigger="timer_pressed", source="fault", dest="idle", conditions="board_answers"),
    dict(trigger="start_received", source="armed", dest="countdown", unless="paddle_is_held"),
    dict(trigger="start_received", source="armed", dest=None, after="_warn_paddle_held"),
    dict(trigger="step_elapsed", source="countdown", dest=None, after="_next_step"),
    dict(trigger="countdown_elapsed", source="countdown", dest="hold"),
    dict(trigger="hold_elapsed", source="hold", dest="go"),
    dict(
        trigger="paddle_pressed",
        source=["countdown", "hold"],
        dest="false_start",
        before="_record_press",
    ),
    dict(
        trigger="paddle_pressed",
        source="go",
        dest="false_start",
        conditions="press_is_early",
        before="_record_press",
    ),
    dict(trigger="paddle_pressed", source=["go", "false_start"], dest=None, after="_record_press"),
    dict(
        trigger="settled",
        source=["go", "false_start"],
        dest="countdown",
        conditions="tie_rerun_is_due",
        before="_count_rerun",
    ),
    dict(trigger="settled", source="go", dest="resolved"),
    dict(trigger="settled", source="false_start", dest="resolved", conditions="is_tie"),
    dict(trigger="settled", source="false_start", dest="launching"),
    dict(trigger="response_timed_out", source="go", dest="timeout"),
    dict(trigger="announced", source="resolved", dest="launching", conditions="has_loser"),
    dict(
        trigger="announced",
        source=["resolved", "timeout"],
        dest="idle",
        before="_finish_without_launch",
    ),
    dict(trigger="card_passed", source="launching", dest=None, after="_count_card"),
    dict(trigger="cards_out", source="launching", dest="idle", before="_finish_launch"),
    dict(trigger="launch_elapsed", source="launching", dest="idle", before="_finish_launch"),
    dict(trigger="selftest_requested", source="idle", dest="selftest"),
    dict(trigger="selftest_done", source="selftest", dest="idle"),
    dict(trigger="cancelled", source=_NOT_FAULT, dest="idle", before="_cancel_showdown"),
    dict(trigger="cancelled", source="fault", dest="idle", conditions="board_answers"),
    dict(trigger="failed", source=_NOT_FAULT, dest="fault"),
]

#: Input triggers each state ignores on purpose (a press while idle, the timer
#: button during a countdown, ...). Any other trigger that has no transition
#: from the current state is a bug and puts the unit in fault.
IGNORED = {
    "idle": {"paddle_pressed", "card_passed"},
    "armed": {"paddle_pressed", "card_passed"},
    "countdown": {"timer_pressed", "card_passed"},
    "hold": {"timer_pressed", "card_passed"},
    "go": {"timer_pressed", "card_passed"},
    "false_start": {"timer_pressed", "card_passed"},
    "resolved": {"paddle_pressed", "timer_pressed", "card_passed"},
    "launching": {"paddle_pressed", "timer_pressed"},
    "timeout": {"paddle_pressed", "timer_pressed", "card_passed"},
    "selftest": {"paddle_pressed", "timer_pressed", "card_passed"},
    "fault": {"paddle_pressed", "card_passed"},
}

# Deadlines owned by the machine and its show (the bench adds its own, under other names).
MACHINE_DEADLINES = (
    "step",
    "hold",
    "response",
    "settle",
    "launch",
    "selftest",
    *Show.DEADLINES,
    *BOT_DEADLINES,
)
