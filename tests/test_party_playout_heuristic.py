"""engine.uno.party_playout_heuristic: UNO Party!'s heuristic playout plays, decision
by decision, the game engine.match's Driver plays with HeuristicBot in every seat
(the claims ordered from the same rng), and its own API loop (``reference_play_out``)."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game.claims import CLAIM_JITTER, claim_order
from engine.match import CLAIM_JITTER as MATCH_JITTER
from engine.match.driver import Driver
from engine.match.match import Claim, Match
from engine.uno import FAMILY
from engine.uno.actions import Action
from engine.uno.bots import HeuristicBot
from engine.uno.party import PartyGame
from engine.uno.party_playout_heuristic import play_out, reference_play_out
from engine.uno.party_rules import PartyRules
from tests.test_party_playout import HOUSES, _position

Log = list[tuple[int, str]]


def _driver(game: PartyGame, seed: int, reaction_ms: list[float], to: str) -> tuple[Log, PartyGame]:
    """What engine.match's Driver applies, in order, with HeuristicBot seats and
    ``random.Random(seed)`` ordering the claims; the game it ends on."""
    game = game.copy()
    applied: Log = []
    apply = game.apply

    def recorded(action: Action, player: int) -> None:
        applied.append((player, str(action)))
        apply(action, player)

    game.apply = recorded  # type: ignore[method-assign]
    bots = [HeuristicBot(f"h{p}", reaction_ms=ms) for p, ms in enumerate(reaction_ms)]
    driver = Driver(game, bots, None, rng=random.Random(seed))
    if to == "match":
        driver.run()
    else:
        driver.play_round()
    return applied, game


def _all_three(game: PartyGame, seed: int, reaction_ms: list[float], to: str = "round") -> Log:
    before = game.notation(reveal=True)
    fast: list[tuple[int, Action]] = []
    slow: list[tuple[int, Action]] = []
    a = play_out(game, random.Random(seed), to=to, log=fast, reaction_ms=reaction_ms)  # type: ignore[arg-type]
    b = reference_play_out(game, random.Random(seed), to=to, log=slow, reaction_ms=reaction_ms)  # type: ignore[arg-type]
    assert game.notation(reveal=True) == before  # the game is not changed
    log = [(p, str(x)) for p, x in fast]
    assert log == [(p, str(x)) for p, x in slow]
    assert a == b and a.decisions == len(fast)
    applied, end = _driver(game, seed, reaction_ms, to)
    assert log == applied
    outcome = end.outcome
    assert outcome is not None
    assert (a.winner, a.points, a.scores) == (outcome.winner, outcome.points, outcome.scores)
    assert a.match_winner == outcome.match_winner
    return log


def _speeds(players: int, seed: int) -> list[float]:
    """Every seat at the bots' default, or each its own (100 to 1000 ms)."""
    if seed % 2 == 0:
        return [230.0] * players
    rng = random.Random(seed)
    return [rng.choice([100.0, 230.0, 230.0, 400.0, 1000.0]) for _ in range(players)]


@pytest.mark.parametrize("players", [2, 4, 8, 16])
def test_heuristic_rounds_and_matches_play_as_the_driver(players: int) -> None:
    for seed in range(3):
        game = _position(seed, players, PartyRules(), moves=seed * 15, target=100)
        log = _all_three(game, seed, _speeds(players, seed))
        assert log and any(p != game.current for p, _ in log)
    game = _position(1, players, PartyRules(), moves=0, target=60)
    _all_three(game, 5, _speeds(players, 5), to="match")


@pytest.mark.parametrize("house", HOUSES, ids=str)
def test_heuristic_playouts_play_as_the_driver_under_each_house_rule(house: PartyRules) -> None:
    for seed, players in enumerate((2, 3, 5, 8)):
        game = _position(seed * 13 + len(str(house)), players, house, moves=seed * 9)
        _all_three(game, seed, _speeds(players, seed))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 16),
    rule=st.integers(0, len(HOUSES) - 1),
    moves=st.integers(0, 80),
    to=st.sampled_from(["round", "match"]),
)
def test_any_party_position_plays_out_heuristic_as_the_driver(
    seed: int, players: int, rule: int, moves: int, to: str
) -> None:
    game = _position(seed, players, HOUSES[rule], moves, target=100)
    _all_three(game, seed % 1000, _speeds(players, seed), to)


def test_simultaneous_claims_are_ordered_as_the_match_orders_them() -> None:
    """Rounds where several seats claim at once, their order drawn: the playouts
    and the Driver agree on every one (found on seeded 8-player rounds)."""
    together = 0
    for seed in range(12):
        game = PartyGame.new(8, seed=seed)
        log = _all_three(game, seed, [230.0] * 8)
        # a claims round of several: the same card speed played by two seats in a row
        together += sum(
            1
            for (p, a), (q, b) in itertools.pairwise(log)
            if a == b and a.startswith("speed") and p != q
        )
    assert together > 0


def _rewritten(game: PartyGame, hands: dict[int, str], **fields: str) -> PartyGame:
    """``game`` with some hands and fields of its revealed notation changed."""
    line = game.notation(reveal=True).split(" ")
    written = line[1].split("/")
    for p, hand in hands.items():
        written[p] = hand
    line[1] = "/".join(written)
    at = {"discard": 3, "colour": 4, "player": 6, "phase": 7, "uno": 8, "party": 16}
    for name, value in fields.items():
        line[at[name]] = value
    return PartyGame.from_notation(" ".join(line))


