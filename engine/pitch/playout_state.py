"""A Pitch match's position on ints for the playouts, and PitchGame's rules on it.

``HandState`` copies a PitchGame (engine.pitch.game) into plain lists of card
codes (engine.pitch.playout_codes) and plays its rules: the deal, the legal
choices of each phase in exactly the order ``legal_actions()`` lists the
actions, the bids, the trump and refill, the stock, the burns, the leads and
the score. engine.pitch.playout_fast's loop makes the decisions on it.
"""

from __future__ import annotations

from engine.game.shuffle import seeded_shuffle
from engine.pitch.actions import BIDS, MOON, PLAIN_TEN, bid_rank
from engine.pitch.cards import DECK, JOKERS, SUITS
from engine.pitch.game import PitchGame
from engine.pitch.playout_codes import (
    BID,
    BURN,
    CODE,
    HJ,
    LJ,
    OVER,
    PASS,
    PHASE_CODE,
    PLAY,
    POINTS,
    RANKS,
    REDEAL,
    STOCK,
    TRUMP,
)
from engine.pitch.scoring import HandOutcome, score_hand
from engine.pitch.state import CLOCKWISE, DEAL_SIZE, HAND_SIZE, PLAYERS

__all__ = ["HandState"]

_DEALT = DEAL_SIZE * PLAYERS
#: The misdeal rule's savers (PitchGame._misdealt): a joker, a face or a point card.
_SAVES = [c in JOKERS or c[0] in "AKQJT32" for c in DECK]


