"""What both rooms of the browser table share (the game's ``Room`` and the
companion's ``CompanionRoom``): the connections, each message parsed and
handed to the room's ``_handle``, a refusal sent to its sender alone, what
waits to be sent, and the server told when something does; the unit's hooks
(its live events and the lines it says) moving the showdown panel. Sans-IO."""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from engine.apps.table import showdown_view

__all__ = ["Hub", "Connection"]


class Connection:
    """One WebSocket: its peer (the address it came from, as text, no port), its
    role (None until hello), whether it is the host (its hello gave the host's
    key), its seat, what waits to be sent, and the round trip its page last
    reported (shown, never trusted)."""

    def __init__(self, number: int, peer: str = ""):
        self.number = number
        self.peer = peer  # the address it came from (the IP, no port)
        self.role: str | None = None
        self.host = False
        self.seat: int | None = None
        self.outbox: list[dict[str, Any]] = []
        self.last_view: str | None = None
        self.lag_ms: int | None = None

    def __repr__(self) -> str:
        return f"Connection({self.number}, role={self.role!r}, seat={self.seat!r})"


class Hub(ABC):
    """The connections of one table; a room says what each message does
    (``_handle`` returns why it refuses one, or None). ``clock`` is the room's
    time (``time.monotonic`` unless a test gives its own)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        #: The showdown panel (``showdown_view``), None when no showdown is up.
        self.showdown: dict[str, Any] | None = None
        self._fighting = False  # a showdown is out at the unit
        self.connections: list[Connection] = []
        #: Called whenever something waits to be sent (the server wakes its senders).
        self.on_change: Callable[[], None] | None = None
        self._connections = 0

    def connect(self, peer: str = "") -> Connection:
        """A new connection from ``peer`` (its address, for the rate limits and the log)."""
        self._connections += 1
        conn = Connection(self._connections, peer)
        self.connections.append(conn)
        return conn

    def take(self, conn: Connection) -> list[dict[str, Any]]:
        """The messages waiting for ``conn``, oldest first."""
        out, conn.outbox = conn.outbox, []
        return out

    def receive(self, conn: Connection, text: str | bytes) -> None:
        """One message from ``conn``; anything wrong is refused to it alone."""
        msg_id = None
        try:
            message = json.loads(text)
        except (ValueError, TypeError) as exc:
            refused: str | None = f"malformed JSON: {exc}"
        except RecursionError:
            refused = "malformed JSON: nested too deeply"
        else:
            if isinstance(message, dict):
                msg_id = message.get("id")
                refused = self._handle(conn, message)
            else:
                refused = f"a message is a JSON object, not {type(message).__name__}"
        if refused is not None:
            if not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
                msg_id = None
            conn.outbox.append({"type": "refused", "id": msg_id, "message": refused})
            self._notify()

    # -- the unit's hooks (a RemoteUnit's table and say; the server marshals them here) --

    def unit_event(self, name: str, data: dict[str, Any]) -> None:
        """An event of the showdown being fought: the panel follows it, and
        every connection gets it as ``{"type": "event"}`` (for the sounds)."""
        if self.showdown is not None:
            showdown_view.follow(self.showdown, name, data)
        self._send_event(name, data)
        self._changed()

    def unit_said(self, text: str) -> None:
        """A line the unit port tells the table (load the cards, press the timer
        button, each countdown step): during a showdown it is the panel's line
        (the panel draws the steps, and the verdict is logged once, as the
        match's); otherwise (a lost link, ...) it goes to the log."""
        if self.showdown is not None and self._fighting:
            self.showdown["message"] = text
        else:
            self._add_log(text)
        self._changed()

    # -- what each room says ----------------------------------------------------------

    @abstractmethod
    def _handle(self, conn: Connection, message: dict) -> str | None:
        """Why the room refuses ``message`` from ``conn``, or None."""

    @abstractmethod
    def _add_log(self, line: str) -> None:
        """Put ``line`` at the top of the room's log."""

    @abstractmethod
    def _changed(self, save: bool = False) -> None:
        """Queue each connection's view if it changed (and save); then notify."""

    def _send_event(self, name: str, data: dict[str, Any]) -> None:
        """A live unit event to every connection that said hello (it holds no card)."""
        for conn in self.connections:
            if conn.role is not None:
                conn.outbox.append({"type": "event", "name": name, "data": data})

    def _notify(self) -> None:
        if self.on_change is not None:
            self.on_change()
