"""The browser table's views: the public part every connection sees, and the
private part (a hand, its legal actions, the prompt) for its owner alone."""

from __future__ import annotations

import json

from engine.uno.cards import Card
from engine.uno.game import Game
from engine.uno.rules import HouseRules
from engine.uno.table_views import (
    BOT_PLAYS,
    card_view,
    house_rules_view,
    private_view,
    prompt,
    public_view,
    rules_words,
)

NAMES = ["Ann", "Bob", "Cy"]


def game(text: str) -> Game:
    return Game.from_notation(text)


def public(g: Game) -> dict:
    seats = [
        {"seat": n, "name": name, "kind": "person", "connected": True, "drew": 0}
        for n, name in enumerate(NAMES[: g.players])
    ]
    return public_view(
        code="ABCD",
        join_url="http://192.168.1.20:8700/phone",
        seats=seats,
        game=g,
        phase=g.phase.value,
        variant="showdown",
        target=g.target,
        log=["Round 1: Ann deals."],
        showdown=None,
        paused=None,
    )


def test_a_card_has_its_text_colour_letter_and_name():
    assert card_view(Card.parse("B+2")) == {"text": "B+2", "colour": "B", "label": "blue Draw Two"}
    assert card_view(Card.parse("W+4"), legal=False) == {
        "text": "W+4",
        "colour": "W",
        "label": "Wild Draw Four",
        "legal": False,
    }


def test_the_private_view_sorts_the_hand_and_marks_what_may_be_played():
    g = game("showdown B1,W,R5,G2/B1,Y1,Y2 G1,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    you = private_view(g, 0, NAMES[:2])
    assert [(c["text"], c["legal"]) for c in you["hand"]] == [
        ("R5", True),
        ("G2", False),
        ("B1", True),
        ("W", True),
    ]
    assert sorted(a["action"] for a in you["legal"]) == sorted(
        ["B1", "R5", "W=R", "W=Y", "W=G", "W=B", "draw"]
    )
    assert you["legal"][0] == {"action": "B1", "label": "play blue 1"}
    assert you["prompt"] == "Your turn."


def test_a_player_whose_turn_it_is_not_has_a_hand_but_no_actions():
    g = game("showdown R5,W,G2/B1,Y1,Y2 G1,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    you = private_view(g, 1, NAMES[:2])
    assert [c["text"] for c in you["hand"]] == ["Y1", "Y2", "B1"]
    assert not any(c["legal"] for c in you["hand"])
    assert you["legal"] == [] and you["prompt"] == ""


def test_the_prompt_says_what_the_phase_asks():
    drawn = game("showdown R5,G2,R7/B1,Y1,Y2 G1,B2 R1 R + 0 drawn - - 0,0 1 1 500 - 1:0")
    assert prompt(drawn, 0, NAMES[:2]) == "You drew R7 (red 7): play it or keep it."
    penalty = game(
        "classic B1/G3,B4/Y9 Y3,G7,B2,R4,G6,B6,B7 R1,W+4 B + 1 penalty:4:legal 0 - 0,0,0 2 1 500 - 1:0"
    )
    assert prompt(penalty, 1, NAMES) == "Ann played W+4 at you: 4 cards to draw."
    assert prompt(penalty, 0, NAMES) == ""


def test_the_public_view_holds_no_hand_only_counts():
    g = game("showdown R5,W,G2/B1,Y1,Y2 G1,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    view = public(g)
    assert [(s["name"], s["cards"]) for s in view["seats"]] == [("Ann", 3), ("Bob", 3)]
    assert view["top"] == {"text": "R1", "colour": "R", "label": "red 1"}
    assert (view["turn"], view["colour"], view["direction"]) == (0, "R", 1)
    assert "you" not in view
    text = json.dumps(view)
    for card in ("R5", "G2", "Y1", "Y2", "B1"):
        assert f'"{card}"' not in text and f" {card}" not in text


def test_a_player_with_one_card_is_catchable_until_they_called_uno():
    caught = game("classic R5/B1,Y1,Y2 G1,B2,G3,G4 R1 R + 1 play 0 - 0,0 1 1 500 - 1:0")
    seat = public(caught)["seats"][0]
    assert (seat["cards"], seat["uno"], seat["catchable"]) == (1, False, True)
    called = game("classic R5/B1,Y1,Y2 G1,B2,G3,G4 R1 R + 1 play - - 0,0 1 1 500 - 1:0")
    seat = public(called)["seats"][0]
    assert (seat["cards"], seat["uno"], seat["catchable"]) == (1, True, False)


def test_the_owner_of_a_seat_a_bot_plays_sees_the_hand_but_nothing_to_do():
    g = game("showdown B1,W,R5,G2/B1,Y1,Y2 G1,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    you = private_view(g, 0, NAMES[:2], bot_playing=True)
    assert [c["text"] for c in you["hand"]] == ["R5", "G2", "B1", "W"]
    assert not any(c["legal"] for c in you["hand"])
    assert you["legal"] == [] and you["prompt"] == BOT_PLAYS and you["bot_playing"] is True
    assert private_view(g, 0, NAMES[:2])["bot_playing"] is False


def test_the_public_view_says_the_hosts_pause_and_the_rules_of_the_game_dealt():
    g = Game.new(2, "showdown", seed=1, target=200, house_rules=HouseRules.parse("stack,ws=2-3"))
    view = public_view(
        code="ABCD",
        join_url="",
        seats=[],
        game=g,
        phase=g.phase.value,
        variant="classic",  # the room's setting; the game dealt says showdown
        target=500,
        log=[],
        showdown=None,
        paused=None,
        host_paused=True,
        house_rules=HouseRules(),
        bot_kind="random",
        reaction_ms=300.0,
    )
    assert view["host_paused"] is True and view["paused"] is None
    assert view["house_rules"] == {
        "stacking": True,
        "draw_until_playable": False,
        "uno_penalty": 2,
        "first_card": None,
        "showdown_cards": [2, 3],
        "text": "stack,ws=2-3",
    }
    assert view["bots"] == {"kind": "random", "reaction_ms": 300.0}
    assert view["rules"][:3] == [
        "Showdown to 200 points",
        "bots: random, react in 300 ms",
        "stacking +2 and +4: on",
    ]


def test_the_rules_say_every_house_rule_and_a_showdown_range_only_for_showdown():
    assert rules_words("classic", 500, HouseRules(uno_penalty=1), "heuristic", 230.0) == [
        "Classic to 500 points",
        "bots: heuristic, react in 230 ms",
        "stacking +2 and +4: off",
        "draw until playable: off",
        "UNO penalty: 1 card",
        "first card: return (the variant's)",
    ]
    words = rules_words("showdown", 500, HouseRules(first_card="flip"), "heuristic", 180.5)
    assert words[1] == "bots: heuristic, react in 180.5 ms"
    assert words[-2:] == ["first card: flip", "Wild Showdown: 1 to 3 cards"]
    assert house_rules_view(HouseRules())["text"] == "-"
