"""One table: its seats, its match, its connections, and what each one is sent.

The room is sans-IO, in the style of h11: the server feeds it what arrives
(:meth:`Room.connect`, :meth:`Room.receive`, :meth:`Room.disconnect`) and takes
what to send (:meth:`Room.take`); it never waits or touches a socket, and reads
only the clock it is given (``clock``: its own timers, :meth:`Room.next_deadline`
and :meth:`Room.run_due`, and the rate limits). Who may do what (the host's key,
the room code, the lobby's seats) is ``engine.apps.table.access`` and ``.lobby``.
What the match needs next is :meth:`Room.next_task`:

- ``"bot"``: a bot decides (:meth:`Room.bot_step`), after the server's pacing
  delay: a bot's seat, or a person's seat the host handed to a bot;
- ``"showdown"``: :meth:`Room.showdown_request` names the showdown; the server
  fights it on the unit port in a worker thread (``run_showdown`` blocks) and
  hands the outcome to :meth:`Room.finish_showdown`, or the problem to
  :meth:`Room.pause` (a lost unit: the game pauses on every screen); if the
  host paused before it went to the unit, :meth:`Room.hold_showdown`;
- ``"next_round"``: the round is over; :meth:`Room.next_round` deals the next;
- ``None``: the room waits for a person (a phone) or the host (who may have
  paused the game: ``host_paused``, apart from a unit problem's ``paused``).

The room feeds the match (:class:`engine.match.Match`): a person's decision
arrives from their phone, is checked (their seat, not replayed, the family's
early refusals) and is handed to ``Match.act``, which checks it against the
rules once; a bot's decision is asked of the seat's bot; the unit's outcome
goes to ``Match.settle``. The match's events become the log in
``engine.apps.recap``'s words. Everything is kept in one thread (the server's
event loop): the worker thread only runs the unit port.

The room is one class in parts (mixins over ``room_state.RoomState``, what it
keeps): here, the match it feeds and the phones' messages; the host's commands
in ``room_host`` (the lobby's seat commands in ``lobby``), the views and the
log in ``room_views``, the save file in ``room_save``.

>>> import json
>>> room = Room(seats=2, rng=random.Random(1))
>>> display = room.connect()
>>> room.receive(display, '{"type": "hello", "role": "display"}')
>>> [json.loads(m)["type"] for m in room.take(display)]
['welcome', 'view']
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Callable
from typing import Any, ClassVar

from engine.apps.table import access, card_marks, showdown_view
from engine.apps.table.durable import durable
from engine.apps.table.hub import Connection
from engine.apps.table.room_host import HostCommands
from engine.apps.table.room_save import SAVE_FORMAT, RoomSaving
from engine.apps.table.room_state import HOST_PAUSED, VARIANTS, Seat, new_match_id
from engine.apps.table.room_views import MAX_LOG, RoomViews
from engine.game.agents import Agent, tell_people, tell_showdown
from engine.game.errors import IllegalActionError
from engine.game.interface import GameState
from engine.match import Claim, Decide, Match, MatchEvent, Showdown
from engine.units.ports import ShowdownOutcome, ShowdownRequest
from firmware_host.protocol import clean_name

__all__ = [
    "Room",
    "Seat",
    "Connection",
    "MAX_LOG",
    "MAX_LAG_MS",
    "SAVE_FORMAT",
    "VARIANTS",
    "HOST_PAUSED",
    "new_match_id",
]

#: The longest round trip a page may report, in ms.
MAX_LAG_MS = 60_000
_MAX_ID_CHARS = 64
#: What the bots are called (bot<seat>): no person may be.
_BOT_NAME = re.compile(r"bot[0-9]*", re.IGNORECASE)


class Room(HostCommands, RoomSaving, RoomViews):
    """A table for 2 to 10 seats (16 for UNO Party!); see the module docstring.

    ``unit`` fights the showdowns (a SimulatedUnit on ``rng`` by default);
    ``save`` is the file the match is saved to after every change (None: not
    saved); ``on_change`` is called whenever something waits to be sent.
    ``code`` is the room code a phone joins with (a fresh one by default);
    ``host_key`` the host's key (a fresh one by default; ``engine.apps.table.access``);
    ``base_url`` the table's address as printed (``http://HOST:PORT``: the
    host URL is made from it); ``seat_timeout_s`` how long a lobby seat waits
    for its phone (0: for ever; ``engine.apps.table.lobby``); ``clock`` the
    room's time (its timers, the rate limits).
    """

    # -- what the match needs next --------------------------------------------------

    def next_task(self) -> str | None:
        """``"bot"``, ``"showdown"``, ``"next_round"``, ``"claims"`` (UNO Party!:
        the bots may claim out of turn, :meth:`claims_step`, after
        :meth:`claim_delay`) or None (see the module docstring)."""
        match = self.match
        if match is None or self.paused is not None or self.host_paused or self._fighting:
            return None
        need = match.needs()
        if isinstance(need, Showdown):
            return "showdown"
        if not isinstance(need, Decide):
            return "next_round" if self.game.match_winner is None else None
        if self._claims_due(need):
            return "claims"
        return "bot" if any(p in self.bots for p in need.players) else None

    @durable
    def bot_step(self) -> None:
        """Every bot the match waits for decides, in seat order (one, in turn;
        several while everyone acts at once, as UNO Party!'s pointing)."""
        match = self._playing()
        need = match.needs()
        bots = [p for p in need.players if p in self.bots] if isinstance(need, Decide) else []
        if not bots:
            raise RuntimeError(f"no bot decides now: {match.game.notation()}")
        for player in bots:
            if player in match.game.waiting_for:
                self._bot_act(player)
        self._changed(save=True)

    def _bot_act(self, player: int) -> None:
        match = self._playing()
        bot = self.bots[player]
        self.showdown = None  # the last verdict stays up until the next decision
        self.seats[player].drew = 0
        match.act(player, bot.act(match.game, player), who=f"{self.names[player]} ({bot!r})")

    def claim_delay(self) -> float:
        """Seconds before the bots' claims (UNO Party!): the fastest reaction
        among the bots' seats, as the table's pace allows (the Runner)."""
        reactions = [
            (self.reaction_ms if seat.kind != "bot" else seat.reaction_ms) or self.reaction_ms
            for seat in self.seats
            if seat.by_bot
        ]
        return min(reactions, default=self.reaction_ms) / 1000

    def claims_position(self) -> str:
        """The position the bots would claim in (the game's public line)."""
        return self._playing().game.notation()

    @durable
    def claims_step(self) -> None:
        """The bots' claims out of turn (UNO Party!: a speed play, a catch), one
        round among them, in their reaction order (``Match.claim_round``);
        asked once per position."""
        match = self._playing()
        game = match.game
        self._claims_key = game.notation()
        need = match.needs()
        claims = []
        for player in need.claimants if isinstance(need, Decide) else ():
            react = getattr(self.bots.get(player), "react", None)
            action = None if react is None else react(game, player)
            if action is not None:
                ms = getattr(self.bots[player], "reaction_ms", None) or self.reaction_ms
                claims.append(Claim(player, action, ms))
        before = len(match.events)
        match.claim_round(claims)
        if len(match.events) != before:
            self._changed(save=True)

    def _claims_due(self, need: Decide) -> bool:
        """Whether the bots are yet to be asked for claims in this position."""
        if not any(p in self.bots for p in need.claimants):
            return False
        return self._playing().game.notation() != self._claims_key

    def showdown_request(self) -> ShowdownRequest:
        """The pending showdown, as the match names it: fight it on
        ``self.unit`` (blocking: in a worker thread) and pass the outcome to
        :meth:`finish_showdown`. The views show it armed."""
        request = self._pending_request()
        if request is None:
            raise RuntimeError(f"no showdown pending: {self._playing().game.notation()}")
        c, o = request.players
        pending = self._playing().game.pending_showdown
        assert pending is not None
        self._fighting = True
        self._named = request
        self.showdown = showdown_view.armed(
            c,
            o,
            [request.challenger_name, request.opponent_name],
            request.cards,
            str(pending.cause),
        )
        self._changed()
        return request

    def _pending_request(self) -> ShowdownRequest | None:
        """The request of the showdown pending in the game, if one is."""
        match = self.match
        if match is None or match.game.pending_showdown is None:
            return None
        return match.showdown_request()

    def _hold_outcome(self, outcome: ShowdownOutcome) -> None:
        """The outcome could not be saved: it waits for the host's retry."""
        self._fighting = False
        self._held_outcome = outcome

    @durable(failed=_hold_outcome)
    def finish_showdown(self, outcome: ShowdownOutcome) -> None:
        """The unit's outcome of the showdown :meth:`showdown_request` named.
        Saved before it is shown; while the table cannot save it waits for the
        host's retry (held, as when its own save fails)."""
        self._playing()
        if self.save_problem is not None and not self._in_change:
            self._hold_outcome(outcome)
            self._changed()
            return
        self._fighting = False
        self.paused = None
        self._named = None
        self._playing().settle(outcome, by=f"unit port {self.unit!r}")
        tell_showdown(self.bots.values(), outcome.reaction_us)
        self._seats_handed_over_after_showdown()
        self._changed(save=True)

    def hold_showdown(self) -> None:
        """The host paused after :meth:`showdown_request` but before the
        showdown went to the unit: it waits, armed on every screen, and is
        named again (the same request) once the host resumes."""
        if not self._fighting:
            raise RuntimeError("no showdown was named")
        self._fighting = False
        self._named = None
        self._changed()

    def pause(self, problem: str) -> None:
        """The unit could not fight the showdown: every screen shows ``problem``
        until the host retries (``retry``) or names the loser (``decide``).
        While the table cannot save, it is shown once the save is retried."""
        self._fighting = False
        if self.save_problem is not None:
            self._paused_before = problem
        else:
            self.paused = problem
        self._changed()

    @durable
    def next_round(self) -> None:
        match = self._playing()
        self.showdown = None
        self.reveal = None
        self._last_decision = None
        for seat in self.seats:
            seat.drew = 0
        self._add_log(self.table.SEPARATOR)
        match.next_round()
        self._changed(save=True)

    # -- the match it feeds ----------------------------------------------------------

    def _begin(
        self, game: GameState, log: list[str], showdowns: int = 0, decisions: int = 0
    ) -> None:
        """Feed a new match (``log`` empty) or a resumed one (its log, its counts)."""
        self.match = Match(
            game,
            names=self.names,
            log=self._on_event,
            match_id=self.match_id,
            # the bots' simultaneous claims are ordered from the table's seed
            rng=random.Random(self.rng.getrandbits(64)) if game.out_of_turn else None,
            showdowns=showdowns,
            decisions=decisions,
            begun=bool(log),
        )
        self.bots = {}
        for number in range(len(self.seats)):
            self._seat_bot(number)
        self._tell_people()
        self.log = log
        self.showdown = None
        self.reveal = None
        self._last_decision = None
        self._claims_key = None
        self.paused = None
        self.host_paused = False
        self.house_rules = game.house_rules  # type: ignore[attr-defined]
        self._fighting = False
        self._named = None
        self.match.begin()

    def _seat_bot(self, number: int) -> None:
        """Seat ``number``'s bot, if a bot plays it (the match hands its
        reaction to the unit in a showdown); a person's phone decides otherwise."""
        match = self._playing()
        if self.seats[number].by_bot:
            bot = self.bots[number] = self._new_bot(number)
            match.bots[number] = getattr(bot, "reaction_ms", None)
        else:
            self.bots.pop(number, None)
            match.bots.pop(number, None)

    def _tell_people(self) -> None:
        """Tell the bots which seats people play now (engine.game.agents)."""
        tell_people(self.bots.values(), {n for n, seat in enumerate(self.seats) if not seat.by_bot})

    def _new_bot(self, number: int) -> Agent:
        """The table's bot for seat ``number`` (its skill and reaction)."""
        seat = self.seats[number]
        name = seat.name or "bot"
        reaction_ms = seat.reaction_ms if seat.kind == "bot" and seat.reaction_ms else None
        reaction_ms = reaction_ms or self.reaction_ms
        kind = self.table.BOT_KINDS[self.bot_kind]  # the table's name -> the family's kind
        rng = _Deferred(self._bots_rng)
        return self._playing().family.make_bot(kind, name, rng, reaction_ms=reaction_ms)

    def _bots_rng(self) -> random.Random:
        """The bots' generator, drawn from the table's when a bot first asks
        (a bot that draws nothing leaves the table's generator as it was)."""
        if self._bot_rng is None:
            self._bot_rng = random.Random(self.rng.getrandbits(64))
        return self._bot_rng

    def _on_event(self, event: MatchEvent) -> None:
        """The match's event: a log line, the "+N" badges, the showdown's verdict."""
        d = event.data
        table = self.table
        drew, self.reveal = table.event_marks(event.kind, d, self.reveal)
        if event.kind == "showdown":
            self._verdict(d)
        if event.kind == "match_end":  # the seats stay, an away phone's may be freed
            self._freeable_since = self.clock()
        decisions = self._playing().family.taps.DECISION_EVENTS
        if event.kind in decisions and isinstance(d.get("player"), int):
            self._last_decision = (event.kind, d["player"], d)
        for player, count in drew.items():
            if count:
                self.seats[player].drew = count
        line = table.event_text(event, self.names)
        self._add_log(line, card_marks.event_cards(d, line))

    def _verdict(self, d: dict[str, Any]) -> None:
        c, o = d["challenger"], d["opponent"]
        if self.showdown is None:  # restored mid-showdown, or decided by hand
            self.showdown = showdown_view.armed(c, o, [self.names[c], self.names[o]], d["cards"])
        showdown_view.decided(
            self.showdown,
            {c: self.names[c], o: self.names[o]},
            winner=d["winner"],
            loser=d["loser"],
            reason=d["reason"],
            reaction_us=d["reaction_us"],
            margin_us=d["margin_us"],
            tie_reruns=d["tie_reruns"],
        )

    # -- connections and the phones' messages ---------------------------------------

    def disconnect(self, conn: Connection) -> None:
        if conn in self.connections:
            self.connections.remove(conn)
        if conn.seat is not None:
            seat, conn.seat = conn.seat, None
            self._seat_left(seat)
            self._changed()

    def _may_save(self, message: dict[str, Any]) -> bool:
        kind = message.get("type")
        return kind in self._HANDLERS and kind not in ("hello", "ping", "lag", "paddle_tap")

    def _handle(self, conn: Connection, message: dict) -> str | None:
        """Each handler returns why it refuses the message, or None."""
        kind = message.get("type")
        handler = self._HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            return f"unknown message type {kind!r} (known: {', '.join(self._HANDLERS)})"
        if kind not in ("hello", "ping") and conn.role is None:
            return "say hello first"
        return handler(self, conn, message)

    def _hello(self, conn: Connection, message: dict) -> str | None:
        role = message.get("role")
        if role not in ("display", "phone"):
            return f"role must be display or phone, not {role!r}"
        conn.role = role
        conn.host, note = False, None
        if role == "display":  # the host's key makes it the host; else a spectator
            conn.host, note = self.host_gate.check(message.get("host_key"), conn.peer)
        secret = message.get("secret")
        seat = None
        if role == "phone" and isinstance(secret, str) and secret:
            seat = self._seat_of_secret(secret)
        if seat is not None:
            self._sit(conn, seat)
        conn.outbox.append(self._welcome(conn, note))
        conn.last_view = None  # the whole view again, after a reconnect too
        self._changed()
        return None

    def _join(self, conn: Connection, message: dict) -> str | None:
        if conn.role != "phone":
            return "only a phone takes a seat"
        if conn.seat is not None:
            return f"you sit at seat {conn.seat} already"
        if self.match is not None and self.phase != "match_over":
            return "the match has started: wait for the next one"
        refused = access.code_refusal(
            self._join_tries, self._peer_log, self.code, message.get("code"), conn.peer
        )
        if refused is not None:
            return refused
        number = message.get("seat")
        if type(number) is not int or not 0 <= number < len(self.seats):
            return f"seat must be a number from 0 to {len(self.seats) - 1}"
        seat = self.seats[number]
        if seat.kind == "person":
            return f"seat {number} is taken by {seat.name}"
        try:
            name = clean_name(message.get("name"))
        except ValueError as exc:
            return str(exc)
        if _BOT_NAME.fullmatch(name):
            return f"{name} is a bot's name: choose another name"
        for other in self.seats:
            if other.kind == "person" and (other.name or "").casefold() == name.casefold():
                return f"{other.name} is at the table already: choose another name"
        self.seats[number] = Seat(name, "person", self.new_secret())
        self._sit(conn, number)
        conn.outbox.append(self._welcome(conn))
        self._changed(save=True)
        return None

    def _act(self, conn: Connection, message: dict) -> str | None:
        seat = conn.seat
        if seat is None:
            return "take a seat first"
        asked = message.get("seat", seat)
        if asked != seat:
            return f"you sit at seat {seat}, not {asked}: you act for your seat only"
        # Every action has an id, never accepted twice in a match (saved with it).
        refused = self.seats[seat].ids.check(message.get("id"), self.match_id)
        if refused is not None:
            return refused
        text = message.get("action")
        if not isinstance(text, str):
            return "action must be an action's text, e.g. R5 or draw"
        game = self.game
        if game is None or self.phase == "match_over":
            return "no match is being played"
        if self.host_paused:
            return HOST_PAUSED
        if self.seats[seat].bot_playing:
            return "a bot plays for you: take your seat back first"
        if self.paused is not None:
            return f"the game is paused: {self.paused}"
        if game.pending_showdown is not None:
            return "a showdown is being fought: wait for its verdict"
        if game.round_over:
            return "the round is over"
        taps = self._playing().family.taps
        action = taps.parse_tap(text)
        if isinstance(action, str):
            return action
        names, last = self.names, self._last_decision
        refused = taps.refuse_early(game, seat, action, text, names, last)
        if refused is not None:
            return refused
        # The "+N" is this decision's draw: cleared before the action, whose
        # events may set it again (a person's own draw), as a bot's is.
        drew_before, self.seats[seat].drew = self.seats[seat].drew, 0
        try:
            # In turn or out of it (a claim: a speed play, a catch): claims are
            # applied in the order they arrive, so a later one has become illegal.
            self._playing().act(seat, action, by="tapped")
        except IllegalActionError:
            self.seats[seat].drew = drew_before
            return taps.refuse_illegal(game, seat, action, text, names, last)
        self.showdown = None  # the last verdict stays up until the next decision
        self._changed(save=True)
        return None

    def _take_back(self, conn: Connection, message: dict) -> str | None:
        """A phone takes back its seat from the bot the host handed it to (or
        keeps it, handed over while a showdown is out: before the verdict)."""
        if conn.seat is None:
            return "take a seat first"
        seat = self.seats[conn.seat]
        if not (seat.bot_playing or seat.bot_after_showdown):
            return "you play your seat already"
        return self._hand_over(conn.seat, to_bot=False)

    def _ping(self, conn: Connection, message: dict) -> str | None:
        """Answered at once, to the sender alone: the page measures its round trip
        and, asked with ``"clock": true``, its offset to the server's clock from
        the pong's ``server_ms``."""
        ping_id = message.get("id")
        if (
            isinstance(ping_id, bool)
            or not isinstance(ping_id, (int, str))
            or (isinstance(ping_id, str) and len(ping_id) > _MAX_ID_CHARS)
        ):
            return f"ping id must be a number or a string of up to {_MAX_ID_CHARS} characters"
        pong: dict[str, Any] = {"type": "pong", "id": ping_id}
        if message.get("clock") is True:  # a paddle keeps its offset to this clock (clock.js)
            pong["server_ms"] = self.clock() * 1000
        conn.outbox.append(pong)
        self._notify()
        return None

    def _lag(self, conn: Connection, message: dict) -> str | None:
        """A page's measured round trip, shown next to its seat. It decides
        nothing: claims are taken in the order they arrive. A change too small
        to matter (under a quarter, or 20 ms) is not sent to every screen."""
        ms = message.get("ms")
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not 0 <= ms <= MAX_LAG_MS:
            return f"lag ms must be a number of milliseconds from 0 to {MAX_LAG_MS}, not {ms!r}"
        shown = round(ms)
        before = conn.lag_ms
        if before is None or abs(shown - before) >= max(20, before / 4):
            conn.lag_ms = shown
            if conn.seat is not None:
                self._changed()
        return None

    def _seat_of_secret(self, secret: str) -> int | None:
        for n, seat in enumerate(self.seats):
            if seat.secret is not None and secrets.compare_digest(seat.secret, secret):
                return n
        return None

    def _sit(self, conn: Connection, seat: int) -> None:
        """``conn`` holds ``seat``; a connection that held it before loses it."""
        for other in self.connections:
            if other is not conn and other.seat == seat:
                other.seat = None
                other.outbox.append(self._welcome(other))
        conn.seat = seat
        self.seats[seat].away_since = None

    def _paddle_tap(self, conn: Connection, message: dict) -> str | None:
        """A phone's tap in a showdown fought on the phones (``phone_port``)."""
        if self.paddles is None:
            return "the showdowns are not fought on the phones here"
        if conn.seat is None:
            return "take a seat first"
        return self.paddles.report(conn.seat, message)

    _HANDLERS: ClassVar[dict[str, Callable[[Room, Connection, dict], str | None]]] = {
        "hello": _hello,
        "join": _join,
        "act": _act,
        "take_back": _take_back,
        "host": HostCommands._host,
        "ping": _ping,
        "lag": _lag,
        "paddle_tap": _paddle_tap,
    }


class _Deferred(random.Random):
    """A generator made only when first drawn from (``make`` makes it): the
    bots that draw nothing leave the table's generator as it was."""

    def __init__(self, make: Callable[[], random.Random]):
        super().__init__(0)
        self._make = make
        self._made: random.Random | None = None

    def _inner(self) -> random.Random:
        if self._made is None:
            self._made = self._make()
        return self._made

    def random(self) -> float:
        return self._inner().random()

    def getrandbits(self, k: int, /) -> int:
        return self._inner().getrandbits(k)
