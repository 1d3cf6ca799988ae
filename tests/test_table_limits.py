"""The table server's limits (engine.apps.table.limits), sans-IO: the figures and
their checks, the start-up fit to the open-file limit (the limit injected), the
connection count, and the refusals' log summarised on a virtual clock."""

from __future__ import annotations

import logging
import resource

import pytest

from engine.apps.table.limits import FD_RESERVE, ConnectionGate, Limits, RefusalLog, fit_to_fd_limit

NOFILE = resource.RLIMIT_NOFILE


def test_the_defaults_fit_a_real_table_several_times_over():
    limits = Limits()
    # 16 phones and 4 displays, each page with a WebSocket and up to 6 HTTP connections.
    assert limits.max_connections >= 3 * (16 + 4) * 7
    assert limits.max_per_peer >= 2 * 7  # a laptop with two pages open
    assert (limits.message_rate, limits.message_burst) == (20.0, 40)
    assert limits.ws_max_size == 16 * 1024


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("max_connections", 0, "max_connections must be a whole number >= 1, not 0"),
        ("max_per_peer", 1.5, "max_per_peer must be a whole number >= 1, not 1.5"),
        ("header_timeout_s", 0, "header_timeout_s must be more than 0, not 0"),
        ("message_rate", -1.0, "message_rate must be more than 0, not -1.0"),
        ("outbox_bytes", 100, "outbox_bytes (100) must hold a whole frame (ws_max_size 16384)"),
    ],
)
def test_a_limit_that_makes_no_sense_is_refused_in_words(field, value, message):
    with pytest.raises(ValueError) as refused:
        Limits(**{field: value})
    assert str(refused.value) == message


class Rlimit:
    """getrlimit and setrlimit for RLIMIT_NOFILE, on figures the test chooses."""

    def __init__(self, soft: int, hard: int, refuse: OSError | None = None):
        self.soft, self.hard, self.refuse = soft, hard, refuse
        self.calls: list[tuple[int, int]] = []

    def get(self, which):
        assert which == NOFILE
        return self.soft, self.hard

    def set(self, which, value):
        assert which == NOFILE
        self.calls.append(value)
        if self.refuse is not None:
            raise self.refuse
        self.soft, self.hard = value


def fit(limits: Limits, rlimit: Rlimit) -> Limits:
    return fit_to_fd_limit(limits, getrlimit=rlimit.get, setrlimit=rlimit.set)


def test_a_limit_that_holds_the_cap_is_left_alone(caplog):
    rlimit = Rlimit(soft=4096, hard=4096)
    assert fit(Limits(), rlimit) == Limits()
    assert rlimit.calls == [] and caplog.records == []


