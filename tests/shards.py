"""Runs one pytest selection as N processes side by side, each taking every Nth
test (``--shard K/N``, tests/conftest.py), and prints their reports one after
the other. ``make check`` runs its two this way:

    python -m tests.shards 2 -m "not slow" --hypothesis-profile=check tests engine

Why not pytest-xdist's ``-n 2``: the fast tier is some 3,700 tests of a few
milliseconds, and xdist costs about 2 ms of CPU a test (the workers' reports
to the controller, and the controller's own process on one of the two cores),
where a plain pytest process costs 1 ms (docs/performance.md, "The fast tier").
The exit status is the first failing shard's (``status``).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile

NO_TESTS = 5  # pytest.ExitCode.NO_TESTS_COLLECTED (not imported: the runner starts fast)


def run(count: int, pytest_args: list[str]) -> int:
    colour = ["--color=yes"] if sys.stdout.isatty() else []
    command = [sys.executable, "-m", "pytest", "-p", "no:xdist", *colour, *pytest_args]
    with contextlib.ExitStack() as files:
        outputs = [files.enter_context(tempfile.TemporaryFile()) for _ in range(count)]
        shards = [
            subprocess.Popen(
                [*command, f"--shard={index}/{count}"], stdout=output, stderr=subprocess.STDOUT
            )
            for index, output in enumerate(outputs)
        ]
        try:
            codes = [shard.wait() for shard in shards]
        except KeyboardInterrupt:  # Ctrl-C reached the shards too: let them report it
            codes = [shard.wait() for shard in shards]
        for index, (output, code) in enumerate(zip(outputs, codes, strict=True)):
            output.seek(0)
            print(f"-- shard {index + 1} of {count} (exit {code}) --", flush=True)
            sys.stdout.buffer.write(output.read())
            sys.stdout.buffer.flush()
    failed = [
        f"shard {n + 1} (exit {code})" for n, code in enumerate(codes) if code not in (0, NO_TESTS)
    ]
    if failed:  # the last report on the screen may be a shard that passed
        print(f"-- not passed: {', '.join(failed)} of {count}; the reports are above --")
    return status(codes)


def status(codes: list[int]) -> int:
    """The shards' exit status as one run's: a shard left without tests (pytest's 5)
    is no failure when another ran some."""
    failed = [code for code in codes if code not in (0, NO_TESTS)]
    return failed[0] if failed else 0 if 0 in codes else NO_TESTS


def main(argv: list[str]) -> int:
    if not argv or not argv[0].isdigit() or int(argv[0]) < 1:
        print("usage: python -m tests.shards N [pytest arguments...]", file=sys.stderr)
        return 2
    return run(int(argv[0]), argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
