"""Who may do what at the table, on the sans-IO room and a virtual clock: the
host's key (a spectator has no host controls; a wrong key is said, logged with
the peer and rate-limited; a new key revokes the old), the room code (wrong ones
refused and rate-limited per peer, any case right), and the key and the code in
no frame to a phone or a spectator."""

from __future__ import annotations

import json
import logging
import random

import pytest

from engine.apps.table.access import (
    HOST_KEY_REPLACED,
    HOST_ONLY,
    NO_CODE,
    WRONG_CODE,
    WRONG_HOST_KEY,
    PeerLog,
    Tries,
    qr_data_uri,
)
from engine.apps.table.room import Room
from tests.room_helpers import last_view, taken

KEY = "the-host-key-0123456789"
CODE = "QXZW"


def make_room(clock, seats=3, **options):
    secrets = iter(f"secret-{n}" for n in range(100))
    return Room(
        seats=seats,
        rng=random.Random(7),
        new_secret=lambda: next(secrets),
        clock=clock.now,
        host_key=KEY,
        code=CODE,
        join_url="http://10.0.0.2:8700/phone",
        base_url="http://10.0.0.2:8700",
        **options,
    )


def send(room, conn, **message):
    room.receive(conn, json.dumps(message))
    return taken(room, conn)


def display(room, key=None, peer="10.0.0.9"):
    conn = room.connect(peer)
    message = {"type": "hello", "role": "display"}
    if key is not None:
        message["host_key"] = key
    room.receive(conn, json.dumps(message))
    return conn


def phone(room, peer="10.0.0.20"):
    conn = room.connect(peer)
    room.receive(conn, json.dumps({"type": "hello", "role": "phone", "secret": None}))
    taken(room, conn)
    return conn


def refusals(messages):
    return [m["message"] for m in messages if m["type"] == "refused"]


# -- the host's key ---------------------------------------------------------------------


def test_a_display_with_the_host_key_is_the_host_and_gets_the_host_url_and_the_codes_qr(
    virtual_clock,
):
    room = make_room(virtual_clock)
    host = display(room, KEY)
    welcome = taken(room, host)[0]
    assert welcome == {
        "type": "welcome",
        "role": "display",
        "seat": None,
        "secret": None,
        "host": True,
        "host_url": f"http://10.0.0.2:8700/#host={KEY}",
        "host_qr": qr_data_uri(f"http://10.0.0.2:8700/#host={KEY}"),
        "code": CODE,
        "join_url": f"http://10.0.0.2:8700/phone?code={CODE}",
        "join_qr": qr_data_uri(f"http://10.0.0.2:8700/phone?code={CODE}"),
    }
    assert welcome["host_qr"].startswith("data:image/svg+xml;")
    assert host.host
    phone(room)
    assert refusals(send(room, host, type="host", cmd="pause")) == ["no match is being played"]


def test_a_display_without_the_key_is_a_spectator_and_every_host_command_is_refused(
    virtual_clock,
):
    room = make_room(virtual_clock)
    spectator = display(room)
    messages = taken(room, spectator)
    assert messages[0] == {
        "type": "welcome",
        "role": "display",
        "seat": None,
        "secret": None,
        "host": False,
    }
    view = last_view(messages)
    assert view["code"] == "" and view["join_url"] == "http://10.0.0.2:8700/phone"
    ann = phone(room)
    send(room, ann, type="join", seat=0, name="Ann", code=CODE)
    for cmd, extra in [
        ("start", {"bots": 1}),
        ("pause", {}),
        ("end", {}),
        ("free_seat", {"seat": 0}),
        ("move_seat", {"seat": 0, "to": 1}),
        ("clear_lobby", {}),
        ("no_such_command", {}),
    ]:
        assert refusals(send(room, spectator, type="host", cmd=cmd, id=4, **extra)) == [HOST_ONLY]
    assert HOST_ONLY == (
        "host controls need the host's key: open the host URL printed where the table was started"
    )
    assert room.match is None and room.seats[0].name == "Ann"


