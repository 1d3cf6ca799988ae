"""The match driver: whole seeded matches, the event log, showdowns through a port, guards."""

import random
from collections import Counter

import pytest

from engine import Action, Game, IllegalActionError, InvariantError, StateError
from engine.match import Driver, MatchEvent, play_match
from engine.units.ports import ShowdownOutcome, SimulatedUnit
from engine.uno.bots import HeuristicBot, RandomBot
from engine.uno.narration import EVENT_KINDS
from engine.uno.words import event_text


def bots(seed, players=4):
    return [
        HeuristicBot() if i % 2 == 0 else RandomBot(random.Random(seed * 10 + i))
        for i in range(players)
    ]


def seeded_match(seed, players=4, variant="showdown", target=500, **options):
    game = Game.new(players, variant, seed=seed, target=target)
    match = Driver(game, bots(seed, players), SimulatedUnit(random.Random(seed)), **options)
    return game, match, match.run()


class Scripted:
    """An agent that plays the given action texts in order."""

    def __init__(self, *actions):
        self.actions = list(actions)
        self.name = "scripted"

    def act(self, game, player):
        return Action.parse(self.actions.pop(0))


class FixedUnit:
    """A unit port where the opponent always loses; records the requests."""

    def __init__(self):
        self.requests = []

    def run_showdown(self, request):
        self.requests.append(request)
        return ShowdownOutcome(
            request.opponent,
            request.challenger,
            "faster",
            {request.challenger: 200_000, request.opponent: 250_000},
            50_000,
            1,
            "scripted",
        )


# -- whole matches ---------------------------------------------------------------------------


def test_a_seeded_match_is_played_to_the_target_with_every_card_kept():
    game, match, result = seeded_match(3, debug=True)  # invariants checked at every decision
    assert result.winner == game.match_winner and result.scores == game.scores
    assert result.scores[result.winner] >= 500
    assert Counter(c for hand in game.hands for c in hand) + Counter(game.draw_pile) + Counter(
        game.discard_pile
    ) == Counter(game.variant.deck)
    assert result.rounds == game.round >= 1
    assert result.decisions == match.decisions and result.showdowns == match.showdowns > 0


def test_the_same_seed_gives_the_same_log_and_another_seed_another():
    _, _, first = seeded_match(5)
    _, _, again = seeded_match(5)
    _, _, other = seeded_match(6)
    assert first.events == again.events
    assert first.events != other.events


def test_the_log_frames_the_match_in_rounds():
    _game, match, result = seeded_match(6, players=3, target=200)
    events = result.events
    kinds = [e.kind for e in events]
    assert set(kinds) <= set(EVENT_KINDS)
    assert kinds[0] == "match_start" and kinds[-1] == "match_end"
    assert events[0].data == {
        "players": ["bot0", "random1", "bot2"],
        "variant": "showdown",
        "target": 200,
        "house_rules": "-",
    }
    starts = [e for e in events if e.kind == "round_start"]
    ends = [e for e in events if e.kind == "round_end"]
    assert [e.round for e in starts] == [e.round for e in ends] == list(range(1, result.rounds + 1))
    assert result.rounds == 3  # so the next round was dealt twice, the deal going round
    assert [e.data["dealer"] for e in starts] == [r % 3 for r in range(result.rounds)]
    scores = [0, 0, 0]
    for end in ends:
        scores[end.data["winner"]] += end.data["points"]
        assert end.data["scores"] == scores
        assert end.data["hand_sizes"][end.data["winner"]] == 0
    assert events[-1].data == {
        "winner": result.winner,
        "scores": scores,
        "rounds": result.rounds,
        "decisions": result.decisions,
        "showdowns": result.showdowns,
    }
    assert events == tuple(match.events)


def test_the_log_callback_sees_every_event_as_it_happens():
    seen = []
    result = play_match(
        2, bots(1, 2), SimulatedUnit(random.Random(1)), seed=1, target=100, log=seen.append
    )
    assert tuple(seen) == result.events


