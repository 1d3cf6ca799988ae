"""What a 10 Point Pitch match holds, and its facts read-only: the hand's phases,
a finished trick, and ``PitchState``, the game's state that the views, the
notation and the refusals read (engine.pitch.game's ``PitchGame`` adds the
rules: the deal, the legal actions and ``apply``).
"""

from __future__ import annotations

import enum
from typing import ClassVar, Self

from engine.game.errors import StateError
from engine.pitch.actions import Action
from engine.pitch.cards import sort_hand
from engine.pitch.rules import PitchRules
from engine.pitch.scoring import HandOutcome

__all__ = [
    "PitchState",
    "Phase",
    "Trick",
    "PLAYERS",
    "DEAL_SIZE",
    "HAND_SIZE",
    "TEAMS",
    "CLOCKWISE",
]

PLAYERS = 4
DEAL_SIZE = 9
#: The hand after the refill, and the most trumps a player may keep (R6).
HAND_SIZE = 6
TEAMS = ((0, 2), (1, 3))
#: seat -> the four seats clockwise from it.
CLOCKWISE = tuple(tuple((s + i) % PLAYERS for i in range(PLAYERS)) for s in range(PLAYERS))


class Phase(enum.Enum):
    BID = "bid"
    TRUMP = "trump"
    STOCK = "stock"
    BURN = "burn"
    PLAY = "play"
    OVER = "over"


class Trick:
    """A finished trick: who led, the cards in order (seat, card), who won it,
    and the points its winner's team scored from it (with the ``low=holder``
    house rule a 2 played by the other team scores for that team instead)."""

    __slots__ = ("leader", "cards", "winner", "points")

    def __init__(
        self, leader: int, cards: tuple[tuple[int, str], ...], winner: int, points: int
    ) -> None:
        self.leader, self.cards, self.winner, self.points = leader, cards, winner, points

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trick):
            return NotImplemented
        return (self.leader, self.cards, self.winner, self.points) == (
            other.leader,
            other.cards,
            other.winner,
            other.points,
        )

    def __hash__(self) -> int:
        return hash((self.leader, self.cards, self.winner, self.points))

    def __repr__(self) -> str:
        return f"Trick({self.leader}, {self.cards!r}, {self.winner}, {self.points})"


