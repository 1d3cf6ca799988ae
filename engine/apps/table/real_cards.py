"""What the rooms for a table playing with real cards share (UNO's companion,
engine.apps.table.companion; Pitch's scorekeeper, engine.apps.table.companion_pitch):
nobody holds a hand, the page from the host URL is the host, any other a
spectator; no timers of their own; the host's key, replaceable.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

from engine.apps.table import access
from engine.apps.table.access import HOST_ONLY, HostGate
from engine.apps.table.durable import durable
from engine.apps.table.hub import Connection, Hub, ViewTexts

__all__ = ["RealCardsHub", "show_value", "MAX_LOG"]

#: Log lines kept (and saved), newest first.
MAX_LOG = 300


class RealCardsHub(Hub):
    """A Hub whose pages are the host's display and the spectators'. A room
    sets ``base_url``, ``host_gate``, ``_log`` (its lines, newest first, each
    with the entry it belongs to) and ``_views``, has a ``public`` view, and
    names its host commands in ``_COMMANDS`` (each returns why it refuses, or
    None)."""

    base_url: str
    host_gate: HostGate
    _log: list[tuple[str, int | None]]
    _views: ViewTexts
    _COMMANDS: ClassVar[dict[str, Callable[[Any, dict], str | None]]]

    @abstractmethod
    def public(self) -> dict[str, Any]:
        """The one view every page is shown."""

    def _save_ahead(self) -> None:
        """What must be decided before a save writes it (nothing, unless a room says)."""

    def _changed(self, save: bool = False) -> None:
        """Saved first, with ``save`` (write ahead, as ``Room._changed``); then
        the one view, encoded once, queued for every connection that does not
        hold it already."""
        if save:
            self._save_ahead()
            self.save()
        text = self._views.text("display", None, self.public)
        for conn in self.connections:
            if conn.role is not None and text is not conn.last_view:
                conn.last_view = text
                conn.outbox.append(text)
        self._notify()

    def _add_log(self, line: str, tag: int | None = None) -> None:
        self._log.insert(0, (line, tag))
        del self._log[MAX_LOG:]

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

    def _handle(self, conn: Connection, message: dict) -> str | None:
        kind = message.get("type")
        if self._link_message(conn, message):
            return None
        if kind == "hello":
            role = message.get("role")
            if role == "phone":
                return "this table plays with real cards: there is no hand to hold on a phone"
            if role != "display":
                return f"role must be display, not {show_value(role)}"
            conn.role = role
            conn.host, note = self.host_gate.check(message.get("host_key"), conn.peer)
            conn.outbox.append(self._welcome(conn, note))
            conn.last_view = None
            self._changed()
            return None
        if kind != "host":
            return f"unknown message type {show_value(kind)} (known: hello, host, ping, lag)"
        if conn.role is None:
            return "say hello first"
        if not conn.host:
            return HOST_ONLY
        cmd = message.get("cmd")
        handler = self._COMMANDS.get(cmd) if isinstance(cmd, str) else None
        if handler is None:
            return f"unknown host command {show_value(cmd)} ({', '.join(self._COMMANDS)})"
        return handler(self, message)

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


def show_value(value: Any) -> str:
    """A value as a refusal quotes it (JSON, so the sender recognises it)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