def test_a_classic_match_needs_no_showdowns():
    _, _, result = seeded_match(2, variant="classic", target=200)
    assert result.showdowns == 0
    assert not [e for e in result.events if e.kind in ("showdown", "face")]


def test_play_match_deals_from_names_or_plays_a_given_game():
    result = play_match(
        ["Ann", "Bob"],
        bots(4, 2),
        SimulatedUnit(random.Random(4)),
        seed=4,
        target=100,
        variant="classic",
    )
    assert result.events[0].data["players"] == ["Ann", "Bob"]
    game = Game.new(2, "classic", seed=4, target=100)
    again = play_match(game, bots(4, 2), SimulatedUnit(random.Random(4)), names=["Ann", "Bob"])
    assert again.events == result.events
    with pytest.raises(TypeError, match="give the names once"):
        play_match(["Ann", "Bob"], bots(4, 2), None, names=["A", "B"])


# -- showdowns -------------------------------------------------------------------------------

SHOWDOWN = "showdown R5!2,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0"


def test_a_showdown_is_fought_by_the_unit_port_and_its_loser_fed_back():
    game = Game.from_notation(SHOWDOWN)
    unit = FixedUnit()
    match = Driver(game, [Scripted("R5!2"), Scripted()], unit, names=["Ann", "Bob"])
    match.step()
    assert not unit.requests and game.pending_showdown is not None
    match.step()
    (request,) = unit.requests
    assert (
        request.showdown_id,
        request.challenger,
        request.opponent,
        request.challenger_name,
        request.opponent_name,
        request.cards,
    ) == ("m1:r1:s1", 0, 1, "Ann", "Bob", 2)
    assert [str(c) for c in game.hand(1)] == ["G3", "Y9", "Y3", "G7"]
    assert match.events[-1] == MatchEvent(
        "showdown",
        1,
        {
            "showdown_id": "m1:r1:s1",
            "challenger": 0,
            "opponent": 1,
            "names": ["Ann", "Bob"],
            "cause": "R5!2",
            "cards": 2,
            "bots": {},
            "loser": 1,
            "winner": 0,
            "reason": "faster",
            "reaction_us": {0: 200_000, 1: 250_000},
            "margin_us": 50_000,
            "tie_reruns": 1,
            "detail": "scripted",
        },
    )
    assert event_text(match.events[-1], ["Ann", "Bob"]) == (
        "Showdown (R5!2): Ann vs Bob for 2 cards. Ann wins: Ann 200.0 ms, Bob 250.0 ms, "
        "margin 50.0 ms, after 1 near-tie re-run. Bob takes 2 cards."
    )


def test_a_showdown_request_gives_each_bot_s_reaction_and_leaves_people_out():
    class ScriptedBot(Scripted):
        reaction_ms = 400.0  # a bot at the unit

    def first_request(ann):
        unit = FixedUnit()
        bob = HeuristicBot("Bob", reaction_ms=180)
        match = Driver(Game.from_notation(SHOWDOWN), [ann, bob], unit, names=["Ann", "Bob"])
        match.step()  # Ann plays R5!2
        match.step()  # the showdown
        return unit.requests[0], match.events[-1]

    request, event = first_request(Scripted("R5!2"))  # a person: no reaction_ms
    assert request.bots == {1: 180.0} and event.data["bots"] == {1: 180.0}
    request, event = first_request(ScriptedBot("R5!2"))
    assert request.bots == {0: 400.0, 1: 180.0} and event.data["bots"] == {0: 400.0, 1: 180.0}


def test_every_agent_that_watches_showdowns_is_shown_the_reaction_times():
    class Watching(Scripted):
        def __init__(self, *moves):
            super().__init__(*moves)
            self.seen = []

        def saw_showdown(self, reactions_ms):
            self.seen.append(reactions_ms)

    ann, bob = Watching("R5!2"), Watching()
    match = Driver(Game.from_notation(SHOWDOWN), [ann, bob], FixedUnit(), names=["Ann", "Bob"])
    match.step()  # Ann plays R5!2
    assert ann.seen == bob.seen == []
    match.step()  # the showdown: FixedUnit's 200 and 250 ms
    assert ann.seen == bob.seen == [{0: 200.0, 1: 250.0}]


