"""The bad clients of the chaos run (benchmarks/chaos.py): bursts of pipelined
pings, garbage lines and commands without ``hello``, HTTP POSTs, silent sockets
and storms of connect-and-close, each on a thread of its own, following the
daemon from restart to restart. None of them may arm or start anything; what
the unit must never send them is a :class:`Wrong`.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import socket
import threading
from collections import Counter

from benchmarks.chaos_daemon import MAX_LINE_BYTES, PLAYERS, Service
from tests.daemon_helpers import WAIT_S, malformed_line

__all__ = ["Rabble", "Wrong", "reply_id"]


class Wrong(Exception):
    """A bad client got something the unit must never send."""


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the reader finds out
        sock.sendall(data)


def _read_to_eof(sock: socket.socket) -> bytes:
    data = b""
    while chunk := _recv(sock):
        data += chunk
    return data


def _recv(sock: socket.socket) -> bytes:
    """What comes next; b"" once the daemon closed the link. A reset counts as
    a close: the daemon closes a link it stopped reading (``hello_timeout``)
    with the client's last lines unread, and the kernel then sends a reset;
    the lines it wrote before come first all the same."""
    try:
        return sock.recv(65536)
    except ConnectionResetError:
        return b""


def _is_hello_timeout(message: dict) -> bool:
    """The daemon's last line to a client that did not finish hello in time."""
    error = message.get("error")
    return (
        message.get("id") is None
        and message.get("ok") is False
        and isinstance(error, dict)
        and error.get("code") == "hello_timeout"
    )


def reply_id(line: bytes, max_line: int = MAX_LINE_BYTES):
    """The id of the unit's reply to ``line``, by docs/protocol.md: the line's
    ``id`` if it is a JSON object (UTF-8, within ``server.max_line_bytes``)
    whose id is a number or a string, else None.

    >>> reply_id(b'{"id": 7, "cmd": "fire"}'), reply_id(b'{"id": true, "cmd": "ping"}')
    (7, None)
    >>> long = b'{"id": 7, "pad": "%s"}' % (b"y" * 5000)
    >>> reply_id(b'{"id": 7, "cmd'), reply_id(b"[]"), reply_id(bytes([255])), reply_id(long)
    (None, None, None, None)
    """
    if len(line) > max_line:
        return None  # line_too_long: not read
    try:
        value = json.loads(line.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError too
        return None
    if not isinstance(value, dict):
        return None
    request_id = value.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (int, float, str)):
        return None
    return request_id


