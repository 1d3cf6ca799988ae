"""The one thread that runs the showdown core.

Pin callbacks, the timer button, commands and the stop request all arrive as
events on the core's inbox; timers are the core's deadlines. The loop blocks on
the inbox until the earliest deadline (``queue.get(timeout=deadline - now)``,
at most :data:`MAX_WAIT_S`), or with no timeout at all when nothing is due: an
idle unit uses no CPU. Anything that must be paced by the loop (the systemd
watchdog) joins in as a *pacer*: an object with ``next_deadline()`` and
``poll()``.

The core guards its own work (a failing deadline or input faults the unit).
A failure outside that guard (in the wait, a pacer, or ``core.pump``) is
logged with its traceback and faults the unit; while the same failure repeats,
the loop waits up to ``retry_s`` on the inbox between tries (a command still
gets its answer at once), counts the repeats instead of logging each, and
faults the unit again only if someone cleared the fault meanwhile.
"""

from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from firmware_host.core.errors import UnitClosedError, UnitError
from firmware_host.core.machine import InputEvent

__all__ = ["EventLoop", "COMMAND_TIMEOUT_S", "MAX_WAIT_S", "RETRY_S"]

log = logging.getLogger(__name__)

#: How long a command waits for the loop to answer before giving up.
COMMAND_TIMEOUT_S = 10.0
#: The longest single wait for a deadline: one far away (or at infinity) is
#: waited for in steps, as a queue's timeout must stay below
#: ``threading.TIMEOUT_MAX``.
MAX_WAIT_S = 60.0
#: How long the loop waits on its inbox before trying again after a failure.
RETRY_S = 1.0


class EventLoop:
    """Runs ``core`` (a :class:`~firmware_host.core.machine.ShowdownCore` on a real
    clock) on its own thread; :meth:`call` runs a command there."""

    def __init__(self, core, *, pacers=(), name: str = "showdown-loop", retry_s: float = RETRY_S):
        self.core = core
        self.pacers = list(pacers)
        self.name = name
        self.retry_s = retry_s
        self._failure: str | None = None  # the failure that is repeating
        self._repeats = 0  # how often it came again
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._finished = False  # the thread is past its last inbox read

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._stopping

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("the event loop was already started")
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def call(self, fn, *args, timeout: float = COMMAND_TIMEOUT_S, **kwargs):
        """Run ``fn(*args, **kwargs)`` on the loop thread and return its value
        (or raise its error). From the loop thread itself (a subscriber) it
        runs at once."""
        if threading.current_thread() is self._thread:
            return fn(*args, **kwargs)
        if not self.running:
            raise UnitClosedError("the unit is not open")
        future: Future = Future()
        self.core.inbox.put(InputEvent("call", (fn, args, kwargs, future)))
        if self._finished:
            # The loop ended between the check above and the put, after it
            # refused what was waiting: refuse this one now, not after timeout.
            self._refuse_waiting_commands()
        try:
            return future.result(timeout)
        except FutureTimeout:
            future.cancel()
            raise UnitError(f"the unit's event loop did not answer within {timeout} s") from None

    def stop(self, timeout: float = 5.0) -> None:
        """Make the outputs safe and end the thread; safe to call twice."""
        if self._thread is None or self._stopping:
            return
        self._stopping = True
        self.core.inbox.put(InputEvent("wake"))
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.error("the event loop did not stop within %s s", timeout)

    def _run(self) -> None:
        core = self.core
        retrying = False
        try:
            while not self._stopping:
                try:
                    event = self._pause() if retrying else self._wait()
                    if event is not None:
                        core.handle(event)
                    core.pump()
                    for pacer in self.pacers:
                        pacer.poll()
                except Exception as exc:  # a bug outside the core's own guard
                    self._failed(exc)
                    retrying = True
                else:
                    if not retrying:
                        self._recovered()  # a whole turn went well
                    retrying = False
        finally:
            self._recovered()
            try:
                core.shutdown()
            except Exception:
                log.exception("making the outputs safe on stop failed")
            self._finished = True  # before the refusal: see call()
            self._refuse_waiting_commands()

    def _wait(self) -> InputEvent | None:
        deadlines = [
            when
            for when in (
                self.core.next_deadline(),
                *(pacer.next_deadline() for pacer in self.pacers),
            )
            if when is not None
        ]
        if not deadlines:
            return self.core.inbox.get()
        timeout = min(deadlines) - self.core.clock()
        if timeout <= 0:
            return None
        if not timeout < MAX_WAIT_S:  # far away, infinite or not a number
            timeout = MAX_WAIT_S
        try:
            return self.core.inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def _pause(self) -> InputEvent | None:
        """After a failure: the next event, or None after ``retry_s``."""
        try:
            return self.core.inbox.get(timeout=self.retry_s)
        except queue.Empty:
            return None

    def _failed(self, exc: Exception) -> None:
        """Log and fault for a new failure; count a repeated one (faulting
        again only if the fault was cleared meanwhile)."""
        reason = f"event loop: {type(exc).__name__}: {exc}"
        if reason != self._failure:
            self._recovered()
            self._failure = reason
            log.exception("event loop error")
        else:
            self._repeats += 1
            if _logged_count(self._repeats):
                log.error("event loop error repeated %d times: %s", self._repeats, reason)
            if self.core.state == "fault":
                return
        try:
            self.core.enter_fault(reason)
        except Exception:
            log.exception("faulting the unit failed")

    def _recovered(self) -> None:
        """The repeating failure is over: say how often it came in all."""
        if self._failure is not None and self._repeats and not _logged_count(self._repeats):
            log.warning(
                "event loop error repeated %d times in all: %s", self._repeats, self._failure
            )
        self._failure, self._repeats = None, 0

    def _refuse_waiting_commands(self) -> None:
        while True:
            try:
                event = self.core.inbox.get_nowait()
            except queue.Empty:
                return
            if event.kind == "call":
                future = event.data[3]
                if future.set_running_or_notify_cancel():
                    future.set_exception(UnitClosedError("the unit closed before answering"))


def _logged_count(repeats: int) -> bool:
    """Whether a repeat count is logged as it is reached: 10, 100, 1000, ..."""
    return repeats >= 10 and str(repeats).rstrip("0") == "1"
