"""Every action carries an id, never accepted twice in a match: not after a
newer one from the same page, not after a restart (the ids are saved with the
match), in a memory of bounded size; a new match starts a new memory."""

from __future__ import annotations

import json
import random

import pytest

from engine.apps.table.action_ids import MAX_ENTRIES, ActionIds
from engine.apps.table.room import Room
from tests.room_helpers import taken


def make_room(seats=3, **options):
    secrets = iter(f"secret-{n}" for n in range(100))
    return Room(seats=seats, rng=random.Random(7), new_secret=lambda: next(secrets), **options)


def hello(room, role="display", secret=None):
    conn = room.connect()
    message = {"type": "hello", "role": role, "secret": secret}
    if role == "display":
        message["host_key"] = room.host_key  # the host's display
    room.receive(conn, json.dumps(message))
    return conn


def send(room, conn, **message):
    room.receive(conn, json.dumps(message))
    return [m for m in taken(room, conn) if m["type"] == "refused"]


def refused(room, conn, msg_id, action="draw"):
    """The refusal of an action with ``msg_id`` (None: accepted)."""
    message = {"type": "act", "action": action}
    if msg_id is not None:
        message["id"] = msg_id
    out = send(room, conn, **message)
    return out[0]["message"] if out else None


def two_people(**options):
    room = make_room(**options)
    display = hello(room)
    ann, bob = hello(room, "phone"), hello(room, "phone")
    send(room, ann, type="join", seat=0, name="Ann", code=room.code)
    send(room, bob, type="join", seat=1, name="Bob", code=room.code)
    send(room, display, type="host", cmd="start", bots=0)
    room.take(display)
    return room, display, ann, bob


def waiting(room, ann, bob):
    """The phone that must wait (its actions are refused, but their ids count)."""
    return bob if room.game.to_act == 0 else ann


def test_an_action_without_an_id_is_refused():
    room, _, ann, bob = two_people()
    to_act = ann if room.game.to_act == 0 else bob
    legal = room.view_for(to_act)["you"]["legal"][0]["action"]
    before = room.game.notation()
    assert send(room, to_act, type="act", action=legal) == [
        {
            "type": "refused",
            "id": None,
            "message": "an action needs an id (e.g. the page's prefix and a counter: ab12-1)",
        }
    ]
    assert room.game.notation() == before


@pytest.mark.parametrize(
    ("msg_id", "why"),
    [
        (True, "id must be a number or a string"),
        (1.5, "id must be a number or a string"),
        ("", "id must be 1 to 64 characters long"),
        ("x" * 65, "id must be 1 to 64 characters long"),
    ],
)
def test_a_bad_id_is_refused(msg_id, why):
    room, _, ann, bob = two_people()
    assert refused(room, waiting(room, ann, bob), msg_id) == why


def test_a_pages_ids_count_up_the_same_or_an_older_one_is_a_replay():
    room, _, ann, bob = two_people()
    me = waiting(room, ann, bob)
    assert refused(room, me, "ab12-1").startswith("it is not your turn")
    assert refused(room, me, "ab12-3").startswith("it is not your turn")
    assert refused(room, me, "ab12-3") == "action 'ab12-3' was sent already (replayed)"
    assert refused(room, me, "ab12-2") == (
        "action 'ab12-2' is older than ab12-3 from its page: refused as a replay"
    )
    assert refused(room, me, "cd34-1").startswith("it is not your turn")  # another page
    assert refused(room, me, 9).startswith("it is not your turn")  # a number counts up too
    assert refused(room, me, 4) == "action 4 is older than 9 from its page: refused as a replay"
    assert refused(room, me, "any-old-text").startswith("it is not your turn")
    assert refused(room, me, "any-old-text") == "action 'any-old-text' was sent already (replayed)"
    # another seat keeps its own memory
    other = ann if me is bob else bob
    legal = room.view_for(other)["you"]["legal"][0]["action"]
    assert refused(room, other, "ab12-3", legal) is None


def test_a_page_playing_a_long_match_costs_one_entry_and_the_memory_is_bounded():
    ids = ActionIds()
    assert all(ids.check(f"page-{n}", "m1") is None for n in range(1, 5001))
    assert len(ids) == 1
    for n in range(1, MAX_ENTRIES):
        assert ids.check(f"p{n}-1", "m1") is None
    assert len(ids) == MAX_ENTRIES
    full = (
        f"this seat has used {MAX_ENTRIES} pages or ids that do not count up in this match: "
        "number the actions of one page PREFIX-1, PREFIX-2, ... (as the phone page does)"
    )
    assert ids.check("newpage-1", "m1") == full  # refused, never forgetting an old one
    assert ids.check("loose", "m1") == full
    assert ids.check("page-5001", "m1") is None  # a known page goes on
    assert ids.check("p1-1", "m1") == "action 'p1-1' was sent already (replayed)"
    assert len(json.dumps(ids.to_dict())) < 10_000  # what the save file holds for the seat


def test_a_new_match_starts_a_new_memory():
    room, display, ann, bob = two_people()
    for conn in (ann, bob):
        refused(room, conn, "ab12-5", "catch 0")
    assert send(room, display, type="host", cmd="end") == []
    assert send(room, display, type="host", cmd="start", bots=0) == []
    assert refused(room, waiting(room, ann, bob), "ab12-5").startswith("it is not your turn")


def test_a_replayed_id_is_refused_after_a_restart(tmp_path):
    path = tmp_path / "table.json"
    room, _, ann, bob = two_people(save=path)
    me = ann if room.game.to_act == 0 else bob
    legal = room.view_for(me)["you"]["legal"][0]["action"]
    assert refused(room, me, "ab12-7", legal) is None  # played, and saved with the match
    again = make_room()
    again.restore(json.loads(path.read_text()))
    back = hello(again, "phone", secret=room.seats[me.seat].secret)
    assert refused(again, back, "ab12-7", legal) == "action 'ab12-7' was sent already (replayed)"
    assert refused(again, back, "ab12-6", legal).startswith("action 'ab12-6' is older than")


@pytest.mark.parametrize(
    ("ids", "why"),
    [
        ([], "a seat's ids must be an object, not []"),
        ({"match_id": 3, "counted": {}, "others": []}, "match_id must be a string, not 3"),
        ({"match_id": "m1", "counted": {"a": "1"}, "others": []}, "counted must map"),
        ({"match_id": "m1", "counted": {}, "others": ["a-1"]}, "others must be a list of ids"),
    ],
)
def test_a_save_file_with_bad_ids_is_refused(tmp_path, ids, why):
    room, *_ = two_people()
    snapshot = room.snapshot()
    snapshot["seats"][0]["ids"] = ids
    with pytest.raises(ValueError, match="not a saved table: a seat's ids") as raised:
        make_room().restore(snapshot)
    assert why in str(raised.value)


def test_a_save_file_from_before_ids_were_saved_starts_with_no_ids():
    room, *_ = two_people()
    snapshot = room.snapshot()
    for seat in snapshot["seats"]:
        del seat["ids"]
    again = make_room()
    again.restore(snapshot)
    assert [len(seat.ids) for seat in again.seats] == [0, 0]
