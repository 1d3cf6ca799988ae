"""The chaos probe's attackers (``benchmarks/table_chaos.py``): what a device on
the Wi-Fi can send the table, at the socket level.

- :func:`run_slowloris`: half-open HTTP requests from one address, held open
  (a header line now and then, never the blank line that ends a request), each
  one the server closes opened again; run in a process of its own
  (``table_chaos.py --slowloris PORT``) so that it costs the probe's display
  nothing.
- :func:`upgrade_status`: a WebSocket handshake with the ``Host`` and ``Origin``
  one chooses, and the status line's code the table answers it with.
- :func:`get_status`: ``GET /`` on a new connection, as a phone arriving would.
- :data:`FORGED_FRAMES`: the frames no page sends (binary, too big, nested too
  deeply, not UTF-8, not JSON, not an object, an unknown type) and how the
  table must answer each.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import selectors
import socket
import time
from dataclasses import dataclass

from benchmarks.table_flood import masked_text_frame

__all__ = ["run_slowloris", "upgrade_status", "get_status", "Forged", "FORGED_FRAMES"]

#: The slowloris device's address (the probe's pages come from 127.0.0.x).
SLOWLORIS_ADDRESS = "127.0.9.9"
#: New connections the slowloris device opens a second at most (a phone's radio
#: opens thousands; a cap keeps the probe from measuring its own storm).
OPEN_PER_S = 400.0
#: How often each held request sends one more header line.
DRIBBLE_S = 2.0


def run_slowloris(port: int, sockets: int, seconds: float) -> dict[str, int]:
    """Hold ``sockets`` half-open requests to 127.0.0.1:``port`` for ``seconds``:
    the counts (opened, closed by the server, the most held at once)."""
    selector = selectors.DefaultSelector()
    held: dict[socket.socket, float] = {}
    counts = {"opened": 0, "closed_by_server": 0, "most_held": 0, "refused": 0}
    end = time.monotonic() + seconds
    budget, last = 0.0, time.monotonic()
    while (now := time.monotonic()) < end:
        budget = min(OPEN_PER_S, budget + (now - last) * OPEN_PER_S)
        last = now
        while len(held) < sockets and budget >= 1:
            budget -= 1
            sock = _half_open(port, counts)
            if sock is not None:
                held[sock] = now
                selector.register(sock, selectors.EVENT_READ)
        counts["most_held"] = max(counts["most_held"], len(held))
        for key, _ in selector.select(timeout=0.05):
            ready = key.fileobj
            assert isinstance(ready, socket.socket)
            with contextlib.suppress(OSError):
                if ready.recv(4096):
                    continue  # an answer (a 408, a 400): the close follows
            counts["closed_by_server"] += 1
            selector.unregister(ready)
            held.pop(ready, None)
            ready.close()
        for sock, since in list(held.items()):
            if now - since >= DRIBBLE_S:
                held[sock] = now
                with contextlib.suppress(OSError):
                    sock.send(b"X-Slow: 1\r\n")
    for sock in held:
        sock.close()
    return counts


def _half_open(port: int, counts: dict[str, int]) -> socket.socket | None:
    sock = socket.socket()
    try:
        sock.bind((SLOWLORIS_ADDRESS, 0))
        sock.settimeout(1.0)
        sock.connect(("127.0.0.1", port))
        sock.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        sock.setblocking(False)
    except OSError:
        counts["refused"] += 1
        sock.close()
        return None
    counts["opened"] += 1
    return sock


def upgrade_status(port: int, host: str, origin: str | None, address: str) -> int:
    """The status code of a WebSocket handshake to ``/ws`` with ``Host: host``
    (and ``Origin: origin``), sent from ``address``; 0: no answer."""
    request = (
        f"GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    )
    if origin is not None:
        request += f"Origin: {origin}\r\n"
    with socket.create_connection(("127.0.0.1", port), 10, (address, 0)) as sock:
        sock.sendall((request + "\r\n").encode())
        answer = sock.recv(4096).split(b" ", 2)
    return int(answer[1]) if len(answer) > 1 and answer[1].isdigit() else 0


def get_status(port: int, address: str, host: str | None = None) -> int:
    """``GET /`` on a new connection from ``address``: the status (0: none in 10 s)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, 10, (address, 0))
    try:
        headers = {} if host is None else {"Host": host}
        connection.request("GET", "/", headers=headers)
        reply = connection.getresponse()
        reply.read()
        return reply.status
    except (OSError, http.client.HTTPException):
        return 0
    finally:
        connection.close()


@dataclass(frozen=True)
class Forged:
    """A frame no page sends: its kind, what is sent (text, bytes, or raw frame
    bytes written to the socket as they are), and what the table must answer:
    a ``refused`` whose message holds ``refusal``, or a close with ``close_code``."""

    kind: str
    payload: str | bytes
    refusal: str = ""
    close_code: int | None = None
    raw: bool = False


FORGED_FRAMES = (
    Forged("binary frame", b"\x00\x01\x02", refusal="not binary"),
    Forged("frame over 4 KiB", json.dumps({"type": "ping", "id": "x" * 5000}), "at most 4096"),
    Forged("frame over 16 KiB", "x" * 20000, close_code=1009),
    Forged("nested JSON", "[" * 1500 + "]" * 1500, refusal="nested too deeply"),
    Forged("malformed JSON", '{"type": "ping", ', refusal="malformed JSON"),
    Forged("JSON not an object", "[1, 2, 3]", refusal="a JSON object"),
    Forged("unknown type", json.dumps({"type": "steal", "id": 1}), "unknown message type"),
    Forged("invalid UTF-8", masked_text_frame(b'{"a": "\xff\xfe"}'), close_code=1007, raw=True),
)