class Rabble:
    """Clients that must never command the unit, each on a thread of its own
    and following the daemon from restart to restart. ``counts``: what they
    did; ``problems``: what they got that they should not have."""

    KINDS = ("burst", "garbage", "http", "silent", "silent", "storm")

    def __init__(self, service: Service, seed: int):
        self.service = service
        self.seed = seed
        self.counts: Counter = Counter()
        self.problems: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for number, kind in enumerate(self.KINDS):
            thread = threading.Thread(
                target=self._run,
                name=f"rabble-{kind}-{number}",
                args=(kind, random.Random(f"{self.seed}-{number}")),
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(WAIT_S)

    def _count(self, key: str, amount: int = 1) -> None:
        with self._lock:
            self.counts[key] += amount

    def _run(self, kind: str, rng: random.Random) -> None:
        action = getattr(self, f"_{kind}")
        rounds = 0
        while not self._stop.is_set():
            port, generation = self.service.current()
            if port is None:
                self._stop.wait(0.05)
                continue
            rounds += 1
            try:
                action(port, generation, rng, rounds)
            except Wrong as exc:
                with self._lock:
                    self.problems.append(f"{kind}: {exc}")
            except (OSError, http.client.HTTPException, ValueError) as exc:
                if self.service.generation != generation:
                    self._count("cut_by_a_restart")
                else:
                    with self._lock:
                        self.problems.append(f"{kind}: {type(exc).__name__}: {exc}")
            self._stop.wait(rng.uniform(0.1, 0.4))

    def _connect(self, port: int) -> socket.socket:
        return socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)

    def _burst(self, port: int, generation: int, rng: random.Random, rounds: int) -> None:
        """Thousands of pings in one write; every reply must come, in order."""
        count = rng.randint(1000, 5000)
        payload = b'{"id":0,"cmd":"hello","version":1}\n' + b"".join(
            b'{"id":%d,"cmd":"ping"}\n' % n for n in range(1, count + 1)
        )
        with self._connect(port) as sock:
            sender = threading.Thread(target=_send_quietly, args=(sock, payload), daemon=True)
            sender.start()
            due, buffer = 0, b""
            while due <= count:
                data = _recv(sock)
                if not data:
                    raise ConnectionError(f"closed after {due} of {count + 1} replies")
                buffer += data
                *lines, buffer = buffer.split(b"\n")
                for number, line in enumerate(lines):
                    message = json.loads(line)
                    if "event" in message:
                        continue
                    if due == 0 and _is_hello_timeout(message):
                        # The daemon read the hello after its deadline (a loaded
                        # machine): it says so and closes, and must answer nothing.
                        after = b"".join(rest + b"\n" for rest in lines[number + 1 :]) + buffer
                        self._cut_by_hello_timeout(sock, after, "burst")
                        sender.join(WAIT_S)
                        return
                    if message.get("id") != due or not message.get("ok"):
                        raise Wrong(f"reply {message} where the reply to id {due} was due")
                    due += 1
            sender.join(WAIT_S)
        self._count("bursts")
        self._count("pings", count)

    def _cut_by_hello_timeout(self, sock: socket.socket, after: bytes, kind: str) -> None:
        """A ``hello_timeout`` line came, with ``after`` read behind it: it
        must be the last line, then the link closes."""
        after += _read_to_eof(sock)
        if after:
            raise Wrong(f"{after[:200]!r} after hello_timeout")
        self._count(f"{kind}_cut_by_hello_timeout")

    def _garbage(self, port: int, generation: int, rng: random.Random, rounds: int) -> None:
        """Malformed lines and commands without hello: one refusal each, in
        order. A round that takes longer than ``server.hello_timeout_s`` (a
        loaded machine) is cut short, as the daemon documents: after the
        refusals so far, its ``hello_timeout`` line, then the link closes."""
        lines = [malformed_line(rng, MAX_LINE_BYTES) for _ in range(rng.randint(50, 300))]
        evil = f"evil-garbage-{rounds}"
        lines += [
            json.dumps(request).encode()
            for request in (
                {"id": 1, "cmd": "showdown", "showdown_id": evil, "cards": 2, "players": PLAYERS},
                {"id": 2, "cmd": "start"},
                {"id": 3, "cmd": "bench_timer"},
                {"id": 4, "cmd": "bench_press", "side": "a"},
                {"id": 5, "cmd": "selftest"},
                {"id": 6, "cmd": "cancel"},
            )
        ]
        rng.shuffle(lines)
        with self._connect(port) as sock:
            sender = threading.Thread(
                target=_send_quietly,
                daemon=True,
                args=(sock, b"\n".join(lines) + b'\n{"id":"end","cmd":"ping"}\n'),
            )
            sender.start()
            due = [reply_id(line) for line in lines] + ["end"]
            replies, buffer = 0, b""
            while replies < len(due):
                data = _recv(sock)
                if not data:
                    raise ConnectionError(f"closed after {replies} of {len(due)} replies")
                buffer += data
                *got, buffer = buffer.split(b"\n")
                for number, line in enumerate(got):
                    if replies == len(due):
                        break  # all answered: what follows is not this round's
                    message = json.loads(line)
                    if _is_hello_timeout(message):
                        after = b"".join(rest + b"\n" for rest in got[number + 1 :]) + buffer
                        self._cut_by_hello_timeout(sock, after, "garbage")
                        sender.join(WAIT_S)
                        self._count("garbage_rounds")
                        self._count("garbage_lines", replies)
                        return
                    if message.get("id") != due[replies]:
                        raise Wrong(f"reply {message} where the reply to line {replies} was due")
                    if replies < len(lines) and message.get("ok") is not False:
                        raise Wrong(f"a line sent before hello was obeyed: {message}")
                    replies += 1
            sender.join(WAIT_S)
        self._count("garbage_rounds")
        self._count("garbage_lines", len(lines))

    def _http(self, port: int, generation: int, rng: random.Random, rounds: int) -> None:
        """A real HTTP POST with protocol lines in its body: refused at its first line."""
        body = b"".join(
            json.dumps(request).encode() + b"\n"
            for request in (
                {"id": 1, "cmd": "hello", "version": 1},
                {
                    "id": 2,
                    "cmd": "showdown",
                    "showdown_id": f"evil-http-{rounds}",
                    "cards": 2,
                    "players": PLAYERS,
                },
                {"id": 3, "cmd": "start"},
                {"id": 4, "cmd": "bench_timer"},
            )
        )
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
        try:
            connection.request("POST", "/", body=body, headers={"Content-Type": "text/plain"})
            response = connection.getresponse()
        except ConnectionRefusedError:
            raise
        except (http.client.HTTPException, ConnectionError):
            if self.service.generation != generation:
                raise ConnectionError("the daemon went away") from None
            self._count("http_refused")
        else:
            raise Wrong(f"an HTTP POST got an HTTP response: {response.status}")
        finally:
            connection.close()

    def _silent(self, port: int, generation: int, rng: random.Random, rounds: int) -> None:
        """Connect and say nothing: one hello_timeout line, then the link closes."""
        with self._connect(port) as sock:
            lines = _read_to_eof(sock).splitlines()
        if not lines:
            raise ConnectionError("closed without a word")
        codes = [json.loads(line).get("error", {}).get("code") for line in lines]
        if codes != ["hello_timeout"]:
            raise Wrong(f"a silent socket got {lines}")
        self._count("silent_closed")

    def _storm(self, port: int, generation: int, rng: random.Random, rounds: int) -> None:
        for _ in range(200):
            self._connect(port).close()
            self._count("storm_connects")
