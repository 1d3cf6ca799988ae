"""One thread that runs jobs in the order they were given: the server's command worker
and its history reader."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

__all__ = ["CommandWorker"]

log = logging.getLogger("firmware_host.service.server")  # its jobs' failures are the server's


class CommandWorker:
    """One thread that runs submitted jobs in order (the command worker)."""

    def __init__(self, name: str = "server-commands"):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)

    def close(self, timeout: float = 10.0) -> None:
        """Finish the jobs already submitted, then stop; safe to call twice."""
        if self._thread.is_alive():
            self._jobs.put(None)
            self._thread.join(timeout)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job()
            except Exception:  # a job answers its own errors; this is a bug
                log.exception("command worker job failed")
