"""engine.uno.playout's choice of kernel: the mypyc extension when built and
current, the Python source when forced or otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.uno import playout, playout_heuristic, playout_kernel

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
    # ... with the heuristic's source, whatever is built: the whole reference path.
    heuristic = sys.modules[source.best_play.__module__]
    assert heuristic.__file__ is not None and heuristic.__file__.endswith("playout_heuristic.py")
    assert sys.modules["engine.uno.playout_heuristic"] is playout_heuristic  # put back


def test_play_out_runs_compiled_only_when_the_kernel_and_the_heuristic_are_built_and_current():
    # make build compiles both together; either one missing or older than its
    # source, play_out runs the sources.
    built = playout.is_compiled(playout_kernel) and playout.is_compiled(playout_heuristic)
    forced = os.environ.get(playout.INTERPRETED_ENV, "") not in ("", "0")
    current = built and not forced and not playout._stale()
    assert playout.KERNEL is (playout_kernel if current else playout.interpreted_kernel())


@pytest.mark.slow  # a process: the variable is read at import
def test_the_environment_variable_forces_the_python_source() -> None:
    assert _kernel_file({playout.INTERPRETED_ENV: "1"}).endswith("playout_kernel.py")


@pytest.mark.slow
def test_without_the_variable_the_kernel_is_what_import_finds() -> None:
    # The extension where make built it (a stale one, older than the source, is
    # not run: rebuild with `make build`), else the source.
    assert _kernel_file({playout.INTERPRETED_ENV: ""}) == playout_kernel.__file__


def test_the_kernel_knows_whether_it_runs_compiled() -> None:
    # Its shuffle and two list searches take their compiled loops only compiled.
    assert playout.interpreted_kernel()._COMPILED is False
    assert playout_kernel._COMPILED is playout.is_compiled(playout_kernel)
