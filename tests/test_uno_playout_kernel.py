"""engine.uno.playout's kernel: the mypyc extension when built and current, the
Python source when forced or otherwise; its shuffle and its deal are the game's."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from engine.game.shuffle import seeded_shuffle
from engine.uno import playout, playout_kernel
from engine.uno.game import Game
from engine.uno.playout import POLICIES, play_out, play_out_new_deal
from tests.test_uno_playout import HOUSES, LIMIT

ROOT = Path(__file__).resolve().parent.parent


def _kernel_file(env: dict[str, str]) -> str:
    code = "from engine.uno import playout; print(playout.KERNEL.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout.strip()


def test_the_interpreted_kernel_runs_the_python_source() -> None:
    source = playout.interpreted_kernel()
    assert source.__file__ is not None and source.__file__.endswith("playout_kernel.py")
    assert not playout.is_compiled(source)
    assert playout.interpreted_kernel() is source


@pytest.mark.slow  # a process: the variable is read at import
def test_the_environment_variable_forces_the_python_source() -> None:
    assert _kernel_file({playout.INTERPRETED_ENV: "1"}).endswith("playout_kernel.py")


@pytest.mark.slow
def test_without_the_variable_the_kernel_is_what_import_finds() -> None:
    # The extension where make built it (a stale one, older than the source, is
    # not run: rebuild with `make build`), else the source.
    assert _kernel_file({playout.INTERPRETED_ENV: ""}) == playout_kernel.__file__


KERNELS = [playout.interpreted_kernel(), playout_kernel]


@pytest.mark.parametrize("kernel", KERNELS, ids=playout.is_compiled)
def test_the_kernels_shuffle_is_the_games_swap_for_swap(kernel: ModuleType) -> None:
    for size in (0, 1, 2, 7, 108, 112):
        for seed, count in ((0, 0), (7, 3), (2**64 - 1, 2**32 - 1)):
            ours, games = list(range(size)), list(range(size))
            kernel.shuffle(ours, seed, count)
            seeded_shuffle(games, seed=seed, count=count)
            assert ours == games


@pytest.mark.parametrize("kernel", KERNELS, ids=playout.is_compiled)
@pytest.mark.parametrize("variant", ["classic", "showdown"])
@pytest.mark.parametrize("policy", POLICIES)
def test_a_playout_of_a_new_deal_plays_the_game_game_new_deals(
    kernel: ModuleType, variant: str, policy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(playout, "KERNEL", kernel)
    for seed in range(12):
        players = 2 + seed % 5
        house = HOUSES[seed % len(HOUSES)]
        to = "match" if seed % 4 == 0 else "round"
        a, b = random.Random(seed), random.Random(seed)
        game = Game.new(players, variant, rng=a, house_rules=house, target=150, dealer=seed % 2)
        dealt = play_out(game, policy, a, to=to, max_decisions=LIMIT)  # type: ignore[arg-type]
        ours = play_out_new_deal(
            players,
            variant,
            policy,
            b,
            to=to,
            house_rules=house,
            target=150,  # type: ignore[arg-type]
            dealer=seed % 2,
            max_decisions=LIMIT,
        )
        assert ours == dealt
        assert a.getstate() == b.getstate()


def test_a_new_deal_is_checked_as_game_new_checks_it() -> None:
    with pytest.raises(ValueError, match="classic takes 2-10 players, not 1"):
        play_out_new_deal(1, "classic", "random", random.Random(1))
    with pytest.raises(ValueError, match="no playout policy 'greedy'"):
        play_out_new_deal(2, "classic", "greedy", random.Random(1))
