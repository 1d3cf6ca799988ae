"""Companion mode: a table playing with real cards, the showdowns on the unit.

Nobody holds a digital hand. The companion page opened from the host URL (with
the host's key, as the table's display: ``engine.apps.table.access``) is the
host; any other is a spectator, which sees the score and the showdowns. The host
names the players and the target and starts the match; when a card calls for a
showdown it names the two players and the cards loaded, the server fights the
showdown on the unit port (as :class:`~engine.apps.table.room.Room` does) and
records who took the cards; at the end of a round it enters the winner and what
the other hands held (their points, or their cards, counted with the engine's
card values so the score is exact: ``companion_hands``). The scoreboard keeps
the match to the target; the last entry (a round or a showdown) can be undone.

:class:`CompanionRoom` is sans-IO with the Room's interface, so the same server
(``server.create_app``) and its ``Runner`` serve it: ``connect``, ``receive``,
``take``, ``disconnect``, ``on_change``, ``next_task`` (``"showdown"`` or
None), ``showdown_request``, ``finish_showdown``, ``pause``, ``unit_event``,
``unit_said``, ``snapshot``/``restore``/``save``. The match is saved after
every action; a showdown that was out at the unit when the server stopped comes
back paused, for the host to retry it or to say who took the cards.

>>> room = CompanionRoom(host_key="KEY")
>>> host = room.connect()
>>> room.receive(host, '{"type": "hello", "role": "display", "host_key": "KEY"}')
>>> room.receive(host, '{"type": "host", "cmd": "start", "players": ["Ann", "Bob"]}')
>>> room.receive(host, '{"type": "host", "cmd": "round", "winner": 0, "hands": {"1": "R5 W+4"}}')
>>> room.scores, room.log[1]
([55, 0], 'Round 1 won by Ann for 55 points: Bob 55 (R5 W+4).')
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from engine.apps.table import showdown_view
from engine.apps.table.access import HostGate
from engine.apps.table.companion_hands import hand_points, round_hands
from engine.apps.table.durable import decide_ahead, durable, remember_verdicts, saved_verdicts
from engine.apps.table.hub import ViewTexts
from engine.apps.table.real_cards import RealCardsHub
from engine.apps.table.real_cards import show_value as _show
from engine.apps.table.room_state import new_match_id
from engine.units.ports import ShowdownOutcome, ShowdownRequest, SimulatedUnit, UnitPort
from engine.uno.table_views import SEPARATOR
from firmware_host.people.words import capital, duel_verdict, plural, versus
from firmware_host.protocol import Reason, clean_name, clean_showdown_id

__all__ = ["CompanionRoom", "hand_points", "SAVE_MODE", "MAX_CARDS"]

#: What a companion save file says it is (a Room's file has no "mode").
SAVE_MODE = "companion"
_SAVE_FORMAT = 1
#: The most cards a showdown loads (the protocol's default ``showdown.max_cards``).
MAX_CARDS = 10
_MIN_PLAYERS, _MAX_PLAYERS = 2, 10


class CompanionRoom(RealCardsHub):
    """A companion table; see the module docstring.

    ``unit`` fights the showdowns (a SimulatedUnit on ``rng`` by default);
    ``max_cards`` is the most a showdown loads (a unit that said its own
    ``max_cards`` in its hello is taken at its word); ``save`` is the file saved
    after every action (None: not saved); ``on_change`` is called whenever
    something waits to be sent; ``host_key`` the host's key (a fresh one by
    default), ``base_url`` the table's address as printed (the host URL is made
    from it), ``clock`` the room's time (the rate limit of wrong keys).
    """

    PAGE: ClassVar[str] = "companion.html"  # the page the server serves at /
    #: Its save file's name in the state directory (table_cmd.default_save_path).
    SAVE_NAME: ClassVar[str] = "companion.json"

    def __init__(
        self,
        *,
        rng: random.Random | None = None,
        unit: UnitPort | None = None,
        code: str = "",
        join_url: str = "",
        save: Path | None = None,
        max_cards: int = MAX_CARDS,
        clock: Callable[[], float] = time.monotonic,
        host_key: str | None = None,
        base_url: str = "",
    ):
        super().__init__(clock)
        if not 1 <= max_cards <= MAX_CARDS:
            raise ValueError(f"max_cards must be from 1 to {MAX_CARDS}, not {max_cards}")
        rng = rng or random.Random()
        self.unit: UnitPort = unit or SimulatedUnit(random.Random(rng.getrandbits(64)))
        self.code = code
        self.join_url = join_url
        self.base_url = base_url
        self.host_gate = HostGate(clock, host_key)
        self.save_path = save
        self.players: list[str] = []  # the last match's players (the start form's default)
        self.target = 500
        self.started = False
        self.entries: list[dict[str, Any]] = []  # rounds and showdowns, oldest first
        self._log: list[tuple[str, int | None]] = []  # (line, entry serial), newest first
        self.paused: str | None = None
        self._max_cards = max_cards
        self._request: ShowdownRequest | None = None  # the showdown the host asked for
        #: The server's Runner asks this before a showdown goes to the unit; a
        #: companion table has no host pause (the host simply starts no showdown).
        self.host_paused = False
        self._serial = 0  # numbers entries and showdown ids; never reused (undo included)
        self.match_id = "m1"  # new for each match and saved (see Room.match_id)
        self._views = ViewTexts()  # the view, encoded once a change

    # -- what the table shows ---------------------------------------------------------

    @property
    def scores(self) -> list[int]:
        scores = [0] * len(self.players)
        for entry in self._entries("round"):
            scores[entry["winner"]] += entry["points"]
        return scores

    @property
    def round(self) -> int:
        return 1 + len(self._entries("round"))

    @property
    def match_winner(self) -> int | None:
        """The engine's rule: the best score once it reaches the target (the
        first seat among equals)."""
        scores = self.scores
        if not scores:
            return None
        best = max(range(len(scores)), key=scores.__getitem__)
        return best if scores[best] >= self.target else None

    @property
    def phase(self) -> str:
        if not self.started:
            return "lobby"
        return "playing" if self.match_winner is None else "match_over"

    @property
    def max_cards(self) -> int:
        hello = getattr(self.unit, "hello", None)
        unit = hello.get("unit") if isinstance(hello, dict) else None
        told = unit.get("max_cards") if isinstance(unit, dict) else None
        return told if type(told) is int and 1 <= told <= self._max_cards else self._max_cards

    def _entries(self, kind: str) -> list[dict[str, Any]]:
        return [entry for entry in self.entries if entry["kind"] == kind]

    def _taken(self) -> list[int]:
        """The cards each player took in this round's showdowns."""
        taken = [0] * len(self.players)
        for entry in self.entries:
            if entry["kind"] == "round":
                taken = [0] * len(self.players)
            else:
                taken[entry["loser"]] += entry["cards"]
        return taken

    def public(self) -> dict[str, Any]:
        """The view every connection gets (there is no private part)."""
        scores, taken = self.scores, self._taken()
        last = self.entries[-1] if self.entries else None
        return {
            "mode": SAVE_MODE,
            "code": self.code,
            "join_url": self.join_url,
            "phase": self.phase,
            "target": self.target,
            "round": self.round if self.started else None,
            "players": list(self.players),
            "seats": [
                {"seat": n, "name": name, "score": scores[n], "taken": taken[n]}
                for n, name in enumerate(self.players)
            ],
            "scores": scores,
            "winner": self.match_winner,
            "max_cards": self.max_cards,
            "showdown": self.showdown,
            "busy": self._request is not None,
            "paused": self.paused,
            "cannot_save": self.save_problem is not None,
            "undo": None if last is None else self._describe(last),
            "log": self.log,
            "you": None,
        }

    # -- what the server's Runner drives ----------------------------------------------

    def next_task(self) -> str | None:
        """``"showdown"`` when the host asked for one and it is not out at the
        unit nor paused; else None (waiting for the host)."""
        if self._request is None or self._fighting or self.paused is not None:
            return None
        return "showdown"

    def showdown_request(self) -> ShowdownRequest:
        """The showdown the host asked for, to fight on ``self.unit``; the views show it armed."""
        request = self._request
        if request is None:
            raise RuntimeError("no showdown was asked for")
        self._fighting = True
        self.showdown = showdown_view.armed(
            request.challenger,
            request.opponent,
            [request.challenger_name, request.opponent_name],
            request.cards,
        )
        self._changed()
        return request

    def bot_step(self) -> None:
        """Never asked for (:meth:`next_task` is never ``"bot"``): nobody here is a bot."""
        raise RuntimeError("a companion table has no bots: the people play their own cards")

    def next_round(self) -> None:
        """Never asked for (:meth:`next_task` is never ``"next_round"``): the host
        scores each round (``round``), and the next one goes on at once."""
        raise RuntimeError("a companion table deals no rounds: the host scores them (round)")

    def hold_showdown(self) -> None:
        """The showdown :meth:`showdown_request` named did not go to the unit
        (the host paused meanwhile): it waits, armed, and is named again."""
        if not self._fighting:
            raise RuntimeError("no showdown was named")
        self._fighting = False
        self._changed()

    def _hold_outcome(self, outcome: ShowdownOutcome) -> None:
        """The outcome could not be saved: it waits for the host's retry."""
        self._fighting = False
        self._held_outcome = outcome

    @durable(failed=_hold_outcome)
    def finish_showdown(self, outcome: ShowdownOutcome) -> None:
        """The unit's outcome of the showdown :meth:`showdown_request` named:
        the loser took the cards. Saved before it is shown; while the table
        cannot save it waits for the host's retry."""
        request = self._request
        if request is None:
            raise RuntimeError("no showdown was asked for")
        outcome.check(request)
        if self.save_problem is not None and not self._in_change:
            self._hold_outcome(outcome)
            self._changed()
            return
        self._serial += 1
        entry = _showdown_entry(self._serial, self.round, request, outcome)
        self.entries.append(entry)
        self._request, self._fighting, self.paused = None, False, None
        self._show_verdict(request, outcome, entry)
        self._changed(save=True)

    def _show_verdict(
        self, request: ShowdownRequest, outcome: ShowdownOutcome, entry: dict[str, Any]
    ) -> None:
        """The showdown panel decided, and the verdict's log line."""
        c, o = request.players
        if self.showdown is None:  # restored mid-showdown, or decided by hand
            self.showdown = showdown_view.armed(
                c, o, [request.challenger_name, request.opponent_name], request.cards
            )
        names = {c: self.players[c], o: self.players[o]}
        showdown_view.decided(
            self.showdown,
            names,
            winner=outcome.winner,
            loser=outcome.loser,
            reason=outcome.reason,
            reaction_us=outcome.reaction_us,
            margin_us=outcome.margin_us,
            tie_reruns=outcome.tie_reruns,
        )
        verdict = duel_verdict(
            names,
            outcome.winner,
            outcome.loser,
            outcome.reason,
            outcome.reaction_us,
            outcome.margin_us,
            outcome.tie_reruns,
        )
        self._add_log(
            f"Showdown: {versus(names[c], names[o])} for {plural(request.cards, 'card')}. "
            f"{self._sentence(verdict)}. {self._describe(entry)}.",
            self._serial,
        )

    def _stop_fighting(self, problem: str) -> None:
        self._fighting = False

    @durable(failed=_stop_fighting)
    def pause(self, problem: str) -> None:
        """The unit could not fight the showdown: every screen shows ``problem``
        until the host retries (``retry``), names who took the cards
        (``decide``) or drops it (``cancel``). While the table cannot save, it
        is shown once the save is retried (the showdown is fought again)."""
        self._fighting = False
        if self.save_problem is not None:
            self._paused_before = problem
            self._changed()
            return
        self.paused = problem
        self._changed(save=True)

    # -- the unit's hooks (a RemoteUnit's table and say, handed over by the server) -----

    # -- connections ------------------------------------------------------------------

    # -- the host's commands (each returns why it refuses, or None) --------------------

    def _start(self, message: dict) -> str | None:
        if self.phase == "playing":
            return "a match is being played: end it first"
        players = message.get("players")
        if not isinstance(players, list) or not _MIN_PLAYERS <= len(players) <= _MAX_PLAYERS:
            return f"players must be a list of 2 to 10 names, not {_show(players)}"
        names: list[str] = []
        for n, name in enumerate(players, 1):
            try:
                cleaned = clean_name(name, f"player {n}")
            except ValueError as exc:
                return str(exc)
            for other in names:
                if other.casefold() == cleaned.casefold():
                    return f"{other} and {cleaned} are one name to the unit: tell them apart"
            names.append(cleaned)
        target = message.get("target", 500)
        if type(target) is not int or not 1 <= target <= 100_000:
            return f"target must be a whole number of points from 1 to 100000, not {_show(target)}"
        self.players, self.target, self.started = names, target, True
        self.match_id = new_match_id()
        self.entries, self._log, self.showdown, self.paused = [], [], None, None
        self._add_log(f"Match: {', '.join(names)}; to {target} points.")
        self._changed(save=True)
        return None

    def _showdown(self, message: dict) -> str | None:
        refused = self._playing("start a showdown")
        if refused is not None:
            return refused
        c, o, cards = message.get("challenger"), message.get("opponent"), message.get("cards")
        for field, seat in (("challenger", c), ("opponent", o)):
            if type(seat) is not int or not 0 <= seat < len(self.players):
                return (
                    f"{field} must be a player from 0 to {len(self.players) - 1}, not {_show(seat)}"
                )
        assert isinstance(c, int) and isinstance(o, int)
        if c == o:
            return f"{self.players[c]} cannot face {self.players[c]}: choose two players"
        most = self.max_cards
        if type(cards) is not int or not 1 <= cards <= most:
            return (
                f"cards must be a whole number from 1 to {most} (the unit's most), "
                f"not {_show(cards)}"
            )
        self._request = ShowdownRequest(
            f"{self.match_id}:r{self.round}:s{self._serial + 1}",
            c,
            o,
            self.players[c],
            self.players[o],
            cards,
        )
        self.showdown = None
        self._changed(save=True)
        return None

    def _round(self, message: dict) -> str | None:
        refused = self._playing("end the round")
        if refused is not None:
            return refused
        winner = message.get("winner")
        if type(winner) is not int or not 0 <= winner < len(self.players):
            return f"winner must be a player from 0 to {len(self.players) - 1}, not {_show(winner)}"
        counted = round_hands(message, self.players, winner)
        if isinstance(counted, str):
            return counted
        total, hands = counted
        self._serial += 1
        entry: dict[str, Any] = {
            "kind": "round",
            "serial": self._serial,
            "round": self.round,
            "winner": winner,
            "points": total,
            "hands": hands,
        }
        self.entries.append(entry)
        self.showdown = None
        self._log_round(entry)
        self._changed(save=True)
        return None

    def _log_round(self, entry: dict[str, Any]) -> None:
        """The log lines of a round just entered: its points, the match's winner, a separator."""
        hands, winner, total = entry["hands"], entry["winner"], entry["points"]
        said = [
            f"{self.players[h['seat']]} {h['points']}"
            + ("" if h["cards"] is None else f" ({' '.join(h['cards'])})")
            for h in hands
        ]
        self._add_log(
            f"Round {entry['round']} won by {self.players[winner]} for {total} points"
            + (f": {', '.join(said)}." if said else "."),
            self._serial,
        )
        champion = self.match_winner
        if champion is not None:
            self._add_log(
                self._sentence(
                    f"{self.players[champion]} wins the match with {self.scores[champion]} "
                    f"points after {plural(entry['round'], 'round')}."
                ),
                self._serial,
            )
        self._add_log(SEPARATOR, self._serial)

    def _undo(self, message: dict) -> str | None:
        if self._request is not None:
            return "a showdown is under way: undo after its verdict (or cancel it while paused)"
        if not self.entries:
            return "there is nothing to undo"
        entry = self.entries.pop()
        self._log = [(line, tag) for line, tag in self._log if tag != entry["serial"]]
        self.showdown = None
        self._add_log(f"Undone: {self._describe(entry)}.")
        self._changed(save=True)
        return None

    def _retry(self, message: dict) -> str | None:
        if self.save_problem is not None:
            return self._retry_save()
        if self.paused is None:
            return "the game is not paused"
        self.paused = None
        self._changed(save=True)
        return None

    def _decide(self, message: dict) -> str | None:
        request = self._request
        if self.paused is None or request is None:
            return "no showdown waits for a decision"
        loser = message.get("loser")
        if type(loser) is not int or loser not in request.players:
            return f"loser must be {request.challenger} or {request.opponent}, not {_show(loser)}"
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

    def _cancel(self, message: dict) -> str | None:
        request = self._request
        if self.paused is None or request is None:
            return "no showdown waits for a decision"
        self._request, self.paused, self.showdown = None, None, None
        self._add_log(
            "The host dropped the showdown "
            f"{versus(request.challenger_name, request.opponent_name)}: "
            f"nobody took the {plural(request.cards, 'card')}."
        )
        self._changed(save=True)
        return None

    def _end(self, message: dict) -> str | None:
        if not self.started:
            return "no match is being played"
        if self._fighting:
            return "a showdown is being fought: end the match after its verdict"
        self.started, self.entries, self.showdown = False, [], None
        self._request, self.paused = None, None
        self._add_log("The host ended the match.")
        self._changed(save=True)
        return None

    _COMMANDS: ClassVar[dict[str, Callable[[CompanionRoom, dict], str | None]]] = {
        "start": _start,
        "showdown": _showdown,
        "round": _round,
        "undo": _undo,
        "retry": _retry,
        "decide": _decide,
        "cancel": _cancel,
        "end": _end,
    }

    def _playing(self, what: str) -> str | None:
        """Why the host cannot ``what`` now, or None."""
        if not self.started:
            return f"start a match first, then {what}"
        if self.phase == "match_over":
            return (
                f"the match is over ({self.players[self.match_winner or 0]} won): start a new one"
            )
        if self.paused is not None:
            return f"the game is paused: {self.paused}"
        if self._request is not None:
            return f"a showdown is under way: {what} after its verdict"
        return None

    # -- words ------------------------------------------------------------------------

    def _describe(self, entry: dict[str, Any]) -> str:
        """An entry in a few words: "Bob took 3 cards", "round 2: Ann won 57 points"."""
        if entry["kind"] == "showdown":
            return f"{self.players[entry['loser']]} took {plural(entry['cards'], 'card')}"
        return (
            f"round {entry['round']}: {self.players[entry['winner']]} won {entry['points']} points"
        )

    def _sentence(self, text: str) -> str:
        """A capital first, unless it starts with a player's name (kept as written)."""
        if any(text.startswith(f"{name} ") for name in self.players):
            return text
        return capital(text)

    def _save_ahead(self) -> None:
        # A simulated unit's verdict of the showdown asked for, decided before the save.
        decide_ahead(self.unit, self._request)

    # -- saving -----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The room as plain values: the players, the target, every entry, the
        log, and the showdown under way (if any)."""
        request = self._request
        return {
            "format": _SAVE_FORMAT,
            "mode": SAVE_MODE,
            "code": self.code,
            "host_key": self.host_key,
            "match_id": self.match_id,
            "players": list(self.players),
            "target": self.target,
            "started": self.started,
            "serial": self._serial,
            "entries": [dict(entry) for entry in self.entries],
            "log": [[line, tag] for line, tag in self._log],
            "showdown": None
            if request is None
            else {
                "showdown_id": request.showdown_id,
                "challenger": request.challenger,
                "opponent": request.opponent,
                "cards": request.cards,
            },
            "paused": self.paused,
            # a simulated unit's verdict of that showdown, decided before it is shown
            "verdicts": saved_verdicts(self.unit, request),
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Continue from a :meth:`snapshot`; ValueError if it is not one. A
        showdown that was under way comes back paused: the host retries it or
        says who took the cards."""
        if not isinstance(data, dict) or data.get("mode") != SAVE_MODE:
            raise ValueError('not a companion table\'s save file (it has no "mode": "companion")')
        if data.get("format") != _SAVE_FORMAT:
            raise ValueError(f"format {data.get('format')!r} is not {_SAVE_FORMAT}")
        try:
            players = [clean_name(name) for name in data["players"]]
            started = bool(data["started"])
            if started and not _MIN_PLAYERS <= len(players) <= _MAX_PLAYERS:
                raise ValueError(f"{len(players)} players (2 to 10)")
            target = int(data["target"])
            serial = int(data["serial"])
            match_id = clean_showdown_id(data.get("match_id", "m1"), "match_id")
            entries = _saved_entries(data["entries"], len(players))
            log = [(str(line), None if tag is None else int(tag)) for line, tag in data["log"]]
            request = _saved_request(data["showdown"], players)
            paused = data["paused"]
            host_key = data.get("host_key")
            if host_key is not None and not (isinstance(host_key, str) and host_key):
                raise ValueError(f"host_key must be a key, not {host_key!r}")
            verdicts = data.get("verdicts") or {}
            if not isinstance(verdicts, dict):
                raise TypeError(f"verdicts must be an object, not {verdicts!r}")
            remember_verdicts(self.unit, verdicts)
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ValueError(f"not a companion table's save file: {exc!r}") from None
        self.players, self.started, self.target = players, started, target
        if host_key is not None:
            self.host_gate.key = host_key
        self._serial, self.entries, self._log = serial, entries, log
        self.match_id = match_id
        self._request, self._fighting, self.showdown = request, False, None
        self.paused = None if paused is None else str(paused)
        if request is not None and self.paused is None:
            self.paused = (
                f"The server stopped during the showdown "
                f"{versus(request.challenger_name, request.opponent_name)} for "
                f"{plural(request.cards, 'card')}. What to do: retry (a unit that fought it "
                "already answers with its verdict), or say who took the cards."
            )
        self._changed()


