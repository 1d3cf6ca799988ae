"""The driver plays UNO Party!: claims out of turn in reaction order, the pointing, the pile."""

import random
from collections import Counter

import pytest

from engine import Action, IllegalActionError, StateError
from engine.match import Driver, MatchEvent
from engine.units.ports import SimulatedUnit
from engine.uno import PartyGame, new_game, read_game
from engine.uno.bots import HeuristicBot, RandomBot
from engine.uno.narration import EVENT_KINDS, PARTY_EVENT_KINDS
from engine.uno.words import event_text

DRAW = "G1,G2,G3,G4,G5,G6,G7,G8,B7,B8"


def party(hands, discard="R1", colour="R", player=0, phase="play", uno="-", draw=DRAW, extra="-"):
    scores = ",".join("0" * len(hands.split("/")))
    return PartyGame.from_notation(
        f"party {hands} {draw} {discard} {colour} + {player} {phase} {uno} - "
        f"{scores} 1 1 500 - 1:0 {extra}"
    )


class Scripted:
    """An agent that plays the given action texts in order and claims the given
    claims (one per claims round it is asked in, None to pass)."""

    def __init__(self, *actions, claims=(), reaction_ms=230.0, name="scripted"):
        self.actions = list(actions)
        self.claim_list = list(claims)
        self.reaction_ms = reaction_ms
        self.name = name

    def act(self, game, player):
        return Action.parse(self.actions.pop(0))

    def react(self, game, player):
        claim = self.claim_list.pop(0) if self.claim_list else None
        return None if claim is None else Action.parse(claim)


def match_of(game, agents, **options):
    return Driver(game, agents, SimulatedUnit(random.Random(0)), rng=random.Random(1), **options)


def kinds(match, start=0):
    return [e.kind for e in match.events[start:]]


# -- claims ----------------------------------------------------------------------------------


def catch_game():
    # Player 2 holds one card and did not call UNO; an action card on top: no speed play.
    return party("R5,G7/B1,B2,G2/Y3/B3,B4,B5", discard="R1,R+2", uno="2")


@pytest.mark.parametrize("fast, slow", [(1, 3), (3, 1)])
def test_the_faster_of_two_claims_wins_and_the_other_is_lost(fast, slow):
    agents = [
        Scripted(),
        Scripted(claims=["catch 2"], reaction_ms=150 if fast == 1 else 600),
        Scripted(),
        Scripted(claims=["catch 2"], reaction_ms=150 if fast == 3 else 600),
    ]
    match = match_of(catch_game(), agents)
    assert match.claims() == [(fast, Action.catch(2))]
    assert [(e.kind, e.data) for e in match.events] == [
        (
            "catch",
            {
                "player": fast,
                "action": "catch 2",
                "caught": 2,
                "cards": 2,
                "draws": {2: 2},
            },
        ),
        ("claim_lost", {"player": slow, "action": "catch 2"}),
    ]
    assert match.game.hand_sizes == (2, 3, 3, 3)
    assert match.claims() == []  # nobody claims any more
    assert match.decisions == 1


def test_the_player_to_act_is_not_asked_to_claim():
    agents = [Scripted(claims=["catch 2"]), Scripted(), Scripted(), Scripted()]
    match = match_of(catch_game(), agents)
    assert match.claims() == [] and match.events == []
    assert agents[0].claim_list == ["catch 2"]


def test_a_faster_speed_play_closes_the_catch_window_of_a_slower_claim():
    # Player 1 holds the other R5 (the window is open); player 3 wants to catch 2.
    game = party("R6,G7/R5,B2,G2/Y3/B3,B4,B5", discard="R1,R5", uno="2")
    agents = [
        Scripted(),
        Scripted(claims=["speed R5"], reaction_ms=150),
        Scripted(),
        Scripted(claims=["catch 2"], reaction_ms=900),
    ]
    match = match_of(game, agents)
    assert match.claims() == [(1, Action.speed("R5"))]
    speed, lost = match.events
    assert speed == MatchEvent(
        "speed",
        1,
        {
            "player": 1,
            "action": "speed R5",
            "card": "R5",
            "top": "R5",
            "right": True,
            "uno": False,
            "cards_left": 2,
            "drew": 0,
            "draws": {},
            "next": 2,
        },
    )
    assert lost.kind == "claim_lost" and lost.data == {"player": 3, "action": "catch 2"}
    assert match.game.to_act == 2


