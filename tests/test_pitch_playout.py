"""engine.pitch.playout: the fast playout on ints plays exactly the API's game
(``reference_play_out``), decision by decision, under every house rule."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.pitch import FAMILY
from engine.pitch.actions import Action
from engine.pitch.cards import DECK, SUITS
from engine.pitch.game import Phase, PitchGame
from engine.pitch.heuristic import HeuristicBot, best_suit, suit_strength
from engine.pitch.playout import POLICIES, play_out, reference_play_out
from engine.pitch.playout_codes import CODE
from engine.pitch.playout_heuristic import best_suit as fast_best_suit
from engine.pitch.playout_heuristic import suit_strength as fast_suit_strength
from engine.pitch.rules import RULE_CHOICES, PitchRules
from tests.pitch_helpers import HOUSE, deal_game

#: Each house rule on its own, and all that change play together.
HOUSES = [PitchRules()] + [PitchRules(**fields) for fields in HOUSE.values()]
EVERYTHING = PitchRules(**{k: v for fields in HOUSE.values() for k, v in fields.items()})


def _position(seed: int, rules: PitchRules, moves: int, target: int = 52) -> PitchGame:
    """A position ``moves`` random decisions into a seeded hand."""
    game = PitchGame.new(seed=seed, house_rules=rules, target=target)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.round_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def _both(
    game: PitchGame, policy: str, seed: int, to: str = "hand", limit: int = 100_000
) -> list[Action]:
    """The fast playout and the API's from ``game``: equal, decision by decision."""
    fast: list[Action] = []
    slow: list[Action] = []
    before = game.notation(reveal=True)
    a = play_out(game, policy, random.Random(seed), to=to, log=fast, max_decisions=limit)  # type: ignore[arg-type]
    b = reference_play_out(game, policy, random.Random(seed), to=to, log=slow, max_decisions=limit)  # type: ignore[arg-type]
    assert game.notation(reveal=True) == before  # the game is not changed
    assert [str(x) for x in fast] == [str(x) for x in slow]
    assert a == b and a.decisions == len(fast)
    return fast


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("rules", [*HOUSES, EVERYTHING], ids=str)
def test_playouts_play_every_decision_as_the_api(policy: str, rules: PitchRules) -> None:
    for seed in range(6):
        game = _position(seed * 7 + len(str(rules)), rules, moves=seed * 5)
        _both(game, policy, seed)


@pytest.mark.parametrize("policy", POLICIES)
def test_matches_play_out_as_the_api(policy: str) -> None:
    for seed, rules in enumerate([PitchRules(), EVERYTHING, PitchRules(moon_zero="resets")]):
        game = _position(seed, rules, moves=seed * 9, target=21)
        _both(game, policy, seed, to="match")


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    house=st.dictionaries(
        st.sampled_from(sorted(RULE_CHOICES)), st.integers(0, 1), max_size=len(RULE_CHOICES)
    ),
    moves=st.integers(0, 40),
    policy=st.sampled_from(POLICIES),
    to=st.sampled_from(["hand", "match"]),
    target=st.sampled_from([1, 11, 52]),
)
def test_any_position_plays_out_as_the_api(
    seed: int, house: dict[str, int], moves: int, policy: str, to: str, target: int
) -> None:
    rules = PitchRules(**{name: RULE_CHOICES[name][i] for name, i in house.items()})
    game = _position(seed, rules, moves, target)
    _both(game, policy, seed % 1000, to)


def test_a_misdealt_hand_redeals_as_the_api() -> None:
    # Seat 1 holds no face and no point card: "redeal" is one of its actions.
    game = deal_game({1: "4C 5C 6C 7C 8C 9C 4D 5D 6D"}, rules="misdeal", actions=["pass"])
    assert Action.redeal() in game.legal_actions()
    redealt = 0
    for seed in range(40):
        log = _both(game, "random", seed, to="match")
        redealt += Action.redeal() in log
    assert redealt > 0


