"""The unit port that fights each showdown on the two players' phones (``--unit phones``).

:class:`PhonePaddles` runs in the table's worker thread (``run_showdown``
blocks there, never the event loop). Each round it names a GO instant in the
server's clock (``go_instant``: a countdown and a seeded hold, as the unit's)
and hands the table a message for the display and the phones through
``send`` (the glue: called from the worker thread, so it must hand over to
the loop thread-safely, e.g. ``loop.call_soon_threadsafe``)::

    {"type": "paddle_round", "showdown_id", "round", "players", "names", "cards", "bots",
     "start_ms", "go_ms", "steps", "timeout_ms"}

Each person's phone shows the countdown and GO at ``go_ms`` by its clock
offset (static/clock.js) and answers, through the room, with
:meth:`PhonePaddles.report` (thread-safe: called on the loop)::

    {"type": "paddle_tap", "showdown_id", "round",
     "reaction_ms": float | null, "uncertainty_ms": float}

A bot presses as the unit's virtual paddle does (``bot_tap``). The rules are
``engine.units.phone_paddles``; each round's end goes out as a
``paddle_result`` message. A phone that has not answered by GO + the timeout
+ ``grace_s`` is missing: ``ask_host(request, missing)`` decides (``"bot"``: a
bot presses for them from now on; a player's index: that player loses, by
hand). With no ``ask_host`` (the table's wiring) the port raises UnitProblem,
which pauses the game and says so, with :attr:`PhonePaddles.missing` named;
the host then chooses (``room_host``): fight again, "X loses this one", or
:meth:`PhonePaddles.stand_in` (a bot presses for X in this showdown). It never
waits for ever and never invents a reaction: a stand-in's press decides the
showdown but is no reaction of X's (None in the outcome, said in its detail).
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from engine.game.errors import UnitProblem
from engine.units.phone_paddles import (
    DEFAULT_TIMEOUT_US,
    PhoneShowdown,
    RoundResult,
    Tap,
    bot_tap,
    go_instant,
)
from engine.units.ports import ShowdownOutcome, ShowdownRequest
from firmware_host.people.reactions import HUMAN, Reactions

__all__ = ["PhonePaddles", "STAND_IN_MEDIAN_MS"]

#: How fast a bot standing in for a missing phone presses (the model's median person).
STAND_IN_MEDIAN_MS = HUMAN.median_ms

AskHost = Callable[[ShowdownRequest, tuple[int, ...]], "str | int"]


class PhonePaddles:
    """Showdowns fought on the players' phones; see the module's text."""

    def __init__(
        self,
        send: Callable[[dict[str, Any]], None],
        *,
        pace_rng: random.Random,
        bot_rng: random.Random,
        clock: Callable[[], float] = time.monotonic,
        reactions: Reactions = HUMAN,
        ask_host: AskHost | None = None,
        lead_s: float = 1.0,
        step_s: float = 1.0,
        hold_s: tuple[float, float] = (0.5, 2.5),
        timeout_us: int = DEFAULT_TIMEOUT_US,
        grace_s: float = 2.0,
        max_reruns: int = 3,
    ):
        self.send = send
        self.pace_rng = pace_rng
        self.bot_rng = bot_rng
        self.clock = clock
        self.reactions = reactions
        self.ask_host = ask_host
        self.lead_s = lead_s
        self.step_s = step_s
        self.hold_s = hold_s
        self.timeout_us = timeout_us
        self.grace_s = grace_s
        self.max_reruns = max_reruns
        self._lock = threading.Condition()
        self._round: tuple[str, int] | None = None  # the round the phones answer
        #: The last round number each recent showdown used: a showdown fought again after
        #: a pause goes on counting, so a late tap of an earlier attempt cannot count.
        self._last_round: dict[str, int] = {}
        self._reports: dict[int, Tap] = {}
        self._people: tuple[int, ...] = ()
        #: The players whose phones did not answer in the showdown that paused the game.
        self.missing: tuple[int, ...] = ()
        self._stand_ins: set[int] = set()  # the host's choice: a bot presses for them

    def stand_in(self, player: int) -> None:
        """The host's choice: a bot presses for ``player`` when the showdown is
        fought again (this showdown only). Thread-safe: called on the loop."""
        with self._lock:
            self._stand_ins.add(player)

    def report(self, player: int, message: dict[str, Any]) -> str | None:
        """A phone's ``paddle_tap`` for ``player`` (its seat); why it is refused, or None."""
        with self._lock:
            if self._round != (message.get("showdown_id"), message.get("round")):
                return "that showdown round is over"
            if player not in self._people:
                return "you are not in this showdown"
            reaction = message.get("reaction_ms")
            uncertainty = message.get("uncertainty_ms")
            if reaction is not None and not _number(reaction):
                return "reaction_ms must be a number or null"
            if not isinstance(uncertainty, (int, float)) or not _number(uncertainty):
                return "uncertainty_ms must be a number >= 0"
            if uncertainty < 0:
                return "uncertainty_ms must be a number >= 0"
            us = None if reaction is None else round(reaction * 1000)
            self._reports.setdefault(player, Tap(us, round(uncertainty * 1000)))
            self._lock.notify_all()
        return None

    def run_showdown(self, request: ShowdownRequest) -> ShowdownOutcome:
        with self._lock:
            stood_in = {
                p for p in self._stand_ins if p in request.players and p not in request.bots
            }
            self._stand_ins, self.missing = set(), ()
        outcome = self._fight(request, stood_in)
        if not stood_in:
            return outcome
        # a stand-in's press is no reaction of the person's: not theirs in the outcome
        names = " and ".join(request.name(p) for p in sorted(stood_in))
        return dataclasses.replace(
            outcome,
            reaction_us={p: None if p in stood_in else us for p, us in outcome.reaction_us.items()},
            margin_us=None,
            detail=f"{outcome.detail} (a bot pressed for {names})",
        )

    def _fight(self, request: ShowdownRequest, stood_in: set[int]) -> ShowdownOutcome:
        fight = PhoneShowdown(request, timeout_us=self.timeout_us, max_reruns=self.max_reruns)
        bots = dict(request.bots) | dict.fromkeys(stood_in, STAND_IN_MEDIAN_MS)
        number = self._last_round.pop(request.showdown_id, 0)
        while True:
            number += 1
            self._last_round[request.showdown_id] = number
            while len(self._last_round) > 16:  # only the newest showdowns are ever fought again
                del self._last_round[next(iter(self._last_round))]
            people = tuple(p for p in request.players if p not in bots)
            taps: dict[int, Tap | None] = {
                p: bot_tap(median, self.bot_rng, self.reactions) for p, median in bots.items()
            }
            taps.update(self._fight_round(request, number, people, bots))
            result = fight.record(taps)
            self.send(_result_message(request, number, result))
            if fight.outcome is not None:
                return fight.outcome
            if result.kind != "missing":
                continue
            choice = self._ask(request, result.missing)
            if choice == "bot":
                bots.update(dict.fromkeys(result.missing, STAND_IN_MEDIAN_MS))
                stood_in.update(result.missing)
            elif isinstance(choice, int) and choice in request.players:
                return fight.decide_by_hand(choice)
            else:
                raise ValueError(f"the host's choice must be 'bot' or a player, not {choice!r}")

    def _fight_round(
        self, request: ShowdownRequest, number: int, people: tuple[int, ...], bots: dict
    ) -> dict[int, Tap | None]:
        """One round on the people's phones: their reports, None for a phone that never answered."""
        if not people:  # only bots: no phone, they press
            return {}
        start, go = go_instant(
            self.clock(),
            self.pace_rng,
            lead_s=self.lead_s,
            step_s=self.step_s,
            hold_min_s=self.hold_s[0],
            hold_max_s=self.hold_s[1],
        )
        deadline = go + self.timeout_us / 1e6 + self.grace_s
        with self._lock:
            self._round, self._people, self._reports = (request.showdown_id, number), people, {}
        self.send(
            {
                "type": "paddle_round",
                "showdown_id": request.showdown_id,
                "round": number,
                "players": list(request.players),
                "names": [request.name(p) for p in request.players],
                "cards": request.cards,
                "bots": sorted(bots),
                "start_ms": start * 1000,
                "go_ms": go * 1000,
                "steps": 3,
                "timeout_ms": self.timeout_us / 1000,
            }
        )
        with self._lock:
            while len(self._reports) < len(people):
                left = deadline - self.clock()
                if left <= 0:
                    break
                self._lock.wait(left)
            reports, self._round = dict(self._reports), None
        return {p: reports.get(p) for p in people}

    def _ask(self, request: ShowdownRequest, missing: tuple[int, ...]) -> str | int:
        names = " and ".join(request.name(p) for p in missing)
        if self.ask_host is None:
            with self._lock:
                self.missing = missing
            raise UnitProblem(
                f"{names}'s phone did not answer in the showdown",
                url="phones",
                what_to_do=f"the host chooses: bring {names}'s phone back and fight again,"
                f" a bot presses for {names}, or {names} loses this one",
            )
        return self.ask_host(request, missing)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _result_message(request: ShowdownRequest, number: int, result: RoundResult) -> dict[str, Any]:
    return {
        "type": "paddle_result",
        "showdown_id": request.showdown_id,
        "round": number,
        "kind": result.kind,
        "loser": result.loser,
        "reason": None if result.reason is None else str(result.reason),
        "reaction_us": {str(p): us for p, us in result.reaction_us.items()},
        "gap_us": result.gap_us,
        "missing": list(result.missing),
    }
