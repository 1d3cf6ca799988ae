"""UNO Party!: its own game class, sharing Game's nouns, with out-of-turn play.

``legal_actions(player)`` answers for any player: speed plays while the window
is open, catches, the pointing choices. ``apply(action, player)`` takes a
decision from anyone; claims are settled by the order of ``apply()`` calls.

>>> game = PartyGame.from_notation(
...     "party R5,G7/R5,B1/Y3,W - R1,R5 R + 0 play - - 0,0,0 2 1 500 - 1:0 -")
>>> [str(a) for a in game.legal_actions(1)]
['speed R5', 'speed R5 uno', 'speed B1']
>>> game.apply("speed R5", player=1)
>>> game.to_act, game.hand(1)
(2, (Card.parse('B1'),))
>>> game.catchable
1

Point Taken: everyone chooses, and nothing shows until the last choice is in.

>>> game = PartyGame.from_notation(
...     "party RP,G7/B2,B1/Y3,W G1,G2,G3 R1 R + 0 play - - 0,0,0 2 1 500 - 1:0 -")
>>> game.apply("RP")
>>> game.phase, game.to_act, game.waiting_for
(<Phase.POINT: 'point'>, None, (0, 1, 2))
>>> game.apply("point 2", player=0)
>>> game.notation().split(" ")[-1], game.pointing
('point=?,-,-', (0,))
>>> game.apply("point 2", player=1); game.apply("point 1", player=2)
>>> game.hand_sizes, game.to_act
((1, 3, 4), 1)
"""

from __future__ import annotations

import random
from typing import ClassVar

from engine.game.errors import IllegalActionError, InvariantError, NotationError, StateError
from engine.uno.actions import CATCH, POINT, SPEED_PLAY, Action
from engine.uno.cards import (
    COLOURS,
    POINTS_BY_CODE,
    REAL_CARD,
    WILD_COLOUR,
    Card,
    Colour,
)
from engine.uno.game import Outcome, Phase
from engine.uno.match_facts import cards_of, match_seed
from engine.uno.notation import Position
from engine.uno.party_facts import PartyFacts
from engine.uno.party_legality import Legality
from engine.uno.party_notation import WAITING, PartyState
from engine.uno.party_passive import passive_actions_on

# The rules (what is legal, what an action does) live in party_play, which
# reads the state of party_facts.
from engine.uno.party_play import apply_action as _apply
from engine.uno.party_play import problems as _problems
from engine.uno.party_rules import PartyRules, colour_of, is_number
from engine.uno.rules import HAND_SIZE, Variant

__all__ = ["PartyGame"]

_PHASE_WORDS = {
    Phase.PLAY: "play",
    Phase.DRAWN: "drawn",
    Phase.PENALTY: "penalty",
    Phase.CHOOSE_COLOUR: "colour",
    Phase.PILE: "pile",
    Phase.POINT: "point",
    Phase.ROUND_OVER: "over",
}
_BY_WORD = {word: phase for phase, word in _PHASE_WORDS.items()}
_POINTING = Phase.POINT  # read in apply(): a global is cheaper than the enum's attribute


