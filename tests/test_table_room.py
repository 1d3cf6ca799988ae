"""The browser table's room, driven directly (no server, no browser, no clock):
seats and names, starting a match, people's actions from their phones, refusals,
rejoining by secret, what each connection is sent, the log, saving and resuming
(the host's commands: tests/test_table_host.py)."""

from __future__ import annotations

import itertools
import json
import os
import re

import pytest

from engine.units.ports import ShowdownOutcome
from engine.uno import read_game
from engine.uno.table_views import SEPARATOR
from tests.room_helpers import (
    SHOWDOWN_NEXT,
    hello,
    last_view,
    make_room,
    phone,
    refusals,
    run_machines,
    send,
    shown,
    start,
    taken,
    turn_of,
    two_people,
)

# -- seats ------------------------------------------------------------------------------


def test_a_display_gets_a_welcome_and_the_public_view_without_a_hand():
    room = make_room()
    display = hello(room)
    messages = taken(room, display)
    welcome = messages[0]
    assert {k: welcome[k] for k in ("type", "role", "seat", "secret", "host")} == {
        "type": "welcome",
        "role": "display",
        "seat": None,
        "secret": None,
        "host": True,  # hello() gives the host's key (tests/test_table_access.py)
    }
    view = last_view(messages)
    assert view["phase"] == "lobby" and view["you"] is None
    assert [s["kind"] for s in view["seats"]] == [None, None, None]


def test_a_phone_joins_a_seat_with_a_clean_name_and_gets_its_secret():
    room = make_room()
    display = hello(room)
    ann = hello(room, "phone")
    taken(room, ann)
    messages = send(room, ann, type="join", seat=1, name="  Zoe\u0308   Smith ", code=room.code)
    assert messages[0] == {
        "type": "welcome",
        "role": "phone",
        "seat": 1,
        "secret": "secret-0",
        "host": False,
    }
    seat = last_view(taken(room, display))["seats"][1]
    assert seat == {
        "seat": 1,
        "name": "Zoë Smith",
        "kind": "person",
        "connected": True,
        "bot_playing": False,
        "back_after_showdown": False,
        "bot_after_showdown": False,
        "lag_ms": None,
        "drew": 0,
        "cards": None,
        "uno": False,
        "catchable": False,
    }


@pytest.mark.parametrize(
    ("message", "refused"),
    [
        ({"seat": 0, "name": "ann"}, "Ann is at the table already: choose another name"),
        ({"seat": 1, "name": "Bob"}, "seat 1 is taken by Ann"),
        ({"seat": 3, "name": "Bob"}, "seat must be a number from 0 to 2"),
        ({"seat": 0, "name": "Bot2"}, "Bot2 is a bot's name: choose another name"),
        ({"seat": "0", "name": "Bob"}, "seat must be a number from 0 to 2"),
        (
            {"seat": 0, "name": "Bo\u202eb"},
            "field 'name' must be a name of 1 to 40 printable characters, "
            'not "Bo\u202eb" (it holds U+202E (Cf))',
        ),
    ],
)
def test_a_bad_join_is_refused_with_what_is_wrong(message, refused):
    room = make_room()
    phone(room, 1, "Ann")
    bob = hello(room, "phone")
    taken(room, bob)
    assert refusals(send(room, bob, type="join", id=5, code=room.code, **message)) == [
        {"type": "refused", "id": 5, "message": refused}
    ]


def test_starting_fills_the_empty_seats_with_bots():
    room = make_room(seats=4)
    display = hello(room)
    phone(room, 2, "Ann")
    view = last_view(start(room, display, variant="classic", target=200))
    assert [s["name"] for s in view["seats"]] == ["bot0", "bot1", "Ann", "bot3"]
    assert [s["kind"] for s in view["seats"]] == ["bot", "bot", "person", "bot"]
    assert view["variant"] == "classic" and view["target"] == 200
    assert room.game is not None and room.game.variant.name == "classic"


def test_starting_with_a_number_of_bots_seats_the_people_first_and_keeps_their_phones():
    room = make_room(seats=6)
    display = hello(room)
    ann = phone(room, 4, "Ann")
    start(room, display, bots=2)
    assert [s.name for s in room.seats] == ["Ann", "bot1", "bot2"]
    assert ann.seat == 0
    assert last_view(taken(room, ann))["you"]["seat"] == 0


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        ({}, "nobody has taken a seat"),
        (
            {"variant": "speed"},
            "variant must be classic, showdown, party or pitch, not 'speed'",
        ),
        ({"target": 0}, "target must be a whole number of points >= 1, not 0"),
        ({"bots": 0, "seat": 1}, "a match takes 2 to 10 players, not 1"),
        ({"bots": 10, "seat": 1}, "a match takes 2 to 10 players, not 11"),
    ],
)
def test_a_bad_start_is_refused(options, refused):
    room = make_room()
    display = hello(room)
    if options.pop("seat", None) is not None:
        phone(room, 0, "Ann")
    taken(room, display)
    assert refusals(start(room, display, **options))[0]["message"] == refused


