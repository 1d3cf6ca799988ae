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
from engine.uno.cards import Card

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

    def __init__(self, game, player: int):
        self._game = game
        self.player = player

    # What everyone at the table sees.
    players = property(lambda self: self._game.players)
    variant = property(lambda self: self._game.variant)
    house_rules = property(lambda self: self._game.house_rules)
    hand_sizes = property(lambda self: self._game.hand_sizes)
    top_card = property(lambda self: self._game.top_card)
    colour = property(lambda self: self._game.colour)
    direction = property(lambda self: self._game.direction)
    discard_pile = property(lambda self: self._game.discard_pile)
    scores = property(lambda self: self._game.scores)
    target = property(lambda self: self._game.target)
    phase = property(lambda self: self._game.phase)
    current = property(lambda self: self._game.current)
    to_act = property(lambda self: self._game.to_act)
    pending_draws = property(lambda self: self._game.pending_draws)
    catchable = property(lambda self: self._game.catchable)
    round = property(lambda self: self._game.round)

    # UNO Party!'s public facts (for another variant: no window, no pile, no link).
    is_party = property(lambda self: self._game.out_of_turn)
    speed_window = property(lambda self: getattr(self._game, "speed_window", False))
    pile = property(lambda self: getattr(self._game, "pile", ()))
    pile_colour = property(lambda self: getattr(self._game, "pile_colour", None))
    links = property(lambda self: getattr(self._game, "links", None))
    pointer = property(lambda self: getattr(self._game, "pointer", None))

    @property
    def pointing(self) -> tuple[int, ...]:
        """UNO Party!: the players whose pointing choice is in (never whom they chose)."""
        return getattr(self._game, "pointing", ())

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

    def unseen_cards(self) -> Counter:
        """The deck's cards this player cannot see: not in their hand and not in
        the discard pile (so in other hands or the draw pile)."""
        unseen = Counter(self._game.variant.deck)
        unseen.subtract(self.hand)
        unseen.subtract(self._game.discard_pile)
        unseen.subtract(self.pile)  # UNO Party!'s mini pile lies face up
        return +unseen  # drops zero and negative counts
