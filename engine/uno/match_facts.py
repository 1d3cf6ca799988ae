"""What every game of the engine shows the same way: the seats, the piles, the
score and the match (``Game`` and ``PartyGame`` share these, python-chess style:
one set of nouns, a board class per variant).

Read-only views over the game's own lists of card codes; each call builds
fresh tuples, so a caller can never change the game through them.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from engine.uno.cards import REAL_CARD, Card
from engine.uno.party_rules import PartyRules
from engine.uno.rules import HAND_SIZE, HouseRules, Variant

__all__ = ["MatchFacts", "cards_of", "match_seed"]


def cards_of(codes: Iterable[int]) -> tuple[Card, ...]:
    """The cards of plain card codes."""
    return tuple(map(REAL_CARD.__getitem__, codes))


def match_seed(
    variant: Variant,
    players: object,
    *,
    seed: object,
    rng: random.Random | None,
    dealer: object,
    target: object,
) -> int:
    """Check a new match's arguments (ValueError/TypeError naming the bad one)
    and return its seed: ``seed``, or one drawn from ``rng``, or from the OS."""
    if not isinstance(players, int) or not (variant.min_players <= players <= variant.max_players):
        raise ValueError(
            f"{variant.name} takes {variant.min_players}-{variant.max_players} "
            f"players, not {players!r}"
        )
    if len(variant.deck) < HAND_SIZE * players + 1:
        raise ValueError(f"a {len(variant.deck)}-card deck cannot deal {players} hands")
    if not isinstance(dealer, int) or not 0 <= dealer < players:
        raise ValueError(f"dealer must be a player 0-{players - 1}, not {dealer!r}")
    if not isinstance(target, int) or target < 1:
        raise ValueError(f"target must be a positive score, not {target!r}")
    if seed is not None and rng is not None:
        raise TypeError("give seed or rng, not both")
    if rng is not None:
        return rng.getrandbits(64)
    if seed is None:
        return random.SystemRandom().getrandbits(64)
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, not {seed!r}")
    return seed


class MatchFacts:
    """The read-only nouns of a match of UNO rounds (a mixin: no state of its own)."""

    __slots__ = ()

    # The state each game keeps (its own __slots__ or attributes).
    _n: int
    _variant: Variant
    _house: HouseRules | PartyRules  # each game narrows it
    _hands: list[list[int]]
    _draw: list[int]
    _discard: list[int]
    _direction: int
    _scores: list[int]
    _dealer: int
    _round: int
    _target: int
    _deck: tuple[int, ...]
    current: int

    @property
    def players(self) -> int:
        return self._n

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        """Who plays together: in UNO every player alone."""
        return tuple((p,) for p in range(self._n))

    @property
    def variant(self) -> Variant:
        return self._variant

    def hand(self, player: int) -> tuple[Card, ...]:
        return cards_of(self._hands[player])

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        return tuple(map(cards_of, self._hands))

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(map(len, self._hands))

    @property
    def draw_pile(self) -> tuple[Card, ...]:
        """The draw pile, the next card to be drawn first."""
        return cards_of(reversed(self._draw))

    @property
    def discard_pile(self) -> tuple[Card, ...]:
        """The discard pile, bottom first; the last card is the top card."""
        return cards_of(self._discard)

    @property
    def top_card(self) -> Card:
        return REAL_CARD[self._discard[-1]]

    @property
    def direction(self) -> int:
        """+1 clockwise (to higher player numbers), -1 after an odd number of Reverses."""
        return self._direction

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self._scores)

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def round(self) -> int:
        """The round number, 1 for the first round of the match."""
        return self._round

    @property
    def target(self) -> int:
        return self._target

    @property
    def match_winner(self) -> int | None:
        best = max(range(self._n), key=self._scores.__getitem__)
        return best if self._scores[best] >= self._target else None

    @property
    def match_over(self) -> bool:
        return self.match_winner is not None

    def _seating_problems(self, cards: list[int]) -> list[str]:
        """The consistency checks every game shares (check_invariants adds its own):
        ``cards``, every card in play wherever the game keeps them, are the deck's
        cards each once; the players and the counters in range."""
        problems = []
        n = self._n
        if sorted(cards) != sorted(self._deck):
            problems.append("the cards in play are not the deck's cards")
        if not 2 <= n <= self._variant.max_players:
            problems.append(f"{n} players")
        if len(self._scores) != n:
            problems.append(f"{len(self._scores)} scores for {n} players")
        if not 0 <= self.current < n or not 0 <= self._dealer < n:
            problems.append("player or dealer out of range")
        if self._round < 1 or self._target < 1:
            problems.append("round and target must be at least 1")
        return problems
