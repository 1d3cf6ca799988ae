"""Companion mode's room, driven directly (no server, no browser, no clock): the
host's players and target, showdowns fought on the unit port and recorded, the
end of a round scored from points or cards with the engine's values, the match
to its target, undo, refusals, pausing on a unit problem, saving and resuming,
and the server's Runner and unit hooks driving it."""

from __future__ import annotations

import json
import random
import re

import pytest

from engine.apps.table.access import qr_data_uri
from engine.apps.table.companion import CompanionRoom, hand_points
from engine.apps.table.room import Room
from engine.apps.table.server import UnitHooks
from engine.units.ports import ShowdownOutcome
from engine.uno.cards import Card
from firmware_host.protocol import Event
from tests.room_helpers import ImmediateLoop, Unreachable, last_view, run_runner, taken


def make_room(**options):
    return CompanionRoom(rng=random.Random(3), code="ABCD", **options)


def hello(room):
    """The host's page (its hello gives the host's key)."""
    conn = room.connect()
    room.receive(conn, json.dumps({"type": "hello", "role": "display", "host_key": room.host_key}))
    return conn


def send(room, conn, **message):
    room.receive(conn, json.dumps(message))
    return taken(room, conn)


def host(room, conn, cmd, **args):
    return send(room, conn, type="host", cmd=cmd, **args)


def refusals(messages):
    return [m["message"] for m in messages if m["type"] == "refused"]


def started(players=("Ann", "Bob", "Cy"), target=500, **options):
    room = make_room(**options)
    display = hello(room)
    assert refusals(host(room, display, "start", players=list(players), target=target)) == []
    return room, display


def fight(room, display, challenger, opponent, cards, outcome=None):
    """The host asks for a showdown and the unit port fights it (``outcome``, or the
    room's simulated unit)."""
    assert (
        refusals(
            host(room, display, "showdown", challenger=challenger, opponent=opponent, cards=cards)
        )
        == []
    )
    assert room.next_task() == "showdown"
    request = room.showdown_request()
    assert room.next_task() is None  # out at the unit
    room.finish_showdown(outcome or room.unit.run_showdown(request))
    return request


# -- connecting and starting ----------------------------------------------------------------


def test_the_page_says_hello_as_the_display_and_gets_the_lobby_view():
    room = make_room()
    display = room.connect()
    messages = send(room, display, type="hello", role="display", host_key=room.host_key)
    url = f"/#host={room.host_key}"
    assert messages[0] == {
        "type": "welcome",
        "role": "display",
        "seat": None,
        "secret": None,
        "host": True,
        "host_url": url,
        "host_qr": qr_data_uri(url),
    }
    view = last_view(messages)
    assert (view["mode"], view["phase"], view["code"], view["seats"]) == (
        "companion",
        "lobby",
        "ABCD",
        [],
    )
    assert view["showdown"] is None and view["undo"] is None and view["you"] is None


def test_a_phone_is_told_there_are_no_hands_to_hold():
    room = make_room()
    conn = room.connect()
    assert refusals(send(room, conn, type="hello", role="phone", secret=None)) == [
        "this table plays with real cards: there is no hand to hold on a phone"
    ]
    assert refusals(host(room, conn, "undo")) == ["say hello first"]


def test_a_phone_that_pings_first_still_hears_that_the_table_plays_with_real_cards():
    """Issue 22: /phone showed "unknown message type 'ping'" (its link pings on
    every connect) instead of why it has no hand."""
    room = make_room()
    conn = room.connect()
    assert send(room, conn, type="ping", id=1) == [{"type": "pong", "id": 1}]
    assert send(room, conn, type="lag", ms=12) == []
    assert refusals(send(room, conn, type="hello", role="phone")) == [
        "this table plays with real cards: there is no hand to hold on a phone"
    ]


