"""How often the search bot ("strong") wins UNO rounds against the heuristic bot.

Paired deals: deal ``d`` (seeded from --seed and d) is played once with the
search bot in each seat and the opponents in the others, so every seat and
every deal's luck is shared out evenly; a deal is ``players`` rounds. One round
each, no match. The opponents are HeuristicBot (default) or, with
``--opponent prefer-play``, the prefer-play random bot (uniform over the
actions that play a card or decide something, drawing only when it must:
benchmarks/bot_winrate.py's PlayFirstBot, RLCard's random agent). A Showdown's
loser is drawn 50/50 from the deal's own generator; with ``--unit reactions``
the slower of the two presses loses instead, each press lognormal about its
player's median (the search bot's ``reaction_ms``, 230, and
``--opponent-ms`` for the others; spread 0.15, as the simulated people), and
the search bot is shown both reaction times (``SearchBot.saw_showdown``),
unless ``--blind``.
--playouts and --confidence, when not given, are the bot's plan for the game
(engine.uno.search_bot.plan_for); ``--playout kernel`` or ``own`` overrides its playouts,
and ``--depth N`` the bot's own later turns its playouts search (0: the flat search).

Prints the wins, the rate with a Wilson 95% interval (against the fair share
1/players), the search bot's CPU time per decision (median, p95 and max,
time.process_time around each of its decisions, forced ones included), and its
searched decisions and those in which it overruled the heuristic.

Tuning tools: ``--oracle all`` gives the search the real game as its only
world, ``--oracle hands`` the real hands with the draw pile shuffled anew per
world (the ceiling of a better belief), ``--oracle next`` the next player's
real hand in the belief's world, and ``colours``, ``ranks`` or ``wilds`` each
opponent's real count of each colour, of each rank, or of wilds and Wild Draw
Fours, its cards dealt at random within those counts (what knowing that much
of the hands would be worth; no facts). ``--save FILE`` writes each round won;
``--paired FILE`` compares with such a run on the same deals, and
``--compare='FLAGS'`` runs a variant after the first run: both print the rounds
that only one of the two won and McNemar's exact two-sided p. ``--bot-salt
SALT`` seeds the search bot's own generator otherwise on the same deals: a
run paired with the unsalted one shows how far the bot's luck alone moves the
rounds won (the noise a variant's gain must beat).

    .venv/bin/python benchmarks/search_winrate.py --deals 200
    .venv/bin/python benchmarks/search_winrate.py --deals 200 --players 4
    .venv/bin/python benchmarks/search_winrate.py --deals 100 --players 4 --seed 101 \
        --compare='--oracle hands'
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bot_winrate import OPPONENTS, wilson
from engine.uno.belief import Belief
from engine.uno.cards import COLOUR_MASK, COLOUR_SHIFT, RANK_MASK, WILD_COLOUR
from engine.uno.game import Game
from engine.uno.player_view import PlayerView
from engine.uno.search_bot import SearchBot
from engine.uno.search_reactions import SPREAD
from engine.uno.search_worlds import Worlds


def _colour(card: int) -> int:
    return card >> COLOUR_SHIFT & COLOUR_MASK


def _rank(card: int) -> int:
    return card & RANK_MASK


def _wild(card: int) -> int:
    """A wild's rank (plain or Draw Four), -1 for every coloured card."""
    return card & RANK_MASK if _colour(card) == WILD_COLOUR else -1


#: The oracles that know one thing of every opponent's hand (``_partly_known``):
#: by card code, the kind whose count is known.
PARTIAL_ORACLES: dict[str, Callable[[int], int]] = {
    "colours": _colour,
    "ranks": _rank,
    "wilds": _wild,
}


