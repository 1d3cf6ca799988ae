"""engine.uno.party_playout: UNO Party! played out on plain lists plays exactly the
API's game (``reference_play_out`` over ``legal_moves`` / ``apply``), decision by
decision, under every house rule; reached through FAMILY.playout."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game.registry import all_variants, family_playing
from engine.uno import FAMILY
from engine.uno.actions import DRAW, SPEED_PLAY, Action
from engine.uno.game import Phase
from engine.uno.party import PartyGame
from engine.uno.party_playout import POLICIES, action_of, play_out, reference_play_out
from engine.uno.party_playout_state import PartyState
from engine.uno.party_rules import PartyRules

#: Each house rule changed on its own.
_OTHER = {"first_action": "once", "pile_out": "at_once", "relink": "keep", "uno_penalty": 4}
HOUSES = [PartyRules()] + [
    PartyRules(**{f.name: _OTHER.get(f.name, not f.default)})
    for f in dataclasses.fields(PartyRules)
]
# Uniform random rounds run for thousands of decisions (wrong speed plays): the
# comparison stops both at the same count (the limit is part of what is compared).
LIMIT = 1500


def _position(
    seed: int, players: int, house: PartyRules, moves: int, target: int = 500
) -> PartyGame:
    """A position ``moves`` random (player, action) pairs into a dealt round."""
    game = PartyGame.new(players, seed=seed, house_rules=house, target=target)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.round_over:
            break
        player, action = rng.choice(game.legal_moves())
        game.apply(action, player)
    return game


def _both(
    game: PartyGame, policy: str, seed: int, to: str = "round", limit: int = LIMIT
) -> list[tuple[int, Action]]:
    fast: list[tuple[int, Action]] = []
    slow: list[tuple[int, Action]] = []
    before = game.notation(reveal=True)
    a = play_out(game, policy, random.Random(seed), to=to, log=fast, max_decisions=limit)  # type: ignore[arg-type]
    b = reference_play_out(game, policy, random.Random(seed), to=to, log=slow, max_decisions=limit)  # type: ignore[arg-type]
    assert game.notation(reveal=True) == before  # the game is not changed
    assert [(p, str(x)) for p, x in fast] == [(p, str(x)) for p, x in slow]
    assert a == b and a.decisions == len(fast)
    return fast


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("house", HOUSES, ids=str)
def test_party_playouts_play_every_decision_as_the_api(policy: str, house: PartyRules) -> None:
    for seed, players in enumerate((2, 3, 5, 8)):
        game = _position(seed * 11 + len(str(house)), players, house, moves=seed * 7)
        _both(game, policy, seed)


@pytest.mark.parametrize("players", [2, 4, 8, 16])
def test_prefer_play_rounds_and_matches_play_out_as_the_api(players: int) -> None:
    for seed in range(2):
        game = _position(seed, players, PartyRules(), moves=seed * 20, target=60)
        log = _both(game, "prefer-play", seed, to="round", limit=100_000)
        assert log and game.copy() is not game
        _both(game, "prefer-play", seed, to="match", limit=4000)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 16),
    rule=st.integers(0, len(HOUSES) - 1),
    moves=st.integers(0, 80),
    policy=st.sampled_from(POLICIES),
    to=st.sampled_from(["round", "match"]),
)
def test_any_party_position_plays_out_as_the_api(
    seed: int, players: int, rule: int, moves: int, policy: str, to: str
) -> None:
    game = _position(seed, players, HOUSES[rule], moves, target=100)
    _both(game, policy, seed % 1000, to, limit=600)


def test_the_special_phases_play_out_as_the_api() -> None:
    """A position in each phase of a turn (found by random play), played out."""
    wanted = {"play", "drawn", "penalty", "pile", "point"}
    seen: set[str] = set()
    for seed in range(60):
        game = _position(seed, 4 + seed % 5, HOUSES[seed % len(HOUSES)], moves=0)
        rng = random.Random(seed)
        while not game.round_over and game.turns < 200:
            phase = game.phase.value
            if phase not in seen:
                seen.add(phase)
                for policy in POLICIES:
                    _both(game, policy, seed, limit=300)
            moves = game.legal_moves()
            plays = [m for m in moves if m[1].kind not in (SPEED_PLAY, DRAW)]
            player, action = rng.choice(plays or moves)
            game.apply(action, player)
        if wanted <= seen:
            break
    assert wanted <= seen


def _rewritten(game: PartyGame, **fields: str) -> PartyGame:
    """``game`` read back from its revealed notation with some fields changed."""
    names = ["hands", "draw", "discard", "colour", "direction", "player", "phase"]
    names += ["pending", "uno", "scores", "dealer", "round", "target", "house", "seed", "party"]
    line = game.notation(reveal=True).split(" ")
    for name, value in fields.items():
        line[1 + names.index(name)] = value
    return PartyGame.from_notation(" ".join(line))


def test_a_last_card_barred_from_a_speed_play_is_no_move() -> None:
    """speed_out=no: player 1's only card is the top card, and is not a move."""
    dealt = PartyGame.new(5, seed=2)
    hands = dealt.notation(reveal=True).split(" ")[1].split("/")
    hands[1] = "B5"
    discard = dealt.notation(reveal=True).split(" ")[3] + ",B5"
    for house in ("-", "speed_out=no"):
        game = _rewritten(
            dealt, hands="/".join(hands), discard=discard, colour="B", player="0", house=house
        )
        assert (house == "-") == any(p == 1 for p, _ in game.legal_moves())
        for seed in range(30):
            _both(game, "random", seed, limit=40)


