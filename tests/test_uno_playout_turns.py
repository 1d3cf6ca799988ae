"""engine.uno.playout's PlayerTurns: a heuristic playout stopped at one
player's turns, for the search of that player's own decisions
(engine.uno.search_tree), on the compiled kernel and on its Python source."""

from __future__ import annotations

import random

import pytest

from engine.uno import playout
from engine.uno.actions import ActionKind
from engine.uno.bots import HeuristicBot
from engine.uno.game import Game, Phase
from engine.uno.playout import PlayerTurns, play_out, shuffle_as_random
from engine.uno.playout_codes import action_of, play_code


@pytest.fixture(params=["built", pytest.param("source", marks=pytest.mark.slow)])
def kernel(request, monkeypatch):
    """Each test on the kernel play_out runs and on the Python source (the
    reference; in ``make test`` only: interpreted, these are the file's slow half)."""
    if request.param == "source":
        monkeypatch.setattr(playout, "KERNEL", playout.interpreted_kernel())
    return request.param


def heuristic_choice(plays: list[int], heuristic: int) -> int:
    return heuristic


def another_choice(plays: list[int], heuristic: int) -> int:
    """The last play offered that is not the heuristic's."""
    return next(p for p in reversed(plays) if p != heuristic)


def stopped_turns(game: Game, me: int, seed: int, chooser=heuristic_choice):
    """``me``'s turns played out by ``chooser`` at each stop: the playout and
    the plays offered at each stop."""
    turns = PlayerTurns(game, me, random.Random(seed), 400)
    stops = []
    plays = turns.next_turn()
    while plays is not None:
        stops.append(plays)
        plays = turns.next_turn(chooser(plays, turns.heuristic(plays)))
    return turns, stops


def through_the_api(game: Game, me: int, chooser=heuristic_choice):
    """The same round through the public API, HeuristicBot in every seat but
    ``me``'s turns with a choice of plays and no catch to make: the plays
    legal_actions offered there (as ints) and the winner."""
    bot = HeuristicBot()
    game = game.copy()
    stops = []
    while not game.round_over:
        player = game.to_act
        assert player is not None  # classic: no showdown
        legal = game.legal_actions()
        action = bot.act(game, player)
        plays = [a for a in legal if a.kind is ActionKind.PLAY]
        catch = any(a.kind is ActionKind.CATCH for a in legal)
        if player == me and game.phase is Phase.PLAY and len(plays) > 1 and not catch:
            codes = [play_code(a) for a in plays]
            stops.append(codes)
            action = action_of(chooser(codes, play_code(action)))
        game.apply(action)
    return stops, game.current


@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.parametrize("variant", ["classic", "showdown"])
def test_given_the_heuristic_choice_at_every_stop_it_is_the_heuristic_playout(
    kernel, players, variant
):
    stopped = 0
    for seed in range(40):
        game = Game.new(players, variant, seed=seed)
        me = seed % players
        turns, stops = stopped_turns(game, me, seed)
        whole = play_out(game, "heuristic", random.Random(seed), max_decisions=400)
        assert (turns.winner, 400 - turns.left) == (whole.winner, whole.decisions), seed
        stopped += len(stops)
    assert stopped > 40 * 2  # it stopped at most rounds' turns, several times


@pytest.mark.parametrize("chooser", [heuristic_choice, another_choice])
def test_it_stops_at_each_turn_with_a_choice_of_plays_and_plays_the_choice_made(kernel, chooser):
    # Through the public API the same round stops exactly there (the player has
    # more than one play and no catch to make), offers the plays legal_actions
    # lists, in its order, and the choice made there (the heuristic's, or
    # another play) is the game's.
    for seed in range(30):
        game = Game.new(4, "classic", seed=seed)
        me = seed % 4
        turns, stops = stopped_turns(game, me, seed, chooser)
        assert (stops, turns.winner) == through_the_api(game, me, chooser), seed


def test_without_stopping_it_plays_to_the_end(kernel):
    game = Game.new(4, "classic", seed=3)
    turns = PlayerTurns(game, 1, random.Random(3), 400)
    assert turns.next_turn(stop=False) is None
    assert turns.winner == play_out(game, "heuristic", random.Random(3)).winner
    assert game.turns == 0  # the game itself is left as it was


@pytest.mark.parametrize("size", [0, 1, 2, 3, 7, 64, 108])
def test_the_kernels_shuffle_is_randoms_bit_for_bit(kernel, size):
    for seed in range(50):
        ours, theirs = list(range(size)), list(range(size))
        mine, reference = random.Random(seed), random.Random(seed)
        shuffle_as_random(ours, mine)
        reference.shuffle(theirs)
        assert ours == theirs
        assert mine.random() == reference.random()  # the same bits drawn
