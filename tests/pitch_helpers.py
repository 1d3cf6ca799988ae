"""What the 10 Point Pitch rule tests share.

The reference facts are written here from ../shared/RULES.md ("10 Point Pitch", R1-R9), not
taken from engine/pitch, so that a test compares the engine with the rules and not with
itself: the trump order, the points, who wins a trick, what a hand scores.

Positions are dealt card by card (``deal_game``, through the notation: the rules helper's,
kept as it wrote it), or reached through the public API only: a seeded deal (``deal``), then the
actions each seat is made to choose (``win_bidding``, ``to_stock``, ``to_play``,
``play_hand``). A position that needs a particular deal is found by trying seeds in order
(``first``); the seed it finds is kept, so each search runs once per test run.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from engine.pitch import DECK, parse_card
from engine.pitch.actions import MOON, PLAIN_TEN, Action, Kind
from engine.pitch.game import Phase, PitchGame
from engine.pitch.notation import FIELDS as NOTATION_FIELDS
from engine.pitch.rules import PitchRules
from engine.pitch.scoring import HandOutcome

__all__ = [
    "SUITS",
    "FULL_DECK",
    "HEARTS_HIGH_TO_LOW",
    "ref_off_jack",
    "ref_trump_order",
    "ref_is_trump",
    "ref_points",
    "ref_winner",
    "HOUSE",
    "rules",
    "rewritten",
    "deal",
    "act",
    "bid_text",
    "seat_to_act",
    "win_bidding",
    "to_stock",
    "to_play",
    "burn_lowest",
    "play_lowest",
    "play_highest",
    "team_plays",
    "trump_of",
    "refill_counts",
    "outcome",
    "play_hand",
    "trumps_held",
    "first",
    "moon_made",
    "a_moon_hand",
    "card_tokens",
    "strings_in",
    "team",
    "RefTricks",
    "play_checked",
    "ref_hand_score",
    "cards",
    "deal_text",
    "deal_game",
    "play_out",
]

SUITS = ("C", "D", "H", "S")
RANKS_HIGH_TO_LOW = "AKQJT98765432"
#: The 54 cards of R2: 52 standard cards and the high and low jokers.
FULL_DECK = frozenset([r + s for r in RANKS_HIGH_TO_LOW for s in SUITS] + ["HJ", "LJ"])
#: R3's ranking, hearts trump, as RULES.md writes it.
HEARTS_HIGH_TO_LOW = (
    *("AH", "KH", "QH", "JH", "JD", "HJ", "LJ", "TH"),
    *("9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H"),
)
T = TypeVar("T")
_SAME_COLOUR = {"H": "D", "D": "H", "S": "C", "C": "S"}


def ref_off_jack(trump: str) -> str:
    """The jack of the other suit of the trump's colour (R3)."""
    return "J" + _SAME_COLOUR[trump]


def ref_trump_order(trump: str) -> tuple[str, ...]:
    """R3: A K Q J, the off-jack, the high and low jokers, 10 ... 2."""
    high = tuple(rank + trump for rank in "AKQJ")
    low = tuple(rank + trump for rank in "T98765432")
    return (*high, ref_off_jack(trump), "HJ", "LJ", *low)


def ref_is_trump(card: str, trump: str) -> bool:
    return card in ref_trump_order(trump)


def ref_points(card: str, trump: str) -> int:
    """R8's table: A, J, off-jack, both jokers, 10 and 2 of trumps one each; the 3 three."""
    if not ref_is_trump(card, trump):
        return 0
    if card[0] == "3":
        return 3
    return 1 if card in ("HJ", "LJ") or card[0] in "AJT2" else 0


def ref_winner(plays: Iterable[tuple[int, str]], trump: str, low_joker_high: bool = False) -> int:
    """The seat whose trump ranks highest (R7). ``low_joker_high``: the jokers are
    unmarked and the one marked low here was played first, so it is the high one (R2)."""
    order = list(ref_trump_order(trump))
    if low_joker_high:
        order[order.index("LJ")], order[order.index("HJ")] = "HJ", "LJ"
    return min(plays, key=lambda play: order.index(play[1]))[0]


def team(seat: int) -> int:
    """R1: seats 0 and 2 are team A (0), seats 1 and 3 team B (1)."""
    return seat % 2