def test_claims_are_ordered_with_the_seeded_rng():
    def order(seed):
        agents = [Scripted()] + [Scripted(claims=["catch 2"]) for _ in range(3)]
        agents[2] = Scripted()
        game = catch_game()
        match = Driver(game, agents, SimulatedUnit(random.Random(0)), rng=random.Random(seed))
        match.claims()
        return [e.data["player"] for e in match.events]

    assert order(1) == order(1)
    assert {tuple(order(seed)) for seed in range(10)} == {(1, 3), (3, 1)}  # ties: the rng


def test_a_wrong_speed_play_is_a_claim_with_its_penalty():
    game = party("R6,G7/R5,B2,G2/Y3,Y4/B3,B4,B5", discard="R1,R5", extra="link=1+3")
    agents = [Scripted(), Scripted(claims=["speed B2"]), Scripted(), Scripted()]
    match = match_of(game, agents)
    match.claims()
    (event,) = match.events
    assert event.data == {
        "player": 1,
        "action": "speed B2",
        "card": "B2",
        "top": "R5",
        "right": False,
        "uno": False,
        "cards_left": 4,
        "drew": 1,
        "draws": {1: 1, 3: 1},  # the linked player draws as many
        "next": 0,
    }
    assert event_text(event, ["Ann", "Bob", "Cy", "Di"]) == (
        "Bob speed-plays B2 on R5: not the same card; Bob takes it back and draws 1; "
        "Di draws 1 (linked)."
    )


def test_an_illegal_claim_from_an_agent_is_an_error_naming_it():
    agents = [Scripted(), Scripted(claims=["speed Y9"]), Scripted(), Scripted()]
    match = match_of(catch_game(), agents)
    with pytest.raises(IllegalActionError, match=r"scripted1 \(player 1, .*\) claimed 'speed Y9'"):
        match.claims()


def test_match_claim_applies_a_person_s_claim_or_reports_it_lost():
    game = party("R6,G7/R5,B2,G2/Y3/B3,B4,B5", discard="R1,R5", uno="2")
    match = match_of(game, [Scripted() for _ in range(4)])
    assert match.claim(3, "catch 2") is True
    assert match.claim(1, Action.catch(2)) is False  # already caught
    assert match.claim(1, "speed R5") is True
    assert match.claim(1, "speed R5") is False  # played: no other R5
    assert kinds(match) == ["catch", "claim_lost", "speed", "claim_lost"]
    with pytest.raises(ValueError, match="'draw' is not a claim \\(a speed play or a catch\\)"):
        match.claim(2, "draw")
    with pytest.raises(ValueError, match="no player 7 in a 4-player game"):
        match.claim(7, "catch 2")


def test_match_claim_is_party_only():
    game = new_game(2, "classic", seed=1)
    match = Driver(game, [Scripted(), Scripted()], SimulatedUnit(random.Random(0)))
    with pytest.raises(StateError, match="claims out of turn are UNO Party!'s, not classic's"):
        match.claim(1, "catch 0")
    assert match.claims() == []


# -- step(player) and the pointing -------------------------------------------------------------


def test_step_takes_a_player_who_must_decide_now():
    game = party("R5,G7/B1,B2/Y3,Y4", discard="R1")
    match = match_of(game, [Scripted("R5"), Scripted("B1"), Scripted()])
    with pytest.raises(StateError, match=r"player 1 has no decision to make now \(waiting for 0\)"):
        match.step(1)
    match.step(0)
    assert kinds(match) == ["play"] and match.game.to_act == 1


