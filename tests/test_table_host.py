"""The browser table's room and its host, driven directly (no server, no browser,
no clock): the host's pause, a seat handed to a bot and back, setting up the match
(the bots' skill, the house rules)."""

from __future__ import annotations

import json

import pytest

from tests.room_helpers import (
    SHOWDOWN_NEXT,
    bots_turn,
    hello,
    host,
    last_view,
    make_room,
    phone,
    refusals,
    run_runner,
    send,
    shown,
    start,
    taken,
    turn_of,
    two_people,
)

# -- the host pauses and resumes ------------------------------------------------------------

HOST_PAUSED = "the host paused the game: wait until the host resumes it"


def test_the_host_pauses_and_nothing_moves_until_the_host_resumes():
    room = make_room(seats=3)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    bots_turn(room, ann)
    notation = room.game.notation()
    taken(room, ann)
    view = last_view(host(room, display, "pause"))
    assert view["host_paused"] is True and view["paused"] is None
    assert view["log"][0] == "The host paused the game."
    assert last_view(taken(room, ann))["host_paused"] is True
    assert room.next_task() is None
    assert room.game.notation() == notation
    view = last_view(host(room, display, "resume"))
    assert view["host_paused"] is False and view["log"][0] == "The host resumed the game."
    assert room.next_task() == "bot"


def test_while_the_host_has_paused_every_action_of_a_phone_is_refused_with_why():
    room, display, ann, bob = two_people()
    me, _ = turn_of(room, ann, bob)
    host(room, display, "pause")
    legal = room.view_for(me)["you"]["legal"]
    assert refusals(send(room, me, type="act", action=legal[0]["action"], id="p1")) == [
        {"type": "refused", "id": "p1", "message": HOST_PAUSED}
    ]
    host(room, display, "resume")
    assert refusals(send(room, me, type="act", action=legal[0]["action"], id="p2")) == []


@pytest.mark.parametrize(
    ("before", "cmd", "refused"),
    [
        ([], "pause", "no match is being played"),
        (["start"], "resume", "the game is not paused by the host"),
        (["start", "pause"], "pause", "the game is paused by the host already"),
        (["start", "pause"], "next_round", HOST_PAUSED),
    ],
)
def test_pause_and_resume_are_refused_when_they_make_no_sense(before, cmd, refused):
    room = make_room()
    display = hello(room)
    phone(room, 0, "Ann")
    for earlier in before:
        assert refusals(host(room, display, earlier)) == []
    assert refusals(host(room, display, cmd))[0]["message"] == refused


def test_a_host_pause_is_not_a_unit_problem_each_is_cleared_by_its_own_command():
    room = make_room(seats=2)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    send(room, ann, type="act", action="R5!2", id=1)
    room.showdown_request()
    room.pause("the unit is unreachable")
    host(room, display, "pause")
    view = last_view(host(room, display, "resume"))
    assert view["paused"] == "the unit is unreachable" and view["host_paused"] is False
    host(room, display, "pause")
    view = last_view(host(room, display, "retry"))
    assert view["paused"] is None and view["host_paused"] is True
    assert room.next_task() is None
    host(room, display, "resume")
    assert room.next_task() == "showdown"


def test_a_showdown_named_before_the_host_paused_waits_armed_and_is_the_same_after():
    room = make_room(seats=2)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    send(room, ann, type="act", action="R5!2", id=1)
    first = room.showdown_request()
    host(room, display, "pause")
    room.hold_showdown()  # the runner does this when the host paused during its pace
    assert room.next_task() is None
    assert room.public()["showdown"]["stage"] == "armed"
    host(room, display, "resume")
    assert room.next_task() == "showdown"
    assert room.showdown_request() == first


def test_a_showdown_already_at_the_unit_gets_its_verdict_then_the_game_waits():
    room = make_room(seats=2)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    send(room, ann, type="act", action="R5!2", id=1)
    request = room.showdown_request()
    host(room, display, "pause")
    room.finish_showdown(room.unit.run_showdown(request))
    assert room.match.showdowns == 1 and room.game.pending_showdown is None
    assert room.host_paused and room.next_task() is None


