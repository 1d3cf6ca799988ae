"""What a player may see of a game: the window every UNO bot reads it through.

A bot is handed the live game for speed, but it must not cheat: it reads the
game only through a ``PlayerView``, which offers exactly what a player at the
table can see (their own hand, everyone's hand sizes, the discard pile, the
colour, the direction, the scores, the pending penalty...) and nothing of the
other hands or the order of the draw pile.
"""

from __future__ import annotations

from collections import Counter

from engine.uno.actions import Action
from engine.uno.cards import Card, Colour
from engine.uno.game import Game, Phase
from engine.uno.party import PartyGame
from engine.uno.party_rules import PartyRules
from engine.uno.rules import HouseRules, Variant

__all__ = ["PlayerView"]


class PlayerView:
    """A read-only window on a game for one player: what they may see, nothing else.

    >>> from engine import Game
    >>> view = PlayerView(Game.from_notation(
    ...     "classic R5,B5/G3,Y9,Y3 G7 R1 R + 0 play - - 0,0 1 1 500 - 1:0"), 0)
    >>> [str(c) for c in view.hand], view.hand_sizes, str(view.top_card)
    (['R5', 'B5'], (2, 3), 'R1')
    >>> view.next_player(), view.opponents()
    (1, [1])
    """

    __slots__ = ("_game", "player")

    def __init__(self, game: Game | PartyGame, player: int):
        self._game = game
        self.player = player

    # What everyone at the table sees.
    @property
    def players(self) -> int:
        return self._game.players

    @property
    def variant(self) -> Variant:
        return self._game.variant

    @property
    def house_rules(self) -> HouseRules | PartyRules:
        return self._game.house_rules

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return self._game.hand_sizes

    @property
    def top_card(self) -> Card:
        return self._game.top_card

    @property
    def colour(self) -> Colour | None:
        return self._game.colour

    @property
    def direction(self) -> int:
        return self._game.direction

    @property
    def discard_pile(self) -> tuple[Card, ...]:
        return self._game.discard_pile

    @property
    def scores(self) -> tuple[int, ...]:
        return self._game.scores

    @property
    def target(self) -> int:
        return self._game.target

    @property
    def phase(self) -> Phase:
        return self._game.phase

    @property
    def current(self) -> int:
        return self._game.current

    @property
    def to_act(self) -> int | None:
        return self._game.to_act

    @property
    def pending_draws(self) -> int:
        return self._game.pending_draws

    @property
    def catchable(self) -> int | None:
        return self._game.catchable

    @property
    def round(self) -> int:
        return self._game.round

    # UNO Party!'s public facts (for another variant: no window, no pile, no link).
    @property
    def is_party(self) -> bool:
        return self._game.out_of_turn

    @property
    def speed_window(self) -> bool:
        return isinstance(self._game, PartyGame) and self._game.speed_window

    @property
    def pile(self) -> tuple[Card, ...]:
        return self._game.pile if isinstance(self._game, PartyGame) else ()

    @property
    def pile_colour(self) -> Colour | None:
        return self._game.pile_colour if isinstance(self._game, PartyGame) else None

    @property
    def links(self) -> tuple[int, int] | None:
        return self._game.links if isinstance(self._game, PartyGame) else None

    @property
    def pointer(self) -> int | None:
        return self._game.pointer if isinstance(self._game, PartyGame) else None

    @property
    def pointing(self) -> tuple[int, ...]:
        """UNO Party!: the players whose pointing choice is in (never whom they chose)."""
        return self._game.pointing if isinstance(self._game, PartyGame) else ()

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """The players the game waits for (everyone still to point, in Party!)."""
        return self._game.waiting_for

    @property
    def hand(self) -> tuple[Card, ...]:
        """This player's own hand."""
        return self._game.hand(self.player)

    @property
    def drawn_card(self) -> Card | None:
        """The card this player just drew, if they are deciding whether to play it."""
        return self._game.drawn_card if self._game.to_act == self.player else None

    def legal_actions(self) -> tuple[Action, ...]:
        """This player's legal actions (empty when it is not their decision; in
        UNO Party! also their out-of-turn ones: speed plays, catches, pointing)."""
        return self._game.legal_actions(self.player)

    def next_player(self, steps: int = 1) -> int:
        """The player ``steps`` turns after this one in the current direction."""
        return (self.player + steps * self._game.direction) % self._game.players

    def opponents(self) -> list[int]:
        return [p for p in range(self._game.players) if p != self.player]

    def unseen_cards(self) -> Counter[Card]:
        """The deck's cards this player cannot see: not in their hand and not in
        the discard pile (so in other hands or the draw pile)."""
        unseen = Counter(self._game.variant.deck)
        unseen.subtract(self.hand)
        unseen.subtract(self._game.discard_pile)
        unseen.subtract(self.pile)  # UNO Party!'s mini pile lies face up
        return +unseen  # drops zero and negative counts