def test_malformed_and_unknown_messages_are_refused_to_the_sender_alone():
    room = make_room()
    display, other = hello(room), hello(room)
    taken(room, display), taken(room, other)
    room.receive(display, "{not json")
    messages = taken(room, display)
    assert messages[0]["type"] == "refused" and messages[0]["id"] is None
    assert messages[0]["message"].startswith("malformed JSON: ")
    assert refusals(send(room, display, type="act", action="R5", id=4)) == [
        'unknown message type "act" (known: hello, host, ping, lag)'
    ]
    assert send(room, display, type="host", cmd="deal", id="x7") == [
        {
            "type": "refused",
            "id": "x7",
            "message": 'unknown host command "deal" '
            "(start, showdown, round, undo, retry, decide, cancel, end)",
        }
    ]
    assert refusals(send(room, display, type="host")) == [
        "unknown host command null (start, showdown, round, undo, retry, decide, cancel, end)"
    ]
    room.receive(display, "[1]")
    assert refusals(taken(room, display)) == ["a message is a JSON object, not list"]
    assert taken(room, other) == []


def test_the_host_starts_a_match_with_clean_names_and_a_target():
    room = make_room()
    display = hello(room)
    taken(room, display)
    view = last_view(
        host(room, display, "start", players=["  Zoe\u0308   Smith ", "Bob"], target=300)
    )
    assert view["phase"] == "playing" and view["round"] == 1 and view["target"] == 300
    assert view["seats"] == [
        {"seat": 0, "name": "Zoë Smith", "score": 0, "taken": 0},
        {"seat": 1, "name": "Bob", "score": 0, "taken": 0},
    ]
    assert view["log"] == ["Match: Zoë Smith, Bob; to 300 points."]
    assert refusals(host(room, display, "start", players=["Ann", "Bob"])) == [
        "a match is being played: end it first"
    ]


def test_the_target_defaults_to_500():
    room, _ = started(players=("Ann", "Bob"), target=500)
    fresh = make_room()
    display = hello(fresh)
    host(fresh, display, "start", players=["Ann", "Bob"])
    assert fresh.target == room.target == 500


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        ({"players": ["Ann"]}, 'players must be a list of 2 to 10 names, not ["Ann"]'),
        (
            {"players": [f"P{n}" for n in range(11)]},
            "players must be a list of 2 to 10 names, not ",
        ),
        ({"players": "Ann, Bob"}, 'players must be a list of 2 to 10 names, not "Ann, Bob"'),
        ({}, "players must be a list of 2 to 10 names, not null"),
        ({"players": ["Ann", "ANN"]}, "Ann and ANN are one name to the unit: tell them apart"),
        (
            {"players": ["Ann", ""]},
            "field 'player 2' must be a name of 1 to 40 printable characters, not \"\"",
        ),
        (
            {"players": ["Ann", "Bob"], "target": 0},
            "target must be a whole number of points from 1 to 100000, not 0",
        ),
        (
            {"players": ["Ann", "Bob"], "target": "500"},
            'target must be a whole number of points from 1 to 100000, not "500"',
        ),
    ],
)
def test_a_bad_start_is_refused_with_what_is_wrong(args, refused):
    room = make_room()
    display = hello(room)
    (message,) = refusals(host(room, display, "start", **args))
    assert message.startswith(refused)
    assert room.phase == "lobby"


# -- showdowns ------------------------------------------------------------------------------


def test_a_showdown_the_host_asks_for_is_fought_and_the_loser_recorded():
    room, display = started()
    taken(room, display)
    assert last_view(host(room, display, "showdown", challenger=0, opponent=2, cards=3))["busy"]
    request = room.showdown_request()
    assert (request.challenger, request.opponent, request.cards) == (0, 2, 3)
    assert (request.challenger_name, request.opponent_name, request.bots) == ("Ann", "Cy", {})
    view = last_view(taken(room, display))
    assert view["showdown"]["stage"] == "armed" and view["showdown"]["names"] == ["Ann", "Cy"]
    room.finish_showdown(ShowdownOutcome(2, 0, "faster", {0: 231049, 2: 254512}, margin_us=23463))
    view = last_view(taken(room, display))
    assert view["showdown"]["stage"] == "decided"
    assert view["showdown"]["verdict"] == "Ann wins: Ann 231.0 ms, Cy 254.5 ms, margin 23.5 ms"
    assert view["showdown"]["loser"] == 2
    assert view["log"][0] == (
        "Showdown: Ann vs Cy for 3 cards. Ann wins: Ann 231.0 ms, Cy 254.5 ms, "
        "margin 23.5 ms. Cy took 3 cards."
    )
    assert [s["taken"] for s in view["seats"]] == [0, 0, 3]
    assert view["undo"] == "Cy took 3 cards"
    assert view["busy"] is False and room.next_task() is None


