"""A simulated unit's verdict is kept with the match, as a real unit's journal
keeps it: decided when the move that names the showdown is saved (before
anything of it is shown), saved with that move, and given back to the unit of
a resumed table, which fights that showdown id with the same verdict."""

from __future__ import annotations

import json
import random

import pytest

from engine.apps.table.companion import CompanionRoom
from engine.apps.table.room import Room
from engine.units import SimulatedUnit
from engine.units.live_sim import DEMO_PACE, LiveSimulatedUnit
from engine.units.ports import MAX_VERDICTS, ShowdownRequest, Verdict
from engine.units.unit_history import HistoryBook
from firmware_host.protocol import EventName
from tests.room_helpers import taken

SHOWDOWN_NEXT = "showdown R5!2,G2/B1,Y1 G1,B2,G3,G4 R1 R + 0 play - - 0,0 1 1 500 - 1:0"
PEOPLE = ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "Bob", 2)


def test_a_simulated_unit_decides_a_showdown_once_and_fights_it_with_that_verdict():
    unit = SimulatedUnit(random.Random(5))
    verdict = unit.decide_ahead(PEOPLE)
    assert unit.decide_ahead(PEOPLE) is verdict
    assert [unit.run_showdown(PEOPLE) for _ in range(3)] == [verdict.outcome] * 3
    fresh = SimulatedUnit(random.Random(5))
    assert fresh.run_showdown(PEOPLE) == verdict.outcome  # the same draws as ever
    other = ShowdownRequest("m1:r1:s2", 0, 2, "Ann", "Bob", 2)
    assert unit.decide_ahead(other) is not verdict


def test_a_simulation_that_never_decides_ahead_draws_every_showdown_afresh():
    unit = SimulatedUnit(random.Random(5))
    outcomes = [unit.run_showdown(PEOPLE) for _ in range(20)]  # one id, many matches
    assert len({(o.loser, tuple(o.reaction_us.items())) for o in outcomes}) > 10
    assert unit.verdict_data(PEOPLE.showdown_id) is None


def test_a_verdict_is_kept_as_plain_values_and_another_unit_fights_it_the_same():
    unit = SimulatedUnit(random.Random(5))
    outcome = unit.decide_ahead(PEOPLE).outcome
    data = unit.verdict_data(PEOPLE.showdown_id)
    assert json.loads(json.dumps(data)) == data
    assert Verdict.from_dict(data).outcome == outcome
    resumed = SimulatedUnit(random.Random(99))  # another seed: it would draw otherwise
    resumed.remember(PEOPLE.showdown_id, data)
    assert resumed.run_showdown(PEOPLE) == outcome
    assert unit.verdict_data("m1:r9:s9") is None


def test_a_live_unit_plays_out_the_verdict_it_was_given():
    unit = SimulatedUnit(random.Random(5))
    outcome = unit.decide_ahead(PEOPLE).outcome
    events = []

    class Table:
        def armed(self, link, request, unit_id):
            pass

        def event(self, link, event):
            events.append(event)

    live = LiveSimulatedUnit(
        random.Random(77), pace=DEMO_PACE, table=Table(), clock=lambda: 0.0, sleep=lambda s: None
    )
    live.remember(PEOPLE.showdown_id, unit.verdict_data(PEOPLE.showdown_id))
    assert live.run_showdown(PEOPLE) == outcome
    result = next(e for e in events if e.name == EventName.RESULT)
    side = {0: "a", 2: "b"}
    assert (result.data["loser"], result.data["reason"]) == (side[outcome.loser], outcome.reason)


def test_the_memory_of_verdicts_is_bounded():
    unit = SimulatedUnit(random.Random(5))
    for n in range(MAX_VERDICTS + 5):
        unit.decide_ahead(ShowdownRequest(f"m1:r1:s{n}", 0, 1, "Ann", "Bob", 1))
    assert unit.verdict_data("m1:r1:s0") is None
    assert unit.verdict_data(f"m1:r1:s{MAX_VERDICTS + 4}") is not None
    assert len(unit._verdicts) == MAX_VERDICTS


GOOD = SimulatedUnit(random.Random(5)).decide_ahead(PEOPLE).to_dict()


@pytest.mark.parametrize(
    "data",
    [
        None,
        {},
        {"loser": 0},
        {**GOOD, "loser": "0"},
        {**GOOD, "reason": "luck"},
        {**GOOD, "reaction_us": {"0": 1, "1": 2}},
        {**GOOD, "rounds": [{"0": 1.5}]},
    ],
)
def test_a_bad_verdict_is_refused(data):
    with pytest.raises(ValueError, match="not a showdown's verdict"):
        Verdict.from_dict(data)


def test_the_same_id_between_two_other_players_is_decided_anew():
    """Only an undone (never saved, never shown) move can name an id again
    for another pair: the unit decides that one afresh."""
    unit = SimulatedUnit(random.Random(5))
    first = unit.decide_ahead(PEOPLE)
    again = unit.decide_ahead(ShowdownRequest(PEOPLE.showdown_id, 1, 2, "Cy", "Bob", 2))
    assert {again.outcome.loser, again.outcome.winner} == {1, 2} != {0, 2}
    assert first is not again


