"""What one seat may know of a Pitch hand: ``SeatView``, the only thing bots decide from.

A view holds the public facts (bids, trump, refill counts, the stock's fate,
burns shown face up, who is out, the tricks, the scores), the seat's own hand
and the cards it has seen: its deal, its refill, and the rest of the stock if
it received it (the receiver looks at what it got; a pitcher who gave it away
never saw it). Face-down burns show as None except to the burner. The public
view (seat None) holds no hand. No other hidden card is in a view.

>>> from engine.pitch.game import PitchGame
>>> game = PitchGame.new(seed=7, dealer=3)
>>> view = game.view(0)
>>> view.hand == game.hand(0), game.view(None).hand, view.legal[:2]
(True, (), (Action.parse('pass'), Action.parse('bid 4')))
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from engine.pitch.actions import Action
from engine.pitch.rules import PitchRules
from engine.pitch.scoring import HandOutcome

if TYPE_CHECKING:
    from engine.pitch.state import Phase, PitchState, Trick

__all__ = ["SeatView", "seat_view"]


@dataclasses.dataclass(frozen=True)
class SeatView:
    """Everything ``seat`` may know now (``seat`` None: the public's view)."""

    seat: int | None
    rules: PitchRules
    target: int
    round: int
    dealer: int
    #: The team scores (team A = seats 0 and 2, team B = 1 and 3), and per seat.
    team_scores: tuple[int, int]
    scores: tuple[int, ...]
    phase: Phase
    #: The seat to act, None when the hand is over.
    to_act: int | None
    #: The seat's legal actions now (empty unless it is to act).
    legal: tuple[Action, ...]
    #: The seat's cards (trumps high to low, then dead cards); () for the public.
    hand: tuple[str, ...]
    #: The seat's 9 dealt cards and its refill's cards (() for the public).
    dealt: tuple[str, ...]
    drawn: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    bids: tuple[tuple[int, int | None], ...]
    high_bid: int | None
    pitcher: int | None
    contract: int | None
    trump: str | None
    #: Cards each seat drew (None before the refill, or hidden by house rule).
    refills: tuple[int | None, ...]
    stock_size: int
    stock_kept: bool | None
    stock_receiver: int | None
    stock_received: int
    #: The rest of the stock, if this seat received it (else ()).
    stock_seen: tuple[str, ...]
    #: Every burn: (seat, card), card None when face down and not this seat's.
    burned: tuple[tuple[int, str | None], ...]
    out: tuple[bool, ...]
    leader: int | None
    trick: tuple[tuple[int, str], ...]
    tricks: tuple[Trick, ...]
    taken: tuple[int, int]
    outcome: HandOutcome | None
    match_winner: int | None

    @property
    def forced(self) -> bool:
        """One legal action only (R7: it may be auto-played)."""
        return len(self.legal) == 1

    @property
    def played(self) -> tuple[str, ...]:
        """Every card played this hand, in order (finished tricks, then the current one)."""
        return tuple(c for t in self.tricks for _, c in t.cards) + tuple(c for _, c in self.trick)


def seat_view(game: PitchState, seat: int | None, legal: tuple[Action, ...] = ()) -> SeatView:
    """``game`` as ``seat`` may know it (None: the public); ``legal``: the seat's
    legal actions (the game's to give: the state has no rules)."""
    if seat is not None and (not isinstance(seat, int) or not 0 <= seat < 4):
        raise ValueError(f"a view is of seat 0-3 or None (the public), not {seat!r}")
    rules = game.rules
    down = rules.burn_face == "down"
    burned = tuple((s, c if not down or s == seat else None) for s, c in game.burned)
    refills = game.refills
    if rules.refill_counts == "hidden":
        refills = tuple(n if s == seat else None for s, n in enumerate(refills))
    own = seat is not None
    return SeatView(
        seat=seat,
        rules=rules,
        target=game.target,
        round=game.round,
        dealer=game.dealer,
        team_scores=game.team_scores,
        scores=game.scores,
        phase=game.phase,
        to_act=game.to_act,
        legal=legal if own else (),
        hand=game.hand(seat) if seat is not None else (),
        dealt=game.dealt(seat) if seat is not None else (),
        drawn=game.drawn(seat) if seat is not None else (),
        hand_sizes=tuple(game.hand_size(s) for s in range(4)),
        bids=game.bids,
        high_bid=game.high_bid,
        pitcher=game.pitcher,
        contract=game.contract,
        trump=game.trump,
        refills=refills,
        stock_size=game.stock_size,
        stock_kept=game.stock_kept,
        stock_receiver=game.stock_receiver,
        stock_received=game.stock_received,
        stock_seen=game.stock_cards if own and seat == game.stock_receiver else (),
        burned=burned,
        out=game.out,
        leader=game.leader,
        trick=game.trick,
        tricks=game.tricks,
        taken=game.taken,
        outcome=game.outcome,
        match_winner=game.match_winner,
    )
