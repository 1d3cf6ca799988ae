"""The simulated table of the demo and the end-to-end tests presses only the
people's paddles on a unit that presses for bots, and nothing at all when
two bots face each other (the unit starts by itself)."""

import random

from engine.apps.demo import SimulatedTable
from engine.units.ports import ShowdownRequest
from firmware_host.protocol import Event

#: Ann (player 0) challenges Bob (player 1), a bot: Ann is side A, Bob side B.
PERSON_VS_BOT = ShowdownRequest("m1:r1:s1", 0, 1, "Ann", "Bob", 2, bots={1: 230.0})
BOT_VS_BOT = ShowdownRequest("m1:r1:s2", 0, 1, "Ann", "Bob", 2, bots={0: 200.0, 1: 230.0})
PEOPLE = ShowdownRequest("m1:r1:s3", 0, 1, "Ann", "Bob", 2)


class Link:
    """What the table uses of a link: the hello, and the commands it sends."""

    def __init__(self, *capabilities):
        self.hello = {"capabilities": ["bench", *capabilities]}
        self.calls = []

    def call(self, cmd, **args):
        self.calls.append((cmd, args))
        return {}


def pressed_sides(link):
    return {args["side"] for cmd, args in link.calls if cmd == "bench_press"}


def test_two_bots_on_a_unit_that_presses_for_them_leave_the_table_idle():
    link = Link("bots")
    table = SimulatedTable(random.Random(1))
    table.armed(link, BOT_VS_BOT, "x-1")
    table.event(
        link, Event("tie", 5, {"showdown_id": "x-1", "gap_us": 90, "rerun": 1, "void": False})
    )
    assert link.calls == []


def test_against_a_bot_the_table_presses_only_the_person_s_paddle_and_the_timer():
    for seed in range(40):  # false starts and reactions alike: always side A, Ann's
        link = Link("bots")
        SimulatedTable(random.Random(seed)).armed(link, PERSON_VS_BOT, "x-1")
        assert pressed_sides(link) == {"a"}
        assert link.calls[-1] == ("bench_timer", {})
        [press] = [args for cmd, args in link.calls if cmd == "bench_press"]
        assert -40 <= press["offset_ms"] <= 1500
    link = Link("bots")
    table = SimulatedTable(random.Random(1))
    table.armed(link, PERSON_VS_BOT, "x-1")
    link.calls.clear()
    table.event(
        link, Event("tie", 5, {"showdown_id": "x-1", "gap_us": 90, "rerun": 1, "void": False})
    )
    assert pressed_sides(link) == {"a"}  # a re-run: Ann presses again, the unit for Bob


def test_a_unit_that_cannot_press_for_bots_gets_both_presses_from_the_table():
    sides = set()
    for seed in range(20):
        link = Link()  # no "bots" capability
        SimulatedTable(random.Random(seed)).armed(link, BOT_VS_BOT, "x-1")
        sides |= pressed_sides(link)
        assert link.calls[-1] == ("bench_timer", {})
    assert sides == {"a", "b"}


def test_people_are_pressed_for_on_any_unit():
    link = Link("bots")
    SimulatedTable(random.Random(3)).armed(link, PEOPLE, "x-1")
    assert pressed_sides(link) <= {"a", "b"} and pressed_sides(link)
    assert link.calls[-1] == ("bench_timer", {})