def _catch_position(players: int = 6, last: str = "B7") -> PartyGame:
    """Player 2 holds one card (``last``) and did not call UNO; player 1 is to
    act, on a B4 (the seed-1 deal's top card)."""
    return _rewritten(PartyGame.new(players, seed=1), {2: last}, uno="2")


def test_catches_and_a_speed_play_of_the_last_card_play_as_the_driver() -> None:
    """Everyone else claims the catch at once (one applies, the rest are lost);
    player 2 may also speed play its last card when it is the top one."""
    for last in ("B7", "B4"):
        game = _catch_position(last=last)
        for seed in range(8):
            log = _all_three(game, seed, _speeds(6, seed))
            assert log[0] in ((2, "speed B4"), *((p, "catch 2") for p in (0, 3, 4, 5)))
        for limit in range(4):  # the limit inside a claims round
            fast: list[tuple[int, Action]] = []
            slow: list[tuple[int, Action]] = []
            a = play_out(game, random.Random(limit), log=fast, max_decisions=limit)
            b = reference_play_out(game, random.Random(limit), log=slow, max_decisions=limit)
            assert a == b and fast == slow and a.decisions == len(fast) <= limit


def test_the_player_to_act_catches_and_names_a_colour_as_the_driver() -> None:
    """Two players: nobody else can claim the catch, so the one to act takes it;
    a wild turned first: the colour named as the bot names it."""
    caught = _rewritten(PartyGame.new(2, seed=1), {0: "B7"}, uno="0")
    assert _all_three(caught, 1, [230.0, 230.0])[0] == (1, "catch 0")
    dealt = PartyGame.new(5, seed=2)
    line = dealt.notation(reveal=True).split(" ")
    choose = _rewritten(dealt, {}, discard=line[3] + ",W", colour="-", phase="colour")
    assert choose.phase.value == "colour"
    log = _all_three(choose, 3, _speeds(5, 3))
    assert log[0][0] == choose.current and log[0][1].startswith("colour")


def test_a_pointing_with_a_link_plays_as_the_driver() -> None:
    """Player 0 points, linked to player 1: never at its partner."""
    dealt = PartyGame.new(9, seed=1)
    line = dealt.notation(reveal=True).split(" ")
    game = _rewritten(
        dealt,
        {1: "R1"},  # the partner is the nearest to going out
        discard=line[3] + ",RP",
        colour="R",
        phase="point",
        party="link=0+1;point=-,0,1,-,1,1,0,0,-",
    )
    assert game.waiting_for == (0, 3, 8)
    log = _all_three(game, 2, [230.0] * 9)
    assert log[:3] == [(0, "point 2"), (3, "point 1"), (8, "point 1")]


def _claims_of(game: PartyGame, bots: list[HeuristicBot]) -> list[Claim]:
    return [
        Claim(p, action, bots[p].reaction_ms)
        for p in game.claimants()
        if (action := bots[p].react(game, p)) is not None
    ]


def test_match_claim_rounds_apply_claims_in_claim_order() -> None:
    """Two or more catches of one player on one position: the Match applies the
    first of claim_order's, drawn from its rng, and loses the others."""
    bots = [HeuristicBot(f"h{p}", reaction_ms=200.0 + 10 * p) for p in range(6)]
    game = _catch_position()
    claims = _claims_of(game, bots)
    assert [(c.player, str(c.action)) for c in claims] == [(p, "catch 2") for p in (0, 3, 4, 5)]
    firsts = set()
    for s in range(20):
        order = claim_order([c.reaction_ms for c in claims], random.Random(s))
        match = Match(game.copy(), rng=random.Random(s))
        assert match.claim_round(claims) == [claims[order[0]]]  # one catch; the rest lost
        assert [e.kind for e in match.events].count("claim_lost") == len(claims) - 1
        firsts.add(claims[order[0]].player)
    assert len(firsts) > 1 and MATCH_JITTER is CLAIM_JITTER
    assert claim_order([], random.Random(1)) == []


def test_a_heuristic_playout_stops_at_the_limit_as_the_api() -> None:
    game = _position(3, 8, PartyRules(), moves=4)
    for limit in (0, 1, 2, 7, 40):
        fast: list[tuple[int, Action]] = []
        slow: list[tuple[int, Action]] = []
        a = play_out(game, random.Random(limit), log=fast, max_decisions=limit)
        b = reference_play_out(game, random.Random(limit), log=slow, max_decisions=limit)
        assert a == b and [str(x) for _, x in fast] == [str(x) for _, x in slow]
        assert a.decisions == len(fast) <= limit and a.winner is None


def test_the_uno_family_plays_party_heuristic_out() -> None:
    game = FAMILY.new(6, "party", seed=8)
    result = FAMILY.playout(game, "heuristic", random.Random(2))
    assert result == reference_play_out(game, random.Random(2))
    assert result.winner in range(6)


def test_reaction_times_are_checked_as_a_bots() -> None:
    game = PartyGame.new(3, seed=1)
    with pytest.raises(ValueError, match="2 reaction times for 3 players"):
        play_out(game, random.Random(1), reaction_ms=[230.0, 230.0])
    with pytest.raises(ValueError, match="seat 1"):
        play_out(game, random.Random(1), reaction_ms=[230.0, 50.0, 230.0])
