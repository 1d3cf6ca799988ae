"""Pitch's heuristic (engine.pitch.heuristic) on a playout's ints: the same choice
in every position, read from engine.pitch.playout_state's HandState instead of
a SeatView.

The heuristic's picks never hang on the order of a hand: each sort or max is
on keys that differ for every card (the ranks of one trump suit do), so the
lists here may keep the playout's order. ``suit_strength`` adds the same
floats in the same order as the heuristic's, so its sums are equal to the bit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.pitch.actions import MOON, contract_points
from engine.pitch.heuristic import _BASE, _PARTNER_HELP, _REFILL_PER_CARD
from engine.pitch.playout_codes import (
    BID,
    GIVE,
    KEEP,
    LOW_FIRST,
    MOST_POINTS,
    ORDERS,
    PASS,
    POINTS,
    RANKS,
    STOCK,
    TRUMP,
)

if TYPE_CHECKING:
    from engine.pitch.playout_state import HandState

__all__ = ["choose", "play_choice", "suit_strength", "best_suit"]


def choose(st: HandState, phase: int, seat: int, choices: list[int]) -> int:
    """The heuristic's pick among ``choices`` (more than one) before trick play."""
    if phase == BID:
        return _bid(st, seat, choices)
    if phase == TRUMP:
        return best_suit(st.hands[seat])[0]
    if phase == STOCK:
        return _stock(st, seat)
    return _burn(choices, st.trump)


def _bid(st: HandState, seat: int, choices: list[int]) -> int:
    bids = [v for v in choices if v > 0]
    if PASS not in choices:
        return bids[0]  # the stuck dealer: the lowest it may
    _, strength = best_suit(st.hands[seat])
    partner = (seat + 2) % 4
    partner_bid = next((b for s, b in st.bids if s == partner), None)
    if partner_bid is not None:
        strength += _PARTNER_HELP
        if st.pitcher == partner:  # only outbid the partner by a lot
            strength -= contract_points(partner_bid) - 2.5
    if strength >= 10.6 and MOON in bids:
        return MOON
    for value in bids:  # the cheapest bid the hand can make
        if value != MOON and contract_points(value) <= strength - 0.3:
            return value
    return PASS


def suit_strength(cards: list[int], suit: int) -> float:
    """heuristic.suit_strength on codes."""
    ranks = RANKS[suit]
    return _strength(sorted((ranks[c] for c in cards if ranks[c] >= 0), reverse=True))


def _strength(held: list[int]) -> float:
    """heuristic.suit_strength of the trump ranks ``held``, high to low: the
    same sum, term by term."""
    if not held:
        return 0.0
    length = len(held)
    top = held[0]
    high_count = sum(1 for r in held if r >= 13)
    score = 0.0
    for r in held:
        if r in _BASE:
            score += _BASE[r] if (r == 15 or length >= 3) else _BASE[r] / 2
        elif r >= 8:
            covered = top > r and (high_count >= 1 or length >= 4)
            score += 0.8 if covered else 0.45
        elif r == 1:
            score += 2.0 if high_count >= 2 else (1.3 if high_count == 1 else 0.5)
        elif r == 0:
            score += 0.5 if high_count else 0.25
        else:
            score += 0.15
    score += 0.35 * max(0, length - 3)
    score += _REFILL_PER_CARD * max(0, 6 - length)
    return score


#: card code -> the (trump suit, its rank) it would be: one suit, two for a jack, four for a joker.
_AS_TRUMP = [
    tuple((suit, RANKS[suit][c]) for suit in range(4) if RANKS[suit][c] >= 0)
    for c in range(len(RANKS[0]))
]


def best_suit(cards: list[int]) -> tuple[int, float]:
    """heuristic.best_suit on codes: the strongest suit (ties: the longer, then C D H S)."""
    held: list[list[int]] = [[], [], [], []]
    for c in cards:
        for suit, rank in _AS_TRUMP[c]:
            held[suit].append(rank)
    best = (-1.0, -1)
    chosen = 0
    for suit in range(4):
        ranks = held[suit]
        ranks.sort(reverse=True)
        key = (_strength(ranks), len(ranks))
        if key > best:  # max() keeps the first of equals
            best, chosen = key, suit
    return chosen, best[0]


