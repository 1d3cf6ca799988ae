"""The remote unit port: the game's showdowns fought on a real Showdown unit.

``RemoteUnit(url)`` is a unit port (``run_showdown(request) -> ShowdownOutcome``,
see :mod:`engine.units.ports`) that speaks the unit protocol over
``serial.serial_for_url``: a serial device (``/dev/ttyUSB0``, ``/dev/serial0``)
or a unit on the network (``socket://127.0.0.1:7700``).

For each showdown it arms the unit with the showdown's id, its card count and
the two players: **the challenger (who played the card) on side A, the opponent
on side B**. Then either it sends ``start`` (``start=True``: an engine that
drives the unit remotely) or it tells the table to press the timer button, and
waits for the unit's ``result`` event. The unit's loser side becomes the
player who takes the cards; the driver feeds that back to the game.

- Bots: a request's ``bots`` (the bots among the two players and their
  reaction medians) go to a unit whose ``hello`` lists the "bots" capability
  as the showdown's ``bots`` (side A the challenger, B the opponent): the unit
  presses those paddles itself, and with two bots it starts by itself, so
  nobody is asked to press anything. A unit without the capability gets no
  ``bots`` (it would refuse them) and the table hears once that bots cannot
  press on it.
- A false start is a loss for the offender. A near-tie that the unit re-runs
  is invisible to the game except in the outcome's ``tie_reruns`` and detail.
- What the table hears: the cards to load, once per showdown; one verdict
  line per result (a false start included; a jam's verdict comes with the
  pause instead); after a result with no loser, that the cards are still
  loaded and the showdown is armed again. A bot is marked ``(bot)`` by its time; a
  loser who never pressed "did not press".
- A link that cannot be opened is named by its cause with the next step
  (:class:`~engine.units.unit_link.ConnectFailure`: a bad URL, which is never
  retried, refused, unknown host, timed out, no device, no permission), and so
  is a token missing or refused and a version mismatch.
- The unit's id for a showdown is ``<id_prefix>-<request id>``: stable, so a
  re-arm after a reconnect uses the same id and the unit answers it from its
  journal instead of running it twice. ``id_prefix`` defaults to a fresh
  random tag per RemoteUnit, so two matches against one unit never share an id.
  When the unit reports no loser (nobody pressed in time, or a tie it voided),
  the showdown is armed again as ``<id>.1``, ``<id>.2``, ...
- The link drops mid-showdown: reconnect with backoff (``backoff_s``
  doubling up to ``max_backoff_s``, for at most ``reconnect_s``), then arm the
  same id again: the unit answers with the result if it has one, carries on if
  the showdown is still running, or arms it afresh if it never ran (a restarted
  unit). While waiting, a quiet link is checked every ``heartbeat_s`` with
  ``status``, so a lost event cannot strand the game.
- The unit records its decision before the cards fly. A result whose launch is
  ``"pending"`` (decided, the cards flying now) is not the end: the port waits
  for the ``result`` event. One that is ``"interrupted"`` (the unit stopped
  mid-launch) stands: the port returns it and tells the table to hand the
  loser the cards the unit did not throw.
- A unit that floods the link or answers out of shape is a lost link
  (:class:`~engine.units.unit_link.UnitFlooding`,
  :class:`~engine.units.unit_link.ProtocolViolation`): the port reconnects, and
  names the problem if it gives up.
- Player names are sent and compared as the unit keeps them
  (``clean_players``: NFC, white space collapsed); :func:`names_for_unit`
  checks a match's names before it starts.
- What the table must sort out is raised as a :class:`UnitProblem` with the
  URL, what happened and what to do: :class:`UnitUnreachable`,
  :class:`UnitBusy`, :class:`UnitVersionError`, :class:`UnitFault`,
  :class:`UnitJam`. :class:`PauseOnProblem` wraps a port so that the game
  pauses and asks the table to retry or to decide by hand. Retrying after a
  jam accepts the unit's verdict (the table was told to hand the cards over);
  retrying after a fault resets the unit (``cancel``) and fights again.

A ``table`` hook (used by the demo and the tests to play the mock paddles)
gets ``table.armed(link, request, unit_id)`` each time the unit is armed, before
the start, and ``table.event(link, event)`` for each event of the showdown;
``link.call(...)`` sends bench commands. ``say(text)`` receives lines for the
people at the table (``showdown play`` prints them), in the words of
:mod:`firmware_host.people.words` (the unit's own).
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

# The errors live with the engine's others; imported here, where they are raised.
from engine.game.errors import (
    UnitBusy,
    UnitFault,
    UnitJam,
    UnitProblem,
    UnitUnreachable,
    UnitVersionError,
)
from engine.units.ports import ShowdownOutcome, ShowdownRequest, UnitPort
from engine.units.unit_link import (
    SWITCHED_ON,
    AuthFailed,
    CommandRefused,
    ConnectFailure,
    LinkLost,
    Port,
    UnitLink,
    VersionMismatch,
)
from engine.units.unit_replies import WireData
from firmware_host.people.words import (
    NO_BOTS_TEXT,
    announce,
    interrupted_text,
    launch_problem,
    load_line,
    plural,
    rearmed_line,
    table_line,
    verdict,
    versus,
)
from firmware_host.protocol import (
    RUNNING_STATES,
    Event,
    EventGap,
    EventName,
    Reason,
    clean_name,
    clean_players,
)

__all__ = [
    "RemoteUnit",
    "Table",
    "PauseOnProblem",
    "is_unit_url",
    "names_for_unit",
    "UnitProblem",
    "UnitUnreachable",
    "UnitBusy",
    "UnitVersionError",
    "UnitFault",
    "UnitJam",
]

log = logging.getLogger(__name__)

_ID_PREFIX = re.compile(r"[A-Za-z0-9._:-]{1,40}")
_MAX_ID = 64


def is_unit_url(text: str) -> bool:
    """Whether ``--unit`` names a real unit: a pyserial URL or a device path.

    >>> [is_unit_url(t) for t in ("socket://127.0.0.1:7700", "/dev/serial0", "sim", "manual")]
    [True, True, False, False]
    """
    return "://" in text or text.startswith("/dev/")


def names_for_unit(names: Sequence[str]) -> list[str]:
    """The players' names as a unit keeps them (``clean_name``: NFC, runs of
    white space made one space). ValueError, naming the player by seat (from
    1), for a name the unit would refuse or two it would take for one person.

    >>> names_for_unit([" Zoe\\u0308  Smith", "Ann"])
    ['Zoë Smith', 'Ann']
    >>> names_for_unit(["Ann", "ANN"])
    Traceback (most recent call last):
    ...
    ValueError: the unit would take players 1 and 2 for the same person: "Ann" and "ANN" are one
    name to it (it ignores case, runs of spaces and Unicode forms)
    """
    cleaned = []
    for seat, name in enumerate(names, 1):
        try:
            cleaned.append(clean_name(name, "name"))
        except ValueError as exc:
            reason = str(exc).removeprefix("field 'name' ")
            raise ValueError(f"the unit would refuse player {seat}'s name: it {reason}") from None
    seen: dict[str, int] = {}
    for seat, name in enumerate(cleaned, 1):
        first = seen.setdefault(name.casefold(), seat)
        if first != seat:
            raise ValueError(
                f"the unit would take players {first} and {seat} for the same person: "
                f"{json.dumps(names[first - 1], ensure_ascii=False)} and "
                f"{json.dumps(names[seat - 1], ensure_ascii=False)} are one name to "
                "it (it ignores case, runs of spaces and Unicode forms)"
            )
    return cleaned


class Table(Protocol):
    """A hook for the people (or the simulation) at the unit."""

    def armed(self, link: UnitLink, request: ShowdownRequest, unit_id: str) -> None: ...

    def event(self, link: UnitLink, event: Event) -> None: ...


class RemoteUnit:
    """A unit port backed by a real unit at ``url``; see the module docstring.

    ``open()`` connects at once (a clear UnitProblem if it cannot);
    ``run_showdown`` connects when needed. ``unit_ids`` maps each request's
    showdown id to the unit's id of the result that decided it.
    """

    def __init__(
        self,
        url: str,
        *,
        start: bool = False,
        table: Table | None = None,
        say: Callable[[str], None] | None = None,
        id_prefix: str | None = None,
        token: str | None = None,
        baudrate: int = 115200,
        reply_timeout_s: float = 5.0,
        heartbeat_s: float = 1.0,
        reconnect_s: float = 60.0,
        backoff_s: float = 0.05,
        max_backoff_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        open_port: Callable[..., Port] | None = None,
    ):
        if id_prefix is None:
            id_prefix = secrets.token_hex(4)
        if not _ID_PREFIX.fullmatch(id_prefix):
            raise ValueError(
                f"id_prefix must be 1 to 40 characters of A-Z a-z 0-9 . _ : -, not {id_prefix!r}"
            )
        self.url = url
        self.start = start
        self.table = table
        self.say = say
        self.id_prefix = id_prefix
        self.heartbeat_s = heartbeat_s
        self.reconnect_s = reconnect_s
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.clock = clock
        self.sleep = sleep
        # UnitLink's keyword arguments, of mixed types.
        self._link_options: dict[str, Any] = dict(
            baudrate=baudrate,
            token=token,
            reply_timeout_s=reply_timeout_s,
            clock=clock,
            sleep=sleep,
            open_port=open_port,
        )
        self._link: UnitLink | None = None
        self._failure: ConnectFailure | None = None  # why the last link would not open
        self._accepted: set[str] = set()  # unit ids whose launch problem the table was told
        self._fault_told = False
        self._no_bots_told = False  # the table heard that this unit cannot press for bots
        self._loaded: str | None = None  # the request whose cards the table was told to load
        self.unit_ids: dict[str, str] = {}
        #: (what, clock time) of the last showdown fought: "arm" (sent), "armed" and
        #: "start" (their replies), then each event's name and when it was read
        #: off the link ("countdown", "go", ..., "result").
        self.timeline: list[tuple[str, float]] = []
        self.hello: WireData | None = None

    def __repr__(self) -> str:
        return f"RemoteUnit({self.url!r})"

    # -- the link ------------------------------------------------------------------

    def open(self) -> RemoteUnit:
        """Connect now, and check the unit is ready for a showdown. Raises
        UnitUnreachable, UnitVersionError, UnitBusy or UnitFault."""
        try:
            link = self.link()
            status = link.call("status")
        except LinkLost as exc:
            self._drop_link()
            raise self.unreachable(exc) from None
        except CommandRefused as exc:
            raise UnitProblem(
                f"the unit at {self.url} refused status: {exc.message}",
                url=self.url,
                what_to_do="Check the unit's log.",
            ) from None
        if status["state"] == "fault":
            raise UnitFault(
                f"the unit at {self.url} is in fault: {status['fault']}",
                url=self.url,
                what_to_do="Fix the unit (see its log), then start again.",
            )
        if status["state"] not in ("idle", "armed"):
            current = status.get("showdown") or {}
            raise UnitBusy(
                f"the unit at {self.url} is busy: {status['state']}, showdown "
                f"{current.get('showdown_id')}",
                url=self.url,
                what_to_do="Let that showdown finish, or cancel it on the unit.",
            )
        return self

    def close(self) -> None:
        self._drop_link()

    def __enter__(self) -> RemoteUnit:
        return self.open()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def link(self) -> UnitLink:
        """The open link to the unit, opened first if it is not (hello, token,
        version): LinkLost if it cannot be (see :meth:`unreachable`), a
        UnitProblem for a token refused or no common version."""
        if self._link is not None and self._link.is_open:
            return self._link
        link = UnitLink(self.url, **self._link_options)
        try:
            self.hello = link.open()
            self._failure = None
        except LinkLost:
            self._failure = link.failure  # None: it opened, then did not answer
            raise
        except VersionMismatch as exc:
            raise UnitVersionError(
                str(exc),
                url=self.url,
                what_to_do=(
                    "Use an engine and a unit that speak a common protocol version: "
                    "update the older of the two."
                ),
            ) from None
        except AuthFailed as exc:
            if self._link_options["token"] is None:
                what_to_do = (
                    "Give the engine the unit's token: --token-file FILE, where FILE holds "
                    "the token of the unit's server.token_file (on a Pi, "
                    "/etc/uno-showdown/token)."
                )
            else:
                what_to_do = (
                    "Check the token: the file given with --token-file must hold the same "
                    "token as the unit's server.token_file (on a Pi, "
                    "/etc/uno-showdown/token)."
                )
            raise UnitProblem(str(exc), url=self.url, what_to_do=what_to_do) from None
        self._link = link
        return link

    @property
    def cannot_connect(self) -> bool:
        """Whether the last link would not open for a reason no retry mends (a bad URL)."""
        return self._failure is not None and self._failure.permanent

    def _drop_link(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            link.close()

    def unreachable(self, exc: Exception) -> UnitUnreachable:
        """The link could not be (re)opened or kept: its cause and the next step
        (a link that opened and then failed: the unit may be off, or the line)."""
        if self._failure is not None:
            what_to_do = self._failure.what_to_do
        else:
            what_to_do = f"{SWITCHED_ON}, and the cable or network, then retry."
        return UnitUnreachable(
            f"cannot reach the unit at {self.url}: {exc}", url=self.url, what_to_do=what_to_do
        )

    # -- a showdown ----------------------------------------------------------------

    def unit_id(self, request: ShowdownRequest, attempt: int = 0) -> str:
        """The unit's id for ``request``'s ``attempt``-th arming (0 first)."""
        unit_id = f"{self.id_prefix}-{request.showdown_id}" + (f".{attempt}" if attempt else "")
        if len(unit_id) > _MAX_ID:
            raise ValueError(f"showdown id {unit_id!r} is longer than {_MAX_ID} characters")
        return unit_id

    def run_showdown(self, request: ShowdownRequest) -> ShowdownOutcome:
        voided = []
        attempt = 0
        while True:
            unit_id = self.unit_id(request, attempt)
            result, fresh = self._fight(request, unit_id)
            if result["launch"] == "interrupted":  # the table never heard the verdict
                self._tell(f"{verdict(result)}.")  # who takes what follows
            elif fresh and result["launch"] in ("launched", "none"):
                self._tell(announce(result))
            # (a jam, a fault or a cancel during the launch: the UnitJam says the verdict)
            if result["loser"] is None:  # timeout or void tie: the game needs a loser
                log.info("showdown %s: %s; arming it again", unit_id, result["reason"])
                voided.append(result)
                attempt += 1
                continue
            self._check_launch(request, unit_id, result)
            self.unit_ids[request.showdown_id] = unit_id
            return self._outcome(request, unit_id, result, voided)

    # -- bots ----------------------------------------------------------------------

    @property
    def presses_for_bots(self) -> bool:
        """Whether the unit presses a bot's paddle itself (its hello lists "bots")."""
        return self.hello is not None and "bots" in self.hello.get("capabilities", ())

    def bot_sides(self, request: ShowdownRequest) -> dict[str, float]:
        """The sides the unit presses for (side -> the bot's reaction median in
        ms): the bots among the request's two players, if the unit can."""
        if not self.presses_for_bots:
            return {}
        sides = {"a": request.challenger, "b": request.opponent}
        return {side: request.bots[p] for side, p in sides.items() if p in request.bots}

    def _showdown_args(self, request: ShowdownRequest, unit_id: str) -> WireData:
        args = {"showdown_id": unit_id, "cards": request.cards, "players": self._players(request)}
        bots = self.bot_sides(request)
        if bots:
            args["bots"] = {side: {"reaction_ms": median} for side, median in bots.items()}
        elif request.bots and not self._no_bots_told:
            self._no_bots_told = True
            self._tell(NO_BOTS_TEXT)
        return args

    def _fight(self, request: ShowdownRequest, unit_id: str) -> tuple[WireData, bool]:
        """The unit's result for ``unit_id`` (and whether it was fought just
        now), across link drops."""
        backoff = self.backoff_s
        give_up = None
        while True:
            try:
                return self._arm_and_wait(self.link(), request, unit_id)
            except LinkLost as exc:
                self._drop_link()
                if self._failure is not None and self._failure.permanent:
                    raise self.unreachable(exc) from None  # a bad URL: no retry helps
                now = self.clock()
                if give_up is None:
                    give_up = now + self.reconnect_s
                    log.warning(
                        "showdown %s: lost the link to %s (%s); reconnecting",
                        unit_id,
                        self.url,
                        exc,
                    )
                    self._tell(f"Lost the link to the unit ({exc}): reconnecting...")
                if now >= give_up:
                    raise self.unreachable(exc) from None
                self.sleep(backoff)
                backoff = min(backoff * 2, self.max_backoff_s)

    def _players(self, request: ShowdownRequest) -> dict[str, str]:
        """The two names as the unit keeps them (see :func:`names_for_unit`)."""
        try:
            return clean_players({"a": request.challenger_name, "b": request.opponent_name})
        except ValueError as exc:
            raise UnitProblem(
                f"the unit at {self.url} cannot take this showdown's names: {exc}",
                url=self.url,
                what_to_do="Decide this showdown by hand.",
            ) from None

    def _arm_and_wait(
        self, link: UnitLink, request: ShowdownRequest, unit_id: str
    ) -> tuple[WireData, bool]:
        args = self._showdown_args(request, unit_id)
        while True:
            self.timeline = [("arm", self.clock())]
            try:
                status = link.call("showdown", **args)
            except CommandRefused as exc:
                self._refused(link, exc)
                continue  # the unit was reset: arm again
            self.timeline.append(("armed", self.clock()))
            if status["state"] == "done":
                journal = self._same_showdown(request, unit_id, status["result"])
                if journal["launch"] != "pending":
                    log.info("showdown %s: the unit already has its result", unit_id)
                    return journal, False
                log.info(
                    "showdown %s: decided, the cards are flying: waiting for the result", unit_id
                )
            elif status["state"] == "armed":
                self._begin(link, request, unit_id)
            result = self._wait_for_result(link, request, unit_id)
            if result is not None:
                return result, True
            log.warning(
                "showdown %s vanished from the unit without a result: arming it again", unit_id
            )

    def _refused(self, link: UnitLink, exc: CommandRefused) -> None:
        """Arming was refused: reset a fault the table has seen, else raise."""
        if exc.code == "busy":
            raise UnitBusy(
                f"the unit at {self.url} is busy with another showdown: {exc.message}",
                url=self.url,
                what_to_do=("Let that showdown finish, or cancel it on the unit, then retry."),
            )
        if exc.code == "fault":
            if self._fault_told:
                self._fault_told = False
                try:
                    link.call("cancel")  # the table says it is fixed: reset the unit
                    return
                except CommandRefused as again:
                    exc = again
            self._fault_told = True
            raise UnitFault(
                f"the unit at {self.url} is in fault: {exc.message}",
                url=self.url,
                what_to_do=(
                    "Fix the unit (see its log: wiring, motor, card sensor), "
                    "then retry: the unit is reset and the showdown runs "
                    "again."
                ),
            )
        raise UnitProblem(
            f"the unit at {self.url} refused the showdown: {exc.code}: {exc.message}",
            url=self.url,
            what_to_do="Decide this showdown by hand.",
        )

    def _same_showdown(self, request: ShowdownRequest, unit_id: str, result: WireData) -> WireData:
        """A journal answer must be this showdown, not an old one under the same id."""
        players = self._players(request)
        if result["players"] != players or result["cards"] != request.cards:
            raise UnitProblem(
                f"the unit's journal already holds a different showdown {unit_id!r} "
                f"({versus(result['players']['a'], result['players']['b'])}, "
                f"{plural(result['cards'], 'card')})",
                url=self.url,
                what_to_do="Use another id_prefix for this match, or decide by hand.",
            )
        return result

    def _begin(self, link: UnitLink, request: ShowdownRequest, unit_id: str) -> None:
        bots = self.bot_sides(request)
        starts_itself = len(bots) == 2  # two bots: the unit starts once armed
        starts = "unit" if starts_itself else "engine" if self.start else "table"
        if self._loaded != request.showdown_id:  # the cards go in once per showdown
            self._loaded = request.showdown_id
            self._tell(load_line(request.cards, self._names(request), starts=starts, bots=bots))
        else:
            self._tell(rearmed_line(starts))
        if self.table is not None:
            self.table.armed(link, request, unit_id)
        if self.start and not starts_itself:
            try:
                link.call("start")
            except CommandRefused as exc:
                if exc.code not in ("paddle_held", "busy"):  # busy: it started already
                    raise UnitProblem(
                        f"the unit at {self.url} would not start: {exc.message}",
                        url=self.url,
                        what_to_do=("Press the timer button on the unit, or retry."),
                    ) from None
                log.info("start: %s", exc)
            self.timeline.append(("start", self.clock()))

    def _wait_for_result(
        self, link: UnitLink, request: ShowdownRequest, unit_id: str
    ) -> WireData | None:
        """The final result event (or the journal's answer after a gap); None if
        the showdown vanished from the unit (re-arm it). A result whose launch
        is still pending is not final: the wait goes on."""
        while True:
            item = link.next_event(self.heartbeat_s)
            if item is None or isinstance(item, EventGap):
                if isinstance(item, EventGap):
                    log.info(
                        "events %d to %d were lost: asking the unit",
                        item.expected,
                        item.received - 1,
                    )
                found, result = self._check_in(link, unit_id)
                if found:
                    return result
                continue
            showdown_id = item.data.get("showdown_id")
            if showdown_id is not None and showdown_id != unit_id:
                if item.name == "armed":
                    raise UnitBusy(
                        f"another client armed showdown {showdown_id} on the unit at {self.url}",
                        url=self.url,
                        what_to_do=("Let that showdown finish, or cancel it, then retry."),
                    )
                continue
            if link.last_arrival is not None:  # always: next_event sets it with each item
                self.timeline.append((item.name, link.last_arrival))
            if self.table is not None:
                self.table.event(link, item)
            if item.name == "result":
                if item.data["launch"] != "pending":
                    return dict(item.data)
                continue
            if item.name == "cancelled":
                raise UnitProblem(
                    f"showdown {unit_id} was cancelled on the unit",
                    url=self.url,
                    what_to_do="Retry to run it again, or decide by hand.",
                )
            if item.name == "fault":
                result = self._after_fault(link, unit_id, item.data.get("reason"))
                if result is not None:
                    return result
                continue  # the unit's final word on the launch follows
            if item.name == EventName.FALSE_START:
                continue  # said once, with the verdict
            if item.name == EventName.LAUNCHED and item.data["outcome"] == "jam":
                continue  # said once, when the game pauses (UnitJam)
            said = table_line(item.name, item.data, self._names(request))
            if said is not None:
                self._tell(said)

    def _after_fault(self, link: UnitLink, unit_id: str, reason: object) -> WireData | None:
        """A fault event: the unit's result if it is final; None if the unit's
        final word on the launch follows; UnitFault if it has no result."""
        result = self._fetch(link, unit_id)
        if result is not None and result["launch"] != "pending":
            return result
        if result is not None:
            return None
        self._fault_told = True
        raise UnitFault(
            f"the unit at {self.url} reports a fault: {reason}",
            url=self.url,
            what_to_do=(
                "Fix the unit (see its log), then retry: the unit is reset "
                "and the showdown runs again."
            ),
        )

    def _check_in(self, link: UnitLink, unit_id: str) -> tuple[bool, WireData | None]:
        """After silence or lost events: (True, result) if the unit has one,
        (False, None) while the showdown is still on, (True, None) if it vanished.

        A pending result is still on while the unit runs a showdown: its
        ``result`` event follows. A unit that is done running and still has it
        pending never recorded how the launch ended: that is the answer."""
        status = link.call("status")
        current = status["showdown"]
        if current is not None and current["showdown_id"] == unit_id:
            return False, None
        result = self._fetch(link, unit_id)
        if result is not None:
            if result["launch"] == "pending" and status["state"] in RUNNING_STATES:
                return False, None
            return True, result
        if current is not None:
            raise UnitBusy(
                f"the unit at {self.url} is running showdown "
                f"{current['showdown_id']}, not {unit_id}",
                url=self.url,
                what_to_do="Let that showdown finish, or cancel it, then retry.",
            )
        if status["state"] == "fault":
            self._fault_told = True
            raise UnitFault(
                f"the unit at {self.url} is in fault: {status['fault']}",
                url=self.url,
                what_to_do=(
                    "Fix the unit (see its log), then retry: the unit is reset and "
                    "the showdown runs again."
                ),
            )
        return True, None

    def _fetch(self, link: UnitLink, unit_id: str) -> WireData | None:
        try:
            result: WireData | None = link.call("result", showdown_id=unit_id)["result"]
            return result
        except CommandRefused as exc:
            if exc.code == "unknown_showdown":
                return None
            raise UnitProblem(
                f"the unit at {self.url} would not give the result of {unit_id}: {exc.message}",
                url=self.url,
                what_to_do="Retry, or decide by hand.",
            ) from None

    def _check_launch(self, request: ShowdownRequest, unit_id: str, result: WireData) -> None:
        """A decided showdown whose cards did not all fly: tell the table once.
        An interrupted launch stands (the unit is gone or back, not jammed): the
        table hands over the rest. Anything else pauses the game (UnitJam)."""
        launch = result["launch"]
        if launch in ("launched", "none") or unit_id in self._accepted:
            return
        self._accepted.add(unit_id)
        loser = request.challenger if result["loser"] == "a" else request.opponent
        name = request.name(loser)
        counted = result["cards_counted"]
        if launch == "interrupted":
            self._tell(interrupted_text(name, result["cards"], counted))
            return
        out = "" if counted is None else f" ({counted} of {result['cards']} counted)"
        raise UnitJam(
            f"{launch_problem(launch)}{out}: {verdict(result)}; {name} takes "
            f"{plural(result['cards'], 'card')}",
            url=self.url,
            loser=loser,
            what_to_do=(
                f"Clear the launcher and give {name} the cards still in the unit, "
                f"then retry to go on with the unit's verdict ({name} takes the "
                "cards), or decide by hand."
            ),
        )

    def _outcome(
        self, request: ShowdownRequest, unit_id: str, result: WireData, voided: list[WireData]
    ) -> ShowdownOutcome:
        player = {"a": request.challenger, "b": request.opponent}
        reruns = result["tie_reruns"] + sum(
            r["tie_reruns"] + (r["reason"] == Reason.TIE_VOID) for r in voided
        )
        detail = f"{verdict(result)} (unit showdown {unit_id}"
        if voided:
            detail += ", after " + ", ".join(r["reason"] for r in voided)
        if result["launch"] == "interrupted":
            detail += ", launch interrupted"
        return ShowdownOutcome(
            loser=player[result["loser"]],
            winner=player[result["winner"]],
            reason=Reason(result["reason"]),  # the wire's text, checked by unit_replies
            reaction_us={player[side]: result["reaction_us"][side] for side in "ab"},
            margin_us=result["margin_us"],
            tie_reruns=reruns,
            detail=detail + ")",
        )

    # -- words for the table (firmware_host.people.words writes them) ---------------

    def _tell(self, text: str) -> None:
        if self.say is not None:
            self.say(text)

    @staticmethod
    def _names(request: ShowdownRequest) -> dict[str, str]:
        return {"a": request.challenger_name, "b": request.opponent_name}


