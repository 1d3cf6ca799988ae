"""What a change costs the room: each kind of view built and encoded once and
shared by every connection of that kind (one string object), a connection
arriving sent its view alone, a seat's own part built again only when it
changed, and nothing kept for a connection that left."""

from __future__ import annotations

import gc
import json
import random
import tracemalloc

from engine.apps.table import hub, room_views
from engine.apps.table.companion import CompanionRoom
from engine.apps.table.room import Room
from tests.room_helpers import last_view, taken


def make_room(seats=3):
    secrets = iter(f"secret-{n}" for n in range(100))
    return Room(seats=seats, rng=random.Random(7), new_secret=lambda: next(secrets))


def hello(room, role="display", secret=None):
    conn = room.connect()
    message = {"type": "hello", "role": role, "secret": secret}
    if role == "display":
        message["host_key"] = room.host_key  # the host's display
    room.receive(conn, json.dumps(message))
    return conn


def phone(room, seat, name):
    conn = hello(room, "phone")
    room.receive(conn, json.dumps({"type": "join", "seat": seat, "name": name, "code": room.code}))
    return conn


def host(room, display, cmd, **options):
    room.receive(display, json.dumps({"type": "host", "cmd": cmd, **options}))


def test_a_display_arriving_sends_nothing_to_the_other_connections():
    room = make_room()
    displays = [hello(room) for _ in range(3)]
    ann = phone(room, 0, "Ann")
    for conn in [*displays, ann]:
        room.take(conn)
    late = hello(room)
    assert [room.take(conn) for conn in [*displays, ann]] == [[], [], [], []]
    assert [m["type"] for m in taken(room, late)] == ["welcome", "view"]


def test_a_phone_coming_back_to_its_seat_is_a_change_everyone_sees():
    room = make_room()
    display = hello(room)
    ann = phone(room, 0, "Ann")
    room.disconnect(ann)
    taken(room, display)
    back = hello(room, "phone", secret="secret-0")
    assert last_view(taken(room, display))["seats"][0]["connected"] is True
    assert last_view(taken(room, back))["you"]["seat"] == 0


def test_every_display_and_every_phone_without_a_seat_gets_one_shared_string():
    room = make_room()
    displays = [hello(room) for _ in range(4)]
    watchers = [hello(room, "phone") for _ in range(3)]
    ann = phone(room, 0, "Ann")
    for conn in [*displays, *watchers, ann]:
        room.take(conn)
    host(room, displays[0], "start")
    for cmd in (
        "pause",
        "resume",
        "pause",
        "resume",
        "pause",
    ):  # more lines in the log than a phone gets
        host(room, displays[0], cmd)
    on_displays = [room.take(conn)[-1] for conn in displays]
    on_watchers = [room.take(conn)[-1] for conn in watchers]
    assert all(text is on_displays[0] for text in on_displays)
    assert all(text is on_watchers[0] for text in on_watchers)
    assert on_watchers[0] != on_displays[0]  # a phone gets only the newest lines of the log
    assert json.loads(on_watchers[0])["view"]["you"] is None
    assert json.loads(room.take(ann)[-1])["view"]["you"]["seat"] == 0


def test_a_change_encodes_each_kind_of_view_once_whatever_the_number_of_displays(monkeypatch):
    room = make_room()
    displays = [hello(room) for _ in range(50)]
    ann = phone(room, 0, "Ann")
    for conn in [*displays, ann]:
        room.take(conn)
    encoded = []
    real = hub.encode
    monkeypatch.setattr(
        hub, "encode", lambda message: encoded.append(message["type"]) or real(message)
    )
    host(room, displays[0], "start")
    # the display's view, a phone's public part, Ann's seat: three views for 51 connections
    assert encoded == ["view", "view", "view"]
    assert all(len(room.take(conn)) == 1 for conn in displays[1:])
    assert len(room.take(ann)) == 1


def test_a_seats_own_part_is_built_again_only_when_its_view_changed(monkeypatch):
    room = make_room()
    display = hello(room)
    ann, bob = phone(room, 0, "Ann"), phone(room, 1, "Bob")
    host(room, display, "start")
    built = []
    real = room_views.private_view
    monkeypatch.setattr(
        room_views,
        "private_view",
        lambda game, seat, *a, **k: built.append(seat) or real(game, seat, *a, **k),
    )
    hello(room)  # a display arrives: nobody's hand changed
    room.receive(ann, json.dumps({"type": "lag", "ms": 400}))  # the public part changed
    assert built == []
    assert last_view(taken(room, bob))["seats"][0]["lag_ms"] == 400
    host(room, display, "hand_to_bot", seat=1)  # Bob's part changes, Ann's does not
    assert built == [1]


def test_after_a_thousand_connections_close_nothing_of_them_is_kept():
    room = make_room()
    display = hello(room)
    phone(room, 0, "Ann")
    host(room, display, "start")
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        conns = [hello(room, "display" if n % 2 else "phone") for n in range(1000)]
        during, _ = tracemalloc.get_traced_memory()
        for conn in conns:
            room.take(conn)
            room.disconnect(conn)
        del conns
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert room.connections[0] is display and len(room.connections) == 2
    assert len(room._views) <= 3  # display, phone, seat 0: one entry per kind, never per connection
    assert during - before > 200_000  # what 1,000 connections hold while open...
    assert after - before < 20_000  # ...is given back when they close


def test_the_companions_view_is_one_string_for_every_display():
    room = CompanionRoom(rng=random.Random(3), code="ABCD")
    displays = [hello(room) for _ in range(3)]
    for conn in displays:
        room.take(conn)
    host(room, displays[0], "start", players=["Ann", "Bob"])
    texts = [room.take(conn)[-1] for conn in displays]
    assert all(text is texts[0] for text in texts)
    late = hello(room)
    assert [room.take(conn) for conn in displays] == [[], [], []]
    assert taken(room, late)[-1]["view"]["players"] == ["Ann", "Bob"]


def test_only_the_connections_with_something_to_send_are_woken():
    room = make_room()
    woken = []
    displays = []
    for n in range(5):
        conn = room.connect()
        conn.on_ready = lambda n=n: woken.append(n)
        room.receive(
            conn, json.dumps({"type": "hello", "role": "display", "host_key": room.host_key})
        )
        displays.append(conn)
    for conn in displays:
        room.take(conn)
    woken.clear()
    late = room.connect()
    late.on_ready = lambda: woken.append("late")
    room.receive(late, json.dumps({"type": "hello", "role": "display", "host_key": room.host_key}))
    assert woken == ["late"]  # a display arriving wakes no other sender
    room.take(late)
    woken.clear()
    room.receive(displays[2], json.dumps({"type": "ping", "id": 1}))
    assert woken == [2]
    room.take(displays[2])
    woken.clear()
    phone(room, 0, "Ann")  # a seat taken: every display's view changed
    assert sorted(w for w in woken if w != "late") == [0, 1, 2, 3, 4] and "late" in woken