def test_the_runner_holds_a_showdown_when_the_host_pauses_during_its_pace():
    room = make_room(seats=2)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    send(room, ann, type="act", action="R5!2", id=1)
    named = room.showdown_request

    def named_then_paused():
        request = named()
        host(room, display, "pause")  # while the runner waits its pace
        return request

    room.showdown_request = named_then_paused
    run_runner(room, lambda: False)
    assert room.match.showdowns == 0 and room.game.pending_showdown is not None
    assert room.next_task() is None and room.showdown["stage"] == "armed"


def test_a_game_paused_by_the_host_is_saved_and_resumes_paused(tmp_path):
    path = tmp_path / "table.json"
    room = make_room(seats=3, save=path)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display)
    bots_turn(room, ann)
    host(room, display, "pause")
    saved = json.loads(path.read_text())
    assert saved["host_paused"] is True
    again = make_room(seats=3)
    again.restore(saved)
    screen = hello(again)
    assert last_view(taken(again, screen))["host_paused"] is True
    assert again.next_task() is None
    host(again, screen, "resume")
    assert again.next_task() == "bot"


# -- a seat handed to a bot and back ------------------------------------------------------

BOT_PLAYS = "A bot plays for you: take your seat back to play."


def test_the_host_hands_a_persons_seat_to_a_bot_and_back():
    room, display, ann, bob = two_people()
    turn_of(room, ann, bob)
    for conn in (display, ann, bob):
        taken(room, conn)
    view = last_view(host(room, display, "hand_to_bot", seat=0))
    seat = view["seats"][0]
    assert (seat["name"], seat["kind"], seat["bot_playing"]) == ("Ann", "person", True)
    assert view["log"][0] == "A bot plays for Ann."
    you = last_view(taken(room, ann))["you"]
    assert sorted(c["text"] for c in you["hand"]) == sorted(str(c) for c in room.game.hand(0))
    assert you["legal"] == [] and not any(c["legal"] for c in you["hand"])
    assert you["bot_playing"] is True and you["prompt"] == BOT_PLAYS
    assert last_view(taken(room, bob))["you"]["bot_playing"] is False
    for n in range(50):  # the bot plays Ann's turns; Bob still plays his own
        task = room.next_task()
        if room.game.to_act == 0:
            assert task == "bot"
        if task == "bot":
            room.bot_step()
        elif task == "showdown":
            room.finish_showdown(room.unit.run_showdown(room.showdown_request()))
        elif task is None and room.game.to_act == 1:
            legal = room.view_for(bob)["you"]["legal"]
            send(room, bob, type="act", action=legal[0]["action"], id=f"p-{n}")
        else:
            break
    view = last_view(host(room, display, "hand_back", seat=0))
    assert view["seats"][0]["bot_playing"] is False and view["log"][0] == "Ann plays again."
    assert room.view_for(ann)["you"]["bot_playing"] is False
    if room.game.to_act == 0 and not room.game.round_over:
        assert room.next_task() is None


def test_a_phone_whose_seat_a_bot_plays_is_refused_and_takes_the_seat_back_itself():
    room, display, ann, bob = two_people()
    me, _ = turn_of(room, ann, bob)
    host(room, display, "hand_to_bot", seat=me.seat)
    assert room.next_task() == "bot"
    assert refusals(send(room, me, type="act", action="draw", id="x")) == [
        {
            "type": "refused",
            "id": "x",
            "message": "a bot plays for you: take your seat back first",
        }
    ]
    view = last_view(send(room, me, type="take_back"))
    assert view["you"]["bot_playing"] is False and view["you"]["legal"]
    name = room.names[me.seat]
    assert view["log"][0] == f"{name} plays again."
    assert room.next_task() is None
    assert refusals(send(room, me, type="take_back")) == [
        {"type": "refused", "id": None, "message": "you play your seat already"}
    ]