def test_a_soft_limit_too_low_is_raised_toward_the_hard_one(caplog):
    rlimit = Rlimit(soft=256, hard=524288)
    assert fit(Limits(), rlimit) == Limits()
    assert rlimit.calls == [(512 + FD_RESERVE, 524288)]
    assert [r.levelno for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_hard_limit_too_low_lowers_the_cap_with_a_warning(caplog):
    caplog.set_level(logging.WARNING)
    rlimit = Rlimit(soft=256, hard=300)
    fitted = fit(Limits(max_per_peer=20), rlimit)
    assert fitted == Limits(max_connections=300 - FD_RESERVE, max_per_peer=20)
    assert rlimit.calls == [(300, 300)]
    assert caplog.messages == [
        "the open-file limit is 300 (ulimit -n; the hard limit 300): the table takes at most "
        "236 connections at once, not 512; raise it (ulimit -n, LimitNOFILE= in the service) "
        "or lower --max-connections"
    ]


def test_a_limit_that_may_not_be_raised_lowers_the_cap_with_a_warning(caplog):
    """The table's service forbids setrlimit (SystemCallFilter=~@resources): EPERM."""
    caplog.set_level(logging.WARNING)
    rlimit = Rlimit(soft=1024, hard=524288, refuse=PermissionError(1, "Operation not permitted"))
    fitted = fit(Limits(max_connections=2000), rlimit)
    assert fitted.max_connections == 1024 - FD_RESERVE
    assert caplog.messages == [
        "the open-file limit is 1024 (ulimit -n; the hard limit 524288): the table takes at "
        "most 960 connections at once, not 2000; raise it (ulimit -n, LimitNOFILE= in the "
        "service) or lower --max-connections"
    ]


def test_a_limit_too_low_for_any_table_is_an_error():
    with pytest.raises(ValueError) as refused:
        fit(Limits(), Rlimit(soft=70, hard=70))
    assert str(refused.value) == (
        "the open-file limit is 70 (ulimit -n): room for 6 connections, fewer than the 16 a "
        "table needs; raise it (ulimit -n, or LimitNOFILE= in the service)"
    )


def test_an_unlimited_hard_limit_is_raised_to_what_the_cap_needs():
    rlimit = Rlimit(soft=1024, hard=resource.RLIM_INFINITY)
    assert fit(Limits(max_connections=5000), rlimit).max_connections == 5000
    assert rlimit.calls == [(5000 + FD_RESERVE, resource.RLIM_INFINITY)]


def test_the_gate_admits_up_to_the_cap_and_per_peer_then_says_why_not():
    gate = ConnectionGate(Limits(max_connections=3, max_per_peer=2))
    assert gate.admit("a1", "10.0.0.5") is None
    assert gate.admit("a2", "10.0.0.5") is None
    assert gate.admit("a3", "10.0.0.5") == (
        "10.0.0.5 has 2 connections open, the most one address may have (--max-per-peer 2)"
    )
    assert gate.admit("b1", "10.0.0.6") is None
    assert gate.admit("b2", "10.0.0.6") == (
        "3 connections are open, the most the table takes (--max-connections 3)"
    )
    gate.release("a1")
    gate.release("a1")  # twice (the HTTP and the WebSocket protocol both say so): once
    gate.release("never-admitted")
    assert (gate.open, dict(gate.per_peer)) == (2, {"10.0.0.5": 1, "10.0.0.6": 1})
    assert gate.admit("a4", "10.0.0.5") is None


def test_an_address_that_opens_connections_too_fast_is_refused_until_its_rate_allows(
    virtual_clock,
):
    gate = ConnectionGate(Limits(connect_rate=5.0, connect_burst=3), virtual_clock.now)
    for n in range(3):
        assert gate.admit(f"a{n}", "10.0.0.5") is None
        gate.release(f"a{n}")  # closed at once: opening is what counts, not being open
    assert gate.admit("a3", "10.0.0.5") == (
        "10.0.0.5 opens connections faster than 5 a second (3 at once)"
    )
    assert gate.admit("b0", "10.0.0.6") is None  # another address has its own
    virtual_clock.advance(0.2)  # one more token
    assert gate.admit("a4", "10.0.0.5") is None
    assert gate.admit("a5", "10.0.0.5") is not None


def test_the_gate_forgets_addresses_gone_long_enough_for_a_full_bucket(virtual_clock):
    gate = ConnectionGate(Limits(connect_rate=5.0, connect_burst=3), virtual_clock.now)
    for n in range(ConnectionGate.SWEEP_AT + 1):
        assert gate.admit(n, f"10.1.{n // 250}.{n % 250}") is None
        gate.release(n)
    virtual_clock.advance(1.0)  # every bucket full again
    assert gate.admit("x", "10.9.9.9") is None
    gate.release("x")
    assert len(gate._buckets) <= 1  # only the newest, not yet full


def test_a_refusal_repeated_by_a_peer_is_one_line_per_window_with_a_count(caplog, virtual_clock):
    caplog.set_level(logging.WARNING)
    refusals = RefusalLog(clock=virtual_clock.now, window_s=10.0)
    assert refusals.note("origin", "10.0.0.5", "refused 1") is True
    for _ in range(5):
        virtual_clock.advance(1.0)
        assert refusals.note("origin", "10.0.0.5", "refused again") is False
    refusals.note("host", "10.0.0.5", "another kind: its own line")
    refusals.note("origin", "10.0.0.6", "another peer: its own line")
    virtual_clock.advance(5.0)  # 10 s after the first
    refusals.note("origin", "10.0.0.5", "refused 7")
    assert caplog.messages == [
        "refused 1",
        "another kind: its own line",
        "another peer: its own line",
        "refused 7 (5 more like it from 10.0.0.5 before this)",
    ]
    assert {r.name for r in caplog.records} == {"engine.apps.table.refused"}


def test_many_peers_refused_at_once_are_summarised_for_the_kind(caplog, virtual_clock):
    caplog.set_level(logging.WARNING)
    refusals = RefusalLog(clock=virtual_clock.now, window_s=10.0, per_kind=3)
    for n in range(10):
        refusals.note("capacity", f"10.0.0.{n}", f"refused 10.0.0.{n}")
    virtual_clock.advance(10.0)
    refusals.note("capacity", "10.0.1.1", "refused 10.0.1.1")
    assert caplog.messages == [
        "refused 10.0.0.0",
        "refused 10.0.0.1",
        "refused 10.0.0.2",
        "refused 10.0.1.1 (7 more of this kind from other peers before this)",
    ]


def test_the_command_s_flags_default_to_the_limits_and_are_bounded(capsys):
    from engine.apps.cli import build_parser

    args = build_parser().parse_args(["table"])
    assert (args.max_connections, args.max_per_peer) == (512, 64)
    args = build_parser().parse_args(
        ["table", "--max-connections", "1100", "--max-per-peer", "1100"]
    )
    assert (args.max_connections, args.max_per_peer) == (1100, 1100)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["table", "--max-connections", "8"])
    assert capsys.readouterr().err.splitlines()[-1] == (
        "showdown table: error: argument --max-connections: must be a whole number from 16 "
        "to 100000, not '8'"
    )