def test_a_false_start_is_recorded_against_the_one_who_pressed_early():
    room, display = started()
    fight(room, display, 1, 0, 2, ShowdownOutcome(1, 0, "false_start", {0: None, 1: None}))
    assert room.log[0] == "Showdown: Bob vs Ann for 2 cards. False start by Bob. Bob took 2 cards."
    assert room.showdown["false_start_by"] == 1


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        ({"challenger": 0, "opponent": 0, "cards": 2}, "Ann cannot face Ann: choose two players"),
        (
            {"challenger": 0, "opponent": 3, "cards": 2},
            "opponent must be a player from 0 to 2, not 3",
        ),
        (
            {"challenger": "0", "opponent": 1, "cards": 2},
            'challenger must be a player from 0 to 2, not "0"',
        ),
        (
            {"challenger": 0, "opponent": 1, "cards": 0},
            "cards must be a whole number from 1 to 10 (the unit's most), not 0",
        ),
        (
            {"challenger": 0, "opponent": 1, "cards": 11},
            "cards must be a whole number from 1 to 10 (the unit's most), not 11",
        ),
        (
            {"challenger": 0, "opponent": 1, "cards": True},
            "cards must be a whole number from 1 to 10 (the unit's most), not true",
        ),
    ],
)
def test_a_bad_showdown_is_refused_and_nothing_is_fought(args, refused):
    room, display = started()
    assert refusals(host(room, display, "showdown", **args)) == [refused]
    assert room.next_task() is None


def test_no_showdown_before_the_match_or_while_one_is_under_way():
    room = make_room()
    display = hello(room)
    assert refusals(host(room, display, "showdown", challenger=0, opponent=1, cards=2)) == [
        "start a match first, then start a showdown"
    ]
    host(room, display, "start", players=["Ann", "Bob"])
    host(room, display, "showdown", challenger=0, opponent=1, cards=2)
    assert refusals(host(room, display, "showdown", challenger=1, opponent=0, cards=2)) == [
        "a showdown is under way: start a showdown after its verdict"
    ]
    assert refusals(host(room, display, "round", winner=0, points=10)) == [
        "a showdown is under way: end the round after its verdict"
    ]


class Told:
    """A unit port whose hello says its own max_cards."""

    def __init__(self, max_cards):
        self.hello = {"unit": {"name": "showdown-unit", "max_cards": max_cards}}

    def run_showdown(self, request):
        raise AssertionError("not fought here")


def test_the_card_count_is_bounded_by_the_units_own_max_cards():
    room, display = started(unit=Told(6))
    assert room.public()["max_cards"] == 6
    assert refusals(host(room, display, "showdown", challenger=0, opponent=1, cards=7)) == [
        "cards must be a whole number from 1 to 6 (the unit's most), not 7"
    ]


def test_showdown_ids_are_never_used_twice_even_after_an_undo():
    room, display = started()
    first = fight(room, display, 0, 1, 2)
    host(room, display, "undo")
    second = fight(room, display, 0, 1, 2)
    third = fight(room, display, 1, 2, 4)
    ids = [first.showdown_id, second.showdown_id, third.showdown_id]
    assert len(set(ids)) == 3, ids


# -- the end of a round ---------------------------------------------------------------------


