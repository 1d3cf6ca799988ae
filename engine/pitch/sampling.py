"""Hidden cards sampled from what one seat knows: the worlds the search bot solves.

A *world* gives every other seat's trumps now (and, before the pitcher's
stock decision, the trumps in the rest of the stock). It is drawn from the
seat's view only and agrees with every public fact:

- the refill counts: a seat that drew ``k > 0`` cards held ``6 - k`` trumps
  after the discard (a seat that drew none held 6 or more), and drew its
  ``k`` cards from the stock in the refill's order;
- the stock's fate: the rest went to the pitcher or, unseen, to the partner;
- the burns: a seat that burned ``b`` cards held ``6 + b`` trumps (a seat that
  burned none held at most 6); the cards burned face up are known;
- the tricks: every card played is known, a seat that is out holds no trump
  and a seat that is not out holds one at least;
- the cards the seat has seen (its deal, its refill, the stock if it received
  it) are never anywhere else.

Trump counts are sampled first (the deal's counts from the hypergeometric
law, the refill's order from a shuffle), then the unknown trumps dealt at
random into them; each world carries the weight of the cards seen played from
it (a seat holding more trumps is likelier to hold the ones it played).
Before trump is named (``sample_deals``) the unseen cards are just shuffled
into the other hands and the stock. Bids are not read (a bid's strength is a
prior the heuristic handles).

>>> import random
>>> from engine.pitch.game import PitchGame
>>> game = PitchGame.new(seed=7, dealer=3)
>>> for text in ("pass", "bid 5", "pass", "pass", "trump S", "keep"):
...     game.apply(text)
>>> worlds = sample_worlds(game.view(0), random.Random(1), 3)
>>> len(worlds), worlds[0].hands[0] == list(game.hand(0)[:game.trumps_in_hand(0)])
(3, True)
>>> sum(len(h) for h in worlds[0].hands) + len(worlds[0].rest)  # all 16 trumps: nothing burned
16
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence

from engine.pitch.cards import DECK, RANK_TABLES
from engine.pitch.game import DEAL_SIZE, HAND_SIZE, Phase
from engine.pitch.view import SeatView

__all__ = ["World", "sample_worlds", "sample_deals", "refill_order", "known_cards"]

STOCK_SIZE = len(DECK) - 4 * DEAL_SIZE
#: Attempts per world asked for before the sampler gives up on the counts.
_ATTEMPTS = 400


@dataclasses.dataclass
class World:
    """One sampled completion of a seat's view: ``hands[s]`` the trumps of seat
    ``s`` now (its own exact; a seat still to burn holds more than 6);
    ``rest`` the trumps of the stock not yet handed over (STOCK phase);
    ``weight`` its importance weight."""

    hands: list[list[str]]
    rest: list[str]
    weight: float


def refill_order(view: SeatView) -> list[int]:
    """The seats in the refill's order (R6.3; the ``refill=pitcher`` rule)."""
    first = (view.dealer + 1) % 4
    if view.rules.refill == "pitcher" and view.pitcher is not None:
        first = view.pitcher
    return [(first + i) % 4 for i in range(4)]


def known_cards(view: SeatView) -> set[str]:
    """Every card the seat has seen (deal, refill, stock received, plays, face-up burns)."""
    seen = set(view.dealt) | set(view.drawn) | set(view.stock_seen) | set(view.hand)
    seen.update(view.played)
    seen.update(c for _, c in view.burned if c)
    return seen


def _hypergeometric(total: int, good: int, draws: int) -> list[float]:
    """P(k good among ``draws`` from ``total`` with ``good``), k = 0 .. draws."""
    whole = math.comb(total, draws)
    return [
        math.comb(good, k) * math.comb(total - good, draws - k) / whole for k in range(draws + 1)
    ]


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


@dataclasses.dataclass
class _Facts:
    """What the view says about each seat's trump counts."""

    me: int
    trump: str
    refills: list[int | None]
    order: list[int]
    my_dealt_trumps: int
    my_drawn_trumps: int
    rest_size: int
    rest_seen_trumps: int | None  # known if this seat received the rest
    receiver: int | None
    burns: list[int]
    burns_done: list[bool]
    played: list[int]
    known: list[int]  # cards of each seat this seat knows (plays, face-up burns)
    face_down: list[int]
    out: list[bool] | None
    short_from: int  # index in ``order`` from which the stock may have run short
    deal_law: list[float]  # P(a trumps in a 9-card deal of another seat)


