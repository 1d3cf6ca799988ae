"""The engine's public API: values, text forms, construction and errors."""

import random

import pytest

from engine import (
    Action,
    ActionKind,
    Card,
    Colour,
    Game,
    HouseRules,
    IllegalActionError,
    NotationError,
    Phase,
    Rank,
    StateError,
)


def play_round(game, rng, limit=20_000):
    """Random legal decisions, preferring plays, until the round ends."""
    for _ in range(limit):
        if game.round_over:
            return
        actions = game.legal_actions()
        active = [a for a in actions if not a.is_passive]
        game.apply(rng.choice(active or actions))
    raise AssertionError(f"round did not end: {game.notation()}")


@pytest.mark.parametrize("text", ["R5", "B+2", "GS", "YR", "W", "W+4", "WS", "R7!2", "B0", "G9!3"])
def test_card_text_round_trips(text):
    assert str(Card.parse(text)) == text
    assert Card.parse(str(Card.parse(text))) == Card.parse(text)


def test_card_fields():
    card = Card.parse("G3!1")
    assert (card.colour, card.rank, card.number, card.showdown, card.points) == (
        Colour.GREEN,
        Rank.THREE,
        3,
        1,
        3,
    )
    assert Card.parse("WS").points == 40
    assert Card.parse("W+4").points == 50
    assert Card.parse("YR").points == 20
    assert Card.of(Colour.BLUE, Rank.DRAW_TWO) is Card.parse("B+2")


@pytest.mark.parametrize("text", ["", "R", "X5", "R10", "WR", "W!1", "R5!0", "R5!8", "r5", " R5"])
def test_bad_card_text_is_a_notation_error(text):
    with pytest.raises(NotationError, match="invalid card"):
        Card.parse(text)


@pytest.mark.parametrize(
    "text",
    [
        "R5",
        "R5 uno",
        "W=G",
        "W+4=B uno",
        "WS=R",
        "draw",
        "keep",
        "challenge",
        "accept",
        "catch 3",
        "colour Y",
        "face 2 x3",
        "loser 0",
        "R7!2",
    ],
)
def test_action_text_round_trips(text):
    assert str(Action.parse(text)) == text
    assert Action.parse(str(Action.parse(text))) == Action.parse(text)


@pytest.mark.parametrize(
    "text",
    [
        "WP=G",
        "R5=G",
        "R5 UNO",
        "draw 1",
        "catch",
        "catch -1",
        "face 1",
        "face 1 3",
        "loser",
        "colour X",
        "pass",
    ],
)
def test_bad_action_text_is_a_notation_error(text):
    with pytest.raises(NotationError, match="invalid action"):
        Action.parse(text)


def test_action_fields():
    action = Action.parse("W+4=B uno")
    assert (action.kind, action.card, action.colour, action.uno) == (
        ActionKind.PLAY,
        Card.parse("W+4"),
        Colour.BLUE,
        True,
    )
    assert (Action.parse("face 2 x3").player, Action.parse("face 2 x3").count) == (2, 3)
    assert Action.showdown_result(loser=1) == Action.parse("loser 1")


def test_same_seed_same_decisions_same_game():
    def run():
        rng = random.Random(5)
        game = Game.new(3, "showdown", seed=5)  # 3,307 moves (seed 99: 74,842)
        lines = []
        while not game.round_over:
            game.apply(rng.choice(game.legal_actions()))
            lines.append(game.notation())
        return lines

    assert run() == run()


def test_game_from_notation_continues_identically():
    rng = random.Random(3)
    game = Game.new(4, "showdown", seed=12)
    for _ in range(150):
        if game.round_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    copy = Game.from_notation(game.notation())
    replay = random.Random(8)
    replay_copy = random.Random(8)
    while not game.round_over:
        game.apply(replay.choice(game.legal_actions()))
        copy.apply(replay_copy.choice(copy.legal_actions()))
        assert copy.notation() == game.notation()


def test_illegal_action_names_action_and_position():
    game = Game.from_notation("classic R5,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    with pytest.raises(IllegalActionError) as info:
        game.apply(Action.parse("Y3"))
    assert str(info.value) == (
        "illegal action 'Y3' in 'classic R5,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0'"
        " (legal: R5 R5 uno B1 B1 uno draw)"
    )
    assert isinstance(info.value, ValueError)
    assert game.notation() == "classic R5,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0"


def test_apply_accepts_action_text():
    game = Game.from_notation("classic R5,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    game.apply("R5")
    assert game.notation() == "classic B1/G3,Y9 Y3,G7,B2 R1,R5 R + 1 play 0 - 0,0 1 1 500 - 1:0"


def test_new_game_deals_seven_each_and_turns_a_card():
    game = Game.new(4, "showdown", seed=1)
    assert game.hand_sizes == (7, 7, 7, 7)
    assert len(game.draw_pile) + len(game.discard_pile) == 112 - 28
    assert game.round == 1 and game.dealer == 0 and game.target == 500
    game.check_invariants()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(players=1), "classic takes 2-10 players, not 1"),
        (dict(players=11), "classic takes 2-10 players, not 11"),
        (dict(players=2, dealer=2), "dealer must be a player 0-1, not 2"),
        (dict(players=2, target=0), "target must be a positive score, not 0"),
        (dict(players=2, seed=-1), "seed must be an int >= 0, not -1"),
    ],
)
def test_new_game_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError) as info:
        Game.new(variant="classic", **kwargs)
    assert str(info.value) == message


