"""Protocol decoder throughput, in lines per second.

    .venv/bin/python benchmarks/protocol_bench.py [--lines N] [--repeat R]

Each case feeds N lines to a fresh, ready ServerConnection (or ClientConnection)
in chunks of a given size and times it with perf_counter; the figure is the
median of R runs. Malformed lines are timed including the error reply's
encoding, since a server sends one per bad line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_host.protocol import (
    ClientConnection,
    EventSequencer,
    ProtocolError,
    ServerConnection,
    encode,
)

VALID = [
    b'{"id": 1, "cmd": "ping"}',
    b'{"id": 2, "cmd": "status"}',
    b'{"id": 3, "cmd": "showdown", "showdown_id": "game17-turn42", "cards": 4, '
    b'"players": {"a": "Ann", "b": "Bob"}}',
    b'{"id": 4, "cmd": "bench_press", "side": "a", "offset_ms": 215.5}',
    b'{"id": 5, "cmd": "history", "limit": 20, "player": "Ann"}',
]
MALFORMED = [
    b"hello there",  # bad_json
    b'{"id": 1, "cmd": "ping"',  # bad_json (cut off)
    b'{"id": "\xff\xfe", "cmd": "ping"}',  # invalid UTF-8
    b"[1, 2, 3]",  # not an object
    b'{"id": 7, "cmd": "showdown", "showdown_id": "a b", "cards": 2, '
    b'"players": {"a": "Ann", "b": "Bob"}}',  # bad argument
    b'{"id": 8, "cmd": "launch"}',  # unknown command
]


def stream(lines: list[bytes], count: int) -> bytes:
    return b"".join(lines[i % len(lines)] + b"\n" for i in range(count))


def ready_server(limit: int = 4096) -> ServerConnection:
    server = ServerConnection(max_line_bytes=limit)
    server.receive_data(b'{"id": 0, "cmd": "hello", "version": 1}\n')
    return server


def run_server(data: bytes, chunk: int, limit: int = 4096) -> int:
    server = ready_server(limit)
    items = 0
    for start in range(0, len(data), chunk):
        for item in server.receive_data(data[start : start + chunk]):
            if isinstance(item, ProtocolError):
                server.send(item.to_reply())
            items += 1
    return items


def run_client(data: bytes, chunk: int) -> int:
    client = ClientConnection()
    items = 0
    for start in range(0, len(data), chunk):
        items += len(client.receive_data(data[start : start + chunk]))
    return items


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    n = args.lines

    valid, bad = stream(VALID, n), stream(MALFORMED, n)
    too_long = stream([b"x" * 5000], n // 10)
    events = EventSequencer()
    replies = b"".join(
        encode(events.event("countdown", showdown_id="game17-turn42", step=i % 3, steps=3, rerun=0))
        for i in range(n)
    )
    cases = [
        ("server, valid requests, 4096-byte chunks", n, lambda: run_server(valid, 4096)),
        ("server, valid requests, 64-byte chunks", n, lambda: run_server(valid, 64)),
        (
            "server, malformed lines + error replies, 4096-byte chunks",
            n,
            lambda: run_server(bad, 4096),
        ),
        (
            "server, 5000-byte lines over a 4096 limit, 4096-byte chunks",
            n // 10,
            lambda: run_server(too_long, 4096),
        ),
        ("client, events, 4096-byte chunks", n, lambda: run_client(replies, 4096)),
        (
            "encode one event",
            n,
            lambda: [encode(events.event("go", showdown_id="g", ticks=1.5)) for _ in range(n)],
        ),
    ]
    assert run_server(valid, 4096) == n and run_server(bad, 4096) == n
    print(f"python {sys.version.split()[0]}, {n} lines per case, median of {args.repeat} runs")
    for name, count, fn in cases:
        seconds = timed(fn, args.repeat)
        print(f"{name:62s} {count / seconds:>12,.0f} lines/s")
    print(json.dumps({"lines": n, "repeat": args.repeat}))


if __name__ == "__main__":
    main()
