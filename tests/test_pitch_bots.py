"""Pitch's bots: legal in every phase, deciding from their seat's view only, by kind."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.game.agents import RandomBot
from engine.pitch import FAMILY, Action, Phase, PitchGame
from engine.pitch.bots import BOT_KINDS, make_bot
from engine.pitch.heuristic import HeuristicBot, burn_choice, heuristic_action
from engine.pitch.search import OmniscientBot, SearchBot
from tests.pitch_helpers import deal_game


class ViewOnly:
    """A game that offers a bot its seat's view (and its legal actions) and nothing else."""

    def __init__(self, game: PitchGame) -> None:
        self._game = game

    def view(self, seat: int):
        return self._game.view(seat)

    def legal_actions(self, seat: int):
        return list(self.view(seat).legal)


def _bots(seed: int) -> list:
    rng = random.Random(seed)
    search = [SearchBot(random.Random(rng.getrandbits(32)), f"s{i}", samples=2) for i in (1, 3)]
    if seed % 3 == 0:  # now and then a random partner
        return [RandomBot(random.Random(seed)), search[0], HeuristicBot("h"), search[1]]
    return [HeuristicBot("h"), search[0], HeuristicBot("h2"), search[1]]


def test_every_bot_plays_legal_actions_in_every_phase():
    phases: dict[Phase, int] = {}
    for hands, seed in enumerate(range(40), start=1):
        game = PitchGame.new(seed=seed)
        bots = _bots(seed)
        while game.waiting_for:
            seat = game.to_act
            phases[game.phase] = phases.get(game.phase, 0) + 1
            action = bots[seat].act(ViewOnly(game), seat)
            assert action in game.legal_actions(seat), (seed, str(action))
            game.apply(action, seat)
        if len(phases) == 5 and hands >= 4:
            break
    assert set(phases) == {Phase.BID, Phase.TRUMP, Phase.STOCK, Phase.BURN, Phase.PLAY}


def test_the_omniscient_bot_plays_legal_actions():
    game = PitchGame.new(seed=4)
    bot = OmniscientBot()
    while game.waiting_for:
        action = bot.act(game, game.to_act)
        assert action in game.legal_actions()
        game.apply(action)
    assert game.outcome is not None


def _pitcher_game(fill):
    """Seat 0 holds the same nine cards and won the bid at 5; the rest differ."""
    return deal_game(
        {0: "AH KH 3H JD 9S 4C 7D 2S QC"},
        dealer=3,
        fill=fill,
        actions=["bid 5", "pass", "pass", "pass"],
    )


def test_games_differing_only_in_hidden_cards_get_the_same_decision():
    from engine.pitch import DECK

    one, other = _pitcher_game(DECK), _pitcher_game(tuple(reversed(DECK)))
    assert one.hand(1) != other.hand(1) and one.view(0) == other.view(0)
    for kind in ("bot", "strong"):
        first = make_bot(kind, "x", random.Random(3)).act(one, 0)
        second = make_bot(kind, "x", random.Random(3)).act(other, 0)
        assert first == second == Action.trump("H")


def test_bots_are_deterministic_given_their_rng():
    def decisions(seed: int) -> list[str]:
        game = PitchGame.new(seed=9)
        bot = make_bot("strong", "s", random.Random(seed))  # it plays every seat: one hand
        out = []
        while game.waiting_for:
            action = bot.act(game, game.to_act)
            out.append(str(action))
            game.apply(action)
        return out

    assert decisions(1) == decisions(1)


def test_make_bot_kinds_and_errors():
    rng = random.Random(1)
    assert isinstance(make_bot("bot", "b", rng), HeuristicBot)
    assert isinstance(make_bot("random", "r", rng), RandomBot)
    assert isinstance(make_bot("strong", "s", rng, reaction_ms=300), SearchBot)
    assert FAMILY.bot_kinds == BOT_KINDS
    assert isinstance(FAMILY.make_bot("strong", "s", rng), SearchBot)
    with pytest.raises(ValueError, match="no bot 'omniscient' in 10 Point Pitch"):
        make_bot("omniscient", "o", rng)
    with pytest.raises(ValueError, match="reaction_ms"):
        make_bot("bot", "b", rng, reaction_ms=5)
    with pytest.raises(ValueError, match="samples of bot 's'"):
        SearchBot(rng, "s", samples=0)


def _play_view(hand: str, trick: list[tuple[int, str]]):
    """A trick-play view of seat 0 (hearts trump) holding ``hand``, ``trick`` on the table."""
    game = PitchGame.new(seed=7, dealer=3)
    for text in ("bid 5", "pass", "pass", "pass", "trump H"):
        game.apply(text)
    cards = hand.split()
    return dataclasses.replace(
        game.view(0),
        phase=Phase.PLAY,
        to_act=0,
        hand=tuple(cards),
        legal=tuple(Action.play(c) for c in cards),
        trick=tuple(trick),
        leader=trick[0][0],
        tricks=(),
        burned=(),
        out=(False,) * 4,
    )


def test_the_heuristic_throws_points_onto_the_partners_sure_trick():
    view = _play_view("3H 4H 9H", [(2, "AH"), (3, "8H")])  # the ace cannot be beaten
    assert heuristic_action(view) == Action.play("3H")
    view = _play_view("3H 4H 9H", [(2, "TH"), (3, "8H")])  # seat 1 may still beat the 10
    assert heuristic_action(view) == Action.play("4H")


def test_the_heuristic_captures_points_from_the_last_seat():
    view = _play_view("QH 4H 9H", [(1, "JH"), (2, "6H"), (3, "3H")])
    assert heuristic_action(view) == Action.play("QH")  # the 3 and the jack, cheapest winner
    view = _play_view("QH 4H 9H", [(1, "5H"), (2, "6H"), (3, "7H")])
    assert heuristic_action(view) == Action.play("4H")  # nothing to take: duck low


def test_the_heuristic_burns_the_lowest_trump_worth_nothing():
    assert burn_choice(["AH", "KH", "9H", "5H", "3H", "2H", "TH"], "H") == "5H"
    assert burn_choice(["AH", "JH", "TH", "3H", "2H", "HJ", "LJ"], "H") == "2H"