def test_rng_gives_the_seed():
    assert (
        Game.new(2, rng=random.Random(4)).notation()
        == Game.new(2, seed=random.Random(4).getrandbits(64)).notation()
    )


def test_next_round_passes_the_deal_left_and_keeps_scores():
    rng = random.Random(2)
    game = Game.new(3, "classic", seed=4)
    with pytest.raises(StateError, match="the round is not over"):
        game.next_round()
    play_round(game, rng)
    outcome = game.outcome
    assert game.scores[outcome.winner] == outcome.points
    game.next_round()
    assert (game.round, game.dealer, game.scores) == (2, 1, outcome.scores)
    assert game.hand_sizes == (7, 7, 7)
    game.check_invariants()


def test_match_ends_at_the_target():
    rng = random.Random(9)
    game = Game.new(2, "showdown", seed=3, target=100)
    while True:
        play_round(game, rng)
        if game.match_over:
            break
        game.next_round()
    assert game.match_winner == game.outcome.winner
    assert game.scores[game.match_winner] >= 100
    assert game.outcome.match_over
    with pytest.raises(StateError, match="the match is over"):
        game.next_round()


def test_house_rules_text_round_trips():
    house = HouseRules(
        stacking=True,
        draw_until_playable=True,
        uno_penalty=4,
        first_card="flip",
        showdown_cards=(1, 5),
    )
    assert str(house) == "stack,until,uno=4,first=flip,ws=1-5"
    assert HouseRules.parse(str(house)) == house


@pytest.mark.parametrize("text", ["uno=3,uno=5", "stack,stack", "ws=1-2,ws=1-3"])
def test_a_house_rule_written_twice_is_refused(text):
    with pytest.raises(NotationError, match="given twice"):
        HouseRules.parse(text)


def test_phase_of_a_fresh_game():
    game = Game.from_notation("classic R5,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    assert game.phase is Phase.PLAY


def test_actions_are_shared_immutable_values():
    import copy
    import pickle

    action = Action.parse("W+4=B uno")
    assert action is Action.play(Card.parse("W+4"), Colour.BLUE, uno=True)
    assert Action(ActionKind.CATCH, player=2) is Action.catch(2)
    assert hash(action) == hash(Action.parse("W+4=B uno"))
    assert pickle.loads(pickle.dumps(action)) is action
    assert copy.deepcopy(action) is action
    with pytest.raises(AttributeError, match="an Action is immutable"):
        action.uno = False


def test_turns_count_each_change_of_player_plus_the_last_decision():
    game = Game.from_notation("classic RS,R5,B1/G3,Y9 Y3,G4,Y7 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    game.apply("RS")  # two players: a Skip gives player 0 another go, no new turn
    assert (game.current, game.turns) == (0, 0)
    game.apply("R5")  # down to one card without calling UNO
    assert (game.current, game.turns) == (1, 1)
    game.apply("catch 0")  # a catch passes no turn
    assert (game.current, game.turns, game.hand_sizes) == (1, 1, (3, 2))
    game.apply("draw")
    assert (game.current, game.turns) == (0, 2)
    game = Game.from_notation("classic R5/G3,Y9 Y3 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    game.apply("R5")  # the round's last decision counts though the player is unchanged
    assert (game.round_over, game.current, game.turns) == (True, 0, 1)


# -- the errors: one home, engine/game/errors.py ---------------------------------------


def test_every_engine_error_is_an_engine_error_and_a_matching_builtin():
    from engine.game import errors

    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.EngineError)
        builtins = [
            base
            for base in cls.__mro__[1:]
            if base.__module__ == "builtins" and base not in (Exception, BaseException, object)
        ]
        assert cls is errors.EngineError or builtins, name


def test_the_unit_ports_raise_the_errors_defined_in_engine_core_errors():
    from engine.game import errors
    from engine.units import remote, unit_link

    for module, names in (
        (
            remote,
            (
                "UnitProblem",
                "UnitUnreachable",
                "UnitBusy",
                "UnitVersionError",
                "UnitFault",
                "UnitJam",
            ),
        ),
        (
            unit_link,
            (
                "LinkLost",
                "UnitFlooding",
                "ProtocolViolation",
                "CommandRefused",
                "VersionMismatch",
                "AuthFailed",
            ),
        ),
    ):
        for name in names:
            assert getattr(module, name) is getattr(errors, name)
            assert getattr(errors, name).__module__ == "engine.game.errors"


def test_no_engine_module_but_core_errors_defines_an_exception_except_the_known_ones():
    import importlib
    import pkgutil

    import engine

    elsewhere = set()
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        elsewhere |= {
            f"{info.name}.{name}"
            for name, value in vars(module).items()
            if isinstance(value, type)
            and issubclass(value, BaseException)
            and value.__module__ == info.name != "engine.game.errors"
        }
    # Malformed never leaves the link (it becomes ProtocolViolation); DaemonError is
    # the demo's own, about the daemon process it starts (docs/engine.md); QuitGame is
    # the terminal game's confirmed `quit`, no error at all; the league server's two
    # are its own, about its database and its pages' query parameters (docs/league.md),
    # never raised to a game.
    assert elsewhere == {
        "engine.units.unit_replies.Malformed",
        "engine.apps.demo.DaemonError",
        "engine.apps.screen.QuitGame",
        "engine.league.store.StoreError",
        "engine.league.web.QueryError",
    }
