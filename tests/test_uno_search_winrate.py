"""benchmarks/search_winrate.py's paired comparison and its oracle: the tools
the search bot's 4-player plan is tuned with (docs/performance.md, "The search
bot")."""

import json
import random
from collections import Counter

import pytest

from benchmarks import search_winrate
from benchmarks.search_winrate import CountingBot, OracleBot, mcnemar
from engine.uno.game import Game


def test_mcnemar_counts_the_rounds_one_run_won_and_the_other_lost():
    base = [True, True, False, False, False]
    variant = [True, False, True, True, False]
    assert mcnemar(base, variant) == (2, 1, 1.0)


def test_mcnemar_p_is_the_exact_two_sided_sign_test():
    # 9 to 1 of 10 disagreements: 2 * (1 + 10) / 1024
    assert mcnemar([False] * 9 + [True], [True] * 9 + [False]) == (9, 1, 22 / 1024)
    assert mcnemar([True, False], [True, False]) == (0, 0, 1.0)


def test_mcnemar_refuses_runs_of_other_lengths():
    with pytest.raises(ValueError, match="paired runs of 2 and 1 rounds"):
        mcnemar([True, False], [True])


def test_the_oracles_only_world_is_the_real_game():
    game = Game.new(4, "classic", seed=5)
    bot = OracleBot(random.Random(1), playouts=8, oracle="all")
    bot._real = game
    world, weight = bot.world(None, None, None, True, 0.25)  # type: ignore[arg-type]
    assert (world.notation(), weight) == (game.notation(), 1.0)
    assert world is not game


def test_counting_bot_makes_the_search_bots_decisions():
    game = Game.new(4, "classic", seed=4)
    counting = CountingBot(random.Random(2), playouts=48)
    plain = search_winrate.SearchBot(random.Random(2), playouts=48)
    assert counting.act(game, game.current) == plain.act(game, game.current)
    assert counting.counts[0] == 1


def test_a_saved_run_pairs_with_the_same_deals(tmp_path, capsys):
    saved = tmp_path / "base.json"
    flags = ["--deals", "1", "--players", "4", "--seed", "7", "--playouts", "8"]
    assert search_winrate.main([*flags, "--save", str(saved)]) == 0
    won = json.loads(saved.read_text())["won"]
    assert len(won) == 4
    assert search_winrate.main([*flags, "--paired", str(saved)]) == 0
    out = capsys.readouterr().out
    assert f"{sum(won)} against {sum(won)} rounds won; 0 won only by this run" in out


def test_a_bot_salt_reseeds_the_search_bot_alone():
    """``--bot-salt``: the search bot's own generator seeded otherwise, the
    deals, opponents and unit as they were; without it, the seed every saved
    run was played with."""
    assert search_winrate.bot_seed(7, 3, 1) == "7:3:1"
    assert search_winrate.bot_seed(7, 3, 1, "1") == "7:3:1:1"
    seeds = [
        search_winrate.bot_seed(7, d, s, salt)
        for salt in (None, "1", "2")
        for d in range(3)
        for s in range(4)
    ]
    assert len(set(seeds)) == len(seeds)  # a seat, a deal and a salt apart: another seed


def test_a_salted_run_pairs_with_an_unsalted_one(tmp_path, capsys):
    saved = tmp_path / "base.json"
    flags = ["--deals", "1", "--players", "4", "--seed", "7", "--playouts", "8"]
    assert search_winrate.main([*flags, "--save", str(saved)]) == 0
    won = json.loads(saved.read_text())["won"]
    capsys.readouterr()
    salted = tmp_path / "salted.json"
    # The same deals: a salted run pairs with the unsalted one (the keys match).
    salt = ["--bot-salt", "1", "--save", str(salted), "--paired", str(saved)]
    assert search_winrate.main([*flags, *salt]) == 0
    out = capsys.readouterr().out
    assert "bot salt 1" in out
    assert len(json.loads(salted.read_text())["won"]) == len(won)
    assert f"against {sum(won)} rounds won" in out


def oracle_worlds(oracle: str):
    """For 8 seeded 4-player deals: the real game, the player to act, and the
    world ``oracle`` deals that player first."""
    from engine.uno.belief import Belief
    from engine.uno.player_view import PlayerView
    from engine.uno.search_worlds import Worlds

    for seed in range(8):
        game = Game.new(4, "classic", seed=seed)
        me = game.current
        view = PlayerView(game, me)
        belief = Belief(me)
        belief.observe(view)
        bot = OracleBot(random.Random(seed), playouts=8, oracle=oracle)
        bot._real = game
        world, weight = bot.world(view, belief, Worlds(view), True, 0.25)
        assert weight == 1.0
        yield game, me, world


def every_card(game: Game) -> Counter:
    """Every card of the hands and the draw pile."""
    return Counter(c for p in range(game.players) for c in game.hand(p)) + Counter(game._draw)


def test_the_next_oracle_swaps_in_the_next_players_real_hand():
    """``--oracle next``: the belief's world with the next player's real hand,
    every other card still somewhere (hands and draw pile, the same cards)."""
    for game, me, world in oracle_worlds("next"):
        nxt = (me + game.direction) % game.players
        assert sorted(world.hand(nxt)) == sorted(game.hand(nxt))
        assert world.hand(me) == game.hand(me)
        assert every_card(world) == every_card(game)


@pytest.mark.parametrize("oracle", sorted(search_winrate.PARTIAL_ORACLES))
def test_a_partial_oracle_keeps_each_opponents_counts_of_its_kind(oracle):
    """``--oracle colours``, ``ranks``, ``wilds``: each opponent holds as many
    cards of each kind as it really does, the cards themselves dealt anew
    (some differ), and every card is still somewhere."""
    kind = search_winrate.PARTIAL_ORACLES[oracle]
    differs = 0
    for game, me, world in oracle_worlds(oracle):
        assert world.hand(me) == game.hand(me)
        for p in range(4):
            assert Counter(map(kind, world.hand(p))) == Counter(map(kind, game.hand(p)))
            differs += sorted(world.hand(p)) != sorted(game.hand(p))
        assert every_card(world) == every_card(game)
    assert differs > 0


@pytest.mark.parametrize("text", ["-1", "two", "1.5"])
def test_depth_takes_a_whole_number_of_turns(text, capsys):
    with pytest.raises(SystemExit) as stopped:
        search_winrate.main(["--deals", "1", "--depth", text])
    assert stopped.value.code == 2
    assert f"--depth: a whole number of turns, 0 or more, not {text!r}" in capsys.readouterr().err
