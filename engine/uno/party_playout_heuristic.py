"""UNO Party!'s ``heuristic`` playout: every seat plays as HeuristicBot, claims
ordered as engine.match orders them.

The contract (what ``play_out`` plays, and ``reference_play_out`` plays through
the public API): every player is a ``HeuristicBot(reaction_ms=ms[p])``, as
engine.match.driver.Driver plays a Party! game with such agents:

1. A claims round: every player of ``game.claimants()`` (seat order) whose
   ``react(game, p)`` gives a claim (a catch, else a right speed play) claims
   it on the same position; the claims are applied in
   ``engine.game.claims.claim_order`` (each reaction_ms times
   ``rng.lognormvariate(0, CLAIM_JITTER)``, then ``rng.random()``, claim by
   claim in seat order; nothing drawn when nobody claims), and a claim no
   longer legal when its turn comes is dropped (Match.claim_round's
   ``claim_lost``). Rounds follow until one has no claims.
2. Then the first of ``game.waiting_for`` decides with ``act(game, p)``, and
   back to 1, until the round (or with ``to="match"`` the match) is over; a
   next round starts with a claims round too.

Every applied claim and every act is a decision (as Match counts them). The
bots draw nothing from ``rng``: only the claims' order does. A playout stops
once it has made ``max_decisions`` decisions, in a claims round too (the
claims left are not applied; their order was drawn). ``reaction_ms`` is one
number for every seat or one per seat (by default DEFAULT_REACTION_MS, a bot's
own default).

``play_out`` plays it on PartyState's lists (engine.uno.party_playout_state),
the bot's choices written on card codes below, and the game is not changed;
tests/test_party_playout_heuristic.py replays it against ``reference_play_out``
and against engine.match's Driver with HeuristicBot seats, decision by decision.

>>> import random
>>> from engine.uno.party import PartyGame
>>> game = PartyGame.new(4, seed=3)
>>> result = play_out(game, random.Random(1))
>>> result == reference_play_out(game, random.Random(1)), game.turns
(True, 0)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Literal

from engine.game.agents import DEFAULT_REACTION_MS, check_reaction_ms
from engine.game.claims import claim_order
from engine.uno import bots, party_bots
from engine.uno.actions import Action
from engine.uno.bots import HeuristicBot
from engine.uno.cards import COLOUR_MASK, COLOUR_SHIFT, POINTS_BY_CODE, RANK_MASK, WILD_COLOUR, Rank
from engine.uno.party import PartyGame
from engine.uno.party_notation import WAITING
from engine.uno.party_playout_state import (
    CHOOSING,
    DRAWN,
    K_ACCEPT,
    K_ADD,
    K_CATCH,
    K_CHALLENGE,
    K_COLOUR,
    K_DRAW,
    K_KEEP,
    K_PLAY,
    K_POINT,
    K_SPEED,
    K_TAKE,
    OVER,
    PENALTY,
    PILE,
    POINTING,
    Move,
    PartyState,
    action_of,
    playable_codes,
)
from engine.uno.playout import MAX_DECISIONS, PlayoutResult

__all__ = ["play_out", "reference_play_out", "reactions"]

_DANGER = HeuristicBot.DANGER_CARDS
_THRESHOLD = HeuristicBot().challenge_threshold
_WILD, _WD4, _POINT_TAKEN = int(Rank.WILD), int(Rank.WILD_DRAW_FOUR), int(Rank.POINT_TAKEN)
_PILE_UP, _DRAWN_TOGETHER, _REVERSE = (
    int(Rank.WILD_PILE_UP),
    int(Rank.WILD_DRAWN_TOGETHER),
    int(Rank.REVERSE),
)
# The bots' own orders, as ints: the ranks a turn keeps for a next player about to go
# out, the attacks a mini pile keeps, the wilds it gives first.
_CLASSIC_ACTIONS = frozenset(map(int, bots._ACTION_RANKS))
_ATTACKS = frozenset(map(int, party_bots._ATTACKS))
_PILE_WILDS = {int(rank): i for i, rank in enumerate(party_bots._PILE_WILDS)}
_DRAW, _KEEP, _TAKE = (K_DRAW,), (K_KEEP,), (K_TAKE,)
_CHALLENGE, _ACCEPT = (K_CHALLENGE,), (K_ACCEPT,)


def reactions(reaction_ms: float | Sequence[float], players: int) -> list[float]:
    """Each seat's reaction median (ms), checked as a bot's."""
    if isinstance(reaction_ms, int | float):
        reaction_ms = [reaction_ms] * players
    if len(reaction_ms) != players:
        raise ValueError(f"{len(reaction_ms)} reaction times for {players} players")
    return [check_reaction_ms(ms, f"seat {p}") for p, ms in enumerate(reaction_ms)]


def play_out(
    game: PartyGame,
    rng: random.Random,
    *,
    to: Literal["round", "match"] = "round",
    log: list[tuple[int, Action]] | None = None,
    max_decisions: int = MAX_DECISIONS,
    reaction_ms: float | Sequence[float] = DEFAULT_REACTION_MS,
) -> PlayoutResult:
    """Play ``game`` (left unchanged) by the contract above, on lists."""
    ms = reactions(reaction_ms, game.players)
    st = PartyState(game)
    deck: dict[int, int] = {}  # the deck's count of each code (what is unseen)
    for card in game.variant.deck:
        deck[card] = deck.get(card, 0) + 1
    decisions = 0
    pointing: list[int | str] | None = None  # the pointing ``ranked`` ranks the targets of
    ranked: list[int] = []
    while True:
        while st.phase != OVER:
            if decisions >= max_decisions:
                return PlayoutResult(None, 0, decisions, tuple(st.scores), None)
            claims = _claims(st)
            if claims:
                decisions += _claim_round(st, claims, ms, rng, log, max_decisions - decisions)
                continue
            if st.phase == POINTING:
                choices = st.choices
                assert choices is not None
                player = choices.index(WAITING)
                if choices is not pointing:  # hands and scores stand still while all point
                    pointing, ranked = choices, _ranked(st)
                move: Move = (K_POINT, _point_at(st, player, ranked))
            else:
                player = st.current
                move = _act(st, player, deck)
            if log is not None:
                log.append((player, action_of(move)))
            st.apply(player, move)
            decisions += 1
        winner = st.current
        if to == "round" or st.match_winner() is not None:
            return PlayoutResult(
                winner, st.points(), decisions, tuple(st.scores), st.match_winner()
            )
        st.next_round()


def _claims(st: PartyState) -> list[tuple[int, Move]]:
    """Every claimant's react(): a catch, else a right speed play (with UNO when
    it leaves one card), in seat order; nobody claims while everyone points."""
    if st.phase == POINTING:
        return []
    target = st.catch_target()
    window = st.window()
    if target < 0 and not window:
        return []
    current = st.current
    top = st.discard[-1]
    speed_out = st.speed_out
    hands = st.hands
    if target < 0:  # speed plays only: the holders of the top card
        return [
            (p, (K_SPEED, top, 1 if len(hands[p]) == 2 else 0))
            for p in [p for p, hand in enumerate(hands) if top in hand]
            if p != current and (speed_out or len(hands[p]) > 1)
        ]
    claims: list[tuple[int, Move]] = []
    for p, hand in enumerate(hands):
        if p == current:
            continue
        if target != p:
            claims.append((p, (K_CATCH, target)))
        elif window and top in hand and (len(hand) > 1 or speed_out):
            claims.append((p, (K_SPEED, top, 1 if len(hand) == 2 else 0)))
    return claims


def _claim_round(
    st: PartyState,
    claims: list[tuple[int, Move]],
    ms: list[float],
    rng: random.Random,
    log: list[tuple[int, Action]] | None,
    budget: int,
) -> int:
    """Apply the claims fastest first (Match.claim_round), at most ``budget``;
    the claims applied."""
    applied = 0
    for i in claim_order([ms[p] for p, _ in claims], rng):
        if applied == budget:
            break
        player, move = claims[i]
        if applied and (
            st.phase == OVER or move not in st.moves_of(player, st.window(), st.catch_target())
        ):
            continue  # taken by an earlier claim, or its window closed
        if log is not None:
            log.append((player, action_of(move)))
        st.apply(player, move)
        applied += 1
    return applied


# -- HeuristicBot.act on codes (engine.uno.party_bots.heuristic_act) ----------------------


def _colour(card: int) -> int:
    return card >> COLOUR_SHIFT & COLOUR_MASK


#: card code -> its colour field (0-3, WILD_COLOUR), for the hot loops.
_COLOUR_OF = [_colour(code) for code in range(len(POINTS_BY_CODE))]


def _act(st: PartyState, p: int, deck: dict[int, int]) -> Move:
    """heuristic_act outside the pointing: a catch first, then the phase's choice."""
    phase = st.phase
    hands = st.hands
    target = st.catch_target()
    if phase != CHOOSING and target >= 0 and target != p:
        return (K_CATCH, target)
    if phase == CHOOSING:
        return (K_COLOUR, best_colour(hands[p]))
    if phase == PILE:
        return _pile_move(st, p)
    if phase == PENALTY:
        chance = _offence_chance(st, p, deck)
        return _CHALLENGE if chance is not None and chance > _THRESHOLD else _ACCEPT
    return _play(st, p)


