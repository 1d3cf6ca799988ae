"""UNO Party!'s legality kept as the game changes, not recomputed for everyone.

``party_play.legal_for`` says what one player may do now; it is the rule, and
the reference the tests hold this module to. Asking it of every player after
every decision made Party! cost 20-40 times classic per decision, though a
decision changes little: one or two hands, whose turn it is, the top card.

``Legality`` keeps each player's (player, action) pairs and redoes only those
a decision may have changed. A player out of turn, outside the pointing, may
speed-play any card they hold (a wrong one costs a card) and catch whoever is
catchable, so their pairs depend on

- their hand: the speed plays of its distinct cards in the order they first
  appear, kept through each card added at the end or taken out (the game says
  which: ``card_added``, ``card_removed``) and read anew after anything else
  (``hand_changed``: cards put under a just-drawn one, a mini pile taken);
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
from operator import itemgetter

from engine.uno.actions import Action
from engine.uno.cards import (
    COLOUR_MASK,
    COLOUR_SHIFT,
    LAST_NUMBER_RANK,
    RANK_MASK,
    REAL_CARD,
    WILD_COLOUR,
)
from engine.uno.game import Phase
from engine.uno.party_facts import PartyFacts
from engine.uno.party_play import legal_for
from engine.uno.party_turns import pointing_pairs, turn_pairs

__all__ = ["Legality"]

# Phase's members as module names: one read off the enum class costs several
# times a global's, and these are read at every decision.
_PLAYING, _DRAWN, _POINTING, _OVER = Phase.PLAY, Phase.DRAWN, Phase.POINT, Phase.ROUND_OVER

_SECOND = itemgetter(1)


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


def _catch(player: int, target: int) -> tuple[tuple[int, Action], ...]:
    """``player``'s catch of ``target`` as a pair, or nothing (``target`` -1:
    nobody is catchable; nobody catches themself)."""
    if target < 0 or target == player:
        return ()
    key = player, target
    pair = _CATCH_PAIRS.get(key)
    if pair is None:
        pair = _CATCH_PAIRS[key] = ((player, Action.catch(target)),)
    return pair


_CATCH_PAIRS: dict[tuple[int, int], tuple[tuple[int, Action], ...]] = {}


class Legality:
    """Every player's legal (player, action) pairs in one game, kept up to date.

    The game tells it what a decision touched (``card_added``, ``card_removed``,
    ``hand_changed``, ``decided``) and asks it ``moves()``, ``actions(player)``,
    ``allows(player, action)`` and ``claimants()``; each answer is what
    ``party_play.legal_for`` says, in its order.
    """

    __slots__ = (
        "_pairs",
        "_distinct",
        "_speed",
        "_rebuild",
        "_touched",
        "_stale",
        "_small",
        "_context",
        "_fresh",
        "_moves",
    )

    def __init__(self, players: int) -> None:
        self._pairs: list[tuple[tuple[int, Action], ...]] = [()] * players
        # Each hand's distinct cards in the order they first appear, and their
        # plain speed plays as pairs: kept through single cards added and removed.
        self._distinct: list[tuple[int, ...]] = [()] * players
        self._speed: list[tuple[tuple[int, Action], ...]] = [()] * players
        self._rebuild: set[int] = set(range(players))  # hands to read anew
        self._touched: set[int] = set(range(players))  # hands changed since the last answer
        self._stale: set[int] = set(range(players))  # pairs to redo
        self._small: set[int] = set()  # hands of one or two cards: they depend on the top card
        self._context = -1  # what everyone's pairs depend on, when last asked (_refresh)
        self._fresh = False  # nothing decided since the last answer
        self._moves: tuple[tuple[int, Action], ...] | None = None
        _speed_pairs(players - 1)  # every seat's table made: card_added indexes them

    def card_added(self, player: int, hand: list[int], card: int) -> None:
        """``card`` was put at the end of ``player``'s ``hand``."""
        self._touched.add(player)
        self._fresh = False
        if player not in self._rebuild and hand.index(card) == len(hand) - 1:
            self._distinct[player] += (card,)  # a card they did not hold
            self._speed[player] += (_SPEED_PAIRS[player][card],)

    def card_removed(self, player: int, hand: list[int], card: int) -> None:
        """The first ``card`` of ``player``'s ``hand`` was taken out of it."""
        self._touched.add(player)
        self._fresh = False
        if player in self._rebuild:
            return
        distinct, speed = self._distinct[player], self._speed[player]
        at = distinct.index(card)
        distinct, speed = distinct[:at] + distinct[at + 1 :], speed[:at] + speed[at + 1 :]
        if card in hand:
            # Another one now comes first: it goes after the distinct cards before it.
            to = len(set(hand[: hand.index(card)]))
            distinct = (*distinct[:to], card, *distinct[to:])
            speed = (*speed[:to], _SPEED_PAIRS[player][card], *speed[to:])
        self._distinct[player], self._speed[player] = distinct, speed

    def hand_changed(self, player: int) -> None:
        """``player``'s hand changed otherwise (cards put in the middle, a pile taken)."""
        self._touched.add(player)
        self._rebuild.add(player)
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
            every: list[tuple[int, Action]] = []
            for mine in self._refresh(game):
                every += mine  # faster than chain() here: the lengths are known
            moves = self._moves = tuple(every)
        return moves

    def actions(self, game: PartyFacts, player: int) -> tuple[Action, ...]:
        """What ``player`` may do now."""
        return tuple(map(_SECOND, self._refresh(game)[player]))

    def allows(self, game: PartyFacts, player: int, action: Action) -> bool:
        """Whether ``player`` may do ``action`` now."""
        pairs = self._pairs if self._fresh else self._refresh(game)
        return (player, action) in pairs[player]

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
        touched, stale = self._touched, self._stale
        phase = game._phase
        hands = game._hands
        target = game._catchable  # game.catchable, written out (-1: nobody)
        if target >= 0 and (len(hands[target]) != 1 or game.round_over):
            target = -1
        # What everyone's pairs depend on, as one int: the phase's kind, who is
        # catchable (-1 to 15) and whether the speed window is open.
        if phase is _POINTING or phase is _OVER:
            context = (100 if phase is _POINTING else 200) + target
            if context != self._context:
                self._context = context
                stale.update(range(game._n))
            # A hand changed here gets its speed plays on leaving: ``touched`` stays.
            stale |= touched
            if phase is _POINTING:
                empty = () if all(hands) else tuple(q for q, hand in enumerate(hands) if not hand)
                for p in stale:
                    pairs[p] = pointing_pairs(game, p, _catch(p, target), empty)
            else:
                for p in stale:
                    pairs[p] = ()
            stale.clear()
            return pairs
        top = game._discard[-1]
        window = (
            (phase is _PLAYING or (phase is _DRAWN and not game._house.draw_closes_speed))
            and top >> COLOUR_SHIFT & COLOUR_MASK != WILD_COLOUR
            and top & RANK_MASK <= LAST_NUMBER_RANK
        )  # game.speed_window, written out
        context = (target + 1) * 2 + window
        if context != self._context:
            self._context = context
            stale.update(range(game._n))
        distinct, speed, small = self._distinct, self._speed, self._small
        rebuild = self._rebuild
        if rebuild:
            for p in rebuild:
                cards = distinct[p] = tuple(dict.fromkeys(hands[p]))
                speed[p] = tuple(map(_SPEED_PAIRS[p].__getitem__, cards))
            rebuild.clear()
        for p in touched:
            if len(hands[p]) > 2:
                small.discard(p)
            else:
                small.add(p)
        stale |= touched
        if window:
            stale |= small
        current = game.current
        stale.add(current)
        for p in stale:
            catch = () if target < 0 or target == p else _catch(p, target)
            if p == current:
                pairs[p] = turn_pairs(game, distinct[p], catch)
            elif not window:
                pairs[p] = catch
            elif p in small:
                pairs[p] = tuple((p, a) for a in legal_for(game, p))
            else:
                pairs[p] = speed[p] + catch
        touched.clear()
        stale.clear()
        return pairs