class PartyGame(PartyFacts):
    """A match of UNO Party! rounds. Build it with ``new`` or ``from_notation``."""

    _legality: Legality  # every player's legal actions, kept as the game changes

    # -- construction ------------------------------------------------------------

    @classmethod
    def new(
        cls,
        players: int,
        variant: str | Variant = "party",
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        house_rules: PartyRules | None = None,
        target: int = 500,
        dealer: int = 0,
    ) -> PartyGame:
        """Deal the first round (as ``Game.new``; 2-16 players)."""
        variant = Variant.named(variant) if isinstance(variant, str) else variant
        if variant.name != "party":
            raise ValueError(f"PartyGame plays party, not {variant.name}")
        if house_rules is not None and not isinstance(house_rules, PartyRules):
            raise TypeError(
                f"UNO Party! takes PartyRules, not {type(house_rules).__name__} "
                "(stacking is not offered in Party!)"
            )
        seed = match_seed(variant, players, seed=seed, rng=rng, dealer=dealer, target=target)
        game = cls.__new__(cls)
        game._variant, game._house = variant, house_rules or PartyRules()
        game._n, game._scores = players, [0] * players
        game._dealer, game._round, game._target = dealer, 1, target
        game._seed, game._shuffles = seed, 0
        game._deal(list(variant.codes))
        return game

    def next_round(self) -> None:
        """Deal the next round: all cards gathered and shuffled, the deal passes left."""
        if self._phase is not Phase.ROUND_OVER:
            raise StateError(f"the round is not over: {self.notation()}")
        if self.match_over:
            raise StateError(
                f"the match is over (player {self.match_winner} won): {self.notation()}"
            )
        cards = sorted(self._all_cards())
        self._dealer = (self._dealer + 1) % self._n
        self._round += 1
        self._deal(cards)

    def _deal(self, cards: list[int]) -> None:
        self._deck = tuple(cards)
        self._shuffle(cards)
        n = self._n
        first = (self._dealer + 1) % n
        self._hands = [[] for _ in range(n)]
        for i in range(n):
            self._hands[(first + i) % n] = cards[-HAND_SIZE:][::-1]
            del cards[-HAND_SIZE:]
        self._draw, self._discard = cards, [cards.pop()]
        self._direction, self._pending, self._wd4_legal, self._catchable = 1, 0, None, -1
        self._link, self._pile, self._out, self._choices = None, [], None, None
        self._legality = Legality(n)
        self.round_over, self.turns, self.current = False, 0, first
        self._phase = Phase.PLAY
        # The first discard: an action card's effect is ignored and another flipped.
        top = self._discard[-1]
        if self._house.first_action == "flip":
            while not is_number(top) and self._draw:
                top = self._draw.pop()
                self._discard.append(top)
        elif not is_number(top) and self._draw:
            top = self._draw.pop()
            self._discard.append(top)
        self._colour = colour_of(top)
        if self._colour == WILD_COLOUR:
            self._phase = Phase.CHOOSE_COLOUR

    # -- asking ------------------------------------------------------------------

    @property
    def house_rules(self) -> PartyRules:
        return self._house

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def links(self) -> tuple[int, int] | None:
        return self._link

    pending_showdown = None  # Party! has no Showdown unit
    #: The game interface (engine.game.interface): the family; claims out of turn.
    family: ClassVar[str] = "uno"
    out_of_turn: ClassVar[bool] = True

    def claimants(self) -> tuple[int, ...]:
        """Who may claim out of turn now (a speed play, a catch): everyone but
        the player to act who has a legal action; nobody while everyone points."""
        if self._phase in (Phase.POINT, Phase.ROUND_OVER):
            return ()
        return self._legality.claimants(self)

    def check_claim(self, action: Action) -> None:
        """ValueError unless ``action`` is a speed play or a catch."""
        if not isinstance(action, Action) or action.kind not in (SPEED_PLAY, CATCH):
            raise ValueError(f"{str(action)!r} is not a claim (a speed play or a catch)")

    def settle_showdown(self, loser: int) -> None:
        raise StateError(f"UNO Party! has no showdowns: {self.notation()}")

    @property
    def to_act(self) -> int | None:
        """Whose turn it is; None while everyone points, and once the round is over."""
        if self._phase in (Phase.POINT, Phase.ROUND_OVER):
            return None
        return self.current

    @property
    def waiting_for(self) -> tuple[int, ...]:
        if self._phase is Phase.POINT:
            return tuple(p for p, c in enumerate(self._choices or ()) if c == WAITING)
        return () if self._phase is Phase.ROUND_OVER else (self.current,)

    @property
    def colour(self) -> Colour | None:
        return None if self._colour == WILD_COLOUR else COLOURS[self._colour]

    @property
    def pending_draws(self) -> int:
        return self._pending if self._phase is Phase.PENALTY else 0

    @property
    def drawn_card(self) -> Card | None:
        return REAL_CARD[self._hands[self.current][-1]] if self._phase is Phase.DRAWN else None

    @property
    def pile(self) -> tuple[Card, ...]:
        return cards_of(self._pile)

    @property
    def pointing(self) -> tuple[int, ...]:
        """The players whose pointing choice is in (not whom they chose)."""
        return tuple(p for p, c in enumerate(self._choices or ()) if isinstance(c, int))

    @property
    def pointer(self) -> int | None:
        return self.current if self._phase is Phase.POINT else None

    @property
    def outcome(self) -> Outcome | None:
        if not self.round_over:
            return None
        winner = self.current
        points = sum(POINTS_BY_CODE[c] for p, h in enumerate(self._hands) if p != winner for c in h)
        return Outcome(winner, points, tuple(self._scores), self.match_winner)

    # -- legal actions -------------------------------------------------------------

    def legal_actions(self, player: int | None = None) -> tuple[Action, ...]:
        """What ``player`` (default: the player to act) may do now."""
        if player is None:
            if self._phase is _POINTING:
                raise StateError(
                    "everyone points at once: name the player "
                    f"(waiting for {', '.join(map(str, self.waiting_for))})"
                )
            if self.round_over:
                return ()
            player = self.current
        elif not isinstance(player, int) or not 0 <= player < self._n:
            raise StateError(f"no player {player!r} in a {self._n}-player game")
        return self._legality.actions(self, player)

    def legal_moves(self) -> tuple[tuple[int, Action], ...]:
        """Every (player, action) anyone may apply now, players in seat order."""
        return self._legality.moves(self)

    def is_legal(self, action: Action, player: int | None = None) -> bool:
        return action in self.legal_actions(player)

    def passive_actions(self) -> frozenset[Action]:
        """The actions a prefer-play policy leaves out of ``legal_moves()`` now:
        draw, keep and every speed play of a card other than the top one."""
        return passive_actions_on(self.top_card)

    # -- applying ------------------------------------------------------------------

    def apply(self, action: Action | str, player: int | None = None) -> None:
        """Make ``player``'s decision (default: the player to act). An illegal one
        raises IllegalActionError naming it, the player and the position; the
        game is then unchanged."""
        if isinstance(action, str):
            action = Action.parse(action)
        if player is None:
            if self._phase is _POINTING:
                self.legal_actions()  # raises: everyone points, so name the player
            who = self.current
        else:
            if not isinstance(player, int) or not 0 <= player < self._n:
                self.legal_actions(player)  # raises: no such player
            who = player
        if not self._legality.allows(self, who, action):
            options = " ".join(map(str, self.legal_actions(player))) or "none"
            raise IllegalActionError(
                f"illegal action {str(action)!r} for player {who} in {self.notation()!r} "
                f"(legal: {options})"
            )
        before = self.current
        if self._catchable >= 0 and action.kind is not CATCH and action.kind is not POINT:
            self._catchable = -1  # any other decision closes the UNO window
        _apply(self, action, who)
        self._legality.decided((before, who, self.current))
        if self.current != before or self.round_over:
            self.turns += 1

    # -- shared steps (the rules call these) --------------------------------------

    # -- notation, copies, invariants ----------------------------------------------

    def notation(self, reveal: bool = False) -> str:
        """The game as one line; pointing choices are sealed (``?``) unless ``reveal``."""
        penalty = self._phase is Phase.PENALTY
        position = Position(
            variant=self._variant.name,
            hands=self._hands,
            draw=self._draw[::-1],
            discard=self._discard,
            colour=self.colour,
            direction=self._direction,
            player=self.current,
            phase=_PHASE_WORDS[self._phase],
            pending=self._pending if penalty else 0,
            wd4_legal=self._wd4_legal if penalty else None,
            catchable=None if self._catchable < 0 else self._catchable,
            showdown=None,
            scores=self._scores,
            dealer=self._dealer,
            round=self._round,
            target=self._target,
            house_rules=self._house,  # type: ignore[arg-type]  # Position only str()s it
            seed=self._seed,
            shuffles=self._shuffles,
        )
        party = PartyState(
            self._link,
            cards_of(self._pile),
            self._out,
            None if self._choices is None else tuple(self._choices),
        )
        return position.format() + " " + party.format(reveal)

    @classmethod
    def from_notation(cls, text: str, variant: Variant | None = None) -> PartyGame:
        """The game written by ``notation(reveal=True)``."""
        if not isinstance(text, str):
            raise NotationError(f"notation must be a str, not {type(text).__name__}")
        fields = text.split(" ")
        if len(fields) != 17:
            raise NotationError(
                f"Party! notation has {len(fields)} fields, expected 17 (Game's 16 and party): "
                f"{text!r}"
            )
        phase_word, house_text = fields[7], fields[14]
        # Position knows Game's phases and house rules: give it stand-ins, then ours.
        fields[7] = "play" if phase_word in ("pile", "point") else phase_word
        fields[14] = "-"
        stand_in = " ".join(fields[:16])
        try:
            position = Position.parse(stand_in)
            house = PartyRules.parse(house_text)
            party = PartyState.parse(fields[16], len(position.hands))
        except NotationError as exc:
            raise NotationError(str(exc).replace(repr(stand_in), repr(text))) from None
        if position.variant != "party":
            raise NotationError(f"invalid variant field {position.variant!r}: expected party")
        if position.showdown is not None:
            raise NotationError(f"invalid showdown field: Party! has no showdowns, in {text!r}")
        game = cls.__new__(cls)
        game._variant = variant or Variant.named("party")
        game._house = house
        game._n = len(position.hands)
        game._hands = [list(map(int, h)) for h in position.hands]
        game._draw = list(map(int, reversed(position.draw)))
        game._discard = list(map(int, position.discard))
        game._colour = WILD_COLOUR if position.colour is None else int(position.colour)
        game._direction = position.direction
        game.current = position.player
        game._phase = _BY_WORD[phase_word.split(":")[0]]
        game.round_over = game._phase is Phase.ROUND_OVER
        game.turns = 0
        game._pending, game._wd4_legal = position.pending, position.wd4_legal
        game._catchable = -1 if position.catchable is None else position.catchable
        game._link, game._pile, game._out = party.link, list(map(int, party.pile)), party.out
        game._choices = None if party.pointing is None else list(party.pointing)
        game._scores = list(position.scores)
        game._dealer, game._round, game._target = position.dealer, position.round, position.target
        game._seed, game._shuffles = position.seed, position.shuffles
        game._legality = Legality(game._n)
        game._deck = tuple(sorted(game._all_cards()))
        try:
            game.check_invariants()
        except InvariantError as exc:
            raise NotationError(f"inconsistent notation: {exc}") from None
        return game

    def copy(self) -> PartyGame:
        game = PartyGame.__new__(PartyGame)
        game.__dict__.update(self.__dict__)
        game._hands = [h[:] for h in self._hands]
        game._draw, game._discard, game._pile = self._draw[:], self._discard[:], self._pile[:]
        game._scores = self._scores[:]
        game._choices = None if self._choices is None else self._choices[:]
        game._legality = Legality(game._n)
        return game

    def check_invariants(self) -> None:
        """Raise InvariantError unless the position is consistent."""
        found = _problems(self)
        if found:
            raise InvariantError("; ".join(found) + f": {self.notation()}")

    def __repr__(self) -> str:
        return f"PartyGame.from_notation({self.notation()!r})"
