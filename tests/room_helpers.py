"""What the rooms' fast tests share: the last view among messages, a unit that
cannot be reached, the server's runner on an event loop, a loop that runs a
hook's hand-over at once."""

from __future__ import annotations

import asyncio
import contextlib
import json

from engine.apps.table.server import Runner
from engine.game.errors import UnitUnreachable
from tests.async_helpers import run_coroutine

__all__ = ["last_view", "taken", "Unreachable", "run_runner", "ImmediateLoop"]


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
