"""A 10 Point Pitch match, hand by hand (RULES.md "10 Point Pitch", R1-R9).

``PitchGame`` implements engine.game.interface.GameState. A hand runs through
its phases: BID (each seat once, from the dealer's left), TRUMP (the pitcher
names it; every non-trump is discarded and the hands refilled to 6 at once),
STOCK (the pitcher keeps the rest of the stock or gives it unseen to the
partner; skipped when the refill emptied it), BURN (anyone with more than 6
trumps burns one card per action), PLAY (trumps only; a seat without trumps is
out), then OVER (scored: ``outcome``). ``next_round()`` deals the next hand.

Only the deals use randomness: each is the seeded shuffle number ``shuffles``
of the game's ``seed`` (engine.game.shuffle), so the same seed deals the same
hands whatever is played, and a game read back from its notation deals on.

>>> game = PitchGame.new(seed=7, dealer=3)
>>> game.phase, game.waiting_for, [str(a) for a in game.legal_actions()][:3]
(<Phase.BID: 'bid'>, (0,), ['pass', 'bid 4', 'bid 5'])
>>> for text in ("pass", "bid 5", "pass", "pass", "trump S"):
...     game.apply(Action.parse(text))
>>> game.pitcher, game.contract, game.trump, game.phase, game.refills
(1, 5, 'S', <Phase.STOCK: 'stock'>, (2, 3, 4, 3))
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.game.errors import IllegalActionError, InvariantError, NotationError, StateError
from engine.game.shuffle import seeded_shuffle
from engine.pitch.actions import BIDS, MOON, PLAIN_TEN, Action, Kind, bid_rank
from engine.pitch.cards import (
    CARD_COUNT,
    DECK,
    HIGH_JOKER,
    JOKERS,
    LOW_JOKER,
    POINT_TABLES,
    RANK_TABLES,
)
from engine.pitch.notation import action_token, read_notation, write_notation
from engine.pitch.rules import DEFAULT_RULES, PitchRules
from engine.pitch.scoring import HandOutcome, score_hand
from engine.pitch.state import CLOCKWISE, DEAL_SIZE, HAND_SIZE, PLAYERS, Phase, PitchState, Trick
from engine.pitch.view import SeatView, seat_view

__all__ = ["PitchGame", "Phase", "Trick", "HandOutcome", "HAND_SIZE", "DEAL_SIZE", "PLAYERS"]

#: The misdeal rule's qualifying cards: a face card (J, Q, K) or a card that can score.
_MISDEAL_SAVERS = frozenset("AKQJT32")

_BID_ACTIONS = {n: Action.bid(n) for n in (*BIDS, PLAIN_TEN)}
_PLAY = {c: Action.play(c) for c in DECK}
_BURN = {c: Action.burn(c) for c in DECK}
_PASS, _KEEP, _GIVE, _REDEAL = Action.pass_(), Action.keep(), Action.give(), Action.redeal()
_TRUMPS = [Action.trump(s) for s in ("C", "D", "H", "S")]


class PitchGame(PitchState):
    """One match of 10 Point Pitch: four seats, teams (0, 2) and (1, 3), to ``target``."""

    # -- a new match -------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        players: int = PLAYERS,
        variant: str = "pitch",
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        target: int = 52,
        house_rules: PitchRules | str | None = None,
        dealer: int | None = None,
    ) -> PitchGame:
        """Deal the first hand. ``seed`` (an int >= 0), or a seed drawn from
        ``rng``, or from the OS; ``dealer`` None: chosen at random from the seed."""
        if players != PLAYERS:
            raise ValueError(f"10 Point Pitch takes exactly 4 players, not {players!r}")
        if variant != "pitch":
            raise ValueError(f"the Pitch family plays 'pitch', not {variant!r}")
        if not isinstance(target, int) or isinstance(target, bool) or target < 1:
            raise ValueError(f"target must be a positive score, not {target!r}")
        seed = _match_seed(seed, rng)
        if dealer is None:
            dealer = random.Random(seed).randrange(PLAYERS)
        elif not isinstance(dealer, int) or not 0 <= dealer < PLAYERS:
            raise ValueError(f"dealer must be a seat 0-3, not {dealer!r}")
        if house_rules is None:
            house_rules = DEFAULT_RULES
        elif isinstance(house_rules, str):
            house_rules = PitchRules.parse(house_rules)
        elif not isinstance(house_rules, PitchRules):
            raise TypeError(f"house_rules must be PitchRules, not {type(house_rules).__name__}")
        game = cls.__new__(cls)
        game._rules = house_rules
        game._target = target
        game._seed = seed
        game._shuffles = 0
        game._dealer = dealer
        game._round = 1
        game._team = [0, 0]
        game._match_winner = None
        game._deal_hand(game.shuffled_deck(0))
        return game

    def shuffled_deck(self, count: int) -> list[str]:
        """The deck as the game's shuffle number ``count`` leaves it."""
        cards = list(DECK)
        seeded_shuffle(cards, seed=self._seed, count=count)
        return cards

    def _deal_hand(self, deck: Sequence[str]) -> None:
        """Deal ``deck`` (top first): 9 cards each from the dealer's left, 18 to the stock."""
        if len(deck) != CARD_COUNT:
            raise ValueError(f"a deal takes the {CARD_COUNT} cards, not {len(deck)}")
        hands: list[list[str]] = [[] for _ in range(PLAYERS)]
        order = CLOCKWISE[(self._dealer + 1) % PLAYERS]
        packet = 3 if self._rules.deal == "threes" else 1
        for i in range(DEAL_SIZE * PLAYERS):
            hands[order[(i // packet) % PLAYERS]].append(deck[i])
        self._deck = tuple(deck)
        self._dealt = tuple(tuple(h) for h in hands)
        self._start_team = (self._team[0], self._team[1])
        self._hands = hands
        self._dead: list[list[str]] = [[] for _ in range(PLAYERS)]
        self._stock = list(deck[DEAL_SIZE * PLAYERS :])
        self._discards: list[str] = []
        self._log: list[Action] = []
        self._phase = Phase.BID
        self._to_act: int | None = order[0]
        self._bids: list[tuple[int, int | None]] = []
        self._high: int | None = None
        self._pitcher: int | None = None
        self._trump: str | None = None
        self._refills: list[int | None] = [None] * PLAYERS
        self._drawn: list[tuple[str, ...]] = [()] * PLAYERS
        self._receiver: int | None = None
        self._received: tuple[str, ...] = ()
        self._kept: bool | None = None
        self._burned: list[tuple[int, str]] = []
        self._trick: list[tuple[int, str]] = []
        self._order: tuple[int, ...] = ()
        self._leader: int | None = None
        self._tricks: list[Trick] = []
        self._taken = [0, 0]
        self._first_joker: str | None = None
        self._outcome: HandOutcome | None = None
        self._legal: list[Action] | None = None
        self.round_over = False

    def next_round(self) -> None:
        """Deal the next hand: the deal passes left, a new shuffle."""
        if self._phase is not Phase.OVER:
            raise StateError(f"the hand is not over: {self.notation()}")
        if self._match_winner is not None:
            raise StateError(
                f"the match is over (team {'AB'[self._match_winner]} won): {self.notation()}"
            )
        self._dealer = (self._dealer + 1) % PLAYERS
        self._round += 1
        self._shuffles += 1
        self._deal_hand(self.shuffled_deck(self._shuffles))

    @property
    def forced(self) -> bool:
        """Whether the seat to act has one legal action only (R7's auto-play)."""
        return self._to_act is not None and len(self.legal_actions()) == 1

    # -- legal actions -----------------------------------------------------------------

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """The actions ``player`` (by default the seat to act) may take now; [] for others."""
        seat = self._to_act
        if seat is None or (player is not None and player != seat):
            return []
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal(seat)
        return list(legal)

    def _compute_legal(self, seat: int) -> list[Action]:
        phase = self._phase
        if phase is Phase.PLAY:
            return [_PLAY[c] for c in self._playable(self._hands[seat])]
        if phase is Phase.BID:
            return self._bid_actions(seat)
        if phase is Phase.TRUMP:
            return list(_TRUMPS)
        if phase is Phase.STOCK:
            return [_KEEP, _GIVE]
        return [_BURN[c] for c in self._burnable(seat)]

    def _bid_values(self) -> tuple[int, ...]:
        return (*BIDS[:-1], PLAIN_TEN, MOON) if self._rules.ten_bid else BIDS

    def _bid_actions(self, seat: int) -> list[Action]:
        rules = self._rules
        values = self._bid_values()
        extra = [_REDEAL] if rules.misdeal and self._misdealt(seat) else []
        if seat == self._dealer and self._high is None:  # stuck (R5)
            if rules.stuck == "four":
                return [_BID_ACTIONS[4], *extra]
            return [_BID_ACTIONS[v] for v in values] + extra
        floor = 0 if self._high is None else bid_rank(self._high)
        if seat == self._dealer and rules.dealer_equal:
            floor -= 1
        return [_PASS] + [_BID_ACTIONS[v] for v in values if bid_rank(v) > floor] + extra

    def _misdealt(self, seat: int) -> bool:
        """No face card and no point card in the seat's dealt hand (the misdeal rule)."""
        return not any(c in JOKERS or c[0] in _MISDEAL_SAVERS for c in self._hands[seat])

    def _playable(self, cards: list[str]) -> list[str]:
        """``cards`` (trumps), less the low joker beside the high when jokers are unmarked."""
        if self._rules.jokers == "unmarked" and HIGH_JOKER in cards and LOW_JOKER in cards:
            return [c for c in cards if c != LOW_JOKER]
        return cards

    def _burnable(self, seat: int) -> list[str]:
        cards = self._playable(self._hands[seat])
        if self._rules.burn == "protected":
            assert self._trump is not None
            points = POINT_TABLES[self._trump]
            blank = [c for c in cards if not points[c]]
            if blank:
                return blank
        return cards

    def is_legal(self, action: object, player: int | None = None) -> bool:
        seat = self._to_act
        if seat is None or (player is not None and player != seat):
            return False
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal(seat)
        return action in legal

    # -- apply -------------------------------------------------------------------------

    def apply(self, action: Action | str, player: int | None = None) -> None:
        """Take ``action`` for ``player`` (by default the seat to act);
        IllegalActionError in words if it is not legal (nothing changes then)."""
        if isinstance(action, str):
            action = Action.parse(action)
        seat = self._to_act
        if seat is None or (player is not None and player != seat) or not self.is_legal(action):
            from engine.pitch.refusals import why_illegal

            raise IllegalActionError(why_illegal(self, action, seat if player is None else player))
        self._legal = None
        self._log.append(action)
        kind = action.kind
        value = action.value
        if kind is Kind.PLAY:
            assert isinstance(value, str)
            self._play(seat, value)
        elif kind is Kind.BID or kind is Kind.PASS:
            assert value is None or isinstance(value, int)
            self._bid(seat, value)
        elif kind is Kind.TRUMP:
            assert isinstance(value, str)
            self._name_trump(value)
        elif kind is Kind.KEEP or kind is Kind.GIVE:
            self._take_stock(kind is Kind.KEEP)
        elif kind is Kind.BURN:
            assert isinstance(value, str)
            self._burn(seat, value)
        else:
            self._redeal()

    def _bid(self, seat: int, bid: int | None) -> None:
        self._bids.append((seat, bid))
        if bid is not None:
            self._high, self._pitcher = bid, seat
        if bid == MOON or seat == self._dealer:
            self._phase = Phase.TRUMP
            self._to_act = self._pitcher
        else:
            self._to_act = (seat + 1) % PLAYERS

    def _redeal(self) -> None:
        """The misdeal rule: the same dealer deals again from a new shuffle."""
        self._shuffles += 1
        self._deal_hand(self.shuffled_deck(self._shuffles))

    def _name_trump(self, suit: str) -> None:
        """Name trump, discard every non-trump, refill to 6 (R6.1-3)."""
        self._trump = suit
        ranks = RANK_TABLES[suit]
        first = (self._dealer + 1) % PLAYERS
        for seat in CLOCKWISE[first]:
            hand = self._hands[seat]
            self._discards.extend(c for c in hand if c not in ranks)
            self._hands[seat] = [c for c in hand if c in ranks]
        if self._rules.refill == "pitcher":
            assert self._pitcher is not None
            first = self._pitcher
        stock = self._stock
        for seat in CLOCKWISE[first]:
            hand = self._hands[seat]
            want = max(0, HAND_SIZE - len(hand))
            drawn = stock[:want]
            del stock[:want]
            if len(drawn) < want and self._rules.short_stock == "discards":
                short = want - len(drawn)
                drawn += self._discards[-short:][::-1]
                del self._discards[len(self._discards) - short :]
            self._refills[seat] = len(drawn)
            self._drawn[seat] = tuple(drawn)
            for card in drawn:
                (hand if card in ranks else self._dead[seat]).append(card)
        if stock:
            self._phase = Phase.STOCK
            self._to_act = self._pitcher
        else:
            self._after_stock()

    def _take_stock(self, keep: bool) -> None:
        """The rest of the stock to the pitcher, or unseen to the partner (R6.4)."""
        pitcher = self._pitcher
        assert pitcher is not None and self._trump is not None
        receiver = pitcher if keep else (pitcher + 2) % PLAYERS
        ranks = RANK_TABLES[self._trump]
        cards = tuple(self._stock)
        self._stock.clear()
        self._kept, self._receiver, self._received = keep, receiver, cards
        self._hands[receiver].extend(c for c in cards if c in ranks)
        self._discards.extend(c for c in cards if c not in ranks)
        self._after_stock()

    def _after_stock(self) -> None:
        """Anyone with more than 6 trumps burns (R6.5), else trick play starts."""
        for seat in CLOCKWISE[(self._dealer + 1) % PLAYERS]:
            if len(self._hands[seat]) > HAND_SIZE:
                self._phase = Phase.BURN
                self._to_act = seat
                return
        self._start_play()

    def _burn(self, seat: int, card: str) -> None:
        self._hands[seat].remove(card)
        self._burned.append((seat, card))
        if len(self._hands[seat]) <= HAND_SIZE:
            self._after_stock()

    def _start_play(self) -> None:
        self._phase = Phase.PLAY
        assert self._pitcher is not None
        leader = self._lead_from(self._pitcher)
        if leader is None:  # nobody holds a trump (cannot happen with 16 trumps in play)
            self._score()
        else:
            self._start_trick(leader)

    def _lead_from(self, seat: int) -> int | None:
        """Who leads when ``seat`` should (R7): it, or whom the lead passes to."""
        hands = self._hands
        if hands[seat]:
            return seat
        if self._rules.lead == "partner" and hands[(seat + 2) % PLAYERS]:
            return (seat + 2) % PLAYERS
        for other in CLOCKWISE[seat]:
            if hands[other]:
                return other
        return None

    def _start_trick(self, leader: int) -> None:
        hands = self._hands
        self._leader = leader
        self._order = tuple(s for s in CLOCKWISE[leader] if hands[s])
        self._to_act = leader

    def _play(self, seat: int, card: str) -> None:
        self._hands[seat].remove(card)
        trick = self._trick
        trick.append((seat, card))
        if card in JOKERS and self._first_joker is None:
            self._first_joker = card
        if len(trick) < len(self._order):
            self._to_act = self._order[len(trick)]
        else:
            self._end_trick()

    def _end_trick(self) -> None:
        trump = self._trump
        assert trump is not None and self._leader is not None
        ranks = RANK_TABLES[trump]
        unmarked = self._rules.jokers == "unmarked"
        best = -1
        winner = self._leader
        for seat, card in self._trick:
            rank = ranks[card]
            if unmarked and card in JOKERS:
                rank = ranks[HIGH_JOKER if card == self._first_joker else LOW_JOKER]
            if rank > best:
                best, winner = rank, seat
        points = POINT_TABLES[trump]
        side = winner % 2
        won = 0
        low = "2" + trump
        for seat, card in self._trick:
            value = points[card]
            if card == low and self._rules.low == "holder":
                self._taken[seat % 2] += value
                if seat % 2 == side:
                    won += value
            else:
                self._taken[side] += value
                won += value
        self._tricks.append(Trick(self._leader, tuple(self._trick), winner, won))
        self._trick = []
        leader = self._lead_from(winner)
        if leader is None:
            self._score()
        else:
            self._start_trick(leader)

    def _score(self) -> None:
        pitcher, contract, trump = self._pitcher, self._high, self._trump
        assert pitcher is not None and contract is not None and trump is not None
        points = POINT_TABLES[trump]
        outcome = score_hand(
            self._rules,
            self._target,
            self._start_team,
            pitcher=pitcher,
            contract=contract,
            taken=(self._taken[0], self._taken[1]),
            burned_points=sum(points[c] for _, c in self._burned),
        )
        self._outcome = outcome
        self._team = list(outcome.team_scores)
        self._match_winner = outcome.match_winner
        self._phase = Phase.OVER
        self._to_act = None
        self._leader = None
        self._order = ()
        self.round_over = True

    # -- views, notation, checks ---------------------------------------------------------

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may know (None: the public), engine.pitch.view."""
        legal = tuple(self.legal_actions(seat)) if seat is not None else ()
        return seat_view(self, seat, legal)

    def notation(self, reveal: bool = False) -> str:
        """The position in one line (engine.pitch.notation); hidden cards only with ``reveal``."""
        return write_notation(self, reveal)

    @classmethod
    def from_notation(cls, text: str) -> PitchGame:
        """The game written as ``text`` (a revealed notation); NotationError otherwise:
        the hand dealt as written, then its actions replayed."""
        written = read_notation(text)
        game = cls.new(
            seed=written.seed,
            target=written.target,
            house_rules=written.rules,
            dealer=written.dealer,
        )
        game._round = written.round
        game._shuffles = written.shuffles
        game._team = list(written.team)
        game._match_winner = None
        game._deal_hand(written.deck)
        for i, action in enumerate(written.actions):
            try:
                if action.kind is Kind.REDEAL:
                    raise IllegalActionError("a redeal starts a new deal: it is never in the log")
                game.apply(action)
            except IllegalActionError as exc:
                token = action_token(action)
                raise NotationError(
                    f"the notation's action {i + 1} ({token!r}) cannot be played: {exc}"
                ) from None
        return game

    def check_invariants(self) -> None:
        """InvariantError unless the 54 cards are each in exactly one place."""
        places = [
            *self._hands,
            *self._dead,
            self._stock,
            self._discards,
            [c for _, c in self._burned],
            [c for _, c in self._trick],
            [c for t in self._tricks for _, c in t.cards],
        ]
        cards = [c for place in places for c in place]
        if len(cards) != CARD_COUNT or set(cards) != set(DECK):
            raise InvariantError(
                f"{len(cards)} cards, {len(set(cards))} different, not the {CARD_COUNT}: "
                f"{self.notation()}"
            )
        if self._trump is not None:
            ranks = RANK_TABLES[self._trump]
            if any(c not in ranks for h in self._hands for c in h):
                raise InvariantError(f"a dead card among the trumps: {self.notation()}")
        if (self._phase is Phase.OVER) != self.round_over or (
            (self._to_act is None) != (self._phase is Phase.OVER)
        ):
            raise InvariantError(f"phase {self._phase.value} and its seat disagree")

    def __repr__(self) -> str:
        return f"<PitchGame {self.notation()}>"


def _match_seed(seed: object, rng: random.Random | None) -> int:
    if seed is not None and rng is not None:
        raise TypeError("give seed or rng, not both")
    if rng is not None:
        return rng.getrandbits(64)
    if seed is None:
        return random.SystemRandom().getrandbits(64)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, not {seed!r}")
    return seed