def _facts(view: SeatView) -> _Facts:
    assert view.seat is not None and view.trump is not None
    me, trump = view.seat, view.trump
    ranks = RANK_TABLES[trump]
    order = refill_order(view)
    refills = list(view.refills)
    refills[me] = len(view.drawn)
    burns, known, face_down, played = [0] * 4, [0] * 4, [0] * 4, [0] * 4
    for seat, card in view.burned:
        burns[seat] += 1
        if card is None:
            face_down[seat] += 1
        else:
            known[seat] += 1
    for card_seat in [sc for t in view.tricks for sc in t.cards] + list(view.trick):
        played[card_seat[0]] += 1
        known[card_seat[0]] += 1
    burns_done = _burns_done(view)
    drawn = sum(k or 0 for k in refills)
    short_from = 4
    if None not in refills and drawn >= STOCK_SIZE:
        running = 0
        for i, seat in enumerate(order):
            running += refills[seat] or 0
            if running >= STOCK_SIZE:
                short_from = i
                break
    my_dealt = sum(1 for c in view.dealt if c in ranks)
    rest_size = view.stock_size if view.phase is Phase.STOCK else view.stock_received
    return _Facts(
        me=me,
        trump=trump,
        refills=refills,
        order=order,
        my_dealt_trumps=my_dealt,
        my_drawn_trumps=sum(1 for c in view.drawn if c in ranks),
        rest_size=rest_size,
        rest_seen_trumps=(
            sum(1 for c in view.stock_seen if c in ranks) if view.stock_receiver == me else None
        ),
        receiver=view.stock_receiver,
        burns=burns,
        burns_done=burns_done,
        played=played,
        known=known,
        face_down=face_down,
        out=list(view.out) if view.phase is Phase.PLAY else None,
        short_from=short_from,
        deal_law=_hypergeometric(len(DECK) - DEAL_SIZE, 16 - my_dealt, DEAL_SIZE),
    )


def _burns_done(view: SeatView) -> list[bool]:
    """Which seats' burns are over: all in play; in the burn phase the seats
    before the one burning now (clockwise from the dealer's left)."""
    if view.phase is Phase.STOCK:
        return [False] * 4
    if view.phase is not Phase.BURN or view.to_act is None:
        return [True] * 4
    first = (view.dealer + 1) % 4
    seats = [(first + i) % 4 for i in range(4)]
    now = seats.index(view.to_act)
    return [seats.index(s) < now for s in range(4)]


def _choose(weights: Sequence[float], values: Sequence[int], rng: random.Random) -> int | None:
    total = sum(weights)
    if total <= 0:
        return None
    return rng.choices(values, weights)[0]


def _deal_count(facts: _Facts, seat: int, rng: random.Random) -> tuple[int, int] | None:
    """(trumps kept after the discard, cards drawn) for another seat, sampled."""
    law = facts.deal_law
    k = facts.refills[seat]
    position = facts.order.index(seat)
    if k is None:  # hidden refill counts
        a = _choose(law, range(len(law)), rng)
        return None if a is None else (a, max(0, HAND_SIZE - a))
    if position >= facts.short_from:  # the stock may have run out before its turn
        values = [a for a in range(len(law)) if a <= HAND_SIZE - k]
        a = _choose([law[v] for v in values], values, rng)
        return None if a is None else (a, k)
    if k > 0:
        return HAND_SIZE - k, k
    values = list(range(HAND_SIZE, len(law)))
    a = _choose([law[v] for v in values], values, rng)
    return None if a is None else (a, 0)


def _sample_counts(facts: _Facts, rng: random.Random) -> tuple[list[int], int, float] | None:
    """Each seat's trumps before the burn (the receiver's with the rest, once
    given), the rest's trumps, and the weight; None if this draw is inconsistent."""
    me = facts.me
    kept = [0] * 4
    draws = [0] * 4
    for seat in range(4):
        if seat == me:
            kept[seat], draws[seat] = facts.my_dealt_trumps, facts.refills[me] or 0
            continue
        count = _deal_count(facts, seat, rng)
        if count is None:
            return None
        kept[seat], draws[seat] = count
    stock_trumps = 16 - sum(kept)
    unknown_slots = STOCK_SIZE - draws[me]
    unknown_trumps = stock_trumps - facts.my_drawn_trumps
    rest_known = facts.rest_seen_trumps
    if rest_known is not None:
        unknown_slots -= facts.rest_size
        unknown_trumps -= rest_known
    if not 0 <= unknown_trumps <= unknown_slots:
        return None
    tokens = [1] * unknown_trumps + [0] * (unknown_slots - unknown_trumps)
    rng.shuffle(tokens)
    held = kept[:]
    at = 0
    for seat in facts.order:
        if seat != me:
            held[seat] += sum(tokens[at : at + draws[seat]])
            at += draws[seat]
        else:
            held[seat] += facts.my_drawn_trumps
    rest = rest_known if rest_known is not None else sum(tokens[at:])
    if facts.receiver is not None:
        held[facts.receiver] += rest
    return _check_counts(facts, held, rest)


