"""A real daemon process over TCP: full showdowns, floods of bad lines,
reconnecting clients, repeated ids and client limits (slow clients, bursts
and bad clients: tests/test_link.py).

Nothing here sleeps for a timer: every wait is for an event or reply on the
socket, with a generous overall timeout (daemon_helpers.WAIT_S).
"""

import random

import pytest

from firmware_host.service.journal import Journal
from tests.daemon_helpers import (
    FAST_CONFIG,
    PLAYERS,
    Client,
    LinkClosed,
    malformed_line,
    running_daemon,
)


def arm(client, showdown_id, cards=2, players=PLAYERS):
    reply = client.request("showdown", showdown_id=showdown_id, cards=cards, players=players)
    assert reply["ok"], reply
    return reply


def press(client, side, offset_ms):
    reply = client.request("bench_press", side=side, offset_ms=offset_ms)
    assert reply == {"id": reply["id"], "ok": True}


def play(client, showdown_id, a_ms, b_ms, cards=2):
    """Arm, place both presses relative to GO, start; returns the result event."""
    arm(client, showdown_id, cards)
    press(client, "a", a_ms)
    press(client, "b", b_ms)
    assert client.request("start")["state"] == "countdown"
    return client.wait_for_event("result", showdown_id=showdown_id)


@pytest.fixture
def daemon(tmp_path):
    with running_daemon(tmp_path) as daemon:
        yield daemon


def test_a_full_showdown_through_the_protocol(daemon):
    with Client.tcp(daemon.port) as client:
        hello = client.hello()
        assert hello["unit"]["backend"] == "mock" and hello["capabilities"] == [
            "bots",
            "outputs",
            "bench",
        ]
        assert hello["seq"] == 0
        armed = arm(client, "g1-r1", cards=3)
        assert armed["state"] == "armed"
        assert armed["showdown"] == {
            "showdown_id": "g1-r1",
            "cards": 3,
            "players": PLAYERS,
            "tie_reruns": 0,
            "bots": [],
        }
        press(client, "b", 180)
        press(client, "a", 215.5)
        client.request("start")
        result = client.wait_for_event("result")
        [launched] = [e for e in client.events if e["event"] == "launched"]  # came just before
        assert {
            k: result[k]
            for k in (
                "showdown_id",
                "winner",
                "loser",
                "reason",
                "reaction_us",
                "margin_us",
                "cards",
                "launch",
            )
        } == {
            "showdown_id": "g1-r1",
            "winner": "b",
            "loser": "a",
            "reason": "faster",
            "reaction_us": {"a": 215500, "b": 180000},
            "margin_us": 35500,
            "cards": 3,
            "launch": "launched",
        }
        assert launched == {
            "event": "launched",
            "seq": launched["seq"],
            "showdown_id": "g1-r1",
            "side": "a",
            "cards": 3,
            "verified": False,
            "outcome": "launched",
        }
        names = [e["event"] for e in client.events if e["event"] != "state"]
        assert names == ["armed", "countdown", "countdown", "countdown", "go", "launched", "result"]
        assert [e["seq"] for e in client.events] == list(range(1, len(client.events) + 1))
        fetched = client.request("result", showdown_id="g1-r1")
        assert fetched["result"] == {k: v for k, v in result.items() if k not in ("event", "seq")}
    with Journal(daemon.journal_path, readonly=True) as journal:
        row = journal.get("g1-r1")
        assert row is not None and row["winner"] == "b"


