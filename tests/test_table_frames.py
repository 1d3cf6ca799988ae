"""What a WebSocket of the table may send (engine.apps.table.frames), sans-IO on a
virtual clock: the message rate (a flood refused once, then closed), the frames
refused unread (binary, too large), the bounded outbox; and the room's parser
refusing JSON nested too deeply (Hub.receive)."""

from __future__ import annotations

import json
import random

import pytest

from engine.apps.table.companion import CompanionRoom
from engine.apps.table.frames import (
    MAX_MESSAGE_BYTES,
    FrameCheck,
    MessageRate,
    Outbox,
    PeerRates,
    refusal,
)
from engine.apps.table.limits import Limits
from engine.apps.table.room import Room
from tests.room_helpers import taken

FLOOD = (
    "too many messages: a connection may send 20 a second (40 at once); the ones over "
    "that are dropped unread"
)


def test_a_burst_passes_then_a_flood_is_refused_once_then_closed(virtual_clock):
    rate = MessageRate(20.0, 40, virtual_clock.now)
    assert [rate.take() for _ in range(40)] == ["ok"] * 40
    assert rate.take() == "refuse"  # the first dropped: say so, once
    assert [rate.take() for _ in range(9)] == ["drop"] * 9
    assert rate.take() == "close"  # a quarter of the burst more dropped: it goes on
    assert rate.dropped == 11


def test_a_sender_that_slows_down_is_read_again_and_refused_afresh(virtual_clock):
    rate = MessageRate(20.0, 40, virtual_clock.now)
    for _ in range(40):
        rate.take()
    assert [rate.take() for _ in range(3)] == ["refuse", "drop", "drop"]
    virtual_clock.advance(0.05)  # one token back; the overflow drains by one, to 2
    assert rate.take() == "ok"
    assert rate.take() == "drop"  # the same flood: no second refusal
    virtual_clock.advance(3.0)  # the overflow drained, the bucket full again
    assert [rate.take() for _ in range(40)] == ["ok"] * 40
    assert rate.take() == "refuse"  # a new flood is told again


def test_a_phone_at_human_speed_never_meets_the_rate(virtual_clock):
    """A ping and a lag every 5 s, and UNO Party!'s claims tapped as fast as a
    thumb goes (8 a second for 3 s, as a race for a speed play and a catch)."""
    rate = MessageRate(20.0, 40, virtual_clock.now)
    verdicts = []
    for second in range(60):
        verdicts += [rate.take(), rate.take()] if second % 5 == 0 else []
        taps = 8 if 30 <= second < 33 else 1
        for _ in range(taps):
            verdicts.append(rate.take())
            virtual_clock.advance(1 / taps)
    assert set(verdicts) == {"ok"}


def check(message, limits=None, clock=lambda: 0.0):
    return FrameCheck(limits or Limits(), clock).check(message)


def test_a_binary_frame_is_refused_the_table_takes_text():
    assert check({"type": "websocket.receive", "bytes": b'{"type": "ping"}'}) == (
        "refuse",
        "the table takes JSON text frames, not binary ones",
    )


def test_a_frame_over_the_message_size_is_refused_unread():
    big = '{"type": "ping", "id": "' + "x" * MAX_MESSAGE_BYTES + '"}'
    assert check({"type": "websocket.receive", "text": big}) == (
        "refuse",
        f"a message is at most 4096 bytes, not {len(big)}: refused unread",
    )
    exactly = "x" * MAX_MESSAGE_BYTES
    assert check({"type": "websocket.receive", "text": exactly}) == ("text", exactly)
    # bytes, not characters: 2,000 two-byte letters are 4,000 bytes and some
    accented = "é" * 2100
    assert check({"type": "websocket.receive", "text": accented}) == (
        "refuse",
        "a message is at most 4096 bytes, not 4200: refused unread",
    )


def test_the_frame_checks_count_every_frame_against_the_rate(virtual_clock):
    checks = FrameCheck(Limits(message_rate=1.0, message_burst=2), virtual_clock.now)
    text = {"type": "websocket.receive", "text": "{}"}
    binary = {"type": "websocket.receive", "bytes": b"\x00"}
    assert checks.check(binary)[0] == "refuse"  # refused, and it cost a token
    assert checks.check(text) == ("text", "{}")
    assert checks.check(text) == (
        "refuse",
        "too many messages: a connection may send 1 a second (2 at once); the ones over "
        "that are dropped unread",
    )
    assert checks.check(text) == ("close", "it kept sending over 1 messages a second (2 dropped)")


