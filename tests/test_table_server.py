"""``showdown table`` as a process: the pages are served, a phone plays through the
WebSocket, Ctrl-C stops it cleanly, and ``--resume`` brings the same seat back; the
host URL printed at start (and a new one on ``--new-host-key``, SIGUSR1 or a line
typed at its terminal), the join URL with the room code."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.async_helpers import receive_until, run_coroutine
from tests.daemon_helpers import refusing_port

websockets = pytest.importorskip("websockets")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_table(port: int, save: Path, *extra: str, stdin=None) -> subprocess.Popen:
    process = subprocess.Popen(
        [
            sys.executable,
            "-X",
            "faulthandler",  # a SIGABRT prints every thread's stack (``stop``)
            "-m",
            "engine",
            "table",
            "--unit",
            "sim",
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
        stdin=stdin,
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


def printed(process: subprocess.Popen) -> str:
    """What the table printed before it served (read while it runs, up to its last line)."""
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.startswith("Ctrl-C stops the table."):
            return "".join(lines)
    raise AssertionError(f"the table stopped: {''.join(lines)}")


def read_line(process: subprocess.Popen, start: str) -> str:
    """The next line the running table prints that starts with ``start``."""
    for line in process.stdout:
        if line.startswith(start):
            return line
    raise AssertionError(f"the table stopped before printing {start!r}")


def host_key_in(text: str) -> str:
    """The host key of the host URL in ``text`` (``host: http://...:PORT/#host=KEY``)."""
    found = re.search(r"host: +http://127\.0\.0\.1:\d+/#host=([\w-]+)", text)
    assert found, text
    return found.group(1)


def stop(process: subprocess.Popen) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    try:
        out, _ = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)  # where it waits, from faulthandler
        out, _ = process.communicate(timeout=10)
        raise AssertionError(f"the table did not stop 20 s after Ctrl-C:\n{out[-6000:]}") from None
    return process.returncode, out


async def drain(ws, wait=0.3):
    out = []
    try:
        while True:
            out.append(json.loads(await asyncio.wait_for(ws.recv(), wait)))
    except TimeoutError:
        return out


def has_view(messages) -> bool:
    return any(m["type"] == "view" for m in messages)


def last_view(messages):
    views = [m["view"] for m in messages if m["type"] == "view"]
    return views[-1] if views else None


def test_pages_a_phone_playing_a_round_refusals_and_a_clean_stop(tmp_path):
    port = free_port()
    save = tmp_path / "table.json"
    table = start_table(port, save)
    try:
        said = printed(table)
        key, code = host_key_in(said), re.search(r"room ([A-Z]{4})", said).group(1)
        assert f"phones:  http://127.0.0.1:{port}/phone?code={code}\n" in said
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
                await display.send(
                    json.dumps({"type": "hello", "role": "display", "host_key": key})
                )
                await phone.send(json.dumps({"type": "hello", "role": "phone", "secret": None}))
                await phone.send(json.dumps({"type": "join", "seat": 0, "name": "Ann"}))
                await phone.send(
                    json.dumps({"type": "join", "seat": 0, "name": "Ann", "code": code})
                )
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
        assert refused[0] == "type the room code: it is on the display"
        assert refused[1].startswith("malformed JSON")
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
        said = printed(table)
        assert host_key_in(said) == key  # the host keeps control after a restart
        assert f"The table (room {saved['code']})" in said

        async def rejoin():
            url = f"ws://127.0.0.1:{port}/ws"
            async with websockets.connect(url) as phone, websockets.connect(url) as display:
                await phone.send(json.dumps({"type": "hello", "role": "phone", "secret": secret}))
                await display.send(
                    json.dumps({"type": "hello", "role": "display", "host_key": key})
                )
                # Up to the first view each (waited for, not a quiet second).
                messages = await receive_until(phone, has_view)
                on_display = await receive_until(display, has_view)
                # the first action sent before the restart, replayed: refused
                replay = {"type": "act", "action": "draw", "id": acted[0]}
                await phone.send(json.dumps(replay))
                replayed = await receive_until(
                    phone, lambda got: any(m["type"] == "refused" for m in got)
                )
                return messages, on_display, [m for m in replayed if m["type"] == "refused"]

        messages, on_display, replayed = run_coroutine(rejoin())
        assert [m["type"] for m in replayed] == ["refused"]
        assert re.fullmatch(
            rf"action {acted[0]} (was sent already \(replayed\)|is older than [0-9]+ "
            "from its page: refused as a replay)",
            replayed[0]["message"],
        ), replayed
        assert messages[0] == {
            "type": "welcome",
            "role": "phone",
            "seat": 0,
            "secret": secret,
            "host": False,
        }
        view = last_view(messages)
        assert view["you"]["seat"] == 0 and view["seats"][0]["name"] == "Ann"
        assert [s["name"] for s in view["seats"]] == ["Ann", "bot1", "bot2"]  # its players
        assert on_display[0]["host"] is True and on_display[0]["code"] == saved["code"]
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
    assert re.fullmatch(rf"http://[\d.]+:{port}/phone\?code=[A-Z]{{4}}", phones.split()[-1])
    assert "\u2588" in out or "\u2580" in out  # the QR code's blocks