# -- the table ---------------------------------------------------------------------------


def table(tmp_path, unit, name="table.json"):
    room = Room(seats=2, rng=random.Random(7), unit=unit, save=tmp_path / name)
    display = room.connect()
    room.receive(
        display, json.dumps({"type": "hello", "role": "display", "host_key": room.host_key})
    )
    ann = room.connect()
    room.receive(ann, json.dumps({"type": "hello", "role": "phone"}))
    room.receive(ann, json.dumps({"type": "join", "seat": 0, "name": "Ann", "code": room.code}))
    room.receive(display, json.dumps({"type": "host", "cmd": "start"}))
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    return room, display, ann


def test_the_move_that_names_a_showdown_is_saved_with_its_verdict_before_it_is_shown(tmp_path):
    unit = SimulatedUnit(random.Random(5))
    room, _display, ann = table(tmp_path, unit)
    room.receive(ann, json.dumps({"type": "act", "action": "R5!2", "id": "ab-1"}))
    saved = json.loads((tmp_path / "table.json").read_text())
    request = room.showdown_request()  # what the Runner does next: the display shows it armed
    assert list(saved["verdicts"]) == [request.showdown_id]
    assert saved["verdicts"][request.showdown_id] == unit.verdict_data(request.showdown_id)
    outcome = room.unit.run_showdown(request)
    # killed now (the verdict on the display, not yet saved): resumed with another seed
    resumed = Room(seats=2, rng=random.Random(1), unit=SimulatedUnit(random.Random(99)))
    resumed.restore(saved)
    again = resumed.showdown_request()
    assert again == request and resumed.unit.run_showdown(again) == outcome
    # once the outcome is saved, the file keeps no verdict any more
    room.finish_showdown(outcome)
    assert json.loads((tmp_path / "table.json").read_text())["verdicts"] == {}


def test_a_unit_recorded_for_the_history_page_keeps_its_verdicts_too(tmp_path):
    book = HistoryBook(now=lambda: 1764525851.0)
    room, _display, ann = table(tmp_path, book.recording(SimulatedUnit(random.Random(5))))
    room.receive(ann, json.dumps({"type": "act", "action": "R5!2", "id": "ab-1"}))
    saved = json.loads((tmp_path / "table.json").read_text())
    request = room.showdown_request()
    outcome = room.unit.run_showdown(request)
    resumed_book = HistoryBook(now=lambda: 1764525851.0)
    resumed = Room(
        seats=2, rng=random.Random(1), unit=resumed_book.recording(SimulatedUnit(random.Random(9)))
    )
    resumed.restore(saved)
    assert resumed.unit.run_showdown(resumed.showdown_request()) == outcome
    assert resumed_book.document()["results"][0]["showdown_id"] == request.showdown_id


def test_a_save_file_with_a_bad_verdict_is_refused(tmp_path):
    room, *_ = table(tmp_path, SimulatedUnit(random.Random(5)))
    with pytest.raises(ValueError, match="not a saved table: showdown m1:r1:s1: not a showdown's"):
        Room(seats=2).restore({**room.snapshot(), "verdicts": {"m1:r1:s1": {"loser": 0}}})


def test_a_unit_that_keeps_no_verdicts_is_left_alone(tmp_path):
    class Manual:
        def run_showdown(self, request):
            raise AssertionError("not fought here")

    room, _display, ann = table(tmp_path, Manual())
    room.receive(ann, json.dumps({"type": "act", "action": "R5!2", "id": "ab-1"}))
    assert json.loads((tmp_path / "table.json").read_text())["verdicts"] == {}


def test_the_companions_showdown_is_saved_with_its_verdict_before_it_is_fought(tmp_path):
    unit = SimulatedUnit(random.Random(5))
    room = CompanionRoom(rng=random.Random(3), unit=unit, save=tmp_path / "companion.json")
    display = room.connect()
    room.receive(
        display, json.dumps({"type": "hello", "role": "display", "host_key": room.host_key})
    )
    room.receive(display, json.dumps({"type": "host", "cmd": "start", "players": ["Ann", "Bob"]}))
    room.receive(
        display,
        json.dumps({"type": "host", "cmd": "showdown", "challenger": 0, "opponent": 1, "cards": 2}),
    )
    taken(room, display)
    saved = json.loads((tmp_path / "companion.json").read_text())
    request = room.showdown_request()
    outcome = room.unit.run_showdown(request)
    resumed = CompanionRoom(rng=random.Random(1), unit=SimulatedUnit(random.Random(99)))
    resumed.restore(saved)  # comes back paused: the host retries
    host = resumed.connect()
    resumed.receive(
        host, json.dumps({"type": "hello", "role": "display", "host_key": resumed.host_key})
    )
    resumed.receive(host, json.dumps({"type": "host", "cmd": "retry"}))
    assert resumed.unit.run_showdown(resumed.showdown_request()) == outcome