def best_colour(cards: Sequence[int]) -> int:
    """HeuristicBot.best_colour: the colour held most (ties: most points, then R, Y, G, B)."""
    count = [0] * 5
    points = [0] * 5
    for card in cards:
        colour = _COLOUR_OF[card]
        count[colour] += 1
        points[colour] += POINTS_BY_CODE[card]
    return max(range(4), key=lambda c: (count[c], points[c], -c))


def _ranked(st: PartyState) -> list[int]:
    """Everyone holding cards, nearest to going out first (fewest cards, then
    highest score, then lowest seat): party_bots.choose_point's order."""
    hands, scores = st.hands, st.scores
    return sorted(
        (t for t in range(st.n) if hands[t]), key=lambda t: (len(hands[t]), -scores[t], t)
    )


def _point_at(st: PartyState, p: int, ranked: list[int]) -> int:
    """party_bots.choose_point: the opponent nearest to going out, not the own
    link partner unless nobody else can be pointed at."""
    link = st.link
    partner = link[0] + link[1] - p if link is not None and p in link else -1
    for t in ranked:
        if t != p and t != partner:
            return t
    if partner in ranked:  # nobody else holds cards
        return partner
    raise ValueError(f"player {p} has nobody to point at")


def _pile_move(st: PartyState, p: int) -> Move:
    """party_bots.choose_pile: add the card needed least, take only when none fits."""
    pile_colour = st.pile_colour()
    adds = [c for c in st.order_of(p) if _colour(c) in (WILD_COLOUR, pile_colour)]
    if not adds:
        return _TAKE

    def need(card: int) -> tuple[int, int]:
        rank = card & RANK_MASK
        if _colour(card) == WILD_COLOUR:
            return (2, _PILE_WILDS.get(rank, 0))
        return (1 if rank in _ATTACKS else 0, -POINTS_BY_CODE[card])

    return (K_ADD, min(adds, key=need), 1 if len(st.hands[p]) == 2 else 0)