def test_a_linked_pointing_caps_the_linked_draw_as_the_api() -> None:
    """cap_linked: the last pointer's choice settles it; each seed draws its own."""
    dealt = PartyGame.new(9, seed=1)
    discard = dealt.notation(reveal=True).split(" ")[3] + ",RP"
    for house in ("-", "cap_linked=yes"):
        game = _rewritten(
            dealt,
            discard=discard,
            colour="R",
            player="0",
            phase="point",
            house=house,
            party="link=0+1;point=1,0,1,1,1,1,0,0,-",
        )
        assert game.waiting_for == (8,)
        for seed in range(6):
            _both(game, "random", seed, limit=30)
            _both(game, "prefer-play", seed, limit=30)


def test_each_players_moves_are_the_apis_legal_actions() -> None:
    """PartyState's lists, counts and picks against legal_actions(p), player by player."""
    for seed in range(40):
        game = _position(seed, 2 + seed % 15, HOUSES[seed % len(HOUSES)], moves=seed * 3)
        state = PartyState(game)
        if game.round_over:
            continue
        target, window = state.catch_target(), state.window()
        for p in range(game.players):
            moves = state.moves_of(p, window, target)
            assert [str(action_of(m)) for m in moves] == [str(a) for a in game.legal_actions(p)]
            if game.phase is Phase.POINT:
                continue
            if p == game.current and game.phase is Phase.PLAY:
                assert state.turn_count(p, target) == len(moves)
                assert [state.nth_turn(p, i, target) for i in range(len(moves))] == moves
            elif p != game.current:
                assert [state.nth_other(p, i, window, target) for i in range(len(moves))] == moves


def test_a_playout_stops_at_the_same_decision_as_the_api() -> None:
    game = _position(5, 6, PartyRules(), moves=3)
    for limit in (0, 1, 2, 9, 50):
        for policy in POLICIES:
            assert len(_both(game, policy, limit, limit=limit)) <= limit


def test_a_finished_round_plays_on_to_the_match_as_the_api() -> None:
    game = _position(7, 3, PartyRules(), moves=0, target=100)
    rng = random.Random(7)
    while not game.round_over:
        player, action = (
            game.legal_moves()[0] if rng.random() < 0.5 else rng.choice(game.legal_moves())
        )
        game.apply(action, player)
    assert _both(game, "random", 1) == []  # to the round: nothing left to decide
    _both(game, "prefer-play", 1, to="match", limit=100_000)
    _both(game, "heuristic", 1, to="match", limit=100_000)


def test_the_uno_family_plays_party_out_with_each_policy() -> None:
    game = FAMILY.new(5, "party", seed=4)
    assert FAMILY.playout_policies == POLICIES
    for policy in POLICIES:
        result = FAMILY.playout(game, policy, random.Random(3))
        assert result == reference_play_out(game, policy, random.Random(3))
        assert result.winner in range(5) and result.points >= 0
    with pytest.raises(ValueError, match="no UNO Party! playout policy 'best'"):
        FAMILY.playout(game, "best", random.Random(3))
    with pytest.raises(ValueError, match="play out to 'round' or 'match', not 'hand'"):
        play_out(game, "random", random.Random(3), to="hand")  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", all_variants())
def test_every_variant_of_every_family_plays_out_through_its_family(variant: str) -> None:
    """The issue's "for every family's games": FAMILY.playout plays ``random``
    everywhere; another policy it lists plays, or is refused in words, and the
    game is unchanged."""
    family = family_playing(variant)
    game = family.new(4, variant, seed=11)
    before = game.notation(reveal=True)
    for policy in family.playout_policies:  # type: ignore[attr-defined]
        try:
            result = family.playout(game, policy, random.Random(5), to="round")  # type: ignore[attr-defined]
        except ValueError as exc:
            assert policy != "random" and f"playout policy {policy!r}" in str(exc)
            continue
        assert result.winner in range(4) and result.decisions > 0
    assert game.notation(reveal=True) == before
