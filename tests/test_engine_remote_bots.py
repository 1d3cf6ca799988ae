"""What the remote unit port sends for bots and tells the table, against a
scripted unit (tests/fake_unit.py) on virtual time: the unit presses for the
bots when it can, two bots need no one at the table, and every verdict is
said once, in the words that fit it."""

import pytest

from engine.units.ports import ShowdownRequest
from engine.units.remote import RemoteUnit, UnitJam
from tests.fake_unit import FakeUnit, decided, false_start, timeout

URL = "socket://unit.test:7700"
#: Cat (player 2) challenges the bot Bob (player 0); Bob's median is 180 ms.
PERSON_VS_BOT = ShowdownRequest("m1:r2:s3", 2, 0, "Cat", "Bob", 3, bots={0: 180.0})
#: Two bots: Al (1) challenges Bob (0).
BOT_VS_BOT = ShowdownRequest("m1:r1:s1", 1, 0, "Al", "Bob", 2, bots={1: 400.0, 0: 180.0})


def remote(unit: FakeUnit, **options) -> RemoteUnit:
    options.setdefault("id_prefix", "t")
    return RemoteUnit(URL, open_port=unit.open_port, clock=unit.clock, sleep=unit.sleep, **options)


class PressTimer:
    """A table that presses the timer button, and counts how often."""

    def __init__(self):
        self.presses = 0

    def armed(self, link, request, unit_id):
        self.presses += 1
        link.call("bench_timer")

    def event(self, link, event):
        """The unit's events change nothing for a table that only starts showdowns."""


def test_a_unit_that_presses_for_bots_gets_each_bot_s_side_and_reaction():
    unit = FakeUnit([decided(winner="b", a_us=254_500, b_us=181_000)], bots=True)
    said, table = [], PressTimer()
    port = remote(unit, table=table, say=said.append)
    outcome = port.run_showdown(PERSON_VS_BOT)
    [arm] = unit.commands("showdown")
    assert arm == {
        "showdown_id": "t-m1:r2:s3",
        "cards": 3,
        "players": {"a": "Cat", "b": "Bob"},
        "bots": {"b": {"reaction_ms": 180.0}},  # the opponent is side B
    }
    assert port.presses_for_bots and port.bot_sides(PERSON_VS_BOT) == {"b": 180.0}
    assert table.presses == 1  # Cat is a person: the table still presses the timer button
    assert said[0] == (
        "Load 3 cards into the unit: Cat (side A) vs Bob (side B, a bot: the unit presses "
        "for it). Press the timer button."
    )
    assert said[-1] == (
        "Bob wins: Cat 254.5 ms, Bob (bot) 181.0 ms, margin 73.5 ms. Cat takes 3 cards."
    )
    assert (outcome.loser, outcome.winner) == (2, 0)
    assert outcome.detail == (
        "Bob wins: Cat 254.5 ms, Bob (bot) 181.0 ms, margin 73.5 ms (unit showdown t-m1:r2:s3)"
    )


def test_two_bots_on_a_unit_that_presses_for_them_need_no_one_at_the_table():
    unit = FakeUnit([decided(winner="a", a_us=390_000, b_us=402_000)], bots=True)
    said = []
    outcome = remote(unit, say=said.append).run_showdown(BOT_VS_BOT)  # no table, no start
    assert [cmd for cmd, _ in unit.log] == ["hello", "showdown"]  # nobody pressed anything
    assert unit.commands("showdown")[0]["bots"] == {
        "a": {"reaction_ms": 400.0},
        "b": {"reaction_ms": 180.0},
    }
    assert unit.runs == ["t-m1:r1:s1"]  # the unit started by itself
    assert said[0] == (
        "Load 2 cards into the unit: Al (side A, a bot: the unit presses for it) vs Bob "
        "(side B, a bot: the unit presses for it). The unit starts by itself."
    )
    assert "Press the timer button" not in " ".join(said)
    assert said[-1] == (
        "Al wins: Al (bot) 390.0 ms, Bob (bot) 402.0 ms, margin 12.0 ms. Bob takes 2 cards."
    )
    assert (outcome.loser, outcome.winner) == (0, 1)


