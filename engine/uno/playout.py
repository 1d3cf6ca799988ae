"""Playouts: a classic or Showdown game played to the end of the round or the
match by a named policy, fast, on plain ints.

``play_out(game, policy, rng)`` copies the position into its own lists of card
codes (the game is not changed), then plays every decision itself: no Action
is built and no ``apply()`` is called per decision. The same ``rng`` gives
exactly the game that the public API would play with the same policy
(engine.uno.policies: ``reference_play_out`` is that loop over
``waiting_for`` / ``legal_actions`` / ``apply``, and tests/test_uno_playout.py
compares every decision of the two). ``play_out_new(players, variant,
policy, rng)`` plays out the match ``Game.new`` would deal without building
it: the same deal, made straight into the playout's lists
(tests/test_uno_playout_deal.py compares). The decision loop is
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

from engine.uno import playout_heuristic, playout_kernel
from engine.uno.actions import Action
from engine.uno.game import Game
from engine.uno.game_state import _OVER
from engine.uno.match_facts import match_seed
from engine.uno.rules import HouseRules, Variant
from engine.uno.tables import EFFECTS

__all__ = [
    "play_out",
    "play_out_new",
    "PlayerTurns",
    "PlayoutResult",
    "POLICIES",
    "MAX_DECISIONS",
    "shuffle_as_random",
]

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


_NO_HOUSE_RULES = HouseRules()

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
    return _play(_State(game), _policy_number(policy, to), rng, to, log, max_decisions)


def play_out_new(
    players: int,
    variant: str | Variant,
    policy: str,
    rng: random.Random,
    *,
    seed: int | None = None,
    house_rules: HouseRules | None = None,
    target: int = 500,
    dealer: int = 0,
    to: Literal["round", "match"] = "round",
    log: list[Action] | None = None,
    max_decisions: int = MAX_DECISIONS,
) -> PlayoutResult:
    """Play out the match ``Game.new(players, variant, seed=seed, ...)`` deals,
    without building the game: the deal is made straight into the playout's
    lists, the same cards in the same order (with no ``seed``, one is drawn
    from ``rng`` as ``Game.new(..., rng=rng)`` draws it, so
    ``play_out_new(2, "classic", policy, rng)`` is
    ``play_out(Game.new(2, "classic", rng=rng), policy, rng)``).

    >>> a = play_out_new(2, "classic", "prefer-play", random.Random(5))
    >>> rng = random.Random(5)
    >>> a == play_out(Game.new(2, "classic", rng=rng), "prefer-play", rng)
    True
    """
    kind = _policy_number(policy, to)
    state = _State.new(players, variant, seed, rng, house_rules, target, dealer)
    return _play(state, kind, rng, to, log, max_decisions)


def _policy_number(policy: str, to: str) -> int:
    if to not in ("round", "match"):
        raise ValueError(f"play out to 'round' or 'match', not {to!r}")
    try:
        return POLICIES.index(policy)
    except ValueError:
        raise ValueError(
            f"no playout policy {policy!r} (the policies: {', '.join(POLICIES)})"
        ) from None


def _play(
    state: _State,
    kind: int,
    rng: random.Random,
    to: str,
    log: list[Action] | None,
    max_decisions: int,
) -> PlayoutResult:
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


def shuffle_as_random(cards: list[int], rng: random.Random) -> None:
    """``rng.shuffle(cards)`` (a list of ints), the same permutation from the
    same bits, on the kernel (compiled where built).

    >>> a, b = list(range(20)), list(range(20))
    >>> random.Random(3).shuffle(a)
    >>> shuffle_as_random(b, random.Random(3))
    >>> a == b
    True
    """
    KERNEL.shuffle_as_random(cards, rng.getrandbits)


class PlayerTurns:
    """A heuristic playout of ``game`` (left unchanged) that stops at
    ``player``'s turns to play, for a search of that player's own decisions
    (engine.uno.search_tree): at each turn with more than one play and no catch
    to make, ``next_turn`` returns the plays (ints: engine.uno.playout_codes),
    and the next call's ``choice`` is the turn's decision. With ``stop=False``
    it plays on to the end without stopping. Given the heuristic's choice at
    every turn (``heuristic``), it is ``play_out(game, "heuristic", rng)``,
    decision for decision (tests/test_uno_playout_turns.py compares).

    >>> game = Game.new(4, "classic", seed=7)
    >>> turns = PlayerTurns(game, 0, random.Random(1), 400)
    >>> plays = turns.next_turn()
    >>> while plays is not None:
    ...     plays = turns.next_turn(turns.heuristic(plays))
    >>> turns.winner == play_out(game, "heuristic", random.Random(1)).winner
    True
    """

    __slots__ = ("state", "player", "left", "_random")

    def __init__(self, game: Game, player: int, rng: random.Random, max_decisions: int) -> None:
        self.state = _State(game)
        self.player = player
        self.left = max_decisions
        self._random = rng.random

    def next_turn(self, choice: int | None = None, stop: bool = True) -> list[int] | None:
        """Play on (the stopped turn decided by ``choice``) to the player's next
        turn: its plays, or None when the round is over or the decisions ran out."""
        s = self.state
        s.options = None
        stop_for = self.player if stop else -1
        given = playout_kernel.NO_CHOICE if choice is None else choice
        policy = playout_kernel.HEURISTIC
        self.left -= KERNEL.play_round(s, policy, self._random, None, self.left, stop_for, given)
        return s.options

    def heuristic(self, plays: list[int]) -> int:
        """HeuristicBot's choice among ``plays`` at the stopped turn."""
        s = self.state
        best = playout_heuristic.best_play(plays, self.player, s.hands, s.top, s.direction, False)
        assert best is not None, "a turn stopped at has a play"
        return best

    @property
    def hand(self) -> list[int]:
        return self.state.hands[self.player]

    @property
    def winner(self) -> int | None:
        """The round's winner, None until it is over (or when it ran out)."""
        s = self.state
        return s.current if s.phase == _OVER else None


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
        "options",
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
        self.options: list[int] | None = None  # a stopped turn's plays (PlayerTurns)
        if self.phase == _OVER:
            self.points = playout_kernel.points_of(self.hands, self.current)

    @classmethod
    def new(
        cls,
        players: int,
        variant: str | Variant,
        seed: int | None,
        rng: random.Random | None,
        house_rules: HouseRules | None,
        target: int,
        dealer: int,
    ) -> _State:
        """Game.new's first round, dealt straight into a state (no Game)."""
        if variant == "party" or (isinstance(variant, Variant) and variant.name == "party"):
            raise ValueError("UNO Party! is a PartyGame: play it out with its own playout")
        v = Variant.named(variant) if isinstance(variant, str) else variant
        if seed is not None:
            rng = None  # Game.new's rng only draws a seed; play_out_new's also plays
        seed = match_seed(v, players, seed=seed, rng=rng, dealer=dealer, target=target)
        house = _NO_HOUSE_RULES if house_rules is None else house_rules
        state = cls.__new__(cls)
        state.n = players
        state.scores = [0] * players
        state.points = 0
        state.dealer = dealer
        state.target = target
        state.seed = seed
        state.shuffles = 0
        state.house = house
        state.first_card = house.first_card or v.first_card
        state.effects = EFFECTS[players == 2, house.stacking]
        state.showdowns = v.showdowns
        state.deck = v.codes
        state.options = None
        KERNEL.deal(state, list(v.codes))
        return state

    def match_winner(self) -> int | None:
        scores = self.scores
        best = max(scores)
        return scores.index(best) if best >= self.target else None  # the first best

    def next_round(self) -> None:
        """Game.next_round and Game._deal, on the playout's lists."""
        cards = [c for hand in self.hands for c in hand] + self.draw + self.discard
        cards.sort()
        self.dealer = (self.dealer + 1) % self.n
        KERNEL.deal(self, cards)
