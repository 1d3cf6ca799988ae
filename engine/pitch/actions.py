"""Pitch's actions: every decision a hand asks for, with a text form that round-trips.

=======  ===============  ===============================================
kind     text             meaning
=======  ===============  ===============================================
BID      ``bid 4``        bid 4 to 9, or ``bid moon`` (Shoot the Moon)
PASS     ``pass``         pass (each player bids once)
TRUMP    ``trump H``      the pitcher names the trump suit
KEEP     ``keep``         the pitcher takes the rest of the stock
GIVE     ``give``         the pitcher hands it, unseen, to the partner
BURN     ``burn 5H``      a player with more than 6 trumps burns one
PLAY     ``play AH``      play a trump to the trick
REDEAL   ``redeal``       the misdeal house rule: ask for a new deal
=======  ===============  ===============================================

With the ``ten_bid`` house rule a plain ``bid 10`` (value ``PLAIN_TEN``) ranks
between 9 and the Moon: compare bids with :func:`bid_rank`, and ask
:func:`contract_points` what a bid must take.

Actions are shared values: building one twice gives the same object, so
``==`` and ``hash()`` are by identity and cost next to nothing.

>>> Action.parse("Bid Moon") is Action.bid(MOON)
True
>>> Action.parse("burn 10h"), str(Action.play("AH"))
(Action.parse('burn TH'), 'play AH')
"""

from __future__ import annotations

import enum
from typing import Any, NoReturn

from engine.game.errors import NotationError
from engine.pitch.cards import DECK, SUITS, parse_card

__all__ = [
    "Kind",
    "Action",
    "MOON",
    "PLAIN_TEN",
    "MIN_BID",
    "BIDS",
    "bid_rank",
    "contract_points",
]

#: The Shoot the Moon bid's value: a contract to take all 10 points.
MOON = 10
#: A plain 10 bid, only with the ``ten_bid`` house rule: it ranks below the
#: Moon (bid_rank), must take 10 points and scores as any other bid.
PLAIN_TEN = 11
MIN_BID = 4
#: The bids of the default rules, low to high.
BIDS = (4, 5, 6, 7, 8, 9, MOON)
_BID_RANKS = {4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, PLAIN_TEN: 10, MOON: 11}


def bid_rank(bid: int) -> int:
    """How high ``bid`` ranks (4 ... 9, the plain 10, then the Moon).

    >>> sorted([MOON, PLAIN_TEN, 9], key=bid_rank) == [9, PLAIN_TEN, MOON]
    True
    """
    return _BID_RANKS[bid]


def contract_points(bid: int) -> int:
    """The points a bid must take: 4 to 9, 10 for the Moon and the plain 10."""
    return 10 if bid in (MOON, PLAIN_TEN) else bid


class Kind(enum.Enum):
    BID = "bid"
    PASS = "pass"
    TRUMP = "trump"
    KEEP = "keep"
    GIVE = "give"
    BURN = "burn"
    PLAY = "play"
    REDEAL = "redeal"


_EXAMPLES = "e.g. bid 4, bid moon, pass, trump H, keep, give, burn 5H, play AH, redeal"


class Action:
    """One decision: its ``kind`` and ``value`` (the bid, the suit, the card, or None)."""

    __slots__ = ("kind", "value", "_text")
    kind: Kind
    value: int | str | None
    _text: str

    def __init__(self, kind: Kind, value: int | str | None, text: str):
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "_text", text)

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"an Action is frozen: cannot set {name}")

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (Action.parse, (self._text,))

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Action.parse({self._text!r})"

    @property
    def card(self) -> str:
        """The card of a burn or a play (ValueError for any other action)."""
        if self.kind is Kind.BURN or self.kind is Kind.PLAY:
            assert isinstance(self.value, str)
            return self.value
        raise ValueError(f"{self} names no card")

    @staticmethod
    def bid(n: int) -> Action:
        """A bid: 4 to 9, MOON, or PLAIN_TEN (the ``ten_bid`` house rule)."""
        try:
            return _BID_ACTIONS[n]
        except (KeyError, TypeError):
            raise NotationError(f"{n!r} is not a bid (4 to 9, or the Moon)") from None

    @staticmethod
    def pass_() -> Action:
        return _PASS

    @staticmethod
    def trump(suit: str) -> Action:
        try:
            return _TRUMP_ACTIONS[suit.upper()]
        except (KeyError, AttributeError):
            raise NotationError(f"{suit!r} is not a suit (C, D, H or S)") from None

    @staticmethod
    def keep() -> Action:
        return _KEEP

    @staticmethod
    def give() -> Action:
        return _GIVE

    @staticmethod
    def burn(card: str) -> Action:
        return _BURN_ACTIONS[parse_card(card)]

    @staticmethod
    def play(card: str) -> Action:
        return _PLAY_ACTIONS[parse_card(card)]

    @staticmethod
    def redeal() -> Action:
        return _REDEAL

    @staticmethod
    def parse(text: str) -> Action:
        """The action ``text`` names (case-insensitive); NotationError in words otherwise.

        >>> Action.parse("bid 3")
        Traceback (most recent call last):
        ...
        engine.game.errors.NotationError: 'bid 3' is not an action: bids are 4 to 9 or moon
        """
        if not isinstance(text, str):
            raise NotationError(f"an action must be text, not {type(text).__name__}")
        words = text.strip().lower().split()
        action = _BY_TEXT.get(" ".join(words))
        if action is not None:
            return action
        if len(words) == 2 and words[0] in ("burn", "play"):
            try:
                card = parse_card(words[1])
            except NotationError:
                raw = text.split()[1]
                raise NotationError(f"{text!r} is not an action: {raw!r} is no card") from None
            return (_BURN_ACTIONS if words[0] == "burn" else _PLAY_ACTIONS)[card]
        if words and words[0] == "bid":
            raise NotationError(f"{text!r} is not an action: bids are 4 to 9 or moon")
        if words and words[0] == "trump":
            raise NotationError(f"{text!r} is not an action: trump is C, D, H or S")
        raise NotationError(f"{text!r} is not an action ({_EXAMPLES})")


_BID_ACTIONS = {n: Action(Kind.BID, n, f"bid {n}") for n in BIDS[:-1]}
_BID_ACTIONS[PLAIN_TEN] = Action(Kind.BID, PLAIN_TEN, "bid 10")
_BID_ACTIONS[MOON] = Action(Kind.BID, MOON, "bid moon")
_PASS = Action(Kind.PASS, None, "pass")
_KEEP = Action(Kind.KEEP, None, "keep")
_GIVE = Action(Kind.GIVE, None, "give")
_REDEAL = Action(Kind.REDEAL, None, "redeal")
_TRUMP_ACTIONS = {s: Action(Kind.TRUMP, s, f"trump {s}") for s in SUITS}
_BURN_ACTIONS = {c: Action(Kind.BURN, c, f"burn {c}") for c in DECK}
_PLAY_ACTIONS = {c: Action(Kind.PLAY, c, f"play {c}") for c in DECK}
_BY_TEXT = {
    str(a).lower(): a
    for a in (
        *_BID_ACTIONS.values(),
        _PASS,
        _KEEP,
        _GIVE,
        _REDEAL,
        *_TRUMP_ACTIONS.values(),
    )
}
