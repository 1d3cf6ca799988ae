"""A belief that ``remembers`` (engine.uno.belief): the opponents' plays of
earlier laps, kept while their player has drawn nothing since, each with the
cards it has played from its hand since; the search bot's ``misfit`` then
weighs a world by them too (engine.uno.search_bot, ``Plan.remembers``)."""

import random

from engine.uno.belief import Belief
from engine.uno.bots import HeuristicBot
from engine.uno.game import Game
from engine.uno.player_view import PlayerView
from engine.uno.search_bot import SearchBot
from engine.uno.search_plays import heuristic_would


def replay(seed: int, remembers: bool):
    """A 4-player round of HeuristicBots, player 0's belief fed each view: each
    of its decisions' (belief after observing, the real hands)."""
    game = Game.new(4, "classic", seed=seed)
    belief = Belief(0, reads_plays=True, remembers=remembers)
    heuristic = HeuristicBot()
    rng = random.Random(seed)
    while not game.round_over:
        player = game.to_act
        if player is None:
            game.apply(rng.choice(game.legal_actions()))
            continue
        if player == 0:
            view = PlayerView(game, 0)
            belief.observe(view)
            yield belief, [list(game.hand(p)) for p in range(4)]
            action = heuristic.act(game, 0)
            belief.decided(view, action)
        else:
            action = heuristic.act(game, player)
        game.apply(action)


def test_the_real_hands_agree_with_every_play_remembered():
    """Each remembered play is one HeuristicBot made with the hand it held then:
    its hand now and the cards it has played since."""
    seen = 0
    for seed in range(12):
        for belief, hands in replay(seed, remembers=True):
            for p, older in belief.older.items():
                for play, since in older:
                    assert play.player == p
                    assert len(hands[p]) + len(since) == play.sizes[p] - 1
                    assert heuristic_would(play, hands[p] + since), (play, since)
                    seen += 1
            assert SearchBot.weight(belief, hands, 0.25) == 1.0
    assert seen > 100


def test_a_belief_remembers_only_when_asked():
    older = 0
    for seed in range(4):
        for belief, _ in replay(seed, remembers=False):
            older += len(belief.older)
    assert older == 0


def test_an_opponent_that_draws_is_forgotten():
    """An opponent whose hand did not shrink since the last decision (it drew,
    or drew and played the card drawn) is remembered for nothing."""
    forgot = 0
    for seed in range(12):
        sizes: list[int] | None = None
        for belief, hands in replay(seed, remembers=True):
            for p in range(1, 4):
                if sizes is not None and len(hands[p]) >= sizes[p]:
                    assert p not in belief.older
                    forgot += 1
                for _, since in belief.older.get(p, ()):
                    assert since  # it played from its hand in every lap since
            sizes = [len(h) for h in hands]
    assert forgot > 100
