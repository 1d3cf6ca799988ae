"""Running a coroutine from a test, whatever else the session runs."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


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