#: RULES.md's house rules, by the names these tests give them, and the PitchRules keywords
#: that turn each on (the fields are engine/pitch/rules.py's: docs/pitch.md lists them).
HOUSE: dict[str, dict[str, Any]] = {
    "unmarked_jokers": {"jokers": "unmarked"},  # R2
    "deal_threes": {"deal": "threes"},  # R4
    "misdeal": {"misdeal": True},  # R4
    "ten_bid": {"ten_bid": True},  # R5
    "dealer_equal_bid": {"dealer_equal": True},  # R5
    "stuck_dealer_any_bid": {"stuck": "any"},  # R5
    "refill_pitcher_first": {"refill": "pitcher"},  # R6.3
    "refill_counts_hidden": {"refill_counts": "hidden"},  # R6.3
    "short_stock_discards": {"short_stock": "discards"},  # R6.3
    "burn_face_down": {"burn_face": "down"},  # R6.5
    "keep_point_trumps": {"burn": "protected"},  # R6.5
    "lead_to_partner": {"lead": "partner"},  # R7
    "low_to_holder": {"low": "holder"},  # R8
    "add_only_the_bid": {"made": "bid"},  # R9
    "moon_score_after": {"moon_score": "after"},  # R9
    "moon_zero_resets": {"moon_zero": "resets"},  # R9
    "both_out_higher": {"both_out": "higher"},  # R9
}


# -- building games -----------------------------------------------------------------------


def rewritten(game: PitchGame, **fields: str) -> PitchGame:
    """``game`` read back from its revealed notation with some fields changed, e.g.
    ``scores="-9,30"``, ``target="21"`` or ``rules="moon_zero=resets"``."""
    line = game.notation(reveal=True).split(" ")
    for name, value in fields.items():
        line[NOTATION_FIELDS.index(name)] = value
    again = PitchGame.from_notation(" ".join(line))
    again.check_invariants()
    return again


def rules(**house: Any) -> PitchRules:
    """The house rules with these fields changed from the defaults."""
    return PitchRules(**house)


def deal(seed: int = 0, dealer: int | None = 0, target: int = 52, **house: Any) -> PitchGame:
    """A new game, ``dealer`` dealing, house rules as PitchRules keywords."""
    game = PitchGame.new(4, seed=seed, dealer=dealer, target=target, house_rules=rules(**house))
    game.check_invariants()
    return game


def seat_to_act(game: PitchGame) -> int:
    (seat,) = game.waiting_for
    return seat


def act(game: PitchGame, text: str, seat: int | None = None) -> None:
    """Apply the action ``text`` for ``seat`` (default: the seat waited for)."""
    game.apply(Action.parse(text), seat_to_act(game) if seat is None else seat)
    game.check_invariants()


def bid_text(bid: int | None) -> str:
    if bid is None:
        return "pass"
    if bid == PLAIN_TEN:
        return "bid 10"
    return "bid moon" if bid == MOON else f"bid {bid}"


def win_bidding(game: PitchGame, pitcher: int, bid: int = 4) -> None:
    """Every seat passes but ``pitcher``, who bids ``bid``. A dealer who is to bid more
    than the stuck 4 is first bid against with a 4 by the seat on its right."""
    rightmost = (game.dealer - 1) % 4
    while game.phase is Phase.BID:
        seat = seat_to_act(game)
        if seat == pitcher:
            act(game, bid_text(bid))
        elif seat == rightmost and pitcher == game.dealer and bid > 4 and game.high_bid is None:
            act(game, "bid 4")
        else:
            act(game, "pass")
    assert game.pitcher == pitcher, game.notation(reveal=True)


def to_stock(game: PitchGame, pitcher: int, suit: str, bid: int = 4) -> PitchGame:
    """Bidding won by ``pitcher`` at ``bid``, ``suit`` named: the discard and refill done."""
    win_bidding(game, pitcher, bid)
    act(game, f"trump {suit}")
    return game


def burn_lowest(game: PitchGame, seat: int) -> str:
    """The burn a careful player makes: its lowest legal trump, a non-point one if it can."""
    burns = [a.card for a in game.legal_actions(seat) if a.kind is Kind.BURN]
    trump = trump_of(game)
    order = ref_trump_order(trump)
    return max(burns, key=lambda card: (ref_points(card, trump) == 0, order.index(card)))


