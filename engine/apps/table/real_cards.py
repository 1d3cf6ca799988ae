"""What the rooms for a table playing with real cards share (UNO's companion,
engine.apps.table.companion; Pitch's scorekeeper, engine.apps.table.companion_pitch):
nobody holds a hand, the page from the host URL is the host, any other a
spectator; no timers of their own; the host's key, replaceable.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from engine.apps.table import access
from engine.apps.table.access import HostGate
from engine.apps.table.durable import durable
from engine.apps.table.hub import Connection, Hub

__all__ = ["RealCardsHub"]


class RealCardsHub(Hub):
    """A Hub whose pages are the host's display and the spectators'. A room
    sets ``base_url``, ``host_gate`` and ``_log`` (its lines, newest first, each
    with the entry it belongs to) and says what a change is (``_changed``)."""

    base_url: str
    host_gate: HostGate
    _log: list[tuple[str, int | None]]

    @abstractmethod
    def _changed(self, save: bool = False) -> None:
        """The room changed: new views for every page (and a save with ``save``)."""

    @property
    def log(self) -> list[str]:
        return [line for line, _ in self._log]

    # -- connections ------------------------------------------------------------------

    def _link_message(self, conn: Connection, message: dict) -> bool:
        """A page link's own messages, as the game rooms take them: a ping is
        answered with its pong (every page measures its lag, the phone's too,
        which must then hear why it has no hand), a lag report is taken and
        shown nowhere. True if ``message`` was one of them."""
        kind = message.get("type")
        if kind == "ping":
            ping_id = message.get("id")
            if isinstance(ping_id, (int, str)) and not isinstance(ping_id, bool):
                conn.outbox.append({"type": "pong", "id": ping_id})
                self._notify()
            return True
        return kind == "lag"

    def disconnect(self, conn: Connection) -> None:
        if conn in self.connections:
            self.connections.remove(conn)

    def next_deadline(self) -> float | None:
        """None: a table of real cards has no timers of its own (no seats to free)."""
        return None

    def run_due(self) -> None:
        """Nothing is ever due (see :meth:`next_deadline`)."""

    @property
    def host_key(self) -> str:
        """The host's key (saved with the match; ``new_host_key`` replaces it)."""
        return self.host_gate.key

    @durable
    def new_host_key(self) -> str:
        """A new host key; the old one stops working at once: each page that held
        it becomes a spectator and is told so. Saved. Returns the new key."""
        key = self.host_gate.replace()
        for conn in self.connections:
            if conn.host:
                conn.host = False
                conn.outbox.append(self._welcome(conn, access.HOST_KEY_REPLACED))
        self._changed(save=True)
        return key

    def _welcome(self, conn: Connection, message: str | None = None) -> dict[str, Any]:
        """The welcome: ``host`` says whether ``conn`` is the host; the host gets
        the host URL and its QR code (to it alone); ``message`` a line for the page."""
        welcome: dict[str, Any] = {
            "type": "welcome",
            "role": conn.role,
            "seat": None,
            "secret": None,
            "host": conn.host,
        }
        if conn.host:
            welcome.update(access.host_fields(self.base_url, self.host_key))
        if message:
            welcome["message"] = message
        return welcome

    def _may_save(self, message: dict[str, Any]) -> bool:
        return message.get("type") == "host"