def test_regression_a_start_with_millions_of_bots_is_refused_without_making_their_seats(
    monkeypatch,
):
    # benchmarks/table_chaos.py's forged host messages: bots=10**7 built ten million
    # seats before the count was checked, holding the server's loop for 84 s
    import engine.apps.table.room as room_module

    made, seat = [], room_module.Seat
    monkeypatch.setattr(room_module, "Seat", lambda *a: made.append(a) or seat(*a))
    room = make_room()
    display = hello(room)
    phone(room, 0, "Ann")
    taken(room, display)
    made.clear()
    messages = start(room, display, bots=100_000)
    assert refusals(messages)[0]["message"] == "a match takes 2 to 10 players, not 100001"
    assert len(made) <= 17


def test_host_controls_are_refused_to_a_phone():
    room = make_room()
    ann = phone(room, 0, "Ann")
    taken(room, ann)
    assert refusals(send(room, ann, type="host", cmd="start"))[0]["message"] == (
        "host controls are on the display"
    )


def test_the_host_ends_the_match_and_the_people_stay_seated_for_the_next():
    room = make_room(seats=3)
    display = hello(room)
    ann = phone(room, 1, "Ann")
    start(room, display)
    view = last_view(send(room, display, type="host", cmd="end"))
    assert view["phase"] == "lobby" and view["log"][0] == "The host ended the match."
    assert [s["kind"] for s in view["seats"]] == [None, "person", None]
    assert last_view(taken(room, ann))["you"] == {
        "seat": 1,
        "hand": [],
        "legal": [],
        "prompt": "",
        "bot_playing": False,
    }
    assert refusals(send(room, display, type="host", cmd="end")) == [
        {"type": "refused", "id": None, "message": "no match is being played"}
    ]
    bob = phone(room, 0, "Bob")
    assert bob.seat == 0


# -- people's actions ---------------------------------------------------------------------


def test_a_person_plays_from_the_phone_and_everyone_sees_it():
    room, display, ann, bob = two_people()
    me, _ = turn_of(room, ann, bob)
    taken(room, display)
    legal = last_view(taken(room, me))["you"]["legal"]
    action = legal[0]["action"]
    before = room.game.hand_sizes[me.seat]
    messages = send(room, me, type="act", action=action, id=1)
    assert refusals(messages) == []
    assert room.game.hand_sizes[me.seat] != before or action == "draw"
    assert last_view(taken(room, display))["log"][0].startswith(room.names[me.seat])


def test_a_persons_own_draw_is_the_plus_n_beside_their_seat_and_a_refusal_keeps_the_last():
    room, display, ann, bob = two_people()
    me, _ = turn_of(room, ann, bob)
    assert refusals(send(room, me, type="act", action="draw", id=1)) == []
    seats = last_view(taken(room, display))["seats"]
    assert seats[me.seat]["drew"] == 1  # the draw's own event, not cleared after it
    send(room, me, type="act", action="R99", id=2)  # refused: the badge stays
    assert room.view_for(display)["seats"][me.seat]["drew"] == 1