def test_a_unit_that_cannot_be_reached_stops_the_table_at_start_with_what_to_do(tmp_path):
    with refusing_port() as unit_port:  # nothing listens there
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "engine",
                "table",
                "--listen",
                f"127.0.0.1:{free_port()}",
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


async def hello_display(port: int, key: str) -> dict:
    """A display's welcome, with ``key`` in its hello."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as display:
        await display.send(json.dumps({"type": "hello", "role": "display", "host_key": key}))
        return json.loads(await asyncio.wait_for(display.recv(), 10))


def test_new_host_key_with_resume_replaces_the_saved_tables_key(tmp_path):
    port, save = free_port(), tmp_path / "table.json"
    table = start_table(port, save)
    try:
        old = host_key_in(printed(table))
        assert run_coroutine(hello_display(port, old))["host"] is True
    finally:
        stop(table)
    assert not save.exists() or json.loads(save.read_text())["host_key"] == old

    # Nothing saved yet: --resume-if-saved makes a new table, with a new key anyway.
    table = start_table(port, save, "--resume-if-saved", "--new-host-key")
    try:
        first = host_key_in(printed(table))
        assert first != old
        run_coroutine(hello_display(port, first))
    finally:
        stop(table)

    save.write_text(json.dumps({**json.loads(SAVED_LOBBY), "host_key": first}))
    table = start_table(port, save, "--resume", "--new-host-key")
    try:
        new = host_key_in(printed(table))
        assert new != first and json.loads(save.read_text())["host_key"] == new  # saved at once
        welcome = run_coroutine(hello_display(port, first))
        assert (welcome["host"], welcome["message"]) == (
            False,
            "wrong host key: this display is a spectator (host controls need the host's key: "
            "open the host URL printed where the table was started)",
        )
        assert run_coroutine(hello_display(port, new))["host"] is True
    finally:
        status, out = stop(table)
    assert status == 0, out


#: A saved lobby: Ann in seat 0 (format 1, as Room.snapshot writes it).
SAVED_LOBBY = json.dumps(
    {
        "format": 1,
        "code": "QXZW",
        "match_id": "m1",
        "variant": "showdown",
        "target": 500,
        "seats": [
            {"name": "Ann", "kind": "person", "secret": "s0", "reaction_ms": None},
            {"name": None, "kind": None, "secret": None, "reaction_ms": None},
        ],
        "notation": None,
        "showdowns": 0,
        "decisions": 0,
        "log": [],
    }
)


def test_sigusr1_gives_a_new_host_key_and_the_hosts_display_is_told(tmp_path):
    port = free_port()
    table = start_table(port, tmp_path / "t.json")
    try:
        old = host_key_in(printed(table))

        async def revoked():
            url = f"ws://127.0.0.1:{port}/ws"
            async with websockets.connect(url) as display:
                await display.send(
                    json.dumps({"type": "hello", "role": "display", "host_key": old})
                )
                assert json.loads(await display.recv())["host"] is True
                table.send_signal(signal.SIGUSR1)
                while (message := json.loads(await asyncio.wait_for(display.recv(), 10)))[
                    "type"
                ] != "welcome":
                    pass
                return message

        welcome = run_coroutine(revoked())
        assert (welcome["host"], welcome["message"]) == (
            False,
            "the host key was replaced: this display is a spectator now "
            "(open the new host URL printed where the table was started)",
        )
        line = read_line(table, "A new host key")
        new = host_key_in(line)
        assert (
            line
            == f"A new host key: the old one works no more. host: http://127.0.0.1:{port}/#host={new}\n"
        )
        assert run_coroutine(hello_display(port, new))["host"] is True
    finally:
        status, out = stop(table)
    assert status == 0, out


def test_new_host_key_typed_at_the_servers_terminal_prints_a_new_host_url(tmp_path):
    port = free_port()
    master, terminal = os.openpty()
    table = start_table(port, tmp_path / "t.json", stdin=terminal)
    os.close(terminal)
    try:
        old = host_key_in(printed(table))
        read_line(table, "Type 'new host key' here")
        os.write(master, b"what?\n")
        assert read_line(table, "Type ") == (
            "Type 'new host key' (then Enter) for a new host key; for a phone that did not"
            " answer: 'fight again', 'bot for NAME' or 'NAME loses'. Ctrl-C stops it.\n"
        )
        os.write(master, b"New Host Key\n")
        new = host_key_in(read_line(table, "A new host key"))
        assert new != old
        assert run_coroutine(hello_display(port, old))["host"] is False
        assert run_coroutine(hello_display(port, new))["host"] is True
    finally:
        status, out = stop(table)
        os.close(master)
    assert status == 0, out


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--seat-timeout", "-1"], "--seat-timeout must be from 0 to 86400 seconds, not -1"),
        (
            ["--companion", "--seat-timeout", "5"],
            "--seat-timeout is for the phones' seats; --companion has none",
        ),
    ],
)
def test_a_bad_seat_timeout_is_a_usage_error(tmp_path, extra, said):
    result = subprocess.run(
        [sys.executable, "-m", "engine", "table", "--save", str(tmp_path / "t.json"), *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.splitlines()[-1] == f"showdown table: error: {said}"
