"""The playout's decision loop (engine.uno.playout), in a module of its own
so that mypyc can compile it: ``make`` builds it into an extension beside this
file when it can, and Python imports that in place of this source. This
source is the reference and runs wherever the extension is not built
(``UNO_PLAYOUT_INTERPRETED=1`` forces it: engine.uno.playout).

Typed for mypyc: the position arrives as ``Any`` (playout's ``_State``) and
is read into typed locals; the effect rows are read as ``Any`` because mypyc
2.4.1 recurses without end on tables.EffectRow, a recursive tuple type.
"""

from __future__ import annotations

import _random
import functools
from collections.abc import Callable
from typing import Any, Final

from engine.game.shuffle import SHUFFLE_COUNT_BITS, seeded_shuffle
from engine.uno import cards, game_state, playout_codes, rules, tables
from engine.uno.actions import Action
from engine.uno.playout_codes import action_of
from engine.uno.playout_heuristic import (
    CHALLENGE_AT,
    best_colour,
    best_play,
    held_colour_chance,
    showdown_face,
)
from engine.uno.rules import HouseRules

__all__ = [
    "play_round",
    "points_of",
    "shuffle",
    "shuffle_as_random",
    "deal",
    "PREFER",
    "HEURISTIC",
    "NO_CHOICE",
]

#: The policies' numbers (engine.uno.playout.POLICIES' order).
PREFER: Final = 1
HEURISTIC: Final = 2
#: ``play_round``'s ``choice`` when none is given (no decision's int is this low).
NO_CHOICE: Final = -1000
# The constants as Final: compiled, a Final name is a C static, any other
# module-level name a dict lookup at each use (a tenth of the playout's time).
COLOUR_MASK: Final = cards.COLOUR_MASK
COLOUR_SHIFT: Final = cards.COLOUR_SHIFT
COLOURS: Final = cards.COLOURS
FACE_MASK: Final = cards.FACE_MASK
LAST_NUMBER_RANK: Final = cards.LAST_NUMBER_RANK
NUMBER_TEST_MASK: Final = cards.NUMBER_TEST_MASK
RANK_MASK: Final = cards.RANK_MASK
SHOWDOWN_SHIFT: Final = cards.SHOWDOWN_SHIFT
WILD_COLOUR: Final = cards.WILD_COLOUR
_PLAY: Final = game_state._PLAY
_DRAWN: Final = game_state._DRAWN
_PENALTY: Final = game_state._PENALTY
_COLOUR: Final = game_state._COLOUR
_OVER: Final = game_state._OVER
ACCEPT: Final = playout_codes.ACCEPT
CARD_BITS: Final = playout_codes.CARD_BITS
CATCH_BASE: Final = playout_codes.CATCH_BASE
CHALLENGE: Final = playout_codes.CHALLENGE
COLOUR_SHIFT_PLAY: Final = playout_codes.COLOUR_SHIFT_PLAY
DRAW: Final = playout_codes.DRAW
KEEP: Final = playout_codes.KEEP
PLAYS: Final = playout_codes.PLAYS
PLAYS_UNO: Final = playout_codes.PLAYS_UNO
UNO_BIT: Final = playout_codes.UNO_BIT
POINTS: Final = tables.POINTS
LOST_CHALLENGE_CARDS: Final = rules.LOST_CHALLENGE_CARDS
_WD4: Final = rules.WILD_DRAW_FOUR_CARDS
_WD4_RANK: Final = int(cards.Rank.WILD_DRAW_FOUR)  # an int compares faster than the IntEnum
_DRAW_UNTIL_MAX: Final = HouseRules.DRAW_UNTIL_MAX
HAND_SIZE: Final = rules.HAND_SIZE
FIRST_WILD_RANK: Final = cards.FIRST_WILD_RANK
_COUNT_BITS: Final = SHUFFLE_COUNT_BITS
# A shuffle's key is 4 bytes, little-endian (engine.game.shuffle's "<I"): its
# second, third and fourth bytes sit at these shifts.
_KEY_BYTES: Final = 4
_KEY_BITS: Final = 32
_BYTE_1: Final = 8
_BYTE_2: Final = 16
_BYTE_3: Final = 24
# Compiled (mypyc names the extension as __file__), shuffle runs its own loop
# and a few list searches are int loops; interpreted, the builtins they stand for
# (engine.game.shuffle's shuffle, "in", list.remove), the faster ones there.
_COMPILED: Final = not __file__.endswith(".py")
# tables.PLAYABLE by top (the match key), compiled as bytes: a row of 2,048 bytes,
# 1 where the card may be played, for tables' 2,048 pointers (an indexing is a byte
# read, and a round's rows fit the cache); interpreted, tables' own lists (a list
# indexing is the faster there). None in tables: no top has that key.
_ROWS: list[Any] = tables.PLAYABLE
_PLAYABLE_BYTES: Final[list[bytes]] = (
    [b"" if row is None else bytes(row) for row in _ROWS] if _COMPILED else _ROWS
)
# Read as Any (see above): the number cards' row, known by identity.
_PASS_TURN: Final[Any] = getattr(tables, "PASS_TURN")  # noqa: B009