def test_out_of_turn_other_seat_illegal_replayed_and_malformed_are_refused_to_the_sender_only():
    room, display, ann, bob = two_people()
    me, other = turn_of(room, ann, bob)
    for conn in (display, ann, bob):
        taken(room, conn)
    legal = [a["action"] for a in room.view_for(me)["you"]["legal"]]
    mine = room.names[me.seat]
    cases = [
        (other, {"type": "act", "action": "draw", "id": 1}, f"it is not your turn: it is {mine}'s"),
        (
            other,
            {"type": "act", "action": "draw", "id": 2, "seat": me.seat},
            f"you sit at seat {other.seat}, not {me.seat}: you act for your seat only",
        ),
        (
            me,
            {"type": "act", "action": "catch 2", "id": 3},
            "bot2 holds 7 cards: catch only a player left with one who did not call UNO",
        ),
        (
            me,
            {"type": "act", "action": "R99", "id": 4},
            "'R99' is not an action (e.g. R5, W=R, draw, catch 1)",
        ),
        (me, {"type": "act", "id": 5}, "action must be an action's text, e.g. R5 or draw"),
        (
            me,
            {"type": "dance"},
            "unknown message type 'dance' (known: hello, join, act, take_back, host, ping, lag, paddle_tap)",
        ),
        (me, [1, 2], "a message is a JSON object, not list"),
    ]
    for conn, message, refused in cases:
        room.receive(conn, json.dumps(message))
        msg_id = message.get("id") if isinstance(message, dict) else None
        assert taken(room, conn) == [{"type": "refused", "id": msg_id, "message": refused}]
    room.receive(me, "{not json")
    [refused] = taken(room, me)
    assert refused["type"] == "refused" and refused["id"] is None
    assert refused["message"].startswith("malformed JSON: Expecting property name")
    assert taken(room, display) == []  # nothing changed, nothing sent to anyone else
    # The server keeps serving: a good action goes through, and sent again it is a replay.
    assert refusals(send(room, me, type="act", action=legal[-1], id=9)) == []
    run_machines(room)
    assert refusals(send(room, me, type="act", action="draw", id=9)) == [
        {"type": "refused", "id": 9, "message": "action 9 was sent already (replayed)"}
    ]
    # An id names one message whatever became of it: a refused one sent again is a replay.
    assert refusals(send(room, other, type="act", action="draw", id=1)) == [
        {"type": "refused", "id": 1, "message": "action 1 was sent already (replayed)"}
    ]


def test_a_catch_claimed_twice_counts_once():
    # Ann has one card and did not call UNO; Bob catches her, then spam-clicks.
    room = make_room(seats=2)
    display = hello(room)
    phone(room, 0, "Ann")
    bob = phone(room, 1, "Bob")
    start(room, display)
    room.restore(
        {
            **room.snapshot(),
            "notation": "classic R5/B1,Y1,Y2 G1,B2,G3,G4 R1 R + 1 play 0 - 0,0 1 1 500 - 1:0",
        }
    )
    assert room.game.catchable == 0
    assert refusals(send(room, bob, type="act", action="catch 0", id="a")) == []
    assert room.game.hand_sizes[0] == 3
    assert refusals(send(room, bob, type="act", action="catch 0", id="b")) == [
        {
            "type": "refused",
            "id": "b",
            "message": "Ann holds 3 cards: catch only a player left with one who did not call UNO",
        }
    ]
    assert room.game.hand_sizes[0] == 3
    assert last_view(taken(room, display))["seats"][0]["drew"] == 2


# -- what each connection is sent ----------------------------------------------------------


def test_no_card_of_a_hand_reaches_the_display_or_another_phone_during_a_whole_round():
    room, display, ann, bob = two_people(seed=11)
    for conn in (display, ann, bob):
        taken(room, conn)  # what they had before the match
    public: set[str] = set()
    showdowns = 0
    ids = iter(range(10_000))
    while True:
        game = room.game
        public |= {str(card) for card in game.discard_pile}
        public |= {e.data["card"] for e in room.match.events if e.kind == "play"}
        hidden = {str(card) for card in game.hand(0)} - public
        bob_own = {str(card) for card in game.hand(1)}
        to_display, to_bob = taken(room, display), taken(room, bob)
        leaks = [t for t in hidden if shown(to_display, t)]
        leaks += [t for t in hidden - bob_own if shown(to_bob, t)]
        assert leaks == [], f"Ann's {leaks} reached the display or Bob in {game.notation()}"
        assert all(m["view"]["you"] is None for m in to_display if m["type"] == "view")
        assert all(m["view"]["you"]["seat"] == 1 for m in to_bob if m["type"] == "view")
        taken(room, ann)
        task = room.next_task()
        if task == "bot":
            room.bot_step()
        elif task == "showdown":
            showdowns += 1
            room.finish_showdown(room.unit.run_showdown(room.showdown_request()))
        elif task == "next_round" or game.round_over:
            break
        else:
            me = ann if game.to_act == 0 else bob
            legal = room.view_for(me)["you"]["legal"]
            assert (
                refusals(send(room, me, type="act", action=legal[0]["action"], id=next(ids))) == []
            )
    assert room.game.outcome is not None
    assert showdowns >= 1  # the round had a showdown, whose view went out too