def test_a_wrong_key_is_said_and_logged_with_the_peer_and_tries_are_limited_per_peer(
    virtual_clock, caplog
):
    room = make_room(virtual_clock)
    caplog.set_level(logging.WARNING, "engine.apps.table.access")
    for n in range(5):
        wrong = display(room, f"guess-{n}", peer="10.0.0.66")
        welcome = taken(room, wrong)[0]
        assert (welcome["host"], welcome["message"]) == (False, WRONG_HOST_KEY)
        assert "host_url" not in welcome and not wrong.host
        virtual_clock.advance(1)
    assert WRONG_HOST_KEY == (
        "wrong host key: this display is a spectator (host controls need the host's key: "
        "open the host URL printed where the table was started)"
    )
    # The sixth try within the minute, even with the right key: refused, with the wait.
    blocked = display(room, KEY, peer="10.0.0.66")
    assert taken(room, blocked)[0]["message"] == (
        "too many wrong host keys from your address: try again in 55 s; "
        "this display is a spectator meanwhile"
    )
    assert not blocked.host
    # Another peer is not held up; once the first try is a minute old, one more try.
    assert display(room, KEY, peer="10.0.0.9").host
    virtual_clock.advance(55)
    assert display(room, KEY, peer="10.0.0.66").host
    display(room, "guess-5", peer="10.0.0.66")
    # One line per peer and kind every 10 s; the repeats are counted on the next.
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "A wrong host key was given, from 10.0.0.66",
        "A wrong host key was given, from 10.0.0.66 (5 more since the last line)",
    ]
    assert all(KEY not in line and "guess" not in line for line in lines)


def test_a_new_host_key_makes_the_old_hosts_display_a_spectator_at_once(virtual_clock, tmp_path):
    room = make_room(virtual_clock, save=tmp_path / "table.json")
    host = display(room, KEY)
    taken(room, host)
    new = room.new_host_key()
    assert new != KEY and room.host_key == new
    welcome = taken(room, host)[0]
    assert welcome == {
        "type": "welcome",
        "role": "display",
        "seat": None,
        "secret": None,
        "host": False,
        "message": HOST_KEY_REPLACED,
    }
    assert HOST_KEY_REPLACED == (
        "the host key was replaced: this display is a spectator now "
        "(open the new host URL printed where the table was started)"
    )
    assert refusals(send(room, host, type="host", cmd="end")) == [HOST_ONLY]
    assert taken(room, display(room, KEY))[0]["message"] == WRONG_HOST_KEY
    assert display(room, new).host
    assert json.loads((tmp_path / "table.json").read_text())["host_key"] == new


def test_the_host_key_and_the_room_code_reach_no_phone_and_no_spectator(virtual_clock):
    room = make_room(virtual_clock)
    host = display(room, KEY)
    spectator = display(room)
    ann, bob = phone(room), phone(room, "10.0.0.21")
    seen = {"spectator": [], "ann": [], "bob": []}

    def collect():
        for name, conn in (("spectator", spectator), ("ann", ann), ("bob", bob)):
            seen[name] += taken(room, conn)
        taken(room, host)

    collect()
    send(room, ann, type="join", seat=0, name="Ann", code=CODE.lower())
    send(room, bob, type="join", seat=1, name="Bob", code="NOPE")
    send(room, bob, type="join", seat=1, name="Bob", code=CODE)
    send(room, spectator, type="host", cmd="start")
    send(room, host, type="host", cmd="move_seat", seat=1, to=2)
    collect()
    room.new_host_key()
    send(room, host, type="hello", role="display", host_key=room.host_key)
    send(room, host, type="host", cmd="start", bots=1)
    collect()
    for name, messages in seen.items():
        text = json.dumps(messages)
        assert messages, name
        assert KEY not in text and room.host_key not in text, name
        assert CODE not in text and "host_url" not in text and "join_qr" not in text, name
        assert all(m.get("host") is not True for m in messages), name


# -- the room code ----------------------------------------------------------------------


def test_a_phone_joins_with_the_right_code_in_any_case_and_a_wrong_one_is_refused(
    virtual_clock,
):
    room = make_room(virtual_clock)
    ann = phone(room)
    assert refusals(send(room, ann, type="join", seat=0, name="Ann", id=1)) == [NO_CODE]
    assert refusals(send(room, ann, type="join", seat=0, name="Ann", code="QXZV")) == [WRONG_CODE]
    assert (NO_CODE, WRONG_CODE) == (
        "type the room code: it is on the display",
        "wrong room code: it is on the display",
    )
    assert room.seats[0].kind is None
    messages = send(room, ann, type="join", seat=0, name="Ann", code=" qxZw ")
    assert messages[0] == {
        "type": "welcome",
        "role": "phone",
        "seat": 0,
        "secret": "secret-0",
        "host": False,
    }
    # Back with the seat's secret: no code needed.
    again = room.connect("10.0.0.20")
    back = send(room, again, type="hello", role="phone", secret="secret-0")
    assert back[0]["seat"] == 0


