"""The unit's timers: named deadlines on the loop's clock, earliest first.

No timer threads: whoever drives the core asks :meth:`Deadlines.next` when
the earliest is due, waits until then (or until an event comes), and takes
the due ones with :meth:`Deadlines.pop_due`. Scheduling a name again replaces
its deadline; a replaced or cancelled entry stays in the heap and is skipped
when it surfaces, so every operation is O(log n).

>>> timers = Deadlines()
>>> timers.schedule("step", 2.0, "next step"); timers.schedule("flash", 1.5, "toggle")
>>> timers.schedule("step", 3.0, "next step, later")     # replaces the first
>>> timers.next(), "flash" in timers
(1.5, True)
>>> timers.pop_due(now=2.5), timers.pop_due(now=2.5), timers.next()
(('flash', 'toggle'), None, 3.0)
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

__all__ = ["Deadlines"]


class Deadlines:
    """Named one-shot deadlines, each carrying an action for the caller."""

    def __init__(self):
        # The live entry per name, and a heap of entries (an entry that is no
        # longer the live one for its name is skipped when it surfaces).
        self._live: dict[str, tuple[float, int, str, Any]] = {}
        self._heap: list[tuple[float, int, str, Any]] = []
        self._order = itertools.count()  # equal times: first scheduled, first out

    def schedule(self, name: str, when: float, action: Any) -> None:
        """Set ``name`` due at clock time ``when`` (replacing its deadline)."""
        entry = (when, next(self._order), name, action)
        self._live[name] = entry
        heapq.heappush(self._heap, entry)

    def cancel(self, *names: str) -> None:
        for name in names:
            self._live.pop(name, None)

    def clear(self) -> None:
        self._live.clear()
        self._heap.clear()

    def __contains__(self, name: str) -> bool:
        return name in self._live

    def next(self) -> float | None:
        """Clock time of the earliest deadline; None when none is set."""
        entry = self._earliest()
        return None if entry is None else entry[0]

    def pop_due(self, now: float) -> tuple[str, Any] | None:
        """The earliest deadline due at ``now`` as (name, action), removed;
        None if none is due."""
        entry = self._earliest()
        if entry is None or entry[0] > now:
            return None
        heapq.heappop(self._heap)
        del self._live[entry[2]]
        return entry[2], entry[3]

    def _earliest(self):
        heap = self._heap
        while heap and self._live.get(heap[0][2]) is not heap[0]:
            heapq.heappop(heap)
        return heap[0] if heap else None
