"""The game room on the server's runner and the unit's hooks (an event loop,
no clock), and the phones' lag reports: split from test_table_room.py."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from engine.apps.table.server import Runner, UnitHooks
from firmware_host.protocol import Event
from tests.async_helpers import run_coroutine
from tests.room_helpers import (
    SHOWDOWN_NEXT,
    ImmediateLoop,
    Unreachable,
    hello,
    last_view,
    make_room,
    phone,
    refusals,
    run_runner,
    send,
    start,
    taken,
)

# -- the server's runner and the unit's hooks (on an event loop, no clock) ----------------


class RoundOver:
    """A room whose round is over, for the runner alone: the host may deal the
    next round (``tasks`` becomes a bot's turn) while the runner waits."""

    host_paused = False

    def __init__(self):
        self.tasks = ["next_round"]
        self.moves: list[str] = []

    def next_task(self):
        return self.tasks[0] if self.tasks else None

    def next_deadline(self):
        return None

    def run_due(self):
        """Nothing falls due while the round is over."""

    def next_round(self):
        self.moves.append("dealt by the runner")
        self.tasks = ["bot"]

    def bot_step(self):
        self.moves.append("bot")
        self.tasks = []


def test_the_host_dealing_the_next_round_ends_the_runners_pause_before_it():
    room = RoundOver()

    async def main():
        runner = Runner(room, pace_s=0, round_pause_s=3600)  # waited out, it never ends
        task = asyncio.create_task(runner.run())
        for _ in range(10):
            await asyncio.sleep(0)
        room.tasks = ["bot"]  # the host dealt the next round; the room woke the runner
        runner.wake()
        for _ in range(100):
            await asyncio.sleep(0)
            if room.moves:
                break
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    run_coroutine(main())
    assert room.moves == ["bot"]


def test_the_runner_deals_the_next_round_after_its_pause():
    room = RoundOver()

    async def main():
        runner = Runner(room, pace_s=0, round_pause_s=0)
        task = asyncio.create_task(runner.run())
        for _ in range(100):
            await asyncio.sleep(0)
            if room.tasks == []:
                break
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    run_coroutine(main())
    assert room.moves == ["dealt by the runner", "bot"]


def test_the_runner_fights_the_showdown_in_a_worker_thread_and_plays_the_bots():
    room = make_room(seats=2)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    send(room, ann, type="act", action="R5!2", id=1)
    run_runner(room, lambda: room.match.showdowns == 1 and room.game.to_act == 0)
    assert room.match.showdowns == 1
    assert room.game.to_act == 0 or room.game.round_over
    assert any(line.startswith("Showdown (R5!2)") for line in room.log)


def test_a_unit_problem_pauses_the_game_with_what_to_do():
    room = make_room(seats=2, unit=Unreachable())
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    send(room, ann, type="act", action="R5!2", id=1)
    run_runner(room, lambda: room.paused is not None)
    assert room.paused == (
        "The game is paused: the unit at socket://pi:7700 is unreachable. "
        "What to do: Switch the unit on."
    )
    assert last_view(taken(room, display))["paused"] == room.paused


def test_a_phone_gets_only_the_newest_lines_of_the_log_the_display_all():
    room = make_room(seats=2)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    for n in range(10):
        room.unit_said(f"line {n}")
    log = last_view(taken(room, display))["log"]
    assert len(log) > 10 and log[0] == "line 9"
    assert last_view(taken(room, ann))["log"] == log[:5]


def test_what_the_unit_says_outside_a_showdown_goes_to_the_log():
    room = make_room(seats=2)
    display = hello(room)
    phone(room, 0, "Ann")
    start(room, display)
    room.unit_said("Lost the link to the unit (timed out): reconnecting...")
    assert last_view(taken(room, display))["log"][0].startswith("Lost the link")


def test_a_remote_units_hooks_drive_the_showdown_view_and_the_log():
    room = make_room(seats=2)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    send(room, ann, type="act", action="R5!2", id=1)
    request = room.showdown_request()
    hooks = UnitHooks()
    hooks.bind(room, ImmediateLoop())
    taken(room, display)
    hooks.say("Load 2 cards into the unit: Ann (side A) vs bot1 (side B). Press the timer button.")
    hooks.armed(None, request, "ab12-m1:r1:s1")
    hooks.event(
        None,
        Event("countdown", 3, {"showdown_id": "ab12-m1:r1:s1", "step": 2, "steps": 3, "rerun": 0}),
    )
    hooks.event(None, Event("false_start", 4, {"showdown_id": "ab12-m1:r1:s1", "side": "b"}))
    messages = taken(room, display)
    view = last_view(messages)
    assert view["showdown"]["message"].startswith("Load 2 cards into the unit")
    assert view["showdown"]["message"] not in view["log"]  # the panel's line, not the log's
    assert (view["showdown"]["stage"], view["showdown"]["step"]) == ("countdown", 2)
    assert view["showdown"]["false_start_by"] == 1
    assert [m["name"] for m in messages if m["type"] == "event"] == [
        "armed",
        "countdown",
        "false_start",
    ]


# -- lag ------------------------------------------------------------------------------------


def test_a_ping_is_answered_at_once_to_its_sender_alone():
    room = make_room()
    display = hello(room)
    ann = phone(room, 0, "Ann")
    taken(room, display)
    taken(room, ann)
    assert send(room, ann, type="ping", id=7) == [{"type": "pong", "id": 7}]
    assert taken(room, display) == []
    fresh = room.connect()  # before hello too: the page measures from its first frame
    assert send(room, fresh, type="ping", id="a") == [{"type": "pong", "id": "a"}]
    before_ms = room.clock() * 1000  # a paddle asks for the server's clock too
    (pong,) = send(room, ann, type="ping", id=8, clock=True)
    assert before_ms <= pong.pop("server_ms") <= room.clock() * 1000
    assert pong == {"type": "pong", "id": 8}
    assert refusals(send(room, ann, type="ping", id=[1])) == [
        {
            "type": "refused",
            "id": None,
            "message": "ping id must be a number or a string of up to 64 characters",
        }
    ]


def test_a_phones_lag_shows_next_to_its_seat_and_small_changes_send_nothing():
    room = make_room()
    display = hello(room)
    ann = phone(room, 0, "Ann")
    assert last_view(taken(room, display))["seats"][0]["lag_ms"] is None
    send(room, ann, type="lag", ms=118.4)
    assert last_view(taken(room, display))["seats"][0]["lag_ms"] == 118
    send(room, ann, type="lag", ms=131)
    assert taken(room, display) == []  # within a quarter (at least 20 ms): the same to the eye
    send(room, ann, type="lag", ms=310)
    assert last_view(taken(room, display))["seats"][0]["lag_ms"] == 310
    room.disconnect(ann)
    assert last_view(taken(room, display))["seats"][0]["lag_ms"] is None


@pytest.mark.parametrize("ms", [-1, "fast", True, None, 60_001])
def test_a_bad_lag_report_is_refused(ms):
    room = make_room()
    ann = phone(room, 0, "Ann")
    taken(room, ann)
    assert refusals(send(room, ann, type="lag", ms=ms)) == [
        {
            "type": "refused",
            "id": None,
            "message": f"lag ms must be a number of milliseconds from 0 to 60000, not {ms!r}",
        }
    ]


def test_lag_decides_nothing_a_claim_is_taken_in_arrival_order():
    # Bob reports a huge lag and catches Ann: his claim counts as it arrives, and
    # a second one (however early Bob says he sent it) is refused.
    room = make_room(seats=2)
    display = hello(room)
    phone(room, 0, "Ann")
    bob = phone(room, 1, "Bob")
    start(room, display)
    room.restore(
        {
            **room.snapshot(),
            "notation": "classic R5/B1,Y1,Y2 G1,B2,G3,G4 R1 R + 1 play 0 - 0,0 1 1 500 - 1:0",
        }
    )
    send(room, bob, type="lag", ms=5000)
    assert refusals(send(room, bob, type="act", action="catch 0", id="a", sent_ms=0)) == []
    assert refusals(send(room, bob, type="act", action="catch 0", id="b", sent_ms=-9)) == [
        {
            "type": "refused",
            "id": "b",
            "message": "Ann holds 3 cards: catch only a player left with one who did not call UNO",
        }
    ]