def test_a_phone_that_comes_back_with_its_secret_gets_its_seat_and_the_whole_view():
    room, display, ann, bob = two_people()
    taken(room, bob)
    secret = room.seats[0].secret
    room.disconnect(ann)
    assert last_view(taken(room, display))["seats"][0]["connected"] is False
    again = hello(room, "phone", secret=secret)
    messages = taken(room, again)
    assert messages[0] == {
        "type": "welcome",
        "role": "phone",
        "seat": 0,
        "secret": secret,
        "host": False,
    }
    you = last_view(messages)["you"]
    assert sorted(c["text"] for c in you["hand"]) == sorted(str(c) for c in room.game.hand(0))
    legal = room.game.legal_actions() if room.game.to_act == 0 else ()
    assert [a["action"] for a in you["legal"]] == [str(a) for a in legal]
    assert last_view(taken(room, display))["seats"][0]["connected"] is True


def test_a_second_connection_with_the_secret_takes_the_seat_from_the_first():
    room, _, ann, _ = two_people()
    taken(room, ann)
    again = hello(room, "phone", secret=room.seats[0].secret)
    assert again.seat == 0 and ann.seat is None
    messages = taken(room, ann)
    assert messages[0] == {
        "type": "welcome",
        "role": "phone",
        "seat": None,
        "secret": None,
        "host": False,
    }
    assert last_view(messages)["you"] is None


def test_an_unknown_secret_is_a_phone_without_a_seat():
    room, *_ = two_people()
    stranger = hello(room, "phone", secret="guess")
    assert taken(room, stranger)[0]["seat"] is None


# -- the log ------------------------------------------------------------------------------


def test_the_log_is_newest_first_with_a_line_between_rounds_and_the_draws_marked():
    room = make_room(seats=2, seed=3)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display, target=1000)
    drew_seen = False
    ids = itertools.count(1)
    while room.game.round == 1:
        task = run_machines(room)
        if task == "next_round":
            room.next_round()
            break
        legal = room.view_for(ann)["you"]["legal"]
        send(room, ann, type="act", action=legal[-1]["action"], id=next(ids))  # draw if allowed
        drew_seen |= any(
            s["drew"] > 0
            for m in taken(room, display)
            if m["type"] == "view"
            for s in m["view"]["seats"]
        )
    log = last_view(taken(room, display))["log"]
    assert log[0].startswith("Round 2:")
    assert log[1] == SEPARATOR
    assert log[2].startswith("Round 1 won by")
    assert log[-1] == "Match: Ann, bot1; showdown to 1000 points."
    assert drew_seen


# -- showdowns on the unit -----------------------------------------------------------------


def before_a_showdown():
    """A 2-seat Showdown table, Ann at seat 0 against a bot, Ann to play R5!2 (a showdown)."""
    room = make_room(seats=2)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    room.restore(
        {
            **room.snapshot(),
            "notation": "showdown R5!2,G2/B1,Y1 G1,B2,G3,G4 R1 R + 0 play - - 0,0 1 1 500 - 1:0",
        }
    )
    return room, display, ann


def test_the_showdown_view_follows_the_units_events_and_ends_with_the_verdict():
    room, display, ann = before_a_showdown()
    send(room, ann, type="act", action="R5!2", id=1)
    assert room.next_task() == "showdown"
    request = room.showdown_request()
    assert (request.challenger, request.opponent, request.cards) == (0, 1, 2)
    assert request.bots == {1: 230.0}
    room.unit_event("countdown", {"showdown_id": "x", "step": 1, "steps": 3, "rerun": 0})
    view = last_view(taken(room, display))["showdown"]
    assert (view["stage"], view["step"], view["steps"]) == ("countdown", 1, 3)
    room.unit_event("go", {"showdown_id": "x"})
    messages = taken(room, display)
    assert {"type": "event", "name": "go", "data": {"showdown_id": "x"}} in messages
    assert last_view(messages)["showdown"]["stage"] == "go"
    assert room.next_task() is None  # the showdown is out at the unit
    room.finish_showdown(ShowdownOutcome(1, 0, "faster", {0: 231049, 1: 254512}, margin_us=23463))
    view = last_view(taken(room, display))
    assert view["showdown"]["stage"] == "decided"
    assert view["showdown"]["verdict"] == "Ann wins: Ann 231.0 ms, bot1 254.5 ms, margin 23.5 ms"
    assert view["showdown"]["reactions"] == {"challenger": 231.0, "opponent": 254.5}
    assert view["showdown"]["margin_ms"] == 23.5
    assert view["seats"][1]["drew"] == 2
    assert view["log"][0].startswith("Showdown (R5!2): Ann vs bot1 for 2 cards.")


