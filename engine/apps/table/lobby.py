"""The lobby's seats: the host frees a seat, moves one, clears the lobby; a seat
whose phone has been away too long is freed by itself.

A mixin of :class:`engine.apps.table.room.Room` (no state of its own beyond
what it declares), sans-IO like the room: time is the room's injected
``clock``. A person's seat remembers since when no phone holds it
(``Seat.away_since``); in the lobby and after a match is over
(``match_over``: the seats stay for the next match), such a seat is freed
``seat_timeout_s`` after its phone left, or after the seat became free-able
(the match ended, the host ended it, the table was resumed from its save file:
the phones must come back), whichever is later. :meth:`LobbySeats.next_deadline`
says when the next one is due (clock time, or None) and
:meth:`LobbySeats.run_due` frees those due; the server's Runner wakes for them.
A match being played keeps its players: nothing is freed while it is.

Seats are numbered from 0 in messages and from 1 in words (the log, a phone's
line), as the pages show them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.apps.table.durable import durable

__all__ = ["LobbySeats", "FREE_PHASES", "DEFAULT_SEAT_TIMEOUT_S", "SEAT_COMMANDS"]

#: The phases in which seats may be freed (the lobby, and after a match is over).
FREE_PHASES = ("lobby", "match_over")
#: How long a lobby seat waits for its phone to come back (``--seat-timeout``).
DEFAULT_SEAT_TIMEOUT_S = 120.0
#: The host's commands for the seats (the room's ``_host`` hands them here).
SEAT_COMMANDS = ("free_seat", "move_seat", "clear_lobby")


def _seat_words(number: int, name: str | None) -> str:
    return f"seat {number + 1} ({name})" if name else f"seat {number + 1}"


class LobbySeats:
    """The host's seat commands and the away seats' timers (a mixin: see the module)."""

    # What the room keeps (its own attributes).
    seats: list[Any]
    connections: list[Any]
    clock: Callable[[], float]
    seat_timeout_s: float
    #: Since when the seats may be freed (the lobby began, the match ended).
    _freeable_since: float

    if TYPE_CHECKING:  # the room's own (the checker's view; nothing at run time)

        @property
        def phase(self) -> str: ...
        def _add_log(self, line: str, cards: list[list[str]] | None = None) -> None: ...
        def _changed(self, save: bool = False) -> None: ...
        def _welcome(self, conn: Any, message: str | None = None) -> dict[str, Any]: ...

    # -- the host's commands ------------------------------------------------------------

    def _seat_command(self, cmd: str, message: dict) -> str | None:
        """``free_seat {seat}``, ``move_seat {seat, to}`` or ``clear_lobby``:
        why it is refused, or None."""
        if self.phase not in FREE_PHASES:
            return "a match is being played: seats are freed and moved in the lobby"
        if cmd == "clear_lobby":
            return self._clear_lobby()
        number = message.get("seat")
        refused = self._seat_number(number, "seat")
        if refused is not None:
            return refused
        assert isinstance(number, int)
        if cmd == "free_seat":
            return self._free_by_host(number)
        return self._move_seat(number, message.get("to"))

    def _seat_number(self, number: Any, field: str) -> str | None:
        if type(number) is not int or not 0 <= number < len(self.seats):
            return f"{field} must be a number from 0 to {len(self.seats) - 1}"
        return None

    def _free_by_host(self, number: int) -> str | None:
        seat = self.seats[number]
        if seat.kind is None:
            return f"seat {number} is free already"
        if seat.kind != "person":
            return f"seat {number} is a bot's: only a person's seat is freed"
        self._add_log(f"The host freed {_seat_words(number, seat.name)}.")
        self._free(number, "The host freed your seat: pick a seat again to play.")
        self._changed(save=True)
        return None

    def _move_seat(self, number: int, to: Any) -> str | None:
        if self.phase != "lobby":
            return "the match is over: seats are moved in the lobby (end the match first)"
        refused = self._seat_number(to, "to")
        if refused is not None:
            return refused
        assert isinstance(to, int)
        if to == number:
            return f"seat {number} is at seat {to} already"
        held = {id(self.seats[c.seat]): c for c in self.connections if c.seat is not None}
        seat = self.seats.pop(number)
        self.seats.insert(to, seat)
        for n, other in enumerate(self.seats):  # the phones keep their people
            conn = held.get(id(other))
            if conn is not None:
                conn.seat = n
        who = seat.name or "a free seat"
        self._add_log(f"The host moved {who} to seat {to + 1}.")
        self._changed(save=True)
        return None

    def _clear_lobby(self) -> str | None:
        people = [n for n, seat in enumerate(self.seats) if seat.kind == "person"]
        if not people:
            return "nobody is seated: the lobby is clear"
        for number in people:
            self._free(number, "The host cleared the lobby: pick a seat again to play.")
        self._add_log(
            f"The host cleared the lobby: {len(people)} seat{'s' if len(people) > 1 else ''} freed."
        )
        self._changed(save=True)
        return None

    def _free(self, number: int, why: str) -> None:
        """Seat ``number`` is free again: its secret stops working, its phone (if
        one holds it) is told ``why`` with a welcome without a seat."""
        self.seats[number] = type(self.seats[number])()
        for conn in self.connections:
            if conn.seat == number:
                conn.seat = None
                conn.outbox.append(self._welcome(conn, why))

    # -- the away seats' timers ---------------------------------------------------------

    def _seat_left(self, number: int) -> None:
        """No phone holds seat ``number`` any more: its time away starts now."""
        if not any(conn.seat == number for conn in self.connections):
            self.seats[number].away_since = self.clock()

    def _away_deadlines(self) -> list[tuple[float, int]]:
        if self.seat_timeout_s <= 0 or self.phase not in FREE_PHASES:
            return []
        return [
            (max(seat.away_since, self._freeable_since) + self.seat_timeout_s, n)
            for n, seat in enumerate(self.seats)
            if seat.kind == "person" and seat.away_since is not None
        ]

    def next_deadline(self) -> float | None:
        """When (clock time) the next away seat is due to be freed; None: none is."""
        return min((due for due, _ in self._away_deadlines()), default=None)

    @durable
    def run_due(self) -> None:
        """Free every away seat whose time is up (nothing when none is)."""
        now = self.clock()
        due = [n for when, n in self._away_deadlines() if when <= now]
        for number in due:
            seat = self.seats[number]
            self._add_log(
                f"S{_seat_words(number, seat.name)[1:]} was freed: "
                f"its phone was away for {self.seat_timeout_s:g} s."
            )
            self._free(number, "Your seat was freed: this phone was away too long.")
        if due:
            self._changed(save=True)
