"""10 Point Pitch at the browser table, sans-IO (engine.apps.table.room with
engine.pitch.table): the host's form, a whole match of two people and two bots
with every frame to every connection checked for hidden cards, save and
resume, a face-down burn, the phones' taps and refusals."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import random

from engine.apps.table.room import Room
from engine.apps.table.setup import host_forms
from engine.pitch import PitchRules, is_trump
from tests.pitch_helpers import deal_game
from tests.pitch_table_checks import cards_shown, check_frames
from tests.room_helpers import hello, last_view, make_room, phone, refusals, send, start, taken
from tests.test_pitch_game import BIG


def pitch_room(seed=11, **options):
    """Ann (seat 0) and Bob (seat 1) with two bots (seats 2 and 3: their partners)."""
    room = make_room(seats=4, seed=seed)
    display = hello(room)
    ann, bob = phone(room, 0, "Ann"), phone(room, 1, "Bob")
    out = start(room, display, variant="pitch", bots=2, **options)
    assert refusals(out) == [], out
    return room, {"display": display, "Ann": ann, "Bob": bob}


_IDS = iter(range(10**6))  # the phones' action ids, never twice in a match


def act(room, conn, action):
    room.receive(conn, json.dumps({"type": "act", "action": action, "id": f"t{next(_IDS)}"}))


def step(room, people, rng) -> bool:
    """One decision (a bot's, or a person's: a legal action their phone offers)
    or the next hand; False when the match is over."""
    task = room.next_task()
    if task == "bot":
        room.bot_step()
    elif task == "next_round":
        room.next_round()
    else:
        game = room.game
        if game.round_over:
            return False
        conn = people[game.to_act]
        legal = room.view_for(conn)["you"]["legal"]
        plain = [a for a in legal if a["action"] != "bid moon"] or legal  # a match, not a Moon
        act(room, conn, rng.choice(plain)["action"])
    return True


def test_pitch_is_on_the_host_form_with_its_seats_bots_and_house_rules():
    form = host_forms()["pitch"]
    assert form["seats"] == 4 and form["target"] == 52
    assert [b["value"] for b in form["bots"]] == ["bot", "random", "strong"]
    assert {r["name"] for r in form["house_rules"]} == set(PitchRules.__dataclass_fields__)
    room = make_room(seats=4)
    display = hello(room)
    phone(room, 0, "Ann")
    assert refusals(start(room, display, variant="pitch", bots=1))[0]["message"] == (
        "10 Point Pitch takes exactly 4 players, not 2"
    )
    out = start(room, display, variant="pitch", bots=3, bot="heuristic")
    assert refusals(out)[0]["message"] == "bot must be bot, random or strong, not 'heuristic'"
    out = start(room, display, variant="pitch", bots=3, house_rules={"low": "nobody"})
    assert refusals(out)[0]["message"] == (
        "house rules: house rule low is 'taker' or 'holder', not 'nobody'"
    )
    out = start(room, display, variant="pitch", bots=3, house_rules={"low": "holder"})
    assert refusals(out) == []
    view = last_view(out)
    assert view["family"] == "pitch" and view["target"] == 52
    assert (
        view["house_rules"]["low"] == "holder"
        and "the 2 scores for the team that played it" in view["rules"]
    )
    assert room.game.players == 4 and str(room.game.rules) == "low=holder"
    assert [s.name for s in room.seats] == ["Ann", "bot1", "bot2", "bot3"]


def test_two_people_and_two_bots_play_a_match_to_52_and_no_frame_shows_a_hidden_card():
    room, conns = pitch_room(seed=12)
    people = {0: conns["Ann"], 1: conns["Bob"]}
    rng = random.Random(3)
    frames = check_frames(room, conns)
    for _ in range(5000):
        going = step(room, people, rng)
        frames += check_frames(room, conns)
        if not going:
            break
    game = room.game
    assert game.match_winner is not None
    assert max(game.team_scores) >= 52 or game.outcome.moon
    assert room.phase == "match_over"
    view = room.view_for(conns["display"])
    assert view["pitch"]["match_winner"] == game.match_winner
    assert view["pitch"]["winner_names"] in ("Ann and bot2", "Bob and bot3")
    assert game.round > 1 or game.outcome.moon, game.notation()
    print(f"{game.round} hands, {frames} frames checked")
    assert frames > 50 * game.round, (game.round, frames)


def test_the_phone_offers_only_legal_bids_then_the_suit_picker_the_stock_and_only_trumps():
    room, conns = pitch_room(seed=5)
    ann = conns["Ann"]
    people = {0: ann, 1: conns["Bob"]}
    rng = random.Random(1)
    seen: set[str] = set()
    for _ in range(400):
        game = room.game
        if game.to_act == 0 and room.next_task() is None and not game.round_over:
            you = room.view_for(ann)["you"]
            legal = [a["action"] for a in you["legal"]]
            assert legal == [str(a) for a in game.legal_actions(0)]
            kinds = {a["kind"] for a in you["legal"]}
            seen |= kinds
            tappable = {c["text"] for c in you["hand"] if c["legal"]}
            if kinds <= {"play", "burn"}:
                assert tappable == {a["card"] for a in you["legal"]}
            if game.trump is not None:  # the dead cards greyed: every non-trump
                assert [c["dead"] for c in you["hand"]] == [
                    not is_trump(c["text"], game.trump) for c in you["hand"]
                ]
            assert you["prompt"]
        if not step(room, people, rng) or room.game.round > 3:
            break
    assert {"bid", "pass"} & seen and "play" in seen


def test_a_refused_tap_is_said_in_the_players_words():
    room, conns = pitch_room(seed=2)
    ann, bob = conns["Ann"], conns["Bob"]
    people = {0: ann, 1: bob}
    while room.next_task() == "bot":
        room.bot_step()
    game = room.game
    waiting, other = (ann, bob) if game.to_act == 0 else (bob, ann)
    taken(room, other)
    act(room, other, "pass")
    assert refusals(taken(room, other))[0]["message"].startswith("it is not your turn: it is ")
    act(room, waiting, "bid 3")
    assert refusals(taken(room, waiting))[0]["message"] == (
        "'bid 3' is not an action: bids are 4 to 9 or moon"
    )
    assert people


def test_a_save_holds_the_revealed_hand_and_resumes_the_same_game(tmp_path):
    room, conns = pitch_room(seed=9)
    people = {0: conns["Ann"], 1: conns["Bob"]}
    rng = random.Random(4)
    check_frames(room, conns)
    while room.game.phase.value != "play" or not room.game.tricks:
        step(room, people, rng)
        check_frames(room, conns)
    saved = json.loads(json.dumps(room.snapshot()))
    assert saved["variant"] == "pitch" and saved["bot"] == "bot"
    assert saved["notation"] == room.game.notation(reveal=True)
    again = Room(seats=4, rng=random.Random(1))
    again.restore(saved)
    assert again.game.notation(reveal=True) == room.game.notation(reveal=True)
    assert again.game.legal_actions() == room.game.legal_actions()
    # The phones come back with their secrets: each its own hand, nothing else.
    display = hello(again)
    ann = hello(again, "phone", secret=room.seats[0].secret)
    bob = hello(again, "phone", secret=room.seats[1].secret)
    conns = {"display": display, "Ann": ann, "Bob": bob}
    assert ann.seat == 0 and bob.seat == 1
    assert [c["text"] for c in again.view_for(ann)["you"]["hand"]] == list(again.game.hand(0))
    check_frames(again, conns)
    people = {0: ann, 1: bob}
    hand = again.game.round
    while again.game.round == hand and step(again, people, rng):
        check_frames(again, conns)
    assert again.game.round == hand + 1 or again.game.match_winner is not None


def burning_room(rules: str):
    """Ann (seat 0) holds nine trumps with the stock kept: she burns three."""
    room, conns = pitch_room()
    game = deal_game(BIG, rules=rules, actions=["bid 5", "pass", "pass", "pass", "trump H"])
    game.apply("keep")
    check_frames(room, conns)
    saved = room.snapshot()
    saved.update(notation=game.notation(reveal=True), house_rules=rules)
    room.restore(saved)
    for conn in conns.values():
        room.receive(
            conn,
            json.dumps(
                {
                    "type": "hello",
                    "role": conn.role,
                    "secret": room.seats[conn.seat].secret if conn.seat is not None else None,
                    "host_key": room.host_key,
                }
            ),
        )
    return room, conns


def test_a_face_down_burn_reaches_no_other_screen_and_a_face_up_one_every_screen():
    for rules, shown_to_all in (("burn_face=down", False), ("-", True)):
        room, conns = burning_room(rules)
        check_frames(room, conns)
        you = room.view_for(conns["Ann"])["you"]
        burns = [a["action"] for a in you["legal"]]
        assert all(a.startswith("burn ") for a in burns) and len(burns) == 9
        assert {c["text"] for c in you["hand"] if c["legal"]} == {a[5:] for a in burns}
        burned = []
        while room.game.phase.value == "burn":
            card = room.view_for(conns["Ann"])["you"]["legal"][-1]["card"]
            burned.append(card)
            act(room, conns["Ann"], f"burn {card}")
            for who in ("display", "Bob"):
                frames = [json.loads(t) for t in room.take(conns[who])]
                assert frames
                shown = set().union(*(cards_shown(m) for m in frames))
                assert (set(burned) <= shown) == shown_to_all, (who, burned, shown)
            check_frames(room, conns)
        pitch = room.view_for(conns["display"])["pitch"]
        faces = [b["card"] for b in pitch["burned"]]
        assert len(faces) == 3
        assert all(f is None for f in faces) != shown_to_all


def test_a_person_hands_a_pitch_seat_to_a_bot_and_still_sees_only_their_hand():
    room, conns = pitch_room(seed=3)
    ann = conns["Ann"]
    out = send(room, conns["display"], type="host", cmd="hand_to_bot", seat=0)
    assert refusals(out) == []
    you = room.view_for(ann)["you"]
    assert you["bot_playing"] and you["legal"] == [] and you["prompt"].startswith("A bot plays")
    assert [c["text"] for c in you["hand"]] == list(room.game.hand(0))
    check_frames(room, conns)
    people = {1: conns["Bob"]}
    rng = random.Random(2)
    hand = room.game.round
    while room.game.round == hand and step(room, people, rng):
        check_frames(room, conns)
    assert room.game.round == hand + 1 or room.game.match_winner is not None


def test_the_table_command_offers_every_variant_the_room_plays():
    from engine.apps.table.setup import VARIANTS
    from engine.apps.table.table_cmd import _game_arguments

    parser = argparse.ArgumentParser()
    _game_arguments(parser)
    variant = next(a for a in parser._actions if a.dest == "variant")
    assert set(variant.choices) == set(VARIANTS)


def test_the_strong_bots_play_a_hand_at_the_table():
    room, conns = pitch_room(seed=4, bot="strong")
    assert room.bot_kind == "strong"
    assert type(room.bots[2]).__name__ != "RandomBot"
    people = {0: conns["Ann"], 1: conns["Bob"]}
    rng = random.Random(5)
    while room.game.round == 1 and step(room, people, rng):
        check_frames(room, conns)
    assert room.game.round == 2 or room.game.match_winner is not None


def test_the_host_form_fields_are_served_as_forms_json():
    from engine.apps.table.server import create_app

    app = create_app(make_room(seats=4), pace_s=0)
    route = next(r for r in app.routes if getattr(r, "path", None) == "/forms.json")
    # A loop of its own in a thread of its own: a browser test before this one may
    # leave Playwright's loop running in this thread.
    with concurrent.futures.ThreadPoolExecutor(1) as worker:
        response = worker.submit(asyncio.run, route.endpoint(None)).result()
    assert json.loads(response.body) == host_forms()
    assert response.headers["cache-control"] == "no-cache"


def test_every_house_rule_choice_has_its_sentence_on_the_display():
    from engine.pitch.rules import RULE_CHOICES
    from engine.pitch.table_views import RULE_SENTENCES, RULE_WORDS

    assert set(RULE_WORDS) == set(RULE_CHOICES)
    assert set(RULE_SENTENCES) == {(n, c) for n, choices in RULE_CHOICES.items() for c in choices}
    assert len(set(RULE_SENTENCES.values())) == len(RULE_SENTENCES)
