"""UNO Party! at the browser table, the room driven directly (no server, no
browser, no clock): the host's choice and house rules, 16 seats, the speed-play
button and the race between two taps, catches out of turn, the pointing (each
choice kept to its own phone until the last is in, then revealed at once), the
mini pile and the link in the view, the bots' claims through the Runner, and a
save taken mid-pointing that keeps the choices hidden."""

from __future__ import annotations

import json
import random
import re

import pytest

from engine.apps.table.room import Room
from engine.uno.party import PartyGame
from tests.room_helpers import last_view, run_runner, taken
from tests.table_helpers import has_key

# Ann (0) to act on R5; Bob (1) and Cy (2) both hold the identical R5.
SPEED = "party R7,G7/R5,B1,B2/R5,Y3,W G1,G2,G3,G4 R1,R5 R + 0 play - - 0,0,0 2 1 500 - 1:0 -"
# Ann (0) holds a Point Taken she may play on R1.
POINT = "party RP,G7,G8/B2,B1/Y3,W G1,G2,G3,G4,G5,G6 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0 -"
# The docs' pile up: player 2 must add to W,G3 (green).
PILE = (
    "party R2,R3/B2,G9,W/Y3,G4/B6,B7 B5,B8,G1,G2 R1,WP G + 2 pile - - 0,0,0,0 3 1 500 - 1:0 "
    "pile=W,G3"
)
LINKED = (
    "party WT,R2,R3/B2,B1/Y3,R4/G5,G6 G1,G2,G3,G4,G5,G6,G7,G8 R1 R + 0 play - - 0,0,0,0 "
    "3 1 500 pile_refuse=yes,uno=4 1:0 link=1+3"
)
NAMES = ("Ann", "Bob", "Cy", "Di")


def send(room, conn, **message):
    room.receive(conn, json.dumps(message))
    return taken(room, conn)


def hello(room, role="display", secret=None):
    """A connection that said hello: a display is the host (it gives the key)."""
    conn = room.connect()
    message = {"type": "hello", "role": role}
    if role == "phone":
        message["secret"] = secret
    else:
        message["host_key"] = room.host_key
    room.receive(conn, json.dumps(message))
    return conn


def refused(messages):
    return [m["message"] for m in messages if m["type"] == "refused"]


def party_room(notation, people=3, bots=()):
    """A room restored at ``notation``: seats named Ann, Bob, ...; ``bots`` are bots' seats."""
    game = PartyGame.from_notation(notation)
    room = Room(seats=game.players, rng=random.Random(3))
    seats = [
        {
            "name": f"bot{n}" if n in bots else NAMES[n],
            "kind": "bot" if n in bots else "person",
            "secret": None if n in bots else f"secret-{n}",
            "reaction_ms": 230 if n in bots else None,
        }
        for n in range(game.players)
    ]
    room.restore(
        {
            "format": 1,
            "code": "ABCD",
            "match_id": "m1",
            "variant": "party",
            "target": 500,
            "house_rules": str(game.house_rules),
            "seats": seats,
            "notation": notation,
            "showdowns": 0,
            "decisions": 0,
            "log": [],
        }
    )
    phones = [hello(room, "phone", f"secret-{n}") for n in range(people) if n not in bots]
    display = hello(room)
    return room, phones, display


def view_of(room, conn):
    return last_view(taken(room, conn)) or room.view_for(conn)


# -- the host's setup ---------------------------------------------------------------------


def lobby(seats=4, people=2):
    room = Room(seats=seats, rng=random.Random(5))
    phones = []
    for n in range(people):
        phone = hello(room, "phone")
        send(room, phone, type="join", seat=n, name=NAMES[n], code=room.code)
        phones.append(phone)
    return room, phones, hello(room)


def test_the_host_starts_party_with_its_house_rules():
    room, _, display = lobby()
    out = send(
        room,
        display,
        type="host",
        cmd="start",
        variant="party",
        house_rules={"pile_refuse": True, "uno_penalty": 4, "relink": "keep", "stacking": False},
    )
    assert refused(out) == []
    view = last_view(out)
    assert view["variant"] == "party"
    assert isinstance(room.game, PartyGame)
    assert view["house_rules"]["text"] == "pile_refuse=yes,relink=keep,uno=4"
    assert view["house_rules"]["pile_refuse"] is True
    assert "taking a pile you could add to: on" in view["rules"]
    assert "a second Drawn Together: keeps the first" in view["rules"]
    assert view["party"]["speed_window"] == room.game.speed_window
    assert view["party"]["pile"] is None and view["party"]["point"] is None


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"stacking": True}, "house rules: stacking is not offered in UNO Party!"),
        ({"relink": "swap"}, "house rules: relink must be one of move, keep, not 'swap'"),
        ({"uno_penalty": 30}, "house rules: uno_penalty must be 0-20, not 30"),
        ({"speed_out": "yes"}, "house rules: speed_out must be True or False, not 'yes'"),
        ("stack", "house rules: invalid Party! house rules 'stack': stacking is not offered"),
    ],
)
def test_bad_party_house_rules_are_refused_in_the_engines_words(rules, message):
    room, _, display = lobby()
    out = send(room, display, type="host", cmd="start", variant="party", house_rules=rules)
    assert [m[: len(message)] for m in refused(out)] == [message]
    assert room.match is None


