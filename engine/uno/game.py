"""The game: a match of rounds of UNO (classic or Showdown), sans-IO.

Feed decisions in with ``apply()``; ask who decides with ``to_act`` and what
they may do with ``legal_actions()``. Nothing here waits, prints or reads a
clock; the only randomness is the game's own seeded shuffles, so the same seed
and the same decisions always give the same game, and a game rebuilt from its
notation continues exactly as the original would.

>>> game = Game.new(2, "classic", seed=7)
>>> game.to_act, game.top_card, game.colour
(1, Card.parse('Y7'), <Colour.YELLOW: 1>)
>>> [str(a) for a in game.legal_actions()]
['W=R', 'W=Y', 'W=G', 'W=B', 'G7', 'Y9', 'draw']
>>> game.apply(Action.parse("G7"))
>>> game.hand_sizes, game.to_act
((7, 6), 0)

A showdown stops the game until its result is fed back:

>>> game = Game.from_notation(
...     "showdown R5!2,B1/G3,Y9 Y3,G7,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
>>> game.apply("R5!2")
>>> game.to_act is None, game.pending_showdown
(True, PendingShowdown(challenger=0, opponent=1,
 cards=(Card.parse('Y3'), Card.parse('G7')), cause=Card.parse('R5!2')))
>>> [str(a) for a in game.legal_actions()]
['loser 0', 'loser 1']
>>> game.apply(Action.showdown_result(loser=1))
>>> game.hand(1)
(Card.parse('G3'), Card.parse('Y9'), Card.parse('Y3'), Card.parse('G7'))
"""

from __future__ import annotations

import dataclasses
import enum
import random
from collections.abc import Callable
from typing import ClassVar, cast

from engine.game.errors import IllegalActionError, StateError
from engine.game.shuffle import seeded_shuffle
from engine.uno.actions import (
    ACCEPT,
    CATCH,
    CHALLENGE,
    CHOOSE_COLOUR,
    DRAW,
    KEEP,
    PLAY,
    SHOWDOWN_RESULT,
    Action,
)
from engine.uno.cards import (
    CODE_MASK,
    COLOUR_SHIFT,
    FACE_MASK,
    FIRST_WILD_RANK,
    LAST_NUMBER_RANK,
    NUMBER_TEST_MASK,
    RANK_MASK,
    REAL_CARD,
    SHOWDOWN_SHIFT,
    WILD_COLOUR,
    Card,
    Colour,
)
from engine.uno.game_state import _COLOUR, _DRAWN, _FACE, _OVER, _PENALTY, _PLAY, ClassicState
from engine.uno.match_facts import cards_of, match_seed
from engine.uno.rules import (
    FIRST_CARD_COVERED,
    FIRST_CARD_RETURNED,
    HAND_SIZE,
    LOST_CHALLENGE_CARDS,
    HouseRules,
    Variant,
    first_card_effect,
    may_challenge,
    stacks_on,
    wild_draw_four_is_legal,
)
from engine.uno.tables import ACCEPT as ACCEPT_ACTION
from engine.uno.tables import (
    CATCHES,
    COLOUR_CHOICES,
    DRAW_AND_CATCH,
    DRAW_ONLY,
    EFFECTS,
    PASS_TURN,
    PLAIN_PLAYS,
    PLAYABLE,
    POINTS,
    RESULTS,
    UNO_PLAYS,
    match_key,
)
from engine.uno.tables import CHALLENGE as CHALLENGE_ACTION
from engine.uno.tables import DRAW as DRAW_ACTION
from engine.uno.tables import KEEP as KEEP_ACTION

__all__ = ["Game", "Outcome", "PendingShowdown", "Phase", "HAND_SIZE"]


class Phase(enum.Enum):
    """What the game is waiting for."""

    PLAY = "play"  # the current player begins a turn
    DRAWN = "drawn"  # play the card just drawn, or keep it
    PENALTY = "penalty"  # accept a draw penalty (or challenge / stack)
    CHOOSE_COLOUR = "colour"  # name the colour of a wild turned first
    CHOOSE_SHOWDOWN = "face"  # a Wild Showdown: name opponent and cards
    SHOWDOWN = "showdown"  # waiting for the unit's result
    ROUND_OVER = "over"
    # UNO Party! only (engine.uno.party):
    PILE = "pile"  # the mini pile goes round: add to it or take it
    POINT = "point"  # everyone points at once (Point Taken)