def to_play(
    game: PitchGame,
    pitcher: int,
    suit: str,
    bid: int = 4,
    stock: str = "keep",
    burn: Callable[[PitchGame, int], str] = burn_lowest,
) -> PitchGame:
    """On to trick play: ``stock`` ("keep" or "give") decided, the burns chosen by ``burn``."""
    to_stock(game, pitcher, suit, bid)
    if game.phase is Phase.STOCK:
        act(game, stock)
    while game.phase is Phase.BURN:
        seat = seat_to_act(game)
        act(game, f"burn {burn(game, seat)}")
    return game


def refill_counts(game: PitchGame) -> tuple[int, ...]:
    """The cards each seat drew in the refill (which must be done)."""
    counts = game.refills
    assert None not in counts, counts
    return tuple(count or 0 for count in counts)


def outcome(game: PitchGame) -> HandOutcome:
    """The scored hand's outcome (the hand must be over)."""
    assert game.outcome is not None, game.notation(reveal=True)
    return game.outcome


def trump_of(game: PitchGame) -> str:
    """The trump suit of a game past the trump's naming."""
    assert game.trump is not None, game.notation(reveal=True)
    return game.trump


def _plays(game: PitchGame, seat: int) -> list[str]:
    return [a.card for a in game.legal_actions(seat) if a.kind is Kind.PLAY]


def play_lowest(game: PitchGame, seat: int) -> str:
    order = ref_trump_order(trump_of(game))
    return max(_plays(game, seat), key=order.index)


def play_highest(game: PitchGame, seat: int) -> str:
    order = ref_trump_order(trump_of(game))
    return min(_plays(game, seat), key=order.index)


def team_plays(strong: int) -> Callable[[PitchGame, int], str]:
    """Team ``strong`` plays its highest trump, the other team its lowest."""

    def choose(game: PitchGame, seat: int) -> str:
        return play_highest(game, seat) if team(seat) == strong else play_lowest(game, seat)

    return choose


def play_hand(
    game: PitchGame, choose: Callable[[PitchGame, int], str] = play_lowest
) -> list[tuple[int, str]]:
    """Play the tricks out, each card chosen by ``choose``; the plays in order."""
    plays = []
    while game.phase is Phase.PLAY:
        seat = seat_to_act(game)
        card = choose(game, seat)
        act(game, f"play {card}")
        plays.append((seat, card))
    return plays


def trumps_held(game: PitchGame, seat: int, trump: str) -> list[str]:
    """The cards of ``seat``'s hand that R3 calls trumps of ``trump``."""
    return [card for card in game.hand(seat) if ref_is_trump(card, trump)]


def moon_made(game: PitchGame, pitcher: int) -> str | None:
    """``game`` (at the deal) with a suit in which ``pitcher`` keeps the stock and makes
    the Moon, its team playing high and the other low; None if no suit does."""
    for suit in SUITS:
        trial = to_play(game.copy(), pitcher, suit, bid=MOON)
        model = play_checked(trial, team_plays(team(pitcher)))
        if model.taken[team(pitcher)] == 10:
            return suit
    return None


def a_moon_hand(seed: int) -> tuple[PitchGame, str] | None:
    """Seed ``seed``'s deal, dealer 3, and a suit in which seat 0 (the first to bid) makes
    the Moon as moon_made plays it."""
    game = deal(seed, dealer=3)
    suit = moon_made(game, 0)
    return (game, suit) if suit else None


@functools.cache
def _first_seed(build: Callable[[int], Any], limit: int, start: int = 0) -> int:
    for seed in range(start, limit):
        if build(seed) is not None:
            return seed
    raise AssertionError(f"no seed below {limit} gives the position {build.__name__} wants")


def first(build: Callable[[int], T | None], limit: int = 3000, start: int = 0) -> T:
    """What ``build(seed)`` makes for the first seed from ``start`` that makes something
    (None: not this seed), e.g. a game and the seat it is about. ``build`` must be a
    module-level function, so that its seed is searched for once a run; each call builds
    afresh. A rare position gives ``start``: the first seed that gave it when the test was
    written (the search from 0 takes seconds), so a change of the deal still finds one."""
    found = build(_first_seed(build, limit, start))
    assert found is not None
    return found


# -- hidden cards -------------------------------------------------------------------------

