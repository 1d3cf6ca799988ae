"""The table server under measure: ``showdown table`` started as a user starts
it (a subprocess on a loopback port), what it printed, and its memory and CPU
time read from ``/proc`` (``benchmarks/table_bench.py``, ``table_displays.py``).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]

#: The last line ``showdown table`` prints before it serves.
READY_LINE = "Ctrl-C stops the table."

__all__ = [
    "BenchError",
    "READY_LINE",
    "Served",
    "cpu_s",
    "free_port",
    "memory_kb",
    "printed_access",
    "table_server",
]


class BenchError(Exception):
    """The benchmark could not measure: what went wrong, in one message."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def memory_kb(pid: int) -> dict[str, int]:
    """The process's VmRSS and VmHWM in kB, from /proc/PID/status."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0])
    return {"rss_kb": fields["VmRSS"], "hwm_kb": fields["VmHWM"]}


def cpu_s(pid: int) -> float:
    """The process's user + system CPU time in seconds, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Served(NamedTuple):
    """The table server's process, and the host key and room code it printed."""

    process: subprocess.Popen
    host_key: str
    code: str

    @property
    def pid(self) -> int:
        return self.process.pid


def printed_access(text: str) -> tuple[str, str] | None:
    """The host key and the room code in what the server printed at start, if both are there.

    >>> printed_access("The table (room QXZW), seed 5:\\n  host:    http://h:1/#host=K-y_9   (...)")
    ('K-y_9', 'QXZW')
    """
    key = re.search(r"host:\s+\S*#host=([\w-]+)", text)
    code = re.search(r"The table \(room ([A-Z]{4})\)", text)
    return None if key is None or code is None else (key.group(1), code.group(1))


@contextlib.contextmanager
def table_server(
    workdir: Path, port: int, *, seats: int, seed: int, ready_s: float = 60.0
) -> Iterator[Served]:
    """``showdown table`` on 127.0.0.1:``port`` until the block ends (then Ctrl-C).
    BenchError, with what the server printed, if it does not start listening."""
    log_path = workdir / "server.log"
    command = [
        sys.executable,
        "-m",
        "engine",
        "table",
        "--unit",
        "sim",
        "--listen",
        f"127.0.0.1:{port}",
        "--pace",
        "0",
        "--seats",
        str(seats),
        "--seed",
        str(seed),
        "--save",
        str(workdir / "table.json"),
    ]
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)

    def said() -> str:
        lines = log_path.read_text(errors="replace").strip().splitlines()
        return " | ".join(line.strip() for line in lines if line.strip()) or "(nothing)"

    try:
        _wait_until_serving(process, port, ready_s, said, command)
        access = printed_access(log_path.read_text(errors="replace"))
        if access is None:
            raise BenchError(f"the table server printed no host URL or room code: {said()}")
        try:
            yield Served(process, *access)
        except BenchError as exc:
            raise BenchError(f"{exc}; the server said: {said()}") from None
        if process.poll() is not None:
            raise BenchError(
                f"the table server stopped during the run (exit status {process.returncode}); "
                f"it said: {said()}"
            )
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_serving(
    process: subprocess.Popen,
    port: int,
    ready_s: float,
    said: Callable[[], str],
    command: list[str],
) -> None:
    """Until the server printed its last line before it serves and takes a
    connection (to it, not another); BenchError if it stops or is too slow."""
    deadline = time.monotonic() + ready_s
    while True:  # its last line before it serves, then a connection (to it, not another)
        if process.poll() is not None:
            raise BenchError(
                f"the table server did not start (exit status {process.returncode}); "
                f"command: {' '.join(command)}; it said: {said()}"
            )
        if READY_LINE in said():
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
        if time.monotonic() > deadline:
            raise BenchError(
                f"the table server did not listen on 127.0.0.1:{port} within "
                f"{ready_s:.0f} s; it said: {said()}"
            )
        time.sleep(0.05)