class PauseOnProblem:
    """A unit port that pauses the game on a UnitProblem: it says what
    happened and what the table must do, then asks: ``r`` retries the
    showdown (the same id, so nothing runs twice), or a player's name or
    number says who takes the cards."""

    def __init__(
        self,
        port: UnitPort,
        input_fn: Callable[[str], str] = input,
        output_fn: Callable[[str], None] = print,
    ):
        self.port = port
        self.input_fn = input_fn
        self.output_fn = output_fn

    def __repr__(self) -> str:
        return f"PauseOnProblem({self.port!r})"

    def run_showdown(self, request: ShowdownRequest) -> ShowdownOutcome:
        while True:
            try:
                return self.port.run_showdown(request)
            except UnitProblem as problem:
                self.output_fn(f"The game is paused: {problem}.")
                self.output_fn(f"What to do: {problem.what_to_do}")
                loser = self._ask(request)
                if loser is not None:
                    return ShowdownOutcome(
                        loser,
                        request.other(loser),
                        Reason.FASTER,
                        dict.fromkeys(request.players),
                        detail=f"decided by hand after: {problem}",
                    )

    def _ask(self, request: ShowdownRequest) -> int | None:
        """None to retry, else the loser typed."""
        c, o = request.challenger_name, request.opponent_name
        while True:
            answer = self.input_fn(f"Type r to retry, or who takes the cards ({c}/{o}): ").strip()
            if answer.casefold() in ("r", "retry"):
                return None
            for player in request.players:
                if answer.casefold() == request.name(player).casefold():
                    return player
            self.output_fn(
                f"{answer!r} is neither r nor {c} or {o}: type r to retry, or the name of "
                "who takes the cards."
            )
