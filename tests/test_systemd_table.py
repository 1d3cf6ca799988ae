"""The table's service (systemd/uno-showdown-table.service) run for real, as far
as this machine allows: its ExecStart as a process (the first start with no
save file, a stop by its KillSignal, a restart that continues the match), the
unit link with its token, what makes it exit for good, the memory rule it runs
under, and systemd-analyze on the file. systemd itself does not run here (it is
not PID 1): docs/systemd.md says what was not run.

The file's contracts that need no process are in tests/test_systemd_files.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.apps.play_cmd import read_token
from engine.units import RemoteUnit, UnitProblem
from tests.async_helpers import receive_until, run_coroutine
from tests.daemon_helpers import WAIT_S, running_daemon
from tests.systemd_helpers import (
    TABLE_UNIT,
    UNIT,
    exec_command,
    parse_unit,
    setting,
    table_command,
    timespan,
)

websockets = pytest.importorskip("websockets")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

#: The exposure `systemd-analyze security --offline=yes` gave the table's unit
#: (systemd 252); lower it when the unit gets tighter, never raise it.
TABLE_EXPOSURE_TODAY = 1.2

PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def table_unit():
    return parse_unit(TABLE_UNIT.read_text())


class Paths:
    """This machine's stand-ins for the Pi's paths in the unit file."""

    def __init__(self, tmp_path: Path, unit_port: int):
        self.state = tmp_path / "var-lib-uno-showdown-table"
        # The match book's folder, as install.sh makes it (the table does not).
        self.matches = tmp_path / "var-lib-uno-showdown-matches"
        self.matches.mkdir()
        self.token = tmp_path / "token"
        self.unit_port = unit_port
        self.port = free_port()


@pytest.fixture
def unit_daemon(tmp_path):
    """The unit as the installer leaves it: a (mock) daemon asking for the
    token in a file the table may read; the Paths to give the table."""
    token = tmp_path / "token"
    token.write_text("the-unit-token\n")
    token.chmod(0o640)  # root:uno-showdown 0640 on the Pi
    (tmp_path / "unit").mkdir()
    with running_daemon(tmp_path / "unit", ["--token-file", str(token)]) as daemon:
        yield daemon, Paths(tmp_path, unit_port=daemon.port)


def service_argv(table_unit, paths: Paths) -> list[str]:
    """The unit's ExecStart, word for word, but for where things are here:
    this checkout's `showdown`, the mock unit's port, the token and state
    directory in tmp, a free port on loopback (the table's --lan output is
    still printed)."""
    _, argv = exec_command(setting(table_unit, "ExecStart"))
    _, args = table_command(table_unit)
    here = {
        args.unit: f"socket://127.0.0.1:{paths.unit_port}",
        args.token_file: str(paths.token),
        str(args.save): str(paths.state / args.save.name),
        str(args.results): str(paths.matches / args.results.name),
        "{}:{}".format(*args.listen): f"127.0.0.1:{paths.port}",
    }
    return [sys.executable, "-m", "engine", *(here.get(word, word) for word in argv[1:])]


class Table:
    """``showdown table`` as a process; a thread keeps what it prints."""

    def __init__(self, argv: list[str], port: int, preexec_fn=None):
        self.process = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            preexec_fn=preexec_fn,
        )
        self._out: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and self.process.poll() is None:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                return
            time.sleep(0.05)
        self.process.kill()
        self.process.wait()
        raise AssertionError(f"the table did not listen: {self.out}")

    def _read(self) -> None:
        for line in self.process.stdout:
            self._out.append(line)

    @property
    def out(self) -> str:
        return "".join(self._out)

    def wait_for_output(self, text: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while text not in self.out:
            assert time.monotonic() < deadline and self.process.poll() is None, self.out
            time.sleep(0.05)

    def stop(self, table_unit) -> tuple[int, str]:
        """Stop it as systemd does: KillSignal, then wait TimeoutStopSec."""
        self.process.send_signal(getattr(signal, setting(table_unit, "KillSignal")))
        try:
            self.process.wait(timespan(setting(table_unit, "TimeoutStopSec")))
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            self._reader.join(WAIT_S)
            raise AssertionError(
                f"systemd would have killed it (TimeoutStopSec):\n{self.out}"
            ) from None
        self._reader.join(WAIT_S)
        return self.process.returncode, self.out


async def drain(ws, wait=0.3):
    out = []
    try:
        while True:
            out.append(json.loads(await asyncio.wait_for(ws.recv(), wait)))
    except TimeoutError:
        return out


def host_key_and_code(printed: str) -> tuple[str, str]:
    """The host key and the room code the table printed at start (its journal on the Pi)."""
    key = re.search(r"host: +http://\S+/#host=([\w-]+)", printed)
    code = re.search(r"The table \(room ([A-Z]{4})\)", printed)
    assert key and code, printed
    return key.group(1), code.group(1)


async def sit_and_start(port: int, save: Path, printed: str) -> str:
    """A phone takes seat 0 as Ann (with the room code), then the host's display (with
    the host key printed at start) starts the match with two bots; once the match is
    saved, the phone's seat secret."""
    key, code = host_key_and_code(printed)
    url = f"ws://127.0.0.1:{port}/ws"
    async with websockets.connect(url) as display, websockets.connect(url) as phone:
        await display.send(json.dumps({"type": "hello", "role": "display", "host_key": key}))
        await phone.send(json.dumps({"type": "hello", "role": "phone", "secret": None}))
        await phone.send(json.dumps({"type": "join", "seat": 0, "name": "Ann", "code": code}))
        deadline = time.monotonic() + WAIT_S
        secret = None
        while secret is None:  # seated before the start (they are two sockets)
            assert time.monotonic() < deadline, "Ann never got a seat"
            for m in await drain(phone, 0.1):
                if m["type"] == "welcome" and m["secret"]:
                    secret = m["secret"]
        await display.send(json.dumps({"type": "host", "cmd": "start", "bots": 2}))
        while not (save.exists() and json.loads(save.read_text())["notation"]):
            assert time.monotonic() < deadline, "the match was never saved"
            refused = [m for m in await drain(display, 0.1) if m["type"] == "refused"]
            assert not refused, refused
    return secret


