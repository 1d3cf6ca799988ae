"""``showdown table`` as a process: the pages are served, a phone plays through the
WebSocket, Ctrl-C stops it cleanly, and ``--resume`` brings the same seat back."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.async_helpers import run_coroutine

websockets = pytest.importorskip("websockets")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_table(port: int, save: Path, *extra: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine",
            "table",
            "--listen",
            f"127.0.0.1:{port}",
            "--pace",
            "0",
            "--seed",
            "5",
            "--save",
            str(save),
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise AssertionError(f"the table did not listen: {process.communicate()[0]}")


def stop(process: subprocess.Popen) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=20)
    return process.returncode, out


async def drain(ws, wait=0.3):
    out = []
    try:
        while True:
            out.append(json.loads(await asyncio.wait_for(ws.recv(), wait)))
    except TimeoutError:
        return out


def last_view(messages):
    views = [m["view"] for m in messages if m["type"] == "view"]
    return views[-1] if views else None


def test_pages_a_phone_playing_a_round_refusals_and_a_clean_stop(tmp_path):
    port = free_port()
    save = tmp_path / "table.json"
    table = start_table(port, save)
    try:
        base = f"http://127.0.0.1:{port}"
        for path, kind in (
            ("/", "text/html"),
            ("/phone", "text/html"),
            ("/join", "text/html"),
            ("/qr.svg", "image/svg+xml"),
        ):
            with urllib.request.urlopen(base + path, timeout=5) as reply:
                assert reply.status == 200 and reply.headers["content-type"].startswith(kind)

        async def play():
            url = f"ws://127.0.0.1:{port}/ws"
            async with websockets.connect(url) as display, websockets.connect(url) as phone:
                await display.send(json.dumps({"type": "hello", "role": "display"}))
                await phone.send(json.dumps({"type": "hello", "role": "phone", "secret": None}))
                await phone.send(json.dumps({"type": "join", "seat": 0, "name": "Ann"}))
                await phone.send("{bad")
                # Two sockets keep no order between them: start once Ann sits.
                seen = []
                while not any(m["type"] == "welcome" and m["seat"] == 0 for m in seen):
                    seen += await drain(phone)
                secret = next(m["secret"] for m in seen if m["type"] == "welcome" and m["secret"])
                await display.send(json.dumps({"type": "host", "cmd": "start", "bots": 2}))
                for i in range(300):
                    messages = await drain(phone)
                    seen += messages
                    view = last_view(messages)
                    if view is None:
                        continue
                    if view["phase"] == "over" or (view["round"] or 1) > 1:
                        break
                    if view["you"]["legal"]:
                        action = view["you"]["legal"][0]["action"]
                        await phone.send(json.dumps({"type": "act", "action": action, "id": i}))
                        await phone.send(json.dumps({"type": "act", "action": action, "id": i}))
                        acted.append(i)
                to_display = await drain(display)
                return seen, to_display, secret

        acted: list[int] = []
        seen, to_display, secret = run_coroutine(play())
        refused = [m["message"] for m in seen if m["type"] == "refused"]
        assert refused[0].startswith("malformed JSON")
        assert any(r.endswith("(replayed)") for r in refused), (refused, last_view(seen))
        assert secret
        assert all(m["view"]["you"] is None for m in to_display if m["type"] == "view")
        saved = json.loads(save.read_text())
        assert [s["name"] for s in saved["seats"]] == ["Ann", "bot1", "bot2"]
    finally:
        status, out = stop(table)
    assert status == 0, out
    assert "The table is closed." in out and "Traceback" not in out

    # Restarted with --resume (another seed): the same match and room code, and the
    # phone's secret gets its seat back.
    table = start_table(port, save, "--resume", "--seed", "6")
    try:

        async def rejoin():
            url = f"ws://127.0.0.1:{port}/ws"
            async with websockets.connect(url) as phone, websockets.connect(url) as display:
                await phone.send(json.dumps({"type": "hello", "role": "phone", "secret": secret}))
                await display.send(json.dumps({"type": "hello", "role": "display"}))
                messages, on_display = await drain(phone, 1.0), await drain(display, 1.0)
                # the first action sent before the restart, replayed: refused
                replay = {"type": "act", "action": "draw", "id": acted[0]}
                await phone.send(json.dumps(replay))
                return messages, on_display, await drain(phone, 1.0)

        messages, on_display, replayed = run_coroutine(rejoin())
        assert [m["type"] for m in replayed] == ["refused"]
        assert re.fullmatch(
            rf"action {acted[0]} (was sent already \(replayed\)|is older than [0-9]+ "
            "from its page: refused as a replay)",
            replayed[0]["message"],
        ), replayed
        assert messages[0] == {"type": "welcome", "role": "phone", "seat": 0, "secret": secret}
        view = last_view(messages)
        assert view["you"]["seat"] == 0 and view["seats"][0]["name"] == "Ann"
        assert view["code"] == saved["code"]
        # the saved log goes on (newest first); a phone is sent only its newest lines
        assert last_view(on_display)["log"][-len(saved["log"]) :] == saved["log"]
        assert 0 < len(view["log"]) <= 5
    finally:
        status, out = stop(table)
    assert status == 0, out


def test_lan_prints_the_join_url_by_address_and_a_qr_code(tmp_path):
    port = free_port()
    table = start_table(port, tmp_path / "t.json", "--lan")
    status, out = stop(table)
    assert status == 0
    phones = next(line for line in out.splitlines() if "phones:" in line)
    assert phones.split()[-1].startswith("http://") and ".local" not in phones
    assert phones.split()[-1].endswith(f":{port}/phone")
    assert "\u2588" in out or "\u2580" in out  # the QR code's blocks


def test_a_unit_that_cannot_be_reached_stops_the_table_at_start_with_what_to_do(tmp_path):
    port, unit_port = free_port(), free_port()  # nothing listens at unit_port
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "table",
            "--listen",
            f"127.0.0.1:{port}",
            "--unit",
            f"socket://127.0.0.1:{unit_port}",
            "--save",
            str(tmp_path / "t.json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"error: cannot reach the unit at socket://127.0.0.1:{unit_port}: connection refused: "
        f"nothing listens at 127.0.0.1:{unit_port}. What to do: Check that the unit is switched "
        "on and its daemon is running (showdown-unit run), and that it listens on that address "
        "and port (server.listen in its config), then retry."
    )
    assert "display:" not in result.stdout  # it never served


def test_a_unit_that_answers_lets_the_table_start(tmp_path):
    from tests.daemon_helpers import running_daemon

    port = free_port()
    with running_daemon(tmp_path) as daemon:
        table = start_table(
            port, tmp_path / "t.json", "--unit", f"socket://127.0.0.1:{daemon.port}"
        )
        status, out = stop(table)
    assert status == 0, out
    assert "display:" in out and "The table is closed." in out