def test_an_unknown_party_rule_names_the_known_ones():
    room, _, display = lobby()
    out = send(room, display, type="host", cmd="start", variant="party", house_rules={"jump": 1})
    assert refused(out)[0].startswith("house rules: unknown rule 'jump' for UNO Party! (known: ")


def test_party_seats_sixteen_and_the_others_ten():
    room, _phones, display = lobby(seats=16)
    out = send(room, display, type="host", cmd="start", variant="classic")
    assert refused(out) == ["a match takes 2 to 10 players, not 16"]
    out = send(room, display, type="host", cmd="start", variant="party")
    assert refused(out) == []
    assert room.game.players == 16
    with pytest.raises(ValueError, match="2 to 16 seats"):
        Room(seats=17)


def test_the_variant_must_be_known():
    room, _, display = lobby()
    out = send(room, display, type="host", cmd="start", variant="chess")
    assert refused(out) == ["variant must be classic, showdown, party or pitch, not 'chess'"]


# -- speed play ---------------------------------------------------------------------------


def test_the_speed_button_lights_only_for_the_holder_of_the_identical_card():
    room, (ann, bob, cy), display = party_room(SPEED)
    assert view_of(room, bob)["you"]["speed"] == ["speed R5"]
    assert view_of(room, cy)["you"]["speed"] == ["speed R5"]
    ann_view = view_of(room, ann)
    assert ann_view["you"]["speed"] == []  # her turn: she plays
    # Wrong speed plays (a penalty) are never offered on a phone.
    legal = [a["action"] for a in view_of(room, bob)["you"]["legal"]]
    assert legal == ["speed R5"]
    assert view_of(room, bob)["you"]["prompt"] == "Speed play! You hold R5 (red 5): play it now."
    assert view_of(room, display)["party"]["speed_window"] is True


def test_the_first_speed_play_wins_and_a_later_one_is_too_late():
    room, (_ann, bob, cy), display = party_room(SPEED)
    assert refused(send(room, bob, type="act", action="speed R5", id=1)) == []
    assert room.game.hand(1) == PartyGame.from_notation(SPEED).hand(1)[1:]
    assert room.game.to_act == 2  # play goes on after Bob
    assert refused(send(room, cy, type="act", action="speed R5", id=1)) == [
        "too late: Bob played first"
    ]
    view = view_of(room, display)
    assert view["log"][0] == "Bob speed-plays R5 out of turn (2 left); Cy plays next."


def test_a_speed_play_after_the_turn_player_played_is_too_late():
    room, (ann, bob, _cy), _ = party_room(SPEED)
    assert refused(send(room, ann, type="act", action="R7", id=1)) == []
    assert refused(send(room, bob, type="act", action="speed R5", id=1)) == [
        "too late: Ann played first"
    ]
    assert len(room.game.hand(1)) == 3  # no penalty for the lag


def test_a_wrong_speed_play_from_a_phone_is_refused_not_penalised():
    room, (_, bob, _), _ = party_room(SPEED)
    out = send(room, bob, type="act", action="speed B1", id=1)
    assert refused(out) == [
        "speed B1 is not legal now: a speed play needs the identical card (R5 is on top) "
        "before the player to act plays"
    ]
    assert len(room.game.hand(1)) == 3


# -- catches ------------------------------------------------------------------------------


def test_anyone_may_catch_a_player_without_uno_and_a_second_catch_is_too_late():
    # Bob speed-plays his R5 down to one card without UNO: Ann and Cy may catch him.
    notation = "party R7,G7/R5,B1/Y3,W G1,G2,G3,G4 R1,R5 R + 0 play - - 0,0,0 2 1 500 - 1:0 -"
    room, (ann, bob, cy), _display = party_room(notation)
    send(room, bob, type="act", action="speed R5", id=1)
    assert room.game.catchable == 1
    cy_legal = [a["action"] for a in view_of(room, cy)["you"]["legal"]]
    assert "catch 1" in cy_legal
    assert "catch 1" in [a["action"] for a in view_of(room, ann)["you"]["legal"]]
    assert refused(send(room, ann, type="act", action="catch 1", id=1)) == []
    assert len(room.game.hand(1)) == 3
    assert refused(send(room, cy, type="act", action="catch 1", id=2)) == [
        "too late: Ann caught Bob first"
    ]


