"""Pitch's encoding for the environment (engine.rl): actions as numbers, what a seat sees as bytes.

The action space is fixed (124 numbers): pass, the bids 4 to 9, the plain 10
(the ``ten_bid`` house rule) and the Moon, redeal, the four trumps, keep,
give, then a burn and a play of each of the 54 cards (engine.pitch.cards.DECK's
order). No action names a seat.

An observation is what the seat's ``SeatView`` holds, as bytes, seats counted
from the observer (0 is the observer, 1 the seat to its left), teams as
"ours" then "theirs":

==================  =====  ================================================
part                size   values
==================  =====  ================================================
hand                54     1 at each card the seat holds (trumps and dead cards)
stock seen          54     the rest of the stock, if this seat received it
burned, shown       54     every burn the seat may see (face up, or its own)
played              54     the cards of this hand's finished tricks
trick               4x54   the current trick's card of each seat
trump, phase        4+6    1 at the trump suit; 1 at the phase
dealer, to act      4+4    1 at the dealer's seat; at the seat to act
pitcher, leader     4+4    1 at the high bidder's (the pitcher's); the leader's
out                 4      1 at each seat without trumps (trick play)
bids                4      0 none yet, 1 a pass, 2 + the bid's rank (4-11)
refills             4      1 + the cards each seat drew (0: not yet, or hidden)
burns               4      how many cards each seat burned
contract, high bid  2      the bids' ranks (0: none)
stock               5      its size; kept; given; cards received; receiver is us
taken, scores       4      points taken ours, theirs; team scores + 100 (0-255)
==================  =====  ================================================

>>> codec = make_codec("pitch", 4)
>>> len(codec.actions[0]), codec.observation_size
(124, 485)
"""

from __future__ import annotations

from typing import Any

from engine.pitch.actions import BIDS, MOON, PLAIN_TEN, Action, bid_rank
from engine.pitch.cards import DECK, SUITS
from engine.pitch.state import PLAYERS, Phase

__all__ = ["PitchCodec", "make_codec"]

_CARD = {card: i for i, card in enumerate(DECK)}
_SUIT = {suit: i for i, suit in enumerate(SUITS)}
_PHASE = {phase.value: i for i, phase in enumerate(Phase)}
_PLAYING, _OVER = Phase.PLAY, Phase.OVER  # a global is cheaper than the enum's attribute
_C = len(DECK)
# Where each part starts.
_HAND, _STOCK_SEEN, _BURNED, _PLAYED, _TRICK = 0, _C, 2 * _C, 3 * _C, 4 * _C
_TRUMP = _TRICK + PLAYERS * _C
_PHASE_AT = _TRUMP + 4
_DEALER = _PHASE_AT + len(_PHASE)
_TO_ACT, _PITCHER, _LEADER, _OUT = _DEALER + 4, _DEALER + 8, _DEALER + 12, _DEALER + 16
_BIDS, _REFILLS, _BURNS = _OUT + 4, _OUT + 8, _OUT + 12
_CONTRACT = _BURNS + 4
_STOCK = _CONTRACT + 2
_TAKEN = _STOCK + 5
_SIZE = _TAKEN + 4
#: For each seat, where each seat's "out" byte goes (seats counted from it).
_OUT_OF = [
    tuple((_OUT + k, (seat + k) % PLAYERS) for k in range(PLAYERS)) for seat in range(PLAYERS)
]
#: Scores are written shifted by this, so a set team's negative score is a byte too.
SCORE_OFFSET = 100


def make_codec(variant: str, players: int, house_rules: Any = None) -> PitchCodec:
    """Pitch's codec (four seats; ValueError for any other number)."""
    if players != PLAYERS:
        raise ValueError(f"10 Point Pitch is for {PLAYERS} players, not {players}")
    return PitchCodec()


