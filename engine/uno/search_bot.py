"""The search bot ("strong"): determinized Monte Carlo over worlds drawn from
what its player may see.

Each decision it deals worlds from its ``Belief`` (the hidden hands and the
draw pile, consistent with every public fact), as many as its budget of
``playouts`` per decision allows, tries each candidate action in each world
and plays the rest of the round out with a fast policy. The candidate that
wins in the most worlds is played if it beats the heuristic's choice by
``confidence`` standard deviations (a sign test), else the heuristic's. The
worlds are shared by all candidates, and so is each world's playout seed, so
candidates are compared on the same luck.

The budget, the test and the playouts are a ``Plan`` per game (``plan_for``);
every game plays out with engine.uno.playout's heuristic (compiled; every
player exactly as HeuristicBot), which also leaves time for more worlds.
``kernel=False`` plays out with this module's ``_playout`` instead, the bot
its first 2-player win rate was measured with. A showdown that a candidate
starts is settled by the bot's ``ReactionModel`` (engine.uno.search_reactions:
each player's reaction, learnt from the times ``saw_showdown`` is shown); the
playouts' later showdowns are the kernel's coin tosses. At 3+ players the
belief also reads the opponents' plays as HeuristicBot's, and a world in which
a play seen since the last decision is not the heuristic's weighs less
(``Plan.reads_plays`` and ``misfit``; engine.uno.search_plays), but for the
seats people play (``people_at``): a person's turns are read for draws only.
At 4 players its playouts also search its own next two turns (``Plan.depth``,
engine.uno.search_tree: UCB over the plays it holds at each, in a tree of its
own per candidate) instead of playing them as the heuristic.

It reads the game only through a ``PlayerView``; a world is a ``Game`` built
from the view's public fields and the sampled cards (engine.uno.search_worlds),
never a copy of the real one. UNO Party! and the Wild Showdown's choice fall
back to the heuristic bot.

>>> import random
>>> from engine.uno.game import Game
>>> game = Game.new(2, "classic", seed=7)
>>> bot = SearchBot(random.Random(1), playouts=16)
>>> bot.act(game, 1) in game.legal_actions()
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from engine.game.agents import DEFAULT_REACTION_MS, check_reaction_ms
from engine.uno.actions import Action, ActionKind
from engine.uno.belief import Belief
from engine.uno.bots import HeuristicBot
from engine.uno.cards import (
    COLOUR_MASK,
    COLOUR_SHIFT,
    POINTS_BY_CODE,
    RANK_MASK,
    WILD_COLOUR,
    Rank,
)
from engine.uno.game import Game, Phase
from engine.uno.party import PartyGame
from engine.uno.player_view import PlayerView
from engine.uno.playout import play_out
from engine.uno.search_plays import heuristic_would
from engine.uno.search_reactions import ReactionModel
from engine.uno.search_tree import Node, play_out_searching
from engine.uno.search_worlds import Worlds, world_game

__all__ = ["SearchBot", "Plan", "plan_for", "world_game"]

#: Playouts per decision by default (each candidate gets its share of worlds).
DEFAULT_PLAYOUTS = 192
#: Decisions after which a playout stops: greedy rounds from the deal took at most
#: 206 (300 deals each of 2, 4 and 6 players; medians 35, 47, 63).
PLAYOUT_LIMIT = 400
#: How sure (standard deviations of a sign test) it must be to overrule the heuristic.
DEFAULT_CONFIDENCE = 1.0


class Plan(NamedTuple):
    """How the bot searches a game: ``playouts`` per decision, the sign test's
    ``confidence``, whether its playouts are engine.uno.playout's heuristic
    (``kernel``, compiled) or this module's ``_playout``, whether its belief
    ``reads_plays`` as HeuristicBot's (engine.uno.belief), and a world's
    weight for each opponent's play seen since the last decision that
    HeuristicBot would not have made in it (``misfit``; 1: every world alike),
    and whether it ``race``s three or more candidates: half the budget's worlds
    for all, then the rest for the heuristic's choice and the one leading it
    (none when nothing leads it), the test over all of those two's worlds;
    and whether the belief ``remembers`` plays of earlier laps for ``misfit``
    (while their player has drawn nothing since: engine.uno.belief), and how
    many of the bot's own later turns its kernel playouts search (``depth``:
    engine.uno.search_tree; 0, every later turn the heuristic's).

    (Two options measured and dropped, their figures in docs/performance.md
    naming commit 5632b6b: ``credit`` for a lost playout ended with the fewest
    cards of the losers, and ``steps``, a budget of playout decisions.)"""

    playouts: int
    confidence: float
    kernel: bool
    reads_plays: bool = False
    misfit: float = 1.0
    race: bool = False
    remembers: bool = False
    depth: int = 0


#: 2-player classic: the kernel's playouts, re-measured over the same 2,000
#: paired deals as the own playouts' 55.3% (docs/performance.md, "The search
#: bot"); both kinds' decisions are pinned (tests/test_uno_search_pinned.py).
TWO_PLAYER_CLASSIC = Plan(DEFAULT_PLAYOUTS, DEFAULT_CONFIDENCE, kernel=True)
#: Every other game: the engine's playouts, which play exactly as HeuristicBot,
#: and more of them (3 to 6 players: one decision moves a round less than at
#: 2, so it takes more worlds to tell candidates apart). Chosen on seed 101's
#: 100 4-player deals: 192 playouts 24.2%, 480 with confidence 0.5, 1.0, 1.5
#: 26.5%, 29.8%, 25.8% (p95 83-90 ms), 640 28.7% (p95 96 ms, too near 100);
#: measured on other seeds (docs/performance.md, "The search bot"). Its belief
#: reads the opponents' plays as HeuristicBot's (engine.uno.belief) and weighs
#: a world a quarter for each play seen that the heuristic would not have made
#: in it: over seeds 101-106's 600 deals, 715 of 2,400 rounds against 688 for
#: the plan without (reading alone 709, without the turns through action cards
#: 711; a credit of 0.3 for ending second, on seed 101, 112 against 119).
#: Paired on seeds 101-105 (docs/performance.md): racing lost 8 rounds of 400,
#: remembered plays 8 of 1,600, a misfit of 0.1 4 of 800; the search given the
#: real hands won 50.5% of seed 101's 400 rounds against the plan's 30.0%.
#: Its belief's later facts (a card drawn and kept, another opponent's Wild Draw
#: Four) won 426 of 1,600 rounds on seeds 107-110 against 421 without.
OTHER_GAMES = Plan(480, DEFAULT_CONFIDENCE, kernel=True, reads_plays=True, misfit=0.25)
#: 4-player classic: the same, its playouts searching the bot's next two turns
#: (engine.uno.search_tree). On seeds 135-138, 474 of 1,600 rounds against 430
#: for every later turn the heuristic's (one turn 440, three 455; two with 384
#: playouts 211 of 800 against 219); on the untuned seeds 2,311 of 8,000 against
#: 2,267, at 1.1x the CPU. At 3, 5 and 6 players one seed's 200 deals each gave
#: 222 of 600, 222 of 1,000 and 226 of 1,200 against the flat plan's 224, 223 and
#: 223, at 6 players with a p95 over 100 ms (104 ms): there it stays flat.
FOUR_PLAYERS = OTHER_GAMES._replace(depth=2)
#: Showdown: its playouts are longer (2 players, 192 playouts: p95 53 ms).
SHOWDOWN_GAMES = Plan(DEFAULT_PLAYOUTS, DEFAULT_CONFIDENCE, kernel=True)


def plan_for(players: int, showdowns: bool) -> Plan:
    """The plan for a game of ``players`` (with ``showdowns`` or not)."""
    if showdowns:
        return SHOWDOWN_GAMES
    if players == 2:
        return TWO_PLAYER_CLASSIC
    return FOUR_PLAYERS if players == 4 else OTHER_GAMES


def _kernel_playout(game: Game, rng: random.Random, me: int) -> float:
    """``game`` played out by engine.uno.playout's heuristic (every player as
    HeuristicBot), valued for ``me``: 1 won, else 0 (a playout stopped at
    ``PLAYOUT_LIMIT`` too)."""
    return float(play_out(game, "heuristic", rng, max_decisions=PLAYOUT_LIMIT).winner == me)


def _playout(game: Game, rng: random.Random) -> int:
    """Play ``game``'s round to its end and return the winner, every player
    playing as the heuristic bot would, nearly (``greedy_action``); a showdown's
    loser is drawn 50/50. After ``PLAYOUT_LIMIT`` decisions (every card held and
    none playable: a round that may never end) the fewest cards wins. The
    engine's own fast playout (engine.uno.playout, policy "heuristic") can
    stand in here."""
    for _ in range(PLAYOUT_LIMIT):
        if game.round_over:
            return game.current
        legal = game.legal_actions()
        if game.to_act is None:  # a pending showdown: the simulated unit
            game.apply(legal[rng.randrange(2)])
        elif len(legal) == 1:
            game.apply(legal[0])
        else:
            game.apply(greedy_action(game, legal))
    if game.round_over:
        return game.current
    sizes = game.hand_sizes
    return min(range(game.players), key=sizes.__getitem__)


#: By rank: the ranks that keep the turn or hurt the next player.
_ACTION_RANK = [False] * 32
for _rank in (Rank.DRAW_TWO, Rank.SKIP, Rank.REVERSE):
    _ACTION_RANK[_rank] = True
_WILD_DRAW_FOUR = int(Rank.WILD_DRAW_FOUR)


def greedy_action(game: Game, legal: Sequence[Action]) -> Action:
    """The heuristic bot's choice, cut down for playouts: catch, call UNO, play
    the colour held most (action cards kept until the next player is down to
    two cards), a wild only when nothing else plays, never challenge or draw
    by choice, name the colour held most."""
    plays = []
    for action in legal:
        kind = action.kind
        if kind is ActionKind.CATCH:
            return action
        if kind is ActionKind.PLAY:
            plays.append(action)
    if not plays:
        if legal[0].kind is ActionKind.CHOOSE_COLOUR:
            return legal[_most_held(game.hand(game.current))]
        return legal[-1] if legal[-1].kind is not ActionKind.CATCH else legal[0]
    hand = game.hand(game.current)
    counts = [0] * 5
    for card in hand:
        counts[card >> COLOUR_SHIFT & COLOUR_MASK] += 1
    next_small = game.hand_sizes[(game.current + game.direction) % game.players] <= 2
    best, best_score = plays[0], -1e9
    named = max(range(4), key=counts.__getitem__)
    uno = any(a.uno for a in plays)
    for action in plays:
        if uno and not action.uno:
            continue
        code: int = action.card  # type: ignore[assignment]  # a play has its card
        colour = code >> COLOUR_SHIFT & COLOUR_MASK
        if colour == WILD_COLOUR:
            if action.colour != named:
                continue
            score = (300 if code & RANK_MASK == _WILD_DRAW_FOUR else 100) if next_small else -100.0
        else:
            score = 10 * counts[colour] + POINTS_BY_CODE[code] / 10
            if _ACTION_RANK[code & RANK_MASK]:
                score += 200 if next_small else -20
        if score > best_score:
            best, best_score = action, score
    return best


def _most_held(hand: Sequence[int]) -> int:
    counts = [0] * 5
    for card in hand:
        counts[card >> COLOUR_SHIFT & COLOUR_MASK] += 1
    return max(range(4), key=counts.__getitem__)


class SearchBot:
    """Determinized Monte Carlo: about ``playouts`` playouts per decision (each
    candidate played out once in each of ``playouts // candidates`` worlds),
    with its own seeded ``rng``. ``playouts``, ``confidence`` and ``kernel``
    left None follow the game's ``plan_for``. ``reactions`` holds what it
    believes of everyone's reaction at the unit (``saw_showdown`` feeds it)."""

    def __init__(
        self,
        rng: random.Random,
        name: str = "strong",
        *,
        playouts: int | None = None,
        confidence: float | None = None,
        kernel: bool | None = None,
        reads_plays: bool | None = None,
        misfit: float | None = None,
        race: bool | None = None,
        remembers: bool | None = None,
        depth: int | None = None,
        reaction_ms: float = DEFAULT_REACTION_MS,
    ) -> None:
        if playouts is not None and (
            not isinstance(playouts, int) or isinstance(playouts, bool) or playouts < 1
        ):
            raise ValueError(
                f"playouts of bot {name!r} must be a whole number >= 1, not {playouts!r}"
            )
        if depth is not None and (
            not isinstance(depth, int) or isinstance(depth, bool) or depth < 0
        ):
            raise ValueError(f"depth of bot {name!r} must be a whole number >= 0, not {depth!r}")
        self.rng = rng
        self.name = name
        self.playouts = playouts
        self.confidence = confidence
        self.kernel = kernel
        self.reads_plays = reads_plays
        self.misfit = misfit
        self.race = race
        self.remembers = remembers
        self.depth = depth
        self.reaction_ms = check_reaction_ms(reaction_ms, f"bot {name!r}")
        self.reactions = ReactionModel()
        self._heuristic = HeuristicBot(name, reaction_ms=reaction_ms)
        self._beliefs: dict[int, Belief] = {}
        #: The seats people play (``people_at``): none unless told.
        self.people: frozenset[int] = frozenset()

    def __repr__(self) -> str:
        return f"SearchBot(name={self.name!r}, playouts={self.playouts})"

    def plan(self, view: PlayerView) -> Plan:
        """The game's plan, with what was given to the bot in its place."""
        plan = plan_for(view.players, view.variant.showdowns)
        return Plan(
            plan.playouts if self.playouts is None else self.playouts,
            plan.confidence if self.confidence is None else self.confidence,
            plan.kernel if self.kernel is None else self.kernel,
            plan.reads_plays if self.reads_plays is None else self.reads_plays,
            plan.misfit if self.misfit is None else self.misfit,
            plan.race if self.race is None else self.race,
            plan.remembers if self.remembers is None else self.remembers,
            plan.depth if self.depth is None else self.depth,
        )

    def people_at(self, seats: frozenset[int]) -> None:
        """The seats people play, the others being bots (engine.game.agents'
        ``tell_people``): a person's plays are not read as HeuristicBot's, nor
        its Wild Draw Fours as honest (the bot then weighs a challenge)."""
        self.people = frozenset(seats)

    def saw_showdown(self, reactions_ms: Mapping[int, float | None]) -> None:
        """A showdown's reaction times by player, as the table shows them."""
        self.reactions.saw_showdown(reactions_ms)

    def act(self, game: Game | PartyGame, player: int) -> Action:
        if isinstance(game, PartyGame):
            return self._heuristic.act(game, player)
        view = PlayerView(game, player)
        belief = self._beliefs.get(player)
        if belief is None:
            plan = self.plan(view)
            belief = self._beliefs[player] = Belief(
                player, reads_plays=plan.reads_plays, remembers=plan.remembers
            )
            self.reactions.know(player, self.reaction_ms)
        belief.people = self.people
        belief.observe(view)
        action = self._choose(game, view, belief)
        belief.decided(view, action)
        return action

    def react(self, game: Game | PartyGame, player: int) -> Action | None:
        """UNO Party!'s claims out of turn: the heuristic's."""
        return self._heuristic.react(game, player)

    def _choose(self, game: Game, view: PlayerView, belief: Belief) -> Action:
        legal = view.legal_actions()
        if not legal:
            raise ValueError(f"player {view.player} has no decision to make: {game.notation()}")
        fallback = self._heuristic.act(game, view.player)
        if belief.draw_four_honest(view):  # the challenge fails in every world: 6 cards, not 4
            legal = tuple(a for a in legal if a.kind is not ActionKind.CHALLENGE)
            if fallback.kind is ActionKind.CHALLENGE:
                fallback = Action.accept()
        candidates = self.candidates(view, legal, fallback)
        if len(candidates) == 1:
            return candidates[0]
        plan = self.plan(view)
        playouts, confidence = plan.playouts, plan.confidence
        results: dict[Action, list[float]] = {a: [] for a in candidates}
        worlds = Worlds(view)
        if not plan.race or len(candidates) < 3:
            self._play(view, belief, worlds, plan, results, max(1, playouts // len(candidates)))
            return self.pick(results, fallback, confidence)
        # Racing: half the budget over every candidate, the rest on the leader and the fallback.
        first = max(1, playouts // 2 // len(candidates))
        self._play(view, belief, worlds, plan, results, first)
        leader = self.pick(results, fallback, 0.0)
        if leader is fallback:
            return fallback  # nothing beats it even by chance: no more worlds
        final = {fallback: results[fallback], leader: results[leader]}
        left = playouts - first * len(candidates)
        self._play(view, belief, worlds, plan, final, max(1, left // 2))
        return self.pick(final, fallback, confidence)

    def _play(
        self,
        view: PlayerView,
        belief: Belief,
        worlds: Worlds,
        plan: Plan,
        results: dict[Action, list[float]],
        count: int,
    ) -> None:
        """``count`` worlds more, each candidate of ``results`` played out in
        each, their weighted values appended."""
        rng = self.rng
        me = view.player
        kernel = plan.kernel
        depth = plan.depth if kernel else 0
        trees = {action: Node() for action in results} if depth else {}
        for _ in range(count):
            world, weight = self.world(view, belief, worlds, kernel, plan.misfit)
            seed = rng.getrandbits(64)
            for action in results:
                game = world.copy()
                game.apply(action)
                luck = random.Random(seed)
                if kernel:
                    self._settle_showdown(game, luck)
                    if depth:
                        tree = trees[action]
                        value = play_out_searching(game, luck, me, tree, depth, PLAYOUT_LIMIT)
                    else:
                        value = _kernel_playout(game, luck, me)
                else:
                    value = float(_playout(game, luck) == me)
                results[action].append(value * weight)

    def world(
        self, view: PlayerView, belief: Belief, worlds: Worlds, kernel: bool, misfit: float
    ) -> tuple[Game, float]:
        """One world drawn from the belief, and its weight (``weight``)."""
        rng = self.rng
        hands, draw = belief.sample(view, rng)
        weight = self.weight(belief, hands, misfit)
        shuffles = rng.getrandbits(32)
        # The own playouts build each world anew, as when first measured.
        if kernel:
            return worlds.deal(hands, draw, shuffles), weight
        return world_game(view, hands, draw, shuffles), weight

    @staticmethod
    def weight(belief: Belief, hands: list[list[int]], misfit: float) -> float:
        """A world's weight: ``misfit`` for each play seen since the last
        decision that HeuristicBot would not have made in it (importance
        weights: the opponent plays as the heuristic, or else anyhow); a
        person's plays (``belief.people``) weigh nothing.

        >>> SearchBot.weight(Belief(0), [[], [], []], 0.25)
        1.0
        """
        weight = 1.0
        if misfit < 1.0:
            people = belief.people  # a person's plays say nothing of HeuristicBot's
            for play in belief.plays:
                if play.player not in people and not heuristic_would(play, hands[play.player]):
                    weight *= misfit
            for p, older in belief.older.items():
                for play, since in older:
                    if p not in people and not heuristic_would(play, hands[p] + since):
                        weight *= misfit
        return weight

    def _settle_showdown(self, game: Game, luck: random.Random) -> None:
        """The showdown a candidate starts, settled by the reaction model (the
        playout's later ones are its coin tosses)."""
        pending = game.pending_showdown
        if pending is not None:
            first = self.reactions.chance_first(pending.challenger, pending.opponent)
            loser = pending.opponent if luck.random() < first else pending.challenger
            game.settle_showdown(loser)

    @staticmethod
    def pick(results: dict[Action, list[float]], fallback: Action, confidence: float) -> Action:
        """The candidate whose values beat ``fallback``'s by the most summed over
        the worlds, if by more than ``confidence`` standard deviations (the root
        of the summed squared differences: with values 0 and 1, a sign test over
        the worlds where the two differ); else ``fallback``.

        >>> from engine.uno.actions import Action
        >>> a, b = Action.parse("R5"), Action.parse("draw")
        >>> str(SearchBot.pick({a: [True] * 9 + [False], b: [False] * 10}, a, 1.0))
        'R5'
        >>> str(SearchBot.pick({a: [False, True], b: [True, False]}, a, 1.0))
        'R5'
        >>> str(SearchBot.pick({a: [False] * 9, b: [True] * 9}, a, 1.0))
        'draw'
        """
        base = results[fallback]
        best, best_margin = fallback, 0.0
        for action, wins in results.items():
            if action is fallback:
                continue
            margin = 0.0
            spread = 0.0
            for w, f in zip(wins, base, strict=True):
                margin += w - f
                spread += (w - f) * (w - f)
            if margin > confidence * math.sqrt(spread) and margin > best_margin:
                best, best_margin = action, margin
        return best

    @staticmethod
    def candidates(view: PlayerView, legal: Sequence[Action], fallback: Action) -> list[Action]:
        """The actions worth searching: the heuristic's choice for a catch or a
        Wild Showdown (never worse to catch; the count is the heuristic's), UNO
        always called, each wild with the colour the heuristic would name."""
        kind = legal[0].kind
        if fallback.kind is ActionKind.CATCH or kind is ActionKind.CHOOSE_SHOWDOWN:
            return [fallback]
        if fallback.kind is ActionKind.PLAY and view.phase is Phase.PLAY:
            legal = [a for a in legal if a.kind is not ActionKind.DRAW]  # no draw by choice
        if any(a.uno for a in legal):
            legal = [a for a in legal if a.uno or a.card is None]
        named = HeuristicBot.best_colour(view.hand)
        out = []
        for action in legal:
            other_colour = action.colour is not None and action.colour is not named
            if action.kind is ActionKind.PLAY and other_colour and action != fallback:
                continue
            out.append(action)
        if fallback not in out:
            out.append(fallback)
        return out
