"""``showdown speed --variant party``'s prefer-play agents: the set lookup
(PartyGame.passive_actions, engine.uno.party_passive) leaves out exactly the moves the
test of each move's fields did (draw, keep, a speed play of another card than
the top one), in order, so the same seeds play the same rounds."""

import random

from engine.apps.speed import run
from engine.uno.actions import ActionKind
from engine.uno.party import PartyGame

SPEED_PLAY, DRAW, KEEP = ActionKind.SPEED_PLAY, ActionKind.DRAW, ActionKind.KEEP


def active_by_fields(moves, top):
    """prefer-play's moves as ``_run_party`` first chose them: by each move's fields."""
    return [
        (p, a)
        for p, a in moves
        if a.kind is not DRAW and a.kind is not KEEP and (a.kind is not SPEED_PLAY or a.card == top)
    ]


def test_the_passive_set_leaves_out_what_the_fields_did_at_every_decision():
    rng = random.Random(7)
    checked = 0
    for players in (3, 8, 16):
        game = PartyGame.new(players, seed=rng.getrandbits(32))
        for _ in range(300):
            if game.round_over:
                break
            moves = game.legal_moves()
            passive = game.passive_actions()
            active = [move for move in moves if move[1] not in passive]
            assert active == active_by_fields(moves, game.top_card), game.notation(reveal=True)
            checked += len(moves)
            player, action = rng.choice(moves)  # uniform: draws and wrong plays too
            game.apply(action, player)
    assert checked > 10_000


def test_the_seeds_play_the_rounds_they_played_before_the_set():
    # Decisions a round as the commit before it (4fed334, the fields' filter
    # and the legality recomputed for everyone) played them.
    eight = run(games=1, players=8, policy="prefer-play", seed=7, variant="party")
    five = run(games=3, players=5, policy="prefer-play", seed=3, variant="party")
    assert eight["decisions_per_game"] == 878
    assert round(five["decisions_per_game"] * 3) == 6418
