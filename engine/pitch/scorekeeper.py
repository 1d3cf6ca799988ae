"""Pitch's scorekeeper: the score of a match played with real cards (RULES.md R8-R9).

Nobody deals here: a table plays its own cards and says, hand by hand, who
dealt, who pitched and for what, and the points each team took, either as
two numbers or by the point cards each team captured (:data:`POINT_CARDS`).
The :class:`Scorekeeper` checks each entry, refusing a bad one in words
(:class:`~engine.game.errors.IllegalActionError`), scores it with the rules'
own :func:`engine.pitch.scoring.score_hand` (made, set, the Moon, the end of
the game: one R9 for the game and the scorekeeper) and keeps the match to
its target; the last hand can be undone. Sans-IO and pure: a list of entries
in, the scores out; :meth:`Scorekeeper.to_dict` and
:meth:`Scorekeeper.from_dict` save and replay it.

Teams: seats 0 and 2 are team A, 1 and 3 team B (partners sit opposite).

>>> keeper = Scorekeeper(("Ann", "Bob", "Cy", "Dee"), dealer=3)
>>> hand = keeper.enter(pitcher=0, bid=5, taken=(7, 3))
>>> keeper.team_scores, keeper.dealer
((7, 3), 0)
>>> print(keeper.hand_text(hand))
Hand 1, Dee dealt: Ann bid 5 and made it with 7. Ann and Cy +7, Bob and Dee +3: 7 to 3.
>>> keeper.enter(pitcher=1, bid=6, cards={"A": 0, "J": 1, "OJ": 1, "HJ": 1,
...     "LJ": None, "T": 1, "2": 0, "3": 0}).made
False
>>> keeper.team_scores
(12, -3)
>>> try:
...     keeper.enter(pitcher=2, bid=4, taken=(8, 4))
... except ValueError as refused:  # an IllegalActionError
...     print(refused)
Ann and Cy took 8 and Bob and Dee 4: 12 points, but a hand holds 10
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine.game.errors import IllegalActionError, NotationError
from engine.pitch.actions import MOON, PLAIN_TEN
from engine.pitch.cards import POINTS_IN_HAND, point_value
from engine.pitch.rules import DEFAULT_RULES, RULE_CHOICES, PitchRules
from engine.pitch.scoring import HandOutcome, score_hand
from engine.pitch.words import bid_name, team_name

__all__ = [
    "Scorekeeper",
    "HandEntry",
    "ScoredHand",
    "POINT_CARDS",
    "CARD_POINTS",
    "SCORING_RULES",
    "DEFAULT_TARGET",
    "PLAYERS",
    "read_entry",
    "scoring_rules",
    "point_card_labels",
    "point_card_notes",
]

PLAYERS = 4
DEFAULT_TARGET = 52
MAX_TARGET = 1000
#: The house rules (PitchRules' fields) that change a score; the others are
#: about the play, which a table with real cards keeps itself.
SCORING_RULES = ("low", "made", "moon_score", "moon_zero", "both_out", "ten_bid")
#: The point cards by their part in the trump suit (the host need not say
#: which suit was trump): key -> (its name, the card when hearts are trump,
#: for the rules' point_value).
POINT_CARDS: dict[str, tuple[str, str]] = {
    "A": ("ace", "AH"),
    "J": ("jack", "JH"),
    "OJ": ("off-jack", "JD"),
    "HJ": ("high joker", "HJ"),
    "LJ": ("low joker", "LJ"),
    "T": ("10", "TH"),
    "2": ("2", "2H"),
    "3": ("3", "3H"),
}
#: What each point card is worth (the rules' point_value).
CARD_POINTS = {key: point_value(card, "H") for key, (_, card) in POINT_CARDS.items()}


def point_card_notes(rules: PitchRules = DEFAULT_RULES) -> dict[str, str]:
    """What each point card is worth, in words; the 2 says whom it counts for
    under ``rules`` (R8: the taker, or "low to holder").

    >>> point_card_notes()["3"], point_card_notes(PitchRules(low="holder"))["2"]
    ('3 points', '1 point, for the team that played it')
    """
    notes = {key: _points(CARD_POINTS[key]) for key in POINT_CARDS}
    if rules.low == "holder":
        notes["2"] += ", for the team that played it"
    return notes


def point_card_labels(rules: PitchRules = DEFAULT_RULES) -> dict[str, str]:
    """Each point card as the host's form names it, with its worth (its note).

    >>> point_card_labels()["3"], point_card_labels()["HJ"]
    ('3 of trumps (3 points)', 'high joker (1 point)')
    """
    labels = {}
    for key, note in point_card_notes(rules).items():
        name = POINT_CARDS[key][0]
        trumps = "" if key in ("OJ", "HJ", "LJ") else " of trumps"
        labels[key] = f"{name}{trumps} ({note})"
    return labels


def scoring_rules(text: str) -> PitchRules:
    """The house rules written as ``text`` (``PitchRules.parse``), refused
    (NotationError, a ValueError) if one of them does not change a score.

    >>> str(scoring_rules("made=bid, low=holder"))
    'low=holder,made=bid'
    >>> scoring_rules("misdeal")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.game.errors.NotationError: house rule misdeal is about the play, not the score: ...
    """
    rules = PitchRules.parse(text)
    for name in RULE_CHOICES:
        if name not in SCORING_RULES and getattr(rules, name) != RULE_CHOICES[name][0]:
            raise NotationError(
                f"house rule {name} is about the play, not the score: the scorekeeper "
                f"takes {', '.join(SCORING_RULES)}"
            )
    return rules


@dataclasses.dataclass(frozen=True)
class HandEntry:
    """What the host said of one hand: the dealer, the pitcher and the bid
    (4 to 9, MOON, PLAIN_TEN), the points each team took (team A, team B),
    and, when given by the point cards, which team each counted for (None:
    burned, scored by nobody)."""

    dealer: int
    pitcher: int
    bid: int
    taken: tuple[int, int]
    cards: tuple[tuple[str, int | None], ...] | None = None

    @property
    def burned(self) -> int:
        """The points scored by nobody (burned, R6.5)."""
        return POINTS_IN_HAND - sum(self.taken)

    def to_dict(self) -> dict[str, Any]:
        """The entry as a host's message says it (:func:`read_entry` reads it back)."""
        bid = "moon" if self.bid == MOON else (10 if self.bid == PLAIN_TEN else self.bid)
        data: dict[str, Any] = {"dealer": self.dealer, "pitcher": self.pitcher, "bid": bid}
        if self.cards is None:
            data["taken"] = list(self.taken)
        else:
            data["cards"] = dict(self.cards)
        return data


