"""The lobby's seats on the sans-IO room and a virtual clock: the host frees a
seat (its phone is told, its secret stops working, another phone takes it),
moves one, clears the lobby; a seat whose phone is away is freed after the
timeout and not before, in the lobby and after a match, never during one; a
resumed lobby waits for its phones from the restore; the Runner wakes for it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random

import pytest

from engine.apps.table import server
from engine.apps.table.room import Room
from engine.apps.table.server import Runner
from tests.async_helpers import run_coroutine
from tests.room_helpers import last_view, taken

KEY = "the-host-key"
CODE = "QXZW"


def make_room(clock, seats=4, **options):
    secrets = iter(f"secret-{n}" for n in range(100))
    return Room(
        seats=seats,
        rng=random.Random(7),
        new_secret=lambda: next(secrets),
        clock=clock.now,
        host_key=KEY,
        code=CODE,
        **options,
    )


def send(room, conn, **message):
    room.receive(conn, json.dumps(message))
    return taken(room, conn)


def host_display(room):
    conn = room.connect("10.0.0.9")
    send(room, conn, type="hello", role="display", host_key=KEY)
    return conn


def phone(room, seat, name, peer="10.0.0.20"):
    conn = room.connect(peer)
    send(room, conn, type="hello", role="phone", secret=None)
    welcome = send(room, conn, type="join", seat=seat, name=name, code=CODE)[0]
    assert welcome["seat"] == seat, welcome
    return conn


def host(room, display, cmd, **options):
    messages = send(room, display, type="host", cmd=cmd, **options)
    return [m["message"] for m in messages if m["type"] == "refused"]


def names(room):
    return [seat.name for seat in room.seats]


# -- the host's seat commands -----------------------------------------------------------


def test_the_host_frees_a_seat_its_phone_is_told_its_secret_stops_and_another_takes_it(
    virtual_clock,
):
    room = make_room(virtual_clock)
    display = host_display(room)
    ann = phone(room, 2, "Ann")
    assert host(room, display, "free_seat", seat=2) == []
    assert taken(room, ann)[0] == {
        "type": "welcome",
        "role": "phone",
        "seat": None,
        "secret": None,
        "host": False,
        "message": "The host freed your seat: pick a seat again to play.",
    }
    assert ann.seat is None and room.seats[2].kind is None
    assert room.log[0] == "The host freed seat 3 (Ann)."
    # Her secret no longer rejoins; another phone takes the seat.
    again = room.connect("10.0.0.20")
    assert send(room, again, type="hello", role="phone", secret="secret-0")[0]["seat"] is None
    bob = phone(room, 2, "Bob", peer="10.0.0.21")
    assert bob.seat == 2 and names(room) == [None, None, "Bob", None]


@pytest.mark.parametrize(
    ("cmd", "options", "refused"),
    [
        ("free_seat", {"seat": 0}, "seat 0 is free already"),
        ("free_seat", {"seat": 4}, "seat must be a number from 0 to 3"),
        ("free_seat", {}, "seat must be a number from 0 to 3"),
        ("move_seat", {"seat": 1, "to": 1}, "seat 1 is at seat 1 already"),
        ("move_seat", {"seat": 1, "to": "0"}, "to must be a number from 0 to 3"),
        ("move_seat", {"seat": True, "to": 0}, "seat must be a number from 0 to 3"),
    ],
)
def test_bad_seat_commands_are_refused(virtual_clock, cmd, options, refused):
    room = make_room(virtual_clock)
    display = host_display(room)
    phone(room, 1, "Ann")
    assert host(room, display, cmd, **options) == [refused]
    assert names(room) == [None, "Ann", None, None]


def test_the_host_moves_a_seat_and_the_phones_keep_their_people(virtual_clock, tmp_path):
    room = make_room(virtual_clock, save=tmp_path / "table.json")
    display = host_display(room)
    ann, bob = phone(room, 0, "Ann"), phone(room, 1, "Bob", peer="10.0.0.21")
    assert host(room, display, "move_seat", seat=0, to=3) == []
    assert names(room) == ["Bob", None, None, "Ann"]
    assert (ann.seat, bob.seat) == (3, 0)
    view = last_view(taken(room, ann))
    assert view["you"]["seat"] == 3 and view["log"][0] == "The host moved Ann to seat 4."
    saved = json.loads((tmp_path / "table.json").read_text())
    assert [s["name"] for s in saved["seats"]] == ["Bob", None, None, "Ann"]
    # A seat's secret follows it: Ann's phone comes back to seat 3.
    again = room.connect("10.0.0.20")
    assert send(room, again, type="hello", role="phone", secret="secret-0")[0]["seat"] == 3


def test_the_host_clears_the_lobby_and_every_phone_is_told(virtual_clock):
    room = make_room(virtual_clock)
    display = host_display(room)
    ann, bob = phone(room, 0, "Ann"), phone(room, 3, "Bob", peer="10.0.0.21")
    assert host(room, display, "clear_lobby") == []
    for conn in (ann, bob):
        welcome = next(m for m in taken(room, conn) if m["type"] == "welcome")
        assert (welcome["seat"], welcome["message"]) == (
            None,
            "The host cleared the lobby: pick a seat again to play.",
        )
    assert names(room) == [None] * 4
    assert room.log[0] == "The host cleared the lobby: 2 seats freed."
    assert host(room, display, "clear_lobby") == ["nobody is seated: the lobby is clear"]


def test_seats_are_not_freed_or_moved_while_a_match_is_played_but_after_it_is(virtual_clock):
    room = make_room(virtual_clock)
    display = host_display(room)
    phone(room, 0, "Ann")
    phone(room, 1, "Bob", peer="10.0.0.21")
    assert host(room, display, "start", bots=0, target=1) == []
    playing = "a match is being played: seats are freed and moved in the lobby"
    for cmd, options in (("free_seat", {"seat": 0}), ("move_seat", {"seat": 0, "to": 1})):
        assert host(room, display, cmd, **options) == [playing]
    assert host(room, display, "clear_lobby") == [playing]
    finish_the_match(room)
    assert room.phase == "match_over"
    assert host(room, display, "move_seat", seat=0, to=1) == [
        "the match is over: seats are moved in the lobby (end the match first)"
    ]
    assert host(room, display, "free_seat", seat=1) == []
    assert names(room) == ["Ann", None]
    assert host(room, display, "clear_lobby") == []
    assert names(room) == [None, None]


def finish_the_match(room):
    """Play the match (target 1 point) to its end with bots in every seat."""
    for n in range(len(room.seats)):
        if not room.seats[n].bot_playing:
            room.seats[n].bot_playing = True
            room._seat_bot(n)
    for _ in range(10_000):
        task = room.next_task()
        if task == "bot":
            room.bot_step()
        elif task == "showdown":
            room.finish_showdown(room.unit.run_showdown(room.showdown_request()))
        elif task == "next_round":
            room.next_round()
        else:
            break
    for seat in room.seats:
        seat.bot_playing = False


# -- a phone away: its lobby seat freed after the timeout -------------------------------


def test_a_lobby_seat_whose_phone_is_away_is_freed_after_the_timeout_and_not_before(
    virtual_clock, tmp_path
):
    room = make_room(virtual_clock, save=tmp_path / "table.json", seat_timeout_s=120)
    display = host_display(room)
    ann = phone(room, 1, "Ann")
    assert room.next_deadline() is None  # her phone holds the seat
    virtual_clock.advance(30)
    room.disconnect(ann)
    assert room.next_deadline() == 150
    virtual_clock.advance(119.9)
    room.run_due()
    assert names(room) == [None, "Ann", None, None]
    virtual_clock.advance(0.1)
    room.run_due()
    assert names(room) == [None, None, None, None] and room.next_deadline() is None
    assert last_view(taken(room, display))["log"][0] == (
        "Seat 2 (Ann) was freed: its phone was away for 120 s."
    )
    assert json.loads((tmp_path / "table.json").read_text())["seats"][1]["name"] is None
    # Her secret no longer rejoins.
    again = room.connect("10.0.0.20")
    assert send(room, again, type="hello", role="phone", secret="secret-0")[0]["seat"] is None


def test_a_phone_back_in_time_keeps_its_seat_and_a_timeout_of_0_never_frees(virtual_clock):
    room = make_room(virtual_clock, seat_timeout_s=60)
    ann = phone(room, 0, "Ann")
    room.disconnect(ann)
    virtual_clock.advance(59)
    back = room.connect("10.0.0.20")
    assert send(room, back, type="hello", role="phone", secret="secret-0")[0]["seat"] == 0
    assert room.next_deadline() is None
    virtual_clock.advance(600)
    room.run_due()
    assert names(room)[0] == "Ann"

    never = make_room(virtual_clock, seat_timeout_s=0)
    room.disconnect(phone(never, 0, "Ann"))
    virtual_clock.advance(86_400)
    never.run_due()
    assert never.next_deadline() is None and names(never)[0] == "Ann"


def test_during_a_match_an_away_phone_keeps_its_seat_and_after_it_the_timeout_runs(
    virtual_clock,
):
    room = make_room(virtual_clock, seats=2, seat_timeout_s=120)
    display = host_display(room)
    phone(room, 0, "Ann")
    bob = phone(room, 1, "Bob", peer="10.0.0.21")
    assert host(room, display, "start", bots=0, target=1) == []
    room.disconnect(bob)  # at 0 s
    virtual_clock.advance(500)
    assert room.next_deadline() is None  # a match being played keeps its players
    room.run_due()
    assert names(room) == ["Ann", "Bob"]
    finish_the_match(room)  # at 500 s: the seats stay for the next match
    assert room.phase == "match_over" and names(room) == ["Ann", "Bob"]
    assert room.next_deadline() == 620
    virtual_clock.advance(120)
    room.run_due()
    assert names(room) == ["Ann", None]


def test_a_resumed_lobby_waits_for_its_phones_from_the_restore_and_a_match_keeps_its_players(
    virtual_clock,
):
    room = make_room(virtual_clock, seat_timeout_s=120)
    display = host_display(room)
    phone(room, 0, "Ann")
    phone(room, 2, "Bob", peer="10.0.0.21")
    lobby = room.snapshot()
    assert host(room, display, "start", bots=1) == []
    playing = room.snapshot()

    virtual_clock.advance(1000)
    again = make_room(virtual_clock, seat_timeout_s=120)
    again.restore(lobby)
    assert again.next_deadline() == 1120 and again.host_key == KEY
    virtual_clock.advance(120)
    again.run_due()
    assert names(again) == [None] * 4

    resumed = make_room(virtual_clock, seat_timeout_s=120)
    resumed.restore(playing)
    virtual_clock.advance(1000)
    assert resumed.next_deadline() is None
    resumed.run_due()
    assert names(resumed) == ["Ann", "Bob", "bot2"]
    # The host may still clear it: after ending the match, the lobby.
    host_again = host_display(resumed)
    assert host(resumed, host_again, "end") == []
    assert host(resumed, host_again, "clear_lobby") == []
    assert names(resumed) == [None, None, None]


def test_after_the_host_ends_a_match_an_away_phones_seat_waits_the_timeout_from_then(
    virtual_clock,
):
    room = make_room(virtual_clock, seats=2, seat_timeout_s=120)
    display = host_display(room)
    room.disconnect(phone(room, 0, "Ann"))
    assert host(room, display, "start", bots=1) == []
    virtual_clock.advance(300)
    assert host(room, display, "end") == []
    assert room.next_deadline() == 420


# -- the server's Runner wakes for the room's deadline ----------------------------------


def test_the_runner_waits_until_the_rooms_next_deadline_then_frees_the_seat(
    virtual_clock, monkeypatch
):
    room = make_room(virtual_clock, seat_timeout_s=120)
    room.disconnect(phone(room, 0, "Ann"))
    waited: list[float] = []

    async def wait_for(awaitable, timeout):
        """asyncio.wait_for on the virtual clock: the room's deadline passes."""
        waited.append(timeout)
        virtual_clock.advance(timeout)
        awaitable.close()
        raise TimeoutError

    monkeypatch.setattr(server.asyncio, "wait_for", wait_for)

    async def main():
        runner = Runner(room, pace_s=0, round_pause_s=0)
        room.on_change = runner.wake
        task = asyncio.create_task(runner.run())
        for _ in range(100):
            await asyncio.sleep(0)
            if room.seats[0].kind is None:
                break
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    run_coroutine(main())
    assert waited == [120] and names(room) == [None] * 4
