"""Search for Pitch: solve sampled worlds exactly and choose the best on average.

The search bot ("strong") samples the hidden cards from its seat's view
(engine.pitch.sampling), solves each sample with every card known
(engine.pitch.solver) and plays the action with the best weighted average
value; ties go to the heuristic's choice. Each phase asks its own question:

- trick play: the exact value of each legal card in each world;
- the burn: each of the cheapest burns, then the hand solved from the lead;
- the stock: keep or give, the rest's trumps sampled, then solved;
- the trump: the unseen cards dealt at random, each suit's discard, refill,
  stock and burns simulated, then solved;
- the bid: the heuristic's (a bid's value hangs on what three others hold
  and bid, which a handful of solved deals measures worse than its rules).

The omniscient bot (the ceiling, never at a table) asks the same questions of
the one true world: it sees every card.

>>> from engine.pitch.game import PitchGame
>>> game = PitchGame.new(seed=7, dealer=3)
>>> bot = SearchBot(random.Random(1), samples=2)
>>> bot.act(game, 0) in game.legal_actions()
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from engine.game.agents import DEFAULT_REACTION_MS, check_reaction_ms
from engine.pitch.actions import Action, Kind
from engine.pitch.cards import POINT_TABLES, RANK_TABLES
from engine.pitch.game import HAND_SIZE, Phase, PitchGame
from engine.pitch.heuristic import best_suit, burn_choice, heuristic_action, suit_strength
from engine.pitch.rules import PitchRules
from engine.pitch.sampling import World, refill_order, sample_deals, sample_worlds
from engine.pitch.scoring import score_hand
from engine.pitch.solver import TrickSolver, lead_from, pack_hands
from engine.pitch.view import SeatView

__all__ = ["SearchBot", "OmniscientBot", "utility_table", "Evaluator"]

#: What winning (or losing) the match is worth, against a hand's score difference.
MATCH_VALUE = 60
#: How many suits the trump decision solves (the strongest by the heuristic).
TRUMP_CANDIDATES = 3
#: How far below the best suit's heuristic strength a suit is still solved.
TRUMP_MARGIN = 1.5
#: How many burns the burn decision compares (the heuristic's cheapest first).
BURN_CANDIDATES = 3


def utility_table(
    rules: PitchRules,
    target: int,
    scores: tuple[int, int],
    pitcher: int,
    contract: int,
    available: int,
) -> list[int]:
    """What team A's taking 0 .. ``available`` points is worth to team A: its
    score gain less team B's, or +-MATCH_VALUE when the hand ends the match.

    >>> utility_table(PitchRules(), 52, (0, 0), pitcher=0, contract=6, available=10)[4:8]
    [-12, -11, 2, 4]
    """
    table = []
    for pts_a in range(available + 1):
        out = score_hand(
            rules,
            target,
            scores,
            pitcher=pitcher,
            contract=contract,
            taken=(pts_a, available - pts_a),
        )
        if out.match_winner is not None:
            table.append(MATCH_VALUE if out.match_winner == 0 else -MATCH_VALUE)
        else:
            a, b = out.team_scores
            table.append((a - b) - (scores[0] - scores[1]))
    return table + [table[-1]] * (11 - len(table))


class Evaluator:
    """Solves worlds of one hand: the trump, the contract and the scores fixed."""

    def __init__(
        self,
        rules: PitchRules,
        target: int,
        scores: tuple[int, int],
        trump: str,
        pitcher: int,
        contract: int,
    ) -> None:
        self.rules, self.target, self.scores = rules, target, scores
        self.trump, self.pitcher, self.contract = trump, pitcher, contract
        self.ranks = RANK_TABLES[trump]
        self.points = POINT_TABLES[trump]
        self._solvers: dict[int, TrickSolver] = {}

    def solver(self, available: int) -> TrickSolver:
        """The solver of hands whose live points add up to ``available``."""
        solver = self._solvers.get(available)
        if solver is None:
            table = utility_table(
                self.rules, self.target, self.scores, self.pitcher, self.contract, available
            )
            solver = TrickSolver(
                table,
                low_to_holder=self.rules.low == "holder",
                partner_first=self.rules.lead == "partner",
            )
            self._solvers[available] = solver
        return solver

    def pack(self, hands: Sequence[Sequence[str]]) -> int:
        ranks = self.ranks
        return pack_hands([[ranks[c] for c in hand] for hand in hands])

    def from_lead(self, hands: Sequence[Sequence[str]], available: int) -> int:
        """The value of trick play from its start (the pitcher leads, R7)."""
        packed = self.pack(hands)
        leader = lead_from(packed, self.pitcher, self.rules.lead == "partner")
        if leader is None:
            return self.solver(available).utility[0]
        return self.solver(available).value(packed, leader, 0)

    def burn_down(self, hands: list[list[str]], start: int = 0) -> int:
        """Burn every hand down to 6 with the heuristic's choice; the points burned."""
        burned = 0
        for seat in range(4):
            hand = hands[seat]
            while len(hand) > HAND_SIZE:
                card = burn_choice(hand, self.trump)
                hand.remove(card)
                burned += self.points[card]
        return burned


