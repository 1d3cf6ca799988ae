"""A real ``showdown-unit run`` daemon in a subprocess, and a small blocking
JSON-lines client to talk to it. Used by the daemon tests and the engine's
integration tests.

    with running_daemon(tmp_path) as daemon:
        client = Client.tcp(daemon.port)
        client.request("hello", version=1)
        ...
        client.wait_for_event("result")

The daemon gets a short countdown and hold (``FAST_CONFIG``), mock pins, its
own journal in ``tmp_path`` and a free port (``--listen 127.0.0.1:0``; the port
comes from its ``READY=1`` status). Start-up is awaited on a real sd_notify
socket (``NOTIFY_SOCKET``), never by sleeping. Its log (``-v``) goes to
``daemon.log_path``. Every wait has a generous overall timeout (``WAIT_S``),
a safety net for a hung daemon, not a timing assertion.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

__all__ = [
    "FAST_CONFIG",
    "WAIT_S",
    "running_daemon",
    "Daemon",
    "NotifyListener",
    "Client",
    "malformed_line",
    "refusing_port",
    "LinkClosed",
    "PLAYERS",
]

WAIT_S = 20.0
PLAYERS = {"a": "Ann", "b": "Bob"}

#: Timing short enough that a showdown takes well under a second.
FAST_CONFIG = """\
[timing]
countdown_step_s = 0.05
flash_period_s = 0.025
beep_s = 0.01
go_tone_s = 0.02
hold_min_s = 0.05
hold_max_s = 0.1
response_timeout_s = 2.0
paddle_warning_s = 0.1

[launcher]
spin_up_s = 0.02
per_card_s = 0.01
"""

ROOT = Path(__file__).resolve().parent.parent


class LinkClosed(ConnectionError):
    """The daemon closed the link (or it broke)."""


class NotifyListener:
    """A Unix datagram socket set as the daemon's ``NOTIFY_SOCKET``; a thread
    reads it all the time (the kernel queues only a few datagrams, and the
    daemon drops what does not fit) and keeps every message, as ``{key:
    value}`` dicts, in arrival order."""

    def __init__(self, path: Path):
        self.path = str(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.messages: list[dict[str, str]] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, name="notify-listener", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = self.sock.recv(65536).decode()
            except OSError:
                return  # closed
            if not data:
                return
            message = dict(line.split("=", 1) for line in data.splitlines() if "=" in line)
            with self._changed:
                self.messages.append(message)
                self._changed.notify_all()

    def wait_for(self, predicate, timeout: float = WAIT_S, *, process=None) -> dict[str, str]:
        """The first message (seen before or arriving now) for which
        ``predicate(message)`` is true. With ``process``, give up as soon as
        it has exited."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._changed:
            while True:
                for message in self.messages[seen:]:
                    if predicate(message):
                        return message
                seen = len(self.messages)
                left = deadline - time.monotonic()
                if left <= 0 or (process is not None and process.poll() is not None):
                    raise TimeoutError(f"no such sd_notify message; got {self.messages}")
                # Look at the process now and then, not only at the deadline.
                self._changed.wait(min(left, 0.1))

    def count(self, key: str, value: str | None = None) -> int:
        with self._changed:
            return sum(key in m and (value is None or m[key] == value) for m in self.messages)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # the reader's recv returns b""
        self._reader.join(WAIT_S)
        self.sock.close()