class _Seen:
    """What one seat's kept observation was written from (``PitchCodec.update``)."""

    __slots__ = (
        "cards",
        "stock",
        "burned",
        "burns",
        "tricks",
        "played",
        "trick",
        "bids",
        "bid_count",
        "refills",
        "settings",
        "taken",
        "scores",
        "marks",
    )

    def __init__(self, game: Any = None) -> None:
        self.cards: list[str] = []
        self.stock: tuple[str, ...] = ()
        # The game's list (a new one each deal) and how many of its items are
        # written: none yet of the game's lists when it is given (its deal).
        self.burned: list[tuple[int, str]] | None = None if game is None else game._burned
        self.burns = 0
        self.tricks: list[Any] | None = None if game is None else game._tricks
        self.played = 0
        self.bids: list[tuple[int, int | None]] | None = None if game is None else game._bids
        self.bid_count = 0
        self.trick: list[tuple[int, str]] = []
        self.refills: list[int | None] = [None] * PLAYERS
        # The facts settled before trick play, as last written (None: not yet;
        # the PLAY phase once written in trick play: they no longer change).
        self.settings: tuple[Any, ...] | Phase | None = None
        self.taken: list[int] = [0, 0]
        self.scores: list[int] | None = None
        #: Where the one of trump, phase, dealer, to act, pitcher, leader is (_SIZE: nowhere).
        self.marks = [_SIZE] * 6