def test_a_round_scored_from_each_hands_cards_counts_them_as_the_engine_does():
    room, display = started()
    taken(room, display)
    hands = {"1": "R5 G+2 W+4", "2": ["ws", "B9!2", "YR"]}
    view = last_view(host(room, display, "round", winner=0, hands=hands))
    engine = sum(Card.parse(t).points for t in ("R5", "G+2", "W+4", "WS", "B9!2", "YR"))
    assert engine == 5 + 20 + 50 + 40 + 9 + 20
    assert view["scores"] == [engine, 0, 0] and view["round"] == 2
    assert view["log"][:2] == [
        "---",
        f"Round 1 won by Ann for {engine} points: Bob 75 (R5 G+2 W+4), Cy 69 (WS B9!2 YR).",
    ]
    assert view["undo"] == f"round 1: Ann won {engine} points"
    assert view["showdown"] is None


def test_a_round_scored_from_points_per_hand_or_in_total():
    room, display = started()
    host(room, display, "round", winner=1, hands={"0": 12, "2": "30"})
    host(room, display, "round", winner=2, points=57)
    assert room.scores == [0, 42, 57]
    assert room.log[1] == "Round 2 won by Cy for 57 points."
    assert room.log[3] == "Round 1 won by Bob for 42 points: Ann 12, Cy 30."


def test_the_cards_taken_in_showdowns_count_from_zero_each_round():
    room, display = started()
    fight(room, display, 0, 1, 3, ShowdownOutcome(1, 0, "faster", {0: 200000, 1: 300000}))
    assert [s["taken"] for s in room.public()["seats"]] == [0, 3, 0]
    host(room, display, "round", winner=0, points=10)
    assert [s["taken"] for s in room.public()["seats"]] == [0, 0, 0]


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        ({"winner": 3, "points": 5}, "winner must be a player from 0 to 2, not 3"),
        ({"winner": None, "points": 5}, "winner must be a player from 0 to 2, not null"),
        ({"winner": 0, "hands": {"1": "R5"}}, "Cy: give the points or the cards left in the hand"),
        (
            {"winner": 0, "hands": {"0": "R5", "1": "R5", "2": "R5"}},
            "hands are for the players who did not win: 1 (Bob), 2 (Cy); not '0'",
        ),
        (
            {"winner": 0, "hands": {"Bob": 5, "2": 5}},
            "hands are for the players who did not win: 1 (Bob), 2 (Cy); not 'Bob'",
        ),
        (
            {"winner": 0, "hands": {"1": "R5 X9", "2": 5}},
            "Bob's hand: invalid card 'X9': expected e.g. R5, B+2, YR, GS, W, W+4, WS or R7!2",
        ),
        (
            {"winner": 0, "hands": {"1": "", "2": 5}},
            'Bob\'s hand: give its points (a whole number) or its cards (e.g. R5 G+2 W+4), not ""',
        ),
        (
            {"winner": 0, "hands": {"1": -5, "2": 5}},
            "Bob's hand: -5 points is not a whole number from 0 to 1400 (the whole deck)",
        ),
        (
            {"winner": 0, "hands": {"1": 1401, "2": 5}},
            "Bob's hand: 1401 points is not a whole number from 0 to 1400 (the whole deck)",
        ),
        ({"winner": 0}, "give the points left in the other hands (points) or each hand (hands: "),
        (
            {"winner": 0, "points": 5, "hands": {"1": 5, "2": 5}},
            "give the points in total or each hand, not both",
        ),
        (
            {"winner": 0, "points": 2.5},
            "the points left in the other hands: give its points (a whole number) or its cards",
        ),
    ],
)
def test_a_bad_round_end_is_refused_and_the_scores_stay(args, refused):
    room, display = started()
    (message,) = refusals(host(room, display, "round", **args))
    assert message.startswith(refused), message
    assert room.scores == [0, 0, 0] and room.round == 1 and room.entries == []


def test_hand_points_reads_points_or_cards():
    assert hand_points(" 42 ") == (42, None)
    assert hand_points(["R7!2", "gs"]) == (27, ["R7!2", "GS"])
    with pytest.raises(ValueError, match=r"^Ann's hand: 113 cards is more than a deck holds"):
        hand_points(" ".join(["R1"] * 113), "Ann's hand")