@pytest.mark.parametrize("face", ["up", "down"])
def test_a_burned_ace_is_seen_by_its_burner(face: str) -> None:
    """The heuristic's unseen trumps hold the burns it saw: its own face down too
    (then the ace is no threat, and the pitcher leads its king)."""
    game = deal_game(
        {0: "AH KH QH JH JD HJ LJ TH 9H"},
        rules="-" if face == "up" else "burn_face=down",
        actions=["bid moon", "trump H"],
    )
    if game.phase is Phase.STOCK:
        game.apply("give")
    for card in ("AH", "9H", "TH"):
        game.apply(f"burn {card}", 0)
    while game.phase is Phase.BURN:
        game.apply(game.legal_actions()[0])
    assert game.phase is Phase.PLAY and game.waiting_for == (0,)
    log = _both(game, "heuristic", 1)
    assert str(log[0]) == "play KH"


def test_a_playout_stops_at_the_same_decision_as_the_api() -> None:
    game = _position(3, EVERYTHING, moves=2, target=11)
    for limit in (0, 1, 2, 7, 19, 30, 55):
        for policy in POLICIES:
            log = _both(game, policy, limit, to="match", limit=limit)
            assert len(log) <= limit


def test_a_finished_hand_plays_out_to_its_match_as_the_api() -> None:
    game = _position(4, PitchRules(), moves=200, target=21)
    assert game.round_over
    assert _both(game, "heuristic", 1) == []  # to the hand: nothing left to decide
    _both(game, "random", 1, to="match")


def test_a_determinized_copy_plays_out_as_it_stands() -> None:
    """Other trumps in the other seats' hands (as a search samples them)."""
    for seed in range(8):
        game = _position(seed, PitchRules(), moves=0)
        bot = HeuristicBot()
        while game.phase is not Phase.PLAY:
            game.apply(bot.act(game, game.waiting_for[0]))
        copy = game.copy()
        others = [s for s in range(4) if s != seed % 4]
        pool = [c for s in others for c in copy._hands[s]]
        random.Random(seed).shuffle(pool)
        for s in others:
            size = len(copy._hands[s])
            copy._hands[s], pool = pool[:size], pool[size:]
        copy.check_invariants()
        for policy in POLICIES:
            _both(copy, policy, seed)


def test_the_suit_strength_on_codes_is_the_heuristics_to_the_bit() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        cards = rng.sample(DECK, rng.randrange(0, 13))
        codes = [CODE[c] for c in cards]
        for i, suit in enumerate(SUITS):
            assert fast_suit_strength(codes, i) == suit_strength(cards, suit)
        suit, strength = best_suit(cards)
        assert fast_best_suit(codes) == (SUITS.index(suit), strength)


def test_the_pitch_family_offers_its_playouts() -> None:
    assert FAMILY.playout_policies == POLICIES == ("random", "heuristic")
    game = FAMILY.new(4, "pitch", seed=9, target=21)
    for to in ("hand", "round"):  # the round is the hand (the UNO family's word)
        result = FAMILY.playout(game, "random", random.Random(2), to=to)
        assert result == reference_play_out(game, "random", random.Random(2))
    match = FAMILY.playout(game, "heuristic", random.Random(2), to="match")
    assert match.match_winner in (0, 1) and max(match.scores) >= 21
    with pytest.raises(ValueError, match="play out to 'round', 'hand' or 'match', not 'set'"):
        FAMILY.playout(game, "random", random.Random(2), to="set")


def test_a_pitch_match_plays_out_to_its_winner() -> None:
    game = PitchGame.new(seed=3, target=21)
    result = play_out(game, "heuristic", random.Random(1), to="match")
    assert result.match_winner is not None and result.match_winner in (0, 1)
    assert max(result.scores) >= 21


def test_a_pitch_playout_stops_at_its_limit_and_refuses_unknown_words() -> None:
    game = PitchGame.new(seed=5)
    assert play_out(game, "random", random.Random(1), max_decisions=2)[:3] == (None, 0, 2)
    for playout in (play_out, reference_play_out):
        with pytest.raises(ValueError, match="no playout policy 'prefer-play'"):
            playout(game, "prefer-play", random.Random(1))
        with pytest.raises(ValueError, match="play out to 'hand' or 'match', not 'round'"):
            playout(game, "random", random.Random(1), to="round")  # type: ignore[arg-type]
