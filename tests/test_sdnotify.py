"""sd_notify against a real Unix datagram socket, as systemd would listen."""

import logging
import os
import socket
import time
import uuid

import pytest

from firmware_host.service.sdnotify import Notifier, WatchdogPacer


@pytest.fixture
def listener(tmp_path):
    """A datagram socket bound in a temp dir, like systemd's notify socket."""
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    yield sock, str(path)
    sock.close()


def time_monotonic_us() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def received(sock) -> list[bytes]:
    """Every datagram waiting on ``sock`` (sendto has already queued them)."""
    datagrams = []
    while True:
        try:
            datagrams.append(sock.recv(4096))
        except BlockingIOError:
            return datagrams


def test_each_method_sends_exactly_one_datagram_of_key_value_lines(listener):
    sock, path = listener
    notifier = Notifier(path, monotonic_us=lambda: 123456789)

    assert notifier.ready() is True
    assert notifier.ready(status="listening on 127.0.0.1:7700") is True
    assert notifier.status("armed: showdown 7") is True
    assert notifier.watchdog() is True
    assert notifier.reloading() is True
    assert notifier.stopping() is True

    assert received(sock) == [
        b"READY=1",
        b"READY=1\nSTATUS=listening on 127.0.0.1:7700",
        b"STATUS=armed: showdown 7",
        b"WATCHDOG=1",
        b"RELOADING=1\nMONOTONIC_USEC=123456789",
        b"STOPPING=1",
    ]
    notifier.close()


def test_a_newline_in_a_status_cannot_inject_another_key(listener):
    sock, path = listener
    Notifier(path).status("fault: motor\nREADY=1")
    assert received(sock) == [b"STATUS=fault: motor READY=1"]


def test_reloading_stamps_clock_monotonic_in_microseconds(listener):
    sock, path = listener
    before = time_monotonic_us()
    Notifier(path).reloading()
    after = time_monotonic_us()
    [datagram] = received(sock)
    first, second = datagram.split(b"\n")
    assert first == b"RELOADING=1"
    key, value = second.split(b"=")
    assert key == b"MONOTONIC_USEC"
    assert before <= int(value) <= after


def test_abstract_namespace_address_with_leading_at():
    name = f"uno-showdown-test-{uuid.uuid4().hex}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.setblocking(False)
    try:
        notifier = Notifier.from_environ({"NOTIFY_SOCKET": "@" + name})
        assert notifier.enabled
        assert notifier.ready(status="up")
        assert received(sock) == [b"READY=1\nSTATUS=up"]
    finally:
        sock.close()


def test_from_environ_reads_the_socket_path(listener):
    sock, path = listener
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": path})
    assert notifier.address == path
    notifier.watchdog()
    assert received(sock) == [b"WATCHDOG=1"]


def test_default_environ_is_os_environ(listener, monkeypatch):
    sock, path = listener
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    notifier = Notifier.from_environ()
    assert notifier.watchdog_interval() == 5.0
    notifier.stopping()
    assert received(sock) == [b"STOPPING=1"]


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"NOTIFY_SOCKET": ""},
        {"WATCHDOG_USEC": "10000000"},  # a watchdog but nowhere to send pings
    ],
)
def test_not_under_systemd_every_call_is_a_quiet_no_op(environ, caplog):
    notifier = Notifier.from_environ(environ)
    assert notifier.enabled is False
    assert [
        notifier.ready("x"),
        notifier.status("x"),
        notifier.watchdog(),
        notifier.stopping(),
        notifier.reloading(),
    ] == [False] * 5
    assert notifier.watchdog_interval() is None
    assert caplog.records == []


def test_a_relative_or_vsock_address_is_refused_with_one_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="firmware_host.service.sdnotify"):
        notifier = Notifier.from_environ({"NOTIFY_SOCKET": "vsock:2:1234"})
        assert notifier.ready() is False
    assert notifier.enabled is False
    assert [r.getMessage() for r in caplog.records] == [
        "NOTIFY_SOCKET='vsock:2:1234' is not a path or @abstract name; not notifying systemd"
    ]


@pytest.mark.parametrize(
    "environ, interval",
    [
        ({"WATCHDOG_USEC": "10000000"}, 5.0),
        ({"WATCHDOG_USEC": "3000000", "WATCHDOG_PID": str(os.getpid())}, 1.5),
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid() + 1)}, None),
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "not-a-pid"}, None),
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "-5"}, None),
        ({"WATCHDOG_USEC": "ten"}, None),
        ({}, None),
    ],
)
def test_watchdog_interval_is_half_of_watchdog_usec_for_this_process(environ, interval):
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": "/run/systemd/notify", **environ})
    assert notifier.watchdog_interval() == interval


