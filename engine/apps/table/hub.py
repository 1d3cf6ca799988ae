"""What both rooms of the browser table share (the game's ``Room`` and the
companion's ``CompanionRoom``): the connections, each message parsed and
handed to the room's ``_handle``, a refusal sent to its sender alone, what
waits to be sent, and the server told when something does. Sans-IO."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["Hub", "Connection"]


class Connection:
    """One WebSocket: its role (None until hello), its seat, what waits to be
    sent, and the round trip its page last reported (shown, never trusted)."""

    def __init__(self, number: int):
        self.number = number
        self.role: str | None = None
        self.seat: int | None = None
        self.outbox: list[dict[str, Any]] = []
        self.last_view: str | None = None
        self.lag_ms: int | None = None

    def __repr__(self) -> str:
        return f"Connection({self.number}, role={self.role!r}, seat={self.seat!r})"


class Hub:
    """The connections of one table; a room says what each message does
    (``_handle`` returns why it refuses one, or None)."""

    def __init__(self) -> None:
        self.connections: list[Connection] = []
        #: Called whenever something waits to be sent (the server wakes its senders).
        self.on_change: Callable[[], None] | None = None
        self._connections = 0

    def connect(self) -> Connection:
        self._connections += 1
        conn = Connection(self._connections)
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

    def _handle(self, conn: Connection, message: dict) -> str | None:
        raise NotImplementedError

    def _send_event(self, name: str, data: dict[str, Any]) -> None:
        """A live unit event to every connection that said hello (it holds no card)."""
        for conn in self.connections:
            if conn.role is not None:
                conn.outbox.append({"type": "event", "name": name, "data": data})

    def _notify(self) -> None:
        if self.on_change is not None:
            self.on_change()