def test_a_refusal_of_a_frame_is_the_table_s_refusal_with_no_id():
    assert json.loads(refusal("why")) == {"type": "refused", "id": None, "message": "why"}


def test_the_outbox_says_when_a_reader_is_too_far_behind_in_bytes(virtual_clock):
    outbox = Outbox(Limits(ws_max_size=100, outbox_bytes=250), virtual_clock.now)
    assert outbox.behind() is None
    outbox.put("a" * 100)
    outbox.put("b" * 100)
    assert outbox.peek() == "a" * 100 and outbox.bytes == 200  # sending counts until sent
    assert outbox.pop() == "a" * 100 and outbox.bytes == 100
    outbox.put("c" * 100)
    assert outbox.behind() is None
    outbox.put("d" * 51)
    assert outbox.behind() == "it fell 251 bytes and 0.0 s behind (the limits: 250 bytes, 30 s)"


def test_the_outbox_says_when_a_reader_is_too_far_behind_in_time(virtual_clock):
    outbox = Outbox(Limits(), virtual_clock.now)
    outbox.put("first")
    virtual_clock.advance(29.0)
    outbox.put("second")
    assert outbox.behind() is None
    virtual_clock.advance(1.5)
    outbox.put("third")
    assert outbox.behind() == (
        "it fell 16 bytes and 30.5 s behind (the limits: 262144 bytes, 30 s)"
    )
    outbox.clear()
    assert (len(outbox), outbox.bytes, outbox.behind()) == (0, 0, None)


@pytest.mark.parametrize("room", ["table", "companion"])
@pytest.mark.parametrize("depth", [2000, 100_000])
def test_json_nested_too_deeply_is_refused_and_the_room_goes_on(room, depth):
    hub = Room(seats=2, rng=random.Random(1)) if room == "table" else CompanionRoom()
    conn = hub.connect("10.0.0.5")
    assert conn.peer == "10.0.0.5"
    hub.receive(conn, '{"type": "hello", "role": "display"}')
    taken(hub, conn)
    hub.receive(conn, "[" * depth + "]" * depth)
    assert taken(hub, conn) == [
        {"type": "refused", "id": None, "message": "malformed JSON: nested too deeply"}
    ]
    hub.receive(conn, '{"type": "hello", "role": "display"}')
    assert [m["type"] for m in taken(hub, conn)][:1] == ["welcome"]


PEER_FLOOD = (
    "too many messages from your address: its connections may send 40 a second together "
    "(80 at once); the ones over that are dropped unread"
)


def test_the_sockets_of_one_address_share_its_budget(virtual_clock):
    """Three sockets from one address, each within its own rate, together over
    the address's: the one that goes over is refused, then closed if it goes on;
    a socket of another address is read all the while."""
    limits = Limits()
    peers = PeerRates(limits, virtual_clock.now)
    sockets = [FrameCheck(limits, virtual_clock.now, peers.open("10.0.0.9")) for _ in range(3)]
    other = FrameCheck(limits, virtual_clock.now, peers.open("10.0.0.5"))
    frame = {"type": "websocket.receive", "text": "{}"}
    verdicts = [sockets[n % 2].check(frame)[0] for n in range(80)]
    assert verdicts == ["text"] * 80  # 40 each: within each socket's burst and the address's
    assert sockets[2].check(frame) == ("refuse", PEER_FLOOD)
    assert [sockets[2].check(frame)[0] for _ in range(19)] == ["drop"] * 19  # a quarter of 80
    assert sockets[2].check(frame)[0] == "close"
    assert other.check(frame) == ("text", "{}")
    virtual_clock.advance(2.0)  # the address's budget refills
    assert sockets[0].check(frame) == ("text", "{}")


def test_an_address_s_budget_is_kept_only_while_it_has_a_socket_open(virtual_clock):
    peers = PeerRates(Limits(), virtual_clock.now)
    first, second = peers.open("10.0.0.9"), peers.open("10.0.0.9")
    assert first is second and len(peers) == 1
    peers.close("10.0.0.9")
    assert len(peers) == 1
    peers.close("10.0.0.9")
    assert len(peers) == 0
    assert peers.open("10.0.0.9") is not first  # a fresh budget for a new visit
