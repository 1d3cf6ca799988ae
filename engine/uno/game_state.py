"""A classic or Showdown game's state, written down and read back: its slots, its
one-line notation, its copy and its invariants.

``engine.uno.game.Game`` is built on it: the rules there (what is legal, what a
decision does) read and change these slots on the hot path; here is what only
reads or rebuilds a whole position.
"""

from __future__ import annotations

from typing import Self

from engine.game.errors import InvariantError, NotationError
from engine.uno.actions import Action
from engine.uno.cards import (
    COLOUR_SHIFT,
    COLOURS,
    FIRST_WILD_RANK,
    RANK_MASK,
    SHOWDOWN_SHIFT,
    WILD_COLOUR,
    Colour,
    Rank,
)
from engine.uno.match_facts import MatchFacts
from engine.uno.notation import PHASES, Position
from engine.uno.rules import HouseRules, Variant
from engine.uno.tables import EFFECTS, EffectRow, match_key

__all__ = ["ClassicState"]

#: The phases as the slot ``_phase`` holds them (indices of notation.PHASES).
_PLAY, _DRAWN, _PENALTY, _COLOUR, _FACE, _OVER = range(len(PHASES))


class ClassicState(MatchFacts):
    """The slots of a classic or Showdown game, and what reads or rebuilds them whole."""

    __slots__ = (
        "current",
        "round_over",
        "turns",
        "_variant",
        "_house",
        "_n",
        "_hands",
        "_draw",
        "_discard",
        "_top",
        "_direction",
        "_phase",
        "_pending",
        "_wd4_legal",
        "_catchable",
        "_showdown",
        "_scores",
        "_dealer",
        "_round",
        "_target",
        "_seed",
        "_shuffles",
        "_legal",
        "_deck",
        "_effects",
    )

    # State: hands, draw pile (top last) and discard pile (top last) are lists of
    # plain int card codes; _top is what the next card must match, its match key
    # colour << COLOUR_SHIFT | rank (tables.match_key; colour WILD_COLOUR while a
    # first wild's colour is unnamed), which indexes PLAYABLE directly; _phase is
    # one of _PLAY..._OVER; _catchable is the player who may be caught without
    # UNO (-1: nobody); _showdown is (challenger, opponent, cards in the unit) or
    # None; _legal caches legal_actions() until the next apply(); _effects is
    # what each card does in this game, by rank (tables.EFFECTS).
    current: int
    round_over: bool
    turns: int
    _variant: Variant
    _house: HouseRules
    _n: int
    _hands: list[list[int]]
    _draw: list[int]
    _discard: list[int]
    _top: int
    _direction: int
    _phase: int
    _pending: int
    _wd4_legal: bool | None
    _catchable: int
    _showdown: tuple[int, int, list[int]] | None
    _scores: list[int]
    _dealer: int
    _round: int
    _target: int
    _seed: int
    _shuffles: int
    _legal: tuple[Action, ...] | None
    _deck: tuple[int, ...]
    _effects: tuple[EffectRow, ...]

    @property
    def colour(self) -> Colour | None:
        """The colour to match (a wild's named colour); None until a first wild's
        colour is named."""
        colour = self._top >> COLOUR_SHIFT
        return None if colour == WILD_COLOUR else COLOURS[colour]

    # -- notation, copies, invariants -----------------------------------------------

    def notation(self, reveal: bool = False) -> str:
        """The whole game as one line; ``Game.from_notation`` reads it back
        (``reveal`` is the interface's: this notation always shows every card)."""
        return self._position().format()

    def _position(self) -> Position:
        phase = self._phase
        penalty = phase == _PENALTY
        showdown = None
        if self._showdown is not None:
            challenger, opponent, unit = self._showdown
            showdown = (challenger, opponent, list(unit))
        return Position(
            variant=self._variant.name,
            hands=self._hands,
            draw=self._draw[::-1],
            discard=self._discard,
            colour=self.colour,
            direction=self._direction,
            player=self.current,
            phase=PHASES[phase],
            pending=self._pending if penalty else 0,
            wd4_legal=self._wd4_legal if penalty else None,
            catchable=None if self._catchable < 0 else self._catchable,
            showdown=showdown,
            scores=self._scores,
            dealer=self._dealer,
            round=self._round,
            target=self._target,
            house_rules=self._house,
            seed=self._seed,
            shuffles=self._shuffles,
        )

    @classmethod
    def from_notation(cls, text: str, variant: Variant | None = None) -> Self:
        """The game written as ``text``. ``variant`` supplies a custom deck for
        later rounds' checks; by default the variant is looked up by name.
        Classic and Showdown; ``engine.uno.read_game`` reads every UNO variant."""
        if isinstance(text, str) and text.startswith("party "):
            raise NotationError(f"an UNO Party! game: read it with engine.uno.read_game: {text!r}")
        position = Position.parse(text)
        if variant is None:
            variant = Variant.named(position.variant)
        elif variant.name != position.variant:
            raise NotationError(f"notation is for {position.variant}, not {variant.name}")
        game = cls.__new__(cls)
        game._variant = variant
        game._house = position.house_rules
        game._n = len(position.hands)
        game._hands = [list(map(int, hand)) for hand in position.hands]
        game._draw = list(map(int, reversed(position.draw)))
        game._discard = list(map(int, position.discard))
        colour = WILD_COLOUR if position.colour is None else int(position.colour)
        game._top = match_key(colour, position.discard[-1] & RANK_MASK if position.discard else 0)
        game._direction = position.direction
        game.current = position.player
        game._phase = PHASES.index(position.phase)
        game.round_over = position.phase == "over"
        game.turns = 0
        game._pending = position.pending
        game._wd4_legal = position.wd4_legal
        game._catchable = -1 if position.catchable is None else position.catchable
        game._showdown = None
        if position.showdown is not None:
            challenger, opponent, unit = position.showdown
            game._showdown = (challenger, opponent, list(map(int, unit)))
        game._scores = list(position.scores)
        game._dealer = position.dealer
        game._round = position.round
        game._target = position.target
        game._seed = position.seed
        game._shuffles = position.shuffles
        game._legal = None
        game._effects = EFFECTS[game._n == 2, game._house.stacking]
        game._deck = tuple(game._all_cards())
        if not variant.showdowns and any(
            c >> SHOWDOWN_SHIFT or c & RANK_MASK == Rank.WILD_SHOWDOWN for c in game._deck
        ):
            raise NotationError(f"Showdown cards in a classic game: {text!r}")
        try:
            game.check_invariants()
        except InvariantError as exc:
            raise NotationError(f"inconsistent notation: {exc}") from None
        return game

    def copy(self) -> Self:
        """An independent copy (same position, same future shuffles)."""
        game = type(self).__new__(type(self))
        for name in ClassicState.__slots__:
            setattr(game, name, getattr(self, name))
        game._hands = [hand[:] for hand in self._hands]
        game._draw = self._draw[:]
        game._discard = self._discard[:]
        game._scores = self._scores[:]
        if self._showdown is not None:
            challenger, opponent, unit = self._showdown
            game._showdown = (challenger, opponent, unit[:])
        return game

    def _all_cards(self) -> list[int]:
        cards = [c for hand in self._hands for c in hand] + self._draw + self._discard
        if self._showdown is not None:
            cards += self._showdown[2]
        return cards

    def check_invariants(self) -> None:
        """Raise InvariantError unless the position is consistent: every card of
        the deck in exactly one place (hands, draw pile, discard pile, unit), and
        the phase, players and counters in range."""
        problems = self._seating_problems(self._all_cards())
        n = self._n
        if not self._discard:
            problems.append("the discard pile is empty")
        if self._discard and self._top & RANK_MASK != self._discard[-1] & RANK_MASK:
            problems.append("the match key is not the top card's")
        if (self._top >> COLOUR_SHIFT == WILD_COLOUR) != (self._phase == _COLOUR):
            problems.append("the colour is unnamed outside the colour phase or named in it")
        if (
            self._phase == _COLOUR
            and self._discard
            and self._discard[-1] & RANK_MASK < FIRST_WILD_RANK
        ):
            problems.append("a colour is chosen only for a wild first card")
        if self._phase == _PENALTY:
            rank = self._discard[-1] & RANK_MASK if self._discard else -1
            if rank not in (Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR) or self._pending < 2:
                problems.append("a penalty needs a Draw Two or Wild Draw Four on top")
            elif (rank == Rank.WILD_DRAW_FOUR) != (self._wd4_legal is not None):
                problems.append("a Wild Draw Four penalty records its legality, a Draw Two none")
            elif rank == Rank.DRAW_TWO and not self._house.stacking:
                problems.append("a Draw Two penalty waits for a decision only under stacking")
        if self._phase == _DRAWN and not self._hands[self.current]:
            problems.append("drawn phase with an empty hand")
        if (
            self._phase == _FACE
            and self._discard
            and self._discard[-1] & RANK_MASK != Rank.WILD_SHOWDOWN
        ):
            problems.append("a showdown is named only after a Wild Showdown")
        if self.round_over != (self._phase == _OVER):
            problems.append("round_over disagrees with the phase")
        if self._phase == _OVER and self._hands[self.current]:
            problems.append("the round's winner still holds cards")
        if self._catchable >= n:
            problems.append("uno player out of range")
        if self._showdown is not None:
            challenger, opponent, unit = self._showdown
            if challenger >= n or opponent >= n or challenger == opponent or not unit:
                problems.append("the showdown needs two different players and cards")
            if self._phase == _OVER:
                problems.append("a showdown pending after the round ended")
        if problems:
            raise InvariantError("; ".join(problems) + f": {self._position().format()}")

    def __repr__(self) -> str:
        return f"Game.from_notation({self.notation()!r})"
