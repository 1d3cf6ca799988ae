"""The game room's save file: the room as plain values, and the room again from them.

A mixin of :class:`engine.apps.table.room.Room` (see ``room_state``):
:meth:`RoomSaving.snapshot` is what ``hub.Hub.save`` writes after every change
(write ahead), :meth:`RoomSaving.restore` continues from it (``--resume``). The
match is kept in the engine's notation, every hidden choice shown: the file is
the server's, never sent to a page.
"""

from __future__ import annotations

from typing import Any

from engine.apps.table import card_marks
from engine.apps.table.action_ids import ActionIds
from engine.apps.table.durable import remember_verdicts, saved_verdicts
from engine.apps.table.room_state import MAX_TABLE_SEATS, MIN_SEATS, RoomState, Seat
from engine.apps.table.room_views import save_notation
from engine.apps.table.setup import in_words, table_of
from engine.game.agents import DEFAULT_REACTION_MS, check_reaction_ms
from engine.game.errors import NotationError
from engine.game.registry import family_playing
from firmware_host.protocol import clean_showdown_id

__all__ = ["RoomSaving", "SAVE_FORMAT"]

#: The save file's format number (fields added since are optional).
SAVE_FORMAT = 1


class RoomSaving(RoomState):
    """The room's :meth:`snapshot` and :meth:`restore` (a mixin: see the module)."""

    def snapshot(self) -> dict[str, Any]:
        """The room as plain values: the seats (and their secrets), the match in
        the engine's notation, the log."""
        match = self.match
        return {
            "format": SAVE_FORMAT,
            "code": self.code,
            "host_key": self.host_key,
            "match_id": self.match_id,
            "variant": self.variant,
            "target": self.target,
            "bot": self.bot_kind,
            "reaction_ms": self.reaction_ms,
            "house_rules": str(self.house_rules),
            "host_paused": self.host_paused,
            "seats": [
                {
                    "name": s.name,
                    "kind": s.kind,
                    "secret": s.secret,
                    "reaction_ms": s.reaction_ms,
                    "bot_playing": s.bot_playing,
                    "back_after_showdown": s.back_after_showdown,
                    "bot_after_showdown": s.bot_after_showdown,
                    "ids": s.ids.to_dict(),
                }
                for s in self.seats
            ],
            # UNO Party!'s pointing choices under way are written (reveal=True):
            # the save file is the server's, never sent to a page.
            "notation": None if match is None else save_notation(match.game),
            "reveal": self.reveal,
            # a simulated unit's verdict of the pending showdown, decided before it is shown
            "verdicts": saved_verdicts(self.unit, self._pending_request()),
            "showdowns": 0 if match is None else match.showdowns,
            "decisions": 0 if match is None else match.decisions,
            "log": list(self.log),
            # the cards each line names (card_marks): the log's chips after a restart
            "log_cards": [[line, cards] for line, cards in self.log_cards.items()],
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Continue from a :meth:`snapshot`. ValueError if it is not one. The
        fields added after the first slice (the bots' skill, the house rules,
        the host's pause, a seat a bot plays) may be missing: their defaults."""
        if data.get("mode") == "companion":
            raise ValueError("this is a companion table's save file: add --companion")
        try:
            if data.get("format") != SAVE_FORMAT:
                raise ValueError(f"format {data.get('format')!r} is not {SAVE_FORMAT}")
            match_id = clean_showdown_id(data.get("match_id", "m1"), "match_id")
            seats = _saved_seats(data["seats"])
            bot_kind, reaction_ms, house = _saved_setup(data)
            host_key = data.get("host_key")
            if host_key is not None and not (isinstance(host_key, str) and host_key):
                raise ValueError(f"host_key must be a key, not {host_key!r}")
            notation = data["notation"]
            variant = data["variant"]
            read = family_playing(variant).from_notation
            game = None if notation is None else read(notation)
            if game is not None and game.players != len(seats):
                raise ValueError(f"{len(seats)} seats for {game.players} players")
            self.seats = seats
            if host_key is not None:
                self.host_gate.key = host_key
            self._restore_away()
            self.match_id = match_id
            self.variant, self.target = variant, data["target"]
            self.bot_kind, self.reaction_ms, self.house_rules = bot_kind, reaction_ms, house
            self.log = [str(line) for line in data["log"]]
            self.log_cards = _saved_log_cards(data.get("log_cards") or [])
            verdicts = data.get("verdicts") or {}
            if not isinstance(verdicts, dict):
                raise TypeError(f"verdicts must be an object, not {verdicts!r}")
            remember_verdicts(self.unit, verdicts)
            if game is not None:
                self._begin(game, self.log, data["showdowns"], data["decisions"])
                self.host_paused = data.get("host_paused", False) is True
                reveal = data.get("reveal")
                self.reveal = reveal if isinstance(reveal, dict) else None
        except (KeyError, TypeError, AttributeError, NotationError) as exc:
            raise ValueError(f"not a saved table: {exc!r}") from None
        self._changed()

    def _restore_away(self) -> None:
        """Restored: no phone holds a seat yet; the lobby's seats (and those of a
        match over) wait ``seat_timeout_s`` from now for their phones."""
        now = self.clock()
        for seat in self.seats:
            seat.away_since = now if seat.kind == "person" else None
        self._freeable_since = now


def _saved_seats(entries: list[dict[str, Any]]) -> list[Seat]:
    """The saved seats (a seat a bot plays is a person's only)."""
    seats = [
        Seat(
            s["name"],
            s["kind"],
            s["secret"],
            s["reaction_ms"],
            bot_playing=s.get("bot_playing", False) is True and s["kind"] == "person",
            back_after_showdown=s.get("back_after_showdown", False) is True,
            bot_after_showdown=s.get("bot_after_showdown", False) is True and s["kind"] == "person",
            ids=ActionIds.from_dict(s.get("ids")),
        )
        for s in entries
    ]
    if not MIN_SEATS <= len(seats) <= MAX_TABLE_SEATS:
        raise ValueError(
            f"not a saved table: {len(seats)} seats ({MIN_SEATS} to {MAX_TABLE_SEATS})"
        )
    return seats


def _saved_setup(data: dict[str, Any]) -> tuple[str, float, Any]:
    """The saved bots' skill, their reaction and the house rules (their defaults
    if missing), as the saved variant's adapter reads them (``setup.table_of``)."""
    variant = data.get("variant", "showdown")
    table = table_of(variant)
    kinds = list(table.BOT_KINDS)
    bot_kind = data.get("bot", kinds[0])
    if bot_kind not in kinds:
        raise ValueError(f"bot must be {in_words(kinds)}, not {bot_kind!r}")
    reaction_ms = check_reaction_ms(data.get("reaction_ms", DEFAULT_REACTION_MS), "the bots")
    return bot_kind, reaction_ms, table.read_house_rules(variant, data.get("house_rules", "-"))


def _saved_log_cards(data: Any) -> dict[str, list[list[str]]]:
    """The saved ``log_cards`` (older saves have none: no chips for their lines)."""
    marks: dict[str, list[list[str]]] = {}
    for line, cards in data:
        marks[str(line)] = [card for card in map(card_marks.card_of, (c for _, c in cards)) if card]
    return marks
