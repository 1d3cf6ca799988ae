"""Playouts: a classic or Showdown game played to the end of the round or the
match by a named policy, fast, on plain ints.

``play_out(game, policy, rng)`` copies the position into its own lists of card
codes (the game is not changed), then plays every decision itself: no Action
is built and no ``apply()`` is called per decision. The same ``rng`` gives
exactly the game that the public API would play with the same policy
(engine.uno.policies: ``reference_play_out`` is that loop over
``waiting_for`` / ``legal_actions`` / ``apply``, and tests/test_uno_playout.py
compares every decision of the two). The decision loop is
engine.uno.playout_kernel's ``play_round``: its mypyc extension where ``make
build`` built it (``KERNEL``, with the heuristic it calls,
engine.uno.playout_heuristic), its Python source otherwise or with
``UNO_PLAYOUT_INTERPRETED=1``.

The policies (``POLICIES``), each choosing from ``legal_actions()`` as the game
lists them:

``random``       uniform over the legal actions;
``prefer-play``  uniform over the actions that are not ``draw`` or ``keep``
                 when there are any, else over all (../shared/peers' prefer-play);
``heuristic``    what ``engine.uno.bots.HeuristicBot()`` chooses (no rng).

A uniform choice among ``k > 1`` actions takes ``int(rng.random() * k)``; a
choice of one takes nothing from ``rng``. A showdown is settled by a
simulated unit: the loser is the challenger or the opponent, 50/50, chosen
the same way among the two results as ``legal_actions()`` lists them
(challenger first), whatever the policy. Every decision counts, the unit's too.

>>> import random
>>> from engine.uno.game import Game
>>> game = Game.new(2, "classic", seed=7)
>>> result = play_out(game, "prefer-play", random.Random(1))
>>> result.winner in (0, 1), result.points > 0, game.turns
(True, True, 0)
>>> play_out(game, "prefer-play", random.Random(1)) == result
True
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
from types import ModuleType
from typing import Literal, NamedTuple

from engine.game.shuffle import seeded_shuffle
from engine.uno import playout_heuristic, playout_kernel
from engine.uno.actions import Action
from engine.uno.cards import (
    COLOUR_SHIFT,
    FACE_MASK,
    FIRST_WILD_RANK,
    RANK_MASK,
    WILD_COLOUR,
)
from engine.uno.game import Game
from engine.uno.game_state import _COLOUR, _OVER, _PLAY
from engine.uno.rules import (
    FIRST_CARD_COVERED,
    FIRST_CARD_RETURNED,
    HAND_SIZE,
    first_card_effect,
)

__all__ = ["play_out", "PlayoutResult", "POLICIES", "MAX_DECISIONS"]

#: The policies by name, as ``play_out`` takes them.
POLICIES = ("random", "prefer-play", "heuristic")
assert POLICIES.index("prefer-play") == playout_kernel.PREFER
assert POLICIES.index("heuristic") == playout_kernel.HEURISTIC
#: Set (to anything but "" or "0") to run the kernel's Python source even where
#: its mypyc extension is built.
INTERPRETED_ENV = "UNO_PLAYOUT_INTERPRETED"
_HERE = os.path.dirname(__file__)
_KERNEL_SOURCE = os.path.join(_HERE, "playout_kernel.py")
_HEURISTIC_SOURCE = os.path.join(_HERE, "playout_heuristic.py")


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from an extension (mypyc) rather than source."""
    return not (module.__file__ or "").endswith(".py")