def _best(
    values: dict[Action, float], sign: int, prefer: Action, legal: Sequence[Action]
) -> Action:
    """The action with the best value for the side of ``sign``; ties: ``prefer``."""
    top = max(sign * v for v in values.values())
    if prefer in values and sign * values[prefer] >= top - 1e-9:
        return prefer
    for action in legal:
        if action in values and sign * values[action] >= top - 1e-9:
            return action
    return prefer


def _sign(seat: int) -> int:
    return 1 if seat % 2 == 0 else -1


def _available(view: SeatView) -> int:
    """The points still to be taken or taken this hand (10 less those burned face up)."""
    assert view.trump is not None
    points = POINT_TABLES[view.trump]
    return 10 - sum(points[c] for _, c in view.burned if c)


# -- the phases, for a list of worlds -------------------------------------------------------


def play_values(
    view: SeatView, worlds: Sequence[World], evaluator: Evaluator
) -> dict[Action, float]:
    """Each legal card's weighted mean value (team A's) over ``worlds``."""
    assert view.seat is not None and view.leader is not None
    ranks = evaluator.ranks
    solver = evaluator.solver(_available(view))
    trick = [(s, ranks[c]) for s, c in view.trick]
    played = {s for s, _ in view.trick}
    totals: dict[Action, float] = {}
    weight_sum = 0.0
    for world in worlds:
        packed = evaluator.pack(world.hands)
        order = [s for s, _ in view.trick] + [
            s
            for s in ((view.leader + i) % 4 for i in range(4))
            if s not in played and world.hands[s]
        ]
        values = solver.move_values(packed, trick, order, view.taken[0])
        for action in view.legal:
            v = values.get(ranks[action.card])
            if v is not None:
                totals[action] = totals.get(action, 0.0) + world.weight * v
        weight_sum += world.weight
    return {a: v / weight_sum for a, v in totals.items()}


def _burn_candidates(view: SeatView) -> list[Action]:
    assert view.trump is not None
    cards = [a.card for a in view.legal]
    chosen: list[str] = []
    while cards and len(chosen) < BURN_CANDIDATES:
        card = burn_choice(cards, view.trump)
        chosen.append(card)
        cards.remove(card)
    return [Action.burn(c) for c in chosen]


def burn_values(
    view: SeatView, worlds: Sequence[World], evaluator: Evaluator
) -> dict[Action, float]:
    """Each candidate burn's mean value: the rest burned by the heuristic, then solved."""
    assert view.seat is not None
    base = _available(view)
    totals: dict[Action, float] = {}
    weight_sum = sum(w.weight for w in worlds)
    for action in _burn_candidates(view):
        total = 0.0
        for world in worlds:
            hands = [h[:] for h in world.hands]
            hands[view.seat].remove(action.card)
            lost = evaluator.points[action.card] + evaluator.burn_down(hands)
            total += world.weight * evaluator.from_lead(hands, base - lost)
        totals[action] = total / weight_sum
    return totals


