"""engine.pitch.playout: Pitch played out by a policy, replayed through the API."""

from __future__ import annotations

import random

import pytest

from engine.pitch.actions import Action
from engine.pitch.game import PitchGame
from engine.pitch.heuristic import HeuristicBot
from engine.pitch.playout import POLICIES, play_out


def _replay(game: PitchGame, policy: str, rng: random.Random) -> list[Action]:
    """The decisions the API plays with the policy's rule, on a copy."""
    game = game.copy()
    bot = HeuristicBot()
    played = []
    while not game.round_over:
        player = game.waiting_for[0]
        legal = game.legal_actions(player)
        if policy == "heuristic":
            action = bot.act(game, player)
        else:
            action = legal[int(rng.random() * len(legal))] if len(legal) > 1 else legal[0]
        assert action in legal
        played.append(action)
        game.apply(action)
    return played


@pytest.mark.parametrize("policy", POLICIES)
def test_a_pitch_playout_plays_the_api_game_and_leaves_the_game_alone(policy: str) -> None:
    for seed in range(4):
        game = PitchGame.new(seed=seed)
        for _ in range(seed * 2):  # some decisions into the hand
            game.apply(game.legal_actions()[0])
        before = game.notation()
        log: list[Action] = []
        result = play_out(game, policy, random.Random(seed), log=log)
        assert game.notation() == before
        assert [str(a) for a in log] == [str(a) for a in _replay(game, policy, random.Random(seed))]
        assert result.decisions == len(log) and result.winner in range(4)


def test_a_pitch_match_plays_out_to_its_winner() -> None:
    game = PitchGame.new(seed=3, target=21)
    result = play_out(game, "heuristic", random.Random(1), to="match")
    assert result.match_winner is not None and result.match_winner in (0, 1)
    assert max(result.scores) >= 21


def test_a_pitch_playout_stops_at_its_limit_and_refuses_unknown_words() -> None:
    game = PitchGame.new(seed=5)
    assert play_out(game, "random", random.Random(1), max_decisions=2)[:3] == (None, 0, 2)
    with pytest.raises(ValueError, match="no playout policy 'greedy'"):
        play_out(game, "greedy", random.Random(1))
    with pytest.raises(ValueError, match="play out to 'hand' or 'match', not 'round'"):
        play_out(game, "random", random.Random(1), to="round")  # type: ignore[arg-type]
