"""Pitch hands played on ints: every decision made on engine.pitch.playout_state's
HandState, no Action, no view, no ``apply()``.

Each decision picks among the choices HandState lists in ``legal_actions()``'s
order, so a uniform pick by index picks the same action; the heuristic's picks
are engine.pitch.playout_heuristic's. ``play_hand`` plays one hand, trick play
on locals (``play_tricks``); engine.pitch.playout drives it hand by hand.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.pitch import playout_heuristic as heuristic
from engine.pitch.actions import Action
from engine.pitch.cards import DECK, SUITS
from engine.pitch.playout_codes import (
    BID,
    BURN,
    GIVE,
    HJ,
    KEEP,
    LJ,
    OVER,
    PASS,
    PLAY,
    POINTS,
    RANKS,
    REDEAL,
    STOCK,
    TRUMP,
)
from engine.pitch.playout_state import HandState
from engine.pitch.state import CLOCKWISE

__all__ = ["play_hand", "play_tricks", "action_of"]


def play_hand(
    st: HandState,
    use_heuristic: bool,
    random: Callable[[], float],
    log: list[Action] | None,
    budget: int,
) -> int:
    """Play ``st`` to the end of its hand, or ``budget`` decisions; the decisions made.

    A uniform pick among k > 1 takes ``int(random() * k)``; the heuristic
    (``use_heuristic``) takes nothing from ``random``."""
    decisions = 0
    while st.phase != OVER:
        if decisions >= budget:
            break
        phase = st.phase
        if phase == PLAY:
            decisions += play_tricks(st, use_heuristic, random, log, budget - decisions)
            continue
        seat = st.to_act
        assert seat is not None
        decisions += 1
        if phase == BID:
            choices = st.bid_choices(seat)
        elif phase == TRUMP:
            choices = [0, 1, 2, 3]
        elif phase == STOCK:
            choices = [KEEP, GIVE]
        else:
            choices = st.burnable(seat)
        k = len(choices)
        if k == 1:
            choice = choices[0]
        elif use_heuristic:
            choice = heuristic.choose(st, phase, seat, choices)
        else:
            choice = choices[int(random() * k)]
        if log is not None:
            log.append(action_of(phase, choice))
        if phase == BID:
            if choice == REDEAL:  # the misdeal rule: the same dealer, a new shuffle
                st.shuffles += 1
                st.deal()
            else:
                st.bid(seat, choice)
        elif phase == TRUMP:
            st.name_trump(choice)
        elif phase == STOCK:
            st.take_stock(choice == KEEP)
        else:
            st.burn(seat, choice)
    return decisions


def play_tricks(
    st: HandState,
    use_heuristic: bool,
    random: Callable[[], float],
    log: list[Action] | None,
    budget: int,
) -> int:
    """Trick play (most of a hand's decisions) to the hand's end or ``budget``,
    on locals: PitchGame._play, _end_trick, _lead_from and _start_trick inline."""
    hands, played, trick, taken = st.hands, st.played, st.trick, st.taken
    trump = st.trump
    ranks, points = RANKS[trump], POINTS[trump]
    unmarked = st.unmarked
    low = trump * 13 if st.low_holder else -1  # the 2 of trumps, if it scores for its holder
    order = st.order
    seat = st.to_act
    assert seat is not None
    decisions = 0
    while decisions < budget:
        decisions += 1
        hand = hands[seat]
        cards = hand
        if unmarked and HJ in hand and LJ in hand:
            cards = [c for c in hand if c != LJ]
        k = len(cards)
        if k == 1:
            card = cards[0]
        elif use_heuristic:
            card = heuristic.play_choice(st, seat, cards)
        else:
            card = cards[int(random() * k)]
        if log is not None:
            log.append(_PLAYS[card])
        hand.remove(card)
        trick.append((seat, card))
        played[card] = True
        if card >= HJ and st.first_joker < 0:
            st.first_joker = card
        n = len(trick)
        if n < len(order):
            seat = order[n]
            continue
        # The trick is complete: its winner takes its points and leads.
        best = -1
        winner = seat
        for s, c in trick:
            rank = ranks[c]
            if unmarked and c >= HJ:
                rank = ranks[HJ if c == st.first_joker else LJ]
            if rank > best:
                best, winner = rank, s
        side = winner % 2
        for s, c in trick:
            if c == low:
                taken[s % 2] += points[c]
            else:
                taken[side] += points[c]
        trick.clear()
        leader = st.lead_from(winner)
        if leader is None:
            st.score()
            return decisions
        if hands[0] and hands[1] and hands[2] and hands[3]:
            order = CLOCKWISE[leader]
        else:
            order = tuple(s for s in CLOCKWISE[leader] if hands[s])
        st.order = order
        seat = leader
    st.to_act = seat
    return decisions


_PLAYS = [Action.play(c) for c in DECK]
_BURNS = [Action.burn(c) for c in DECK]
_TRUMPS = [Action.trump(s) for s in SUITS]


def action_of(phase: int, choice: int) -> Action:
    """The Action a choice of ``phase`` is (for a playout's log)."""
    if phase == PLAY:
        return _PLAYS[choice]
    if phase == BURN:
        return _BURNS[choice]
    if phase == TRUMP:
        return _TRUMPS[choice]
    if phase == STOCK:
        return Action.keep() if choice == KEEP else Action.give()
    if choice == PASS:
        return Action.pass_()
    return Action.redeal() if choice == REDEAL else Action.bid(choice)
