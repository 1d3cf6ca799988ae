"""The game room's state: its seats, its settings, its match, and the limits on them.

:class:`RoomState` is what :class:`engine.apps.table.room.Room` keeps, made in
one place (``__init__``) and read by each of the room's parts, mixins as
``lobby.LobbySeats`` is: the match it feeds (``room``), the phones' messages
(``room``), the host's commands (``room_host``), the views and the log
(``room_views``), the save file (``room_save``). A part calls another's method
through the declarations under ``TYPE_CHECKING`` (nothing at run time).
"""

from __future__ import annotations

import dataclasses
import random
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.apps.table import access
from engine.apps.table.access import HostGate, PeerLog, Tries
from engine.apps.table.action_ids import ActionIds
from engine.apps.table.hub import Connection, Hub, ViewTexts
from engine.apps.table.lobby import DEFAULT_SEAT_TIMEOUT_S
from engine.apps.table.match_book import MatchBook
from engine.apps.table.setup import VARIANTS, table_of
from engine.game.agents import DEFAULT_REACTION_MS, Agent
from engine.game.interface import GameState
from engine.match import Match
from engine.units.ports import ShowdownRequest, SimulatedUnit, UnitPort

__all__ = [
    "RoomState",
    "Seat",
    "VARIANTS",
    "HOST_PAUSED",
    "MIN_SEATS",
    "MAX_TABLE_SEATS",
    "new_match_id",
]

#: Why a phone's action is refused while the host has paused the game.
HOST_PAUSED = "the host paused the game: wait until the host resumes it"
#: The seats of a table: the most any game takes (UNO Party!: 16; each
#: variant's own range is its adapter's ``seat_range``).
MIN_SEATS, MAX_TABLE_SEATS = 2, max(table_of(v).seat_range(v)[1] for v in VARIANTS)


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
    back_after_showdown: bool = False  # taken back while a showdown was out: after its verdict
    bot_after_showdown: bool = False  # handed to a bot while a showdown was out: after its verdict
    drew: int = 0  # cards drawn by the latest draw, for the "+N" badge
    ids: ActionIds = dataclasses.field(default_factory=ActionIds)  # this match's, saved
    away_since: float | None = None  # a person's seat no phone holds: since when (clock)

    @property
    def by_bot(self) -> bool:
        """Whether a bot decides for this seat (a bot's, or handed to one)."""
        return self.kind == "bot" or self.bot_playing

    def played_by(self, bot: bool) -> None:
        """A bot decides for this seat (``bot``) or its person does, from now on:
        no hand-over waits for a showdown's verdict."""
        self.bot_playing, self.back_after_showdown, self.bot_after_showdown = bot, False, False


class RoomState(Hub):
    """What the room keeps (its arguments: see :class:`~engine.apps.table.room.Room`)."""

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
        if not MIN_SEATS <= seats <= MAX_TABLE_SEATS:
            raise ValueError(
                f"a table has {MIN_SEATS} to {MAX_TABLE_SEATS} seats (the most a game "
                f"takes), not {seats}"
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
        self._init_match()

    def _init_match(self) -> None:
        """The match's settings (their defaults) and its state: no match yet."""
        self.variant = "showdown"
        self.target = 500
        self.bot_kind = "heuristic"
        self.reaction_ms = DEFAULT_REACTION_MS
        #: The variant's house rules (its family's rules class: engine.uno.rules.HouseRules ...).
        self.house_rules: Any = table_of(self.variant).default_house_rules(self.variant)
        self.log: list[str] = []
        #: The cards each log line names (engine.apps.table.card_marks), by line.
        self.log_cards: dict[str, list[list[str]]] = {}
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
        #: Where finished matches are written for the league (``--results``), or None.
        self.match_book: MatchBook | None = None
        self._booked_match: str | None = None  # the match id last written there
        self.paused: str | None = None  # a unit problem: what happened, what to do
        self.host_paused = False  # the host's pause
        self._bot_rng: random.Random | None = None  # the random bots' (drawn when needed)
        self._views = ViewTexts()  # each kind of connection's view, encoded once a change
        #: Each seat's ``you`` part and what it was built from (the position, the
        #: names, its bot): built again only when one of those changed.
        self._yous: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}

    @property
    def game(self) -> Any:
        """The match's game (the game interface, engine.game.interface), or None."""
        return None if self.match is None else self.match.game

    @property
    def phase(self) -> str:
        game = self.game
        if game is None:
            return "lobby"
        if game.round_over and game.match_winner is not None:
            return "match_over"
        return game.phase.value

    @property
    def table(self) -> Any:
        """The table adapter of the variant being played (or chosen last): see ``setup``."""
        return table_of(self.variant)

    @property
    def names(self) -> list[str]:
        return [seat.name or f"seat{n}" for n, seat in enumerate(self.seats)]

    @property
    def host_key(self) -> str:
        """The host's key (saved with the room; ``new_host_key`` replaces it)."""
        return self.host_gate.key

    def _playing(self) -> Match[Any]:
        if self.match is None:
            raise RuntimeError("no match is being played")
        return self.match

    if TYPE_CHECKING:  # the other parts' (the checker's view; nothing at run time)

        def _add_log(self, line: str) -> None: ...
        def _changed(self, save: bool = False) -> None: ...
        def _welcome(self, conn: Connection, message: str | None = None) -> dict[str, Any]: ...
        def _begin(
            self, game: GameState, log: list[str], showdowns: int = 0, decisions: int = 0
        ) -> None: ...
        def _seat_bot(self, number: int) -> None: ...
        def _tell_people(self) -> None: ...
        def _pending_request(self) -> ShowdownRequest | None: ...
        def next_task(self) -> str | None: ...
        def next_round(self) -> None: ...


def new_match_id() -> str:
    """A fresh match id, ``m`` and 8 hex digits: two matches at one unit (one
    server, or a server restarted) never share a showdown id."""
    return f"m{secrets.token_hex(4)}"
