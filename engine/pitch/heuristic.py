"""Pitch's heuristic bot ("bot"): rules of thumb a good player uses, from its seat's view.

Ideas learnt from TricksterBots' Pitch bot (C#, MIT; read, not copied):

- bid from the points the hand can capture in its best suit: the ace is sure,
  king and queen count with length, the jacks, the jokers and the 3 by their
  protection (a higher trump beside them); never outbid a partner by a little;
- name the longest, strongest suit; keep the stock unless the pitcher already
  holds six trumps and the partner has room;
- burn the lowest trump worth no point first;
- lead high trumps to pull the others' when holding the top ones (the pitcher
  above all), else lead low; throw points onto a trick the partner is sure to
  win (no unseen trump can beat the partner's card); capture points from the
  last seat with the cheapest winning card; keep low trumps to duck.

>>> from engine.pitch.game import PitchGame
>>> game = PitchGame.new(seed=7, dealer=3)
>>> bot = HeuristicBot()
>>> bot.act(game, 0) in game.legal_actions()
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.game.agents import DEFAULT_REACTION_MS, check_reaction_ms
from engine.pitch.actions import MOON, Action, Kind, contract_points
from engine.pitch.cards import POINT_TABLES, RANK_TABLES, SUITS
from engine.pitch.game import Phase
from engine.pitch.view import SeatView

__all__ = [
    "HeuristicBot",
    "suit_strength",
    "best_suit",
    "heuristic_action",
    "burn_choice",
    "unseen_trumps",
]

#: How much each trump of a suit is worth toward a bid (before protection).
_BASE = {15: 1.6, 14: 0.9, 13: 0.5}  # ace, king, queen (by rank)
#: Extra points a bid may expect from the refill and the partner's help.
_REFILL_PER_CARD = 0.12
_PARTNER_HELP = 0.9


def suit_strength(cards: Iterable[str], suit: str) -> float:
    """The points a hand (its dealt cards) may expect to take with ``suit`` trump.

    >>> round(suit_strength(["AH", "KH", "QH", "JH", "3H", "HJ", "2C", "4D", "5S"], "H"), 1)
    7.6
    >>> suit_strength(["2C", "4D"], "H") < 1
    True
    """
    ranks = RANK_TABLES[suit]
    held = sorted((ranks[c] for c in cards if c in ranks), reverse=True)
    if not held:
        return 0.0
    length = len(held)
    top = held[0]
    high_count = sum(1 for r in held if r >= 13)
    score = 0.0
    for r in held:
        if r in _BASE:
            score += _BASE[r] if (r == 15 or length >= 3) else _BASE[r] / 2
        elif r >= 8:  # J, off-jack, jokers, 10: a point each, safe when covered
            covered = top > r and (high_count >= 1 or length >= 4)
            score += 0.8 if covered else 0.45
        elif r == 1:  # the 3: three points, protected by the top trumps
            score += 2.0 if high_count >= 2 else (1.3 if high_count == 1 else 0.5)
        elif r == 0:  # the 2 goes to the taker
            score += 0.5 if high_count else 0.25
        else:
            score += 0.15
    score += 0.35 * max(0, length - 3)
    score += _REFILL_PER_CARD * max(0, 6 - length)
    return score


def best_suit(cards: Sequence[str]) -> tuple[str, float]:
    """The suit with the highest ``suit_strength`` (ties: the longer, then C D H S)."""
    scored = []
    for suit in SUITS:
        length = sum(1 for c in cards if c in RANK_TABLES[suit])
        scored.append((suit_strength(cards, suit), length, suit))
    strength, _, suit = max(scored, key=lambda t: (t[0], t[1]))
    return suit, strength


def _partner(seat: int) -> int:
    return (seat + 2) % 4


def _bid_action(view: SeatView) -> Action:
    legal = view.legal
    bids = [a for a in legal if a.kind is Kind.BID]
    if not any(a.kind is Kind.PASS for a in legal):
        return bids[0]  # the stuck dealer: the lowest it may
    assert view.seat is not None
    _, strength = best_suit(view.hand)
    partner_bid = next((b for s, b in view.bids if s == _partner(view.seat)), None)
    if partner_bid is not None:
        strength += _PARTNER_HELP
        if view.pitcher == _partner(view.seat):  # only outbid the partner by a lot
            strength -= contract_points(partner_bid) - 2.5
    if strength >= 10.6:
        moon = [a for a in bids if a.value == MOON]
        if moon:
            return moon[0]
    for action in bids:  # the cheapest bid the hand can make
        assert isinstance(action.value, int)
        if action.value != MOON and contract_points(action.value) <= strength - 0.3:
            return action
    return next(a for a in legal if a.kind is Kind.PASS)


def unseen_trumps(view: SeatView) -> set[str]:
    """The trumps the seat has not seen played, burned face up, or in its hand:
    the ones the other seats may still hold (or burned face down)."""
    assert view.trump is not None
    ranks = RANK_TABLES[view.trump]
    gone = set(view.hand) | set(view.played) | {c for _, c in view.burned if c}
    return {c for c in ranks if c not in gone}


def burn_choice(cards: Sequence[str], trump: str) -> str:
    """The trump to burn: the lowest worth no point, else the least valuable
    point (the 2, the 10, ... never the 3 or the ace while another will do).

    >>> burn_choice(["AH", "3H", "9H", "5H"], "H"), burn_choice(["AH", "3H", "2H", "TH"], "H")
    ('5H', '2H')
    """
    ranks, points = RANK_TABLES[trump], POINT_TABLES[trump]
    blank = [c for c in cards if not points[c]]
    if blank:
        return min(blank, key=ranks.__getitem__)
    ones = [c for c in cards if points[c] == 1 and ranks[c] != 15]
    if ones:
        return min(ones, key=ranks.__getitem__)
    return min(cards, key=lambda c: (points[c], ranks[c]))


def _stock_action(view: SeatView) -> Action:
    """Keep the stock, unless the pitcher holds six trumps already and the
    partner drew cards (so it has room for the stock's trumps)."""
    assert view.seat is not None and view.trump is not None
    ranks = RANK_TABLES[view.trump]
    mine = sum(1 for c in view.hand if c in ranks)
    partner_drew = view.refills[_partner(view.seat)]
    if mine >= 6 and partner_drew is not None and partner_drew >= 2:
        return Action.give()
    return Action.keep()


def _card_of(action: Action) -> str:
    return action.card


def _play_action(view: SeatView) -> Action:
    assert view.seat is not None and view.trump is not None
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    trump = view.trump
    ranks, points = RANK_TABLES[trump], POINT_TABLES[trump]
    cards = [_card_of(a) for a in legal]
    card = _choose_card(view, cards, ranks, points)
    return Action.play(card)


def _choose_card(
    view: SeatView, cards: list[str], ranks: dict[str, int], points: dict[str, int]
) -> str:
    seat = view.seat
    assert seat is not None
    unseen = unseen_trumps(view)
    top_unseen = max((ranks[c] for c in unseen), default=-1)
    low_first = sorted(cards, key=lambda c: (points[c] > 0, ranks[c]))
    if not view.trick:
        return _lead(view, cards, ranks, points, top_unseen, low_first)
    best_seat, best_card = max(view.trick, key=lambda sc: ranks[sc[1]])
    best = ranks[best_card]
    still_to_play = _still_to_play(view)
    opponents_after = [s for s in still_to_play if s % 2 != seat % 2]
    trick_points = sum(points[c] for _, c in view.trick)
    partner_winning = best_seat % 2 == seat % 2
    if partner_winning and (not opponents_after or best > top_unseen):
        return _throw_points(cards, ranks, points, top_unseen)
    winners = sorted((c for c in cards if ranks[c] > best), key=ranks.__getitem__)
    if not opponents_after:  # the last seat of the trick: capture its points
        if winners and (trick_points or points[low_first[0]]):
            pointed = [c for c in winners if points[c] and ranks[c] < top_unseen]
            return pointed[0] if pointed else winners[0]
        return low_first[0]
    safe = [c for c in winners if ranks[c] > top_unseen]
    if safe and (trick_points or any(points[c] for c in cards)):
        pointed = [c for c in safe if points[c]]
        return pointed[0] if pointed else safe[0]
    return low_first[0]


def _still_to_play(view: SeatView) -> list[int]:
    """The seats after this one in the current trick (those not out)."""
    assert view.seat is not None
    played = {s for s, _ in view.trick}
    seats = [(view.seat + i) % 4 for i in range(1, 4)]
    return [s for s in seats if s not in played and not view.out[s]]


def _lead(
    view: SeatView,
    cards: list[str],
    ranks: dict[str, int],
    points: dict[str, int],
    top_unseen: int,
    low_first: list[str],
) -> str:
    seat = view.seat
    assert seat is not None
    bosses = sorted((c for c in cards if ranks[c] > top_unseen), key=ranks.__getitem__)
    opponents_in = any(not view.out[s] for s in (seat + 1, seat + 3) for s in [s % 4])
    if not opponents_in:  # only the partner left: lead points into nothing
        return max(cards, key=lambda c: (points[c], -ranks[c]))
    our_contract = view.pitcher is not None and view.pitcher % 2 == seat % 2
    if bosses and (our_contract or len(bosses) >= 2 or len(cards) <= 2):
        return bosses[-1]  # the highest: pull the others' trumps
    return low_first[0]


def _throw_points(
    cards: list[str], ranks: dict[str, int], points: dict[str, int], top_unseen: int
) -> str:
    """Onto the partner's sure trick: the most points, keeping the sure winners."""
    vulnerable = [c for c in cards if ranks[c] < top_unseen] or cards
    return max(vulnerable, key=lambda c: (points[c], -ranks[c]))


def heuristic_action(view: SeatView) -> Action:
    """The heuristic's choice for the seat of ``view`` (one of ``view.legal``)."""
    legal = view.legal
    if not legal:
        raise ValueError(f"seat {view.seat} has nothing to decide now")
    if len(legal) == 1:
        return legal[0]
    phase = view.phase
    if phase is Phase.BID:
        action = _bid_action(view)
    elif phase is Phase.TRUMP:
        action = Action.trump(best_suit(view.hand)[0])
    elif phase is Phase.STOCK:
        action = _stock_action(view)
    elif phase is Phase.BURN:
        assert view.trump is not None
        action = Action.burn(burn_choice([_card_of(a) for a in legal], view.trump))
    else:
        action = _play_action(view)
    return action if action in legal else legal[0]


class HeuristicBot:
    """The heuristic ("bot"): decides from ``game.view(player)`` alone, no randomness."""

    def __init__(self, name: str = "bot", *, reaction_ms: float = DEFAULT_REACTION_MS) -> None:
        self.name = name
        self.reaction_ms = check_reaction_ms(reaction_ms, f"bot {name!r}")

    def act(self, game: Any, player: int) -> Action:
        return heuristic_action(game.view(player))

    def __repr__(self) -> str:
        return f"HeuristicBot(name={self.name!r})"