class Daemon:
    """A running daemon: ``process``, ``port`` (None without TCP),
    ``journal_path``, ``config_path``, ``log_path``, ``notify``."""

    def __init__(self, process, *, port, journal_path, config_path, log_path, notify):
        self.process = process
        self.port = port
        self.journal_path = journal_path
        self.config_path = config_path
        self.log_path = log_path
        self.notify = notify

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, text: str, timeout: float = WAIT_S, count: int = 1) -> str:
        """Wait until ``text`` is in the log ``count`` times (polled every 20
        ms: a log file has no notification; only for what nothing else shows)."""
        deadline = time.monotonic() + timeout
        while (log := self.log_text()).count(text) < count:
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise AssertionError(f"{text!r} never appeared in the log:\n{log}")
            time.sleep(0.02)
        return log

    def send_signal(self, signum: int) -> None:
        self.process.send_signal(signum)

    def stop(self, signum: int = signal.SIGTERM, timeout: float = WAIT_S) -> int:
        """Send ``signum`` and wait for the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.process.wait(timeout)


@contextlib.contextmanager
def running_daemon(
    tmp_path,
    extra_args=(),
    config_text: str = FAST_CONFIG,
    *,
    listen: str | None = "127.0.0.1:0",
    env: dict | None = None,
    wait_ready: bool = True,
):
    """Start ``python -m firmware_host -v run --mock`` with ``config_text``
    and ``extra_args``; yield a :class:`Daemon` once it sent ``READY=1``.
    On the way out it is stopped (SIGTERM, then SIGKILL) if still running.
    ``listen=None`` leaves TCP off."""
    tmp_path = Path(tmp_path)
    config_path = tmp_path / "unit.toml"
    config_path.write_text(config_text)
    journal_path = tmp_path / "results.sqlite3"
    args = [
        sys.executable,
        "-m",
        "firmware_host",
        "-v",
        "run",
        "--mock",
        "--config",
        str(config_path),
        "--journal",
        str(journal_path),
    ]
    args += ["--listen", listen if listen is not None else ""]
    args += list(extra_args)
    with supervised(
        args, tmp_path, config_path=config_path, journal_path=journal_path, env=env,
        wait_ready=wait_ready,
    ) as daemon:  # fmt: skip
        yield daemon


@contextlib.contextmanager
def supervised(
    args,
    tmp_path: Path,
    *,
    config_path: Path,
    journal_path: Path,
    env: dict | None = None,
    unset=(),
    wait_ready: bool = True,
    ready_s: float = WAIT_S,
    daemon_class=Daemon,
):
    """Run ``args`` as systemd runs the daemon (its NOTIFY_SOCKET ours, its
    output in ``tmp_path``/daemon.log) and yield a ``daemon_class`` once it sent
    READY=1, with ``port`` read from its STATUS; on the way out SIGTERM, then
    SIGKILL if it is still running. ``unset`` names variables not to pass on."""
    log_path = Path(tmp_path) / "daemon.log"
    notify = NotifyListener(Path(tmp_path) / "notify.sock")
    child_env = {**os.environ, "NOTIFY_SOCKET": notify.path, "PYTHONUNBUFFERED": "1", **(env or {})}
    for name in ("WATCHDOG_PID", *unset):
        child_env.pop(name, None)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            args,
            cwd=ROOT,
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    daemon = daemon_class(
        process,
        port=None,
        journal_path=journal_path,
        config_path=config_path,
        log_path=log_path,
        notify=notify,
    )
    try:
        if wait_ready:
            try:
                ready = notify.wait_for(lambda m: m.get("READY") == "1", ready_s, process=process)
            except TimeoutError:
                raise AssertionError(f"the daemon never got ready:\n{daemon.log_text()}") from None
            found = re.search(r"tcp [^ ;,]+:(\d+)", ready.get("STATUS", ""))
            daemon.port = int(found.group(1)) if found else None
        yield daemon
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(WAIT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        notify.close()


class Client:
    """A blocking JSON-lines client. Replies are matched by id; events that
    arrive meanwhile are kept in :attr:`events` (and :attr:`unread_events`
    for :meth:`wait_for_event`). Lines that are not JSON are kept raw in
    :attr:`other`."""

    def __init__(self, send, receive, close):
        self._send, self._receive, self._close = send, receive, close
        self._buffer = b""
        self._next_id = 1
        self.events: list[dict] = []
        self.unread_events: list[dict] = []
        self.replies: dict = {}
        #: The socket of a TCP client (tests shut it down half-way); None otherwise.
        self.sock: socket.socket | None = None
        self.other: list[bytes] = []

    @classmethod
    def tcp(cls, port: int, host: str = "127.0.0.1", timeout: float = WAIT_S) -> Client:
        sock = socket.create_connection((host, port), timeout=timeout)

        def receive(wait):
            sock.settimeout(wait)
            try:
                data = sock.recv(65536)
            except TimeoutError:
                return None
            except ConnectionResetError:
                return b""
            return data

        client = cls(sock.sendall, receive, sock.close)
        client.sock = sock
        return client

    @classmethod
    def fd(cls, fd: int) -> Client:
        """Over a file descriptor (the master end of a pty)."""

        def send(data):
            view = memoryview(data)
            while view:
                select.select([], [fd], [], WAIT_S)
                view = view[os.write(fd, view) :]

        def receive(wait):
            if not select.select([fd], [], [], wait)[0]:
                return None
            try:
                return os.read(fd, 65536)
            except OSError:
                return b""

        return cls(send, receive, lambda: None)

    # -- sending ---------------------------------------------------------------------

    def send_line(self, line: bytes) -> None:
        self._send(line if line.endswith(b"\n") else line + b"\n")

    def send(self, cmd: str, **args) -> int:
        """Send a request; returns its id."""
        request_id = self._next_id
        self._next_id += 1
        self.send_line(json.dumps({"id": request_id, "cmd": cmd, **args}).encode())
        return request_id

    def request(self, cmd: str, timeout: float = WAIT_S, **args) -> dict:
        """Send a request and return its reply (ok or not)."""
        return self.reply(self.send(cmd, **args), timeout)

    def hello(self) -> dict:
        reply = self.request("hello", version=1)
        assert reply["ok"], reply
        return reply

    # -- receiving ------------------------------------------------------------------------

    def reply(self, request_id, timeout: float = WAIT_S) -> dict:
        """Wait for the reply to ``request_id``."""
        deadline = time.monotonic() + timeout
        while request_id not in self.replies:
            self._read(deadline)
        return self.replies.pop(request_id)

    def wait_for_event(self, name: str, timeout: float = WAIT_S, **match) -> dict:
        """The next unread event called ``name`` (with the ``match`` fields);
        the unread events before it are passed over."""
        deadline = time.monotonic() + timeout
        while True:
            for index, event in enumerate(self.unread_events):
                if event["event"] == name and all(event.get(k) == v for k, v in match.items()):
                    del self.unread_events[: index + 1]
                    return event
            self._read(deadline)

    def wait_for_event_of(self, names, timeout: float = WAIT_S) -> dict:
        """The next unread event whose name is one of ``names``."""
        deadline = time.monotonic() + timeout
        while True:
            for index, event in enumerate(self.unread_events):
                if event["event"] in names:
                    del self.unread_events[: index + 1]
                    return event
            self._read(deadline)

    def read_message(self, timeout: float = WAIT_S) -> dict:
        """The next line, parsed (whatever it is); also filed as usual."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            self._fill(deadline)
        line, self._buffer = self._buffer.split(b"\n", 1)
        message = json.loads(line)
        self._file(message)
        return message

    def _read(self, deadline: float) -> None:
        while b"\n" not in self._buffer:
            self._fill(deadline)
        lines = self._buffer.split(b"\n")
        self._buffer = lines.pop()
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                self.other.append(line)
                continue
            self._file(message)

    def _fill(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(
                f"nothing more from the daemon; events so far: {[e['event'] for e in self.events]}"
            )
        data = self._receive(left)
        if data is None:
            return
        if not data:
            raise LinkClosed("the daemon closed the link")
        self._buffer += data

    def _file(self, message: dict) -> None:
        if "event" in message:
            self.events.append(message)
            self.unread_events.append(message)
        else:
            self.replies[message.get("id")] = message

    def close(self) -> None:
        self._close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def malformed_line(rng: random.Random, max_line: int) -> bytes:
    """One line the unit must refuse with exactly one error reply."""
    kind = rng.randrange(8)
    if kind == 0:  # garbage bytes, not blank, no newline
        body = bytes(
            rng.choice([b for b in range(256) if b != 10]) for _ in range(rng.randint(1, 80))
        )
        return b"\xff" + body.rstrip(b"\r")
    if kind == 1:  # broken JSON
        text = json.dumps({"id": rng.randint(1, 10**6), "cmd": "status"})
        return text[: rng.randint(1, len(text) - 1)].encode()
    if kind == 2:  # unknown command
        return json.dumps(
            {
                "id": rng.randint(1, 10**6),
                "cmd": rng.choice(["launch", "fire", "reset_all", "", "PING"]),
            }
        ).encode()
    if kind == 3:  # bad arguments
        return json.dumps(
            rng.choice(
                [
                    {
                        "id": 1,
                        "cmd": "showdown",
                        "showdown_id": "x",
                        "cards": "two",
                        "players": PLAYERS,
                    },
                    {
                        "id": 2,
                        "cmd": "showdown",
                        "showdown_id": "bad id!",
                        "cards": 2,
                        "players": PLAYERS,
                    },
                    {"id": 3, "cmd": "bench_press", "side": "c", "offset_ms": 10},
                    {"id": 4, "cmd": "bench_press", "side": "a", "hold": "yes"},
                    {"id": 5, "cmd": "history", "limit": 0},
                    {"id": 6, "cmd": "result"},
                    {"id": 7, "cmd": "ping", "extra": True},
                    {"id": 8, "cmd": "bench_release", "side": "a", "offset_ms": 1, "at_tick": 2},
                ]
            )
        ).encode()
    if kind == 4:  # over the line limit
        return (
            b'{"id": 1, "cmd": "ping", "pad": "' + b"x" * (max_line + rng.randint(0, 3000)) + b'"}'
        )
    if kind == 5:  # JSON, but not a request object
        return rng.choice(
            [
                b"[]",
                b'"status"',
                b"null",
                b"42",
                b'{"cmd": "ping"}',
                b'{"id": true, "cmd": "ping"}',
                b'{"id": 1, "cmd": 5}',
            ]
        )
    if kind == 6:  # not UTF-8
        return b'{"id": 1, "cmd": "\xc3\x28"}'
    return b'{"id": 1, "cmd": "hello", "version": 0}'  # no common version


@contextlib.contextmanager
def refusing_port():
    """A loopback port where nothing listens, for as long as the block runs:
    a socket bound to it but not listening, so a connection there is refused
    (ECONNREFUSED), and no other process (a test suite beside this one) can
    take the port meanwhile, as it could one that was bound and closed again.
    Yields the port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]