@pytest.mark.parametrize(
    ("cmd", "seat", "refused"),
    [
        ("hand_to_bot", 2, "seat 2 is a bot's: only a person's seat is handed to a bot"),
        ("hand_to_bot", 3, "seat must be a number from 0 to 2"),
        ("hand_to_bot", "0", "seat must be a number from 0 to 2"),
        ("hand_back", 1, "no bot plays for Bob"),
        ("hand_back", 2, "seat 2 is a bot's: only a person's seat is handed back"),
    ],
)
def test_bad_hand_overs_are_refused(cmd, seat, refused):
    room, display, *_ = two_people()
    taken(room, display)
    assert refusals(host(room, display, cmd, seat=seat))[0]["message"] == refused


def test_a_hand_over_needs_a_match():
    room = make_room(seats=2)
    display = hello(room)
    phone(room, 0, "Ann")
    assert refusals(host(room, display, "hand_to_bot", seat=0))[0]["message"] == (
        "no match is being played"
    )


def _showdown_out_for_ann(tmp_path=None):
    """Ann, playing her own seat, has started a showdown now out at the unit."""
    room = make_room(seats=2, save=None if tmp_path is None else tmp_path / "table.json")
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display, bot="heuristic", reaction_ms=400)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    send(room, ann, type="act", action="R5!2", id=1)
    request = room.showdown_request()
    assert 0 not in request.bots  # Ann presses her own paddle
    return room, display, ann, request


def test_a_seat_handed_to_a_bot_during_a_showdown_is_the_bots_after_the_verdict():
    room, display, ann, request = _showdown_out_for_ann()
    view = last_view(host(room, display, "hand_to_bot", seat=0))  # not refused: it waits
    assert view["log"][0] == "A bot plays for Ann after this showdown."
    assert not room.seats[0].bot_playing and 0 not in room.bots  # she fights this one
    you = room.view_for(ann)["you"]
    assert you["bot_playing"] is False and you["bot_after_showdown"] is True
    assert refusals(host(room, display, "hand_to_bot", seat=0)) == []  # a second tap: no change
    assert room.log.count("A bot plays for Ann after this showdown.") == 1
    room.finish_showdown(room.unit.run_showdown(request))
    assert room.seats[0].bot_playing and 0 in room.bots and 0 in room.match.bots
    assert room.log[0] == "A bot plays for Ann."
    you = room.view_for(ann)["you"]
    assert you["bot_playing"] is True and you["bot_after_showdown"] is False


def test_a_phone_keeps_its_seat_that_waits_to_be_handed_to_a_bot():
    room, display, ann, request = _showdown_out_for_ann()
    host(room, display, "hand_to_bot", seat=0)
    assert refusals(send(room, ann, type="take_back")) == []
    assert room.log[0] == "Ann keeps playing." and not room.seats[0].bot_after_showdown
    room.finish_showdown(room.unit.run_showdown(request))
    assert not room.seats[0].bot_playing and 0 not in room.bots
    assert refusals(send(room, ann, type="take_back"))[0]["message"] == (
        "you play your seat already"
    )


def test_the_host_keeps_a_seat_with_its_person_before_the_verdict():
    room, display, _, request = _showdown_out_for_ann()
    host(room, display, "hand_to_bot", seat=0)
    assert refusals(host(room, display, "hand_back", seat=0)) == []
    assert room.log[0] == "Ann keeps playing."
    room.finish_showdown(room.unit.run_showdown(request))
    assert not room.seats[0].bot_playing


def test_a_seat_waiting_to_be_handed_to_a_bot_is_saved_and_handed_over_after_the_verdict(
    tmp_path,
):
    room, display, _, _ = _showdown_out_for_ann(tmp_path)
    host(room, display, "hand_to_bot", seat=0)
    saved = json.loads((tmp_path / "table.json").read_text())
    assert saved["seats"][0]["bot_after_showdown"] is True
    again = make_room(seats=2)
    again.restore(saved)
    assert again.seats[0].bot_after_showdown and not again.seats[0].bot_playing
    renamed = again.showdown_request()
    assert 0 not in renamed.bots  # the same showdown, Ann pressing as before
    again.finish_showdown(again.unit.run_showdown(renamed))
    assert again.seats[0].bot_playing and 0 in again.bots