async def rejoin(port: int, secret: str) -> list[dict]:
    """What the phone with ``secret`` gets on reconnecting, up to its first view."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as phone:
        await phone.send(json.dumps({"type": "hello", "role": "phone", "secret": secret}))
        return await receive_until(phone, lambda got: any(m["type"] == "view" for m in got))


def test_the_first_start_makes_a_new_table_and_a_restart_continues_it(table_unit, unit_daemon):
    _, paths = unit_daemon
    argv = service_argv(table_unit, paths)
    save = paths.state / "table.json"

    table = Table(argv, paths.port)  # no save file yet: not an error
    try:
        table.wait_for_output("Ctrl-C stops the table.")
        secret = run_coroutine(sit_and_start(paths.port, save, table.out))
        saved = json.loads(save.read_text())
    finally:
        status, out = table.stop(table_unit)
    assert status == 0, out
    assert f"saved to {save} (nothing saved there yet: a new table)" in out
    assert "The table is closed." in out and "Traceback" not in out
    assert [s["name"] for s in saved["seats"]] == ["Ann", "bot1", "bot2"]
    assert stat_mode(save) == 0o600  # it holds the seats' secrets

    table = Table(argv, paths.port)  # the same command: now it continues
    try:
        messages = run_coroutine(rejoin(paths.port, secret))
    finally:
        status, out = table.stop(table_unit)
    assert status == 0, out
    assert f"saved to {save} (resumed)" in out
    assert messages[0] == {
        "type": "welcome",
        "role": "phone",
        "seat": 0,
        "secret": secret,
        "host": False,
    }
    view = [m["view"] for m in messages if m["type"] == "view"][-1]
    assert view["you"]["seat"] == 0 and view["seats"][0]["name"] == "Ann"


def test_the_table_fits_its_connections_to_the_open_file_limit_it_runs_under(
    table_unit, unit_daemon
):
    """Under the service's LimitNOFILE= the cap holds, no warning; under a limit
    that is too low and may not be raised (soft = hard, as the service's seccomp
    filter makes it), the table still starts, with fewer connections, and says so."""
    import resource

    from engine.apps.table.limits import FD_RESERVE

    _, paths = unit_daemon
    argv = service_argv(table_unit, paths)
    limit = int(setting(table_unit, "LimitNOFILE").partition(":")[0])
    low = 300

    def limited(n: int):
        return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))

    outs = []
    for n in (limit, low):
        table = Table(argv, paths.port, preexec_fn=limited(n))
        status, out = table.stop(table_unit)
        assert status == 0, out
        outs.append(out)
    assert "open-file limit" not in outs[0]
    assert (
        f"WARNING engine.apps.table.limits: the open-file limit is {low} (ulimit -n; the hard "
        f"limit {low}): the table takes at most {low - FD_RESERVE} connections at once, not "
        "512; raise it (ulimit -n, LimitNOFILE= in the service) or lower --max-connections"
    ) in outs[1].splitlines()


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_kill_signal_stops_a_table_with_a_phone_connected_in_time(table_unit, unit_daemon):
    _, paths = unit_daemon
    table = Table(service_argv(table_unit, paths), paths.port)

    async def phone_stays():
        async with websockets.connect(f"ws://127.0.0.1:{paths.port}/ws") as phone:
            await phone.send(json.dumps({"type": "hello", "role": "phone", "secret": None}))
            await receive_until(phone, lambda got: any(m["type"] == "welcome" for m in got))
            status, out = await asyncio.to_thread(table.stop, table_unit)
            with contextlib.suppress(websockets.ConnectionClosed):
                await drain(phone, 0.5)
            return status, out

    status, out = run_coroutine(phone_stays())
    assert status == 0, out
    assert "The table is closed." in out


def test_the_service_s_unit_address_and_token_open_the_unit_link(table_unit, unit_daemon):
    """What `showdown table` does with --unit and --token-file (read_token, then
    RemoteUnit), against the daemon that asks for the token."""
    daemon, paths = unit_daemon
    _, args = table_command(table_unit)
    url = args.unit.replace(":7700", f":{daemon.port}")
    assert url != args.unit
    unit = RemoteUnit(url, token=read_token(paths.token))
    try:
        unit.open()
    finally:
        unit.close()
    wrong = RemoteUnit(url, token="not-the-token", reconnect_s=0.5)
    with pytest.raises(UnitProblem):
        try:
            wrong.open()
        finally:
            wrong.close()


def test_what_a_restart_cannot_fix_exits_2_and_systemd_leaves_it(table_unit, tmp_path):
    prevent = setting(table_unit, "RestartPreventExitStatus").split()
    paths = Paths(tmp_path, unit_port=free_port())
    argv = service_argv(table_unit, paths)
    # No token file (the installer not run, or the file removed).
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=WAIT_S)
    assert str(done.returncode) in prevent
    assert done.stderr.splitlines()[-1] == (f"showdown table: error: {paths.token}: no such file")
    # A save file that is not a saved table: kept for a person to look at,
    # never overwritten by a new match.
    paths.token.write_text("a-token\n")
    paths.state.mkdir()
    (paths.state / "table.json").write_text("{not json")
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=WAIT_S)
    assert str(done.returncode) in prevent
    assert re.fullmatch(
        rf"showdown table: error: --resume-if-saved: {re.escape(str(paths.state))}/table\.json: .+",
        done.stderr.splitlines()[-1],
    )
    assert (paths.state / "table.json").read_text() == "{not json"


def set_mdwe() -> None:  # in the child, before exec; kept across exec
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_MDWE)")


def test_the_table_runs_with_no_writable_executable_memory(table_unit, unit_daemon):
    """MemoryDenyWriteExecute=yes, approximated by the kernel's PR_SET_MDWE
    (Linux 6.3+): the table serves its pages, QR code and WebSocket, and a
    phone plays, with no memory that is both writable and executable."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_MDWE + 1, 0, 0, 0, 0) < 0:  # PR_GET_MDWE
        pytest.skip("this kernel has no PR_SET_MDWE (Linux 6.3+)")
    _, paths = unit_daemon
    table = Table(service_argv(table_unit, paths), paths.port, preexec_fn=set_mdwe)
    try:
        import urllib.request

        for path in ("/", "/phone", "/qr.svg"):
            with urllib.request.urlopen(f"http://127.0.0.1:{paths.port}{path}", timeout=5) as r:
                assert r.status == 200
        table.wait_for_output("Ctrl-C stops the table.")
        assert run_coroutine(sit_and_start(paths.port, paths.state / "table.json", table.out))
    finally:
        status, out = table.stop(table_unit)
    assert status == 0, out
    assert "Traceback" not in out


