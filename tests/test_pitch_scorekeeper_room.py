"""Pitch's companion room (engine/apps/table/companion_pitch.py), driven directly
(no server, no browser, no clock): the host's four players, target and house
rules, hands entered and refused in words, the score sheet and the log, undo,
the winner, spectators, a save after every entry and a resume, a failed save
undone; and ``showdown table --companion --variant pitch`` making this room."""

from __future__ import annotations

import argparse
import errno
import json
import os
import random

import pytest

from engine.apps.table import durable
from engine.apps.table.access import HOST_ONLY
from engine.apps.table.companion import CompanionRoom
from engine.apps.table.companion_pitch import SAVE_MODE, PitchCompanionRoom
from engine.apps.table.table_cmd import _new_room
from tests.room_helpers import last_view, taken

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]


def make_room(**options):
    return PitchCompanionRoom(rng=random.Random(3), code="ABCD", **options)


def hello(room, host=True):
    """A page: the host's (its hello gives the host's key) or a spectator's."""
    conn = room.connect()
    message = {"type": "hello", "role": "display"}
    if host:
        message["host_key"] = room.host_key
    room.receive(conn, json.dumps(message))
    return conn


def send(room, conn, **message):
    room.receive(conn, json.dumps(message))
    return taken(room, conn)


def host(room, conn, cmd, **args):
    return send(room, conn, type="host", cmd=cmd, **args)


def refusals(messages):
    return [m["message"] for m in messages if m["type"] == "refused"]


def started(**start):
    room = make_room(save=start.pop("save", None))
    display = hello(room)
    taken(room, display)
    args = {"players": PLAYERS, **start}
    assert refusals(host(room, display, "start", **args)) == []
    return room, display


def hand(room, display, **entry):
    messages = host(room, display, "hand", **entry)
    assert refusals(messages) == []
    return last_view(messages)


# -- connecting and starting --------------------------------------------------------------


def test_the_page_gets_the_lobby_view_and_a_phone_is_told_there_is_no_hand():
    room = make_room()
    messages = taken(room, hello(room))
    assert messages[0]["type"] == "welcome" and messages[0]["host"] is True
    view = last_view(messages)
    assert (view["mode"], view["phase"], view["target"], view["teams"]) == (
        SAVE_MODE,
        "lobby",
        52,
        [],
    )
    assert [b["text"] for b in view["bids"]] == ["4", "5", "6", "7", "8", "9", "Shoot the Moon"]
    assert [c["key"] for c in view["point_cards"]] == ["A", "J", "OJ", "HJ", "LJ", "T", "2", "3"]
    phone = room.connect()
    assert refusals(send(room, phone, type="hello", role="phone")) == [
        "this table plays with real cards: there is no hand to hold on a phone"
    ]


def test_the_host_names_two_teams_partners_opposite_and_the_first_dealer():
    room, _display = started(target=31, dealer=3, house_rules="low=holder")
    view = last_view(taken(room, hello(room)))
    assert [(t["name"], t["seats"], t["score"], t["to_go"]) for t in view["teams"]] == [
        ("Ann and Cy", [0, 2], 0, 31),
        ("Bob and Dee", [1, 3], 0, 31),
    ]
    assert (view["phase"], view["hand"], view["dealer"]) == ("playing", 1, 3)
    assert view["rules"]["low"] == "holder"
    assert view["point_cards"][6]["label"] == "2 of trumps (1 point, for the team that played it)"
    assert room.log == [
        "Match: Ann and Cy against Bob and Dee, to 31 points; house rules low=holder. "
        "Dee deals first."
    ]


@pytest.mark.parametrize(
    ("start", "refused"),
    [
        ({"players": ["Ann", "Bob", "Cy"]}, 'players must be a list of 4 names (partners opposite), not ["Ann", "Bob", "Cy"]'),
        ({"players": ["Ann", "Bob", "ann", "Dee"]}, "Ann and ann are one name: tell them apart"),
        ({"players": ["Ann", "", "Cy", "Dee"]}, "field 'player 2' must be a name of 1 to 40 printable characters, not \"\""),
        ({"players": PLAYERS, "target": 0}, "the target must be a whole number from 1 to 1000, not 0"),
        ({"players": PLAYERS, "target": "52"}, "the target must be a whole number from 1 to 1000, not '52'"),
        ({"players": PLAYERS, "dealer": 5}, "the first dealer must be a player from 0 to 3, not 5"),
        ({"players": PLAYERS, "house_rules": "burn_face=down"}, "house rule burn_face is about the play, not the score: the scorekeeper takes low, made, moon_score, moon_zero, both_out, ten_bid"),
        ({"players": PLAYERS, "house_rules": 3}, "house_rules is text (e.g. low=holder,made=bid), not 3"),
    ],
)  # fmt: skip
def test_a_bad_start_is_refused_in_words(start, refused):
    room = make_room()
    display = hello(room)
    assert refusals(host(room, display, "start", **start)) == [refused]
    assert room.phase == "lobby"