def test_pointing_is_announced_one_by_one_and_revealed_at_once():
    # Hand sizes after the Point Taken: 1, 2, 3, 2. Player 1 goes last.
    game = party("RP,R7/B1,B2/Y3,Y4,Y5/G4,G5", discard="R1")
    agents = [
        Scripted("RP", "point 1"),
        Scripted("point 0"),
        Scripted("point 1"),
        Scripted("point 1"),
    ]
    match = match_of(game, agents)
    match.step()
    assert match.events[-1] == MatchEvent("point_taken", 1, {"player": 0, "waiting": [0, 1, 2, 3]})
    for player, sealed in ((0, "point=?,-,-,-"), (2, "point=?,-,?,-"), (3, "point=?,-,?,?")):
        match.step(player)
        assert match.events[-1] == MatchEvent("pointed", 1, {"player": player})
        assert game.notation().split(" ")[-1] == sealed
    # Nothing said so far names a target.
    assert all("choices" not in e.data for e in match.events)
    match.step()  # player 1, the last
    pointed, pointing = match.events[-2:]
    assert pointed == MatchEvent("pointed", 1, {"player": 1})
    assert pointing == MatchEvent(
        "pointing",
        1,
        {
            "player": 0,
            "choices": {0: 1, 1: 0, 2: 1, 3: 1},
            "draws": {0: 1, 1: 3},
        },
    )
    assert match.game.to_act == 1 and match.game.hand_sizes == (2, 5, 3, 2)
    names = ["Ann", "Bob", "Cy", "Di"]
    assert [event_text(e, names) for e in match.events] == [
        "Ann plays RP (1 left).",
        "Ann's Point Taken: everyone points at another player; nobody sees whom until all have "
        "pointed.",
        "Ann points (whom stays hidden).",
        "Cy points (whom stays hidden).",
        "Di points (whom stays hidden).",
        "Bob points (whom stays hidden).",
        "Everyone points: Ann at Bob, Bob at Ann, Cy at Bob, Di at Bob. Ann draws 1; Bob draws 3.",
    ]


def test_nobody_is_asked_to_claim_while_everyone_points():
    game = party("RP,R7/R8,B2/Y3,Y4,Y5/G4,G5", discard="R1", uno="-")
    agents = [Scripted("RP")] + [Scripted(claims=["speed R8"]) for _ in range(3)]
    match = match_of(game, agents)
    match.step()
    assert match.claims() == []
    assert all(a.claim_list == ["speed R8"] for a in agents[1:])


# -- the pile and the link ---------------------------------------------------------------------


def test_a_pile_up_starts_goes_round_and_is_taken():
    # The draw pile's top is W then G3: both flipped, the pile's colour is green.
    game = party("WP,R7,R8/B1,G9,B2/Y3,Y4,Y5", discard="R1", draw="W,G3,B5,B6")
    agents = [Scripted("WP"), Scripted("G9"), Scripted("take")]
    match = match_of(game, agents)
    match.step()
    match.step()
    match.step()
    names = ["Ann", "Bob", "Cy"]
    assert [(e.kind, e.data) for e in match.events[1:]] == [
        ("pile_start", {"player": 0, "flipped": ["W", "G3"], "colour": "G", "next": 1}),
        (
            "pile_add",
            {
                "player": 1,
                "action": "G9",
                "card": "G9",
                "uno": False,
                "cards_left": 2,
                "next": 2,
            },
        ),
        ("pile_take", {"player": 2, "action": "take", "cards": ["W", "G3", "G9"], "draws": {2: 3}}),
    ]
    assert [event_text(e, names) for e in match.events] == [
        "Ann plays WP (2 left).",
        "Wild Pile Up: the mini pile is W G3 (green). In turn, each adds a green card or a wild "
        "(no effects), or takes the pile. Bob adds first.",
        "Bob adds G9 to the mini pile (2 left).",
        "Cy takes the mini pile: 3 cards.",
    ]
    assert match.game.to_act == 0 and str(match.game.colour) == "G"


def test_a_drawn_together_links_and_linked_draws_are_reported():
    game = party("WT,R7,R8/B1,B2,B3/Y3,Y4,Y5", discard="R1")
    agents = [Scripted("WT=B 1+2"), Scripted("draw"), Scripted()]
    match = match_of(game, agents)
    match.step()
    assert match.events[-1] == MatchEvent("link", 1, {"player": 0, "linked": [1, 2]})
    assert event_text(match.events[-1], ["Ann", "Bob", "Cy"]) == (
        "Ann links Bob and Cy: when one draws, the other draws as many."
    )
    match.step()
    draw = match.events[-1]
    assert draw.kind == "draw" and draw.data["draws"] == {1: 1, 2: 1}
    assert event_text(draw, ["Ann", "Bob", "Cy"]) == "Bob draws a card; Cy draws 1 (linked)."