def test_the_match_ends_at_the_target_and_an_undo_takes_it_back():
    room, display = started(players=("Ann", "Bob"), target=100)
    host(room, display, "round", winner=1, points=60)
    taken(room, display)
    view = last_view(host(room, display, "round", winner=1, hands={"0": "W+4 W"}))
    assert view["phase"] == "match_over" and view["winner"] == 1 and view["scores"] == [0, 160]
    assert view["log"][:3] == [
        "---",
        "Bob wins the match with 160 points after 2 rounds.",
        "Round 2 won by Bob for 100 points: Ann 100 (W+4 W).",
    ]
    assert refusals(host(room, display, "showdown", challenger=0, opponent=1, cards=1)) == [
        "the match is over (Bob won): start a new one"
    ]
    view = last_view(host(room, display, "undo"))
    assert view["phase"] == "playing" and view["winner"] is None and view["scores"] == [0, 60]
    assert view["log"][:2] == ["Undone: round 2: Bob won 100 points.", "---"]
    assert "Bob wins the match with 160 points after 2 rounds." not in view["log"]


def test_a_new_match_after_the_last_one_starts_from_zero():
    room, display = started(players=("Ann", "Bob"), target=10)
    host(room, display, "round", winner=0, points=20)
    assert room.phase == "match_over"
    assert refusals(host(room, display, "start", players=["Ann", "Bob", "Cy"])) == []
    assert room.scores == [0, 0, 0] and room.round == 1 and room.entries == []


# -- undo -----------------------------------------------------------------------------------


def test_undo_takes_back_the_last_showdown_its_lines_and_its_cards():
    room, display = started()
    fight(room, display, 0, 1, 3, ShowdownOutcome(1, 0, "faster", {0: 200000, 1: 300000}))
    before = room.log[1:]
    taken(room, display)
    view = last_view(host(room, display, "undo"))
    assert view["log"] == ["Undone: Bob took 3 cards.", *before]
    assert [s["taken"] for s in view["seats"]] == [0, 0, 0]
    assert view["showdown"] is None and view["undo"] is None
    assert refusals(host(room, display, "undo")) == ["there is nothing to undo"]


def test_undo_goes_back_one_entry_at_a_time():
    room, display = started()
    host(room, display, "round", winner=0, points=10)
    fight(room, display, 1, 2, 2, ShowdownOutcome(2, 1, "faster", {1: 200000, 2: 300000}))
    host(room, display, "round", winner=1, points=30)
    host(room, display, "undo")
    assert room.scores == [10, 0, 0] and room.round == 2
    assert room.public()["undo"] == "Cy took 2 cards"
    host(room, display, "undo")
    assert room.public()["undo"] == "round 1: Ann won 10 points"


def test_no_undo_while_a_showdown_is_under_way():
    room, display = started()
    host(room, display, "round", winner=0, points=10)
    host(room, display, "showdown", challenger=0, opponent=1, cards=2)
    room.showdown_request()
    assert refusals(host(room, display, "undo")) == [
        "a showdown is under way: undo after its verdict (or cancel it while paused)"
    ]
    assert refusals(host(room, display, "end")) == [
        "a showdown is being fought: end the match after its verdict"
    ]
    assert room.scores == [10, 0, 0]


# -- a unit problem -------------------------------------------------------------------------


def test_a_unit_problem_pauses_until_the_host_retries_the_same_showdown():
    room, display = started()
    host(room, display, "showdown", challenger=0, opponent=1, cards=2)
    first = room.showdown_request()
    room.pause("The game is paused: the unit is unreachable. What to do: Switch it on.")
    view = last_view(taken(room, display))
    assert view["paused"].startswith("The game is paused: the unit is unreachable")
    assert room.next_task() is None
    assert refusals(host(room, display, "round", winner=0, points=1)) == [
        "the game is paused: The game is paused: the unit is unreachable. What to do: Switch it on."
    ]
    assert refusals(host(room, display, "retry")) == []
    assert room.next_task() == "showdown"
    assert room.showdown_request() == first
    assert refusals(host(room, display, "retry")) == ["the game is not paused"]