class CountingBot(SearchBot):
    """The search bot, counting its searched decisions and those in which it
    overruled the heuristic (``counts``); the same decisions."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.counts = [0, 0]

    def pick(self, results, fallback, confidence):  # type: ignore[override]
        chosen = SearchBot.pick(results, fallback, confidence)
        self.counts[0] += 1
        self.counts[1] += chosen != fallback
        return chosen


class OracleBot(CountingBot):
    """The same search with the real game (hands, draw pile, reshuffles) as its
    only world (``oracle`` "all"), or with the real hands and the draw pile
    shuffled anew in each world ("hands"): the ceiling of what a better belief
    could give, the unknowable draw order apart."""

    def __init__(self, *args, oracle: str = "all", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.oracle = oracle

    def act(self, game, player):
        self._real = game
        return super().act(game, player)

    def world(
        self, view: PlayerView, belief: Belief, worlds: Worlds, kernel: bool, misfit: float
    ) -> tuple[Game, float]:
        real = self._real
        if self.oracle == "all":
            return real.copy(), 1.0
        if self.oracle == "next":
            return self._next_known(view, belief, worlds, misfit)
        if self.oracle in PARTIAL_ORACLES:
            return self._partly_known(view, worlds, PARTIAL_ORACLES[self.oracle])
        draw = list(real._draw)
        self.rng.shuffle(draw)
        hands = [list(real.hand(p)) for p in range(real.players)]
        return worlds.deal(hands, draw, self.rng.getrandbits(32)), 1.0

    def _partly_known(
        self, view: PlayerView, worlds: Worlds, kind: Callable[[int], int]
    ) -> tuple[Game, float]:
        """A world in which each opponent holds as many cards of each ``kind``
        (a card code's colour, rank, ...) as it really does, each drawn at
        random from the hidden cards of that kind; the rest is the draw pile."""
        real = self._real
        me = view.player
        hidden = [c for p in range(real.players) if p != me for c in real.hand(p)]
        hidden += real._draw
        self.rng.shuffle(hidden)
        by_kind: dict[int, list[int]] = collections.defaultdict(list)
        for card in hidden:
            by_kind[kind(card)].append(card)
        hands = [
            list(real.hand(p)) if p == me else [by_kind[kind(c)].pop() for c in real.hand(p)]
            for p in range(real.players)
        ]
        draw = [card for cards in by_kind.values() for card in cards]
        self.rng.shuffle(draw)
        return worlds.deal(hands, draw, self.rng.getrandbits(32)), 1.0

    def _next_known(
        self, view: PlayerView, belief: Belief, worlds: Worlds, misfit: float
    ) -> tuple[Game, float]:
        """A world from the belief with the next player's real hand swapped in
        (each of its cards traded for one the sample gave that player)."""
        hands, draw = belief.sample(view, self.rng)
        weight = self.weight(belief, hands, misfit)
        nxt = view.next_player(1)
        real = list(self._real.hand(nxt))
        given = hands[nxt]
        wanted = collections.Counter(real)
        spare = list((collections.Counter(given) - wanted).elements())
        missing = list((wanted - collections.Counter(given)).elements())
        for card in missing:
            swap = spare.pop()
            for place in [h for p, h in enumerate(hands) if p not in (nxt, view.player)] + [draw]:
                if card in place:
                    place[place.index(card)] = swap
                    break
        hands[nxt] = real
        return worlds.deal(hands, draw, self.rng.getrandbits(32)), weight


def play_deal(
    deal: int,
    seed: int,
    players: int,
    variant: str,
    opponent: str,
    playouts: int | None,
    confidence: float | None,
    unit_kind: str = "coin",
    opponent_ms: float = 230.0,
    blind: bool = False,
    kernel: bool | None = None,
    reads_plays: bool | None = None,
    misfit: float | None = None,
    oracle: str | None = None,
    race: bool | None = None,
    remembers: bool | None = None,
    salt: str | None = None,
    depth: int | None = None,
) -> tuple[list[bool], list[float], list[int]]:
    """Deal ``deal`` played once per seat of the search bot: whether it won in
    each seat, its CPU seconds per decision, and its searched decisions and
    those in which it overruled the heuristic (``CountingBot.counts``)."""
    won, times = [], []
    counts = [0, 0]
    make = OPPONENTS[opponent]
    for seat in range(players):
        rng = random.Random(f"{seed}:{deal}")  # the same deal, bots and unit for each seat
        game = Game.new(players, variant, seed=rng.getrandbits(64))
        unit = random.Random(rng.getrandbits(64))
        agents = [make(random.Random(rng.getrandbits(64)), "opponent") for _ in range(players)]
        bot_rng = random.Random(bot_seed(seed, deal, seat, salt))
        extra = {"oracle": oracle} if oracle else {}
        bot = (OracleBot if oracle else CountingBot)(
            bot_rng,
            **extra,
            playouts=playouts,
            confidence=confidence,
            kernel=kernel,
            reads_plays=reads_plays,
            misfit=misfit,
            race=race,
            remembers=remembers,
            depth=depth,
        )
        agents[seat] = bot
        medians = [opponent_ms] * players
        medians[seat] = bot.reaction_ms
        while not game.round_over:
            player = game.to_act
            if player is None:  # a showdown: the simulated unit
                if unit_kind == "coin":  # 50/50
                    game.apply(unit.choice(game.legal_actions()))
                    continue
                pending = game.pending_showdown
                assert pending is not None
                pair = (pending.challenger, pending.opponent)
                ms = {p: unit.lognormvariate(math.log(medians[p]), SPREAD) for p in pair}
                if not blind:
                    bot.saw_showdown(ms)
                game.settle_showdown(max(pair, key=ms.__getitem__))
                continue
            start = time.process_time()
            action = agents[player].act(game, player)
            if player == seat:
                times.append(time.process_time() - start)
            game.apply(action)
        won.append(game.current == seat)
        counts[0] += bot.counts[0]
        counts[1] += bot.counts[1]
    return won, times, counts


def bot_seed(seed: int, deal: int, seat: int, salt: str | None = None) -> str:
    """The search bot's own generator's seed in ``seat`` of ``deal``. A ``salt``
    (``--bot-salt``) seeds it otherwise and leaves the deal, the opponents and
    the unit as they were: two runs then differ by the bot's own luck alone."""
    base = f"{seed}:{deal}:{seat}"
    return base if salt is None else f"{base}:{salt}"


def _job(args: tuple) -> tuple[list[bool], list[float], list[int]]:
    return play_deal(*args)


def run(
    deals: int,
    seed: int = 1,
    players: int = 2,
    variant: str = "classic",
    opponent: str = "heuristic",
    playouts: int | None = None,
    confidence: float | None = None,
    processes: int = 1,
    progress: int = 0,
    unit_kind: str = "coin",
    opponent_ms: float = 230.0,
    blind: bool = False,
    kernel: bool | None = None,
    reads_plays: bool | None = None,
    misfit: float | None = None,
    oracle: str | None = None,
    race: bool | None = None,
    remembers: bool | None = None,
    salt: str | None = None,
    depth: int | None = None,
) -> dict:
    options = (
        playouts,
        confidence,
        unit_kind,
        opponent_ms,
        blind,
        kernel,
        reads_plays,
        misfit,
        oracle,
        race,
        remembers,
        salt,
        depth,
    )
    jobs = [(d, seed, players, variant, opponent, *options) for d in range(deals)]
    start = time.process_time()
    if processes > 1:
        with multiprocessing.Pool(processes) as pool:
            results = pool.map(_job, jobs, chunksize=4)
    else:
        results = []
        for job in jobs:
            results.append(_job(job))
            if progress and len(results) % progress == 0:
                done = sum(sum(w) for w, _, _ in results)
                print(f"  {len(results)} deals: {done}/{len(results) * players}", file=sys.stderr)
    won = [w for ws, _, _ in results for w in ws]
    wins = sum(won)
    times = sorted(t for _, ts, _ in results for t in ts)
    rounds = deals * players
    return {
        "won": won,
        "searched": sum(c[0] for _, _, c in results),
        "overruled": sum(c[1] for _, _, c in results),
        "rounds": rounds,
        "wins": wins,
        "rate": wins / rounds,
        "ci95": wilson(wins, rounds),
        "median_ms": statistics.median(times) * 1000,
        "p95_ms": times[int(0.95 * (len(times) - 1))] * 1000,
        "max_ms": times[-1] * 1000,
        "decisions": len(times),
        "cpu_seconds": time.process_time() - start,
    }


def mcnemar(first: list[bool], second: list[bool]) -> tuple[int, int, float]:
    """Paired rounds: how many ``second`` won and ``first`` lost, the reverse,
    and the two-sided exact p of so uneven a split (a sign test over the rounds
    the two disagree on; 1.0 when they never do).

    >>> mcnemar([True, False, False], [False, True, True])
    (2, 1, 1.0)
    >>> mcnemar([False] * 10, [True] * 10)[2] < 0.01
    True
    """
    if len(first) != len(second):
        raise ValueError(f"paired runs of {len(first)} and {len(second)} rounds")
    gained = sum(b and not a for a, b in zip(first, second, strict=True))
    lost = sum(a and not b for a, b in zip(first, second, strict=True))
    n, k = gained + lost, min(gained, lost)
    if n == 0:
        return 0, 0, 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return gained, lost, min(1.0, 2 * tail)


def _turns(text: str) -> int:
    """--depth's value: a whole number of turns, 0 or more."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"a whole number of turns, 0 or more, not {text!r}")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--variant", choices=("classic", "showdown"), default="classic")
    parser.add_argument("--opponent", choices=("heuristic", "play-first"), default="heuristic")
    parser.add_argument("--playouts", type=int, default=None, help="default: the bot's plan")
    parser.add_argument("--confidence", type=float, default=None, help="default: the plan's")
    parser.add_argument("--unit", choices=("coin", "reactions"), default="coin")
    parser.add_argument("--opponent-ms", type=float, default=230.0, help="with --unit reactions")
    parser.add_argument("--blind", action="store_true", help="reactions not shown to the bot")
    parser.add_argument("--playout", choices=("plan", "kernel", "own"), default="plan")
    parser.add_argument("--misfit", type=float, default=None, help="default: the plan's")
    parser.add_argument(
        "--reads-plays", choices=("plan", "yes", "no"), default="plan", help="the belief's"
    )
    parser.add_argument(
        "--race", choices=("plan", "yes", "no"), default="plan", help="the plan's racing"
    )
    parser.add_argument(
        "--remembers", choices=("plan", "yes", "no"), default="plan", help="earlier laps' plays"
    )
    parser.add_argument(
        "--depth",
        type=_turns,
        default=None,
        help="the bot's own later turns searched, 0 or more (the plan's)",
    )
    parser.add_argument(
        "--bot-salt",
        metavar="SALT",
        default=None,
        help="the search bot's own generator seeded otherwise, the same deals: its luck",
    )
    parser.add_argument(
        "--oracle",
        choices=("all", "hands", "next", *PARTIAL_ORACLES),
        default=None,
        help="the real game as the only world, the real hands (the draw pile shuffled), "
        "the next player's real hand (the others sampled), or each opponent's real count "
        "of each colour, rank, or wild (the cards dealt at random within it)",
    )
    parser.add_argument("--processes", type=int, default=1, help="at most 2 on a shared machine")
    parser.add_argument("--progress", type=int, default=0, help="a tally every N deals (stderr)")
    parser.add_argument(
        "--compare",
        metavar="FLAGS",
        default=None,
        help="a variant's flags: the same deals",
    )
    parser.add_argument("--save", metavar="FILE", default=None, help="each round won, as JSON")
    parser.add_argument(
        "--paired", metavar="FILE", default=None, help="compare with a run's --save FILE"
    )
    return parser


def _measure(args: argparse.Namespace) -> dict:
    return run(
        args.deals,
        args.seed,
        args.players,
        args.variant,
        args.opponent,
        args.playouts,
        args.confidence,
        args.processes,
        args.progress,
        args.unit,
        args.opponent_ms,
        args.blind,
        None if args.playout == "plan" else args.playout == "kernel",
        None if args.reads_plays == "plan" else args.reads_plays == "yes",
        args.misfit,
        args.oracle,
        None if args.race == "plan" else args.race == "yes",
        None if args.remembers == "plan" else args.remembers == "yes",
        args.bot_salt,
        args.depth,
    )


def _label(args: argparse.Namespace) -> str:
    budget = "the plan's" if args.playouts is None else str(args.playouts)
    if args.playout != "plan":
        budget += f" {args.playout}"
    test = "the plan's" if args.confidence is None else f"{args.confidence:g}"
    if args.misfit is not None:
        test += f", misfit {args.misfit:g}"
    if args.reads_plays != "plan":
        test += f", reads plays {args.reads_plays}"
    if args.race != "plan":
        test += f", race {args.race}"
    if args.remembers != "plan":
        test += f", remembers {args.remembers}"
    if args.depth is not None:
        test += f", depth {args.depth}"
    if args.oracle:
        test += f", the oracle's world ({args.oracle})"
    if args.bot_salt is not None:
        test += f", bot salt {args.bot_salt}"
    return f"search bot ({budget} playouts a decision, confidence {test})"


def _report(args: argparse.Namespace, r: dict) -> None:
    low, high = r["ci95"]
    unit = "" if args.unit == "coin" else f", unit by reactions (others {args.opponent_ms:g} ms)"
    unit += ", the bot not shown them" if args.blind and args.unit != "coin" else ""
    print(
        f"{args.variant}, {args.players} players, {args.deals} paired deals (seed {args.seed}"
        f"{unit}), {_label(args)} against "
        f"{args.opponent}: won {r['wins']}/{r['rounds']} = {r['rate']:.1%} "
        f"(95% CI {low:.1%}-{high:.1%}; fair share {1 / args.players:.0%})"
    )
    print(
        f"per decision (CPU): median {r['median_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, "
        f"max {r['max_ms']:.1f} ms over {r['decisions']} decisions"
        + (f"; {r['cpu_seconds']:.0f} CPU-s" if args.processes == 1 else "")
    )
    print(f"searched {r['searched']} decisions, overruled the heuristic in {r['overruled']}")


def _report_pair(base: list[bool], variant: list[bool], what: str) -> None:
    gained, lost, p = mcnemar(base, variant)
    print(
        f"paired with {what}: {sum(variant)} against {sum(base)} rounds won; "
        f"{gained} won only by this run, {lost} only by the other (McNemar exact p {p:.3f})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    r = _measure(args)
    _report(args, r)
    if args.save:
        keys = ("seed", "deals", "players", "variant", "opponent")
        record = {k: getattr(args, k) for k in keys}
        Path(args.save).write_text(json.dumps({**record, "won": r["won"]}) + "\n")
    if args.paired:
        saved = json.loads(Path(args.paired).read_text())
        for key in ("seed", "deals", "players", "variant", "opponent"):
            if saved[key] != getattr(args, key):
                parser.error(f"{args.paired}: {key} {saved[key]!r}, not {getattr(args, key)!r}")
        _report_pair(saved["won"], r["won"], args.paired)
    if args.compare is not None:
        other = parser.parse_args(
            [*(argv if argv is not None else sys.argv[1:]), *args.compare.split()]
        )
        other.compare = None
        o = _measure(other)
        _report(other, o)
        _report_pair(r["won"], o["won"], "the first run (the variant against it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