def _offence_chance(st: PartyState, p: int, deck: dict[int, int]) -> float | None:
    """party_bots.offence_chance on codes: the chance the Wild Draw Four's
    player still holds the covered colour or a Wild, from what ``p`` sees."""
    discard = st.discard
    if len(discard) < 2 or _colour(discard[-2]) == WILD_COLOUR:
        return None
    covered = _colour(discard[-2])
    all_wilds = st.house.wd4_all_wilds
    unseen = deck.copy()
    for seen in (st.hands[p], discard, st.pile):
        for card in seen:
            unseen[card] -= 1
    total = bad = 0
    for card, count in unseen.items():
        if count > 0:
            total += count
            rank = card & RANK_MASK
            if (
                _colour(card) == covered
                or rank == _WILD
                or (all_wilds and rank in (_PILE_UP, _DRAWN_TOGETHER))
            ):
                bad += count
    held = min(len(st.hands[st.next(p, -1)]), total)
    return 1 - math.comb(total - bad, held) / math.comb(total, held)


def _play(st: PartyState, p: int) -> Move:
    """party_bots.choose_play: a turn (play or draw) or the drawn card (play or keep)."""
    hand = st.hands[p]
    colour = st.colour
    if st.phase == DRAWN:
        cards = [hand[-1]]
    else:
        top = st.discard[-1]
        rank = top & RANK_MASK if _colour(top) != WILD_COLOUR else -1
        cards = list(filter(playable_codes(colour, rank).__contains__, st.order_of(p)))
    if cards and not _honest(st, hand):
        cards = [c for c in cards if c & RANK_MASK != _WD4]
    hands = st.hands
    sizes = list(map(len, hands))
    sizes[p] = _DANGER + 1  # danger: an opponent about to go out
    danger = min(sizes) <= _DANGER
    if st.phase == DRAWN and cards and _colour(cards[0]) == WILD_COLOUR and not danger:
        cards = []  # a drawn wild is kept for later
    if not cards:
        return _KEEP if st.phase == DRAWN else _DRAW
    card = cards[0] if len(cards) == 1 else max(cards, key=_scorer(st, p, hand, danger))
    uno = 1 if len(hand) == 2 else 0
    rank = card & RANK_MASK
    if _COLOUR_OF[card] != WILD_COLOUR or rank == _PILE_UP:
        return (K_PLAY, card, -1, uno, None)
    named = best_colour(hand)  # the hand without this wild: a wild counts for no colour
    links = st.links(p) if rank == _DRAWN_TOGETHER else []
    return (K_PLAY, card, named, uno, _choose_link(st, p, links) if links else None)


