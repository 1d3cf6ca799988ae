"""The transition table itself: complete for every input, and the diagram drawn from it."""

from pathlib import Path

import pytest

from firmware_host.commands.diagram import mermaid
from firmware_host.core.machine import IGNORED, STATES, TRANSITIONS, ShowdownCore
from firmware_host.protocol import UnitState
from firmware_host.service.config import UnitConfig
from firmware_host.sim.rig import VirtualRig

INPUT_TRIGGERS = ("paddle_pressed", "timer_pressed", "card_passed")


def sources(transition):
    source = transition["source"]
    return [source] if isinstance(source, str) else source


def handled(state, trigger):
    return any(t["trigger"] == trigger and state in sources(t) for t in TRANSITIONS)


@pytest.mark.parametrize("state", STATES)
def test_every_input_has_a_transition_or_is_listed_as_ignored(state):
    for trigger in INPUT_TRIGGERS:
        assert handled(state, trigger) != (trigger in IGNORED[state]), (state, trigger)


def test_no_state_ignores_a_trigger_it_also_handles():
    for state, ignored in IGNORED.items():
        assert not [trigger for trigger in ignored if handled(state, trigger)], state


def test_every_state_can_be_cancelled_and_every_state_but_fault_can_fail():
    assert all(handled(state, "cancelled") for state in STATES)
    assert [state for state in STATES if not handled(state, "failed")] == ["fault"]


def test_the_states_are_the_protocol_s_unit_states():
    assert tuple(UnitState) == STATES and all(type(state) is str for state in STATES)


def test_the_core_declares_exactly_the_triggers_the_table_adds():
    # transitions adds one method per trigger at run time; the class body names
    # them (for readers and mypy), and each is the machine's, not the class's own.
    declared = {
        name for name, hint in ShowdownCore.__annotations__.items() if hint == "Callable[[], bool]"
    }
    assert declared == {t["trigger"] for t in TRANSITIONS}
    assert not [name for name in declared if hasattr(ShowdownCore, name)]
    with VirtualRig(UnitConfig()) as rig:
        assert all(callable(getattr(rig.core, name)) for name in declared)


def test_a_trigger_with_no_transition_and_not_ignored_is_a_fault():
    with VirtualRig(UnitConfig()) as rig:
        rig.core.schedule("bug", rig.clock(), rig.core.hold_elapsed)
        rig.core.run_due()
        assert rig.state == "fault"
        assert rig.core.fault_reason == (
            "deadline 'bug': MachineError: \"Can't trigger event hold_elapsed from state idle!\""
        )
        assert rig.pins()["duty"] == 0.0


def test_the_diagram_comes_from_the_table():
    text = mermaid()
    assert "countdown --> false_start: paddle_pressed" in text
    assert "false_start --> countdown: settled [tie_rerun_is_due]" in text
    assert (
        "armed --> countdown: timer_pressed [!paddle_is_held] | start_received [!paddle_is_held]"
        in text
    )
    for state in STATES:
        assert f'state "{state}" as {state}' in text


def test_docs_timing_shows_the_current_diagram():
    doc = Path(__file__).parent.parent / "docs" / "timing.md"
    assert f"```mermaid\n{mermaid()}```" in doc.read_text(encoding="utf-8")


def test_the_diagram_has_no_styling_lines():
    lines = mermaid().splitlines()
    assert not [line for line in lines if line.lstrip().startswith(("classDef", "Class "))]
    assert all(line.strip() for line in lines)  # no blank lines either
    assert lines[-1] == "  [*] --> idle"