class HandState:
    """A Pitch match's position on codes (PitchGame's fields that play needs).

    Not kept: the dead cards, the deal and the tricks as Tricks (no rule reads
    them); kept instead: which codes were played (``played``) and who burned
    each (``burner``), for the heuristic's unseen trumps."""

    __slots__ = (
        "rules",
        "target",
        "seed",
        "shuffles",
        "dealer",
        "team",
        "start_team",
        "match_winner",
        "outcome",
        "hands",
        "stock",
        "discards",
        "phase",
        "to_act",
        "bids",
        "high",
        "pitcher",
        "trump",
        "refills",
        "burned",
        "burner",
        "trick",
        "order",
        "taken",
        "first_joker",
        "played",
        "values",
        "misdeal",
        "dealer_equal",
        "stuck_any",
        "refill_pitcher",
        "refills_hidden",
        "short_discards",
        "burn_down",
        "protected",
        "lead_partner",
        "low_holder",
        "unmarked",
        "packet",
    )

    def __init__(self, game: PitchGame) -> None:
        g = game
        rules = self.rules = g._rules
        self.target = g._target
        self.seed = g._seed
        self.shuffles = g._shuffles
        self.dealer = g._dealer
        self.team = g._team[:]
        self.start_team = g._start_team
        self.match_winner = g._match_winner
        self.outcome: HandOutcome | None = g._outcome
        to_code = CODE.__getitem__
        self.hands = [list(map(to_code, hand)) for hand in g._hands]
        self.stock = list(map(to_code, g._stock))
        self.discards = list(map(to_code, g._discards))
        self.phase = PHASE_CODE[g._phase]
        self.to_act = g._to_act
        self.bids = g._bids[:]
        self.high = g._high
        self.pitcher = g._pitcher
        self.trump = -1 if g._trump is None else SUITS.index(g._trump)
        self.refills = g._refills[:]
        self.burned = [(s, CODE[c]) for s, c in g._burned]
        self.burner = [-1] * len(DECK)
        for seat, code in self.burned:
            self.burner[code] = seat
        self.trick = [(s, CODE[c]) for s, c in g._trick]
        self.order = g._order
        self.taken = g._taken[:]
        self.first_joker = -1 if g._first_joker is None else CODE[g._first_joker]
        self.played = [False] * len(DECK)
        for _, card in [*(sc for trick in g._tricks for sc in trick.cards), *g._trick]:
            self.played[CODE[card]] = True
        self.values = (*BIDS[:-1], PLAIN_TEN, MOON) if rules.ten_bid else BIDS
        self.misdeal = rules.misdeal
        self.dealer_equal = rules.dealer_equal
        self.stuck_any = rules.stuck == "any"
        self.refill_pitcher = rules.refill == "pitcher"
        self.refills_hidden = rules.refill_counts == "hidden"
        self.short_discards = rules.short_stock == "discards"
        self.burn_down = rules.burn_face == "down"
        self.protected = rules.burn == "protected"
        self.lead_partner = rules.lead == "partner"
        self.low_holder = rules.low == "holder"
        self.unmarked = rules.jokers == "unmarked"
        self.packet = 3 if rules.deal == "threes" else 1

    @property
    def scores(self) -> tuple[int, ...]:
        a, b = self.team
        return (a, b, a, b)

    # -- the deal (PitchGame._deal_hand, next_round, _redeal) ----------------------------

    def next_round(self) -> None:
        self.dealer = (self.dealer + 1) % PLAYERS
        self.shuffles += 1
        self.deal()

    def deal(self) -> None:
        deck = list(range(len(DECK)))  # a shuffle moves places: codes shuffle as the cards
        seeded_shuffle(deck, seed=self.seed, count=self.shuffles)
        hands: list[list[int]] = [[], [], [], []]
        order = CLOCKWISE[(self.dealer + 1) % PLAYERS]
        packet = self.packet
        for i in range(_DEALT):
            hands[order[(i // packet) % PLAYERS]].append(deck[i])
        self.hands = hands
        self.stock = deck[_DEALT:]
        self.discards = []
        self.start_team = (self.team[0], self.team[1])
        self.phase = BID
        self.to_act = order[0]
        self.bids = []
        self.high = self.pitcher = None
        self.trump = -1
        self.refills = [None] * PLAYERS
        self.burned = []
        self.burner = [-1] * len(DECK)
        self.trick = []
        self.order = ()
        self.taken = [0, 0]
        self.first_joker = -1
        self.played = [False] * len(DECK)
        self.outcome = None

    # -- the legal choices, in legal_actions()'s order ------------------------------------

    def bid_choices(self, seat: int) -> list[int]:
        values = self.values
        extra = [REDEAL] if self.misdeal and not any(_SAVES[c] for c in self.hands[seat]) else []
        if seat == self.dealer and self.high is None:  # stuck (R5)
            return [*values, *extra] if self.stuck_any else [4, *extra]
        floor = 0 if self.high is None else bid_rank(self.high)
        if seat == self.dealer and self.dealer_equal:
            floor -= 1
        return [PASS, *(v for v in values if bid_rank(v) > floor), *extra]

    def playable(self, seat: int) -> list[int]:
        hand = self.hands[seat]
        if self.unmarked and HJ in hand and LJ in hand:
            return [c for c in hand if c != LJ]
        return hand

    def burnable(self, seat: int) -> list[int]:
        cards = self.playable(seat)
        if self.protected:
            points = POINTS[self.trump]
            blank = [c for c in cards if not points[c]]
            if blank:
                return blank
        return cards

    # -- the rules, as PitchGame's ---------------------------------------------------------

    def bid(self, seat: int, value: int) -> None:
        bid = None if value == PASS else value
        self.bids.append((seat, bid))
        if bid is not None:
            self.high, self.pitcher = bid, seat
        if bid == MOON or seat == self.dealer:
            self.phase = TRUMP
            self.to_act = self.pitcher
        else:
            self.to_act = (seat + 1) % PLAYERS

    def name_trump(self, suit: int) -> None:
        """Discard every non-trump, refill to 6 (R6.1-3)."""
        self.trump = suit
        ranks = RANKS[suit]
        hands, discards, stock = self.hands, self.discards, self.stock
        first = (self.dealer + 1) % PLAYERS
        for seat in CLOCKWISE[first]:
            hand = hands[seat]
            discards.extend([c for c in hand if ranks[c] < 0])
            hands[seat] = [c for c in hand if ranks[c] >= 0]
        if self.refill_pitcher:
            assert self.pitcher is not None
            first = self.pitcher
        for seat in CLOCKWISE[first]:
            hand = hands[seat]
            want = max(0, HAND_SIZE - len(hand))
            drawn = stock[:want]
            del stock[:want]
            if len(drawn) < want and self.short_discards:
                short = want - len(drawn)
                drawn += discards[-short:][::-1]
                del discards[len(discards) - short :]
            self.refills[seat] = len(drawn)
            hand.extend([c for c in drawn if ranks[c] >= 0])  # the rest is dead: out of play
        if stock:
            self.phase = STOCK
            self.to_act = self.pitcher
        else:
            self.after_stock()

    def take_stock(self, keep: bool) -> None:
        pitcher = self.pitcher
        assert pitcher is not None
        receiver = pitcher if keep else (pitcher + 2) % PLAYERS
        ranks = RANKS[self.trump]
        self.hands[receiver].extend([c for c in self.stock if ranks[c] >= 0])
        self.discards.extend([c for c in self.stock if ranks[c] < 0])
        self.stock = []
        self.after_stock()

    def after_stock(self) -> None:
        for seat in CLOCKWISE[(self.dealer + 1) % PLAYERS]:
            if len(self.hands[seat]) > HAND_SIZE:
                self.phase = BURN
                self.to_act = seat
                return
        self.phase = PLAY
        assert self.pitcher is not None
        leader = self.lead_from(self.pitcher)
        if leader is None:  # nobody holds a trump (cannot happen with 16 trumps in play)
            self.score()
        else:
            self.start_trick(leader)

    def burn(self, seat: int, card: int) -> None:
        hand = self.hands[seat]
        hand.remove(card)
        self.burned.append((seat, card))
        self.burner[card] = seat
        if len(hand) <= HAND_SIZE:
            self.after_stock()

    def lead_from(self, seat: int) -> int | None:
        hands = self.hands
        if hands[seat]:
            return seat
        if self.lead_partner and hands[(seat + 2) % PLAYERS]:
            return (seat + 2) % PLAYERS
        for other in CLOCKWISE[seat]:
            if hands[other]:
                return other
        return None

    def start_trick(self, leader: int) -> None:
        hands = self.hands
        self.order = tuple(s for s in CLOCKWISE[leader] if hands[s])
        self.to_act = leader

    def score(self) -> None:
        pitcher, contract = self.pitcher, self.high
        assert pitcher is not None and contract is not None
        points = POINTS[self.trump]
        outcome = score_hand(
            self.rules,
            self.target,
            self.start_team,
            pitcher=pitcher,
            contract=contract,
            taken=(self.taken[0], self.taken[1]),
            burned_points=sum(points[c] for _, c in self.burned),
        )
        self.outcome = outcome
        self.team = list(outcome.team_scores)
        self.match_winner = outcome.match_winner
        self.phase = OVER
        self.to_act = None
