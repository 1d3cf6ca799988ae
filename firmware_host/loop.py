"""The one thread that runs the showdown core.

Pin callbacks, the timer button, commands and the stop request all arrive as
events on the core's inbox; timers are the core's deadlines. The loop blocks on
the inbox until the earliest deadline (``queue.get(timeout=deadline - now)``),
or with no timeout at all when nothing is due: an idle unit uses no CPU.
Anything that must be paced by the loop (the systemd watchdog) joins in as a
*pacer*: an object with ``next_deadline()`` and ``poll()``.
"""

from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from firmware_host.errors import UnitClosedError, UnitError
from firmware_host.machine import InputEvent

__all__ = ["EventLoop", "COMMAND_TIMEOUT_S"]

log = logging.getLogger(__name__)

#: How long a command waits for the loop to answer before giving up.
COMMAND_TIMEOUT_S = 10.0


class EventLoop:
    """Runs ``core`` (a :class:`~firmware_host.machine.ShowdownCore` on a real
    clock) on its own thread; :meth:`call` runs a command there."""

    def __init__(self, core, *, pacers=(), name: str = "showdown-loop"):
        self.core = core
        self.pacers = list(pacers)
        self.name = name
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._finished = False          # the thread is past its last inbox read

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
        try:
            while not self._stopping:
                try:
                    event = self._wait()
                    if event is not None:
                        core.handle(event)
                    core.pump()
                    for pacer in self.pacers:
                        pacer.poll()
                except Exception as exc:        # a bug outside the core's own guard
                    log.exception("event loop error")
                    core.enter_fault(f"event loop: {type(exc).__name__}: {exc}")
        finally:
            try:
                core.shutdown()
            except Exception:
                log.exception("making the outputs safe on stop failed")
            self._finished = True       # before the refusal: see call()
            self._refuse_waiting_commands()

    def _wait(self) -> InputEvent | None:
        deadlines = [when for when in (self.core.next_deadline(),
                                       *(pacer.next_deadline() for pacer in self.pacers))
                     if when is not None]
        if not deadlines:
            return self.core.inbox.get()
        timeout = min(deadlines) - self.core.clock()
        if timeout <= 0:
            return None
        try:
            return self.core.inbox.get(timeout=timeout)
        except queue.Empty:
            return None

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