def _from_source(name: str, path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def interpreted_kernel() -> ModuleType:
    """engine.uno.playout_kernel run from its Python source (the reference),
    with the heuristic's source, whether or not the compiled extensions are
    what ``import`` finds."""
    if not is_compiled(playout_kernel):
        return playout_kernel
    name = "engine.uno._playout_kernel_source"
    module = sys.modules.get(name)
    if module is None:
        heuristic = _from_source("engine.uno._playout_heuristic_source", _HEURISTIC_SOURCE)
        # The kernel's source imports the heuristic by its name: give it the source.
        sys.modules[playout_heuristic.__name__] = heuristic
        try:
            module = _from_source(name, _KERNEL_SOURCE)
        finally:
            sys.modules[playout_heuristic.__name__] = playout_heuristic
    return module


def _stale() -> bool:
    """Whether an extension is older than a source: built from other code."""
    built = min(os.path.getmtime(m.__file__ or "") for m in (playout_kernel, playout_heuristic))
    return built < max(map(os.path.getmtime, (_KERNEL_SOURCE, _HEURISTIC_SOURCE)))


def _chosen_kernel() -> ModuleType:
    if os.environ.get(INTERPRETED_ENV, "") not in ("", "0"):
        return interpreted_kernel()
    compiled = is_compiled(playout_kernel) and is_compiled(playout_heuristic)
    if not compiled or _stale():
        return interpreted_kernel()  # (the kernel itself when nothing is compiled)
    return playout_kernel


#: The kernel play_out runs: the compiled one when it is built, current and not
#: refused by INTERPRETED_ENV; else the Python source.
KERNEL = _chosen_kernel()


#: The decisions after which a playout stops by default.
MAX_DECISIONS = 100_000


class PlayoutResult(NamedTuple):
    """A playout's end: the last round's winner and points, the decisions made
    (all rounds), the match's scores and its winner (None while no one has
    reached the target: always so after a round that did not end the match).
    A playout stopped by ``max_decisions`` has winner None and points 0."""

    winner: int | None
    points: int
    decisions: int
    scores: tuple[int, ...]
    match_winner: int | None


def play_out(
    game: Game,
    policy: str,
    rng: random.Random,
    *,
    to: Literal["round", "match"] = "round",
    log: list[Action] | None = None,
    max_decisions: int = MAX_DECISIONS,
) -> PlayoutResult:
    """Play ``game`` (left unchanged) to the end of the round or the match with
    ``policy`` (one of POLICIES), choosing with ``rng``. ``log``, when given,
    receives every decision as the game's Action (a debug mode: slower).
    After ``max_decisions`` decisions the playout stops where it is (uniform
    random Showdown rounds can run for hundreds of thousands).

    A game copied with ``Game.copy()`` and given other hands or another draw
    pile (a determinized copy, every card of the deck still in one place) plays
    out as it stands.
    """
    try:
        kind = POLICIES.index(policy)
    except ValueError:
        raise ValueError(
            f"no playout policy {policy!r} (the policies: {', '.join(POLICIES)})"
        ) from None
    if to not in ("round", "match"):
        raise ValueError(f"play out to 'round' or 'match', not {to!r}")
    state = _State(game)
    decisions = 0
    while True:
        decisions += KERNEL.play_round(state, kind, rng.random, log, max_decisions - decisions)
        if state.phase != _OVER:
            return PlayoutResult(None, 0, decisions, tuple(state.scores), None)
        winner = state.current
        if to == "round" or state.match_winner() is not None:
            break
        state.next_round()
    return PlayoutResult(winner, state.points, decisions, tuple(state.scores), state.match_winner())


class _State:
    """The position as plain lists and ints (the slots of ClassicState, copied)."""

    __slots__ = (
        "n",
        "hands",
        "draw",
        "discard",
        "top",
        "direction",
        "phase",
        "pending",
        "wd4_legal",
        "catchable",
        "showdown",
        "current",
        "scores",
        "points",
        "dealer",
        "target",
        "seed",
        "shuffles",
        "house",
        "first_card",
        "effects",
        "showdowns",
        "deck",
    )

    def __init__(self, game: Game) -> None:
        g = game
        self.n = g._n
        self.hands = [hand[:] for hand in g._hands]
        self.draw = g._draw[:]
        self.discard = g._discard[:]
        self.top = g._top
        self.direction = g._direction
        self.phase = g._phase
        self.pending = g._pending
        self.wd4_legal = g._wd4_legal
        self.catchable = g._catchable
        self.showdown = None if g._showdown is None else (*g._showdown[:2], g._showdown[2][:])
        self.current = g.current
        self.scores = g._scores[:]
        self.points = 0
        self.dealer = g._dealer
        self.target = g._target
        self.seed = g._seed
        self.shuffles = g._shuffles
        self.house = g._house
        self.first_card = g._house.first_card or g._variant.first_card
        self.effects = g._effects
        self.showdowns = g._variant.showdowns
        self.deck = g._variant.codes
        if self.phase == _OVER:
            self.points = playout_kernel.points_of(self.hands, self.current)

    def match_winner(self) -> int | None:
        scores = self.scores
        best = max(scores)
        return scores.index(best) if best >= self.target else None  # the first best

    def next_round(self) -> None:
        """Game.next_round and Game._deal, on the playout's lists."""
        n = self.n
        cards = [c for hand in self.hands for c in hand] + self.draw + self.discard
        cards.sort()
        self.dealer = dealer = (self.dealer + 1) % n
        seeded_shuffle(cards, seed=self.seed, count=self.shuffles)
        self.shuffles += 1
        first = (dealer + 1) % n
        hands: list[list[int]] = [[]] * n
        for i in range(n):
            hands[(first + i) % n] = cards[-HAND_SIZE:][::-1]
            del cards[-HAND_SIZE:]
        self.hands = hands
        self.draw = draw = cards
        self.discard = discard = [cards.pop()]
        self.direction = 1
        self.pending = 0
        self.wd4_legal = None
        self.catchable = -1
        self.showdown = None
        # Game._turn_first_card.
        returned, covered = (
            FIRST_CARD_RETURNED[self.first_card],
            FIRST_CARD_COVERED[self.first_card],
        )
        while True:
            rank = discard[-1] & RANK_MASK
            if rank in returned and any(c & RANK_MASK < FIRST_WILD_RANK for c in draw):
                draw.append(discard.pop())
                seeded_shuffle(draw, seed=self.seed, count=self.shuffles)
                self.shuffles += 1
                discard.append(draw.pop())
            elif rank in covered and draw:
                discard.append(draw.pop())
            else:
                break
        self.current, self.phase = first, _PLAY
        if rank >= FIRST_WILD_RANK:
            self.top = WILD_COLOUR << COLOUR_SHIFT | rank
            self.phase = _COLOUR
            return
        self.top = discard[-1] & FACE_MASK
        effect = first_card_effect(rank, n == 2)
        if effect.reverses:
            self.direction = -self.direction
        d = self.direction
        if effect.draws:
            self._draw_cards((dealer + d) % n, effect.draws)
        self.current = (dealer + effect.turns * d) % n

    def _draw_cards(self, player: int, count: int) -> None:
        hand, draw, discard = self.hands[player], self.draw, self.discard
        for _ in range(count):
            if not draw:
                if len(discard) < 2:
                    return
                rest = discard[:-1]
                del discard[:-1]
                seeded_shuffle(rest, seed=self.seed, count=self.shuffles)
                self.shuffles += 1
                draw.extend(rest)
            hand.append(draw.pop())