def stock_values(
    view: SeatView, worlds: Sequence[World], evaluator: Evaluator
) -> dict[Action, float]:
    """Keep and give, the rest's trumps to the pitcher or its partner, then solved."""
    assert view.seat is not None
    base = _available(view)
    totals: dict[Action, float] = {}
    weight_sum = sum(w.weight for w in worlds)
    for action, receiver in ((Action.keep(), view.seat), (Action.give(), (view.seat + 2) % 4)):
        total = 0.0
        for world in worlds:
            hands = [h[:] for h in world.hands]
            hands[receiver] += world.rest
            lost = evaluator.burn_down(hands)
            total += world.weight * evaluator.from_lead(hands, base - lost)
        totals[action] = total / weight_sum
    return totals


def simulate_hand(
    deal: Sequence[Sequence[str]],
    stock: Sequence[str],
    trump: str,
    pitcher: int,
    order: Sequence[int],
    evaluator: Evaluator,
) -> int:
    """A dealt hand after trump: discard, refill, the stock by the heuristic's
    rule, the heuristic's burns, then trick play solved; team A's value."""
    ranks = evaluator.ranks
    hands = [[c for c in hand if c in ranks] for hand in deal]
    drew = [0] * 4
    at = 0
    for seat in order:
        want = max(0, HAND_SIZE - len(hands[seat]))
        drawn = stock[at : at + want]
        at += len(drawn)
        drew[seat] = len(drawn)
        hands[seat] += [c for c in drawn if c in ranks]
    rest = [c for c in stock[at:] if c in ranks]
    partner = (pitcher + 2) % 4
    give = len(hands[pitcher]) >= HAND_SIZE and drew[partner] >= 2
    hands[partner if give else pitcher] += rest
    lost = evaluator.burn_down(hands)
    return evaluator.from_lead(hands, 10 - lost)


def trump_values(
    view: SeatView, deals: Sequence[tuple[list[list[str]], list[str]]], suits: Sequence[str]
) -> dict[Action, float]:
    """Each candidate suit's mean value over sampled deals (team A's)."""
    assert view.seat is not None and view.contract is not None
    totals: dict[Action, float] = {}
    order = refill_order(view)
    for suit in suits:
        evaluator = Evaluator(
            view.rules, view.target, view.team_scores, suit, view.seat, view.contract
        )
        total = 0.0
        for hands, stock in deals:
            total += simulate_hand(hands, stock, suit, view.seat, order, evaluator)
        totals[Action.trump(suit)] = total / len(deals)
    return totals


def trump_candidates(cards: Sequence[str], count: int = TRUMP_CANDIDATES) -> list[str]:
    """At most ``count`` suits the heuristic rates best for these cards, those
    within TRUMP_MARGIN of the best (the others are not worth solving)."""
    rated = sorted(((suit_strength(cards, s), s) for s in "CDHS"), reverse=True)
    top = rated[0][0]
    return [s for strength, s in rated[:count] if strength >= top - TRUMP_MARGIN]


def _evaluator(view: SeatView) -> Evaluator:
    assert view.trump is not None and view.pitcher is not None and view.contract is not None
    return Evaluator(
        view.rules, view.target, view.team_scores, view.trump, view.pitcher, view.contract
    )


def decide(
    view: SeatView,
    worlds: Callable[[], Sequence[World]],
    deals: Callable[[], Sequence[tuple[list[list[str]], list[str]]]],
) -> Action:
    """The search's action for ``view``, with the worlds (or deals) it is given."""
    legal = view.legal
    prefer = heuristic_action(view)
    if len(legal) == 1 or view.phase is Phase.BID:
        return prefer
    assert view.seat is not None
    sign = _sign(view.seat)
    phase = view.phase
    if phase is Phase.TRUMP:
        values = trump_values(view, deals(), trump_candidates(view.hand))
    elif phase is Phase.PLAY:
        if _all_alike(view):
            return prefer
        values = play_values(view, worlds(), _evaluator(view))
    elif phase is Phase.BURN:
        values = burn_values(view, worlds(), _evaluator(view))
    else:
        values = stock_values(view, worlds(), _evaluator(view))
    return _best(values, sign, prefer, legal)


