"""The fast tier's shards (``--shard K/N``, tests/conftest.py; tests/shards.py):
N of them run every selected test once between them."""

from __future__ import annotations

import argparse
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import shards
from tests.conftest import Shard, _shard


def _split(tests: list[str], index: int, count: int) -> tuple[list[str], list[str]]:
    deselected: list[str] = []
    config = SimpleNamespace(
        hook=SimpleNamespace(pytest_deselected=lambda items: deselected.extend(items))
    )
    items = list(tests)
    Shard(index, count).pytest_collection_modifyitems(config, items)
    return items, deselected


@given(st.integers(0, 40), st.integers(1, 5))
def test_the_shards_run_every_test_once_and_deselect_the_rest(size, count):
    tests = [f"test_{number}" for number in range(size)]
    kept = []
    for index in range(count):
        mine, others = _split(tests, index, count)
        assert sorted(mine + others) == sorted(tests)
        kept += mine
    assert sorted(kept) == sorted(tests)


def test_neighbours_are_dealt_out_there_and_back():
    tests = ["a[1]", "a[2]", "a[3]", "b", "c[1]", "c[2]"]
    assert _split(tests, 0, 2)[0] == ["a[1]", "b", "c[1]"]
    assert _split(tests, 1, 2)[0] == ["a[2]", "a[3]", "c[2]"]
    assert [_split(list("abcdefg"), index, 3)[0] for index in range(3)] == [
        ["a", "f", "g"],
        ["b", "e"],
        ["c", "d"],
    ]


def test_the_option_reads_k_of_n_and_refuses_anything_else():
    assert _shard("1/2") == (1, 2)
    for wrong in ("2/2", "1", "-1/2", "a/b", "1/0", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="K/N"):
            _shard(wrong)


def test_the_runner_without_a_count_prints_its_usage(capsys):
    assert shards.main([]) == 2
    assert shards.main(["two", "tests"]) == 2
    assert "usage: python -m tests.shards N" in capsys.readouterr().err


def test_the_run_fails_as_its_first_failing_shard_and_an_empty_shard_is_no_failure():
    assert shards.status([0, 0]) == 0
    assert shards.status([0, 5]) == 0  # a selection of one test leaves a shard empty
    assert shards.status([5, 5]) == 5
    assert shards.status([5, 1]) == 1
    assert shards.status([2, 1]) == 2
