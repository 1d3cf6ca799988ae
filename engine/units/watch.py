"""Watching a unit's outputs over a second link, for the unit panel.

:class:`UnitWatcher` keeps its own connection to the unit at ``url`` (with its
token), beside the game's :class:`~engine.units.remote.RemoteUnit`: it reads
``status`` (the unit's state and its first outputs), sends ``watch`` and then
hands its listener every ``outputs`` event (docs/protocol.md, "Watching the
outputs") and every other event the unit sends. It needs the unit's
"outputs" capability.

- :meth:`run` blocks (run it in a thread) until :meth:`close`, which any
  thread may call, twice included. A lost link is reconnected with backoff
  (``backoff_s`` doubling up to ``max_backoff_s``), for as long as it runs;
  the listener hears what went wrong and what to do, in the RemoteUnit's
  words (it connects through one). A bad URL, a token refused and a version
  mismatch are not retried: nothing a retry does mends them.
- A quiet link is checked with ``ping`` every ``heartbeat_s``.
- :meth:`press`, :meth:`release` and :meth:`timer` press a paddle or the
  timer button through ``bench_press`` (held down until released),
  ``bench_release`` and ``bench_timer``: only on a unit that lists the
  "bench" capability (mock pins). Each returns a
  :class:`concurrent.futures.Future`, done when the unit answered:
  ``CommandRefused`` (code ``not_mock`` from a unit with real pins, said
  here without asking it) or ``LinkLost`` (not connected) if not. The
  commands go out on the watcher's own thread, between reads.

A serial line has one end, which the game's link holds: the watcher takes only
a unit on the network (``socket://HOST:PORT``).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol

from engine.game.errors import CommandRefused, LinkLost, UnitProblem
from engine.units.remote import RemoteUnit
from engine.units.unit_link import Port, UnitLink
from engine.units.unit_replies import WireData
from firmware_host.protocol import SIDES, Event, EventGap, EventName

__all__ = ["UnitWatcher", "Watching", "REAL_PINS_TEXT"]

log = logging.getLogger(__name__)

#: Why a paddle cannot be pressed from the panel on a unit with real pins.
REAL_PINS_TEXT = (
    "has real pins: its paddles and timer button are pressed by hand (the panel "
    "presses them only on a unit on mock pins, showdown-unit run --mock)"
)


class Watching(Protocol):
    """What a watcher tells (from its own thread)."""

    def connected(self, hello: WireData, status: WireData) -> None:
        """Linked and watching: the unit's ``hello`` and ``status`` replies."""

    def outputs(self, outputs: WireData | None) -> None:
        """The outputs now (None: the unit cannot read its board)."""

    def event(self, event: Event) -> None:
        """Any other event of the unit (``state``, ``armed``, ``go``, ``result``...)."""

    def lost(self, problem: str, retrying: bool) -> None:
        """No link: what happened and what to do; ``retrying`` False: given up."""