def test_two_bots_are_left_to_start_by_themselves_even_by_an_engine_that_starts_the_unit():
    unit = FakeUnit([decided(winner="a")], bots=True)
    said = []
    remote(unit, start=True, say=said.append).run_showdown(BOT_VS_BOT)
    assert unit.commands("start") == [] and unit.runs == ["t-m1:r1:s1"]
    assert said[0].endswith("The unit starts by itself.")


def test_a_unit_without_the_bots_capability_gets_no_bots_and_the_table_hears_it_once():
    unit = FakeUnit([decided(winner="a"), decided(winner="b")])
    said, table = [], PressTimer()
    port = remote(unit, table=table, say=said.append)
    port.run_showdown(PERSON_VS_BOT)
    port.run_showdown(ShowdownRequest("m1:r2:s4", 0, 2, "Bob", "Cat", 1, bots={0: 180.0}))
    assert [set(arm) for arm in unit.commands("showdown")] == [
        {"showdown_id", "cards", "players"}
    ] * 2
    assert not port.presses_for_bots and port.bot_sides(PERSON_VS_BOT) == {}
    notices = [line for line in said if "cannot press" in line]
    assert notices == [
        'This unit cannot press a paddle for a bot (its software lacks the "bots" '
        "capability): on it a bot never presses, so whoever presses beats it, and two bots "
        "only time out. Update the unit's software to let bots press."
    ]
    assert said.index(notices[0]) == 0  # before the first showdown's load line
    assert table.presses == 2


def test_people_only_hear_nothing_about_bots():
    unit = FakeUnit([decided(winner="a")])
    said = []
    remote(unit, table=PressTimer(), say=said.append).run_showdown(
        ShowdownRequest("m1:r1:s1", 0, 1, "Ann", "Cat", 1)
    )
    assert not [line for line in said if "bot" in line]


def test_a_false_start_is_announced_once():
    unit = FakeUnit([false_start(offender="a")], bots=True)
    said = []
    remote(unit, table=PressTimer(), say=said.append).run_showdown(PERSON_VS_BOT)
    assert [line for line in said if "alse start" in line] == [
        "False start by Cat (side A). Cat takes 3 cards."
    ]


def test_after_a_timeout_the_cards_are_still_loaded_and_not_asked_for_again():
    unit = FakeUnit([timeout(), decided(winner="a")], bots=True)
    said, table = [], PressTimer()
    remote(unit, table=table, say=said.append).run_showdown(PERSON_VS_BOT)
    told = [line for line in said if not line.startswith("  ")]
    assert told[1:3] == [
        "Nobody pressed in time. The cards are still loaded.",
        "The showdown is armed again. Press the timer button.",
    ]
    assert len([line for line in said if line.startswith("Load ")]) == 1
    assert table.presses == 2


def test_a_loser_who_never_pressed_did_not_press_and_one_who_pressed_late_not_in_time():
    never = {
        **decided(winner="a", a_us=231_000),
        "reaction_us": {"a": 231_000, "b": None},
        "margin_us": None,
    }
    late = {**decided(winner="a", a_us=231_000, b_us=612_000), "margin_us": None}
    unit = FakeUnit([never, late], bots=True)
    said = []
    port = remote(unit, table=PressTimer(), say=said.append)
    port.run_showdown(PERSON_VS_BOT)
    port.run_showdown(ShowdownRequest("m1:r2:s4", 2, 0, "Cat", "Bob", 1, bots={0: 180.0}))
    verdicts = [line for line in said if " wins: " in line]
    assert verdicts == [
        "Cat wins: Cat 231.0 ms; Bob (bot) did not press. Bob takes 3 cards.",
        "Cat wins: Cat 231.0 ms, Bob (bot) 612.0 ms (Bob did not press in time). Bob takes 1 card.",
    ]


def test_a_jammed_launch_s_verdict_is_said_once_by_the_problem_that_pauses_the_game():
    unit = FakeUnit([decided(winner="a", launch="jam", counted=1)], bots=True)
    said = []
    with pytest.raises(UnitJam) as caught:
        remote(unit, table=PressTimer(), say=said.append).run_showdown(PERSON_VS_BOT)
    assert str(caught.value) == (
        "The launcher jammed (1 of 3 counted): Cat wins: Cat 200.0 ms, Bob (bot) 230.0 ms, "
        "margin 30.0 ms; Bob takes 3 cards"
    )
    assert not [line for line in said if "wins" in line or "jam" in line]
