"""One table: its seats, its match, its connections, and what each one is sent.

The room is sans-IO, in the style of h11: the server feeds it what arrives
(:meth:`Room.connect`, :meth:`Room.receive`, :meth:`Room.disconnect`) and takes
what to send (:meth:`Room.take`); it never waits, reads a clock or touches a
socket. What the match needs next is :meth:`Room.next_task`:

- ``"bot"``: a bot decides (:meth:`Room.bot_step`), after the server's pacing delay;
- ``"showdown"``: :meth:`Room.showdown_request` names the showdown; the server
  fights it on the unit port in a worker thread (``run_showdown`` blocks) and
  hands the outcome to :meth:`Room.finish_showdown`, or the problem to
  :meth:`Room.pause` (a lost unit: the game pauses on every screen);
- ``"next_round"``: the round is over; :meth:`Room.next_round` deals the next;
- ``None``: the room waits for a person (a phone) or the host.

The match is the driver's (:class:`engine.apps.driver.Match`): a person's
decision arrives from their phone, is checked (their turn, legal, not replayed)
and is handed to ``Match.step`` through the seat's agent; the driver's events
become the log in ``engine.apps.recap``'s words. Everything is kept in one
thread (the server's event loop): the worker thread only runs the unit port.

>>> room = Room(seats=2, rng=random.Random(1))
>>> display = room.connect()
>>> room.receive(display, '{"type": "hello", "role": "display"}')
>>> [m["type"] for m in room.take(display)]
['welcome', 'view']
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import random
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from engine.apps.driver import Match, MatchEvent
from engine.apps.recap import event_text
from engine.apps.table import showdown_view
from engine.apps.table.views import SEPARATOR, private_view, public_view
from engine.core.actions import Action
from engine.core.errors import NotationError
from engine.core.game import Game
from engine.players.bots import HeuristicBot
from engine.units.ports import ShowdownOutcome, ShowdownRequest, SimulatedUnit, UnitPort
from firmware_host.protocol import clean_name

__all__ = ["Room", "Seat", "Connection", "MAX_LOG", "SAVE_FORMAT", "VARIANTS"]

log = logging.getLogger(__name__)

#: Log lines kept (newest first).
MAX_LOG = 300
#: The save file's format number.
SAVE_FORMAT = 1
VARIANTS = ("showdown", "classic")
_MIN_SEATS, _MAX_SEATS = 2, 10
_MAX_ID_CHARS = 64
#: What the bots are called (bot<seat>): no person may be.
_BOT_NAME = re.compile(r"bot[0-9]*", re.IGNORECASE)


@dataclasses.dataclass
class Seat:
    """A seat: empty (``kind`` None), a person's (with the secret that rejoins
    it) or a bot's."""

    name: str | None = None
    kind: str | None = None  # "person" | "bot" | None (empty)
    secret: str | None = None
    reaction_ms: float | None = None  # a bot's, for a unit that presses for it
    drew: int = 0  # cards drawn by the latest draw, for the "+N" badge
    ids: set = dataclasses.field(default_factory=set)  # action ids already taken


class Connection:
    """One WebSocket: its role (None until hello), its seat, what waits to be sent."""

    def __init__(self, number: int):
        self.number = number
        self.role: str | None = None
        self.seat: int | None = None
        self.outbox: list[dict[str, Any]] = []
        self.last_view: str | None = None

    def __repr__(self) -> str:
        return f"Connection({self.number}, role={self.role!r}, seat={self.seat!r})"


class _Phone:
    """A person's agent: the decision their phone sent, handed to the driver."""

    def __init__(self, name: str):
        self.name = name
        self.pending: Action | None = None

    def act(self, game: Game, player: int) -> Action:
        action, self.pending = self.pending, None
        if action is None:  # the room steps a person's turn only with their action
            raise RuntimeError(f"{self.name} has no decision waiting")
        return action


class _Prepared:
    """The unit port the driver sees: it returns the outcome the room was given,
    for the request the room named (fought earlier on the real port)."""

    def __init__(self, port: UnitPort):
        self.port = port
        self.request: ShowdownRequest | None = None
        self.outcome: ShowdownOutcome | None = None

    def __repr__(self) -> str:
        return repr(self.port)

    def run_showdown(self, request: ShowdownRequest) -> ShowdownOutcome:
        if request != self.request or self.outcome is None:
            raise RuntimeError(f"the table named {self.request}, the driver asks {request}")
        outcome, self.outcome, self.request = self.outcome, None, None
        return outcome