class PitchState:
    """The state of a Pitch match and its facts (engine.pitch.game.PitchGame plays it)."""

    family: ClassVar[str] = "pitch"
    out_of_turn: ClassVar[bool] = False
    players: int = PLAYERS
    teams: tuple[tuple[int, ...], ...] = TEAMS
    variant = "pitch"
    round_over: bool
    # The match's state (the hand's is set by _deal_hand).
    _rules: PitchRules
    _target: int
    _seed: int
    _shuffles: int
    _dealer: int
    _round: int
    _team: list[int]
    _match_winner: int | None

    # The hand's state (set by PitchGame._deal_hand).
    _deck: tuple[str, ...]
    _dealt: tuple[tuple[str, ...], ...]
    _start_team: tuple[int, int]
    _hands: list[list[str]]
    _dead: list[list[str]]
    _stock: list[str]
    _discards: list[str]
    _log: list[Action]
    _phase: Phase
    _to_act: int | None
    _bids: list[tuple[int, int | None]]
    _high: int | None
    _pitcher: int | None
    _trump: str | None
    _refills: list[int | None]
    _drawn: list[tuple[str, ...]]
    _receiver: int | None
    _received: tuple[str, ...]
    _kept: bool | None
    _burned: list[tuple[int, str]]
    _trick: list[tuple[int, str]]
    _order: tuple[int, ...]
    _leader: int | None
    _tricks: list[Trick]
    _taken: list[int]
    _first_joker: str | None
    _outcome: HandOutcome | None
    _legal: list[Action] | None

    def copy(self) -> Self:
        """An independent game in the same position (for search and tests)."""
        game = type(self).__new__(type(self))
        game.__dict__.update(self.__dict__)
        game._team = self._team[:]
        game._hands = [h[:] for h in self._hands]
        game._dead = [d[:] for d in self._dead]
        game._stock = self._stock[:]
        game._discards = self._discards[:]
        game._log = self._log[:]
        game._bids = self._bids[:]
        game._refills = self._refills[:]
        game._drawn = self._drawn[:]
        game._burned = self._burned[:]
        game._trick = self._trick[:]
        game._tricks = self._tricks[:]
        game._taken = self._taken[:]
        return game

    # -- the interface's facts -----------------------------------------------------------

    @property
    def rules(self) -> PitchRules:
        return self._rules

    house_rules = rules

    @property
    def target(self) -> int:
        return self._target

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def shuffles(self) -> int:
        """The number of the current hand's shuffle (0 for the first deal)."""
        return self._shuffles

    @property
    def round(self) -> int:
        return self._round

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def team_scores(self) -> tuple[int, int]:
        return (self._team[0], self._team[1])

    @property
    def scores(self) -> tuple[int, ...]:
        a, b = self._team
        return (a, b, a, b)

    @staticmethod
    def team_of(seat: int) -> int:
        return seat % 2

    @property
    def match_winner(self) -> int | None:
        """None, or the first seat of the winning team (0 or 1)."""
        return self._match_winner

    winning_team = match_winner

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def to_act(self) -> int | None:
        return self._to_act

    @property
    def waiting_for(self) -> tuple[int, ...]:
        return () if self._to_act is None else (self._to_act,)

    @property
    def pending_showdown(self) -> None:
        return None

    @property
    def outcome(self) -> HandOutcome | None:
        return self._outcome

    def claimants(self) -> tuple[int, ...]:
        return ()

    def check_claim(self, action: object) -> None:
        raise StateError("10 Point Pitch has no actions out of turn")

    def settle_showdown(self, loser: int) -> None:
        raise StateError("10 Point Pitch has no showdowns")

    # -- the hand's public facts -------------------------------------------------------

    @property
    def bids(self) -> tuple[tuple[int, int | None], ...]:
        """(seat, bid or None for a pass), in order."""
        return tuple(self._bids)

    @property
    def high_bid(self) -> int | None:
        return self._high

    @property
    def pitcher(self) -> int | None:
        """The high bidder so far; the pitcher once the bidding is over."""
        return self._pitcher

    @property
    def contract(self) -> int | None:
        """The winning bid, once the bidding is over."""
        return None if self._phase is Phase.BID else self._high

    @property
    def trump(self) -> str | None:
        return self._trump

    @property
    def refills(self) -> tuple[int | None, ...]:
        """The cards each seat drew in the refill (None before it)."""
        return tuple(self._refills)

    @property
    def stock_receiver(self) -> int | None:
        return self._receiver

    @property
    def stock_received(self) -> int:
        return len(self._received)

    @property
    def stock_kept(self) -> bool | None:
        """True if the pitcher kept the stock, False if given, None before (or no stock left)."""
        return self._kept

    @property
    def burned(self) -> tuple[tuple[int, str], ...]:
        """Every burn (seat, card), real cards: the views hide face-down ones."""
        return tuple(self._burned)

    @property
    def out(self) -> tuple[bool, ...]:
        """The seats with no trump left, in trick play (all False before it)."""
        if self._phase is not Phase.PLAY and self._phase is not Phase.OVER:
            return (False,) * PLAYERS
        return tuple(not h for h in self._hands)

    @property
    def trick(self) -> tuple[tuple[int, str], ...]:
        return tuple(self._trick)

    @property
    def leader(self) -> int | None:
        return self._leader

    @property
    def tricks(self) -> tuple[Trick, ...]:
        return tuple(self._tricks)

    @property
    def taken(self) -> tuple[int, int]:
        return (self._taken[0], self._taken[1])

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    @property
    def discard_count(self) -> int:
        return len(self._discards)

    def hand(self, seat: int) -> tuple[str, ...]:
        """The seat's cards: trumps high to low, then its dead cards."""
        return sort_hand(self._hands[seat] + self._dead[seat], self._trump)

    def hand_size(self, seat: int) -> int:
        return len(self._hands[seat]) + len(self._dead[seat])

    def trumps_in_hand(self, seat: int) -> int:
        """How many trumps the seat holds (0 before trump is named)."""
        return 0 if self._trump is None else len(self._hands[seat])

    def dealt(self, seat: int) -> tuple[str, ...]:
        """The 9 cards the seat was dealt, in deal order."""
        return self._dealt[seat]

    def drawn(self, seat: int) -> tuple[str, ...]:
        """The cards the seat drew in the refill."""
        return self._drawn[seat]

    @property
    def stock_cards(self) -> tuple[str, ...]:
        """The rest of the stock the receiver got (hidden: only it and, if kept, saw them)."""
        return self._received

    @property
    def log(self) -> tuple[Action, ...]:
        """The hand's actions so far, in order."""
        return tuple(self._log)

    @property
    def deck(self) -> tuple[str, ...]:
        """The hand's deck as dealt, top first (hidden)."""
        return self._deck