def test_only_the_host_enters_hands_and_a_spectator_sees_the_scores():
    room, display = started()
    watcher = hello(room, host=False)
    welcome = taken(room, watcher)[0]
    assert welcome["host"] is False and "host_url" not in welcome
    assert refusals(host(room, watcher, "hand", pitcher=0, bid=4, taken=[6, 4])) == [HOST_ONLY]
    hand(room, display, pitcher=0, bid=4, taken=[6, 4])
    seen = last_view(taken(room, watcher))
    assert [t["score"] for t in seen["teams"]] == [6, 4]


# -- hands ----------------------------------------------------------------------------------


def test_three_hands_a_set_and_the_sheet_newest_first():
    room, display = started(dealer=3)
    hand(room, display, pitcher=0, bid=5, taken=[7, 3])
    hand(room, display, pitcher=1, bid=6, taken=[5, 5])  # set: Bob and Dee -6
    view = hand(
        room,
        display,
        pitcher=2,
        bid="moon",
        cards={"A": 0, "J": 0, "OJ": 0, "HJ": 0, "LJ": 0, "T": 0, "2": 0, "3": None},
    )  # the 3 burned: the Moon fails, Bob and Dee win
    assert [t["score"] for t in view["teams"]] == [2, -3]
    assert view["phase"] == "match_over" and view["winner"] == 1
    assert view["result"] == "Bob and Dee win the match: they saw the Moon fail, at −3 points."
    rows = [(r["number"], r["bid"], r["made"], r["change"], r["scores"]) for r in view["hands"]]
    assert rows == [
        (3, "Shoot the Moon", False, [-10, 0], [2, -3]),
        (2, "6", False, [5, -6], [12, -3]),
        (1, "5", True, [7, 3], [7, 3]),
    ]
    assert view["undo"] == "hand 3 (Cy shot the Moon, set)"
    assert room.log[:3] == [
        "---",
        "Bob and Dee win the match: they saw the Moon fail, at −3 points.",
        "Hand 3, Bob dealt: Cy shot the Moon and took 7 of 10: the Moon failed. "
        "Ann and Cy −10, Bob and Dee +0: 2 to −3. 3 points burned. "
        "(Ann and Cy: ace, jack, off-jack, high joker, low joker, 10, 2; burned: 3)",
    ]
    assert refusals(host(room, display, "hand", pitcher=0, bid=4, taken=[4, 6])) == [
        "the match is over (Bob and Dee won): undo the last hand or start a new match"
    ]


def test_a_bad_hand_is_refused_in_words_to_the_host_alone_and_nothing_changes():
    room, display = started()
    watcher = hello(room, host=False)
    taken(room, watcher)
    messages = host(room, display, "hand", pitcher=0, bid=5, taken=[7, 4])
    assert refusals(messages) == [
        "Ann and Cy took 7 and Bob and Dee 4: 11 points, but a hand holds 10"
    ]
    assert taken(room, watcher) == [] and room.scores == (0, 0)
    assert refusals(host(room, display, "hand", bid=5, taken=[7, 3])) == [
        "say who pitched (the player who won the bid)"
    ]
    assert refusals(host(room, display, "deal")) == [
        'unknown host command "deal" (start, hand, undo, retry, end)'
    ]


def test_no_hand_before_a_match():
    room = make_room()
    display = hello(room)
    assert refusals(host(room, display, "hand", pitcher=0, bid=4, taken=[4, 6])) == [
        "start a match first, then enter its hands"
    ]


# -- undo, the end --------------------------------------------------------------------------


def test_undo_takes_back_the_last_hand_and_its_lines_and_the_match_goes_on():
    room, display = started()
    hand(room, display, pitcher=0, bid=5, taken=[7, 3])
    hand(room, display, pitcher=3, bid="moon", taken=[0, 10])  # 3 >= 0: Bob and Dee win
    assert room.phase == "match_over"
    view = last_view(host(room, display, "undo"))
    assert view["phase"] == "playing" and view["winner"] is None and view["hand"] == 2
    assert view["dealer"] == 1 and [t["score"] for t in view["teams"]] == [7, 3]
    assert room.log[0] == "Undone: hand 2 (Dee shot the Moon, made)."
    assert not any(line.startswith("Hand 2") for line in room.log)
    host(room, display, "undo")
    assert refusals(host(room, display, "undo")) == ["there is no hand to undo"]


def test_the_host_ends_the_match_and_the_form_keeps_the_players():
    room, display = started()
    view = last_view(host(room, display, "end"))
    assert view["phase"] == "lobby" and view["players"] == PLAYERS
    assert room.log[0] == "The host ended the match."
    assert refusals(host(room, display, "end")) == ["no match is being played"]