def test_describe_a_right_speed_play_and_a_lost_claim():
    names = ["Ann", "Bob", "Cy"]
    right = MatchEvent(
        "speed",
        1,
        {
            "player": 1,
            "action": "speed R5 uno",
            "card": "R5",
            "top": "R5",
            "right": True,
            "uno": True,
            "cards_left": 1,
            "drew": 0,
            "draws": {},
            "next": 2,
        },
    )
    assert event_text(right, names) == (
        "Bob speed-plays R5 out of turn and calls UNO (1 left); Cy plays next."
    )
    lost = MatchEvent("claim_lost", 1, {"player": 2, "action": "speed R5"})
    assert event_text(lost, names) == "Cy's speed play (R5) came too late: someone was quicker."


# -- whole matches --------------------------------------------------------------------------


def eight(seed):
    return [HeuristicBot(reaction_ms=180)] + [
        RandomBot(random.Random(seed * 10 + i), reaction_ms=150 + 50 * i) for i in range(1, 8)
    ]


def test_a_seeded_eight_player_match_ends_with_a_winner_and_a_consistent_record():
    game = new_game(8, "party", seed=5, target=500)
    match = Driver(
        game, eight(5), SimulatedUnit(random.Random(0)), debug=True, rng=random.Random(5)
    )
    result = match.run()  # debug: check_invariants (224 cards kept) after every decision
    assert result.winner == game.match_winner and result.scores[result.winner] >= 500
    assert result.showdowns == 0 and result.rounds == game.round
    seen = Counter(e.kind for e in result.events)
    assert set(seen) <= set(EVENT_KINDS) | set(PARTY_EVENT_KINDS)
    assert seen["round_start"] == seen["round_end"] == result.rounds
    assert seen["match_start"] == seen["match_end"] == 1
    # Every Point Taken opens a pointing that is revealed once, after one
    # "pointed" per choice.
    assert seen["point_taken"] == seen["pointing"] > 0
    choices = sum(len(e.data["choices"]) for e in result.events if e.kind == "pointing")
    assert seen["pointed"] == choices
    assert seen["speed"] > 0 and seen["pile_start"] > 0 and seen["link"] > 0
    # A right speed play is the top card's twin; a wrong one costs a card.
    for e in result.events:
        if e.kind == "speed":
            assert (e.data["card"] == e.data["top"]) == e.data["right"]
            assert e.data["right"] or e.data["drew"] <= 1
    # Every event of a round is told in the round's words.
    for e in result.events:
        assert event_text(e, match.names)
    # Decisions counted: every step and every claim applied.
    applied = sum(1 for e in result.events if e.kind not in _NOT_DECISIONS)
    assert result.decisions == applied


_NOT_DECISIONS = {
    "match_start",
    "round_start",
    "round_end",
    "match_end",
    "claim_lost",
    "point_taken",
    "pile_start",
    "link",
    "pointing",
}


def test_the_same_seed_gives_the_same_party_match():
    def play(seed):
        game = new_game(8, "party", seed=seed, target=100)
        return Driver(game, eight(seed), SimulatedUnit(random.Random(0)), rng=random.Random(seed))

    first, again = play(3).run(), play(3).run()
    assert first.events == again.events
    assert play(4).run().events != first.events


def test_step_of_a_player_while_a_showdown_is_pending_is_refused():
    game = read_game("showdown R5!2,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    match = Driver(game, [Scripted("R5!2"), Scripted()], SimulatedUnit(random.Random(0)))
    match.step(0)
    assert game.pending_showdown is not None
    with pytest.raises(StateError, match="a showdown is pending, not player 1's decision"):
        match.step(1)
    match.step()  # the showdown
    assert game.pending_showdown is None and match.events[-1].kind == "showdown"


def test_linked_player_who_plays_a_draw_two_is_counted_his_full_draw():
    """Issue 22: Bob, linked to Cid, plays R+2: the log said "Bob draws 1" (the
    count came from his hand size, less the card just played); he drew 2."""
    game = party("R6,G7,Y1/R+2,B2,G2/Y3,Y4,B3", discard="R1,R5", player=1, extra="link=1+2")
    match = match_of(game, [Scripted(), Scripted("R+2"), Scripted()])
    match.step()
    (event,) = match.events
    assert event.data["draws"] == {1: 2, 2: 2}
    assert event_text(event, ["Ann", "Bob", "Cid"]) == ("Bob plays R+2; Bob draws 2; Cid draws 2.")