def test_wrong_codes_are_limited_per_peer_and_allowed_again_after_the_wait(virtual_clock):
    room = make_room(virtual_clock)
    squatter, ann = phone(room, "10.0.0.66"), phone(room, "10.0.0.20")
    for n in range(5):
        code = f"AAA{'BCDEF'[n]}"
        assert refusals(send(room, squatter, type="join", seat=0, name="Sq", code=code)) == [
            WRONG_CODE
        ]
        virtual_clock.advance(10)
    # Then every join from that peer waits, even with the right code.
    assert refusals(send(room, squatter, type="join", seat=0, name="Sq", code=CODE)) == [
        "too many wrong room codes from your address: try again in 10 s"
    ]
    assert room.seats[0].kind is None
    # Another peer joins meanwhile; after the wait the first may try again.
    assert refusals(send(room, ann, type="join", seat=1, name="Ann", code=CODE)) == []
    virtual_clock.advance(9.5)
    assert refusals(send(room, squatter, type="join", seat=0, name="Sq", code=CODE)) == [
        "too many wrong room codes from your address: try again in 1 s"
    ]
    virtual_clock.advance(0.5)
    assert refusals(send(room, squatter, type="join", seat=0, name="Sq", code=CODE)) == []
    assert [s.name for s in room.seats] == ["Sq", "Ann", None]


def test_a_room_without_a_code_given_makes_one_of_four_letters():
    rooms = [Room(seats=2) for _ in range(20)]
    codes = {room.code for room in rooms}
    assert all(
        len(c) == 4 and c.isalpha() and c.isupper() and not set(c) & {"I", "O"} for c in codes
    )
    assert len(codes) > 1
    assert len({room.host_key for room in rooms}) == 20


# -- the building blocks ----------------------------------------------------------------


def test_tries_forget_the_oldest_peer_beyond_their_bound(virtual_clock):
    tries = Tries(virtual_clock.now, limit=1, window_s=60, most_peers=2)
    for peer in ("a", "b", "c"):
        tries.failed(peer)
    assert [tries.wait_s(peer) for peer in ("a", "b", "c")] == [0.0, 60.0, 60.0]


def test_the_peer_log_says_one_line_per_peer_and_kind_every_ten_seconds(virtual_clock, caplog):
    caplog.set_level(logging.WARNING)
    peer_log = PeerLog(virtual_clock.now, logging.getLogger("test.peers"))
    for _ in range(3):
        peer_log.warn("room code", "10.0.0.1", "A wrong room code was given")
        peer_log.warn("host key", "10.0.0.1", "A wrong host key was given")
        peer_log.warn("room code", "", "A wrong room code was given")
        virtual_clock.advance(4)
    peer_log.warn("room code", "10.0.0.1", "A wrong room code was given")
    assert [r.getMessage() for r in caplog.records] == [
        "A wrong room code was given, from 10.0.0.1",
        "A wrong host key was given, from 10.0.0.1",
        "A wrong room code was given, from an unknown peer",
        "A wrong room code was given, from 10.0.0.1 (2 more since the last line)",
    ]


@pytest.mark.parametrize("key", [42, ["x"], {"k": 1}, "é" * 30])
def test_a_key_that_is_not_the_keys_text_is_a_wrong_key(virtual_clock, key):
    room = make_room(virtual_clock)
    conn = display(room, key)
    assert taken(room, conn)[0]["message"] == WRONG_HOST_KEY and not conn.host


def test_the_servers_console_gives_a_new_key_on_its_line_and_says_what_it_takes(virtual_clock):
    from engine.apps.table.host_console import HostConsole

    room = make_room(virtual_clock)
    host = display(room, KEY)
    said: list[str] = []
    console = HostConsole(room, "http://10.0.0.2:8700", out=said.append, read_stdin=False)
    console.line("  new   HOST key \n")
    console.line("\n")
    console.line("help")
    assert room.host_key != KEY and not host.host
    assert said == [
        f"A new host key: the old one works no more. host: http://10.0.0.2:8700/#host={room.host_key}",
        "Type 'new host key' (then Enter) for a new host key; for a phone that did not answer:"
        " 'fight again', 'bot for NAME' or 'NAME loses'. Ctrl-C stops it.",
    ]
