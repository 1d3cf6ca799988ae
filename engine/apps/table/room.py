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

>>> import json
>>> room = Room(seats=2, rng=random.Random(1))
>>> display = room.connect()
>>> room.receive(display, '{"type": "hello", "role": "display"}')
>>> [json.loads(m)["type"] for m in room.take(display)]
['welcome', 'view']
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import random
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from engine.apps.table import access, showdown_view
from engine.apps.table.access import HOST_ONLY, HostGate, PeerLog, Tries
from engine.apps.table.action_ids import ActionIds
from engine.apps.table.durable import decide_ahead, durable, remember_verdicts, saved_verdicts
from engine.apps.table.hub import Connection, Hub, ViewTexts
from engine.apps.table.lobby import DEFAULT_SEAT_TIMEOUT_S, SEAT_COMMANDS, LobbySeats
from engine.apps.table.party_view import (
    MAX_PARTY_SEATS,
    PARTY_EVENTS,
    party_draws,
    pointing_reveal,
)
from engine.apps.table.setup import house_rules_from, party_rules_from
from engine.apps.table.views import SEPARATOR, private_view, public_view
from engine.game.errors import IllegalActionError, NotationError
from engine.game.interface import GameState
from engine.game.registry import family_of
from engine.match import Claim, Decide, Match, MatchEvent, Showdown
from engine.units.ports import ShowdownOutcome, ShowdownRequest, SimulatedUnit, UnitPort
from engine.uno import new_game, read_game
from engine.uno.bots import (
    DEFAULT_REACTION_MS,
    Agent,
    HeuristicBot,
    RandomBot,
    check_reaction_ms,
)
from engine.uno.party_rules import PartyRules
from engine.uno.rules import HouseRules
from engine.uno.words import event_text
from firmware_host.protocol import Reason, clean_name, clean_showdown_id

__all__ = [
    "Room",
    "Seat",
    "Connection",
    "MAX_LOG",
    "MAX_LAG_MS",
    "SAVE_FORMAT",
    "VARIANTS",
    "BOT_KINDS",
    "HOST_PAUSED",
]

log = logging.getLogger(__name__)

#: Log lines kept (newest first).
MAX_LOG = 300
#: Log lines a phone is sent (the phone page shows none; a view with the whole
#: log, up to 17 KB, to every phone at every move would be most of the traffic).
PHONE_LOG = 5
#: The longest round trip a page may report, in ms.
MAX_LAG_MS = 60_000
#: The save file's format number (fields added since are optional).
SAVE_FORMAT = 1
VARIANTS = ("showdown", "classic", "party")
#: The bots' skills: ``engine.uno.bots.HeuristicBot`` or ``RandomBot``.
BOT_KINDS = ("heuristic", "random")
#: Why a phone's action is refused while the host has paused the game.
HOST_PAUSED = "the host paused the game: wait until the host resumes it"
_MIN_SEATS, _MAX_SEATS = 2, 10
_MAX_ID_CHARS = 64
#: What the bots are called (bot<seat>): no person may be.
_BOT_NAME = re.compile(r"bot[0-9]*", re.IGNORECASE)


@dataclasses.dataclass
class Seat:
    """A seat: empty (``kind`` None), a person's (with the secret that rejoins
    it) or a bot's. A person's seat the host handed to a bot keeps the
    person's name and secret; ``bot_playing`` says a bot decides for it."""

    name: str | None = None
    kind: str | None = None  # "person" | "bot" | None (empty)
    secret: str | None = None
    reaction_ms: float | None = None  # a bot's, for a unit that presses for it
    bot_playing: bool = False  # a person's seat a bot plays for
    drew: int = 0  # cards drawn by the latest draw, for the "+N" badge
    ids: ActionIds = dataclasses.field(default_factory=ActionIds)  # this match's, saved
    away_since: float | None = None  # a person's seat no phone holds: since when (clock)

    @property
    def by_bot(self) -> bool:
        """Whether a bot decides for this seat (a bot's, or handed to one)."""
        return self.kind == "bot" or self.bot_playing