class UnitWatcher:
    """A second link to the unit at ``url`` that watches its outputs; see the
    module docstring. ``listener`` may be set after construction."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        listener: Watching | None = None,
        reply_timeout_s: float = 5.0,
        heartbeat_s: float = 2.0,
        poll_s: float = 0.05,
        backoff_s: float = 0.05,
        max_backoff_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        open_port: Callable[..., Port] | None = None,
    ):
        if "://" not in url:  # a serial device path
            raise ValueError(
                f"the unit panel watches a unit on the network (socket://HOST:PORT), not "
                f"{url!r}: a serial line has one end, and the game's link holds it"
            )
        self.url = url
        self.listener = listener
        self.heartbeat_s = heartbeat_s
        self.poll_s = poll_s
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.clock = clock
        # The game's port connects, and names what went wrong, the same way.
        self._port = RemoteUnit(
            url, token=token, reply_timeout_s=reply_timeout_s, clock=clock, open_port=open_port
        )
        self._stop = threading.Event()
        self._commands: queue.SimpleQueue[tuple[str, WireData, Future[WireData]]] = (
            queue.SimpleQueue()
        )
        self._link: UnitLink | None = None
        self._told: tuple[str, bool] | None = None  # the last problem told
        #: The unit's hello reply on the current (or last) link; None before one.
        self.hello: WireData | None = None

    def __repr__(self) -> str:
        return f"UnitWatcher({self.url!r})"

    @property
    def bench(self) -> bool:
        """Whether the unit takes the bench commands (it lists "bench": mock pins)."""
        return self.hello is not None and "bench" in self.hello.get("capabilities", ())

    @property
    def watching(self) -> bool:
        return self._link is not None

    # -- the paddles and the timer button of a unit on mock pins ---------------------------

    def press(self, side: str) -> Future[WireData]:
        """Press ``side``'s paddle and hold it down (until :meth:`release`)."""
        return self._submit("bench_press", side=_side(side), hold=True)

    def release(self, side: str) -> Future[WireData]:
        return self._submit("bench_release", side=_side(side))

    def timer(self) -> Future[WireData]:
        """Press the timer button."""
        return self._submit("bench_timer")

    def _submit(self, cmd: str, **args: Any) -> Future[WireData]:
        future: Future[WireData] = Future()
        if self._link is None or self._stop.is_set():
            future.set_exception(LinkLost(f"not connected to the unit at {self.url}"))
        elif not self.bench:
            future.set_exception(
                CommandRefused(cmd, "not_mock", f"the unit at {self.url} {REAL_PINS_TEXT}")
            )
        else:
            self._commands.put((cmd, args, future))
        return future

    def _serve_commands(self, link: UnitLink) -> None:
        while True:
            try:
                cmd, args, future = self._commands.get_nowait()
            except queue.Empty:
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(link.call(cmd, **args))
            except CommandRefused as exc:
                future.set_exception(exc)
            except LinkLost as exc:
                future.set_exception(exc)
                raise

    def _fail_commands(self, why: str) -> None:
        while True:
            try:
                _, _, future = self._commands.get_nowait()
            except queue.Empty:
                return
            if future.set_running_or_notify_cancel():
                future.set_exception(LinkLost(why))

    # -- the loop -----------------------------------------------------------------------

    def run(self) -> None:
        """Watch until :meth:`close`, reconnecting after a lost link."""
        backoff = self.backoff_s
        try:
            while not self._stop.is_set():
                try:
                    link = self._port.link()
                except LinkLost as exc:
                    problem = self._port.unreachable(exc)
                    permanent = self._port.cannot_connect
                    self._lost(f"{problem}. What to do: {problem.what_to_do}", not permanent)
                    if permanent:
                        return
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self.max_backoff_s)
                    continue
                except UnitProblem as problem:  # a token refused, no common version
                    self._lost(f"{problem}. What to do: {problem.what_to_do}", False)
                    return
                backoff = self.backoff_s
                try:
                    if not self._watch(link):
                        return
                except LinkLost as exc:
                    log.warning("watching %s: lost the link (%s); reconnecting", self.url, exc)
                    self._lost(f"Lost the link to the unit ({exc}): reconnecting...", True)
                finally:
                    self._link = None
                    self._port.close()
                    self._fail_commands(f"the link to the unit at {self.url} was lost")
        finally:
            self._link = None
            self._port.close()
            self._fail_commands(f"the watcher of the unit at {self.url} is closed")

    def close(self) -> None:
        """Stop watching: :meth:`run` returns within ``poll_s``. Safe to call twice."""
        self._stop.set()

    def _watch(self, link: UnitLink) -> bool:
        """Watch on ``link`` until closed (True) or the unit cannot (False);
        LinkLost when the link breaks."""
        self.hello = hello = link.hello or {}
        if "outputs" not in hello.get("capabilities", ()):
            self._lost(
                f"the unit at {self.url} cannot report its outputs (its software lacks "
                'the "outputs" capability). What to do: update the unit\'s software.',
                False,
            )
            return False
        status = link.call("status")
        watched = link.call("watch", outputs=True)
        self._link, self._told = link, None
        log.info("watching the outputs of %s", self.url)
        self._tell("connected", hello, status)
        self._tell("outputs", watched["outputs"])
        heard = self.clock()
        while not self._stop.is_set():
            self._serve_commands(link)
            item = link.next_event(self.poll_s)
            now = self.clock()
            if item is None:
                if now - heard >= self.heartbeat_s:
                    link.call("ping")
                    heard = now
                continue
            heard = now
            if isinstance(item, EventGap):
                continue  # nothing to fetch: each outputs event carries the whole state
            if item.name == EventName.OUTPUTS:
                self._tell("outputs", dict(item.data))
            else:
                self._tell("event", item)
        return True

    def _lost(self, problem: str, retrying: bool) -> None:
        if (problem, retrying) != self._told:  # once, not at every retry
            self._told = (problem, retrying)
            self._tell("lost", problem, retrying)

    def _tell(self, what: str, *args: Any) -> None:
        if self.listener is None:
            return
        try:
            getattr(self.listener, what)(*args)
        except Exception:  # a listener's bug must not stop the watching
            log.exception("the listener of %s failed on %s", self.url, what)


def _side(side: str) -> str:
    if side not in SIDES:
        raise ValueError(f'a side is "a" or "b", not {side!r}')
    return side