def test_the_bots_that_watch_showdowns_are_shown_each_ones_reaction_times():
    room, _display, ann = before_a_showdown()
    seen = []
    room.bots[1].saw_showdown = seen.append  # as engine.uno.search_bot's does
    send(room, ann, type="act", action="R5!2", id=1)
    room.finish_showdown(ShowdownOutcome(1, 0, "faster", {0: 231049, 1: None}))
    assert seen == [{0: 231.049, 1: None}]


def test_a_unit_problem_pauses_every_screen_until_the_host_decides():
    room, display, ann = before_a_showdown()
    send(room, ann, type="act", action="R5!2", id=1)
    room.showdown_request()
    room.pause("the unit at socket://pi:7700 is unreachable. Check the unit is on.")
    assert last_view(taken(room, ann))["paused"].startswith("the unit at socket://pi:7700")
    assert room.next_task() is None
    assert refusals(send(room, display, type="host", cmd="decide", loser=5))[0]["message"] == (
        "loser must be seat 0 or 1"
    )
    view = last_view(send(room, display, type="host", cmd="decide", loser=0))
    assert view["paused"] is None and view["seats"][0]["cards"] == 3


# -- saving --------------------------------------------------------------------------------


def test_the_match_is_saved_after_every_action_and_resumes_with_the_same_seats(tmp_path):
    path = tmp_path / "state" / "table.json"
    room = make_room(seats=3, save=path)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    run_machines(room)
    legal = room.view_for(ann)["you"]["legal"]
    send(room, ann, type="act", action=legal[0]["action"], id=1)
    saved = json.loads(path.read_text())
    assert saved["notation"] == room.game.notation()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    again = make_room(seats=2)
    again.restore(saved)
    assert again.game.notation() == room.game.notation()
    assert read_game(saved["notation"]).notation() == saved["notation"]
    assert [s.name for s in again.seats] == ["Ann", "bot1", "bot2"]
    assert again.log == room.log
    back = hello(again, "phone", secret=room.seats[0].secret)
    assert back.seat == 0
    assert run_machines(again) == run_machines(room)
    assert again.game.notation() == room.game.notation()


def test_a_file_that_is_not_a_saved_table_is_refused():
    room = make_room()
    with pytest.raises(ValueError, match="not a saved table"):
        room.restore({"format": 1, "seats": []})
    with pytest.raises(ValueError, match="format 7 is not 1"):
        room.restore({"format": 7})


def test_a_companion_save_file_is_refused_with_what_to_do():
    with pytest.raises(ValueError, match="a companion table's save file: add --companion"):
        make_room().restore({"format": 1, "mode": "companion", "players": []})


def test_each_match_names_its_showdowns_apart_and_a_resumed_one_keeps_the_name(tmp_path):
    """A unit answers a showdown id it has fought from its journal: a second
    match must not reuse the first one's ids, and a resumed match must arm the
    showdown it was fighting under the same id."""
    path = tmp_path / "table.json"
    room = make_room(seats=2, save=path)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    send(room, ann, type="act", action="R5!2", id=1)
    first = room.showdown_request().showdown_id
    assert re.fullmatch(r"m[0-9a-f]{8}:r1:s1", first)
    again = make_room(seats=2)
    again.restore(json.loads(path.read_text()))
    assert again.showdown_request().showdown_id == first
    room.pause("the unit is off")
    assert refusals(send(room, display, type="host", cmd="end")) == []
    assert refusals(start(room, display)) == []
    assert not first.startswith(f"{room.match_id}:")


def test_the_save_file_is_flushed_to_the_disk_before_it_replaces_the_old(tmp_path, monkeypatch):
    path = tmp_path / "table.json"
    room = make_room(seats=2, save=path)
    display = hello(room)
    phone(room, 0, "Ann")
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    start(room, display)
    assert len(synced) == 2  # the file, then its folder
    assert json.loads(path.read_text())["notation"] == room.game.notation()
    assert not (tmp_path / "table.json.tmp").exists()


def test_retrying_after_a_unit_problem_fights_the_same_showdown_again():
    room, display, ann = before_a_showdown()
    send(room, ann, type="act", action="R5!2", id=1)
    first = room.showdown_request()
    room.pause("the unit is unreachable")
    assert refusals(send(room, ann, type="act", action="draw", id=2)) == [
        {"type": "refused", "id": 2, "message": "the game is paused: the unit is unreachable"}
    ]
    assert refusals(send(room, display, type="host", cmd="retry")) == []
    assert room.next_task() == "showdown"
    assert room.showdown_request() == first
    room.finish_showdown(room.unit.run_showdown(first))
    assert room.game.pending_showdown is None and room.match.showdowns == 1