def test_systemd_analyze_rates_the_table_no_more_exposed_than_today():
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze here (test_systemd_files.py's list still holds the line)")
    done = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--no-pager", str(TABLE_UNIT)],
        capture_output=True,
        text=True,
    )
    found = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", done.stdout)
    assert found, done.stdout + done.stderr
    exposed = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("✗")]
    assert float(found[1]) <= TABLE_EXPOSURE_TODAY, f"exposure {found[1]}; open: {exposed}"


def test_systemd_analyze_verify_finds_nothing_wrong_in_either_unit(tmp_path):
    """verify needs the Exec programs to exist: stubs under a private /opt, bind-
    mounted in a mount namespace of this test's own (the real /opt untouched)."""
    if shutil.which("systemd-analyze") is None or shutil.which("unshare") is None:
        pytest.skip("needs systemd-analyze and unshare")
    if os.geteuid() != 0:
        pytest.skip("needs root for a private mount namespace (unshare -m)")
    opt = tmp_path / "opt"
    programs = [
        exec_command(setting(parse_unit(path.read_text()), key))[1][0]
        for path, key in ((TABLE_UNIT, "ExecStart"), (UNIT, "ExecStart"), (UNIT, "ExecStopPost"))
    ]
    for program in programs:
        stub = opt / Path(program).relative_to("/opt")
        stub.parent.mkdir(parents=True, exist_ok=True)
        stub.write_text("#!/bin/sh\nexit 0\n")
        stub.chmod(0o755)
    script = f"mount --bind {opt} /opt && systemd-analyze verify {TABLE_UNIT} {UNIT}"
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)
    if done.returncode != 0 and "unshare" in done.stderr:
        pytest.skip(f"no private mount namespace here: {done.stderr.strip()}")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
