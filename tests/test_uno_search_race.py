"""The search bot's racing (``Plan.race``): with three or more candidates, half
the budget's worlds for every candidate, then the rest for the heuristic's
choice and the candidate leading it only."""

import random

from engine.uno.bots import HeuristicBot
from engine.uno.game import Game
from engine.uno.player_view import PlayerView
from engine.uno.search_bot import SearchBot

PLAYOUTS = 96


def searched(seed: int, race: bool) -> list[tuple[int, list[int], float]]:
    """Each ``pick`` of one decision: candidates, worlds per candidate, confidence."""
    game = Game.new(4, "classic", seed=seed)
    bot = SearchBot(random.Random(seed), playouts=PLAYOUTS, race=race)
    picks: list[tuple[int, list[int], float]] = []

    def pick(results, fallback, confidence):
        picks.append((len(results), [len(v) for v in results.values()], confidence))
        return SearchBot.pick(results, fallback, confidence)

    bot.pick = pick  # type: ignore[method-assign]
    bot.act(game, game.current)
    return picks


def candidates(seed: int) -> int:
    game = Game.new(4, "classic", seed=seed)
    fallback = HeuristicBot().act(game, game.current)
    view = PlayerView(game, game.current)
    return len(SearchBot.candidates(view, game.legal_actions(), fallback))


#: Deals whose first decision has three or more candidates, and one with two.
MANY = [s for s in range(40) if candidates(s) >= 3][:3]
TWO = next(s for s in range(40) if candidates(s) == 2)


def test_racing_gives_the_second_half_to_the_leader_and_the_fallback():
    raced = 0
    for seed in MANY:
        k = candidates(seed)
        first = PLAYOUTS // 2 // k
        picks = searched(seed, race=True)
        assert picks[0] == (k, [first] * k, 0.0)  # who leads: no test
        if len(picks) == 2:  # something led the heuristic's choice
            rest = (PLAYOUTS - first * k) // 2
            assert picks[1] == (2, [first + rest] * 2, 1.0)
            raced += 1
        else:
            assert len(picks) == 1
    assert MANY and raced


def test_without_racing_every_candidate_gets_the_budget():
    seed = MANY[0]
    k = candidates(seed)
    assert searched(seed, race=False) == [(k, [PLAYOUTS // k] * k, 1.0)]


def test_two_candidates_are_not_raced():
    assert searched(TWO, race=True) == [(2, [PLAYOUTS // 2] * 2, 1.0)]
