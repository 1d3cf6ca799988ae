"""What both rooms of the browser table share (the game's ``Room`` and the
companion's ``CompanionRoom``): the connections, each message parsed and
handed to the room's ``_handle``, a refusal sent to its sender alone, what
waits to be sent, and the server told when something does; the unit's hooks
(its live events and the lines it says) moving the showdown panel. Sans-IO.

What waits to be sent is JSON text, encoded once: :meth:`Hub.take` returns
strings, and a message many connections get (a view every display shares, a
unit event) is one string object in each of their outboxes
(:class:`ViewTexts` keeps each kind of view's text of the latest change).

>>> texts = ViewTexts()
>>> first = texts.text("display", None, lambda: {"phase": "lobby"})
>>> first
'{"type":"view","view":{"phase":"lobby"}}'
>>> texts.text("display", None, lambda: {"phase": "lobby"}) is first  # the same text: kept
True
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, ClassVar

from engine.apps.table import card_marks, durable, showdown_view
from engine.apps.table.durable import Checkpoint, SaveFailed, save_failed

__all__ = ["Hub", "Connection", "ViewTexts", "encode"]

#: A message as it is sent: compact JSON (ASCII: any name is escaped).
encode = json.JSONEncoder(separators=(",", ":")).encode


class ViewTexts:
    """The ``{"type": "view"}`` message of each kind of connection (a key: a
    display, a phone without a seat, seat 3's phone) at the latest change,
    encoded once and shared by every connection of that kind.

    :meth:`text` is given what the view is made of (``basis``, compared with
    ``==``; None: unknown, build it) and how to build it: the same basis as
    last time returns the same string without building anything; otherwise the
    view is built and encoded, and a text equal to the last one is still the
    last one's object. A connection whose ``last_view`` *is* that object has
    it already: an identity check, not a comparison of texts. One entry per
    key, never per connection: nothing is kept for a connection that left."""

    def __init__(self) -> None:
        self._made: dict[Hashable, tuple[Any, str]] = {}

    def text(self, key: Hashable, basis: Any, build: Callable[[], dict[str, Any]]) -> str:
        made = self._made.get(key)
        if made is not None and basis is not None and made[0] == basis:
            return made[1]
        text = encode({"type": "view", "view": build()})
        if made is not None and made[1] == text:
            text = made[1]
        self._made[key] = (basis, text)
        return text

    def __len__(self) -> int:
        return len(self._made)


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
        #: What waits to be sent: JSON texts (a dict is encoded when taken).
        self.outbox: list[str | dict[str, Any]] = []
        #: The view message this connection was sent last (a shared string).
        self.last_view: str | None = None
        self.lag_ms: int | None = None
        #: Called when something waits in the outbox (the server wakes this
        #: connection's sender alone: a change costs only whom it reaches).
        self.on_ready: Callable[[], None] | None = None

    def __repr__(self) -> str:
        return f"Connection({self.number}, role={self.role!r}, seat={self.seat!r})"


class Hub(ABC):
    """The connections of one table; a room says what each message does
    (``_handle`` returns why it refuses one, or None). ``clock`` is the room's
    time (``time.monotonic`` unless a test gives its own).

    Every change that saves is all or nothing (``engine.apps.table.durable``):
    a message that may save (:meth:`_may_save`) is handled under a
    checkpoint, and when its save fails the room is put back as it was, the
    sender is told why and the game pauses (:attr:`save_problem`) until the
    host's ``retry`` saves (:meth:`_retry_save`)."""

    #: The attributes that are not the room's state: a failed change's undo
    #: leaves them alone (the connections are put back one by one).
    _NOT_STATE: ClassVar[frozenset[str]] = frozenset(
        [
            "connections",
            "on_change",
            "unit",
            "paddles",
            "unit_words",
            "save_path",
            "new_secret",
            "clock",
            "_in_change",
            "_views",
            "_yous",
            # the league's book of finished matches: written once, never undone
            "match_book",
            "_booked_match",
        ]
    )

    save_path: Path | None
    paused: str | None
    unit: Any
    #: The phones' unit port (``engine.apps.table.phone_port``) with ``--unit phones``.
    paddles: Any = None
    #: Which unit fights the showdowns, in words for the display (``table_cmd``).
    unit_words: str | None = None

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        #: The showdown panel (``showdown_view``), None when no showdown is up.
        self.showdown: dict[str, Any] | None = None
        self._fighting = False  # a showdown is out at the unit
        self.connections: list[Connection] = []
        #: Called whenever something waits to be sent (the server wakes its senders).
        self.on_change: Callable[[], None] | None = None
        self._connections = 0
        #: Why the last save failed (the game is paused until the host's retry saves).
        self.save_problem: SaveFailed | None = None
        self._paused_before: str | None = None  # a unit problem's pause under it
        #: A showdown's outcome the table could not save: applied on the retry.
        self._held_outcome: Any = None
        self._in_change = False  # a durable change runs (see durable.durable)

    def connect(self, peer: str = "") -> Connection:
        """A new connection from ``peer`` (its address, for the rate limits and the log)."""
        self._connections += 1
        conn = Connection(self._connections, peer)
        self.connections.append(conn)
        return conn

    def take(self, conn: Connection) -> list[str]:
        """The messages waiting for ``conn``, oldest first, as JSON texts (a
        view or an event many connections get is one shared string)."""
        out, conn.outbox = conn.outbox, []
        return [m if isinstance(m, str) else encode(m) for m in out]

    def receive(self, conn: Connection, text: str | bytes) -> None:
        """One message from ``conn``; anything wrong is refused to it alone."""
        msg_id = None
        message: Any = None
        try:
            message = json.loads(text)
        except (ValueError, TypeError) as exc:
            refused: str | None = f"malformed JSON: {exc}"
        except RecursionError:
            refused = "malformed JSON: nested too deeply"
        else:
            if isinstance(message, dict):
                msg_id = message.get("id")
                refused = self._handle_durably(conn, message)
            else:
                refused = f"a message is a JSON object, not {type(message).__name__}"
        if refused is not None:
            if not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
                msg_id = None
            refusal: dict[str, Any] = {"type": "refused", "id": msg_id, "message": refused}
            if isinstance(message, dict) and (cards := card_marks.action_cards(message, refused)):
                refusal["cards"] = cards  # the refused action's card, drawn as a chip
            conn.outbox.append(refusal)
            self._notify()

    # -- saving: write ahead, all or nothing ------------------------------------------

    def save(self) -> None:
        """Write the room's ``snapshot()`` to ``save_path`` (``durable.write_save``;
        None: not saved). :class:`SaveFailed`, in words, when it cannot."""
        if self.save_path is None:
            return
        try:
            durable.write_save(self.save_path, self.snapshot())
        except OSError as exc:
            raise save_failed(exc, self.save_path) from exc

    def _may_save(self, message: dict[str, Any]) -> bool:
        """Whether handling ``message`` may change the room and save it."""
        return message.get("type") not in ("hello", "ping", "lag")

    def _handle_durably(self, conn: Connection, message: dict[str, Any]) -> str | None:
        """``_handle``; a message that may save is all or nothing: refused (in
        words) and undone when its save fails, and refused while the table
        cannot save, but for the host's ``retry``."""
        if not self._may_save(message):
            return self._handle(conn, message)
        if self.save_problem is not None and message.get("cmd") != "retry":
            return f"{self.save_problem}: the game is paused until the host retries"
        checkpoint = self._checkpoint(conn)
        self._in_change = True
        try:
            return self._handle(conn, message)
        except SaveFailed as failure:
            checkpoint.restore(self)
            self._in_change = False
            self._cannot_save(failure)
            return str(failure)
        finally:
            self._in_change = False

    def _checkpoint(self, sender: Connection | None = None) -> Checkpoint:
        return Checkpoint(self, self._NOT_STATE, shared=(self.unit,), sender=sender)

    def _cannot_save(self, failure: SaveFailed) -> None:
        """A change was undone because its save failed: every screen shows
        why and what to do (``paused``) until the host's ``retry``."""
        if self.save_problem is None:
            self._paused_before = self.paused
        self.save_problem = SaveFailed(failure.why, failure.what_to_do)  # no traceback kept
        self.paused = failure.pause
        self._changed()

    def _retry_save(self) -> str | None:
        """The host's ``retry`` while the table cannot save: save now (a failure
        raises :class:`SaveFailed`, refused in words, and the pause stays),
        then go on: a showdown's outcome held back is applied, the game goes on
        (a bot's move is made again by the Runner)."""
        self.save()
        self.save_problem = None
        self.paused, self._paused_before = self._paused_before, None
        held, self._held_outcome = self._held_outcome, None
        if held is not None:
            self.finish_showdown(held)
        else:
            self._changed()
        return None

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """The room as plain values, as its save file holds it."""

    @abstractmethod
    def finish_showdown(self, outcome: Any) -> None:
        """The unit's outcome of the showdown under way."""

    # -- the unit's hooks (a RemoteUnit's table and say; the server marshals them here) --

    def unit_event(self, name: str, data: dict[str, Any]) -> None:
        """An event of the showdown being fought: the panel follows it, and
        every connection gets it as ``{"type": "event"}`` (for the sounds)."""
        if self.showdown is not None:
            showdown_view.follow(self.showdown, name, data)
        self._send_event(name, data)
        self._changed()

    def paddle_message(self, message: dict[str, Any]) -> None:
        """A round or a round's end of a showdown fought on the phones
        (``phone_port``): to every connection that said hello."""
        text = encode(message)
        for conn in self.connections:
            if conn.role is not None:
                conn.outbox.append(text)
        if self.showdown is not None:  # the panel follows the rounds too
            showdown_view.follow_paddles(self.showdown, message)
            self._changed()
        self._notify()

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
        """A live unit event to every connection that said hello (it holds no
        card), encoded once for all."""
        text = encode({"type": "event", "name": name, "data": data})
        for conn in self.connections:
            if conn.role is not None:
                conn.outbox.append(text)

    def _notify(self) -> None:
        """Something waits to be sent: each connection that has something is
        woken (``Connection.on_ready``), and the server told (``on_change``)."""
        for conn in self.connections:
            if conn.outbox:
                ready = conn.on_ready
                if ready is not None:
                    ready()
        if self.on_change is not None:
            self.on_change()
