"""This engine's 10 Point Pitch against PlayPitch.net's, side by side in one run.

PlayPitch.net (github.com/gsburmaster/PlayPitch.net, no licence: run from a
checkout given with ``--peer``, nothing of it copied here) is the closest public
Python Pitch engine: a gymnasium environment, ``PitchEnv``, whose every step
returns an observation with the legal actions as a mask. Both play whole games
with uniform random legal decisions: ours through the game interface
(``legal_actions``/``apply``, no observation built), theirs through
``reset``/``step`` (a random action of the mask). Blocks of games alternate
between the two (ABAB...), each timed in CPU time; the medians per game, per
hand and per decision are printed with the ratio.

The rules differ (docs/pitch.md): PlayPitch.net bids from 5 with the Moon worth
20 or 40 points, plays to 54, scores the 2 for its holder, has identical jokers,
burns automatically and has no unseen stock pass; so its hands and games are of
other lengths, and the per-decision figure compares best.

Needs gymnasium and numpy (PlayPitch.net's requirements), so it runs in a venv
of its own::

    python3 -m venv /tmp/pp && /tmp/pp/bin/pip install gymnasium numpy
    PYTHONPATH=. /tmp/pp/bin/python benchmarks/pitch_peer.py --peer PATH [--blocks 10]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from engine.pitch import FAMILY


def ours(games: int, rng: random.Random) -> tuple[int, int]:
    """``games`` whole games to 52 of random legal decisions: (hands, decisions)."""
    hands = decisions = 0
    for _ in range(games):
        game = FAMILY.new(4, "pitch", rng=rng)
        while True:
            while not game.round_over:
                player = game.waiting_for[0]
                actions = game.legal_actions(player)
                game.apply(actions[rng.randrange(len(actions))], player)
                decisions += 1
            hands += 1
            if game.match_winner is not None:
                break
            game.next_round()
    return hands, decisions


def theirs(env_class: type, games: int, rng: random.Random) -> tuple[int, int]:
    """The same with PlayPitch.net's environment: (hands, decisions)."""
    hands = decisions = 0
    for _ in range(games):
        env = env_class()
        obs, _ = env.reset(seed=rng.randrange(2**31))
        done = False
        while not done:
            legal = obs["action_mask"].nonzero()[0]
            obs, _, done, _, _ = env.step(int(legal[rng.randrange(len(legal))]))
            decisions += 1
        hands += env.number_of_rounds_played
    return hands, decisions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", required=True, help="a checkout of PlayPitch.net")
    parser.add_argument("--blocks", type=int, default=10, help="blocks of each engine (10)")
    parser.add_argument("--games", type=int, default=20, help="games per block (20)")
    args = parser.parse_args(argv)
    sys.path.insert(0, args.peer)
    from pitch_env import PitchEnv  # type: ignore[import-not-found]

    rng = random.Random(1)
    runs: dict[str, list[tuple[float, int, int]]] = {"ours": [], "theirs": []}
    for _ in range(args.blocks):
        for name in ("ours", "theirs"):
            start = time.process_time()
            if name == "ours":
                hands, decisions = ours(args.games, rng)
            else:
                hands, decisions = theirs(PitchEnv, args.games, rng)
            runs[name].append((time.process_time() - start, hands, decisions))
    medians = {}
    for name, blocks in runs.items():
        per_game = statistics.median(s / args.games for s, _, _ in blocks)
        per_hand = statistics.median(s / h for s, h, _ in blocks)
        per_decision = statistics.median(s / d for s, _, d in blocks)
        hands_a_game = sum(h for _, h, _ in blocks) / (args.blocks * args.games)
        decisions_a_hand = sum(d for _, _, d in blocks) / sum(h for _, h, _ in blocks)
        medians[name] = (per_game, per_hand, per_decision)
        print(
            f"{name:6}: {per_game * 1e3:8.2f} ms CPU a game ({hands_a_game:.1f} hands), "
            f"{per_hand * 1e6:8.0f} us a hand ({decisions_a_hand:.1f} decisions), "
            f"{per_decision * 1e6:6.1f} us a decision; "
            f"{1 / per_hand:7.0f} hands/s, {1 / per_decision:8.0f} decisions/s"
        )
    a, b = medians["ours"], medians["theirs"]
    print(
        f"ratio (theirs / ours, CPU): {b[0] / a[0]:.1f}x a game, {b[1] / a[1]:.1f}x a hand, "
        f"{b[2] / a[2]:.1f}x a decision; {args.blocks} blocks of {args.games} games each, ABAB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