def test_the_runner_is_never_asked_for_a_showdown_a_bot_or_a_deal():
    room, _ = started()
    assert room.next_task() is None and room.next_deadline() is None
    for method in (room.showdown_request, room.hold_showdown, room.bot_step, room.next_round):
        with pytest.raises(RuntimeError):
            method()


# -- saved and resumed ----------------------------------------------------------------------


def test_every_entry_is_saved_and_a_new_room_resumes_it_as_it_was(tmp_path):
    path = tmp_path / "pitch.json"
    room, display = started(save=path, house_rules="made=bid")
    hand(room, display, pitcher=0, bid=5, taken=[7, 3])
    assert json.loads(path.read_text())["match"]["hands"] == [
        {"dealer": 0, "pitcher": 0, "bid": 5, "taken": [7, 3]}
    ]
    hand(room, display, pitcher=1, bid="moon", taken=[1, 9])
    again = make_room(save=path)
    again.restore(json.loads(path.read_text()))
    assert again.public() == room.public() and again.host_key == room.host_key
    assert again.scores == (6, -7) and again.keeper.rules.made == "bid"


def test_a_save_file_of_another_table_is_refused_in_words():
    room = make_room()
    uno = CompanionRoom(code="ABCD").snapshot()
    with pytest.raises(ValueError) as refused:
        room.restore(uno)
    assert str(refused.value) == (
        "this is UNO's companion save file, not a Pitch scorekeeper's: start the table with "
        "the --variant it was saved with, or choose another --save"
    )
    with pytest.raises(ValueError, match=r"^not a Pitch scorekeeper's save file \(it has no"):
        room.restore({"mode": "table"})
    saved = make_room().snapshot()
    saved["match"] = {"names": PLAYERS, "target": 52, "rules": "-", "dealer": 0, "hands": [{}]}
    with pytest.raises(ValueError) as refused:
        room.restore(saved)
    assert str(refused.value) == (
        "not a Pitch scorekeeper's save file: hand 1: say who pitched (the player who won the bid)"
    )


def test_a_hand_whose_save_fails_is_not_entered_and_the_retry_goes_on(tmp_path, monkeypatch):
    path = tmp_path / "pitch.json"
    room, display = started(save=path)
    real, full = durable.write_save, [True]

    def write(where, snapshot):
        if full[0]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(where))
        real(where, snapshot)

    monkeypatch.setattr(durable, "write_save", write)
    messages = host(room, display, "hand", pitcher=0, bid=5, taken=[7, 3])
    assert refusals(messages) == [f"the table cannot save: the disk is full at {path}"]
    view = last_view(messages)
    assert view["cannot_save"] is True and view["hands"] == [] and room.scores == (0, 0)
    assert view["paused"].startswith("The game is paused: the table cannot save")
    full[0] = False
    assert refusals(host(room, display, "retry")) == [] and room.paused is None
    hand(room, display, pitcher=0, bid=5, taken=[7, 3])
    assert json.loads(path.read_text())["match"]["hands"][0]["taken"] == [7, 3]


# -- the table command makes this room --------------------------------------------------------


def test_the_table_command_makes_the_room_the_variants_family_names(tmp_path):
    def room_for(variant):
        args = argparse.Namespace(companion=True, variant=variant, seats=4)
        return _new_room(args, random.Random(1), None, "ABCD", "u", tmp_path / "s.json", "b", 0.0)

    pitch = room_for("pitch")
    assert isinstance(pitch, PitchCompanionRoom) and pitch.PAGE == "scorekeeper.html"
    uno = room_for("showdown")
    assert isinstance(uno, CompanionRoom) and uno.PAGE == "companion.html"


def test_a_new_host_key_makes_the_old_hosts_page_a_spectators_and_is_saved(tmp_path):
    path = tmp_path / "pitch.json"
    room, display = started(save=path)
    old = room.host_key
    new = room.new_host_key()
    welcome = taken(room, display)[0]
    assert welcome["type"] == "welcome" and welcome["host"] is False and "message" in welcome
    assert new != old and json.loads(path.read_text())["host_key"] == new
    assert refusals(host(room, display, "undo")) == [HOST_ONLY]


def test_the_scorekeeper_and_uno_s_companion_keep_their_own_save_files(monkeypatch, tmp_path):
    from engine.apps.table.table_cmd import _companion_room, default_save_path

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    pitch = default_save_path(name=_companion_room("pitch").SAVE_NAME)
    uno = default_save_path(name=_companion_room("showdown").SAVE_NAME)
    assert (pitch.name, uno.name) == ("pitch-scorekeeper.json", "companion.json")
    assert default_save_path(companion=True) == uno  # as before