@dataclasses.dataclass(frozen=True)
class ScoredHand:
    """A hand entered and scored: its number, the entry, the team scores
    before it, and the rules' outcome (after, made, the match's winner)."""

    number: int
    entry: HandEntry
    before: tuple[int, int]
    outcome: HandOutcome

    @property
    def made(self) -> bool:
        return self.outcome.made

    @property
    def after(self) -> tuple[int, int]:
        return self.outcome.team_scores

    @property
    def winning_team(self) -> int | None:
        """The team that won the match with this hand (None: play goes on)."""
        seat = self.outcome.match_winner
        return None if seat is None else seat % 2


class Scorekeeper:
    """A match's score to ``target`` for the four ``names`` (seats clockwise),
    under ``rules`` (PitchRules; only :data:`SCORING_RULES` matter here);
    ``dealer`` deals the first hand, then the deal passes left."""

    def __init__(
        self,
        names: Sequence[str],
        *,
        target: int = DEFAULT_TARGET,
        rules: PitchRules = DEFAULT_RULES,
        dealer: int = 0,
    ):
        if len(names) != PLAYERS:
            raise ValueError(f"Pitch is played by 4 players, not {len(names)}")
        if type(target) is not int or not 1 <= target <= MAX_TARGET:
            raise ValueError(
                f"the target must be a whole number from 1 to {MAX_TARGET}, not {target!r}"
            )
        _seat("the first dealer", dealer)
        self.names = tuple(names)
        self.target = target
        self.rules = rules
        self.first_dealer = dealer
        self.hands: list[ScoredHand] = []

    # -- the score ------------------------------------------------------------------

    @property
    def team_scores(self) -> tuple[int, int]:
        return self.hands[-1].after if self.hands else (0, 0)

    @property
    def dealer(self) -> int:
        """Who deals the next hand: the last dealer's left."""
        if not self.hands:
            return self.first_dealer
        return (self.hands[-1].entry.dealer + 1) % PLAYERS

    @property
    def winner(self) -> int | None:
        """The team that won the match (0: seats 0 and 2; 1: seats 1 and 3), or None."""
        return self.hands[-1].winning_team if self.hands else None

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def number(self) -> int:
        """The next hand's number (from 1)."""
        return len(self.hands) + 1

    def team(self, team: int) -> str:
        return team_name(team, self.names)

    # -- the host's entries ---------------------------------------------------------

    def enter(
        self,
        *,
        pitcher: int,
        bid: int,
        taken: tuple[int, int] | None = None,
        cards: Mapping[str, int | None] | None = None,
        dealer: int | None = None,
    ) -> ScoredHand:
        """Score one hand (see the module docstring); IllegalActionError in
        words for an entry the rules do not allow, and nothing changes."""
        entry = self.check(pitcher=pitcher, bid=bid, taken=taken, cards=cards, dealer=dealer)
        return self.add(entry)

    def check(
        self,
        *,
        pitcher: object,
        bid: object,
        taken: object = None,
        cards: object = None,
        dealer: object = None,
    ) -> HandEntry:
        """The entry these values make (of any type: a host's message), checked;
        IllegalActionError in words."""
        if self.over:
            raise IllegalActionError(
                f"the match is over ({self.team(self.winner or 0)} won): undo the last hand "
                "or start a new match"
            )
        dealt = _seat("the dealer", self.dealer if dealer is None else dealer)
        if pitcher is None:
            raise IllegalActionError("say who pitched (the player who won the bid)")
        seat = _seat("the pitcher", pitcher)
        contract = self._bid(bid)
        if (taken is None) == (cards is None):
            raise IllegalActionError(
                "say the points each team took, or which team took each point card (not both)"
            )
        listed: tuple[tuple[str, int | None], ...] | None = None
        if cards is not None:
            listed = _checked_cards(cards, self.names)
            taken = _cards_taken(listed)
        return HandEntry(dealt, seat, contract, self._checked_taken(taken), listed)

    def add(self, entry: HandEntry) -> ScoredHand:
        """Score a checked entry (:meth:`check`) as the next hand."""
        before = self.team_scores
        outcome = score_hand(
            self.rules,
            self.target,
            before,
            pitcher=entry.pitcher,
            contract=entry.bid,
            taken=entry.taken,
            burned_points=entry.burned,
        )
        hand = ScoredHand(self.number, entry, before, outcome)
        self.hands.append(hand)
        return hand

    def undo(self) -> ScoredHand:
        """Take the last hand back (the match goes on if it had ended it)."""
        if not self.hands:
            raise IllegalActionError("there is no hand to undo")
        return self.hands.pop()

    def _bid(self, bid: object) -> int:
        bids = [4, 5, 6, 7, 8, 9] + ([PLAIN_TEN] if self.rules.ten_bid else []) + [MOON]
        ten = ", 10" if self.rules.ten_bid else ""
        if bid is None:
            raise IllegalActionError(f"say the bid: 4 to 9{ten} or Shoot the Moon")
        if type(bid) is not int or bid not in bids:
            raise IllegalActionError(_bid_refusal(bid, self.rules))
        return bid

    def _checked_taken(self, taken: object) -> tuple[int, int]:
        if not isinstance(taken, (list, tuple)) or len(taken) != 2:
            raise IllegalActionError(
                f"the points taken are two numbers (team A, team B), not {_shown(taken)}"
            )
        for team, points in enumerate(taken):
            if points is None:
                raise IllegalActionError(f"say how many points {self.team(team)} took (0 to 10)")
            if type(points) is not int or not 0 <= points <= POINTS_IN_HAND:
                raise IllegalActionError(
                    f"{self.team(team)} took a whole number of points from 0 to "
                    f"{POINTS_IN_HAND}, not {_shown(points)}"
                )
        a, b = taken
        if a + b > POINTS_IN_HAND:
            raise IllegalActionError(
                f"{self.team(0)} took {a} and {self.team(1)} {b}: {a + b} points, "
                f"but a hand holds {POINTS_IN_HAND}"
            )
        return (a, b)

    # -- words ----------------------------------------------------------------------

    def hand_text(self, hand: ScoredHand) -> str:
        """The log's line for ``hand``: who dealt, the contract, what each team scored."""
        entry, out = hand.entry, hand.outcome
        side = entry.pitcher % 2
        pitcher = self.names[entry.pitcher]
        head = f"Hand {hand.number}, {self.names[entry.dealer]} dealt: "
        took = entry.taken[side]
        if out.moon:
            head += f"{pitcher} shot the Moon and " + (
                "took all 10." if out.made else f"took {took} of 10: the Moon failed."
            )
        else:
            verb = f"made it with {took}" if out.made else f"was set with {took}"
            head += f"{pitcher} bid {bid_name(entry.bid)} and {verb}."
        changes = [self._change(hand, team) for team in (side, 1 - side)]
        line = f"{head} {', '.join(changes)}: {_number(hand.after[0])} to {_number(hand.after[1])}."
        if entry.burned:
            line += f" {_points(entry.burned)} burned."
        if entry.cards is not None:
            line += " " + self._cards_text(entry.cards)
        return line

    def _change(self, hand: ScoredHand, team: int) -> str:
        change = hand.after[team] - hand.before[team]
        side = hand.entry.pitcher % 2
        if hand.outcome.moon and hand.outcome.made and team == side and hand.after[team] == 0:
            return f"{self.team(team)} back to 0"
        return f"{self.team(team)} {'+' if change >= 0 else ''}{_number(change)}"

    def _cards_text(self, cards: tuple[tuple[str, int | None], ...]) -> str:
        """``"(Ann and Cy: ace, 3; Bob and Dee: 10; burned: high joker)"``."""
        parts = []
        for team, label in ((0, self.team(0)), (1, self.team(1)), (None, "burned")):
            keys = [_short(key) for key, went in cards if went == team]
            if keys:
                parts.append(f"{label}: {', '.join(keys)}")
        return f"({'; '.join(parts)})"

    def result_text(self) -> str | None:
        """The match's end in words, or None while it goes on."""
        if not self.hands or self.winner is None:
            return None
        hand = self.hands[-1]
        won = self.winner
        score = hand.after[won]
        if hand.outcome.moon:
            side = hand.entry.pitcher % 2
            how = "made the Moon" if won == side else "saw the Moon fail"
            return f"{self.team(won)} win the match: they {how}, at {_number(score)} points."
        return (
            f"{self.team(won)} win the match with {_number(score)} points "
            f"after {hand.number} hands."
        )

    # -- saving ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The match as plain values: the players, the target, the house rules, the entries."""
        return {
            "names": list(self.names),
            "target": self.target,
            "rules": str(self.rules),
            "dealer": self.first_dealer,
            "hands": [hand.entry.to_dict() for hand in self.hands],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scorekeeper:
        """A match from :meth:`to_dict`, each hand checked and scored again;
        ValueError naming what is wrong."""
        keeper = cls(
            list(data["names"]),
            target=data["target"],
            rules=scoring_rules(str(data["rules"])),
            dealer=data["dealer"],
        )
        for n, saved in enumerate(data["hands"], 1):
            try:
                keeper.add(read_entry(saved, keeper))
            except ValueError as exc:
                raise ValueError(f"hand {n}: {exc}") from None
        return keeper


def read_entry(data: Mapping[str, Any], keeper: Scorekeeper) -> HandEntry:
    """A hand's entry from plain values (a host's message, a save file):
    ``pitcher``, ``bid`` (a number, or ``"moon"``; ``"10"`` the plain 10),
    ``dealer`` (optional: the next dealer), and ``taken`` ``[A, B]`` or
    ``cards`` ``{"A": 0, "3": 1, "HJ": null, ...}``; checked by
    :meth:`Scorekeeper.check`.

    >>> keeper = Scorekeeper(("Ann", "Bob", "Cy", "Dee"))
    >>> read_entry({"pitcher": 1, "bid": "moon", "taken": [0, 10]}, keeper).bid == MOON
    True
    >>> read_entry({"pitcher": 1, "bid": "seven", "taken": [0, 10]}, keeper)
    Traceback (most recent call last):
    ...
    engine.game.errors.IllegalActionError: the bid must be 4 to 9 or Shoot the Moon, not "seven"
    """
    return keeper.check(
        pitcher=data.get("pitcher"),
        bid=_read_bid(data.get("bid"), keeper.rules),
        taken=data.get("taken"),
        cards=data.get("cards"),
        dealer=data.get("dealer"),
    )


def _read_bid(bid: object, rules: PitchRules) -> object:
    """A bid as a message says it: 4 to 9, ``"moon"`` (Shoot the Moon) and,
    under the ten_bid house rule, 10 (the plain 10); a number may come as
    text. Anything else is left as it is, for the check to refuse."""
    if isinstance(bid, str):
        text = bid.strip().lower()
        if text in ("moon", "shoot the moon"):
            return MOON
        bid = int(text) if text.isdigit() else bid
    if type(bid) is int and bid >= 10:  # the rules' MOON is 10 and PLAIN_TEN 11: not on the wire
        if bid == 10 and rules.ten_bid:
            return PLAIN_TEN
        if bid == 10:
            raise IllegalActionError(
                'there is no plain 10 bid (but under the house rule ten_bid): the Moon is "moon"'
            )
        raise IllegalActionError(_bid_refusal(bid, rules))
    return bid


def _bid_refusal(bid: object, rules: PitchRules) -> str:
    ten = ", 10" if rules.ten_bid else ""
    return f"the bid must be 4 to 9{ten} or Shoot the Moon, not {_shown(bid)}"


def _seat(what: str, seat: object) -> int:
    if type(seat) is not int or not 0 <= seat < PLAYERS:
        raise IllegalActionError(f"{what} must be a player from 0 to 3, not {_shown(seat)}")
    return seat


def _checked_cards(cards: object, names: Sequence[str]) -> tuple[tuple[str, int | None], ...]:
    """Each point card's team (0, 1, or None: burned), every one of them said."""
    if not isinstance(cards, Mapping):
        raise IllegalActionError(
            f"the point cards are a table of card to team, not {_shown(cards)}"
        )
    unknown = [key for key in cards if key not in POINT_CARDS]
    if unknown:
        raise IllegalActionError(
            f"no point card {_shown(unknown[0])} (the point cards: {', '.join(POINT_CARDS)})"
        )
    missing = [_short(key) for key in POINT_CARDS if key not in cards]
    if missing:
        raise IllegalActionError(f"say who took the {_listed(missing)}: a team, or burned (nobody)")
    for key, team in cards.items():
        if team is not None and (type(team) is not int or team not in (0, 1)):
            raise IllegalActionError(
                f"the {_short(key)} went to {team_name(0, names)} (0), {team_name(1, names)} "
                f"(1) or was burned (null), not {_shown(team)}"
            )
    return tuple((key, cards[key]) for key in POINT_CARDS)


def _cards_taken(cards: tuple[tuple[str, int | None], ...]) -> tuple[int, int]:
    taken = [0, 0]
    for key, team in cards:
        if team is not None:
            taken[team] += CARD_POINTS[key]
    return (taken[0], taken[1])


def _short(key: str) -> str:
    """A point card's short name: "ace", "off-jack", "high joker", "3"."""
    return POINT_CARDS[key][0]


def _listed(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _number(n: int) -> str:
    """A score as the table writes it: a true minus sign (read aloud as "minus")."""
    return str(n).replace("-", "\u2212")


def _points(n: int) -> str:
    return f"{n} point{'' if n == 1 else 's'}"


def _shown(value: object) -> str:
    """A value as a refusal quotes it (JSON, so the sender recognises it)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
