"""Running a coroutine from a test, whatever else the session runs, and
reading a WebSocket until what the test waits for has come."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: The longest wait for a message: a safety net for a hung server, not a timing check.
WAIT_S = 20.0


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` on a thread of its own: the browser tests'
    Playwright (sync API, a session-wide browser) keeps an event loop running on
    the main thread, where a later ``asyncio.run`` would refuse to start."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # handed to the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="test-asyncio")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


async def receive_until(ws, done: Callable[[list[dict]], bool], timeout: float = WAIT_S) -> list:
    """The JSON messages ``ws`` receives, in order, up to the first one after
    which ``done(messages)`` is true. Waits on the messages, never on a quiet
    spell: on a loaded machine a message can come late, and a wait for "no more
    for a while" would then end too soon. TimeoutError, with what came, after
    ``timeout`` (a safety net)."""
    messages: list[dict] = []
    deadline = asyncio.get_running_loop().time() + timeout
    while not done(messages):
        left = deadline - asyncio.get_running_loop().time()
        try:
            messages.append(json.loads(await asyncio.wait_for(ws.recv(), max(left, 0))))
        except TimeoutError:
            raise TimeoutError(f"not what was awaited after {timeout:g} s: {messages}") from None
    return messages
