"""What the rooms' fast tests share: the last view among messages, a unit that
cannot be reached, the server's runner on an event loop, a loop that runs a
hook's hand-over at once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re

from engine.apps.table.room import Room
from engine.apps.table.server import Runner
from engine.game.errors import UnitUnreachable
from tests.async_helpers import run_coroutine

__all__ = [
    "last_view",
    "taken",
    "Unreachable",
    "run_runner",
    "ImmediateLoop",
    "make_room",
    "send",
    "hello",
    "phone",
    "refusals",
    "start",
    "host",
    "run_machines",
    "two_people",
    "turn_of",
    "bots_turn",
    "shown",
    "SHOWDOWN_NEXT",
]


def taken(room, conn):
    """What waits for ``conn``, decoded (``take`` gives JSON texts)."""
    return [json.loads(text) for text in room.take(conn)]


def last_view(messages):
    views = [m["view"] for m in messages if m["type"] == "view"]
    return views[-1] if views else None


class Unreachable:
    """A unit port whose unit never answers."""

    def run_showdown(self, request):
        raise UnitUnreachable(
            "the unit at socket://pi:7700 is unreachable",
            url="socket://pi:7700",
            what_to_do="Switch the unit on.",
        )


def run_runner(room, until):
    """The server's Runner on an event loop (no pacing) until ``until()`` holds."""

    async def main():
        runner = Runner(room, pace_s=0, round_pause_s=0)
        room.on_change = runner.wake
        task = asyncio.create_task(runner.run())
        runner.wake()
        for _ in range(10_000):
            await asyncio.sleep(0)
            if until():
                break
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    run_coroutine(main())


class ImmediateLoop:
    """call_soon_threadsafe, done at once: the hooks' hand-over without a loop."""

    def call_soon_threadsafe(self, function, *args):
        function(*args)


# -- a room driven by hand: its connections, its host, its machines --------------------


def make_room(seats=3, seed=7, **options):
    secrets = iter(f"secret-{n}" for n in range(100))
    return Room(seats=seats, rng=random.Random(seed), new_secret=lambda: next(secrets), **options)


def send(room, conn, **message):
    room.receive(conn, json.dumps(message))
    return taken(room, conn)


def hello(room, role="display", secret=None):
    """A connection that said hello: a display is the host (it gives the key)."""
    conn = room.connect()
    message = {"type": "hello", "role": role}
    if role == "phone":
        message["secret"] = secret
    else:
        message["host_key"] = room.host_key
    room.receive(conn, json.dumps(message))
    return conn


def phone(room, seat, name):
    conn = hello(room, "phone")
    room.receive(conn, json.dumps({"type": "join", "seat": seat, "name": name, "code": room.code}))
    return conn


def refusals(messages):
    return [m for m in messages if m["type"] == "refused"]


def start(room, display, **options):
    return send(room, display, type="host", cmd="start", **options)


def run_machines(room):
    """Let the bots and the unit play until a person (or the host) must act."""
    while True:
        task = room.next_task()
        if task == "bot":
            room.bot_step()
        elif task == "showdown":
            request = room.showdown_request()
            room.finish_showdown(room.unit.run_showdown(request))
        else:
            return task


def two_people(seed=7):
    room = make_room(seats=3, seed=seed)
    display = hello(room)
    ann, bob = phone(room, 0, "Ann"), phone(room, 1, "Bob")
    start(room, display)
    return room, display, ann, bob


def turn_of(room, ann, bob):
    """Play the machines until Ann or Bob must act; (their connection, the other)."""
    run_machines(room)
    player = room.game.to_act
    return (ann, bob) if player == 0 else (bob, ann)


def host(room, display, cmd, **options):
    return send(room, display, type="host", cmd=cmd, **options)


def bots_turn(room, ann):
    """Ann (seat 0) acts until a bot must decide."""
    ids = iter(range(10_000))
    while (task := run_machines(room)) is None:
        legal = room.view_for(ann)["you"]["legal"]
        send(room, ann, type="act", action=legal[0]["action"], id=f"b{next(ids)}")
        if room.next_task() == "bot":
            return
    raise AssertionError(f"no bot's turn: {task}")


SHOWDOWN_NEXT = "showdown R5!2,G2/B1,Y1 G1,B2,G3,G4 R1 R + 0 play - - 0,0 1 1 500 - 1:0"


CARD_TEXT = r"(?<![\w+!=]){}(?![\w+!=])"


def shown(messages, text):
    pattern = re.compile(CARD_TEXT.format(re.escape(text)))
    return any(pattern.search(json.dumps(m, ensure_ascii=False)) for m in messages)