# Internal phase numbers (Phase members are for callers), in the order of the
# notation's phase words (engine.uno.notation.PHASES, as tables.EFFECTS numbers them).
_PHASES = (
    Phase.PLAY,
    Phase.DRAWN,
    Phase.PENALTY,
    Phase.CHOOSE_COLOUR,
    Phase.CHOOSE_SHOWDOWN,
    Phase.ROUND_OVER,
)


@dataclasses.dataclass(frozen=True)
class PendingShowdown:
    """A showdown the game waits for: who faces whom, for which cards, and why."""

    challenger: int
    opponent: int
    cards: tuple[Card, ...]
    cause: Card


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A finished round: the winner, the points it scored, the match so far."""

    winner: int
    points: int
    scores: tuple[int, ...]
    match_winner: int | None

    @property
    def match_over(self) -> bool:
        return self.match_winner is not None


_NO_HOUSE_RULES = HouseRules()


class Game(ClassicState):
    """A match of UNO rounds. Build it with ``Game.new`` or ``Game.from_notation``.

    Plain attributes, read on every decision and so not properties (treat them
    as read-only):

    current     whose turn it is (during a showdown: whose turn follows it; when
                the round is over: the round's winner)
    round_over  True once the round has ended (see ``outcome``)
    turns       turns taken this round: one each time ``current`` changes, plus
                the round's last decision (a statistic, not part of the position:
                a game read from notation counts from 0)
    """

    __slots__ = ()  # the state's slots are ClassicState's

    #: The game interface (engine.game.interface): the family, and no claims out of turn.
    family: ClassVar[str] = "uno"
    out_of_turn: ClassVar[bool] = False

    # -- construction -------------------------------------------------------------

    @classmethod
    def new(
        cls,
        players: int,
        variant: str | Variant = "showdown",
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        house_rules: HouseRules | None = None,
        target: int = 500,
        dealer: int = 0,
    ) -> Game:
        """Deal the first round of a match.

        ``players`` is the number of players (2-10); players are 0, 1, 2...
        clockwise, and player ``dealer + 1`` starts. The game shuffles with
        ``seed`` (an int >= 0), or with a seed drawn from ``rng``; with neither, a
        seed is drawn from the OS. The seed is part of the notation.
        Classic and Showdown; ``engine.uno.new_game`` deals every UNO variant.
        """
        if variant == "party" or (isinstance(variant, Variant) and variant.name == "party"):
            raise ValueError("UNO Party! is a PartyGame: deal it with engine.uno.new_game")
        variant = Variant.named(variant) if isinstance(variant, str) else variant
        seed = match_seed(variant, players, seed=seed, rng=rng, dealer=dealer, target=target)
        game = cls.__new__(cls)
        game._variant = variant
        game._house = house_rules if house_rules is not None else _NO_HOUSE_RULES
        game._n = players
        game._scores = [0] * players
        game._dealer = dealer
        game._round = 1
        game._target = target
        game._seed = seed
        game._shuffles = 0
        game._effects = EFFECTS[players == 2, game._house.stacking]
        game._deal(list(variant.codes))
        return game

    def next_round(self) -> None:
        """Deal the next round: all cards gathered and shuffled, the deal passes left."""
        if self._phase != _OVER:
            raise StateError(f"the round is not over: {self.notation()}")
        if self.match_over:
            raise StateError(
                f"the match is over (player {self.match_winner} won): {self.notation()}"
            )
        cards = [c for hand in self._hands for c in hand] + self._draw + self._discard
        cards.sort()
        if len(cards) < HAND_SIZE * self._n + 1:
            raise StateError(
                f"{len(cards)} cards cannot deal {self._n} hands of {HAND_SIZE}: {self.notation()}"
            )
        self._dealer = (self._dealer + 1) % self._n
        self._round += 1
        self._deal(cards)

    def _deal(self, cards: list[int]) -> None:
        self._deck = tuple(cards)  # what check_invariants() compares with
        self._shuffle(cards)
        n = self._n
        first = (self._dealer + 1) % n
        hands: list[list[int]] = [[]] * n  # placeholders, each replaced below
        for i in range(n):
            hands[(first + i) % n] = cards[-HAND_SIZE:][::-1]
            del cards[-HAND_SIZE:]
        self._hands = hands
        self._draw = cards
        self._discard = [cards.pop()]
        self._direction = 1
        self._pending = 0
        self._wd4_legal = None
        self._catchable = -1
        self._showdown = None
        self._legal = None
        self.round_over = False
        self.turns = 0
        self._turn_first_card(first)

    def _turn_first_card(self, first: int) -> None:
        """Turn the first discard as the first-card rule says (rules.FIRST_CARD_RULES)
        and apply its effect (rules.first_card_effect)."""
        rule = self._house.first_card or self._variant.first_card
        returned, covered = FIRST_CARD_RETURNED[rule], FIRST_CARD_COVERED[rule]
        draw, discard = self._draw, self._discard
        while True:
            rank = discard[-1] & RANK_MASK
            # Back into the pile only while the pile holds a card that is not wild.
            if rank in returned and any(c & RANK_MASK < FIRST_WILD_RANK for c in draw):
                draw.append(discard.pop())
                self._shuffle(draw)
                discard.append(draw.pop())
            elif rank in covered and draw:
                discard.append(draw.pop())
            else:
                break
        self.current, self._phase = first, _PLAY
        if rank >= FIRST_WILD_RANK:
            self._top = match_key(WILD_COLOUR, rank)  # no colour named yet
            self._phase = _COLOUR
            return
        self._top = discard[-1] & FACE_MASK
        n, dealer = self._n, self._dealer
        effect = first_card_effect(rank, n == 2)
        if effect.reverses:
            self._direction = -self._direction
        d = self._direction
        if effect.draws:
            self._draw_cards((dealer + d) % n, effect.draws)
        self.current = (dealer + effect.turns * d) % n

    # -- asking -------------------------------------------------------------------

    @property
    def house_rules(self) -> HouseRules:
        return self._house

    @property
    def to_act(self) -> int | None:
        """The player who must decide now; None while a showdown is pending
        (see ``pending_showdown``) and when the round is over."""
        if self._showdown is not None or self._phase == _OVER:
            return None
        return self.current

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """Who must decide now: the player to act, or nobody (a showdown pending,
        the round over)."""
        to_act = self.to_act
        return () if to_act is None else (to_act,)

    def claimants(self) -> tuple[int, ...]:
        """Nobody acts out of turn in classic or Showdown (a catch is a turn's)."""
        return ()

    def check_claim(self, action: object) -> None:
        raise StateError(
            f"claims out of turn are UNO Party!'s, not {self._variant.name}'s: {self.notation()}"
        )

    @property
    def phase(self) -> Phase:
        return Phase.SHOWDOWN if self._showdown is not None else _PHASES[self._phase]

    @property
    def pending_draws(self) -> int:
        """Cards the current player draws on ``accept`` (PENALTY phase), else 0."""
        return self._pending if self._phase == _PENALTY else 0

    @property
    def drawn_card(self) -> Card | None:
        """The card just drawn that may now be played (DRAWN phase), else None."""
        return REAL_CARD[self._hands[self.current][-1]] if self._phase == _DRAWN else None

    @property
    def catchable(self) -> int | None:
        """The player who holds one card without having called UNO, while they
        can still be caught; else None."""
        target = self._catchable
        if target < 0 or len(self._hands[target]) != 1 or self._phase == _OVER:
            return None
        return target

    @property
    def pending_showdown(self) -> PendingShowdown | None:
        if self._showdown is None:
            return None
        challenger, opponent, cards = self._showdown
        return PendingShowdown(challenger, opponent, cards_of(cards), REAL_CARD[self._discard[-1]])

    @property
    def outcome(self) -> Outcome | None:
        """The finished round's outcome, or None while the round is in play."""
        if self._phase != _OVER:
            return None
        winner = self.current
        points = sum(POINTS[c] for p, hand in enumerate(self._hands) if p != winner for c in hand)
        return Outcome(winner, points, tuple(self._scores), self.match_winner)

    # -- legal actions ------------------------------------------------------------

    def legal_actions(self, player: int | None = None) -> tuple[Action, ...]:
        """Every legal decision now, each once (two copies of a card give one play):
        the decision to make (a pending showdown's result too) or, given a
        ``player``, that player's (none unless they are to act).

        The tuple is cached until the next ``apply()``; its actions are shared
        instances, so building it allocates nothing else.
        """
        if player is not None and player != self.to_act:
            return ()
        legal = self._legal
        if legal is not None:
            return legal
        if self._phase != _PLAY or self._showdown is not None:
            legal = self._legal = self._legal_other()
            return legal
        # The common case, written out here because it is the engine's hot path:
        # the current player begins a turn.
        p = self.current
        hand = self._hands[p]
        playable = PLAYABLE[self._top]
        plays = UNO_PLAYS if len(hand) == 2 else PLAIN_PLAYS
        actions: list[Action] = []
        seen = []
        for card in hand:
            if playable[card] and card not in seen:
                seen.append(card)
                actions += plays[card]
        target = self._catchable
        if target >= 0 and target != p and len(self._hands[target]) == 1:
            actions += DRAW_AND_CATCH[target]
        elif not actions:
            self._legal = DRAW_ONLY  # nothing to play: the forced draw
            return DRAW_ONLY
        else:
            actions.append(DRAW_ACTION)
        legal = self._legal = tuple(actions)
        return legal

    def is_legal(self, action: Action, player: int | None = None) -> bool:
        return action in self.legal_actions(player)

    def _legal_other(self) -> tuple[Action, ...]:
        if self._showdown is not None:
            challenger, opponent, _ = self._showdown
            return (RESULTS[challenger], RESULTS[opponent])
        return self._LEGAL[self._phase](self)

    def _legal_drawn(self) -> tuple[Action, ...]:
        hand = self._hands[self.current]
        plays = UNO_PLAYS if len(hand) == 2 else PLAIN_PLAYS
        return plays[hand[-1]] + (KEEP_ACTION,)

    def _legal_penalty(self) -> tuple[Action, ...]:
        p = self.current
        hand = self._hands[p]
        rank = self._discard[-1] & RANK_MASK
        actions: list[Action] = []
        offender = (p - self._direction) % self._n
        # No stacking once the offender has gone out: the round ends with this penalty.
        if self._house.stacking and self._hands[offender]:
            plays = UNO_PLAYS if len(hand) == 2 else PLAIN_PLAYS
            seen = []
            for card in hand:
                if stacks_on(card, rank) and card not in seen:
                    seen.append(card)
                    actions += plays[card]
        if may_challenge(rank, self._pending):
            actions.append(CHALLENGE_ACTION)
        actions.append(ACCEPT_ACTION)
        target = self._catchable
        if target >= 0 and target != p and len(self._hands[target]) == 1:
            actions.append(CATCHES[target])
        return tuple(actions)

    def _legal_colour(self) -> tuple[Action, ...]:
        return COLOUR_CHOICES

    def _legal_face(self) -> tuple[Action, ...]:
        low, high = self._house.showdown_cards
        p = self.current
        return tuple(
            Action.face(o, k) for o in range(self._n) if o != p for k in range(low, high + 1)
        )

    def _legal_over(self) -> tuple[Action, ...]:
        return ()

    # By phase. The play phase's are legal_actions()'s own: it never looks them up here.
    _LEGAL: ClassVar[tuple[Callable[[Game], tuple[Action, ...]], ...]] = (
        legal_actions,
        _legal_drawn,
        _legal_penalty,
        _legal_colour,
        _legal_face,
        _legal_over,
    )

    # -- applying -----------------------------------------------------------------

    def apply(self, action: Action | str, player: int | None = None) -> None:
        """Make a decision (an ``Action`` or its text), ``player``'s if one is
        named. Raises IllegalActionError, naming the action and the position,
        if it is not in ``legal_actions(player)``; the game is then unchanged."""
        if player is not None and player != self.to_act:
            raise self._illegal(action, player)
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        try:
            # The legal action itself (the same shared instance): an Action, not text.
            action = legal[legal.index(action)]
        except ValueError:
            if type(action) is not str:
                raise self._illegal(action) from None
            return self.apply(Action.parse(action))
        self._legal = None
        kind = action.kind
        before = self.current
        target = self._catchable
        # "Before the next player begins a turn": any decision after the play
        # closes the UNO window, except the player's own Wild Showdown choice.
        if (
            target >= 0
            and kind is not CATCH
            and kind is not SHOWDOWN_RESULT
            and (self.current != target or self._phase != _FACE)
        ):
            self._catchable = -1
        if kind is PLAY:
            p = self.current
            hand = self._hands[p]
            # A play always has its card; a cast() would cost a call on the hot path.
            card: int = action.card  # type: ignore[assignment]
            if card & NUMBER_TEST_MASK <= LAST_NUMBER_RANK and len(hand) > 2:
                # The commonest decision, written out: a number card without a
                # Showdown symbol, from a hand that keeps two cards or more. It
                # does what rules.CARD_EFFECTS says of a number card: the turn
                # passes on.
                hand.remove(card)
                card &= FACE_MASK  # a plain int, as in every pile
                self._discard.append(card)
                self._top = card
                self.current = (p + self._direction) % self._n
                self._phase = _PLAY
                self.turns += 1
                return
            self._play(action)
        elif kind is DRAW:
            self._draw_instead()
        elif kind is KEEP:
            self.current = (self.current + self._direction) % self._n
            self._phase = _PLAY
        else:
            self._apply_rarer(action)
        if self.current != before or self.round_over:
            self.turns += 1

    def _apply_rarer(self, action: Action) -> None:
        """The rarer kinds (one call more each, off the common path): each
        action has the fields of its kind (see Action), which mypy's Action
        holds all optional: hence the casts."""
        kind = action.kind
        if kind is SHOWDOWN_RESULT:
            self._resolve_showdown(cast(int, action.player))
        elif kind is ACCEPT:
            self._accept()
        elif kind is CHALLENGE:
            self._challenge()
        elif kind is CATCH:
            self._draw_cards(cast(int, action.player), self._house.uno_penalty)
            self._catchable = -1
        elif kind is CHOOSE_COLOUR:
            self._top = cast(Colour, action.colour) << COLOUR_SHIFT | self._top & RANK_MASK
            self._phase = _PLAY
        else:
            self._face(cast(int, action.player), cast(int, action.count))

    def _illegal(self, action: object, player: int | None = None) -> IllegalActionError:
        if player is not None:
            return IllegalActionError(
                f"illegal action {str(action)!r} for player {player}, who has no decision "
                f"to make now, in {self.notation()!r}"
            )
        legal = " ".join(map(str, self.legal_actions())) or "none, the round is over"
        return IllegalActionError(
            f"illegal action {str(action)!r} in {self.notation()!r} (legal: {legal})"
        )

    def settle_showdown(self, loser: int) -> None:
        """The pending showdown's result: ``loser`` takes the cards."""
        self.apply(Action.showdown_result(loser))

    def _play(self, action: Action) -> None:
        """Play a card and apply its effect, as this game's effect table says
        (rules.card_effects as tables.EFFECTS writes it; the fields as in rules.Effect)."""
        p = self.current
        # Piles and hands hold plain ints: faster than Card. (A play always has its
        # card and a wild its colour; a cast() would cost a call on the hot path.)
        card = action.card & CODE_MASK  # type: ignore[operator]
        hand = self._hands[p]
        hand.remove(card)
        self._discard.append(card)
        left = len(hand)
        if left == 1 and not action.uno:
            self._catchable = p
        rank = card & RANK_MASK
        effect = self._effects[rank]
        if effect is PASS_TURN:  # the turn passes on, nothing else (a number card)
            self._top = card & FACE_MASK
            victim = self.current = (p + self._direction) % self._n
            phase = self._phase = _PLAY
        else:
            turns, reverses, cards, names_colour, challengeable, phase, last = effect
            if not left and last is not None:  # its effect as a last card
                turns, reverses, cards, names_colour, challengeable, phase, last = last
            if names_colour:
                if challengeable:  # judged by the colour it covered
                    self._wd4_legal = wild_draw_four_is_legal(hand, self._top >> COLOUR_SHIFT)
                self._top = action.colour << COLOUR_SHIFT | rank  # type: ignore[operator]
            else:
                self._top = card & FACE_MASK
            n, d = self._n, self._direction
            if reverses:
                d = self._direction = -d
            victim = (p + d) % n  # the player the card points at
            if cards:
                if phase == _PENALTY:  # the victim answers: accept, challenge or stack
                    self._pending += cards
                else:
                    self._draw_cards(victim, self._pending + cards)
                    self._pending = 0
            self.current, self._phase = (p + turns * d) % n, phase
        # The Showdown symbol, whatever the card (never on a wild).
        if (
            card >> SHOWDOWN_SHIFT
            and self._variant.showdowns
            and self._start_showdown(p, victim, card >> SHOWDOWN_SHIFT)
        ):
            return
        if not left and phase == _PLAY:  # a penalty or a Wild Showdown is decided first
            self._end_round(p)

    def _draw_instead(self) -> None:
        p = self.current
        draw = self._draw
        if self._house.draw_until_playable:
            if self._draw_until_playable():
                self._phase = _DRAWN
                return
        elif draw or self._reshuffle():  # with nothing to draw the draw is skipped
            card = draw.pop()
            self._hands[p].append(card)
            if PLAYABLE[self._top][card]:
                self._phase = _DRAWN
                return
        self.current = (p + self._direction) % self._n

    def _draw_until_playable(self) -> bool:
        """The house rule's draw; True if it ended with a playable card."""
        hand = self._hands[self.current]
        playable = PLAYABLE[self._top]
        draw = self._draw
        for _ in range(HouseRules.DRAW_UNTIL_MAX):
            if not draw and not self._reshuffle():
                return False
            card = draw.pop()
            hand.append(card)
            if playable[card]:
                return True
        return False

    def _accept(self) -> None:
        p = self.current
        d = self._direction
        self._draw_cards(p, self._pending)
        self._pending = 0
        self._wd4_legal = None
        self.current, self._phase = (p + d) % self._n, _PLAY
        offender = (p - d) % self._n
        if not self._hands[offender]:
            self._end_round(offender)

    def _challenge(self) -> None:
        p = self.current
        d = self._direction
        offender = (p - d) % self._n
        legal, self._wd4_legal = self._wd4_legal, None
        if not legal:
            # The offender draws the four instead; the challenger plays normally.
            self._draw_cards(offender, self._pending)
            self._pending = 0
            self._phase = _PLAY
            return
        self._draw_cards(p, self._pending + LOST_CHALLENGE_CARDS)
        self._pending = 0
        self.current, self._phase = (p + d) % self._n, _PLAY
        if not self._hands[offender]:
            self._end_round(offender)

    def _face(self, opponent: int, count: int) -> None:
        p = self.current
        self.current, self._phase = (p + self._direction) % self._n, _PLAY
        if not self._start_showdown(p, opponent, count) and not self._hands[p]:
            self._end_round(p)

    def _start_showdown(self, challenger: int, opponent: int, count: int) -> bool:
        """Load up to ``count`` cards into the unit; False if there were none."""
        unit = []
        draw = self._draw
        for _ in range(count):
            if not draw and not self._reshuffle():
                break
            unit.append(draw.pop())
        if not unit:
            return False
        self._showdown = (challenger, opponent, unit)
        return True

    def _resolve_showdown(self, loser: int) -> None:
        # A result is legal only while a showdown is pending (the cast says so).
        challenger, _, unit = cast("tuple[int, int, list[int]]", self._showdown)
        self._showdown = None
        self._hands[loser] += unit
        if not self._hands[challenger]:
            self._end_round(challenger)  # a last card's showdown, won

    def _end_round(self, winner: int) -> None:
        self._scores[winner] += sum(
            POINTS[c] for p, hand in enumerate(self._hands) if p != winner for c in hand
        )
        self.current, self._phase = winner, _OVER
        self.round_over = True
        self._catchable = -1
        self._pending = 0
        self._wd4_legal = None

    # -- the piles ----------------------------------------------------------------

    def _draw_cards(self, player: int, count: int) -> None:
        hand, draw = self._hands[player], self._draw
        for _ in range(count):
            if not draw and not self._reshuffle():
                return
            hand.append(draw.pop())

    def _reshuffle(self) -> bool:
        """The top discard stays; the rest becomes the draw pile (in place)."""
        discard = self._discard
        if len(discard) < 2:
            return False
        rest = discard[:-1]
        del discard[:-1]
        self._shuffle(rest)
        self._draw.extend(rest)
        return True

    def _shuffle(self, cards: list[int]) -> None:
        # The notation carries the seed and the count: a game read back
        # shuffles the same way (engine.game.shuffle).
        seeded_shuffle(cards, seed=self._seed, count=self._shuffles)
        self._shuffles += 1