# -- pointing -----------------------------------------------------------------------------


def test_each_pointing_choice_reaches_only_its_own_phone_until_the_last_is_in():
    room, (ann, bob, cy), display = party_room(POINT)
    for conn in (ann, bob, cy, display):
        taken(room, conn)
    send(room, ann, type="act", action="RP", id=1)
    view = view_of(room, display)
    assert view["phase"] == "point"
    assert view["party"]["point"] == {"by": 0, "waiting": [0, 1, 2], "pointed": []}
    frames = {conn: [] for conn in (ann, bob, cy, display)}

    def collect():
        for conn, seen in frames.items():
            seen += taken(room, conn)

    send_keep = room.receive
    send_keep(ann, json.dumps({"type": "act", "action": "point 1", "id": 2}))
    collect()
    send_keep(bob, json.dumps({"type": "act", "action": "point 0", "id": 3}))
    collect()
    ann_view = last_view(frames[ann])
    assert ann_view["you"]["point"]["chosen"] == 1
    assert ann_view["you"]["prompt"] == "You point at Bob. Waiting for 1 more."
    assert last_view(frames[display])["party"]["point"]["pointed"] == [0, 1]
    # Nothing of Ann's choice in anyone else's frames, nor Bob's in Ann's.
    for conn, own in ((ann, 0), (bob, 1), (cy, 2), (display, None)):
        for message in frames[conn]:
            if message["type"] != "view":
                continue
            v = message["view"]
            assert v["party"]["reveal"] is None
            you = v["you"]
            chosen = None if you is None or you["point"] is None else you["point"]["chosen"]
            if own is None or own == 2:
                assert chosen is None
            text = json.dumps(v)
            if own != 0:
                assert "You point at Bob" not in text
            if own != 1:
                assert "You point at Ann" not in text
    # Cy's is the last: everyone's pointing is revealed at once.
    assert refused(send(room, cy, type="act", action="point 1", id=4)) == []
    reveal = view_of(room, display)["party"]["reveal"]
    assert reveal["choices"] == [
        {"seat": 0, "target": 1},
        {"seat": 1, "target": 0},
        {"seat": 2, "target": 1},
    ]
    assert reveal["draws"] == [{"seat": 0, "cards": 1}, {"seat": 1, "cards": 2}]
    assert room.game.hand_sizes == (3, 4, 2)


def test_pointing_refusals():
    room, (ann, bob, _cy), _ = party_room(POINT)
    send(room, ann, type="act", action="RP", id=1)
    assert refused(send(room, bob, type="act", action="draw", id=2)) == [
        "everyone points now: point at a player (point N)"
    ]
    assert refused(send(room, bob, type="act", action="point 1", id=3)) == [
        "point 1 is not legal now (point at another player still playing)"
    ]
    send(room, bob, type="act", action="point 2", id=4)
    assert refused(send(room, bob, type="act", action="point 0", id=5)) == [
        "you have pointed already"
    ]


def test_a_save_mid_pointing_keeps_the_choices_hidden_and_resumes_them():
    room, (ann, _bob, _cy), _display = party_room(POINT)
    send(room, ann, type="act", action="RP", id=1)
    send(room, ann, type="act", action="point 2", id=2)
    snapshot = room.snapshot()
    assert snapshot["notation"].endswith("point=2,-,-")  # the server's own file
    again = Room(seats=3, rng=random.Random(9))
    again.restore(json.loads(json.dumps(snapshot)))
    phones = [hello(again, "phone", f"secret-{n}") for n in range(3)]
    shown = hello(again)
    views = [view_of(again, conn) for conn in (*phones, shown)]
    assert views[0]["you"]["point"]["chosen"] == 2
    assert views[0]["you"]["prompt"] == "You point at Cy. Waiting for 2 more."
    for v in views[1:]:
        assert "You point at" not in json.dumps(v)
        assert v["party"]["point"]["pointed"] == [0]
    assert views[1]["you"]["point"]["chosen"] is None
    send(again, phones[1], type="act", action="point 2", id=1)
    send(again, phones[2], type="act", action="point 0", id=1)
    assert view_of(again, shown)["party"]["reveal"]["choices"][0] == {"seat": 0, "target": 2}


# -- the pile and the link ----------------------------------------------------------------


