"""The game room's views and log: what each connection is sent, built once a change.

A mixin of :class:`engine.apps.table.room.Room` (see ``room_state``). The public
view is built once a change; each kind of connection's view (a display's, a
phone's without a seat, each seat's) is encoded once and shared
(``hub.ViewTexts``); a seat's own part (the adapter's ``private_view``) is built again
only when what it shows changed. The welcome is each connection's own.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import Any

from engine.apps.table import access
from engine.apps.table.durable import decide_ahead
from engine.apps.table.hub import Connection
from engine.apps.table.match_book import match_body
from engine.apps.table.room_state import RoomState
from engine.apps.table.setup import table_of_game
from engine.game.interface import GameState

__all__ = ["RoomViews", "MAX_LOG", "PHONE_LOG", "save_notation", "private_view"]

log = logging.getLogger(__name__)

#: Log lines kept (newest first).
MAX_LOG = 300
#: Log lines a phone is sent (the phone page shows none; a view with the whole
#: log, up to 17 KB, to every phone at every move would be most of the traffic).
PHONE_LOG = 5
#: The prompt of a phone that took its seat back while a showdown was out.
BACK_AFTER_SHOWDOWN = "You play again after this showdown."


class RoomViews(RoomState):
    """The log, each connection's view and welcome (a mixin: see the module)."""

    def _add_log(self, line: str, cards: list[list[str]] | None = None) -> None:
        self.log.insert(0, line)
        dropped = self.log[MAX_LOG:]
        del self.log[MAX_LOG:]
        if cards:
            self.log_cards[line] = cards
        for old in dropped:
            if old not in self.log:
                self.log_cards.pop(old, None)

    def _seat_entries(self) -> list[dict[str, Any]]:
        held = {conn.seat: conn for conn in self.connections if conn.seat is not None}
        return [
            {
                "seat": n,
                "name": seat.name,
                "kind": seat.kind,
                "connected": seat.kind == "bot" or n in held,
                "bot_playing": seat.bot_playing,
                "back_after_showdown": seat.back_after_showdown,
                "bot_after_showdown": seat.bot_after_showdown,
                "lag_ms": held[n].lag_ms if n in held else None,
                "drew": seat.drew,
            }
            for n, seat in enumerate(self.seats)
        ]

    def public(self) -> dict[str, Any]:
        """The public view: what the display and every phone see; ``log_cards``
        beside ``log``: the cards each line names (engine.apps.table.card_marks)."""
        view = self.table.public_view(
            code="",  # the room code is the host's: in its welcome, never in a view
            join_url=self.join_url,
            seats=self._seat_entries(),
            game=self.game,
            phase=self.phase,
            variant=self.variant,
            target=self.target,
            log=self.log,
            showdown=self.showdown,
            paused=self.paused,
            host_paused=self.host_paused,
            house_rules=self.house_rules,
            bot_kind=self.bot_kind,
            reaction_ms=self.reaction_ms,
            reveal=self.reveal,
            cannot_save=self.save_problem is not None,
        )
        view["log_cards"] = [self.log_cards.get(line, []) for line in self.log]
        paddles = getattr(self, "paddles", None)
        if self.paused is not None and paddles is not None and paddles.missing:
            view["phone_missing"] = list(paddles.missing)  # the host's choice: a bot for them?
        return view

    def view_for(self, conn: Connection, public: dict[str, Any] | None = None) -> dict[str, Any]:
        """``conn``'s whole view: the public part, and its own hand if it holds a seat."""
        view = self._public_for(conn.role, self.public() if public is None else public)
        view["you"] = None if conn.seat is None else self._you(conn.seat)
        return view

    def _public_for(self, role: str | None, public: dict[str, Any]) -> dict[str, Any]:
        """The public view as ``role`` gets it (a phone: the newest log lines), ``you`` null."""
        view = dict(public)
        if role == "phone":
            view["log"] = view["log"][:PHONE_LOG]
            view["log_cards"] = view["log_cards"][:PHONE_LOG]
        view["you"] = None
        return view

    def _you(self, seat: int) -> dict[str, Any]:
        """The ``you`` part of the phone that holds ``seat``."""
        game, back = self.game, self.seats[seat].back_after_showdown
        if game is not None:
            bot_playing = self.seats[seat].bot_playing
            you = private_view(game, seat, self.names, bot_playing=bot_playing)
            if back:  # the family's "take your seat back" is done: it waits for the verdict
                you["prompt"] = BACK_AFTER_SHOWDOWN
            you["back_after_showdown"] = back
            you["bot_after_showdown"] = self.seats[seat].bot_after_showdown
            return you
        return {"seat": seat, "hand": [], "legal": [], "prompt": "", "bot_playing": False}

    def _changed(self, save: bool = False) -> None:
        """Something changed: saved first, with ``save`` (write ahead: a save
        that fails raises :class:`~engine.apps.table.durable.SaveFailed` before
        anything is queued), then each connection's view queued if it changed;
        then the server is told."""
        if save:
            decide_ahead(self.unit, self._pending_request())
            self.save()
        if self.match_book is not None and self.phase == "match_over":
            self._book_match()
        self._queue_views()
        self._notify()

    def _book_match(self) -> None:
        """The finished match into the match book, once. A book that cannot be
        written is logged and tried again at the next change: it is the
        league's copy, and the game does not wait for it."""
        if self._booked_match == self.match_id or self.match_book is None:
            return
        body = match_body(
            self._playing().game,
            match_id=self.match_id,
            variant=self.variant,
            names=self.names,
            bots=[seat.kind == "bot" for seat in self.seats],
        )
        try:
            self.match_book.record(body, finished_at=time.time())
        except OSError as exc:
            log.error("%s (tried again at the next change)", exc)
            return
        self._booked_match = self.match_id

    def _queue_views(self) -> None:
        """The public view is built once; each kind of connection's view (a
        display's, a phone's without a seat, each seat's) is encoded once and
        the one string queued for every connection of that kind that does not
        hold it already. A seat's own part is built again only when the game's
        position, the names or its bot changed (:class:`ViewTexts`)."""
        public = self.public()
        made: dict[tuple[str | None, int | None], str] = {}
        position = functools.cache(lambda: None if self.game is None else save_notation(self.game))
        for conn in self.connections:
            role = conn.role
            if role is None:
                continue
            key = (role, conn.seat)
            text = made.get(key)
            if text is None:
                text = made[key] = self._view_text(role, conn.seat, public, made, position)
            if text is not conn.last_view:
                conn.last_view = text
                conn.outbox.append(text)

    def _view_text(
        self,
        role: str | None,
        seat: int | None,
        public: dict[str, Any],
        made: dict[tuple[str | None, int | None], str],
        position: Callable[[], str | None],
    ) -> str:
        """The view message of ``role`` holding ``seat`` (None: no seat) at this change."""
        base = made.get((role, None))
        if base is None:
            base = made[role, None] = self._views.text(
                role, None, lambda: self._public_for(role, public)
            )
        if seat is None:
            return base
        held = self.seats[seat]
        handing = (held.bot_playing, held.back_after_showdown, held.bot_after_showdown)
        basis = (position(), tuple(self.names), *handing)
        you = self._yous.get(seat)
        if you is None or you[0] != basis:  # the seat's own part changed
            you = self._yous[seat] = (basis, self._you(seat))
        return self._views.text(
            (role, seat), (base, basis), lambda: {**self._public_for(role, public), "you": you[1]}
        )

    def _welcome(self, conn: Connection, message: str | None = None) -> dict[str, Any]:
        """The welcome to ``conn``: its seat and secret; to the host, the host
        URL, the room code and the join URL with their QR codes (to it alone);
        ``message`` a line for the page (why it is not the host, why its seat is gone)."""
        secret = None if conn.seat is None else self.seats[conn.seat].secret
        welcome: dict[str, Any] = {
            "type": "welcome",
            "role": conn.role,
            "seat": conn.seat,
            "secret": secret,
            "host": conn.host,
        }
        if conn.host:
            welcome.update(
                access.host_fields(self.base_url, self.host_key, self.join_url, self.code)
            )
        if message:
            welcome["message"] = message
        if getattr(self, "paddles", None) is not None:  # showdowns on the phones: set clocks
            welcome["paddles"] = True
        if self.unit_words and conn.role == "display":  # chosen at start: the display says which
            welcome["unit"] = self.unit_words
        return welcome


def private_view(
    game: GameState, seat: int, names: list[str], *, bot_playing: bool = False
) -> dict[str, Any]:
    """The ``you`` part of ``seat``'s phone, as the game's family draws it (its adapter)."""
    view: dict[str, Any] = table_of_game(game).private_view(
        game, seat, names, bot_playing=bot_playing
    )
    return view


def save_notation(game: GameState) -> str:
    """The game's line for the save file, every hidden choice shown (UNO
    Party!'s pointing choices under way): the file is the server's alone."""
    return game.notation(reveal=True)