def _showdown_entry(
    serial: int, round_number: int, request: ShowdownRequest, outcome: ShowdownOutcome
) -> dict[str, Any]:
    """A showdown's entry on the scoreboard (as it is saved)."""
    c, o = request.players
    return {
        "kind": "showdown",
        "serial": serial,
        "round": round_number,
        "showdown_id": request.showdown_id,
        "challenger": c,
        "opponent": o,
        "cards": request.cards,
        "loser": outcome.loser,
        "winner": outcome.winner,
        "reason": outcome.reason,
        "reaction_us": [outcome.reaction_us.get(c), outcome.reaction_us.get(o)],
        "margin_us": outcome.margin_us,
        "tie_reruns": outcome.tie_reruns,
        "detail": outcome.detail,
    }


def _saved_entries(saved: list[dict[str, Any]], players: int) -> list[dict[str, Any]]:
    """The saved scoreboard's entries; ValueError on one that is not an entry."""
    entries = [dict(entry) for entry in saved]
    for entry in entries:
        kind = entry["kind"]
        seats = [entry["winner"]] + ([entry["loser"]] if kind == "showdown" else [])
        count = entry["points" if kind == "round" else "cards"]
        if (
            kind not in ("round", "showdown")
            or type(count) is not int
            or not all(type(s) is int and 0 <= s < players for s in seats)
        ):
            raise ValueError(f"a bad entry {entry!r}")
    return entries


def _saved_request(pending: dict[str, Any] | None, players: list[str]) -> ShowdownRequest | None:
    """The saved showdown under way (None: none was)."""
    if pending is None:
        return None
    c, o = pending["challenger"], pending["opponent"]
    if not all(type(s) is int and 0 <= s < len(players) for s in (c, o)):
        raise ValueError(f"a bad showdown {pending!r}")
    return ShowdownRequest(
        pending["showdown_id"], c, o, players[c], players[o], int(pending["cards"])
    )
