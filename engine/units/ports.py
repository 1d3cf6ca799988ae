"""Unit ports: where a game's showdowns are fought.

A showdown stops the game (``game.pending_showdown``) until someone says who
lost. The driver asks a *unit port*, which has one method::

    port.run_showdown(request: ShowdownRequest) -> ShowdownOutcome

and feeds the outcome's loser back to the game. Three ports exist:

``SimulatedUnit``  seeded people at the unit (the reaction model every
                   simulation shares, ``firmware_host.people.reactions``):
                   false starts and near-ties, for bots, tests and benchmarks.
                   It keeps the verdicts it decided by showdown id, as a
                   unit's journal does (``decide_ahead``, ``verdict_data``,
                   ``remember``): the table decides one ahead and saves it
                   with the match, and a resumed table fights it the same;
``ManualUnit``     a person at the table types how it ended (a real unit that
                   is not connected, or a showdown fought by hand): who won,
                   a false start, a tie or nobody pressing (fought again);
``RemoteUnit``     (``engine.units.remote``) a real unit over its protocol
                   (``firmware_host.protocol`` through ``serial.serial_for_url``:
                   a device path or ``socket://host:port``). Side ``a`` is the
                   challenger, ``b`` the opponent; a lost link is reconnected
                   and the same showdown id armed again, so the unit answers
                   from its journal and never fights a showdown twice; a
                   ``timeout`` or ``tie_void`` is armed again under a new id
                   (the game needs a loser). ``engine.units.remote.PauseOnProblem``
                   wraps a port so that a unit problem (a jam, a fault, no
                   link) pauses the game and asks the table what to do.

>>> unit = SimulatedUnit(random.Random(5))
>>> outcome = unit.run_showdown(ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "Bob", 2))
>>> outcome.loser in (0, 2), outcome.winner == 2 - outcome.loser, outcome.reason
(True, True, 'faster')
"""

from __future__ import annotations

import collections
import dataclasses
import random
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol

from firmware_host.people.reactions import HUMAN, Reactions
from firmware_host.people.words import again_line, apart, ms, plural, reruns_text, versus
from firmware_host.protocol import Reason

__all__ = [
    "ShowdownRequest",
    "ShowdownOutcome",
    "Verdict",
    "UnitPort",
    "SimulatedUnit",
    "ManualUnit",
    "REASONS",
]

#: Why the loser lost: slower after GO, or pressed before it (the protocol's
#: reasons that decide a showdown; the unit's others, a timeout and a void tie,
#: never reach the engine as an outcome: they are fought again).
REASONS: tuple[Reason, ...] = tuple(reason for reason in Reason if reason.decides)
#: The verdicts a simulated unit keeps (the newest), as a unit's journal keeps them.
MAX_VERDICTS = 16


@dataclasses.dataclass(frozen=True)
class ShowdownRequest:
    """One showdown to fight: its id (unique in the match, valid as a protocol
    showdown id), the two players' indices and names, and the cards at stake.

    ``bots`` maps each of the two players who is a bot (not a person) to the
    median of its reaction time after GO, in milliseconds: a unit that can
    press a paddle for a bot does so with that skill; people are not in it.
    """

    showdown_id: str
    challenger: int
    opponent: int
    challenger_name: str
    opponent_name: str
    cards: int
    bots: Mapping[int, float] = dataclasses.field(default_factory=dict)

    @property
    def players(self) -> tuple[int, int]:
        return (self.challenger, self.opponent)

    def name(self, player: int) -> str:
        return self.challenger_name if player == self.challenger else self.opponent_name

    def other(self, player: int) -> int:
        return self.opponent if player == self.challenger else self.challenger


@dataclasses.dataclass(frozen=True)
class ShowdownOutcome:
    """How a showdown ended.

    ``reason`` is one of REASONS, the protocol's :class:`Reason` (``faster``:
    the loser pressed later; ``false_start``: the loser pressed before GO; its
    text is taken too, and made the member). ``reaction_us`` maps each of the
    two players to their reaction time after GO in microseconds, None if not
    measured (a false start, a manual result). ``margin_us`` is the gap between
    the two presses (None unless both were measured), ``tie_reruns`` how many
    near-ties were fought again before this result, ``detail`` a line for logs.
    """

    loser: int
    winner: int
    reason: Reason
    reaction_us: Mapping[int, int | None]
    margin_us: int | None = None
    tie_reruns: int = 0
    detail: str = ""

    def __post_init__(self) -> None:
        if self.reason not in REASONS:
            raise ValueError(f"reason must be one of {', '.join(REASONS)}, not {self.reason!r}")
        object.__setattr__(self, "reason", Reason(self.reason))  # the member, given its text
        if self.loser == self.winner:
            raise ValueError(f"the loser and the winner are both player {self.loser}")
        object.__setattr__(self, "reaction_us", dict(self.reaction_us))

    def check(self, request: ShowdownRequest) -> None:
        """Raise ValueError unless this outcome is between the request's two players."""
        if {self.loser, self.winner} != set(request.players):
            raise ValueError(
                f"showdown {request.showdown_id} was player "
                f"{versus(str(request.challenger), str(request.opponent))}, "
                f"but the outcome says {self.winner} beat {self.loser}"
            )