def test_the_runner_is_never_asked_for_a_bot_or_a_deal_and_both_say_why():
    room, _ = started()
    with pytest.raises(RuntimeError, match=r"^a companion table has no bots"):
        room.bot_step()
    with pytest.raises(RuntimeError, match=r"^a companion table deals no rounds"):
        room.next_round()


def test_a_showdown_held_back_before_it_went_to_the_unit_is_named_again():
    room, display = started()
    with pytest.raises(RuntimeError, match="no showdown was named"):
        room.hold_showdown()
    host(room, display, "showdown", challenger=0, opponent=1, cards=2)
    first = room.showdown_request()
    assert room.next_task() is None and room.host_paused is False
    room.hold_showdown()
    assert room.next_task() == "showdown" and room.showdown_request() == first


def test_the_host_says_who_took_the_cards_of_a_showdown_the_unit_could_not_fight():
    room, display = started()
    host(room, display, "showdown", challenger=0, opponent=1, cards=4)
    room.showdown_request()
    room.pause("the unit is unreachable")
    assert refusals(host(room, display, "decide", loser=2)) == ["loser must be 0 or 1, not 2"]
    view = last_view(host(room, display, "decide", loser=1))
    assert view["paused"] is None and view["busy"] is False
    assert view["showdown"]["verdict"] == "Ann wins"
    assert view["log"][0] == "Showdown: Ann vs Bob for 4 cards. Ann wins. Bob took 4 cards."
    assert room.entries[-1]["detail"] == "decided by hand after: the unit is unreachable"
    assert refusals(host(room, display, "decide", loser=1)) == ["no showdown waits for a decision"]


def test_the_host_drops_a_paused_showdown_and_nobody_takes_the_cards():
    room, display = started()
    assert refusals(host(room, display, "cancel")) == ["no showdown waits for a decision"]
    host(room, display, "showdown", challenger=2, opponent=1, cards=2)
    room.showdown_request()
    room.pause("the unit is unreachable")
    view = last_view(host(room, display, "cancel"))
    assert view["paused"] is None and view["busy"] is False and room.entries == []
    assert view["log"][0] == "The host dropped the showdown Cy vs Bob: nobody took the 2 cards."
    assert room.next_task() is None


def test_the_host_ends_the_match_and_keeps_the_players_for_the_next():
    room, display = started()
    host(room, display, "round", winner=0, points=10)
    view = last_view(host(room, display, "end"))
    assert view["phase"] == "lobby" and view["players"] == ["Ann", "Bob", "Cy"]
    assert view["log"][0] == "The host ended the match."
    assert refusals(host(room, display, "end")) == ["no match is being played"]


# -- saving ---------------------------------------------------------------------------------


def test_the_match_is_saved_after_every_action_and_resumes_as_it_was(tmp_path):
    path = tmp_path / "state" / "companion.json"
    room, display = started(save=path)
    assert json.loads(path.read_text())["players"] == ["Ann", "Bob", "Cy"]
    fight(room, display, 0, 1, 3)
    host(room, display, "round", winner=2, hands={"0": "R5", "1": "WS GS"})
    saved = json.loads(path.read_text())
    assert saved == room.snapshot()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    host(room, display, "undo")
    assert json.loads(path.read_text())["entries"] == room.entries
    again = make_room()
    again.restore(json.loads(path.read_text()))
    assert again.public() == room.public()
    assert again.snapshot() == room.snapshot()


def test_a_showdown_under_way_when_the_server_stopped_comes_back_paused(tmp_path):
    path = tmp_path / "companion.json"
    room, display = started(save=path)
    host(room, display, "showdown", challenger=1, opponent=2, cards=5)
    request = room.showdown_request()
    again = make_room()
    again.restore(json.loads(path.read_text()))
    assert again.next_task() is None
    assert again.paused == (
        "The server stopped during the showdown Bob vs Cy for 5 cards. What to do: retry (a "
        "unit that fought it already answers with its verdict), or say who took the cards."
    )
    back = hello(again)
    assert refusals(host(again, back, "retry")) == []
    assert again.showdown_request() == request


