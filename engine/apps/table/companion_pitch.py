"""Pitch's companion room: the scorekeeper of a table playing 10 Point Pitch with real cards.

Nobody holds a digital hand and there are no showdowns. The page opened from
the host URL (with the host's key, ``engine.apps.table.access``) is the host;
any other is a spectator, which sees the scores. The host names the four
players (seats clockwise: the first and the third are partners, team A, the
second and the fourth team B), the target (52) and the house rules that change
a score, then enters each hand: the dealer (the deal passes left by itself),
the pitcher and the bid, and the points each team took, as two numbers or by
the point cards each team captured. The family's
:class:`~engine.pitch.scorekeeper.Scorekeeper` checks and scores each entry
(R8-R9), refusing a bad one in words; the last hand can be undone. The match
is saved after every entry and resumed (``--resume``) as it was.

:class:`PitchCompanionRoom` is sans-IO with the
:class:`~engine.apps.table.companion.CompanionRoom`'s interface, so the same
server (``server.create_app``) and its ``Runner`` serve it; its page is
``static/scorekeeper.html``.

>>> room = PitchCompanionRoom(host_key="KEY")
>>> host = room.connect()
>>> room.receive(host, '{"type": "hello", "role": "display", "host_key": "KEY"}')
>>> room.receive(host, '{"type": "host", "cmd": "start", "players": ["Ann", "Bob", "Cy", "Dee"]}')
>>> room.receive(host, '{"type": "host", "cmd": "hand", "pitcher": 1, "bid": 5, "taken": [3, 7]}')
>>> room.scores, room.log[1]
((3, 7), 'Hand 1, Ann dealt: Bob bid 5 and made it with 7. Bob and Dee +7, Ann and Cy +3: 3 to 7.')
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from engine.apps.table.access import HostGate
from engine.apps.table.hub import ViewTexts
from engine.apps.table.real_cards import RealCardsHub
from engine.apps.table.real_cards import show_value as _show
from engine.apps.table.room_state import new_match_id
from engine.pitch.actions import MOON, PLAIN_TEN
from engine.pitch.rules import DEFAULT_RULES
from engine.pitch.scorekeeper import (
    CARD_POINTS,
    DEFAULT_TARGET,
    PLAYERS,
    POINT_CARDS,
    SCORING_RULES,
    ScoredHand,
    Scorekeeper,
    point_card_labels,
    point_card_notes,
    read_entry,
    scoring_rules,
)
from engine.pitch.table import SEPARATOR
from engine.pitch.words import bid_name
from engine.units.ports import ShowdownOutcome, ShowdownRequest, SimulatedUnit, UnitPort
from firmware_host.protocol import clean_name, clean_showdown_id

__all__ = ["PitchCompanionRoom", "SAVE_MODE"]

#: What a Pitch scorekeeper's save file says it is.
SAVE_MODE = "pitch-scorekeeper"
_SAVE_FORMAT = 1
_NO_SHOWDOWNS = "10 Point Pitch has no showdowns: the unit is not used"


class PitchCompanionRoom(RealCardsHub):
    """A Pitch scorekeeper's table; see the module docstring.

    The arguments are the :class:`~engine.apps.table.companion.CompanionRoom`'s
    that apply: ``unit`` is kept for the server (Pitch never uses it), ``save``
    the file saved after every entry (None: not saved), ``on_change`` called
    whenever something waits to be sent, ``host_key`` the host's key (a fresh
    one by default), ``base_url`` the table's address as printed, ``clock``
    the room's time (the rate limit of wrong keys).
    """

    #: The page the server serves at ``/`` for this room.
    PAGE: ClassVar[str] = "scorekeeper.html"
    #: Its save file's name in the state directory (table_cmd.default_save_path).
    SAVE_NAME: ClassVar[str] = "pitch-scorekeeper.json"

    def __init__(
        self,
        *,
        rng: random.Random | None = None,
        unit: UnitPort | None = None,
        code: str = "",
        join_url: str = "",
        save: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        host_key: str | None = None,
        base_url: str = "",
    ):
        super().__init__(clock)
        rng = rng or random.Random()
        self.unit: UnitPort = unit or SimulatedUnit(random.Random(rng.getrandbits(64)))
        self.code = code
        self.join_url = join_url
        self.base_url = base_url
        self.host_gate = HostGate(clock, host_key)
        self.save_path = save
        self.players: list[str] = []  # the last match's players (the start form's default)
        self.keeper: Scorekeeper | None = None  # None: no match is being kept
        self._log: list[tuple[str, int | None]] = []  # (line, hand number), newest first
        self.paused: str | None = None
        #: The Runner asks this before a showdown; Pitch has none.
        self.host_paused = False
        self.match_id = "m1"  # new for each match and saved (see Room.match_id)
        self._views = ViewTexts()

    # -- what the table shows ---------------------------------------------------------

    @property
    def scores(self) -> tuple[int, int]:
        """The two teams' scores (team A: seats 0 and 2)."""
        return self.keeper.team_scores if self.keeper else (0, 0)

    @property
    def phase(self) -> str:
        if self.keeper is None:
            return "lobby"
        return "match_over" if self.keeper.over else "playing"

    def public(self) -> dict[str, Any]:
        """The view every connection gets (there is no private part)."""
        keeper = self.keeper
        rules = keeper.rules if keeper else DEFAULT_RULES
        return {
            "mode": SAVE_MODE,
            "code": self.code,
            "join_url": self.join_url,
            "phase": self.phase,
            "players": list(keeper.names if keeper else self.players),
            "target": keeper.target if keeper else DEFAULT_TARGET,
            "hand": keeper.number if keeper else None,
            "dealer": keeper.dealer if keeper else None,
            "teams": self._teams(),
            "winner": keeper.winner if keeper else None,
            "result": keeper.result_text() if keeper else None,
            "rules": {name: getattr(rules, name) for name in SCORING_RULES},
            "bids": _bids(rules.ten_bid),
            "point_cards": [
                {
                    "key": key,
                    "name": POINT_CARDS[key][0],
                    "note": note,
                    "label": label,
                    "worth": CARD_POINTS[key],
                }
                for (key, label), note in zip(
                    point_card_labels(rules).items(), point_card_notes(rules).values(), strict=True
                )
            ],
            "hands": [self._row(hand) for hand in reversed(keeper.hands)] if keeper else [],
            "undo": self._describe(keeper.hands[-1]) if keeper and keeper.hands else None,
            "paused": self.paused,
            "cannot_save": self.save_problem is not None,
            "log": self.log,
            "you": None,
        }

    def _teams(self) -> list[dict[str, Any]]:
        keeper = self.keeper
        if keeper is None:
            return []
        return [
            {
                "team": team,
                "name": keeper.team(team),
                "seats": [team, team + 2],
                "score": keeper.team_scores[team],
                "to_go": max(0, keeper.target - keeper.team_scores[team]),
            }
            for team in (0, 1)
        ]

    def _row(self, hand: ScoredHand) -> dict[str, Any]:
        """One line of the score sheet."""
        entry, out = hand.entry, hand.outcome
        return {
            "number": hand.number,
            "dealer": entry.dealer,
            "pitcher": entry.pitcher,
            "team": entry.pitcher % 2,
            "bid": bid_name(entry.bid),
            "taken": list(entry.taken),
            "burned": entry.burned,
            "made": out.made,
            "moon": out.moon,
            "change": [hand.after[t] - hand.before[t] for t in (0, 1)],
            "scores": list(hand.after),
        }

    # -- what the server's Runner drives (Pitch has no showdowns, no bots, no timers) --

    def next_task(self) -> str | None:
        """Always None: the room only waits for the host."""
        return None

    def showdown_request(self) -> ShowdownRequest:
        raise RuntimeError(_NO_SHOWDOWNS)

    def hold_showdown(self) -> None:
        raise RuntimeError(_NO_SHOWDOWNS)

    def finish_showdown(self, outcome: ShowdownOutcome) -> None:
        raise RuntimeError(_NO_SHOWDOWNS)

    def pause(self, problem: str) -> None:
        """Never asked for by the Runner here (no showdown goes to the unit)."""
        raise RuntimeError(_NO_SHOWDOWNS)

    def bot_step(self) -> None:
        raise RuntimeError("a scorekeeper has no bots: the people play their own cards")

    def next_round(self) -> None:
        raise RuntimeError("a scorekeeper deals no hands: the host enters them (hand)")

    # -- connections ------------------------------------------------------------------

    # -- the host's commands (each returns why it refuses, or None) --------------------

    def _start(self, message: dict) -> str | None:
        if self.phase == "playing":
            return "a match is being played: end it first"
        names = _names(message.get("players"))
        if isinstance(names, str):
            return names
        target = message.get("target", DEFAULT_TARGET)
        rules_text = message.get("house_rules", "-")
        if not isinstance(rules_text, str):
            return f"house_rules is text (e.g. low=holder,made=bid), not {_show(rules_text)}"
        try:
            rules = scoring_rules(rules_text)
            keeper = Scorekeeper(names, target=target, rules=rules, dealer=message.get("dealer", 0))
        except ValueError as exc:
            return str(exc)
        self.keeper, self.players = keeper, names
        self.match_id = new_match_id()
        self._log = []
        said = "" if str(rules) == "-" else f"; house rules {rules}"
        self._add_log(
            f"Match: {keeper.team(0)} against {keeper.team(1)}, to {keeper.target} points"
            f"{said}. {names[keeper.dealer]} deals first."
        )
        self._changed(save=True)
        return None

    def _hand(self, message: dict) -> str | None:
        keeper = self.keeper
        if keeper is None:
            return "start a match first, then enter its hands"
        try:
            hand = keeper.add(read_entry(message, keeper))
        except ValueError as exc:
            return str(exc)
        self._log_hand(hand)
        self._changed(save=True)
        return None

    def _log_hand(self, hand: ScoredHand) -> None:
        """The log lines of a hand just entered: its score, the match's end, a separator."""
        keeper = self.keeper
        assert keeper is not None
        self._add_log(keeper.hand_text(hand), hand.number)
        result = keeper.result_text()
        if result is not None:
            self._add_log(result, hand.number)
        self._add_log(SEPARATOR, hand.number)

    def _undo(self, message: dict) -> str | None:
        keeper = self.keeper
        if keeper is None or not keeper.hands:
            return "there is no hand to undo"
        hand = keeper.undo()
        self._log = [(line, tag) for line, tag in self._log if tag != hand.number]
        self._add_log(f"Undone: {self._describe(hand)}.")
        self._changed(save=True)
        return None

    def _retry(self, message: dict) -> str | None:
        if self.save_problem is not None:
            return self._retry_save()
        return "nothing waits for a retry: the table saves"

    def _end(self, message: dict) -> str | None:
        if self.keeper is None:
            return "no match is being played"
        self.keeper = None
        self._add_log("The host ended the match.")
        self._changed(save=True)
        return None

    _COMMANDS: ClassVar[dict[str, Callable[[PitchCompanionRoom, dict], str | None]]] = {
        "start": _start,
        "hand": _hand,
        "undo": _undo,
        "retry": _retry,
        "end": _end,
    }

    # -- words ------------------------------------------------------------------------

    def _describe(self, hand: ScoredHand) -> str:
        """A hand in a few words: "hand 2 (Bob bid 5, set)"."""
        assert self.keeper is not None
        entry = hand.entry
        bid = "shot the Moon" if entry.bid == MOON else f"bid {bid_name(entry.bid)}"
        return (
            f"hand {hand.number} ({self.keeper.names[entry.pitcher]} {bid}, "
            f"{'made' if hand.made else 'set'})"
        )

    # -- saving -----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The room as plain values: the match (players, target, house rules,
        every hand's entry) and the log."""
        return {
            "format": _SAVE_FORMAT,
            "mode": SAVE_MODE,
            "code": self.code,
            "host_key": self.host_key,
            "match_id": self.match_id,
            "players": list(self.players),
            "match": None if self.keeper is None else self.keeper.to_dict(),
            "log": [[line, tag] for line, tag in self._log],
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Continue from a :meth:`snapshot` (each hand scored again); ValueError
        in words if it is not one."""
        mode = data.get("mode") if isinstance(data, dict) else None
        if mode == "companion":
            raise ValueError(
                "this is UNO's companion save file, not a Pitch scorekeeper's: start the "
                "table with the --variant it was saved with, or choose another --save"
            )
        if mode != SAVE_MODE:
            raise ValueError(
                f'not a Pitch scorekeeper\'s save file (it has no "mode": "{SAVE_MODE}")'
            )
        if data.get("format") != _SAVE_FORMAT:
            raise ValueError(f"format {data.get('format')!r} is not {_SAVE_FORMAT}")
        try:
            players = [clean_name(name) for name in data["players"]]
            match = data["match"]
            keeper = None if match is None else Scorekeeper.from_dict(match)
            match_id = clean_showdown_id(data.get("match_id", "m1"), "match_id")
            log = [(str(line), None if tag is None else int(tag)) for line, tag in data["log"]]
            host_key = data.get("host_key")
            if host_key is not None and not (isinstance(host_key, str) and host_key):
                raise ValueError(f"host_key must be a key, not {host_key!r}")
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ValueError(f"not a Pitch scorekeeper's save file: {exc}") from None
        self.players, self.keeper, self._log, self.match_id = players, keeper, log, match_id
        if host_key is not None:
            self.host_gate.key = host_key
        self._changed()


def _names(players: object) -> list[str] | str:
    """The four players' names, cleaned; or why they are refused."""
    if not isinstance(players, list) or len(players) != PLAYERS:
        return f"players must be a list of 4 names (partners opposite), not {_show(players)}"
    names: list[str] = []
    for n, name in enumerate(players, 1):
        try:
            cleaned = clean_name(name, f"player {n}")
        except ValueError as exc:
            return str(exc)
        for other in names:
            if other.casefold() == cleaned.casefold():
                return f"{other} and {cleaned} are one name: tell them apart"
        names.append(cleaned)
    return names


def _bids(ten_bid: bool) -> list[dict[str, Any]]:
    """The bids the host's form offers: 4 to 9 (the plain 10), the Moon."""
    bids: list[int] = [4, 5, 6, 7, 8, 9] + ([PLAIN_TEN] if ten_bid else []) + [MOON]
    return [
        {
            "value": "moon" if bid == MOON else (10 if bid == PLAIN_TEN else bid),
            "text": bid_name(bid),
        }
        for bid in bids
    ]
