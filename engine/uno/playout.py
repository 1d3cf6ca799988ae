"""Playouts: a classic or Showdown game played to the end of the round or the
match by a named policy, fast, on plain ints.

``play_out(game, policy, rng)`` copies the position into its own lists of card
codes (the game is not changed), then plays every decision itself: no Action
is built and no ``apply()`` is called per decision. The same ``rng`` gives
exactly the game that the public API would play with the same policy
(engine.uno.policies: ``reference_play_out`` is that loop over
``waiting_for`` / ``legal_actions`` / ``apply``, and tests/test_uno_playout.py
compares every decision of the two).

The policies (``POLICIES``), each choosing from ``legal_actions()`` as the game
lists them:

``random``       uniform over the legal actions;
``prefer-play``  uniform over the actions that are not ``draw`` or ``keep``
                 when there are any, else over all (../shared/peers' prefer-play);
``heuristic``    what ``engine.uno.bots.HeuristicBot()`` chooses (no rng).

A uniform choice among ``k > 1`` actions takes ``int(rng.random() * k)``; a
choice of one takes nothing from ``rng``. A showdown is settled by a
simulated unit: the loser is the challenger or the opponent, 50/50, chosen
the same way among the two results as ``legal_actions()`` lists them
(challenger first), whatever the policy. Every decision counts, the unit's too.

>>> import random
>>> from engine.uno.game import Game
>>> game = Game.new(2, "classic", seed=7)
>>> result = play_out(game, "prefer-play", random.Random(1))
>>> result.winner in (0, 1), result.points > 0, game.turns
(True, True, 0)
>>> play_out(game, "prefer-play", random.Random(1)) == result
True
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Literal, NamedTuple

from engine.game.shuffle import seeded_shuffle
from engine.uno.actions import Action
from engine.uno.cards import (
    COLOUR_MASK,
    COLOUR_SHIFT,
    COLOURS,
    FACE_MASK,
    FIRST_WILD_RANK,
    LAST_NUMBER_RANK,
    NUMBER_TEST_MASK,
    RANK_MASK,
    SHOWDOWN_SHIFT,
    WILD_COLOUR,
    Rank,
)
from engine.uno.game import Game
from engine.uno.game_state import _COLOUR, _DRAWN, _OVER, _PENALTY, _PLAY
from engine.uno.playout_codes import (
    ACCEPT,
    CARD_BITS,
    CATCH_BASE,
    CHALLENGE,
    COLOUR_SHIFT_PLAY,
    DRAW,
    KEEP,
    PLAYS,
    PLAYS_UNO,
    UNO_BIT,
    action_of,
)
from engine.uno.playout_heuristic import (
    CHALLENGE_AT,
    best_colour,
    best_play,
    held_colour_chance,
    showdown_face,
)
from engine.uno.rules import (
    FIRST_CARD_COVERED,
    FIRST_CARD_RETURNED,
    HAND_SIZE,
    LOST_CHALLENGE_CARDS,
    WILD_DRAW_FOUR_CARDS,
    HouseRules,
    first_card_effect,
)
from engine.uno.tables import PASS_TURN, PLAYABLE, POINTS

__all__ = ["play_out", "PlayoutResult", "POLICIES", "MAX_DECISIONS"]

#: The policies by name, as ``play_out`` takes them.
POLICIES = ("random", "prefer-play", "heuristic")
_RANDOM, _PREFER, _HEURISTIC = range(len(POLICIES))
_WD4 = WILD_DRAW_FOUR_CARDS
_WD4_RANK = int(Rank.WILD_DRAW_FOUR)  # an int compares faster than the IntEnum
_DRAW_UNTIL_MAX = HouseRules.DRAW_UNTIL_MAX
#: The decisions after which a playout stops by default.
MAX_DECISIONS = 100_000


class PlayoutResult(NamedTuple):
    """A playout's end: the last round's winner and points, the decisions made
    (all rounds), the match's scores and its winner (None while no one has
    reached the target: always so after a round that did not end the match).
    A playout stopped by ``max_decisions`` has winner None and points 0."""

    winner: int | None
    points: int
    decisions: int
    scores: tuple[int, ...]
    match_winner: int | None


def play_out(
    game: Game,
    policy: str,
    rng: random.Random,
    *,
    to: Literal["round", "match"] = "round",
    log: list[Action] | None = None,
    max_decisions: int = MAX_DECISIONS,
) -> PlayoutResult:
    """Play ``game`` (left unchanged) to the end of the round or the match with
    ``policy`` (one of POLICIES), choosing with ``rng``. ``log``, when given,
    receives every decision as the game's Action (a debug mode: slower).
    After ``max_decisions`` decisions the playout stops where it is (uniform
    random Showdown rounds can run for hundreds of thousands).

    A game copied with ``Game.copy()`` and given other hands or another draw
    pile (a determinized copy, every card of the deck still in one place) plays
    out as it stands.
    """
    try:
        kind = POLICIES.index(policy)
    except ValueError:
        raise ValueError(
            f"no playout policy {policy!r} (the policies: {', '.join(POLICIES)})"
        ) from None
    if to not in ("round", "match"):
        raise ValueError(f"play out to 'round' or 'match', not {to!r}")
    state = _State(game)
    decisions = 0
    while True:
        decisions += _play_round(state, kind, rng.random, log, max_decisions - decisions)
        if state.phase != _OVER:
            return PlayoutResult(None, 0, decisions, tuple(state.scores), None)
        winner = state.current
        if to == "round" or state.match_winner() is not None:
            break
        state.next_round()
    return PlayoutResult(winner, state.points, decisions, tuple(state.scores), state.match_winner())


class _State:
    """The position as plain lists and ints (the slots of ClassicState, copied)."""

    __slots__ = (
        "n",
        "hands",
        "draw",
        "discard",
        "top",
        "direction",
        "phase",
        "pending",
        "wd4_legal",
        "catchable",
        "showdown",
        "current",
        "scores",
        "points",
        "dealer",
        "target",
        "seed",
        "shuffles",
        "house",
        "first_card",
        "effects",
        "showdowns",
        "deck",
    )

    def __init__(self, game: Game) -> None:
        g = game
        self.n = g._n
        self.hands = [hand[:] for hand in g._hands]
        self.draw = g._draw[:]
        self.discard = g._discard[:]
        self.top = g._top
        self.direction = g._direction
        self.phase = g._phase
        self.pending = g._pending
        self.wd4_legal = g._wd4_legal
        self.catchable = g._catchable
        self.showdown = None if g._showdown is None else (*g._showdown[:2], g._showdown[2][:])
        self.current = g.current
        self.scores = g._scores[:]
        self.points = 0
        self.dealer = g._dealer
        self.target = g._target
        self.seed = g._seed
        self.shuffles = g._shuffles
        self.house = g._house
        self.first_card = g._house.first_card or g._variant.first_card
        self.effects = g._effects
        self.showdowns = g._variant.showdowns
        self.deck = g._variant.codes
        if self.phase == _OVER:
            self.points = _points(self.hands, self.current)

    def match_winner(self) -> int | None:
        scores = self.scores
        best = max(scores)
        return scores.index(best) if best >= self.target else None  # the first best

    def next_round(self) -> None:
        """Game.next_round and Game._deal, on the playout's lists."""
        n = self.n
        cards = [c for hand in self.hands for c in hand] + self.draw + self.discard
        cards.sort()
        self.dealer = dealer = (self.dealer + 1) % n
        seeded_shuffle(cards, seed=self.seed, count=self.shuffles)
        self.shuffles += 1
        first = (dealer + 1) % n
        hands: list[list[int]] = [[]] * n
        for i in range(n):
            hands[(first + i) % n] = cards[-HAND_SIZE:][::-1]
            del cards[-HAND_SIZE:]
        self.hands = hands
        self.draw = draw = cards
        self.discard = discard = [cards.pop()]
        self.direction = 1
        self.pending = 0
        self.wd4_legal = None
        self.catchable = -1
        self.showdown = None
        # Game._turn_first_card.
        returned, covered = (
            FIRST_CARD_RETURNED[self.first_card],
            FIRST_CARD_COVERED[self.first_card],
        )
        while True:
            rank = discard[-1] & RANK_MASK
            if rank in returned and any(c & RANK_MASK < FIRST_WILD_RANK for c in draw):
                draw.append(discard.pop())
                seeded_shuffle(draw, seed=self.seed, count=self.shuffles)
                self.shuffles += 1
                discard.append(draw.pop())
            elif rank in covered and draw:
                discard.append(draw.pop())
            else:
                break
        self.current, self.phase = first, _PLAY
        if rank >= FIRST_WILD_RANK:
            self.top = WILD_COLOUR << COLOUR_SHIFT | rank
            self.phase = _COLOUR
            return
        self.top = discard[-1] & FACE_MASK
        effect = first_card_effect(rank, n == 2)
        if effect.reverses:
            self.direction = -self.direction
        d = self.direction
        if effect.draws:
            self._draw_cards((dealer + d) % n, effect.draws)
        self.current = (dealer + effect.turns * d) % n

    def _draw_cards(self, player: int, count: int) -> None:
        hand, draw, discard = self.hands[player], self.draw, self.discard
        for _ in range(count):
            if not draw:
                if len(discard) < 2:
                    return
                rest = discard[:-1]
                del discard[:-1]
                seeded_shuffle(rest, seed=self.seed, count=self.shuffles)
                self.shuffles += 1
                draw.extend(rest)
            hand.append(draw.pop())