class Room:
    """A table for 2 to 10 seats; see the module docstring.

    ``unit`` fights the showdowns (a SimulatedUnit on ``rng`` by default);
    ``save`` is the file the match is saved to after every change (None: not
    saved); ``on_change`` is called whenever something waits to be sent.
    """

    def __init__(
        self,
        *,
        seats: int = 4,
        rng: random.Random | None = None,
        unit: UnitPort | None = None,
        code: str = "",
        join_url: str = "",
        save: Path | None = None,
        new_secret: Callable[[], str] = lambda: secrets.token_urlsafe(16),
    ):
        if not _MIN_SEATS <= seats <= _MAX_SEATS:
            raise ValueError(f"a table has 2 to 10 seats, not {seats}")
        self.rng = rng or random.Random()
        self.unit: UnitPort = unit or SimulatedUnit(random.Random(self.rng.getrandbits(64)))
        self.code = code
        self.join_url = join_url
        self.save_path = save
        self.new_secret = new_secret
        self.seats = [Seat() for _ in range(seats)]
        self.connections: list[Connection] = []
        self.on_change: Callable[[], None] | None = None
        self.variant = "showdown"
        self.target = 500
        self.log: list[str] = []
        self.match: Match | None = None
        self.showdown: dict[str, Any] | None = None
        self.paused: str | None = None
        self._port = _Prepared(self.unit)
        self._fighting = False  # a showdown is out at the unit
        self._round_closed = False  # round_end told for the current round
        self._connections = 0

    # -- what the match needs next --------------------------------------------------

    @property
    def game(self) -> Game | None:
        return None if self.match is None else self.match.game

    @property
    def phase(self) -> str:
        game = self.game
        if game is None:
            return "lobby"
        if game.round_over and game.match_over:
            return "match_over"
        return game.phase.value

    @property
    def names(self) -> list[str]:
        return [seat.name or f"seat{n}" for n, seat in enumerate(self.seats)]

    def next_task(self) -> str | None:
        """``"bot"``, ``"showdown"``, ``"next_round"`` or None (see the module docstring)."""
        game = self.game
        if game is None or self.paused is not None or self._fighting:
            return None
        if game.pending_showdown is not None:
            return "showdown"
        if game.round_over:
            return None if game.match_over else "next_round"
        player = game.to_act
        if player is not None and self.seats[player].kind == "bot":
            return "bot"
        return None

    def bot_step(self) -> None:
        """The bot whose turn it is decides."""
        match = self._playing()
        player = match.game.to_act
        if player is None or self.seats[player].kind != "bot":
            raise RuntimeError(f"not a bot's turn: {match.game.notation()}")
        self._step(player)

    def showdown_request(self) -> ShowdownRequest:
        """The pending showdown, as the driver will ask for it: fight it on
        ``self.unit`` (blocking: in a worker thread) and pass the outcome to
        :meth:`finish_showdown`. The views show it armed."""
        match = self._playing()
        game = match.game
        pending = game.pending_showdown
        if pending is None:
            raise RuntimeError(f"no showdown pending: {game.notation()}")
        c, o = pending.challenger, pending.opponent
        names = self.names
        request = ShowdownRequest(
            f"{match.match_id}:r{game.round}:s{match.showdowns + 1}",
            c,
            o,
            names[c],
            names[o],
            len(pending.cards),
            bots={
                p: reaction
                for p in (c, o)
                if (reaction := getattr(match.agents[p], "reaction_ms", None)) is not None
            },
        )
        self._fighting = True
        self._port.request = request
        self.showdown = showdown_view.armed(
            c, o, [names[c], names[o]], request.cards, str(pending.cause)
        )
        self._changed()
        return request

    def finish_showdown(self, outcome: ShowdownOutcome) -> None:
        """The unit's outcome of the showdown :meth:`showdown_request` named."""
        self._playing()
        self._fighting = False
        self.paused = None
        self._port.outcome = outcome
        self._step(None)

    def pause(self, problem: str) -> None:
        """The unit could not fight the showdown: every screen shows ``problem``
        until the host retries (``retry``) or names the loser (``decide``)."""
        self._fighting = False
        self.paused = problem
        self._changed()

    def next_round(self) -> None:
        match = self._playing()
        match.game.next_round()
        self._round_closed = False
        self.showdown = None
        for seat in self.seats:
            seat.drew = 0
        self._add_log(SEPARATOR)
        self._round_start()
        self._changed(save=True)

    # -- the unit's hooks (a RemoteUnit's table and say; the server marshals them here) --

    def unit_event(self, name: str, data: dict[str, Any]) -> None:
        """An event of the showdown being fought: the showdown view follows it,
        and every connection gets it as ``{"type": "event"}`` (it holds no card)."""
        if self.showdown is not None:
            showdown_view.follow(self.showdown, name, data)
        for conn in self.connections:
            if conn.role is not None:
                conn.outbox.append({"type": "event", "name": name, "data": data})
        self._changed()

    def unit_said(self, text: str) -> None:
        """A line the unit port tells the table (load the cards, press the timer button)."""
        if self.showdown is not None:
            self.showdown["message"] = text
        self._add_log(text)
        self._changed()

    # -- connections ------------------------------------------------------------------

    def connect(self) -> Connection:
        self._connections += 1
        conn = Connection(self._connections)
        self.connections.append(conn)
        return conn

    def disconnect(self, conn: Connection) -> None:
        if conn in self.connections:
            self.connections.remove(conn)
        if conn.seat is not None:
            conn.seat = None
            self._changed()

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
        """Each handler returns why it refuses the message, or None."""
        kind = message.get("type")
        handler = self._HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            return f"unknown message type {kind!r} (known: {', '.join(self._HANDLERS)})"
        if kind != "hello" and conn.role is None:
            return "say hello first"
        return handler(self, conn, message)

    def _hello(self, conn: Connection, message: dict) -> str | None:
        role = message.get("role")
        if role not in ("display", "phone"):
            return f"role must be display or phone, not {role!r}"
        conn.role = role
        secret = message.get("secret")
        seat = None
        if role == "phone" and isinstance(secret, str) and secret:
            seat = self._seat_of_secret(secret)
        if seat is not None:
            self._sit(conn, seat)
        conn.outbox.append(self._welcome(conn))
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
        msg_id = message.get("id")
        if msg_id is not None:
            if isinstance(msg_id, bool) or not isinstance(msg_id, (int, str)):
                return "id must be a number or a string"
            if isinstance(msg_id, str) and len(msg_id) > _MAX_ID_CHARS:
                return f"id is longer than {_MAX_ID_CHARS} characters"
            if msg_id in self.seats[seat].ids:
                return f"action {msg_id!r} was sent already (replayed)"
            # An id names one message, whatever became of it: a second one is a replay.
            self.seats[seat].ids.add(msg_id)
        text = message.get("action")
        if not isinstance(text, str):
            return "action must be an action's text, e.g. R5 or draw"
        game = self.game
        if game is None or self.phase == "match_over":
            return "no match is being played"
        if self.paused is not None:
            return f"the game is paused: {self.paused}"
        try:
            action = Action.parse(text)
        except NotationError:
            return f"{text!r} is not an action (e.g. R5, W=R, draw, catch 1)"
        if game.to_act != seat:
            if game.pending_showdown is not None:
                return "a showdown is being fought: wait for its verdict"
            if game.round_over:
                return "the round is over"
            return f"it is not your turn: it is {self.names[game.to_act or 0]}'s"
        if not game.is_legal(action):
            return f"{text} is not legal now"
        self._step(seat, action)
        return None

    def _host(self, conn: Connection, message: dict) -> str | None:
        if conn.role != "display":
            return "host controls are on the display"
        cmd = message.get("cmd")
        if cmd == "start":
            return self._start(message)
        elif cmd == "next_round":
            if self.next_task() != "next_round":
                return "the round is not over"
            self.next_round()
        elif cmd == "retry":
            if self.paused is None:
                return "the game is not paused"
            self.paused = None
            self._changed()
        elif cmd == "decide":
            return self._decide(message.get("loser"))
        elif cmd == "end":
            return self._end()
        else:
            return f"unknown host command {cmd!r} (start, next_round, retry, decide, end)"
        return None

    _HANDLERS: ClassVar[dict[str, Callable[[Room, Connection, dict], str | None]]] = {
        "hello": _hello,
        "join": _join,
        "act": _act,
        "host": _host,
    }

    # -- the match --------------------------------------------------------------------

    def _start(self, message: dict) -> str | None:
        if self.match is not None and self.phase != "match_over":
            return "a match is being played"
        variant = message.get("variant", "showdown")
        if variant not in VARIANTS:
            return f"variant must be showdown or classic, not {variant!r}"
        target = message.get("target", 500)
        if type(target) is not int or target < 1:
            return f"target must be a whole number of points >= 1, not {target!r}"
        bots = message.get("bots")
        people = [s for s in self.seats if s.kind == "person"]
        if bots is None:
            seats = [s if s.kind == "person" else Seat() for s in self.seats]
        else:
            if type(bots) is not int or bots < 0:
                return f"bots must be a whole number >= 0, not {bots!r}"
            seats = [*people, *(Seat() for _ in range(bots))]
            moved = {id(s): n for n, s in enumerate(seats)}
        if not people:
            return "nobody has taken a seat"
        if not _MIN_SEATS <= len(seats) <= _MAX_SEATS:
            return f"a match takes 2 to 10 players, not {len(seats)}"
        if bots is not None:  # the people keep their phones; their seats renumber
            for conn in self.connections:
                if conn.seat is not None:
                    conn.seat = moved[id(self.seats[conn.seat])]
        for n, seat in enumerate(seats):
            if seat.kind is None:
                seat.name, seat.kind, seat.reaction_ms = f"bot{n}", "bot", 230.0
            seat.drew = 0
        self.seats = seats
        self.variant, self.target = variant, target
        game = Game.new(len(seats), variant, rng=self.rng, target=target)
        self._begin(game, log=[])
        self._changed(save=True)
        return None

    def _end(self) -> str | None:
        """The host ends the match: back to the lobby, the people seated, the bots gone."""
        if self.match is None:
            return "no match is being played"
        if self._fighting:
            return "a showdown is being fought: end the match after its verdict"
        self.match = None
        self.showdown = None
        self.paused = None
        self.seats = [s if s.kind == "person" else Seat() for s in self.seats]
        self._add_log("The host ended the match.")
        self._changed(save=True)
        return None

    def _begin(self, game: Game, log: list[str], showdowns: int = 0, decisions: int = 0) -> None:
        agents = [
            HeuristicBot(seat.name or "bot", reaction_ms=seat.reaction_ms or 230.0)
            if seat.kind == "bot"
            else _Phone(seat.name or "")
            for seat in self.seats
        ]
        self.match = Match(game, agents, self._port, names=self.names, log=self._on_event)
        self.match.showdowns, self.match.decisions = showdowns, decisions
        self.log = log
        self.showdown = None
        self.paused = None
        self._fighting = False
        self._round_closed = game.round_over
        if not log:
            self._emit(
                "match_start",
                players=self.names,
                variant=game.variant.name,
                target=game.target,
                house_rules=str(game.house_rules),
            )
            self._round_start()

    def _round_start(self) -> None:
        game = self.game
        assert game is not None
        self._emit(
            "round_start",
            dealer=game.dealer,
            first=game.to_act,
            top=str(game.top_card),
            colour=None if game.colour is None else str(game.colour),
            hand_sizes=list(game.hand_sizes),
            scores=list(game.scores),
        )

    def _step(self, seat: int | None, action: Action | None = None) -> None:
        match = self._playing()
        if seat is not None and action is not None:
            agent = match.agents[seat]
            if isinstance(agent, _Phone):
                agent.pending = action
        if seat is not None:
            self.seats[seat].drew = 0
            self.showdown = None  # the last verdict stays up until the next decision
        match.step()
        game = match.game
        if game.round_over and not self._round_closed:
            self._round_closed = True
            outcome = game.outcome
            assert outcome is not None
            self._emit(
                "round_end",
                winner=outcome.winner,
                points=outcome.points,
                scores=list(outcome.scores),
                hand_sizes=list(game.hand_sizes),
            )
            if outcome.match_winner is not None:
                self._emit(
                    "match_end",
                    winner=outcome.match_winner,
                    scores=list(outcome.scores),
                    rounds=game.round,
                    decisions=match.decisions,
                    showdowns=match.showdowns,
                )
        self._changed(save=True)

    def _decide(self, loser: Any) -> str | None:
        """The host names who takes the cards of a showdown the unit could not fight."""
        request = self._port.request
        if self.paused is None or request is None:
            return "no showdown waits for a decision"
        if loser not in request.players:
            return f"loser must be seat {request.challenger} or {request.opponent}"
        self.finish_showdown(
            ShowdownOutcome(
                loser,
                request.other(loser),
                "faster",
                dict.fromkeys(request.players),
                detail=f"decided by hand after: {self.paused}",
            )
        )
        return None

    def _emit(self, kind: str, **data: Any) -> None:
        match = self._playing()
        event = MatchEvent(kind, match.game.round, data)
        match.events.append(event)
        self._on_event(event)

    def _on_event(self, event: MatchEvent) -> None:
        """The driver's event: a log line, the "+N" badges, the showdown's verdict."""
        d = event.data
        drew: dict[int, int] = {}
        if event.kind == "play":
            drew.update(d["draws"])
        elif event.kind in ("draw", "accept"):
            drew[d["player"]] = d["cards"]
        elif event.kind == "challenge":
            drew[d["drew"]] = d["cards"]
        elif event.kind == "catch" and d["caught"] is not None:
            drew[d["caught"]] = d["cards"]
        elif event.kind == "showdown":
            drew[d["loser"]] = d["cards"]
            self._verdict(d)
        for player, count in drew.items():
            if count:
                self.seats[player].drew = count
        self._add_log(event_text(event, self.names))

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

    def _playing(self) -> Match:
        if self.match is None:
            raise RuntimeError("no match is being played")
        return self.match

    # -- views ------------------------------------------------------------------------

    def _add_log(self, line: str) -> None:
        self.log.insert(0, line)
        del self.log[MAX_LOG:]

    def _seat_entries(self) -> list[dict[str, Any]]:
        held = {conn.seat for conn in self.connections if conn.seat is not None}
        return [
            {
                "seat": n,
                "name": seat.name,
                "kind": seat.kind,
                "connected": seat.kind == "bot" or n in held,
                "drew": seat.drew,
            }
            for n, seat in enumerate(self.seats)
        ]

    def public(self) -> dict[str, Any]:
        """The public view: what the display and every phone see."""
        return public_view(
            code=self.code,
            join_url=self.join_url,
            seats=self._seat_entries(),
            game=self.game,
            phase=self.phase,
            variant=self.variant,
            target=self.target,
            log=self.log,
            showdown=self.showdown,
            paused=self.paused,
        )

    def view_for(self, conn: Connection, public: dict[str, Any] | None = None) -> dict[str, Any]:
        """``conn``'s whole view: the public part, and its own hand if it holds a seat."""
        view = dict(self.public() if public is None else public)
        game = self.game
        if conn.seat is not None and game is not None:
            view["you"] = private_view(game, conn.seat, self.names)
        elif conn.seat is not None:
            view["you"] = {"seat": conn.seat, "hand": [], "legal": [], "prompt": ""}
        else:
            view["you"] = None
        return view

    def _changed(self, save: bool = False) -> None:
        public = self.public()
        for conn in self.connections:
            if conn.role is None:
                continue
            view = self.view_for(conn, public)
            text = json.dumps(view, sort_keys=True)
            if text != conn.last_view:
                conn.last_view = text
                conn.outbox.append({"type": "view", "view": view})
        if save:
            self.save()
        self._notify()

    def _notify(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def _welcome(self, conn: Connection) -> dict[str, Any]:
        secret = None if conn.seat is None else self.seats[conn.seat].secret
        return {"type": "welcome", "role": conn.role, "seat": conn.seat, "secret": secret}

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

    # -- saving -----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The room as plain values: the seats (and their secrets), the match in
        the engine's notation, the log."""
        match = self.match
        return {
            "format": SAVE_FORMAT,
            "code": self.code,
            "variant": self.variant,
            "target": self.target,
            "seats": [
                {"name": s.name, "kind": s.kind, "secret": s.secret, "reaction_ms": s.reaction_ms}
                for s in self.seats
            ],
            "notation": None if match is None else match.game.notation(),
            "showdowns": 0 if match is None else match.showdowns,
            "decisions": 0 if match is None else match.decisions,
            "log": list(self.log),
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Continue from a :meth:`snapshot`. ValueError if it is not one."""
        try:
            if data.get("format") != SAVE_FORMAT:
                raise ValueError(f"format {data.get('format')!r} is not {SAVE_FORMAT}")
            seats = [
                Seat(s["name"], s["kind"], s["secret"], s["reaction_ms"]) for s in data["seats"]
            ]
            if not _MIN_SEATS <= len(seats) <= _MAX_SEATS:
                raise ValueError(f"not a saved table: {len(seats)} seats (2 to 10)")
            notation = data["notation"]
            game = None if notation is None else Game.from_notation(notation)
            if game is not None and game.players != len(seats):
                raise ValueError(f"{len(seats)} seats for {game.players} players")
            self.seats = seats
            self.variant, self.target = data["variant"], data["target"]
            self.log = [str(line) for line in data["log"]]
            if game is not None:
                self._begin(game, self.log, data["showdowns"], data["decisions"])
        except (KeyError, TypeError, NotationError) as exc:
            raise ValueError(f"not a saved table: {exc!r}") from None
        self._changed()

    def save(self) -> None:
        """Write the snapshot to ``save_path`` (atomically; only the owner may
        read it: it holds the seats' secrets)."""
        path = self.save_path
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(self.snapshot(), file)
        os.replace(temporary, path)
