"""The daemon, measured from outside: request round trips over TCP and a pty,
malformed lines absorbed per second, idle CPU with a client connected.

    .venv/bin/python benchmarks/daemon_bench.py [--requests 10000] [--malformed 50000] [--idle-s 10]

Each part starts a real ``showdown-unit run --mock`` process (the same helper
the tests use, tests/daemon_helpers.py) and talks to it with a minimal client:
one request at a time, pre-encoded, reading up to the reply's newline, so the
figures are the daemon's plus the kernel's, with little of the client's.
"""

from __future__ import annotations

import argparse
import os
import pty
import random
import select
import socket
import statistics
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.daemon_helpers import Client, running_daemon
from tests.test_daemon import malformed_line


def percentiles(samples_s: list[float]) -> str:
    ordered = sorted(samples_s)
    p50 = statistics.median(ordered) * 1e6
    p99 = ordered[int(len(ordered) * 0.99) - 1] * 1e6
    return f"median {p50:.0f} us, p99 {p99:.0f} us, max {ordered[-1] * 1e6:.0f} us"


def round_trips(send, receive_line, line: bytes, count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        send(line)
        reply = receive_line()
        times.append(time.perf_counter() - started)
        assert b'"ok":true' in reply, reply
    return times


def line_reader(read):
    """A function returning the next line from ``read()`` chunks."""
    buffer = bytearray()

    def next_line() -> bytes:
        while (end := buffer.find(b"\n")) < 0:
            chunk = read()
            if not chunk:
                raise ConnectionError("the daemon closed the link")
            buffer.extend(chunk)
        line = bytes(buffer[:end])
        del buffer[: end + 1]
        return line

    return next_line


def tcp_round_trips(count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, running_daemon(tmp) as daemon:
        sock = socket.create_connection(("127.0.0.1", daemon.port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        receive = line_reader(lambda: sock.recv(65536))
        sock.sendall(b'{"id":0,"cmd":"hello","version":1}\n')
        receive()
        for name, line in (
            ("ping", b'{"id":1,"cmd":"ping"}\n'),
            ("status", b'{"id":2,"cmd":"status"}\n'),
        ):
            round_trips(sock.sendall, receive, line, 500)  # warm up
            times = round_trips(sock.sendall, receive, line, count)
            print(f"TCP  {name:<6} x{count}: {percentiles(times)}")
        sock.close()


def pty_round_trips(count: int) -> None:
    master, slave = pty.openpty()
    tty.setraw(slave)
    try:
        with (
            tempfile.TemporaryDirectory() as tmp,
            running_daemon(tmp, ["--serial", os.ttyname(slave)], listen=None),
        ):

            def send(data):
                view = memoryview(data)
                while view:
                    view = view[os.write(master, view) :]

            def read():
                select.select([master], [], [])
                return os.read(master, 65536)

            receive = line_reader(read)
            send(b'{"id":0,"cmd":"hello","version":1}\n')
            receive()
            line = b'{"id":1,"cmd":"ping"}\n'
            round_trips(send, receive, line, 500)
            times = round_trips(send, receive, line, count)
            print(f"pty  ping   x{count}: {percentiles(times)}")
    finally:
        os.close(master)
        os.close(slave)


def malformed_rate(count: int) -> None:
    rng = random.Random(1)
    lines = [malformed_line(rng, 4096) for _ in range(count)]
    payload = b"\n".join(lines) + b'\n{"id":"last","cmd":"ping"}\n'
    with tempfile.TemporaryDirectory() as tmp, running_daemon(tmp) as daemon:
        sock = socket.create_connection(("127.0.0.1", daemon.port))
        receive = line_reader(lambda: sock.recv(1 << 20))
        sock.sendall(b'{"id":0,"cmd":"hello","version":1}\n')
        receive()
        # Send on a thread while this one reads, so neither side's buffers stall.
        sender = threading.Thread(target=sock.sendall, args=(payload,))
        started = time.perf_counter()
        sender.start()
        errors = 0
        while True:
            reply = receive()
            if reply.startswith(b'{"id":"last"'):
                break
            errors += b'"ok":false' in reply
        elapsed = time.perf_counter() - started
        sender.join()
        assert errors == count, (errors, count)
        sock.sendall(b'{"id":1,"cmd":"ping"}\n')
        assert receive() == b'{"id":1,"ok":true}'
        print(
            f"malformed lines: {count} in {elapsed:.2f} s = {count / elapsed:,.0f} lines/s "
            f"({len(payload) / elapsed / 1e6:.1f} MB/s), each answered; ping still answered"
        )
        sock.close()


def idle_cpu(seconds: float) -> None:
    ticks = os.sysconf("SC_CLK_TCK")
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_daemon(tmp) as daemon,
        Client.tcp(daemon.port) as client,
    ):
        client.hello()
        pid = daemon.process.pid
        time.sleep(1.0)  # let start-up settle

        def cpu_ticks() -> int:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime + stime

        before = cpu_ticks()
        time.sleep(seconds)
        used = cpu_ticks() - before
        status = Path(f"/proc/{pid}/status").read_text()
        rss = next(line for line in status.splitlines() if line.startswith("VmRSS"))
        threads = next(line for line in status.splitlines() if line.startswith("Threads"))
        assert client.request("ping")["ok"]
        print(
            f"idle, one client connected: {used} CPU ticks in {seconds:.0f} s "
            f"(of {ticks}/s: {used / ticks / seconds * 100:.2f} % of a core); "
            f"{' '.join(rss.split())}; {' '.join(threads.split())}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--malformed", type=int, default=50_000)
    parser.add_argument("--idle-s", type=float, default=10.0)
    args = parser.parse_args()
    tcp_round_trips(args.requests)
    pty_round_trips(args.requests)
    malformed_rate(args.malformed)
    idle_cpu(args.idle_s)


if __name__ == "__main__":
    main()
