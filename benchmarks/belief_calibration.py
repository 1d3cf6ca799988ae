"""How the search bot's worlds compare with the real hands (a tuning tool).

Plays classic rounds with HeuristicBot in every seat. At each decision of
player 0, its ``Belief`` (built as the search bot's plan builds it, fed every
view player 0 is shown) deals ``--worlds`` worlds, each weighted as the search
weighs it (``SearchBot.weight``, the plan's ``misfit``). By opponent hand size
it prints how many cards of each kind (number, action, wild, Wild Draw Four)
the opponents really held against the weighted mean of the worlds, and the
mean L1 distance between each opponent's real colour counts and a world's.
A ratio below 1 means the worlds give that kind too often.

    .venv/bin/python benchmarks/belief_calibration.py --deals 300 --players 4

Figures in docs/performance.md ("The search bot", 4 players, "calibrated
card kinds").
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.uno.belief import Belief
from engine.uno.bots import HeuristicBot
from engine.uno.cards import COLOUR_MASK, COLOUR_SHIFT, RANK_MASK, WILD_COLOUR, Rank
from engine.uno.game import Game
from engine.uno.player_view import PlayerView
from engine.uno.search_bot import SearchBot

KINDS = ("number", "action", "wild", "wild+4")
#: Hand sizes from here on share the last row.
MAX_SIZE = 5
_ACTIONS = frozenset(map(int, (Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO)))
#: Decisions after which a round is left (greedy rounds end long before).
_ROUND_LIMIT = 400


def kind(card: int) -> str:
    """The kind of a card code, one of ``KINDS``."""
    rank = card & RANK_MASK
    if card >> COLOUR_SHIFT & COLOUR_MASK == WILD_COLOUR:
        return "wild+4" if rank == Rank.WILD_DRAW_FOUR else "wild"
    return "action" if rank in _ACTIONS else "number"


def colour_counts(hand: Sequence[int]) -> list[int]:
    counts = [0] * 5
    for card in hand:
        counts[card >> COLOUR_SHIFT & COLOUR_MASK] += 1
    return counts[:4]  # the wilds' "colour" is not one


#: A world sampler: (belief, view, real game, rng) -> the hidden hands by player.
Sampler = Callable[[Belief, PlayerView, Game, random.Random], list[list[int]]]


def belief_sampler(
    belief: Belief, view: PlayerView, game: Game, rng: random.Random
) -> list[list[int]]:
    return belief.sample(view, rng)[0]


class Tally:
    """Cards of each kind by opponent hand size, real and in the worlds, and
    the colour counts' distance."""

    def __init__(self) -> None:
        self.real: collections.Counter[tuple[int, str]] = collections.Counter()
        self.worlds: collections.defaultdict[tuple[int, str], float] = collections.defaultdict(
            float
        )
        self.colour_error = 0.0
        self.hands = 0

    def add(
        self,
        real: Sequence[Sequence[int]],
        worlds: Sequence[tuple[float, list[list[int]]]],
        opponents: Sequence[int],
    ) -> None:
        """One decision: the real hands and the worlds with their weights."""
        total = sum(w for w, _ in worlds)
        for p in opponents:
            size = min(len(real[p]), MAX_SIZE)
            for card in real[p]:
                self.real[size, kind(card)] += 1
            truth = colour_counts(real[p])
            for weight, hands in worlds:
                share = weight / total
                for card in hands[p]:
                    self.worlds[size, kind(card)] += share
                counts = colour_counts(hands[p])
                self.colour_error += share * sum(
                    abs(a - b) for a, b in zip(counts, truth, strict=True)
                )
            self.hands += 1

    def rows(self) -> list[tuple[int, str, int, float]]:
        """(size, kind, real cards, cards in the mean world) by size and kind."""
        return [
            (size, k, self.real[size, k], self.worlds[size, k])
            for size in range(1, MAX_SIZE + 1)
            for k in KINDS
            if self.real[size, k] or self.worlds[size, k]
        ]


def calibrate(
    deals: int, players: int = 4, seed: int = 1, worlds: int = 20, sampler: Sampler = belief_sampler
) -> Tally:
    """``deals`` rounds from seed ``seed``, ``worlds`` worlds at each decision of player 0."""
    tally = Tally()
    heuristic = HeuristicBot()
    search = SearchBot(random.Random(0))
    rng = random.Random(seed)
    opponents = range(1, players)
    for deal in range(deals):
        game = Game.new(players, "classic", seed=seed * 1_000_003 + deal)
        belief: Belief | None = None
        for _ in range(_ROUND_LIMIT):
            if game.round_over:
                break
            player = game.to_act
            if player is None:  # a showdown would be the unit's: classic has none
                raise ValueError(f"a showdown in classic: {game.notation()}")
            if player != 0:
                game.apply(heuristic.act(game, player))
                continue
            view = PlayerView(game, 0)
            plan = search.plan(view)
            if belief is None:
                belief = Belief(0, reads_plays=plan.reads_plays, remembers=plan.remembers)
            belief.observe(view)
            dealt = []
            for _ in range(worlds):
                hands = sampler(belief, view, game, rng)
                dealt.append((SearchBot.weight(belief, hands, plan.misfit), hands))
            tally.add([[int(c) for c in game.hand(p)] for p in range(players)], dealt, opponents)
            action = heuristic.act(game, 0)
            belief.decided(view, action)
            game.apply(action)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=20, help="worlds per decision")
    args = parser.parse_args(argv)
    tally = calibrate(args.deals, args.players, args.seed, args.worlds)
    print(
        f"classic, {args.players} players, {args.deals} rounds (seed {args.seed}),"
        f" {args.worlds} worlds a decision:"
    )
    print(f"{'hand':>5} {'kind':<7} {'real':>7} {'worlds':>9} {'ratio':>6}")
    for size, k, real, mean in tally.rows():
        label = f"{size}+" if size == MAX_SIZE else str(size)
        ratio = f"{real / mean:.2f}" if mean else "-"
        print(f"{label:>5} {k:<7} {real:>7} {mean:>9.1f} {ratio:>6}")
    error = tally.colour_error / max(tally.hands, 1)
    print(
        f"colour counts: mean L1 distance {error:.2f} cards per opponent hand ({tally.hands} hands)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