def test_a_bot_playing_for_a_person_presses_for_them_on_the_unit_under_their_name():
    room = make_room(seats=2)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display, bot="heuristic", reaction_ms=400)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    host(room, display, "hand_to_bot", seat=0)
    room.bot_step()  # Ann's bot plays
    assert room.next_task() == "showdown"
    request = room.showdown_request()
    assert request.challenger_name == "Ann" and request.bots[0] == 400.0
    taken(room, ann)


def _showdown_out_with_a_bot_for_ann(tmp_path=None):
    """Ann's seat, handed to a bot, has started a showdown now out at the unit."""
    room = make_room(seats=2, save=None if tmp_path is None else tmp_path / "table.json")
    display = hello(room)
    ann = phone(room, 0, "Ann")
    start(room, display, bot="heuristic", reaction_ms=400)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    host(room, display, "hand_to_bot", seat=0)
    room.bot_step()  # Ann's bot plays the card that starts the showdown
    request = room.showdown_request()
    assert request.bots[0] == 400.0
    return room, display, ann, request


def test_a_seat_taken_back_during_a_showdown_is_played_by_its_phone_after_the_verdict():
    room, _, ann, request = _showdown_out_with_a_bot_for_ann()
    view = last_view(send(room, ann, type="take_back"))  # not refused: it waits
    assert view["log"][0] == "Ann plays again after this showdown."
    assert view["you"]["bot_playing"] is True and view["you"]["back_after_showdown"] is True
    assert view["you"]["prompt"] == "You play again after this showdown."
    assert room.bots[0].reaction_ms == 400.0  # the showdown is settled as it was named
    assert refusals(send(room, ann, type="take_back")) == []  # a second tap changes nothing
    assert room.log.count("Ann plays again after this showdown.") == 1
    room.finish_showdown(room.unit.run_showdown(request))
    assert not room.seats[0].bot_playing and 0 not in room.bots and 0 not in room.match.bots
    assert room.log[0] == "Ann plays again."
    you = room.view_for(ann)["you"]
    assert you["bot_playing"] is False and you["back_after_showdown"] is False


def test_the_host_hands_a_seat_back_during_a_showdown_and_it_comes_back_after_the_verdict():
    room, display, _, request = _showdown_out_with_a_bot_for_ann()
    assert refusals(host(room, display, "hand_back", seat=0)) == []
    assert room.seats[0].bot_playing and room.log[0] == "Ann plays again after this showdown."
    room.finish_showdown(room.unit.run_showdown(request))
    assert not room.seats[0].bot_playing and room.log[0] == "Ann plays again."


def test_a_seat_taken_back_during_a_showdown_is_saved_and_comes_back_after_the_verdict(
    tmp_path,
):
    room, _, ann, _ = _showdown_out_with_a_bot_for_ann(tmp_path)
    send(room, ann, type="take_back")
    saved = json.loads((tmp_path / "table.json").read_text())
    assert saved["seats"][0]["back_after_showdown"] is True
    again = make_room(seats=2)
    again.restore(saved)
    assert again.seats[0].bot_playing and again.seats[0].back_after_showdown
    assert again.next_task() == "showdown"
    renamed = again.showdown_request()
    assert renamed.bots[0] == 400.0  # the same showdown, pressed for as before
    again.finish_showdown(again.unit.run_showdown(renamed))
    assert not again.seats[0].bot_playing and 0 not in again.bots


def test_a_new_match_forgets_a_seat_waiting_to_come_back():
    room, display, ann, request = _showdown_out_with_a_bot_for_ann()
    send(room, ann, type="take_back")
    room.finish_showdown(room.unit.run_showdown(request))
    host(room, display, "end")
    assert not any(seat.back_after_showdown for seat in room.seats)


def test_ending_the_match_at_a_paused_showdown_forgets_a_seat_waiting_for_a_bot():
    room, display, _, _ = _showdown_out_for_ann()
    host(room, display, "hand_to_bot", seat=0)
    room.pause("the unit does not answer")  # no verdict: the host may end the match
    assert refusals(host(room, display, "end")) == []
    assert not room.seats[0].bot_after_showdown and not room.seats[0].bot_playing