def _stock(st: HandState, seat: int) -> int:
    partner = (seat + 2) % 4
    drawn = None if st.refills_hidden else st.refills[partner]
    if len(st.hands[seat]) >= 6 and drawn is not None and drawn >= 2:
        return GIVE
    return KEEP


def _burn(cards: list[int], trump: int) -> int:
    """heuristic.burn_choice: the lowest blank, else the least valuable point."""
    ranks, points = RANKS[trump], POINTS[trump]
    blank = [c for c in cards if not points[c]]
    if blank:
        return min(blank, key=ranks.__getitem__)
    ones = [c for c in cards if points[c] == 1 and ranks[c] != 15]
    if ones:
        return min(ones, key=ranks.__getitem__)
    return min(cards, key=lambda c: (points[c], ranks[c]))


def play_choice(st: HandState, seat: int, cards: list[int]) -> int:
    """The heuristic's card among ``cards`` (more than one): heuristic._choose_card."""
    trump = st.trump
    ranks, points = RANKS[trump], POINTS[trump]
    hand, played, burner = st.hands[seat], st.played, st.burner
    down = st.burn_down
    top_unseen = -1  # the highest trump the seat has not seen
    for c in ORDERS[trump]:
        if played[c] or c in hand:
            continue
        by = burner[c]
        if by >= 0 and (by == seat or not down):
            continue
        top_unseen = ranks[c]
        break
    trick = st.trick
    hands = st.hands
    if not trick:
        return _lead(st, seat, cards, ranks, top_unseen)
    best_seat, best_card = max(trick, key=lambda sc: ranks[sc[1]])
    best = ranks[best_card]
    done = [s for s, _ in trick]
    side = seat % 2
    opponents_after = False
    for i in (1, 2, 3):
        s = (seat + i) % 4
        if s not in done and hands[s] and s % 2 != side:
            opponents_after = True
    if best_seat % 2 == side and (not opponents_after or best > top_unseen):
        vulnerable = [c for c in cards if ranks[c] < top_unseen] or cards
        return max(vulnerable, key=MOST_POINTS[trump].__getitem__)
    trick_points = sum(points[c] for _, c in trick)
    winners = sorted((c for c in cards if ranks[c] > best), key=ranks.__getitem__)
    if not opponents_after:  # the last seat of the trick: capture its points
        low = _lowest(cards, trump)
        if winners and (trick_points or points[low]):
            pointed = [c for c in winners if points[c] and ranks[c] < top_unseen]
            return pointed[0] if pointed else winners[0]
        return low
    safe = [c for c in winners if ranks[c] > top_unseen]
    if safe and (trick_points or any(points[c] for c in cards)):
        pointed = [c for c in safe if points[c]]
        return pointed[0] if pointed else safe[0]
    return _lowest(cards, trump)


def _lowest(cards: list[int], trump: int) -> int:
    """The heuristic's ``low_first[0]``: a blank before a point, low before high."""
    return min(cards, key=LOW_FIRST[trump].__getitem__)


def _lead(
    st: HandState,
    seat: int,
    cards: list[int],
    ranks: list[int],
    top_unseen: int,
) -> int:
    hands = st.hands
    if not hands[(seat + 1) % 4] and not hands[(seat + 3) % 4]:  # only the partner left
        return max(cards, key=MOST_POINTS[st.trump].__getitem__)
    bosses = [c for c in cards if ranks[c] > top_unseen]
    pitcher = st.pitcher
    our_contract = pitcher is not None and pitcher % 2 == seat % 2
    if bosses and (our_contract or len(bosses) >= 2 or len(cards) <= 2):
        return max(bosses, key=ranks.__getitem__)  # the highest: pull the others' trumps
    return _lowest(cards, st.trump)
