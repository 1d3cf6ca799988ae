"""The game room's host commands: start a match, pause it, hand a seat to a bot,
retry, decide a showdown by hand, end the match, replace the host key.

A mixin of :class:`engine.apps.table.room.Room` (see ``room_state``); the seat
commands of the lobby are ``lobby.LobbySeats``'s. Each command returns why it
is refused (in words, for the host's page), or None.
"""

from __future__ import annotations

from typing import Any

from engine.apps.table import access
from engine.apps.table.access import HOST_ONLY
from engine.apps.table.durable import durable
from engine.apps.table.hub import Connection
from engine.apps.table.lobby import SEAT_COMMANDS, LobbySeats
from engine.apps.table.room_state import (
    HOST_PAUSED,
    MAX_TABLE_SEATS,
    RoomState,
    Seat,
    new_match_id,
)
from engine.apps.table.setup import in_words, table_of, variant_refusal
from engine.game.agents import DEFAULT_REACTION_MS, check_reaction_ms
from engine.game.registry import family_playing
from engine.units.ports import ShowdownOutcome
from firmware_host.protocol import Reason

__all__ = ["HostCommands"]


class HostCommands(LobbySeats, RoomState):
    """The host's commands (a mixin: see the module)."""

    def _host(self, conn: Connection, message: dict) -> str | None:
        if conn.role != "display":
            return "host controls are on the display"
        if not conn.host:
            return HOST_ONLY
        return self.host_command(message)

    def host_command(self, message: dict) -> str | None:
        """The host's command ``message`` (from the host's display, or typed at
        the server's terminal: ``host_console``); why it is refused, or None."""
        cmd = message.get("cmd")
        if cmd == "start":
            return self._start(message)
        elif cmd == "next_round":
            if self.host_paused:
                return HOST_PAUSED
            if self.next_task() != "next_round":
                return "the round is not over"
            self.next_round()
        elif cmd in ("pause", "resume"):
            return self._host_pause(cmd == "pause")
        elif cmd in ("hand_to_bot", "hand_back"):
            return self._hand_over(message.get("seat"), to_bot=cmd == "hand_to_bot")
        elif cmd == "retry":
            if self.save_problem is not None:
                return self._retry_save()
            if self.paused is None:
                return "the game is not paused"
            self.paused = None
            self._changed()
        elif cmd == "decide":
            return self._decide(message.get("loser"))
        elif cmd == "stand_in":
            return self._stand_in(message.get("seat"))
        elif cmd == "end":
            return self._end()
        elif cmd in SEAT_COMMANDS:
            return self._seat_command(cmd, message)
        else:
            return (
                f"unknown host command {cmd!r} (start, next_round, pause, resume, "
                "hand_to_bot, hand_back, retry, decide, stand_in, end, free_seat, move_seat, "
                "clear_lobby)"
            )
        return None

    def _start(self, message: dict) -> str | None:
        if self.match is not None and self.phase != "match_over":
            return "a match is being played"
        variant = message.get("variant", "showdown")
        refused = variant_refusal(variant)
        if refused is not None:
            return refused
        table = table_of(variant)  # what differs from game to game
        target = message.get("target", table.default_target(variant))
        if type(target) is not int or target < 1:
            return f"target must be a whole number of points >= 1, not {target!r}"
        kinds = table.BOT_KINDS
        bot_kind = message.get("bot", next(iter(kinds)))
        if bot_kind not in kinds:
            return f"bot must be {in_words(list(kinds))}, not {bot_kind!r}"
        try:
            reaction_ms = check_reaction_ms(
                message.get("reaction_ms", DEFAULT_REACTION_MS), "the bots"
            )
            house = table.house_rules_from(variant, message.get("house_rules"))
        except ValueError as exc:
            return str(exc)
        seats = self._seats_for(message.get("bots"))
        if isinstance(seats, str):
            return seats
        bots = message.get("bots")
        players = len(seats) if bots is None else sum(s.kind == "person" for s in seats) + bots
        fewest, most = table.seat_range(variant)
        if not fewest <= players <= most:
            takes = f"exactly {most}" if fewest == most else f"{fewest} to {most}"
            return f"{table.match_words(variant)} takes {takes} players, not {players}"
        self._seat(seats, reaction_ms, renumber=message.get("bots") is not None)
        self.variant, self.target, self.house_rules = variant, target, house
        self.bot_kind, self.reaction_ms = bot_kind, reaction_ms
        game = family_playing(variant).new(
            len(seats), variant, rng=self.rng, target=target, house_rules=house
        )
        self.match_id = new_match_id()
        self._begin(game, log=[])
        self._changed(save=True)
        return None

    def _seats_for(self, bots: Any) -> list[Seat] | str:
        """The match's seats: the people's and ``bots`` bots (None: the lobby's
        seats, the empty ones a bot's), or why not."""
        people = [s for s in self.seats if s.kind == "person"]
        if bots is None:
            seats = [s if s.kind == "person" else Seat() for s in self.seats]
        elif type(bots) is not int or bots < 0:
            return f"bots must be a whole number >= 0, not {bots!r}"
        else:
            # no more seats made than a match may have: bots=10**7 held the loop 84 s
            seats = [*people, *(Seat() for _ in range(min(bots, MAX_TABLE_SEATS + 1)))]
        if not people:
            return "nobody has taken a seat"
        return seats

    def _seat(self, seats: list[Seat], reaction_ms: float, *, renumber: bool) -> None:
        """The match's seats are taken: the people keep their phones (their seats
        renumbered when the bots were counted), the empty seats a bot's."""
        if renumber:
            moved = {id(s): n for n, s in enumerate(seats)}
            for conn in self.connections:
                if conn.seat is not None:
                    conn.seat = moved[id(self.seats[conn.seat])]
        for n, seat in enumerate(seats):
            if seat.kind is None:
                seat.name, seat.kind = f"bot{n}", "bot"
            if seat.kind == "bot":
                seat.reaction_ms = reaction_ms
            seat.drew = 0
            seat.played_by(bot=False)
        self.seats = seats

    def _host_pause(self, pause: bool) -> str | None:
        """The host pauses (or resumes) the match: no bot moves, no showdown
        goes to the unit, every phone's action is refused, until resumed."""
        if self.match is None:
            return "no match is being played"
        if pause and self.phase == "match_over":
            return "the match is over"
        if pause == self.host_paused:
            return (
                "the game is paused by the host already"
                if pause
                else "the game is not paused by the host"
            )
        self.host_paused = pause
        self._add_log("The host paused the game." if pause else "The host resumed the game.")
        self._changed(save=True)
        return None

    def _hand_over(self, number: Any, *, to_bot: bool) -> str | None:
        """A person's seat is played by a bot (``to_bot``) or by its person again.
        The seat keeps its name and secret; its hand still goes to its phone only."""
        if self.match is None:
            return "no match is being played"
        if self.phase == "match_over":
            return "the match is over"
        if type(number) is not int or not 0 <= number < len(self.seats):
            return f"seat must be a number from 0 to {len(self.seats) - 1}"
        seat = self.seats[number]
        if seat.kind != "person":
            where = "to a bot" if to_bot else "back"
            return f"seat {number} is a bot's: only a person's seat is handed {where}"
        if seat.bot_after_showdown and not to_bot:  # kept before the verdict
            seat.bot_after_showdown = False
            self._add_log(f"{seat.name} keeps playing.")
            self._changed(save=True)
            return None
        if seat.bot_playing == to_bot:
            return (
                f"a bot plays for {seat.name} already"
                if to_bot
                else f"no bot plays for {seat.name}"
            )
        if self._fighting or self._named is not None:
            # The request names who presses for whom: the match must settle the
            # same, so the seat changes hands after the verdict.
            if not (seat.bot_after_showdown or seat.back_after_showdown):  # a second tap: no change
                seat.bot_after_showdown, seat.back_after_showdown = to_bot, not to_bot
                self._add_log(
                    f"A bot plays for {seat.name} after this showdown."
                    if to_bot
                    else f"{seat.name} plays again after this showdown."
                )
                self._changed(save=True)
            return None
        self._played_by(number, bot=to_bot)
        self._changed(save=True)
        return None

    def _played_by(self, number: int, *, bot: bool) -> None:
        """Seat ``number`` is played by a bot, or by its person again; logged."""
        seat = self.seats[number]
        seat.played_by(bot)
        self._seat_bot(number)
        self._tell_people()
        self._add_log(f"A bot plays for {seat.name}." if bot else f"{seat.name} plays again.")

    def _seats_handed_over_after_showdown(self) -> None:
        """The seats taken back while the showdown was out are their phones'
        again, and those handed to a bot then are the bot's."""
        for number, seat in enumerate(self.seats):
            if seat.back_after_showdown or seat.bot_after_showdown:
                self._played_by(number, bot=seat.bot_after_showdown)

    def _end(self) -> str | None:
        """The host ends the match: back to the lobby, the people seated, the bots gone."""
        if self.match is None:
            return "no match is being played"
        if self._fighting:
            return "a showdown is being fought: end the match after its verdict"
        self.match = None
        self.showdown = None
        self.paused = None
        self.host_paused = False
        self.seats = [s if s.kind == "person" else Seat() for s in self.seats]
        for seat in self.seats:
            seat.played_by(bot=False)
        self._freeable_since = self.clock()  # an away phone's seat may be freed again
        self._add_log("The host ended the match.")
        self._changed(save=True)
        return None

    def _decide(self, loser: Any) -> str | None:
        """The host names who takes the cards of a showdown the unit could not fight."""
        request = self._named
        if self.paused is None or request is None:
            return "no showdown waits for a decision"
        if loser not in request.players:
            return f"loser must be seat {request.challenger} or {request.opponent}"
        self.finish_showdown(
            ShowdownOutcome(
                loser,
                request.other(loser),
                Reason.FASTER,
                dict.fromkeys(request.players),
                detail=f"decided by hand after: {self.paused}",
            )
        )
        return None

    def seat_named(self, name: str) -> int | None:
        """The seat of the player called ``name`` (any case), or None."""
        wanted = " ".join(name.split()).casefold()
        found = [n for n, seat in enumerate(self.seats) if (seat.name or "").casefold() == wanted]
        return found[0] if found else None

    def _stand_in(self, seat: Any) -> str | None:
        """A bot presses for ``seat``, whose phone did not answer, when the
        paused showdown is fought again (``--unit phones``: this showdown only)."""
        request, paddles = self._named, getattr(self, "paddles", None)
        if self.paused is None or request is None:
            return "no showdown waits for a decision"
        if paddles is None:
            return "the showdowns are not fought on the phones here"
        if seat not in paddles.missing:
            names = " or ".join(request.name(p) for p in paddles.missing) or "nobody"
            return f"a bot presses only for a phone that did not answer ({names})"
        paddles.stand_in(seat)
        self._add_log(f"The host: a bot presses for {request.name(seat)} in this showdown.")
        self.paused = None
        self._changed()
        return None

    @durable
    def new_host_key(self) -> str:
        """A new host key; the old one stops working at once: each display that
        held it becomes a spectator and is told so. Saved. Returns the new key."""
        key = self.host_gate.replace()
        for conn in self.connections:
            if conn.host:
                conn.host = False
                conn.outbox.append(self._welcome(conn, access.HOST_KEY_REPLACED))
        self._changed(save=True)
        return key