def test_the_mini_pile_and_its_turn_are_public():
    room, phones, display = party_room(PILE, people=4)
    pile = view_of(room, display)["party"]["pile"]
    assert [card["text"] for card in pile["cards"]] == ["W", "G3"]
    assert pile["colour"] == "G" and pile["colour_name"] == "green" and pile["turn"] == 2
    cy = view_of(room, phones[2])["you"]
    assert cy["prompt"] == "Pile up! Add a green card or a wild to the pile (2 cards)."
    assert [a["action"] for a in cy["legal"]] == ["G4", "G4 uno"]
    assert cy["legal"][0]["label"] == "add green 4 to the pile"
    assert refused(send(room, phones[2], type="act", action="G4 uno", id=1)) == []
    assert [c["text"] for c in view_of(room, display)["party"]["pile"]["cards"]] == [
        "W",
        "G3",
        "G4",
    ]
    di = view_of(room, phones[3])["you"]
    assert di["prompt"] == "Pile up! You cannot add a green card: take the pile (3 cards)."
    assert di["legal"] == [{"action": "take", "label": "take the pile (3 cards)"}]
    assert refused(send(room, phones[3], type="act", action="take", id=1)) == []
    assert view_of(room, display)["party"]["pile"] is None
    assert view_of(room, display)["log"][0] == "Di takes the mini pile: 3 cards."


def test_the_link_is_public_and_a_drawn_together_is_offered_as_a_choice():
    room, phones, display = party_room(LINKED, people=4)
    assert view_of(room, display)["party"]["link"] == [1, 3]
    ann = view_of(room, phones[0])["you"]
    assert ann["link_play"] == {
        "card": "WT",
        "colours": ["R", "Y", "G", "B"],
        "players": [0, 1, 2, 3],
        "self": True,
        "uno": [False],
    }
    assert not any(a["action"].startswith("WT=") for a in ann["legal"])
    assert next(c for c in ann["hand"] if c["text"] == "WT")["legal"] is True
    assert refused(send(room, phones[0], type="act", action="WT=G 0+2", id=1)) == []
    assert view_of(room, display)["party"]["link"] == [0, 2]


# -- every field a phone gets is its own or public ----------------------------------------


def test_a_phone_gets_only_its_own_hand_and_choice_in_a_party_round_with_bots():
    game = PartyGame.new(6, seed=11)
    room, phones, display = party_room(game.notation(), people=2, bots=(2, 3, 4, 5))
    seat_of = {phones[0]: 0, phones[1]: 1, display: None}
    frames = {conn: [] for conn in seat_of}
    ids = iter(range(10_000))
    for _ in range(600):
        task = room.next_task()
        if task == "claims":
            room.claims_step()
        elif task == "bot":
            room.bot_step()
        elif room.game.round_over:
            break
        else:  # a person's turn or choice: the first thing their phone offers
            waiting = [n for n in room.game.waiting_for if n < 2]
            if not waiting:
                break
            conn = phones[waiting[0]]
            legal = room.view_for(conn)["you"]["legal"]
            send(room, conn, type="act", action=legal[0]["action"], id=next(ids))
        for conn, seen in frames.items():
            seen += taken(room, conn)
    assert sum(len(seen) for seen in frames.values()) > 50
    for conn, seen in frames.items():
        for message in seen:
            if message["type"] != "view":
                continue
            view = dict(message["view"])
            you = view.pop("you")
            assert (None if you is None else you["seat"]) == seat_of[conn]
            assert not has_key(view, "hand") and not has_key(view, "legal")
            if view["party"]["point"] is not None:
                assert view["party"]["reveal"] is None or view["party"]["point"]["pointed"]


def test_the_bots_claim_through_the_runner():
    # Bob (a heuristic bot) holds the identical R5 while Ann (a person) is to act.
    room, (_ann, cy), display = party_room(SPEED, bots=(1,))
    run_runner(room, until=lambda: room.game.to_act != 0)
    assert room.game.to_act == 2
    assert (
        view_of(room, display)["log"][0]
        == "bot1 speed-plays R5 out of turn (2 left); Cy plays next."
    )
    assert refused(send(room, cy, type="act", action="speed R5", id=1)) == [
        "too late: bot1 played first"
    ]
    assert room.claim_delay() == 0.23  # the Runner waits the fastest bot's reaction


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seats", "12"], "--seats 12: more than 10 seats only for UNO Party! (--variant party)"),
        (["--seats", "17", "--variant", "party"], "argument --seats"),
        (["--variant", "party", "--companion"], "--variant party is played with phones"),
    ],
)
def test_the_table_command_seats_sixteen_for_party_only(argv, message):
    import argparse

    from engine.apps.table.table_cmd import add_arguments, command
    from firmware_host.people.console import UsageError

    parser = argparse.ArgumentParser(exit_on_error=False)
    add_arguments(parser)
    with pytest.raises((UsageError, argparse.ArgumentError), match=re.escape(message)):
        command(parser.parse_args(argv))