@functools.cache
def _deck_colours(codes: tuple[int, ...]) -> tuple[int, ...]:
    """A deck's cards by colour field (the heuristic's challenge needs it)."""
    colours = [0] * (WILD_COLOUR + 1)
    for c in codes:
        colours[c >> COLOUR_SHIFT & COLOUR_MASK] += 1
    return tuple(colours)


def shuffle(cards: list[int], seed: int, count: int) -> None:
    """engine.game.shuffle.seeded_shuffle(cards, seed=seed, count=count): the
    same permutation (tests compare), compiled its Fisher-Yates loop on the
    key bytes (twice as fast as seeded_shuffle's)."""
    if not _COMPILED:
        seeded_shuffle(cards, seed=seed, count=count)
        return
    n = len(cards)
    bits = _random.Random(seed << _COUNT_BITS | count).getrandbits(_KEY_BITS * n)
    keys = bits.to_bytes(_KEY_BYTES * n, "little")  # key i: bytes 4i..4i+3
    i = n - 1
    while i > 0:
        b = _KEY_BYTES * i
        key = keys[b] | keys[b + 1] << _BYTE_1 | keys[b + 2] << _BYTE_2 | keys[b + 3] << _BYTE_3
        j = key % (i + 1)
        c = cards[i]
        cards[i] = cards[j]
        cards[j] = c
        i -= 1


def shuffle_as_random(cards: list[int], getrandbits: Callable[[int], int]) -> None:
    """``random.Random.shuffle(cards)`` for the generator whose ``getrandbits``
    is given: the same permutation, drawing the same bits (its ``_randbelow``
    written out), compiled. The search bot's worlds shuffle with it
    (engine.uno.belief): half their dealing's time was Random.shuffle's loop."""
    i = len(cards) - 1
    while i > 0:
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        c = cards[i]
        cards[i] = cards[j]
        cards[j] = c
        i -= 1


def deal(s: Any, cards: list[int]) -> None:
    """Game._deal and Game._turn_first_card on a playout's state ``s``:
    ``cards`` (the whole deck, taken) shuffled as the round's first shuffle,
    hands dealt from ``s.dealer``'s left, the first card turned. ``s`` has its
    match's slots (n, dealer, seed, shuffles, first_card, ...) set."""
    n: int = s.n
    dealer: int = s.dealer
    seed: int = s.seed
    shuffles: int = s.shuffles
    shuffle(cards, seed, shuffles)
    shuffles += 1
    first = (dealer + 1) % n
    hands: list[list[int]] = [[]] * n  # placeholders, each replaced below
    end = len(cards)
    for i in range(n):
        hand = cards[end - HAND_SIZE : end]
        hand.reverse()
        hands[(first + i) % n] = hand
        end -= HAND_SIZE
    del cards[end:]
    draw = cards
    discard = [draw.pop()]
    s.hands, s.draw, s.discard = hands, draw, discard
    s.direction, s.pending, s.wd4_legal, s.catchable, s.showdown = 1, 0, None, -1, None
    rule: str = s.first_card
    returned: frozenset[int] = rules.FIRST_CARD_RETURNED[rule]
    covered: frozenset[int] = rules.FIRST_CARD_COVERED[rule]
    while True:
        rank = discard[-1] & RANK_MASK
        # Back into the pile only while the pile holds a card that is not wild.
        if rank in returned and any(c & RANK_MASK < FIRST_WILD_RANK for c in draw):
            draw.append(discard.pop())
            shuffle(draw, seed, shuffles)
            shuffles += 1
            discard.append(draw.pop())
        elif rank in covered and draw:
            discard.append(draw.pop())
        else:
            break
    s.current, s.phase = first, _PLAY
    if rank >= FIRST_WILD_RANK:
        s.top, s.phase, s.shuffles = WILD_COLOUR << COLOUR_SHIFT | rank, _COLOUR, shuffles
        return
    s.top = discard[-1] & FACE_MASK
    effect = rules.first_card_effect(rank, n == 2)
    d = -1 if effect.reverses else 1
    s.direction = d
    if effect.draws:
        shuffles = _draw_cards(hands[(dealer + d) % n], effect.draws, draw, discard, seed, shuffles)
    s.current, s.shuffles = (dealer + effect.turns * d) % n, shuffles