@dataclasses.dataclass(frozen=True)
class Verdict:
    """A showdown a simulated unit decided: its outcome, and the presses
    (player -> reaction in us) of each countdown that reached GO, in order
    (a live unit plays them out: near-ties fought again, then the last)."""

    outcome: ShowdownOutcome
    rounds: tuple[Mapping[int, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """As plain values (JSON: the players' numbers as strings)."""
        o = self.outcome
        return {
            "loser": o.loser,
            "winner": o.winner,
            "reason": o.reason,
            "reaction_us": {str(p): us for p, us in o.reaction_us.items()},
            "margin_us": o.margin_us,
            "tie_reruns": o.tie_reruns,
            "detail": o.detail,
            "rounds": [{str(p): us for p, us in presses.items()} for presses in self.rounds],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Verdict:
        """The verdict :meth:`to_dict` gave; ValueError if it is not one."""
        try:
            outcome = ShowdownOutcome(
                _whole(data["loser"]),
                _whole(data["winner"]),
                Reason(data["reason"]),
                {int(p): _whole_or_none(us) for p, us in data["reaction_us"].items()},
                _whole_or_none(data["margin_us"]),
                _whole(data["tie_reruns"]),
                str(data["detail"]),
            )
            rounds = tuple(
                {int(p): _whole(us) for p, us in presses.items()} for presses in data["rounds"]
            )
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ValueError(f"not a showdown's verdict: {exc!r}") from None
        if set(outcome.reaction_us) != {outcome.loser, outcome.winner}:
            raise ValueError(f"not a showdown's verdict: reaction_us {data['reaction_us']!r}")
        return cls(outcome, rounds)


def _whole(value: Any) -> int:
    if type(value) is not int:
        raise ValueError(f"{value!r} is not a whole number")
    return value


def _whole_or_none(value: Any) -> int | None:
    return None if value is None else _whole(value)


class UnitPort(Protocol):
    """Fights a showdown and reports how it ended; may block (a person, a unit)."""

    def run_showdown(self, request: ShowdownRequest) -> ShowdownOutcome: ...


class SimulatedUnit:
    """A unit played by two simulated people, reproducible from ``rng``.

    Each countdown draws the two presses from ``reactions`` (a
    :class:`~firmware_host.people.reactions.Reactions`, the model every
    simulation shares: :data:`~firmware_host.people.reactions.HUMAN` unless
    given), either player alike the faster one. A false start (at the
    model's rate, by either player alike) loses for the offender. Presses
    closer than ``tie_threshold_us`` are a near-tie: the countdown is run
    again, at most ``max_reruns`` times, after which the cards on each side
    decide (simulated as a fair coin). Re-runs show only in ``tie_reruns`` and
    ``detail``.

    A bot of the request (``request.bots``) presses as a unit presses for it:
    its own reaction, drawn from the same model with the bot's median, never
    early. A person facing a bot draws one reaction from ``reactions``; a
    false start (at the model's rate) is then always the person's.
    """

    def __init__(
        self,
        rng: random.Random,
        *,
        reactions: Reactions = HUMAN,
        tie_threshold_us: int = 200,
        max_reruns: int = 3,
    ):
        if tie_threshold_us < 0 or max_reruns < 0:
            raise ValueError(
                f"tie_threshold_us and max_reruns must be >= 0, not "
                f"{tie_threshold_us} and {max_reruns}"
            )
        self.rng = rng
        self.reactions = reactions
        self.tie_threshold_us = tie_threshold_us
        self.max_reruns = max_reruns
        #: The verdicts decided, by showdown id (the newest MAX_VERDICTS).
        self._verdicts: collections.OrderedDict[str, Verdict] = collections.OrderedDict()
        self._lock = threading.Lock()  # decided on the table's loop, fought in its worker

    # A copy (deepcopy, pickle: an environment copied for a search) carries the
    # generator and the verdicts, and gets a lock of its own.
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def decide_ahead(self, request: ShowdownRequest) -> Verdict:
        """Decide ``request``'s showdown now (drawn from ``rng``) and keep the
        verdict under its id, as a real unit's journal keeps it: the table
        decides it ahead and saves it with the match (:meth:`verdict_data`)
        before anything of the showdown is shown, and :meth:`run_showdown`
        fights it with that verdict (in this process, or in a resumed one
        given it back by :meth:`remember`). Decided already: the same verdict.
        A known id between two other players (the table undid, unsaved, the
        move that named it, and another move named it again) is decided anew."""
        with self._lock:
            known = self._known(request)
            if known is not None:
                return known
            verdict = self._draw(request)
            self._keep(request.showdown_id, verdict)
            return verdict

    def verdict_for(self, request: ShowdownRequest) -> Verdict:
        """The verdict decided ahead for ``request`` (:meth:`decide_ahead`,
        :meth:`remember`), or one drawn now and not kept: a simulation that
        never decides ahead gets a fresh draw for every call, as it always did."""
        with self._lock:
            known = self._known(request)
        return known if known is not None else self._draw(request)

    def _known(self, request: ShowdownRequest) -> Verdict | None:
        known = self._verdicts.get(request.showdown_id)
        if known is None or {known.outcome.loser, known.outcome.winner} != set(request.players):
            return None
        self._verdicts.move_to_end(request.showdown_id)
        return known

    def _keep(self, showdown_id: str, verdict: Verdict) -> None:
        self._verdicts[showdown_id] = verdict
        self._verdicts.move_to_end(showdown_id)
        while len(self._verdicts) > MAX_VERDICTS:
            self._verdicts.popitem(last=False)

    def verdict_data(self, showdown_id: str) -> dict[str, Any] | None:
        """The verdict decided for ``showdown_id`` as plain values (for a save
        file: :meth:`remember` takes it back), or None."""
        with self._lock:
            verdict = self._verdicts.get(showdown_id)
        return None if verdict is None else verdict.to_dict()

    def remember(self, showdown_id: str, data: Any) -> None:
        """A verdict :meth:`verdict_data` gave (a resumed match's): the showdown
        ``showdown_id`` is fought with it. ValueError if it is not one."""
        verdict = Verdict.from_dict(data)
        with self._lock:
            self._keep(showdown_id, verdict)

    def run_showdown(self, request: ShowdownRequest) -> ShowdownOutcome:
        return self.verdict_for(request).outcome

    def _draw(self, request: ShowdownRequest) -> Verdict:
        """A new verdict for ``request``, drawn from ``rng``."""
        rng = self.rng
        players = request.players
        ties: list[int] = []
        rounds: list[dict[int, int]] = []  # each countdown that reached GO
        people = [p for p in players if p not in request.bots]
        while True:
            if people and self.reactions.false_start(rng):
                loser = rng.choice(people)
                outcome = ShowdownOutcome(
                    loser,
                    request.other(loser),
                    Reason.FALSE_START,
                    dict.fromkeys(players),
                    None,
                    len(ties),
                    _with_ties(f"false start by {request.name(loser)}", ties),
                )
                return Verdict(outcome, tuple(rounds))
            times, faster = self._presses(request, rng)
            rounds.append(dict(times))
            margin = times[request.other(faster)] - times[faster]
            if margin < self.tie_threshold_us and len(ties) < self.max_reruns:
                ties.append(margin)
                continue
            reaction = {player: times[player] for player in players}
            if margin < self.tie_threshold_us:
                loser = rng.choice(players)
                detail = (
                    f"too close to call ({apart(margin)}): the cards on each side "
                    f"decided against {request.name(loser)}"
                )
            else:
                loser = request.other(faster)
                detail = f"{request.name(faster)} faster by {ms(margin)}"
            outcome = ShowdownOutcome(
                loser,
                request.other(loser),
                Reason.FASTER,
                reaction,
                margin,
                len(ties),
                _with_ties(detail, ties),
            )
            return Verdict(outcome, tuple(rounds))

    def _presses(self, request: ShowdownRequest, rng: random.Random) -> tuple[dict[int, int], int]:
        """Each player's reaction after GO, in us, for one countdown, and the faster."""
        players = request.players
        if not request.bots:  # two people: the model's pair, either the faster
            first_us, second_us = self.reactions.presses_us(rng)
            faster = rng.choice(players)
            return {faster: first_us, request.other(faster): second_us}, faster
        times = {}
        for player in players:
            median = request.bots.get(player)
            model = self.reactions if median is None else self._bot_model(median)
            times[player] = model.reaction_us(rng)
        return times, min(players, key=lambda p: times[p])

    def _bot_model(self, median_ms: float) -> Reactions:
        return dataclasses.replace(
            self.reactions,
            median_ms=median_ms,
            min_ms=min(self.reactions.min_ms, median_ms),
            max_ms=max(self.reactions.max_ms, median_ms),
            false_start_rate=0.0,
        )


def _with_ties(detail: str, ties: list[int]) -> str:
    if not ties:
        return detail
    gaps = ", ".join(apart(gap) for gap in ties)
    return f"{detail}, after {reruns_text(len(ties))} ({gaps})"


class ManualUnit:
    """A person at the table types how each showdown ended: a real unit that is
    not connected, or a showdown fought by hand.

    The answers (:attr:`HELP`): the winner's name; ``f`` and a name for a
    false start by that player (who loses); ``tie`` (too close to call) or
    ``nobody`` (nobody pressed in time): the showdown is fought again with the
    cards still loaded, and asked again. Names are matched without regard to
    case. A bad answer is explained through ``output_fn`` and asked again;
    ``?`` or ``help`` shows the answers. EOFError and KeyboardInterrupt from
    ``input_fn`` pass through to the caller.
    """

    #: The answers that fight a showdown again, and why.
    AGAIN: ClassVar[Mapping[str, str]] = {
        "tie": "tie",
        "tie again": "tie",
        "again": "tie",
        "nobody": "timeout",
        "nobody pressed": "timeout",
        "none": "timeout",
        "timeout": "timeout",
    }
    HELP: ClassVar[tuple[str, ...]] = (
        "How a showdown ended, at the unit:",
        "  NAME      NAME won: the other takes the cards",
        "  f NAME    NAME pressed before GO (a false start): NAME takes the cards",
        "  tie       too close to call: the showdown is fought again, the cards still loaded",
        "  nobody    nobody pressed in time: fought again, the cards still loaded",
    )

    def __init__(
        self, input_fn: Callable[[str], str] = input, output_fn: Callable[[str], None] = print
    ):
        self.input_fn = input_fn
        self.output_fn = output_fn

    def run_showdown(self, request: ShowdownRequest) -> ShowdownOutcome:
        c, o = request.challenger_name, request.opponent_name
        cards = plural(request.cards, "card")
        self.output_fn(
            f"Showdown: {versus(c, o)} for {cards}. Load {'it' if request.cards == 1 else 'them'} "
            "into the unit and fight it."
        )
        answers = f"{c} or {o}; f NAME: a false start; tie; nobody; ? for help"
        prompt = f"Who won? ({answers}) "
        again: Counter[str] = Counter()
        while True:
            answer = self.input_fn(prompt).strip()
            why = self.AGAIN.get(" ".join(answer.replace(",", " ").split()).casefold())
            if why is not None:
                again[why] += 1
                # again_line() has said it is fought again, cards loaded: only ask.
                self.output_fn(again_line(why, request.cards))
                prompt = f"Who won this time? ({answers}) "
                continue
            if answer.casefold() in ("?", "help"):
                for line in self.HELP:
                    self.output_fn(line)
                continue
            outcome, problem = self.parse(request, answer)
            if outcome is None:
                self.output_fn(problem)
                continue
            fought = [reruns_text(again["tie"])] if again["tie"] else []
            if again["timeout"]:
                fought.append(plural(again["timeout"], "timeout"))
            detail = outcome.detail + (f", after {', '.join(fought)}" if fought else "")
            return dataclasses.replace(outcome, tie_reruns=again["tie"], detail=detail)

    @staticmethod
    def parse(request: ShowdownRequest, answer: str) -> tuple[ShowdownOutcome | None, str]:
        """The outcome typed as ``answer`` (a winner, or ``f`` and a false
        starter), or (None, why it is not one)."""
        unknown = dict.fromkeys(request.players)
        winner = _player(request, answer)
        if winner is not None:
            return ShowdownOutcome(
                request.other(winner), winner, Reason.FASTER, unknown, detail="entered by hand"
            ), ""
        if answer[:1].lower() == "f":
            offender = _player(request, answer[1:].strip())
            if offender is not None:
                return ShowdownOutcome(
                    offender,
                    request.other(offender),
                    Reason.FALSE_START,
                    unknown,
                    detail="false start, entered by hand",
                ), ""
        c, o = request.challenger_name, request.opponent_name
        return None, (
            f"{answer!r} is not {c} or {o}: type who won, f and who pressed before GO "
            f"(e.g. f {c}), tie or nobody."
        )


def _player(request: ShowdownRequest, text: str) -> int | None:
    """The request's player named ``text`` (case does not matter)."""
    for player in request.players:
        if text.casefold() == request.name(player).casefold():
            return player
    return None