def test_ten_thousand_malformed_lines_during_a_showdown(daemon):
    rng = random.Random(20251130)
    lines = [malformed_line(rng, 4096) for _ in range(10_000)]
    with Client.tcp(daemon.port) as player, Client.tcp(daemon.port) as flooder:
        player.hello()
        flooder.hello()
        arm(player, "flood-1")
        press(player, "a", 400)
        press(player, "b", 415)
        player.request("start")
        errors = 0
        codes = set()
        for start in range(0, len(lines), 250):
            flooder.send_line(b"\n".join(lines[start : start + 250]))
            ping = flooder.send("ping")
            while True:
                message = flooder.read_message()
                if message.get("id") == ping and message.get("ok"):
                    break
                if "event" not in message:
                    assert message["ok"] is False, message
                    errors += 1
                    codes.add(message["error"]["code"])
        assert errors == len(lines)
        assert codes == {
            "bad_json",
            "bad_request",
            "invalid_cards",
            "unknown_command",
            "line_too_long",
            "unsupported_version",
        }
        assert flooder.request("ping") == {"id": flooder._next_id - 1, "ok": True}
        result = player.wait_for_event("result", showdown_id="flood-1")
        assert (result["winner"], result["reason"], result["reaction_us"]) == (
            "a",
            "faster",
            {"a": 400000, "b": 415000},
        )


def test_a_client_that_lost_the_link_fetches_the_result(daemon):
    with Client.tcp(daemon.port) as first:
        first.hello()
        arm(first, "lost-1")
        press(first, "a", 140)
        press(first, "b", 120)
        first.request("start")
        first.wait_for_event("countdown")
    with Client.tcp(daemon.port) as second:
        second.hello()
        reply = second.request("result", showdown_id="lost-1")
        if not reply["ok"]:
            # Not decided yet; its result event must come after this hello.
            assert reply["error"]["code"] == "unknown_showdown"
            second.wait_for_event("result", showdown_id="lost-1")
            reply = second.request("result", showdown_id="lost-1")
        assert (reply["result"]["winner"], reply["result"]["reaction_us"]) == (
            "b",
            {"a": 140000, "b": 120000},
        )


def test_a_repeated_showdown_id_is_never_run_twice(daemon):
    with Client.tcp(daemon.port) as client:
        client.hello()
        arm(client, "once-1")
        press(client, "a", 100)
        press(client, "b", 200)
        client.request("start")
        client.wait_for_event("countdown")
        during = arm(client, "once-1")  # the running one: its status
        assert during["state"] in ("countdown", "hold", "go", "resolved", "launching")
        assert during["showdown"]["showdown_id"] == "once-1"
        result = client.wait_for_event("result", showdown_id="once-1")
        client.wait_for_event("state", state="idle")
        after = arm(client, "once-1")
        assert after == {
            "id": after["id"],
            "ok": True,
            "state": "done",
            "result": {k: v for k, v in result.items() if k not in ("event", "seq")},
        }
        assert client.request("status")["state"] == "idle"
        assert sum(e["event"] == "armed" for e in client.events) == 1
        assert len(client.request("history")["results"]) == 1


def test_max_clients_turns_the_next_one_away(tmp_path):
    config = FAST_CONFIG + "\n[server]\nmax_clients = 2\n"
    with (
        running_daemon(tmp_path, config_text=config) as daemon,
        Client.tcp(daemon.port) as one,
        Client.tcp(daemon.port) as two,
    ):
        one.hello()
        two.hello()
        with Client.tcp(daemon.port) as three:
            assert three.read_message() == {
                "id": None,
                "ok": False,
                "error": {
                    "code": "busy",
                    "message": "too many clients: this unit serves at most 2",
                },
            }
            with pytest.raises(LinkClosed):
                three.read_message()
        assert one.request("ping")["ok"] and two.request("ping")["ok"]


def test_selftest_runs_off_the_io_thread_so_pings_overtake_it(daemon):
    with Client.tcp(daemon.port) as client:
        client.hello()
        selftest = client.send("selftest")
        ping = client.send("ping")
        first = client.read_message()
        while "event" in first:  # the unit's state events
            first = client.read_message()
        assert first == {"id": ping, "ok": True}  # not held up ~2.5 s
        report = client.reply(selftest)
        assert report["passed"] is True
        assert [d["name"] for d in report["devices"]][:3] == [
            "paddle_a",
            "paddle_b",
            "timer_button",
        ]
        assert all(d["ok"] for d in report["devices"])