def test_no_card_of_a_hand_a_bot_plays_reaches_anyone_but_its_persons_phone():
    room, display, ann, bob = two_people(seed=11)
    host(room, display, "hand_to_bot", seat=0)
    for conn in (display, ann, bob):
        taken(room, conn)
    public: set[str] = set()
    ids = iter(range(10_000))
    while not room.game.round_over:
        game = room.game
        public |= {str(card) for card in game.discard_pile}
        public |= {e.data["card"] for e in room.match.events if e.kind == "play"}
        hidden = {str(card) for card in game.hand(0)} - public
        to_display, to_bob = taken(room, display), taken(room, bob)
        leaks = [t for t in hidden if shown(to_display, t)]
        leaks += [t for t in hidden - {str(c) for c in game.hand(1)} if shown(to_bob, t)]
        assert leaks == [], f"Ann's {leaks} reached the display or Bob in {game.notation()}"
        to_ann = taken(room, ann)
        assert all(m["view"]["you"]["seat"] == 0 for m in to_ann if m["type"] == "view")
        task = room.next_task()
        if task == "bot":
            room.bot_step()
        elif task == "showdown":
            room.finish_showdown(room.unit.run_showdown(room.showdown_request()))
        else:
            legal = room.view_for(bob)["you"]["legal"]
            send(room, bob, type="act", action=legal[0]["action"], id=next(ids))


def test_a_seat_a_bot_plays_is_saved_and_restored(tmp_path):
    path = tmp_path / "table.json"
    room = make_room(seats=3, save=path)
    display = hello(room)
    phone(room, 0, "Ann")
    start(room, display, bot="random", reaction_ms=300)
    host(room, display, "hand_to_bot", seat=0)
    saved = json.loads(path.read_text())
    assert saved["seats"][0]["bot_playing"] is True
    again = make_room(seats=3)
    again.restore(saved)
    assert again.seats[0].bot_playing and again.seats[0].name == "Ann"
    assert type(again.bots[0]).__name__ == "RandomBot"
    assert again.bots[0].reaction_ms == again.match.bots[0] == 300.0
    back = hello(again, "phone", secret=room.seats[0].secret)
    assert last_view(taken(again, back))["you"]["bot_playing"] is True
    send(again, back, type="take_back")
    assert 0 not in again.bots  # the phone decides again


def test_a_new_match_gives_every_person_their_seat_back():
    room, display, _, _ = two_people()
    host(room, display, "hand_to_bot", seat=0)
    host(room, display, "end")
    assert not room.seats[0].bot_playing
    start(room, display)
    assert not room.seats[0].bot_playing
    assert 0 not in room.bots and 0 not in room.match.bots  # the phone decides


# -- setting up the match -----------------------------------------------------------------


def test_the_host_sets_up_bots_skill_and_house_rules_and_the_display_shows_them(tmp_path):
    path = tmp_path / "table.json"
    room = make_room(seats=4, save=path)
    display = hello(room)
    phone(room, 0, "Ann")
    house = {
        "stacking": True,
        "draw_until_playable": True,
        "uno_penalty": 4,
        "first_card": "flip",
        "showdown_cards": [2, 4],
    }
    view = last_view(
        start(
            room,
            display,
            variant="showdown",
            target=300,
            bot="random",
            reaction_ms=450,
            house_rules=house,
        )
    )
    assert str(room.game.house_rules) == "stack,until,uno=4,first=flip,ws=2-4"
    assert view["house_rules"] == {**house, "text": "stack,until,uno=4,first=flip,ws=2-4"}
    assert view["rules"] == [
        "Showdown to 300 points",
        "bots: random, react in 450 ms",
        "stacking +2 and +4: on",
        "draw until playable: on",
        "UNO penalty: 4 cards",
        "first card: flip",
        "Wild Showdown: 2 to 4 cards",
    ]
    assert view["bots"] == {"kind": "random", "reaction_ms": 450.0}
    bots = room.bots
    assert sorted(bots) == [1, 2, 3] and {type(b).__name__ for b in bots.values()} == {"RandomBot"}
    assert {b.reaction_ms for b in bots.values()} == {450.0} and room.match.bots[1] == 450.0
    saved = json.loads(path.read_text())
    again = make_room(seats=4)
    again.restore(saved)
    assert str(again.game.house_rules) == "stack,until,uno=4,first=flip,ws=2-4"
    assert again.public()["bots"] == {"kind": "random", "reaction_ms": 450.0}
    assert [type(again.bots[n]).__name__ for n in (1, 2, 3)] == ["RandomBot"] * 3


