"""The cards a log line or a refusal names, said beside the text (card_marks): the
display's log and a phone's refusal draw them as chips; the text stays as it was."""

from __future__ import annotations

from engine.apps.table import card_marks
from tests.room_helpers import last_view, refusals, send, taken, turn_of, two_people


def test_each_log_line_carries_the_cards_its_event_named_and_a_phone_the_newest_only():
    room, display, ann, bob = two_people()
    me, _ = turn_of(room, ann, bob)
    taken(room, display)
    legal = [a["action"] for a in last_view(taken(room, me))["you"]["legal"]]
    card = next(a for a in legal if a != "draw" and not a.startswith("catch"))
    assert refusals(send(room, me, type="act", action=card, id=1)) == []
    view = last_view(taken(room, display))
    assert len(view["log_cards"]) == len(view["log"])
    played = card.split("=")[0]
    assert view["log"][0].startswith(f"{room.names[me.seat]} plays {played}")
    assert ["uno", played] in view["log_cards"][0]
    # the round's first line names the card turned up
    first = view["log"].index(next(line for line in view["log"] if line.startswith("Round 1:")))
    top = view["log"][first].split("; ")[1].split(" ")[0]
    assert view["log_cards"][first] == [["uno", top]]
    # a line about no card names none
    assert all(
        cards == []
        for line, cards in zip(view["log"], view["log_cards"], strict=True)
        if line.startswith("Match:")
    )
    phone_view = room.view_for(me)
    assert len(phone_view["log_cards"]) == len(phone_view["log"]) <= 5


def test_a_refused_card_is_named_beside_the_refusal_that_names_it_and_no_other():
    room, _display, ann, bob = two_people()
    me, other = turn_of(room, ann, bob)
    hand = {c["text"] for c in room.view_for(me)["you"]["hand"]}
    missing = next(t for t in ("R9", "Y9", "G9", "B9", "R8") if t not in hand)
    [refused] = refusals(send(room, me, type="act", action=missing, id=1))
    assert missing in refused["message"]
    assert refused["cards"] == [["uno", missing]]
    # out of turn: the refusal does not name the card, so nothing is said beside it
    [refused] = refusals(send(room, other, type="act", action=missing, id=2))
    assert missing not in refused["message"] and "cards" not in refused
    [refused] = refusals(send(room, other, type="act", action="draw", id=3))
    assert "cards" not in refused


def test_only_card_texts_are_cards_and_each_is_named_once():
    data = {"card": "R7!2", "top": "R7!2", "cause": "WS"}
    assert card_marks.event_cards(data, "R7!2 and WS") == [["uno", "R7!2"], ["uno", "WS"]]
    # only what the line names as a word: R7 inside R7!2 is not R7
    assert card_marks.event_cards({"card": "R7"}, "Ann plays R7!2.") == []
    assert card_marks.event_cards({"card": "R99", "player": 0}, "R99") == []
    assert card_marks.card_of("10H") is None and card_marks.card_of("TH") == ["pitch", "TH"]
