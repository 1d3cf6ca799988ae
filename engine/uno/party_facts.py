"""UNO Party!'s state: what a PartyGame holds, and the steps its rules share.

``engine.uno.party_play`` (the rules) reads and changes this state;
``engine.uno.party.PartyGame`` (the game) is built on it. Kept apart so that
the rules and the game import it and not each other.
"""

from __future__ import annotations

from typing import Protocol

from engine.game.shuffle import seeded_shuffle
from engine.uno.cards import COLOURS, POINTS_BY_CODE, WILD_COLOUR, Colour
from engine.uno.game import Phase
from engine.uno.match_facts import MatchFacts
from engine.uno.party_rules import PartyRules, colour_of, is_number
from engine.uno.rules import Variant

__all__ = ["PartyFacts", "HandWatcher"]

# Phase's members as module names: one read off the enum class costs several
# times a global's, and these are read at every decision.
_PLAYING, _DRAWN, _OVER = Phase.PLAY, Phase.DRAWN, Phase.ROUND_OVER


class HandWatcher(Protocol):
    """What is told of every change to a hand (``party_legality.Legality``,
    which reads this state and so is not imported here), once it is made."""

    def card_added(self, player: int, hand: list[int], card: int) -> None: ...

    def card_removed(self, player: int, hand: list[int], card: int) -> None: ...

    def hand_changed(self, player: int) -> None: ...


class PartyFacts(MatchFacts):
    """The state of an UNO Party! match, and the steps its rules share."""

    _variant: Variant
    _house: PartyRules
    _n: int
    _hands: list[list[int]]
    _draw: list[int]
    _discard: list[int]
    _colour: int  # the colour in force, WILD_COLOUR while a first wild's is unnamed
    _direction: int
    _phase: Phase
    _pending: int
    _wd4_legal: bool | None
    _catchable: int
    _link: tuple[int, int] | None
    _pile: list[int]
    _out: int | None
    _choices: list[int | str] | None
    _scores: list[int]
    _dealer: int
    _round: int
    _target: int
    _seed: int
    _shuffles: int
    _deck: tuple[int, ...]
    _legality: HandWatcher
    current: int
    round_over: bool
    turns: int

    @property
    def catchable(self) -> int | None:
        target = self._catchable
        if target < 0 or len(self._hands[target]) != 1 or self.round_over:
            return None
        return target

    @property
    def speed_window(self) -> bool:
        """Whether a speed play is open now (for whoever holds the identical card)."""
        phases = (_PLAYING,) if self._house.draw_closes_speed else (_PLAYING, _DRAWN)
        return self._phase in phases and is_number(self._discard[-1])

    @property
    def pile_colour(self) -> Colour | None:
        for card in self._pile:
            if colour_of(card) != WILD_COLOUR:
                return COLOURS[colour_of(card)]
        return None

    def _next(self, player: int, steps: int = 1) -> int:
        return (player + steps * self._direction) % self._n

    def _draw_cards(self, player: int, count: int, linked: bool = True) -> int:
        """``player`` draws ``count`` (fewer if the piles run out); the linked
        player then draws as many (unless ``linked`` is False). Returns how many
        ``player`` drew."""
        hand = self._hands[player]
        watcher = self._legality
        # Cards drawn by the player holding a just-drawn card go under it.
        at = len(hand) - 1 if self._phase is _DRAWN and player == self.current else None
        drawn = 0
        for _ in range(count):
            if not self._draw and not self._reshuffle():
                break
            card = self._draw.pop()
            if at is None:
                hand.append(card)
                watcher.card_added(player, hand, card)
            else:
                hand.insert(at, card)
                watcher.hand_changed(player)
                at += 1
            drawn += 1
        if linked and drawn and self._link is not None and player in self._link:
            other = self._link[0] + self._link[1] - player
            if self._hands[other]:  # a player who has gone out draws nothing more
                self._draw_cards(other, drawn, linked=False)
        return drawn

    def _reshuffle(self) -> bool:
        if len(self._discard) < 2:
            return False
        rest = self._discard[:-1]
        del self._discard[:-1]
        self._shuffle(rest)
        self._draw.extend(rest)
        return True

    def _shuffle(self, cards: list[int]) -> None:
        seeded_shuffle(cards, seed=self._seed, count=self._shuffles)
        self._shuffles += 1

    def _end_round(self, winner: int) -> None:
        if self._pile:  # set aside under the top discard; it scores for no one
            self._discard[-1:-1] = self._pile
            self._pile = []
        self._scores[winner] += sum(
            POINTS_BY_CODE[c] for p, hand in enumerate(self._hands) if p != winner for c in hand
        )
        self.current, self._phase, self.round_over = winner, _OVER, True
        self._catchable, self._pending, self._wd4_legal = -1, 0, None
        self._out, self._choices = None, None

    def _all_cards(self) -> list[int]:
        return [c for h in self._hands for c in h] + self._draw + self._discard + self._pile