def _check_counts(facts: _Facts, held: list[int], rest: int) -> tuple[list[int], int, float] | None:
    weight = 1.0
    for seat in range(4):
        if seat == facts.me:
            continue
        h, b = held[seat], facts.burns[seat]
        if facts.burns_done[seat] and b != max(0, h - HAND_SIZE):
            return None
        if h < b + facts.played[seat]:
            return None
        now = h - b - facts.played[seat]
        if facts.out is not None and facts.out[seat] != (now == 0):
            return None
        weight *= _falling(h, facts.known[seat])
    return held, rest, weight


def sample_worlds(view: SeatView, rng: random.Random, count: int) -> list[World]:
    """``count`` worlds consistent with ``view`` (after the refill: the STOCK,
    BURN and PLAY phases). Fewer if the counts are very unlikely (at least one
    is always returned: if no draw agrees, the cards are dealt by size alone)."""
    if view.trump is None or view.seat is None:
        raise ValueError("worlds are sampled once trump is named, for a seat")
    facts = _facts(view)
    ranks = RANK_TABLES[facts.trump]
    unknown = [c for c in ranks if c not in known_cards(view)]
    mine = [c for c in view.hand if c in ranks]
    worlds: list[World] = []
    for _ in range(_ATTEMPTS * count):
        if len(worlds) == count:
            break
        counts = _sample_counts(facts, rng)
        if counts is None:
            continue
        held, rest, weight = counts
        world = _deal_identities(facts, unknown, mine, held, rest, rng)
        if world is not None:
            world.weight = weight
            worlds.append(world)
    if not worlds:
        worlds.append(_fallback_world(facts, unknown, mine, view, rng))
    return worlds


def _deal_identities(
    facts: _Facts,
    unknown: list[str],
    mine: list[str],
    held: list[int],
    rest: int,
    rng: random.Random,
) -> World | None:
    cards = unknown[:]
    rng.shuffle(cards)
    hands: list[list[str]] = [[] for _ in range(4)]
    hands[facts.me] = mine[:]
    at = 0
    for seat in range(4):
        if seat == facts.me:
            continue
        slots = held[seat] - facts.known[seat]  # its hand now and its face-down burns
        now = held[seat] - facts.burns[seat] - facts.played[seat]
        hands[seat] = cards[at : at + now]
        at += slots
    rest_cards: list[str] = []
    if facts.receiver is None:  # the stock's rest is still to hand over
        rest_cards = cards[at : at + rest] if facts.rest_seen_trumps is None else []
        at += len(rest_cards)
    if at != len(cards):
        return None
    return World(hands=hands, rest=rest_cards, weight=1.0)


def _fallback_world(
    facts: _Facts, unknown: list[str], mine: list[str], view: SeatView, rng: random.Random
) -> World:
    """Unknown trumps dealt to the seats still in, three at most each (a rare
    view no count draw agreed with, e.g. under the ``short_stock=discards`` rule)."""
    cards = unknown[:]
    rng.shuffle(cards)
    hands: list[list[str]] = [[] for _ in range(4)]
    hands[facts.me] = mine[:]
    others = [s for s in range(4) if s != facts.me and not view.out[s]]
    for i, card in enumerate(cards[: 3 * len(others)]):
        hands[others[i % len(others)]].append(card)
    return World(hands=hands, rest=[], weight=1.0)


def sample_deals(
    view: SeatView, rng: random.Random, count: int
) -> list[tuple[list[list[str]], list[str]]]:
    """Before trump: ``count`` deals of the cards this seat has not seen into
    the other hands (9 each) and the stock (18, top first); its own as dealt."""
    if view.seat is None:
        raise ValueError("deals are sampled for a seat")
    mine = list(view.dealt)
    unseen = [c for c in DECK if c not in set(mine)]
    deals = []
    for _ in range(count):
        rng.shuffle(unseen)
        hands: list[list[str]] = []
        at = 0
        for seat in range(4):
            if seat == view.seat:
                hands.append(mine[:])
            else:
                hands.append(unseen[at : at + DEAL_SIZE])
                at += DEAL_SIZE
        deals.append((hands, unseen[at:]))
    return deals