@functools.cache
def _deck_colours(codes: tuple[int, ...]) -> tuple[int, ...]:
    """A deck's cards by colour field (the heuristic's challenge needs it)."""
    colours = [0] * (WILD_COLOUR + 1)
    for c in codes:
        colours[c >> COLOUR_SHIFT & COLOUR_MASK] += 1
    return tuple(colours)


def _points(hands: list[list[int]], winner: int) -> int:
    return sum(POINTS[c] for p, hand in enumerate(hands) if p != winner for c in hand)


def _play_round(  # one loop over the phases, kept whole for speed
    s: _State,
    policy: int,
    random_: Callable[[], float],
    log: list[Action] | None,
    limit: int,
) -> int:
    """Play ``s`` to the end of its round, or ``limit`` decisions (``s`` then
    keeps its phase); return the decisions made.

    Mirrors Game.legal_actions and Game.apply decision by decision (the
    comments name the Game method each part follows)."""
    n = s.n
    hands, draw, discard = s.hands, s.draw, s.discard
    top, d, phase, current = s.top, s.direction, s.phase, s.current
    pending, wd4_legal, catchable = s.pending, s.wd4_legal, s.catchable
    effects, showdowns, house = s.effects, s.showdowns, s.house
    stacking, until, uno_penalty = house.stacking, house.draw_until_playable, house.uno_penalty
    face_low, face_high = house.showdown_cards
    heuristic = policy == _HEURISTIC
    prefer = policy == _PREFER
    seed = s.seed
    shuffles = s.shuffles
    decisions = 0
    showdown = s.showdown  # (challenger, opponent, cards) waiting for the unit
    # The hot loop's names, as locals.
    playable_by_top, plays_of, plays_uno_of = PLAYABLE, PLAYS, PLAYS_UNO
    in_play, drawn_phase, penalty_phase = _PLAY, _DRAWN, _PENALTY
    number_test, last_number, card_bits = NUMBER_TEST_MASK, LAST_NUMBER_RANK, CARD_BITS
    if s.phase == _OVER:
        return 0

    def reshuffle() -> bool:
        # Game._reshuffle: the top discard stays, the rest is shuffled into the pile.
        nonlocal shuffles
        if len(discard) < 2:
            return False
        rest = discard[:-1]
        del discard[:-1]
        seeded_shuffle(rest, seed=seed, count=shuffles)
        shuffles += 1
        draw.extend(rest)
        return True

    def draw_cards(player: int, count: int) -> None:
        hand = hands[player]
        for _ in range(count):
            if not draw and not reshuffle():
                return
            hand.append(draw.pop())

    def start_showdown(challenger: int, opponent: int, count: int) -> bool:
        nonlocal showdown
        unit = []
        for _ in range(count):
            if not draw and not reshuffle():
                break
            unit.append(draw.pop())
        if not unit:
            return False
        showdown = (challenger, opponent, unit)
        return True

    while True:
        if decisions >= limit:
            winner = -1
            break
        if showdown is not None:
            # The simulated unit: the loser 50/50 (Game._resolve_showdown).
            challenger, opponent, unit = showdown
            showdown = None
            loser = opponent if random_() * 2 >= 1 else challenger
            decisions += 1
            if log is not None:
                log.append(Action.showdown_result(loser))
            hands[loser] += unit
            if not hands[challenger]:
                winner = challenger
                break
            continue
        p = current
        hand = hands[p]
        decisions += 1
        # -- what the player may do (Game.legal_actions) and what they choose --
        if phase == in_play:
            plays: list[int]
            playable = playable_by_top[top]
            opts = plays_uno_of if len(hand) == 2 else plays_of
            plays = []
            for c in hand:
                # A card's first play is its own code: "in plays" is "seen before".
                if playable[c] and c not in plays:
                    plays += opts[c]
            catch = catchable >= 0 and catchable != p and len(hands[catchable]) == 1
            if prefer:
                if catch:
                    plays.append(CATCH_BASE - catchable)
                k = len(plays)
                if k == 1:
                    act = plays[0]
                elif k:
                    act = plays[int(random_() * k)]
                else:
                    act = DRAW
            elif heuristic:
                if catch:
                    act = CATCH_BASE - catchable
                else:
                    best = best_play(plays, p, hands, top, d, False)
                    act = DRAW if best is None else best
            else:
                if catch:
                    plays += (DRAW, CATCH_BASE - catchable)
                elif plays:
                    plays.append(DRAW)
                else:
                    plays = [DRAW]
                k = len(plays)
                act = plays[int(random_() * k)] if k > 1 else plays[0]
        elif phase == drawn_phase:
            drawn = (plays_uno_of if len(hand) == 2 else plays_of)[hand[-1]]
            if heuristic:
                best = best_play(drawn, p, hands, top, d, True)
                act = KEEP if best is None else best
            else:
                if not prefer:
                    drawn = (*drawn, KEEP)
                k = len(drawn)
                act = drawn[int(random_() * k)] if k > 1 else drawn[0]
        elif phase == penalty_phase:
            rank = discard[-1] & RANK_MASK
            plays = []
            if stacking and hands[(p - d) % n]:
                opts = PLAYS_UNO if len(hand) == 2 else PLAYS
                seen = []
                for c in hand:
                    if c & RANK_MASK == rank and c not in seen:
                        seen.append(c)
                        plays += opts[c]
            may_challenge = rank == _WD4_RANK and pending == _WD4
            catch = catchable >= 0 and catchable != p and len(hands[catchable]) == 1
            if heuristic:
                best = None if catch else best_play(plays, p, hands, top, d, False)
                if catch:
                    act = CATCH_BASE - catchable
                elif best is not None:
                    act = best
                elif may_challenge:
                    deck = s.deck
                    chance = held_colour_chance(
                        p, hands, discard, d, _deck_colours(deck), len(deck)
                    )
                    act = CHALLENGE if chance is not None and chance > CHALLENGE_AT else ACCEPT
                else:
                    act = ACCEPT
            else:
                if may_challenge:
                    plays.append(CHALLENGE)
                plays.append(ACCEPT)
                if catch:
                    plays.append(CATCH_BASE - catchable)
                k = len(plays)
                act = plays[int(random_() * k)] if k > 1 else plays[0]
        elif phase == _COLOUR:
            colour = best_colour(hand) if heuristic else int(random_() * 4)
            if log is not None:
                log.append(Action.choose_colour(COLOURS[colour]))
            top = colour << COLOUR_SHIFT | top & RANK_MASK
            phase = _PLAY
            if catchable >= 0:
                catchable = -1
            continue
        else:  # _FACE: a Wild Showdown names the opponent and the cards
            if heuristic:
                opponent, count = showdown_face(p, hands, s.scores, s.target, face_low, face_high)
            else:
                width = face_high - face_low + 1
                k = int(random_() * (n - 1) * width)
                opponent, count = divmod(k, width)
                opponent += opponent >= p
                count += face_low
            if log is not None:
                log.append(Action.face(opponent, count))
            if catchable >= 0 and catchable != p:
                catchable = -1
            current = (p + d) % n
            phase = _PLAY
            if not start_showdown(p, opponent, count) and not hand:
                winner = p
                break
            continue
        if log is not None:
            log.append(action_of(act))
        # -- the decision's effect (Game.apply) --
        if act >= 0:  # a play
            if catchable >= 0:
                catchable = -1
            card = act & card_bits
            if card & number_test <= last_number and len(hand) > 2:
                hand.remove(card)
                discard.append(card)
                top = card
                current = (p + d) % n
                phase = in_play
                continue
            # Game._play
            hand.remove(card)
            discard.append(card)
            left = len(hand)
            if left == 1 and not act & UNO_BIT:
                catchable = p
            rank = card & RANK_MASK
            effect = effects[rank]
            if effect is PASS_TURN:
                top = card & FACE_MASK
                victim = current = (p + d) % n
                phase = _PLAY
            else:
                turns, reverses, cards, names_colour, challengeable, then, last = effect
                if not left and last is not None:
                    turns, reverses, cards, names_colour, challengeable, then, last = last
                if names_colour:
                    if challengeable:  # rules.wild_draw_four_is_legal, written out
                        named = top >> COLOUR_SHIFT
                        wd4_legal = True
                        for c in hand:
                            if c >> COLOUR_SHIFT & COLOUR_MASK == named:
                                wd4_legal = False
                                break
                    top = (act >> COLOUR_SHIFT_PLAY & COLOUR_MASK) << COLOUR_SHIFT | rank
                else:
                    top = card & FACE_MASK
                if reverses:
                    d = -d
                victim = (p + d) % n
                if cards:
                    if then == _PENALTY:
                        pending += cards
                    else:
                        draw_cards(victim, pending + cards)
                        pending = 0
                current, phase = (p + turns * d) % n, then
            if (
                card >> SHOWDOWN_SHIFT
                and showdowns
                and start_showdown(p, victim, card >> SHOWDOWN_SHIFT)
            ):
                continue
            if not left and phase == _PLAY:
                winner = p
                break
        elif act == DRAW:  # Game._draw_instead
            catchable = -1
            playable = PLAYABLE[top]
            if until:
                for _ in range(_DRAW_UNTIL_MAX):
                    if not draw and not reshuffle():
                        break
                    c = draw.pop()
                    hand.append(c)
                    if playable[c]:
                        phase = _DRAWN
                        break
                if phase == _DRAWN:
                    continue
            elif draw or reshuffle():
                c = draw.pop()
                hand.append(c)
                if playable[c]:
                    phase = _DRAWN
                    continue
            current = (p + d) % n
        elif act == KEEP:
            catchable = -1
            current = (p + d) % n
            phase = _PLAY
        elif act == ACCEPT:  # Game._accept
            catchable = -1
            draw_cards(p, pending)
            pending = 0
            wd4_legal = None
            current, phase = (p + d) % n, _PLAY
            offender = (p - d) % n
            if not hands[offender]:
                winner = offender
                break
        elif act == CHALLENGE:  # Game._challenge
            catchable = -1
            offender = (p - d) % n
            legal, wd4_legal = wd4_legal, None
            if not legal:
                draw_cards(offender, pending)
                pending = 0
                phase = _PLAY
                continue
            draw_cards(p, pending + LOST_CHALLENGE_CARDS)
            pending = 0
            current, phase = (p + d) % n, _PLAY
            if not hands[offender]:
                winner = offender
                break
        else:  # a catch: the caught player draws; the same decision comes again
            draw_cards(CATCH_BASE - act, uno_penalty)
            catchable = -1
    if winner < 0:  # stopped: not written back, the playout ends here
        return decisions
    # Game._end_round (or the round already over)
    if s.phase != _OVER:
        s.points = _points(hands, winner)
        s.scores[winner] += s.points
    s.current, s.phase = winner, _OVER
    s.top, s.direction, s.shuffles = top, d, shuffles
    s.pending, s.wd4_legal, s.catchable, s.showdown = 0, None, -1, None
    return decisions