class PitchCodec:
    """The encoding of 10 Point Pitch (engine.rl.codec.Codec)."""

    def __init__(self) -> None:
        plain = [Action.pass_(), *(Action.bid(b) for b in (*BIDS[:-1], PLAIN_TEN, MOON))]
        plain += [Action.redeal(), *(Action.trump(s) for s in SUITS), Action.keep(), Action.give()]
        plain += [Action.burn(card) for card in DECK] + [Action.play(card) for card in DECK]
        index = {action: i for i, action in enumerate(plain)}
        self.actions = [plain] * PLAYERS
        self.index = [index] * PLAYERS
        self.observation_size = _SIZE
        #: The game waits for one seat at a time, its ``to_act`` (engine.rl.codec.Codec).
        self.one_actor = True
        high = bytearray(b"\x01" * _SIZE)
        high[_BIDS : _BIDS + 4] = bytes([13] * 4)
        high[_REFILLS : _CONTRACT + 2] = bytes([255] * 10)
        high[_STOCK:_SIZE] = bytes([255, 1, 1, 255, 1, 255, 255, 255, 255])
        self.observation_high = bytes(high)
        self._zero = bytes(_SIZE)
        self._before = (0, 0)  # the team scores when the hand was dealt
        # What ``update`` keeps of each seat: the observation (and a spare byte,
        # where a mark that is nowhere points) and what it was written from.
        self._kept = [bytearray(_SIZE + 1) for _ in range(PLAYERS)]
        self._seen = [_Seen() for _ in range(PLAYERS)]

    def start_round(self, game: Any) -> None:
        """Keep the scores the hand starts from; forget what each seat's kept
        observation held (a new hand)."""
        self._before = game.team_scores
        for seat in range(PLAYERS):
            self._kept[seat][:_SIZE] = self._zero
            self._seen[seat] = _Seen(game)

    def update(self, game: Any, seat: int) -> bytearray:
        """``seat``'s kept observation brought up to date and returned
        (engine.rl.codec.Codec.update; the buffer has a spare byte past the end).

        The cards that came or went are written (the hand, the stock seen,
        the current trick), the burns, finished tricks and bids appended
        since the seat's last update (all again when the game's list is a
        new one: a new deal), each "1 at" fact moved only when it moved.
        Equal to ``observe``'s bytes (tests/test_rl_incremental.py).
        """
        out = self._kept[seat]
        seen = self._seen[seat]
        cards = game._hands[seat] + game._dead[seat]
        if cards != seen.cards:
            for card in seen.cards:
                out[_CARD[card]] = 0
            for card in cards:
                out[_CARD[card]] = 1
            seen.cards = cards
        stock = game._received if seat == game._receiver else ()
        if stock != seen.stock:
            for card in seen.stock:
                out[_STOCK_SEEN + _CARD[card]] = 0
            for card in stock:
                out[_STOCK_SEEN + _CARD[card]] = 1
            seen.stock = stock
        self._update_lists(game, seat, out, seen)
        trick = game._trick
        if trick != seen.trick:
            for player, card in seen.trick:
                out[_TRICK + (player - seat) % 4 * _C + _CARD[card]] = 0
            for player, card in trick:
                out[_TRICK + (player - seat) % 4 * _C + _CARD[card]] = 1
            seen.trick = trick[:]
        marks = seen.marks
        # To act and the leader move every trick; the rest only before trick play.
        at = _SIZE if (who := game._to_act) is None else _TO_ACT + (who - seat) % 4
        if marks[3] != at:
            out[marks[3]], out[at], marks[3] = 0, 1, at
        at = _SIZE if (who := game._leader) is None else _LEADER + (who - seat) % 4
        if marks[5] != at:
            out[marks[5]], out[at], marks[5] = 0, 1, at
        phase = game._phase
        if phase is not _PLAYING or seen.settings is not _PLAYING:
            # Trick play changes none of these (game.py: all is set before it).
            settings = (
                phase,
                game._trump,
                game._dealer,
                game._pitcher,
                game._high,
                game._kept,
                len(game._stock),
                game._received,
                game._receiver,
            )
            if settings != seen.settings:
                self._write_settings(game, seat, out, marks)
            seen.settings = _PLAYING if phase is _PLAYING else settings
        if phase is _PLAYING or phase is _OVER:
            hands = game._hands
            for at, other in _OUT_OF[seat]:
                out[at] = not hands[other]
        refills = game._refills
        if refills != seen.refills:
            hidden = game._rules.refill_counts == "hidden"
            for player, drew in enumerate(refills):
                visible = drew is not None and (not hidden or player == seat)
                out[_REFILLS + (player - seat) % 4] = 1 + drew if visible else 0
            seen.refills = refills[:]
        taken, scores = game._taken, game._team
        if taken != seen.taken or scores != seen.scores:
            us = seat % 2
            for at, value in (
                (_TAKEN, taken[us]),
                (_TAKEN + 1, taken[1 - us]),
                (_TAKEN + 2, scores[us] + SCORE_OFFSET),
                (_TAKEN + 3, scores[1 - us] + SCORE_OFFSET),
            ):
                out[at] = value if 0 <= value <= 255 else 0 if value < 0 else 255
            seen.taken, seen.scores = taken[:], scores[:]
        return out

    def _write_settings(self, game: Any, seat: int, out: bytearray, marks: list[int]) -> None:
        """What is settled before trick play: trump, phase, dealer, pitcher, bids, stock."""
        trump = game._trump
        for k, at in (
            (0, _SIZE if trump is None else _TRUMP + _SUIT[trump]),
            (1, _PHASE_AT + _PHASE[game._phase._value_]),
            (2, _DEALER + (game._dealer - seat) % 4),
            (4, _SIZE if (who := game._pitcher) is None else _PITCHER + (who - seat) % 4),
        ):
            if marks[k] != at:
                out[marks[k]], out[at], marks[k] = 0, 1, at
        contract, high_bid = game.contract, game._high
        out[_CONTRACT] = 0 if contract is None else bid_rank(contract)
        out[_CONTRACT + 1] = 0 if high_bid is None else bid_rank(high_bid)
        kept = game._kept
        out[_STOCK] = len(game._stock)  # of 54 cards: a byte
        out[_STOCK + 1] = kept is True
        out[_STOCK + 2] = kept is False
        out[_STOCK + 3] = len(game._received)
        out[_STOCK + 4] = game._receiver == seat

    def _update_lists(self, game: Any, seat: int, out: bytearray, seen: _Seen) -> None:
        """The burns, finished tricks and bids appended since ``seat``'s last update."""
        burned: list[tuple[int, str]] = game._burned
        if burned is not seen.burned or len(burned) < seen.burns:
            out[_BURNED : _BURNED + _C] = bytes(_C)
            out[_BURNS : _BURNS + 4] = bytes(4)
            seen.burned, seen.burns = burned, 0
        if len(burned) != seen.burns:
            down = game._rules.burn_face == "down"
            for burner, card in burned[seen.burns :]:
                out[_BURNS + (burner - seat) % 4] += 1
                if not down or burner == seat:
                    out[_BURNED + _CARD[card]] = 1
            seen.burns = len(burned)
        tricks: list[Any] = game._tricks
        if tricks is not seen.tricks or len(tricks) < seen.played:
            out[_PLAYED : _PLAYED + _C] = bytes(_C)
            seen.tricks, seen.played = tricks, 0
        if len(tricks) != seen.played:
            for trick in tricks[seen.played :]:
                for _, card in trick.cards:
                    out[_PLAYED + _CARD[card]] = 1
            seen.played = len(tricks)
        bids: list[tuple[int, int | None]] = game._bids
        if bids is not seen.bids or len(bids) < seen.bid_count:
            out[_BIDS : _BIDS + 4] = bytes(4)
            seen.bids, seen.bid_count = bids, 0
        if len(bids) != seen.bid_count:
            for bidder, bid in bids[seen.bid_count :]:
                out[_BIDS + (bidder - seat) % 4] = 1 if bid is None else 2 + bid_rank(bid)
            seen.bid_count = len(bids)

    def observe(self, game: Any, seat: int, out: bytearray) -> None:
        """What ``seat`` may know (as engine.pitch.view.seat_view decides)."""
        out[:] = self._zero
        for card in game._hands[seat] + game._dead[seat]:
            out[_CARD[card]] = 1
        if seat == game.stock_receiver:
            for card in game.stock_cards:
                out[_STOCK_SEEN + _CARD[card]] = 1
        rules = game.rules
        down = rules.burn_face == "down"
        for burner, card in game._burned:
            out[_BURNS + (burner - seat) % 4] += 1
            if not down or burner == seat:
                out[_BURNED + _CARD[card]] = 1
        for trick in game._tricks:
            for _, card in trick.cards:
                out[_PLAYED + _CARD[card]] = 1
        for player, card in game._trick:
            out[_TRICK + (player - seat) % 4 * _C + _CARD[card]] = 1
        trump = game.trump
        if trump is not None:
            out[_TRUMP + _SUIT[trump]] = 1
        phase = game.phase
        out[_PHASE_AT + _PHASE[phase.value]] = 1
        out[_DEALER + (game.dealer - seat) % 4] = 1
        for at, who in ((_TO_ACT, game.to_act), (_PITCHER, game.pitcher), (_LEADER, game.leader)):
            if who is not None:
                out[at + (who - seat) % 4] = 1
        if phase is Phase.PLAY or phase is Phase.OVER:
            for k in range(4):
                out[_OUT + k] = not game._hands[(seat + k) % 4]
        for bidder, bid in game._bids:
            out[_BIDS + (bidder - seat) % 4] = 1 if bid is None else 2 + bid_rank(bid)
        hidden = rules.refill_counts == "hidden"
        for player, drew in enumerate(game._refills):
            if drew is not None and (not hidden or player == seat):
                out[_REFILLS + (player - seat) % 4] = 1 + drew
        contract, high_bid = game.contract, game.high_bid
        out[_CONTRACT] = 0 if contract is None else bid_rank(contract)
        out[_CONTRACT + 1] = 0 if high_bid is None else bid_rank(high_bid)
        kept = game.stock_kept
        out[_STOCK : _STOCK + 5] = bytes(
            [
                min(255, game.stock_size),
                kept is True,
                kept is False,
                min(255, game.stock_received),
                game.stock_receiver == seat,
            ]
        )
        us = seat % 2
        taken, scores = game.taken, game.team_scores
        out[_TAKEN:_SIZE] = bytes(
            min(255, max(0, value))
            for value in (
                taken[us],
                taken[1 - us],
                scores[us] + SCORE_OFFSET,
                scores[1 - us] + SCORE_OFFSET,
            )
        )

    def rewards(self, game: Any) -> tuple[float, ...]:
        """Each seat's team's points of the hand (its score's change: negative when set)."""
        after, before = game.team_scores, self._before
        return tuple(float(after[seat % 2] - before[seat % 2]) for seat in range(PLAYERS))
