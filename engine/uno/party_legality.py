"""UNO Party!'s legality kept as the game changes, not recomputed for everyone.

``party_play.legal_for`` says what one player may do now; it is the rule, and
the reference the tests hold this module to. Asking it of every player after
every decision made Party! cost 20-40 times classic per decision, though a
decision changes little: one or two hands, whose turn it is, the top card.

``Legality`` keeps each player's (player, action) pairs and redoes only those
a decision may have changed. A player out of turn, outside the pointing, may
speed-play any card they hold (a wrong one costs a card) and catch whoever is
catchable, so their pairs depend on

- their hand: the speed plays of its distinct cards, kept per hand and rebuilt
  when the hand changes (the game says which: ``hand_changed``);
- the top card, only for a hand of one or two cards holding it (the last card
  may be barred, the next-to-last one is offered with UNO too): those few are
  redone at every decision;
- whether the speed window is open and who is catchable, for everyone at once:
  when either changes, everyone is redone (from the kept hands, cheaply).

The player to act is redone at every decision, and so is everyone who took a
decision or whose turn began or ended. While everyone points, a pointing
choice changes only its maker's actions.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from operator import itemgetter

from engine.uno.actions import Action
from engine.uno.cards import REAL_CARD
from engine.uno.game import Phase
from engine.uno.party_facts import PartyFacts
from engine.uno.party_play import legal_for
from engine.uno.party_turns import turn_pairs

__all__ = ["Legality"]

_SECOND = itemgetter(1)
_POINTING = (Phase.POINT,)


def _speed_pairs(player: int) -> dict[int, tuple[int, Action]]:
    """(player, plain speed play) by card code, made once per seat number."""
    while len(_SPEED_PAIRS) <= player:
        seat = len(_SPEED_PAIRS)
        _SPEED_PAIRS.append(
            {
                code: (seat, Action.speed(card))
                for code, card in enumerate(REAL_CARD)
                if card is not None
            }
        )
    return _SPEED_PAIRS[player]


_SPEED_PAIRS: list[dict[int, tuple[int, Action]]] = []


def _catch_pair(player: int, target: int) -> tuple[tuple[int, Action], ...]:
    key = player, target
    pair = _CATCH_PAIRS.get(key)
    if pair is None:
        pair = _CATCH_PAIRS[key] = ((player, Action.catch(target)),)
    return pair


_CATCH_PAIRS: dict[tuple[int, int], tuple[tuple[int, Action], ...]] = {}


class Legality:
    """Every player's legal (player, action) pairs in one game, kept up to date.

    The game tells it what a decision touched (``hand_changed``, ``decided``)
    and asks it ``moves()``, ``actions(player)`` and ``claimants()``; each
    answer is what ``party_play.legal_for`` says, in its order.
    """

    __slots__ = ("_pairs", "_speed", "_changed", "_stale", "_small", "_context", "_fresh", "_moves")

    def __init__(self, players: int) -> None:
        self._pairs: list[tuple[tuple[int, Action], ...]] = [()] * players
        # The plain speed plays of each hand's distinct cards, while the hand is unchanged.
        self._speed: list[tuple[tuple[int, Action], ...]] = [()] * players
        self._changed: set[int] = set(range(players))  # hands changed since the last answer
        self._stale: set[int] = set(range(players))  # pairs to redo
        self._small: set[int] = set()  # hands of one or two cards: they depend on the top card
        self._context: object = None  # what everyone's pairs depend on, when last asked
        self._fresh = False  # nothing decided since the last answer
        self._moves: tuple[tuple[int, Action], ...] | None = None

    def hand_changed(self, player: int) -> None:
        """``player``'s hand has changed (cards drawn, played, taken)."""
        self._changed.add(player)
        self._fresh = False

    def decided(self, players: Iterable[int]) -> None:
        """A decision was applied: ``players`` (its maker, whose turn ended,
        whose turn begins) are redone, with every hand it changed."""
        self._stale.update(players)
        self._fresh, self._moves = False, None

    def moves(self, game: PartyFacts) -> tuple[tuple[int, Action], ...]:
        """Every (player, action) anyone may apply now, players in seat order."""
        moves = self._moves
        if moves is None:
            moves = self._moves = tuple(chain.from_iterable(self._refresh(game)))
        return moves

    def actions(self, game: PartyFacts, player: int) -> tuple[Action, ...]:
        """What ``player`` may do now."""
        return tuple(map(_SECOND, self._refresh(game)[player]))

    def claimants(self, game: PartyFacts) -> tuple[int, ...]:
        """Everyone but the player to act who has a legal action now."""
        pairs = self._refresh(game)
        current = game.current
        return tuple(p for p, mine in enumerate(pairs) if mine and p != current)

    def _refresh(self, game: PartyFacts) -> list[tuple[tuple[int, Action], ...]]:
        pairs = self._pairs
        if self._fresh:
            return pairs
        self._fresh = True
        changed, stale = self._changed, self._stale
        phase = game._phase
        target = game.catchable
        if phase is Phase.ROUND_OVER or phase is Phase.POINT:
            # The pointing: each player's choices (and catches), from the rule itself.
            context: object = (phase, target)
            if context != self._context:
                self._context = context
                stale.update(range(game._n))
            # A hand changed here gets its speed plays on leaving: ``changed`` stays.
            for p in stale | changed:
                pairs[p] = tuple((p, a) for a in legal_for(game, p))
            stale.clear()
            return pairs
        window = game.speed_window
        context = (window, target)
        if context != self._context:
            self._context = context
            stale.update(range(game._n))
        hands, speed, small = game._hands, self._speed, self._small
        for p in changed:
            hand = hands[p]
            speed[p] = tuple(map(_speed_pairs(p).__getitem__, dict.fromkeys(hand)))
            if len(hand) > 2:
                small.discard(p)
            else:
                small.add(p)
        stale |= changed
        if window:
            stale |= small
        current = game.current
        stale.add(current)
        for p in stale:
            catch = _catch_pair(p, target) if target is not None and target != p else ()
            if p == current:
                pairs[p] = turn_pairs(game, catch)
            elif window and p in small:
                pairs[p] = tuple((p, a) for a in legal_for(game, p))
            else:
                pairs[p] = speed[p] + catch if window else catch
        changed.clear()
        stale.clear()
        return pairs
