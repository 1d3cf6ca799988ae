"""``showdown table`` as a process, killed and resumed: the simulated unit's
verdict, already on the display, is the verdict of the resumed table.

The table runs with the default ``--unit sim`` (``LiveSimulatedUnit``, the
showdown played out live at the unit's pace). Once the move that names a
showdown is saved (its view reaches the display), a folder is put where the
next save writes its temporary file, so that save fails for sure: the display
gets the unit's verdict, then the pause ("the table cannot save: ..."), and
the table is SIGKILLed there, between the verdict and any save of it. Resumed
with another seed, it fights that showdown id again: the same verdict."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.table_bench import printed_access
from tests.async_helpers import run_coroutine

websockets = pytest.importorskip("websockets")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
READY = "Ctrl-C stops the table."
#: Long enough for any step of a live showdown at the unit's pace; never waited out.
STUCK_S = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_table(port: int, save: Path, *extra: str) -> tuple[subprocess.Popen, str, str]:
    """The table, awaited on its output until it serves; its host key and room code."""
    command = [sys.executable, "-m", "engine", "table", "--unit", "sim"]
    command += ["--listen", f"127.0.0.1:{port}"]
    process = subprocess.Popen(
        [*command, "--pace", "0.05", "--save", str(save), *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.strip() == READY:  # printed just before it listens: then it takes a socket
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                        access = printed_access("".join(lines))
                        assert access is not None, lines
                        return process, *access
                except OSError:
                    time.sleep(0.05)
            break
    process.kill()
    raise AssertionError(f"the table did not start: {''.join(lines)}")


async def hello(url: str, role: str = "display", host_key: str | None = None):
    ws = await websockets.connect(url)
    await ws.send(json.dumps({"type": "hello", "role": role, "host_key": host_key}))
    return ws


async def until(ws, predicate, seen: list):
    """Read ``ws`` until a message passes ``predicate``; every message read goes to ``seen``."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), STUCK_S))
        seen.append(message)
        if predicate(message):
            return message


def is_view(predicate):
    return lambda m: m["type"] == "view" and predicate(m["view"])


def is_result(m):
    return m["type"] == "event" and m["name"] == "result"


VERDICT = ("winner", "loser", "reason", "reaction_us", "margin_us", "tie_reruns", "showdown_id")


def test_a_kill_between_the_simulated_verdict_and_its_save_resumes_with_the_same_verdict(
    tmp_path,
):
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"
    save = tmp_path / "table.json"
    blocker = tmp_path / "table.json.tmp"
    table, key, code = start_table(port, save, "--seed", "4")
    try:

        async def first_run():
            display = await hello(url, host_key=key)
            phone = await hello(url, "phone")
            await phone.send(json.dumps({"type": "join", "seat": 0, "name": "Ann", "code": code}))
            await until(phone, lambda m: m["type"] == "welcome" and m["seat"] == 0, [])
            await display.send(json.dumps({"type": "host", "cmd": "start"}))
            await display.send(json.dumps({"type": "host", "cmd": "hand_to_bot", "seat": 0}))
            seen: list = []
            # the move that names the showdown, saved: the next save is made to fail
            await until(display, is_view(lambda v: v["phase"] == "showdown"), seen)
            saved = json.loads(save.read_text())
            blocker.mkdir()
            result = await until(display, is_result, seen)
            paused = await until(display, is_view(lambda v: v["cannot_save"]), seen)
            return saved, result["data"], paused["view"]["paused"]

        saved, shown, paused = run_coroutine(first_run())
    finally:
        table.send_signal(signal.SIGKILL)
        table.communicate(timeout=20)
    assert list(saved["verdicts"]) and saved["showdowns"] == 0
    assert paused == (
        f"The game is paused: the table cannot save: a folder stands where the file goes "
        f"at {save}. What to do: move that folder away, then press Retry on the host's display."
    )
    assert json.loads(save.read_text()) == saved  # killed before the verdict was saved
    blocker.rmdir()

    # another seed: another draw
    table, key, _ = start_table(port, save, "--resume", "--seed", "9")
    try:

        async def resumed_run():
            display = await hello(url, host_key=key)
            return (await until(display, is_result, []))["data"]

        again = run_coroutine(resumed_run())
    finally:
        table.send_signal(signal.SIGINT)
        out, _ = table.communicate(timeout=20)
    assert {k: again[k] for k in VERDICT} == {k: shown[k] for k in VERDICT}
    assert "Traceback" not in out