def _all_alike(view: SeatView) -> bool:
    """Whether every legal card is alike: touching, worth the same (no choice at all)."""
    assert view.trump is not None
    ranks, points = RANK_TABLES[view.trump], POINT_TABLES[view.trump]
    cards = sorted((a.card for a in view.legal), key=ranks.__getitem__)
    if len({points[c] for c in cards}) > 1:
        return False
    mine = {ranks[c] for c in cards}
    low, high = ranks[cards[0]], ranks[cards[-1]]
    gone = {ranks[c] for c in view.played} | {ranks[c] for _, c in view.burned if c}
    return all(r in mine or r in gone for r in range(low, high + 1))


class SearchBot:
    """The search bot ("strong"): ``samples`` worlds per decision, drawn with its
    own seeded ``rng`` from ``game.view(player)`` only."""

    def __init__(
        self,
        rng: random.Random,
        name: str = "strong",
        *,
        samples: int = 12,
        reaction_ms: float = DEFAULT_REACTION_MS,
    ) -> None:
        if not isinstance(samples, int) or samples < 1:
            raise ValueError(
                f"samples of bot {name!r} must be a whole number >= 1, not {samples!r}"
            )
        self.rng = rng
        self.name = name
        self.samples = samples
        self.reaction_ms = check_reaction_ms(reaction_ms, f"bot {name!r}")

    def act(self, game: Any, player: int) -> Action:
        view = game.view(player)
        rng = self.rng
        # Trick play is worth the most worlds; the once-a-hand questions (trump,
        # stock, burn) solve several candidates per world, so half as many.
        n = self.samples if view.phase is Phase.PLAY else max(2, self.samples // 2)
        return decide(view, lambda: sample_worlds(view, rng, n), lambda: sample_deals(view, rng, n))

    def __repr__(self) -> str:
        return f"SearchBot(name={self.name!r}, samples={self.samples})"


class OmniscientBot:
    """The ceiling: sees every card of the real game and solves it exactly (its
    bid from the real deal solved for each suit). For benchmarks only."""

    def __init__(self, name: str = "omniscient") -> None:
        self.name = name

    def act(self, game: PitchGame, player: int) -> Action:
        view = game.view(player)
        if len(view.legal) == 1:
            return view.legal[0]
        if view.phase is Phase.BID:
            return _omniscient_bid(game, view)
        hands = [list(game.hand(s)[: game.trumps_in_hand(s)]) for s in range(4)]
        rest: list[str] = []
        if view.phase is Phase.STOCK:
            assert view.trump is not None
            stock = game.deck[36 + sum(n or 0 for n in game.refills) :]
            rest = [c for c in stock if c in RANK_TABLES[view.trump]]
        world = World(hands=hands, rest=rest, weight=1.0)
        deal = ([list(game.dealt(s)) for s in range(4)], list(game.deck[36:]))
        return decide(view, lambda: [world], lambda: [deal])

    def __repr__(self) -> str:
        return f"OmniscientBot(name={self.name!r})"


def _omniscient_bid(game: PitchGame, view: SeatView) -> Action:
    """The highest-valued bid with the real deal solved in the best suit."""
    assert view.seat is not None
    deal = [list(game.dealt(s)) for s in range(4)]
    stock = list(game.deck[36:])
    seat = view.seat
    pitcher_view_order = refill_order(view)
    bids = [a for a in view.legal if a.kind is Kind.BID]
    best: tuple[float, Action] | None = None
    suit, _ = best_suit(deal[seat])
    for action in bids:
        assert isinstance(action.value, int)
        evaluator = Evaluator(view.rules, view.target, view.team_scores, suit, seat, action.value)
        value = _sign(seat) * simulate_hand(deal, stock, suit, seat, pitcher_view_order, evaluator)
        if best is None or value > best[0]:
            best = (value, action)
    passing = [a for a in view.legal if a.kind is Kind.PASS]
    if best is None or (passing and best[0] <= 0):
        return passing[0] if passing else view.legal[0]
    if passing and view.pitcher == (seat + 2) % 4 and best[0] < 4:
        return passing[0]
    return best[1]
