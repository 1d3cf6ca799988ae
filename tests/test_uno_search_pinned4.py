"""The search bot's 4-player classic decisions, pinned: its 4-player win rates
(docs/performance.md, "The search bot") were measured with the plan these
exact choices come from (engine.uno.search_bot.FOUR_PLAYERS), on the
benchmark's kind of paired deal. The bot plays its first ``FIRST`` decisions
of each pinned round (the heuristic plays every other seat)."""

import random

import pytest

from engine.uno.bots import HeuristicBot
from engine.uno.game import Game
from engine.uno.search_bot import SearchBot

#: The search bot's decisions pinned per round.
FIRST = 6
#: (deal, the search bot's seat): its first decisions, in order ("_" for a space),
#: recorded at the plan's choice (its playouts search its next two turns).
PINNED = {
    (0, 0): "G2 G3 W=Y B7 accept GR",
    (0, 2): "R9 G1 R8 draw R7 BR",
    (1, 1): "draw G9 G2 G3 draw B5",
    (2, 0): "B5 Y5",
}
#: The same rounds with the flat search (``depth`` 0: every later turn the
#: heuristic's), the plan of the figures measured before the tree.
FLAT = {
    (0, 0): "G2 G3 W=Y B7 accept GR",
    (0, 2): "R9 G1 R+2 draw Y+2 R8",
    (1, 1): "draw G9 G8 GS draw draw",
    (2, 0): "B5 Y5",
}
#: The flat search with the belief not reading plays and every world alike.
OLD = {
    (0, 0): "G2 GR W=Y draw keep Y+2",
    (0, 2): "R9 G1 R7 B0 draw R+2",
    (1, 1): "draw G9 G8 G3 draw B5",
    (2, 0): "B5 BS B3 Y5 W=Y",
}


def decisions(deal: int, seat: int, **options) -> str:
    rng = random.Random(f"pin4:{deal}")
    game = Game.new(4, "classic", seed=rng.getrandbits(64))
    unit = random.Random(rng.getrandbits(64))
    agents: list = [HeuristicBot() for _ in range(4)]
    agents[seat] = SearchBot(random.Random(f"pin4:{deal}:{seat}"), **options)
    seen: list[str] = []
    while not game.round_over and len(seen) < FIRST:
        player = game.to_act
        if player is None:
            game.apply(unit.choice(game.legal_actions()))
            continue
        action = agents[player].act(game, player)
        if player == seat:
            seen.append(str(action).replace(" ", "_"))
        game.apply(action)
    return " ".join(seen)


@pytest.mark.parametrize(("deal", "seat"), sorted(PINNED))
def test_four_player_classic_decisions_are_the_measured_ones(deal, seat):
    assert decisions(deal, seat) == PINNED[deal, seat]


@pytest.mark.parametrize(("deal", "seat"), sorted(FLAT))
def test_the_flat_search_makes_the_decisions_measured_before_the_tree(deal, seat):
    assert decisions(deal, seat, depth=0) == FLAT[deal, seat]


@pytest.mark.parametrize(("deal", "seat"), sorted(OLD))
def test_without_reading_plays_the_same_rounds_go_otherwise(deal, seat):
    assert decisions(deal, seat, reads_plays=False, misfit=1.0, depth=0) == OLD[deal, seat]