def test_a_unit_port_answering_for_other_players_is_an_error():
    class Wrong:
        def run_showdown(self, request):
            return ShowdownOutcome(5, request.challenger, "faster", {})

        def __repr__(self):
            return "Wrong()"

    game = Game.from_notation(SHOWDOWN)
    match = Driver(game, [Scripted("R5!2"), Scripted()], Wrong())
    match.step()
    with pytest.raises(
        IllegalActionError,
        match=r"unit port Wrong\(\): showdown m1:r1:s1 was "
        r"player 0 vs 1, but the outcome says 0 beat 5",
    ):
        match.step()
    assert game.pending_showdown is not None  # nothing was applied


def test_a_wild_showdown_logs_the_choice_of_opponent_and_count():
    game = Game.from_notation(
        "showdown WS,B1/G3,Y9/Y1 Y3,G7,B2 R1 R + 0 play - - 0,0,0 1 1 500 - 1:0"
    )
    unit = FixedUnit()
    match = Driver(game, [Scripted("WS=B", "face 2 x3"), Scripted(), Scripted()], unit)
    for _ in range(3):
        match.step()
    play, face, showdown = match.events
    assert play.data == {
        "player": 0,
        "action": "WS=B",
        "card": "WS",
        "colour": "B",
        "uno": False,
        "cards_left": 1,
        "draws": {},
    }
    assert face.data == {"player": 0, "action": "face 2 x3", "opponent": 2, "count": 3}
    assert (
        showdown.data["challenger"],
        showdown.data["opponent"],
        showdown.data["cards"],
        showdown.data["cause"],
    ) == (0, 2, 3, "WS")


# -- notable plays ---------------------------------------------------------------------------


def test_challenges_and_catches_are_logged_with_who_drew():
    # Player 0 played W+4 holding green; player 1 challenges and wins.
    game = Game.from_notation(
        "showdown G2,G3/R1,R2/Y1,Y2 B1,B2,B3,B4,B5,B6,B7 G9,W+4 B + 1 "
        "penalty:4:illegal - - 0,0,0 1 1 500 - 1:0"
    )
    match = Driver(game, [Scripted(), Scripted("challenge", "R1"), Scripted()], FixedUnit())
    match.step()
    assert match.events[-1].data == {
        "player": 1,
        "action": "challenge",
        "offender": 0,
        "succeeded": True,
        "drew": 0,
        "cards": 4,
    }
    game = Game.from_notation(
        "showdown G2,G3/R1,R2/Y1,Y2 B1,B2,B3,B4,B5,B6,B7 Y9,W+4 B + 1 "
        "penalty:4:legal - - 0,0,0 1 1 500 - 1:0"
    )
    match = Driver(game, [Scripted(), Scripted("challenge"), Scripted()], FixedUnit())
    match.step()
    assert match.events[-1].data == {
        "player": 1,
        "action": "challenge",
        "offender": 0,
        "succeeded": False,
        "drew": 1,
        "cards": 6,
    }
    game = Game.from_notation(
        "showdown G2,G3,G4/R1/Y1,Y2 B1,B2,B3 G9 G + 2 play 1 - 0,0,0 1 1 500 - 1:0"
    )
    match = Driver(game, [Scripted(), Scripted(), Scripted("catch 1")], FixedUnit())
    match.step()
    assert match.events[-1].data == {"player": 2, "action": "catch 1", "caught": 1, "cards": 2}