def test_socket_is_non_blocking_and_a_full_queue_is_logged_once(listener, caplog):
    sock, path = listener  # never reads, so its queue fills up
    notifier = Notifier(path)
    results: list[bool] = []
    with caplog.at_level(logging.DEBUG, logger="firmware_host.service.sdnotify"):
        # until 50 were dropped: the queue holds what the system allows (10 to hundreds)
        while len(results) < 5000 and len(results) - sum(results) < 50:
            results.append(notifier.watchdog())
    assert notifier._sock.getblocking() is False
    assert results[0] is True
    assert results[-1] is False  # dropped, not blocked and not raised
    sent = results.count(True)
    assert results == [True] * sent + [False] * 50
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    debugs = [r for r in caplog.records if r.levelno == logging.DEBUG]
    assert len(warnings) == 1
    assert warnings[0].getMessage().startswith(f"cannot notify systemd at {path}: ")
    assert len(debugs) == 50 - 1
    assert len(received(sock)) == sent


def test_a_vanished_socket_never_raises_into_the_caller(tmp_path, caplog):
    notifier = Notifier(str(tmp_path / "gone"))
    with caplog.at_level(logging.WARNING, logger="firmware_host.service.sdnotify"):
        assert notifier.ready() is False
        assert notifier.watchdog() is False
        assert notifier.stopping() is False
    assert [r.getMessage() for r in caplog.records] == [
        f"cannot notify systemd at {tmp_path / 'gone'}: [Errno 2] No such file or directory "
        "(further failures are logged at debug level)"
    ]


def test_close_is_idempotent_and_a_later_send_reopens(listener):
    sock, path = listener
    notifier = Notifier(path)
    notifier.close()  # before any socket exists
    notifier.ready()
    notifier.close()
    notifier.close()
    notifier.status("again")
    assert received(sock) == [b"READY=1", b"STATUS=again"]


class FakeClock:
    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


def test_pacer_pings_at_once_then_every_half_watchdog_interval(listener):
    sock, path = listener
    clock = FakeClock(1000.0)
    pacer = WatchdogPacer(Notifier(path, watchdog_usec=10_000_000), clock)

    assert pacer.interval == 5.0
    assert pacer.next_deadline() == 1000.0
    assert pacer.due() is True
    assert pacer.poll() is True
    assert pacer.next_deadline() == 1005.0

    clock.now = 1004.999
    assert pacer.due() is False
    assert pacer.poll() is False
    clock.now = 1005.0
    assert pacer.due() is True
    assert pacer.poll() is True
    assert pacer.next_deadline() == 1010.0
    assert received(sock) == [b"WATCHDOG=1", b"WATCHDOG=1"]


def test_pacer_counts_the_next_interval_from_a_late_poll(listener):
    sock, path = listener
    clock = FakeClock(0.0)
    pacer = WatchdogPacer(Notifier(path, watchdog_usec=2_000_000), clock)
    pacer.poll()
    clock.now = 3.5  # the loop was busy past its deadline
    assert pacer.poll() is True
    assert pacer.next_deadline() == 4.5
    assert received(sock) == [b"WATCHDOG=1", b"WATCHDOG=1"]


def test_pacer_kick_pings_now_even_before_the_deadline(listener):
    sock, path = listener
    clock = FakeClock(10.0)
    pacer = WatchdogPacer(Notifier(path, watchdog_usec=4_000_000), clock)
    pacer.poll()
    clock.now = 10.5
    assert pacer.kick() is True
    assert pacer.next_deadline() == 12.5
    assert received(sock) == [b"WATCHDOG=1", b"WATCHDOG=1"]


def test_pacer_without_a_watchdog_never_has_a_deadline(listener):
    sock, path = listener
    pacer = WatchdogPacer(Notifier(path), FakeClock())
    assert pacer.interval is None
    assert pacer.next_deadline() is None
    assert pacer.due() is False
    assert pacer.poll() is False
    assert pacer.kick() is False
    assert received(sock) == []


def test_a_hung_loop_stops_the_pings(listener):
    """The pacer only pings when the loop polls it: no thread pings for a dead loop."""
    sock, path = listener
    clock = FakeClock(0.0)
    pacer = WatchdogPacer(Notifier(path, watchdog_usec=1_000_000), clock)
    pacer.poll()
    clock.now = 60.0  # time passes, nobody polls
    assert received(sock) == [b"WATCHDOG=1"]
