"""engine.uno.playout's choice of kernel: the mypyc extension when built and
current, the Python source when forced or otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.uno import playout, playout_kernel

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