def _reshuffle(draw: list[int], discard: list[int], seed: int, shuffles: int) -> int:
    """Game._reshuffle, called with ``draw`` empty: the top discard stays, the
    rest is shuffled into the pile (left empty when there is no rest). Returns
    the shuffles counted."""
    if len(discard) < 2:
        return shuffles
    rest = discard[:-1]
    del discard[:-1]
    shuffle(rest, seed, shuffles)
    draw.extend(rest)
    return shuffles + 1


def _draw_cards(
    hand: list[int], count: int, draw: list[int], discard: list[int], seed: int, shuffles: int
) -> int:
    """Game._draw_cards into ``hand``; returns the shuffles counted."""
    for _ in range(count):
        if not draw:
            shuffles = _reshuffle(draw, discard, seed, shuffles)
            if not draw:
                break
        hand.append(draw.pop())
    return shuffles


def _unit(
    count: int, draw: list[int], discard: list[int], seed: int, shuffles: int
) -> tuple[list[int], int]:
    """The cards a showdown loads (Game._start_showdown): up to ``count`` from
    the pile, reshuffled as needed; and the shuffles counted."""
    unit = []
    for _ in range(count):
        if not draw:
            shuffles = _reshuffle(draw, discard, seed, shuffles)
            if not draw:
                break
        unit.append(draw.pop())
    return unit, shuffles


def _remove(hand: list[int], card: int) -> None:
    """hand.remove(card), in place, comparing ints (list.remove compares
    objects and deletes through a slice assignment)."""
    i = 0
    while hand[i] != card:
        i += 1
    last = len(hand) - 1
    while i < last:
        hand[i] = hand[i + 1]
        i += 1
    hand.pop()


def points_of(hands: list[list[int]], winner: int) -> int:
    return sum(POINTS[c] for p, hand in enumerate(hands) if p != winner for c in hand)