def test_a_draw_two_logs_who_drew_and_a_draw_whether_it_can_be_played():
    game = Game.from_notation(
        "classic R+2,G1,G2/Y9,Y3/B5 R7,B1,B2,B3 R1 R + 0 play - - 0,0,0 1 1 500 - 1:0"
    )
    match = Driver(game, [Scripted("R+2"), Scripted(), Scripted("draw")], FixedUnit())
    match.step()
    assert match.events[-1].data == {
        "player": 0,
        "action": "R+2",
        "card": "R+2",
        "colour": "R",
        "uno": False,
        "cards_left": 2,
        "draws": {1: 2},
    }
    match.step()
    assert match.events[-1].data == {"player": 2, "action": "draw", "cards": 1, "can_play": False}


# -- guards ----------------------------------------------------------------------------------


def test_an_agent_choosing_an_illegal_action_is_named_in_the_error():
    game = Game.from_notation(SHOWDOWN)
    match = Driver(game, [Scripted("G3"), Scripted()], FixedUnit(), names=["Ann", "Bob"])
    with pytest.raises(
        IllegalActionError,
        match=r"Ann \(player 0, <.*Scripted.*>\) chose 'G3', "
        r"which is not legal in 'showdown R5!2,B1/",
    ):
        match.step()


def test_a_runaway_round_stops_with_a_clear_error():
    class Drawer:
        def act(self, game, player):
            return Action.keep() if Action.keep() in game.legal_actions() else Action.draw()

    game = Game.new(2, "classic", seed=1)
    match = Driver(game, [Drawer(), Drawer()], FixedUnit(), max_decisions=300)
    with pytest.raises(
        StateError,
        match="round 1 has not ended after 300 decisions "
        r"\(a runaway game\?\): classic ",
    ):
        match.run()


def test_debug_mode_checks_the_invariants():
    class Thief:
        """Pockets a card from its hand (reaching into the game's internals)."""

        def act(self, game, player):
            game._hands[player].pop()
            return game.legal_actions()[-1]

    for debug, raised in ((False, False), (True, True)):
        game = Game.new(2, "classic", seed=1)
        match = Driver(game, [Thief(), Thief()], FixedUnit(), debug=debug)
        try:
            match.step()
        except InvariantError as exc:
            assert raised and "the cards in play are not the deck's cards" in str(exc)
        else:
            assert not raised


def test_agents_and_names_must_match_the_players():
    game = Game.new(3, "classic", seed=1)
    with pytest.raises(ValueError, match="2 agents for 3 players"):
        Driver(game, bots(1, 2), FixedUnit())
    with pytest.raises(ValueError, match="2 names for 3 players"):
        Driver(game, bots(1, 3), FixedUnit(), names=["A", "B"])


def test_describe_reads_every_kind_of_event():
    names = ["Ann", "Bob", "Cy", "Di"]
    _, _, result = seeded_match(4, target=300, names=names)
    lines = [event_text(e, names) for e in result.events]
    assert lines[0] == "Match: Ann, Bob, Cy, Di; showdown to 300 points."
    assert lines[1].startswith("Round 1: Ann deals; ")
    assert lines[-1].startswith(f"{names[result.winner]} wins the match with ")
    assert not [line for line in lines if line.startswith(tuple(EVENT_KINDS))]


def test_the_engine_guide_examples_run():
    import doctest
    from pathlib import Path

    guide = Path(__file__).resolve().parent.parent / "docs" / "engine.md"
    failures, tried = doctest.testfile(
        str(guide),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
    )
    assert tried >= 15 and failures == 0


def test_regression_play_line_gives_the_players_own_count_before_the_others_draws():
    names = ["Ann", "Bob"]
    last = MatchEvent(
        "play",
        1,
        {
            "player": 1,
            "action": "Y+2",
            "card": "Y+2",
            "colour": 1,
            "uno": False,
            "cards_left": 0,
            "draws": {0: 2},
        },
    )
    assert event_text(last, names) == "Bob plays Y+2, going out; Ann draws 2."
    second_last = MatchEvent(
        "play",
        1,
        {
            "player": 0,
            "action": "B3",
            "card": "B3",
            "colour": 3,
            "uno": True,
            "cards_left": 1,
            "draws": {},
        },
    )
    assert event_text(second_last, names) == "Ann plays B3 and calls UNO (1 left)."