def test_the_default_setup_is_heuristic_bots_and_no_house_rules():
    room = make_room(seats=2)
    display = hello(room)
    phone(room, 0, "Ann")
    view = last_view(start(room, display, variant="classic", house_rules="uno=3"))
    assert view["bots"] == {"kind": "heuristic", "reaction_ms": 230.0}
    assert view["house_rules"]["text"] == "uno=3"
    assert view["rules"] == [
        "Classic to 500 points",
        "bots: heuristic, react in 230 ms",
        "stacking +2 and +4: off",
        "draw until playable: off",
        "UNO penalty: 3 cards",
        "first card: return (the variant's)",
    ]
    assert type(room.bots[1]).__name__ == "HeuristicBot"


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        ({"bot": "smart"}, "bot must be heuristic, random or strong, not 'smart'"),
        (
            {"reaction_ms": 50},
            "reaction_ms of the bots must be a number from 100 to 1000 (ms, the median of its "
            "reaction after GO), not 50",
        ),
        (
            {"reaction_ms": True},
            "reaction_ms of the bots must be a number from 100 to 1000 (ms, "
            "the median of its reaction after GO), not True",
        ),
        ({"house_rules": {"uno_penalty": 30}}, "house rules: uno_penalty must be 0-20, not 30"),
        ({"house_rules": {"uno_penalty": True}}, "house rules: uno_penalty must be 0-20, not True"),
        (
            {"house_rules": {"first_card": "burn"}},
            "house rules: first_card must be one of return, choose, flip, not 'burn'",
        ),
        (
            {"house_rules": {"showdown_cards": [3, 1]}},
            "house rules: showdown_cards must be (low, high) with 1 <= low <= high <= 7, "
            "not (3, 1)",
        ),
        (
            {"house_rules": {"showdown_cards": [1]}},
            "house rules: showdown_cards must be [low, high], not [1]",
        ),
        (
            {"house_rules": {"stacking": "yes"}},
            "house rules: stacking must be true or false, not 'yes'",
        ),
        (
            {"house_rules": {"jump_in": True}},
            "house rules: unknown rule 'jump_in' (known: stacking, draw_until_playable, "
            "uno_penalty, first_card, showdown_cards)",
        ),
        (
            {"house_rules": "stack,uno=x"},
            "invalid house rules 'stack,uno=x': unknown option 'uno=x' (options: stack, until, "
            "uno=N, first=return|choose|flip, ws=LOW-HIGH)",
        ),
        (
            {"house_rules": 3},
            "house rules: give an object of stacking, draw_until_playable, uno_penalty, "
            "first_card, showdown_cards (or their text, e.g. 'stack,uno=4'), not 3",
        ),
    ],
)
def test_a_bad_setup_is_refused_with_the_engines_words_and_nothing_starts(options, refused):
    room = make_room()
    display = hello(room)
    phone(room, 0, "Ann")
    taken(room, display)
    assert refusals(start(room, display, **options)) == [
        {"type": "refused", "id": None, "message": refused}
    ]
    assert room.match is None
    assert refusals(start(room, display)) == []  # the server keeps serving


def test_the_strong_bots_are_told_which_seats_people_play_as_seats_change_hands():
    room = make_room(seats=3)
    display = hello(room)
    phone(room, 0, "Ann"), phone(room, 1, "Bob")
    start(room, display, bot="strong")
    assert room.bots[2].people == {0, 1}
    host(room, display, "hand_to_bot", seat=0)
    assert room.bots[0].people == room.bots[2].people == {1}
    host(room, display, "hand_back", seat=0)
    assert room.bots[2].people == {0, 1}