def play_round(  # one loop over the phases, kept whole for speed
    s: Any,
    policy: int,
    random_: Callable[[], float],
    log: list[Action] | None,
    limit: int,
    stop_for: int = -1,
    choice: int = NO_CHOICE,
) -> int:
    """Play ``s`` to the end of its round, or ``limit`` decisions (``s`` then
    keeps its phase); return the decisions made.

    A search of one player's own turns (engine.uno.search_tree) stops it
    before each turn of player ``stop_for`` to play with more than one play
    and no catch to make: ``s`` is then written back as it stands and
    ``s.options`` holds the plays (ints, in legal order). The next call's
    ``choice`` is that turn's decision, made in place of the policy's.

    Mirrors Game.legal_actions and Game.apply decision by decision (the
    comments name the Game method each part follows)."""
    n: int = s.n
    hands: list[list[int]] = s.hands
    draw: list[int] = s.draw
    discard: list[int] = s.discard
    top: int = s.top
    d: int = s.direction
    phase: int = s.phase
    current: int = s.current
    pending: int = s.pending
    wd4_legal: bool | None = s.wd4_legal
    catchable: int = s.catchable
    effects: tuple[Any, ...] = s.effects
    showdowns: bool = s.showdowns
    house: HouseRules = s.house
    stacking, until, uno_penalty = house.stacking, house.draw_until_playable, house.uno_penalty
    face_low, face_high = house.showdown_cards
    heuristic = policy == HEURISTIC
    prefer = policy == PREFER
    seed: int = s.seed
    shuffles: int = s.shuffles
    decisions = 0
    # (challenger, opponent, cards) waiting for the unit
    showdown: tuple[int, int, list[int]] | None = s.showdown
    # The hot loop's names, as locals.
    playable_by_top, plays_of, plays_uno_of = _PLAYABLE_BYTES, PLAYS, PLAYS_UNO
    in_play, drawn_phase, penalty_phase = _PLAY, _DRAWN, _PENALTY
    number_test, last_number, card_bits = NUMBER_TEST_MASK, LAST_NUMBER_RANK, CARD_BITS
    if s.phase == _OVER:
        return 0

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
                # A card's first play is its own code: "in plays" is "seen before"
                # (compiled, a loop: it compares ints where "in" compares objects).
                if not playable[c]:
                    continue
                if _COMPILED:
                    for q in plays:
                        if q == c:
                            break
                    else:
                        plays.extend(opts[c])
                elif c not in plays:
                    plays += opts[c]
            catch = catchable >= 0 and catchable != p and len(hands[catchable]) == 1
            if choice != NO_CHOICE:  # the turn stopped at, decided by the search
                act = choice
                choice = NO_CHOICE
            elif p == stop_for and not catch and len(plays) > 1:
                s.top, s.direction, s.phase, s.current = top, d, phase, current
                s.pending, s.wd4_legal, s.catchable = pending, wd4_legal, catchable
                s.showdown, s.shuffles = showdown, shuffles
                s.options = plays
                return decisions - 1  # this one is the search's
            elif prefer:
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
            unit, shuffles = _unit(count, draw, discard, seed, shuffles)
            if unit:
                showdown = (p, opponent, unit)
            elif not hand:
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
                if _COMPILED:
                    _remove(hand, card)
                else:
                    hand.remove(card)
                discard.append(card)
                top = card
                current = (p + d) % n
                phase = in_play
                continue
            # Game._play
            if _COMPILED:
                _remove(hand, card)
            else:
                hand.remove(card)
            discard.append(card)
            left = len(hand)
            if left == 1 and not act & UNO_BIT:
                catchable = p
            rank = card & RANK_MASK
            effect = effects[rank]
            if effect is _PASS_TURN:
                top = card & FACE_MASK
                victim = current = (p + d) % n
                phase = _PLAY
            else:
                turns: int
                reverses: bool
                cards: int
                names_colour: bool
                challengeable: bool
                then: int
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
                        shuffles = _draw_cards(
                            hands[victim], pending + cards, draw, discard, seed, shuffles
                        )
                        pending = 0
                current, phase = (p + turns * d) % n, then
            if card >> SHOWDOWN_SHIFT and showdowns:
                unit, shuffles = _unit(card >> SHOWDOWN_SHIFT, draw, discard, seed, shuffles)
                if unit:
                    showdown = (p, victim, unit)
                    continue
            if not left and phase == _PLAY:
                winner = p
                break
        elif act == DRAW:  # Game._draw_instead
            catchable = -1
            playable = _PLAYABLE_BYTES[top]
            if until:
                for _ in range(_DRAW_UNTIL_MAX):
                    if not draw:
                        shuffles = _reshuffle(draw, discard, seed, shuffles)
                        if not draw:
                            break
                    c = draw.pop()
                    hand.append(c)
                    if playable[c]:
                        phase = _DRAWN
                        break
                if phase == _DRAWN:
                    continue
            else:
                if not draw:
                    shuffles = _reshuffle(draw, discard, seed, shuffles)
                if draw:
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
            shuffles = _draw_cards(hand, pending, draw, discard, seed, shuffles)
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
                shuffles = _draw_cards(hands[offender], pending, draw, discard, seed, shuffles)
                pending = 0
                phase = _PLAY
                continue
            shuffles = _draw_cards(
                hand, pending + LOST_CHALLENGE_CARDS, draw, discard, seed, shuffles
            )
            pending = 0
            current, phase = (p + d) % n, _PLAY
            if not hands[offender]:
                winner = offender
                break
        else:  # a catch: the caught player draws; the same decision comes again
            shuffles = _draw_cards(
                hands[CATCH_BASE - act], uno_penalty, draw, discard, seed, shuffles
            )
            catchable = -1
    if winner < 0:  # stopped: not written back, the playout ends here
        return decisions
    # Game._end_round (or the round already over)
    if s.phase != _OVER:
        s.points = points_of(hands, winner)
        s.scores[winner] += s.points
    s.current, s.phase = winner, _OVER
    s.top, s.direction, s.shuffles = top, d, shuffles
    s.pending, s.wd4_legal, s.catchable, s.showdown = 0, None, -1, None
    return decisions