def _scorer(st: PartyState, p: int, hand: list[int], danger: bool) -> Callable[[int], float]:
    """party_bots._score and HeuristicBot._play_score of each card, for max()."""
    held = [0] * 5  # the hand's cards of each colour field
    for c in hand:
        held[_COLOUR_OF[c]] += 1
    next_small = len(st.hands[st.next(p)]) <= _DANGER
    two = st.n == 2

    def score(card: int) -> float:
        rank = card & RANK_MASK
        colour = _COLOUR_OF[card]
        if rank == _POINT_TAKEN:
            return 10 * held[colour] + POINTS_BY_CODE[card] / 10 + (150 if danger else -20)
        if colour == WILD_COLOUR:
            if rank == _WD4:
                return 300 if next_small else (100 if danger else -100)
            return 100 if danger else -100
        value = 10 * held[colour] + POINTS_BY_CODE[card] / 10
        if rank in _CLASSIC_ACTIONS:
            value += (200 if rank != _REVERSE or two else 50) if next_small else -20
        return value

    return score


def _honest(st: PartyState, hand: list[int]) -> bool:
    """party_bots.wild_draw_four_is_honest: no card of the colour in force, no Wild."""
    colour = st.colour
    all_wilds = st.house.wd4_all_wilds
    for card in hand:
        field = _COLOUR_OF[card]
        if field == colour and colour != WILD_COLOUR:
            return False
        rank = card & RANK_MASK
        if field == WILD_COLOUR and (
            rank == _WILD or (all_wilds and rank in (_PILE_UP, _DRAWN_TOGETHER))
        ):
            return False
    return True


def _choose_link(st: PartyState, p: int, options: list[tuple[int, int]]) -> tuple[int, int]:
    """party_bots.choose_link: the two opponents with the fewest cards."""
    return party_bots.link_by_sizes(p, [len(hand) for hand in st.hands], st.scores, options)


# -- the same through the public API ------------------------------------------------------


def reference_play_out(
    game: PartyGame,
    rng: random.Random,
    *,
    to: Literal["round", "match"] = "round",
    log: list[tuple[int, Action]] | None = None,
    max_decisions: int = MAX_DECISIONS,
    reaction_ms: float | Sequence[float] = DEFAULT_REACTION_MS,
) -> PlayoutResult:
    """The contract through the public API, on a copy of ``game``: HeuristicBot's
    ``react`` / ``act``, ``claimants()``, ``is_legal`` and ``apply``."""
    ms = reactions(reaction_ms, game.players)
    game = game.copy()
    bots = [HeuristicBot(f"bot{p}", reaction_ms=ms[p]) for p in range(game.players)]
    decisions = 0
    while True:
        while not game.round_over:
            if decisions >= max_decisions:
                return PlayoutResult(None, 0, decisions, game.scores, None)
            claims = [
                (p, action)
                for p in game.claimants()
                if (action := bots[p].react(game, p)) is not None
            ]
            if claims:
                for i in claim_order([ms[p] for p, _ in claims], rng):
                    if decisions >= max_decisions:
                        break
                    player, action = claims[i]
                    if game.round_over or not game.is_legal(action, player):
                        continue  # Match.claim's claim_lost
                    if log is not None:
                        log.append((player, action))
                    game.apply(action, player)
                    decisions += 1
                continue
            player = game.waiting_for[0]
            action = bots[player].act(game, player)
            if log is not None:
                log.append((player, action))
            game.apply(action, player)
            decisions += 1
        outcome = game.outcome
        assert outcome is not None  # the round is over
        if to == "round" or game.match_over:
            return PlayoutResult(
                outcome.winner, outcome.points, decisions, outcome.scores, outcome.match_winner
            )
        game.next_round()