class Room(LobbySeats, Hub):
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
        clock: Callable[[], float] = time.monotonic,
        host_key: str | None = None,
        base_url: str = "",
        seat_timeout_s: float = DEFAULT_SEAT_TIMEOUT_S,
    ):
        super().__init__(clock)
        if not _MIN_SEATS <= seats <= MAX_PARTY_SEATS:
            raise ValueError(
                f"a table has 2 to {MAX_PARTY_SEATS} seats (more than 10 for UNO Party! only), "
                f"not {seats}"
            )
        self.rng = rng or random.Random()
        self.unit: UnitPort = unit or SimulatedUnit(random.Random(self.rng.getrandbits(64)))
        self.code = code or access.new_room_code()
        self.join_url = join_url  # the phone page's address (the code is the host's)
        self.base_url = base_url
        self.save_path = save
        self.new_secret = new_secret
        self.seat_timeout_s = seat_timeout_s
        peer_log = PeerLog(clock)
        self.host_gate = HostGate(clock, host_key, peer_log=peer_log)
        self._join_tries = Tries(clock)
        self._peer_log = peer_log
        self._freeable_since = clock()
        self.seats = [Seat() for _ in range(seats)]
        self.variant = "showdown"
        self.target = 500
        self.bot_kind = "heuristic"
        self.reaction_ms = DEFAULT_REACTION_MS
        self.house_rules: HouseRules | PartyRules = HouseRules()
        self.log: list[str] = []
        #: UNO Party!: the last pointing, revealed once the last choice was in
        #: (``{by, choices: [{seat, target}], draws: [{seat, cards}]}``).
        self.reveal: dict[str, Any] | None = None
        #: The latest decision (event kind, player, data): whom a late claim lost to.
        self._last_decision: tuple[str, int, dict[str, Any]] | None = None
        #: The position the bots' out-of-turn claims were last asked in.
        self._claims_key: str | None = None
        self.match: Match[Any] | None = None
        #: Who decides for the seats a bot plays (a bot's, or a person's handed to one).
        self.bots: dict[int, Agent] = {}
        #: The showdown named to the unit (or waiting for the host's decision).
        self._named: ShowdownRequest | None = None
        #: Names this match's showdowns (``<match_id>:r<round>:s<n>``): new for
        #: each match and saved, so a unit never mistakes one match's showdown for
        #: another's, and a resumed match arms the same ids again.
        self.match_id = "m1"
        self.paused: str | None = None  # a unit problem: what happened, what to do
        self.host_paused = False  # the host's pause
        self._bot_rng: random.Random | None = None  # the random bots' (drawn when needed)
        self._views = ViewTexts()  # each kind of connection's view, encoded once a change
        #: Each seat's ``you`` part and what it was built from (the position, the
        #: names, its bot): built again only when one of those changed.
        self._yous: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}

    # -- what the match needs next --------------------------------------------------

    @property
    def game(self) -> Any:
        """The match's game (the game interface, engine.game.interface), or None."""
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
        self._add_log(SEPARATOR)
        match.next_round()
        self._changed(save=True)

    # -- the unit's hooks (a RemoteUnit's table and say; the server marshals them here) --

    # -- connections ------------------------------------------------------------------

    def disconnect(self, conn: Connection) -> None:
        if conn in self.connections:
            self.connections.remove(conn)
        if conn.seat is not None:
            seat, conn.seat = conn.seat, None
            self._seat_left(seat)
            self._changed()

    @property
    def host_key(self) -> str:
        """The host's key (saved with the room; ``new_host_key`` replaces it)."""
        return self.host_gate.key

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

    def _may_save(self, message: dict[str, Any]) -> bool:
        kind = message.get("type")
        return kind in self._HANDLERS and kind not in ("hello", "ping", "lag")

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
        taps = family_of(game).taps
        action = taps.parse_tap(text)
        if isinstance(action, str):
            return action
        names, last = self.names, self._last_decision
        refused = taps.refuse_early(game, seat, action, text, names, last)
        if refused is not None:
            return refused
        try:
            # In turn or out of it (a claim: a speed play, a catch): claims are
            # applied in the order they arrive, so a later one has become illegal.
            self._playing().act(seat, action, by="tapped")
        except IllegalActionError:
            return taps.refuse_illegal(game, seat, action, text, names, last)
        self.seats[seat].drew = 0
        self.showdown = None  # the last verdict stays up until the next decision
        self._changed(save=True)
        return None

    def _take_back(self, conn: Connection, message: dict) -> str | None:
        """A phone takes back its seat from the bot the host handed it to."""
        if conn.seat is None:
            return "take a seat first"
        if not self.seats[conn.seat].bot_playing:
            return "you play your seat already"
        return self._hand_over(conn.seat, to_bot=False)

    def _ping(self, conn: Connection, message: dict) -> str | None:
        """Answered at once, to the sender alone: the page measures its round trip."""
        ping_id = message.get("id")
        if (
            isinstance(ping_id, bool)
            or not isinstance(ping_id, (int, str))
            or (isinstance(ping_id, str) and len(ping_id) > _MAX_ID_CHARS)
        ):
            return f"ping id must be a number or a string of up to {_MAX_ID_CHARS} characters"
        conn.outbox.append({"type": "pong", "id": ping_id})
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

    def _host(self, conn: Connection, message: dict) -> str | None:
        if conn.role != "display":
            return "host controls are on the display"
        if not conn.host:
            return HOST_ONLY
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
        elif cmd == "end":
            return self._end()
        elif cmd in SEAT_COMMANDS:
            return self._seat_command(cmd, message)
        else:
            return (
                f"unknown host command {cmd!r} (start, next_round, pause, resume, "
                "hand_to_bot, hand_back, retry, decide, end, free_seat, move_seat, clear_lobby)"
            )
        return None

    _HANDLERS: ClassVar[dict[str, Callable[[Room, Connection, dict], str | None]]] = {
        "hello": _hello,
        "join": _join,
        "act": _act,
        "take_back": _take_back,
        "host": _host,
        "ping": _ping,
        "lag": _lag,
    }

    # -- the match --------------------------------------------------------------------

    def _start(self, message: dict) -> str | None:
        if self.match is not None and self.phase != "match_over":
            return "a match is being played"
        variant = message.get("variant", "showdown")
        if variant not in VARIANTS:
            return f"variant must be showdown, classic or party, not {variant!r}"
        target = message.get("target", 500)
        if type(target) is not int or target < 1:
            return f"target must be a whole number of points >= 1, not {target!r}"
        bot_kind = message.get("bot", "heuristic")
        if bot_kind not in BOT_KINDS:
            return f"bot must be heuristic or random, not {bot_kind!r}"
        try:
            reaction_ms = check_reaction_ms(
                message.get("reaction_ms", DEFAULT_REACTION_MS), "the bots"
            )
            house: HouseRules | PartyRules = (
                party_rules_from(message.get("house_rules"))
                if variant == "party"
                else house_rules_from(message.get("house_rules"))
            )
        except ValueError as exc:
            return str(exc)
        bots = message.get("bots")
        people = [s for s in self.seats if s.kind == "person"]
        if bots is None:
            seats = [s if s.kind == "person" else Seat() for s in self.seats]
        else:
            if type(bots) is not int or bots < 0:
                return f"bots must be a whole number >= 0, not {bots!r}"
            # no more seats made than a match may have: bots=10**7 held the loop 84 s
            seats = [*people, *(Seat() for _ in range(min(bots, MAX_PARTY_SEATS + 1)))]
            moved = {id(s): n for n, s in enumerate(seats)}
        if not people:
            return "nobody has taken a seat"
        most = MAX_PARTY_SEATS if variant == "party" else _MAX_SEATS
        players = len(seats) if bots is None else len(people) + bots
        if not _MIN_SEATS <= players <= most:
            kind = "an UNO Party! match" if variant == "party" else "a match"
            return f"{kind} takes 2 to {most} players, not {players}"
        if bots is not None:  # the people keep their phones; their seats renumber
            for conn in self.connections:
                if conn.seat is not None:
                    conn.seat = moved[id(self.seats[conn.seat])]
        for n, seat in enumerate(seats):
            if seat.kind is None:
                seat.name, seat.kind = f"bot{n}", "bot"
            if seat.kind == "bot":
                seat.reaction_ms = reaction_ms
            seat.drew = 0
            seat.bot_playing = False
        self.seats = seats
        self.variant, self.target, self.house_rules = variant, target, house
        self.bot_kind, self.reaction_ms = bot_kind, reaction_ms
        game = new_game(len(seats), variant, rng=self.rng, target=target, house_rules=house)
        self.match_id = new_match_id()
        self._begin(game, log=[])
        self._changed(save=True)
        return None

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
        if seat.bot_playing == to_bot:
            return (
                f"a bot plays for {seat.name} already"
                if to_bot
                else f"no bot plays for {seat.name}"
            )
        if self._fighting or self._named is not None:
            # the request names who presses for whom: the match must settle the same
            return "a showdown waits for its verdict: hand the seat over after it"
        seat.bot_playing = to_bot
        self._seat_bot(number)
        self._add_log(f"A bot plays for {seat.name}." if to_bot else f"{seat.name} plays again.")
        self._changed(save=True)
        return None

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

    def _new_bot(self, number: int) -> Agent:
        """The table's bot for seat ``number`` (its skill and reaction)."""
        seat = self.seats[number]
        name = seat.name or "bot"
        reaction_ms = seat.reaction_ms if seat.kind == "bot" and seat.reaction_ms else None
        reaction_ms = reaction_ms or self.reaction_ms
        if self.bot_kind == "random":
            if self._bot_rng is None:
                self._bot_rng = random.Random(self.rng.getrandbits(64))
            return RandomBot(
                random.Random(self._bot_rng.getrandbits(64)), name, reaction_ms=reaction_ms
            )
        return HeuristicBot(name, reaction_ms=reaction_ms)

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
            seat.bot_playing = False
        self._freeable_since = self.clock()  # an away phone's seat may be freed again
        self._add_log("The host ended the match.")
        self._changed(save=True)
        return None

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

    def _on_event(self, event: MatchEvent) -> None:
        """The match's event: a log line, the "+N" badges, the showdown's verdict."""
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
        elif event.kind in PARTY_EVENTS:
            if event.kind == "point_taken":
                self.reveal = None
            elif event.kind == "pointing":
                self.reveal = pointing_reveal(d)
            drew.update(party_draws(event.kind, d))
        if event.kind == "match_end":  # the seats stay, an away phone's may be freed
            self._freeable_since = self.clock()
        decisions = family_of(self._playing().game).taps.DECISION_EVENTS
        if event.kind in decisions and isinstance(d.get("player"), int):
            self._last_decision = (event.kind, d["player"], d)
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

    def _playing(self) -> Match[Any]:
        if self.match is None:
            raise RuntimeError("no match is being played")
        return self.match

    # -- views ------------------------------------------------------------------------

    def _add_log(self, line: str) -> None:
        self.log.insert(0, line)
        del self.log[MAX_LOG:]

    def _seat_entries(self) -> list[dict[str, Any]]:
        held = {conn.seat: conn for conn in self.connections if conn.seat is not None}
        return [
            {
                "seat": n,
                "name": seat.name,
                "kind": seat.kind,
                "connected": seat.kind == "bot" or n in held,
                "bot_playing": seat.bot_playing,
                "lag_ms": held[n].lag_ms if n in held else None,
                "drew": seat.drew,
            }
            for n, seat in enumerate(self.seats)
        ]

    def public(self) -> dict[str, Any]:
        """The public view: what the display and every phone see."""
        return public_view(
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
        view["you"] = None
        return view

    def _you(self, seat: int) -> dict[str, Any]:
        """The ``you`` part of the phone that holds ``seat``."""
        game = self.game
        if game is not None:
            bot_playing = self.seats[seat].bot_playing
            return private_view(game, seat, self.names, bot_playing=bot_playing)
        return {"seat": seat, "hand": [], "legal": [], "prompt": "", "bot_playing": False}

    def _changed(self, save: bool = False) -> None:
        """Something changed: saved first, with ``save`` (write ahead: a save
        that fails raises :class:`~engine.apps.table.durable.SaveFailed` before
        anything is queued), then each connection's view queued if it changed;
        then the server is told."""
        if save:
            decide_ahead(self.unit, self._pending_request())
            self.save()
        self._queue_views()
        self._notify()

    def _queue_views(self) -> None:
        """The public view is built once; each kind of connection's view (a
        display's, a phone's without a seat, each seat's) is encoded once and
        the one string queued for every connection of that kind that does not
        hold it already. A seat's own part is built again only when the game's
        position, the names or its bot changed (:class:`ViewTexts`)."""
        public = self.public()
        made: dict[tuple[str | None, int | None], str] = {}
        position = functools.cache(lambda: None if self.game is None else _notation(self.game))
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
        basis = (position(), tuple(self.names), self.seats[seat].bot_playing)
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
        return welcome

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

    # -- saving -----------------------------------------------------------------------

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
                    "ids": s.ids.to_dict(),
                }
                for s in self.seats
            ],
            # UNO Party!'s pointing choices under way are written (reveal=True):
            # the save file is the server's, never sent to a page.
            "notation": None if match is None else _notation(match.game),
            "reveal": self.reveal,
            # a simulated unit's verdict of the pending showdown, decided before it is shown
            "verdicts": saved_verdicts(self.unit, self._pending_request()),
            "showdowns": 0 if match is None else match.showdowns,
            "decisions": 0 if match is None else match.decisions,
            "log": list(self.log),
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
            seats = [
                Seat(
                    s["name"],
                    s["kind"],
                    s["secret"],
                    s["reaction_ms"],
                    bot_playing=s.get("bot_playing", False) is True and s["kind"] == "person",
                    ids=ActionIds.from_dict(s.get("ids")),
                )
                for s in data["seats"]
            ]
            if not _MIN_SEATS <= len(seats) <= MAX_PARTY_SEATS:
                raise ValueError(f"not a saved table: {len(seats)} seats (2 to 16)")
            bot_kind = data.get("bot", "heuristic")
            if bot_kind not in BOT_KINDS:
                raise ValueError(f"bot must be heuristic or random, not {bot_kind!r}")
            reaction_ms = check_reaction_ms(
                data.get("reaction_ms", DEFAULT_REACTION_MS), "the bots"
            )
            house: HouseRules | PartyRules = (
                PartyRules.parse(data.get("house_rules", "-"))
                if data.get("variant") == "party"
                else HouseRules.parse(data.get("house_rules", "-"))
            )
            host_key = data.get("host_key")
            if host_key is not None and not (isinstance(host_key, str) and host_key):
                raise ValueError(f"host_key must be a key, not {host_key!r}")
            notation = data["notation"]
            game = None if notation is None else read_game(notation)
            if game is not None and game.players != len(seats):
                raise ValueError(f"{len(seats)} seats for {game.players} players")
            self.seats = seats
            if host_key is not None:
                self.host_gate.key = host_key
            self._restore_away()
            self.match_id = match_id
            self.variant, self.target = data["variant"], data["target"]
            self.bot_kind, self.reaction_ms, self.house_rules = bot_kind, reaction_ms, house
            self.log = [str(line) for line in data["log"]]
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


def _notation(game: GameState) -> str:
    """The game's line for the save file, every hidden choice shown (UNO
    Party!'s pointing choices under way): the file is the server's alone."""
    return game.notation(reveal=True)


def new_match_id() -> str:
    """A fresh match id, ``m`` and 8 hex digits: two matches at one unit (one
    server, or a server restarted) never share a showdown id."""
    return f"m{secrets.token_hex(4)}"