def test_each_match_names_its_showdowns_apart_and_a_resumed_one_keeps_the_name(tmp_path):
    """A unit answers a showdown id it has fought from its journal: a second
    match must not reuse the first one's ids, and a resumed match must arm the
    one it was fighting under the same id."""
    path = tmp_path / "companion.json"
    room, display = started(save=path)
    host(room, display, "showdown", challenger=0, opponent=1, cards=2)
    first = room.showdown_request().showdown_id
    assert re.fullmatch(r"m[0-9a-f]{8}:r1:s1", first)
    again = make_room()
    again.restore(json.loads(path.read_text()))
    host(again, hello(again), "retry")
    assert again.showdown_request().showdown_id == first
    other, other_display = started()
    host(other, other_display, "showdown", challenger=0, opponent=1, cards=2)
    assert other.showdown_request().showdown_id != first


def test_a_file_that_is_not_a_companion_save_is_refused():
    room = make_room()
    with pytest.raises(ValueError, match=r'^not a companion table\'s save file \(it has no "mode"'):
        room.restore(Room(seats=2).snapshot())
    with pytest.raises(ValueError, match=r"^format 7 is not 1$"):
        room.restore({"mode": "companion", "format": 7})
    with pytest.raises(ValueError, match=r"^not a companion table's save file: KeyError"):
        room.restore({"mode": "companion", "format": 1, "players": ["Ann", "Bob"]})
    with pytest.raises(ValueError, match="a bad entry"):
        room.restore(
            {
                **make_room().snapshot(),
                "players": ["Ann", "Bob"],
                "started": True,
                "entries": [{"kind": "round", "winner": 5, "points": 1}],
            }
        )
    assert room.phase == "lobby"


# -- the server's runner and the unit's hooks (an event loop, no clock) ---------------------


def test_the_servers_runner_fights_the_showdown_the_host_asked_for():
    room, display = started()
    host(room, display, "showdown", challenger=0, opponent=1, cards=2)
    run_runner(room, lambda: bool(room.entries))
    assert [entry["kind"] for entry in room.entries] == ["showdown"]
    assert room.showdown["stage"] == "decided" and room.next_task() is None


def test_a_unit_problem_in_the_runner_pauses_the_table_with_what_to_do():
    room, display = started(unit=Unreachable())
    host(room, display, "showdown", challenger=0, opponent=1, cards=2)
    run_runner(room, lambda: room.paused is not None)
    assert room.paused == (
        "The game is paused: the unit at socket://pi:7700 is unreachable. "
        "What to do: Switch the unit on."
    )
    assert last_view(taken(room, display))["paused"] == room.paused


def test_a_remote_units_hooks_drive_the_showdown_panel_and_the_log():
    room, display = started()
    host(room, display, "showdown", challenger=0, opponent=1, cards=2)
    request = room.showdown_request()
    hooks = UnitHooks()
    hooks.bind(room, ImmediateLoop())
    taken(room, display)
    hooks.say("Load 2 cards into the unit: Ann (side A) vs Bob (side B). Press the timer button.")
    hooks.armed(None, request, "ab12-r1:s1")
    hooks.event(None, Event("countdown", 3, {"showdown_id": "ab12-r1:s1", "step": 2, "steps": 3}))
    messages = taken(room, display)
    view = last_view(messages)
    assert view["showdown"]["message"].startswith("Load 2 cards into the unit")
    assert view["showdown"]["message"] not in view["log"]  # the panel's line, not the log's
    assert (view["showdown"]["stage"], view["showdown"]["step"]) == ("countdown", 2)
    assert {
        "type": "event",
        "name": "countdown",
        "data": {"showdown_id": "ab12-r1:s1", "step": 2, "steps": 3},
    } in messages
    hooks.event(None, Event("go", 4, {"showdown_id": "ab12-r1:s1", "ticks": 5}))
    assert last_view(taken(room, display))["showdown"]["stage"] == "go"