_CARD = re.compile(r"(?<![A-Za-z0-9])x?([2-9TJQKA][CDHS]|HJ|LJ)(?![A-Za-z0-9])")


def card_tokens(text: str) -> set[str]:
    """The card codes written in ``text`` as words of their own, or as a notation's burn
    (``xAH``)."""
    return set(_CARD.findall(text))


def strings_in(value: object) -> Iterator[str]:
    """Every string inside a view: dataclass fields, mappings, sequences, enum values."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, enum.Enum):
        yield from strings_in(value.value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from strings_in(getattr(value, field.name))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from strings_in(item)
    elif hasattr(value, "__slots__") or hasattr(value, "__dict__"):
        for name in getattr(value, "__slots__", ()) or vars(value):
            if not name.startswith("__"):
                yield from strings_in(getattr(value, name, None))


# -- a reference model of trick play and scoring ------------------------------------------


@dataclasses.dataclass
class RefTricks:
    """R7 and R8 worked out independently: who plays next, who wins, who takes what.

    Built from the trumps each seat holds when trick play starts; ``play`` one card at a
    time; ``to_act`` is the seat whose turn it is (None: the hand is over)."""

    trump: str
    held: list[set[str]]
    leader: int | None
    low_to_holder: bool = False
    unmarked_jokers: bool = False
    lead_to_partner: bool = False
    first_joker: str | None = None
    trick: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    done: list[tuple[int, tuple[tuple[int, str], ...], int, int]] = dataclasses.field(
        default_factory=list
    )
    taken: list[int] = dataclasses.field(default_factory=lambda: [0, 0])

    @classmethod
    def start(
        cls,
        game: PitchGame,
        low_to_holder: bool = False,
        unmarked_jokers: bool = False,
        lead_to_partner: bool = False,
    ) -> RefTricks:
        """The model of ``game`` as trick play starts, under these house rules."""
        trump = trump_of(game)
        held = [set(trumps_held(game, seat, trump)) for seat in range(4)]
        model = cls(trump, held, None, low_to_holder, unmarked_jokers, lead_to_partner)
        assert game.pitcher is not None
        model.leader = model.first_holder(game.pitcher)
        return model

    def first_holder(self, seat: int) -> int | None:
        """``seat`` if it holds a trump, else the first seat clockwise that does (with
        lead_to_partner, its partner first)."""
        partner = (seat + 2) % 4
        if self.lead_to_partner and not self.held[seat] and self.held[partner]:
            return partner
        for k in range(4):
            if self.held[(seat + k) % 4]:
                return (seat + k) % 4
        return None

    @property
    def to_act(self) -> int | None:
        if self.leader is None:
            return None
        if not self.trick:
            return self.leader
        played = {seat for seat, _ in self.trick}
        last = self.trick[-1][0]
        for k in range(1, 4):
            seat = (last + k) % 4
            if seat not in played and self.held[seat]:
                return seat
        return None  # everyone who holds a trump has played: the trick is complete

    def out(self, seat: int) -> bool:
        return not self.held[seat]

    def playable(self, seat: int) -> set[str]:
        """Every trump held; unmarked jokers are one card to play, whichever is held."""
        if self.unmarked_jokers and {"HJ", "LJ"} <= self.held[seat]:
            return self.held[seat] - {"LJ"}
        return set(self.held[seat])

    def play(self, seat: int, card: str) -> None:
        assert seat == self.to_act and card in self.held[seat], (seat, card, self)
        self.held[seat].discard(card)
        self.trick.append((seat, card))
        if card in ("HJ", "LJ") and self.first_joker is None:
            self.first_joker = card
        if self.to_act is not None:
            return  # the trick goes on
        swapped = self.unmarked_jokers and self.first_joker == "LJ"
        winner = ref_winner(self.trick, self.trump, low_joker_high=swapped)
        points = 0  # what the winner's team scores from the trick
        for player, c in self.trick:
            value = ref_points(c, self.trump)
            scorer = player if self.low_to_holder and c[0] == "2" else winner
            self.taken[team(scorer)] += value
            points += value if team(scorer) == team(winner) else 0
        self.done.append((self.trick[0][0], tuple(self.trick), winner, points))
        self.trick = []
        self.leader = self.first_holder(winner)


def ref_hand_score(
    scores: tuple[int, int],
    pitcher: int,
    contract: int,
    taken: tuple[int, int],
    *,
    only_the_bid: bool = False,
    target: int = 52,
) -> tuple[tuple[int, int], int | None]:
    """R9: the team scores after the hand and the winning team (None: play on). A Moon
    that wins or loses the game at once leaves the scores as they were."""
    bidders, defenders = team(pitcher), 1 - team(pitcher)
    new = list(scores)
    made = taken[bidders] >= contract
    if contract == MOON and (not made or scores[bidders] >= 0):
        return scores, bidders if made else defenders
    if contract == MOON:
        new[bidders] = 0
    elif made:
        new[bidders] += contract if only_the_bid else taken[bidders]
    else:
        new[bidders] -= contract
    new[defenders] += taken[defenders]
    for side in (bidders, defenders):  # both there: the pitcher's team wins
        if new[side] >= target:
            return (new[0], new[1]), side
    return (new[0], new[1]), None


def play_checked(
    game: PitchGame,
    choose: Callable[[PitchGame, int], str] = play_lowest,
    **house: bool,
) -> RefTricks:
    """Play the tricks out as ``choose`` says, checking every step against RefTricks: the
    seat to act, its legal plays (every trump it holds, nothing else), who is out, each
    trick's leader, cards, winner and points. ``house``: RefTricks' flags. The model at the
    end of the hand."""
    model = RefTricks.start(game, **house)
    while game.phase is Phase.PLAY:
        seat = model.to_act
        where = game.notation(reveal=True)
        assert seat is not None, where
        assert game.waiting_for == (seat,), where
        assert game.out == tuple(model.out(s) for s in range(4)), where
        assert {a.value for a in game.legal_actions(seat)} == model.playable(seat), where
        assert {a.kind for a in game.legal_actions(seat)} == {Kind.PLAY}, where
        card = choose(game, seat)
        act(game, f"play {card}")
        model.play(seat, card)
        assert [(t.leader, tuple(t.cards), t.winner, t.points) for t in game.tricks] == (
            model.done
        ), where
    assert model.to_act is None, game.notation(reveal=True)
    return model


# -- positions dealt card by card ----------------------------------------------------------
# ``deal_game({0: "AH KH"}, stock="2H")`` deals seat 0 the ace and king of hearts, the stock's
# top card the 2 of hearts, and fills every hand (to 9) and the stock (to 18) with the other
# cards in DECK order (clubs 2 up first).


def cards(text: str) -> list[str]:
    return [parse_card(c) for c in text.split()]


def deal_text(hands: Mapping[int, str], stock: str = "", fill: Sequence[str] | None = None) -> str:
    """The notation's DEAL field for these hands and stock top, the rest filled."""
    given = {seat: cards(text) for seat, text in hands.items()}
    top = cards(stock)
    used = [c for h in given.values() for c in h] + top
    if len(set(used)) != len(used):
        raise ValueError(f"a card is dealt twice: {used}")
    rest = [c for c in (fill or DECK) if c not in used]
    rest += [c for c in DECK if c not in used and c not in rest]
    full = []
    for seat in range(4):
        hand = given.get(seat, [])
        while len(hand) < 9:
            hand.append(rest.pop(0))
        full.append(hand)
    stock_cards = top + rest
    assert len(stock_cards) == 18, len(stock_cards)
    return "/".join(",".join(group) for group in (*full, stock_cards))


def deal_game(
    hands: Mapping[int, str],
    stock: str = "",
    *,
    dealer: int = 3,
    rules: str = "-",
    scores: tuple[int, int] = (0, 0),
    target: int = 52,
    actions: Iterable[str] = (),
    fill: Sequence[str] | None = None,
) -> PitchGame:
    """A game dealt as given (seed 1), then ``actions`` applied (their text)."""
    line = (
        f"pitch {rules} {target} 1 {dealer} {scores[0]},{scores[1]} 1:0 "
        f"{deal_text(hands, stock, fill)} -"
    )
    game = PitchGame.from_notation(line)
    for text in actions:
        game.apply(text)
    return game


def play_out(game: PitchGame, choose=lambda legal: legal[0]) -> PitchGame:
    """Play the hand to its end, each seat taking ``choose(legal)``."""
    while not game.round_over:
        game.apply(choose(game.legal_actions()))
    return game
