"""Bots: agents that choose a legal action, seeing only what their player may see.

Every agent (bot, person at a terminal, remote player) has one method::

    agent.act(game, player) -> Action      # one of game.legal_actions()

The match's driver (engine.match) calls it when the game waits for the player
(``game.waiting_for``: in UNO Party! several players while everyone points).
A Party! agent may also
have ``react(game, player) -> Action | None``: an out-of-turn claim (a speed
play, a catch) it makes now, or None; the driver asks it after each decision
(engine.match) and orders the claims by the agents' ``reaction_ms``. A bot is handed the live
``Game`` for speed, but it must not cheat: it reads the game only through a
``PlayerView``, which offers exactly what a player at the table can see (their
own hand, everyone's hand sizes, the discard pile, the colour, the direction,
the scores, the pending penalty...) and nothing of the other hands or the order
of the draw pile.

>>> import random
>>> from engine import Game
>>> game = Game.from_notation(
...     "showdown R5,W,G2/B1,Y1,Y2 G1,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
>>> str(HeuristicBot().act(game, 0))        # a coloured card before the wild
'R5'
>>> str(RandomBot(random.Random(3)).act(game, 0)) in map(str, game.legal_actions())
True
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

from engine.game.agents import (
    DEFAULT_REACT_CHANCE,
    DEFAULT_REACTION_MS,
    REACTION_MS_RANGE,
    Agent,
    RandomBot,
    check_reaction_ms,
)
from engine.uno import party_bots
from engine.uno.actions import Action, ActionKind
from engine.uno.cards import COLOURS, Card, Colour, Rank
from engine.uno.game import Game
from engine.uno.party import PartyGame
from engine.uno.party_bots import played_card
from engine.uno.player_view import PlayerView

__all__ = [
    "Agent",
    "PlayerView",
    "RandomBot",
    "HeuristicBot",
    "DEFAULT_REACTION_MS",
    "DEFAULT_REACT_CHANCE",
    "REACTION_MS_RANGE",
    "check_reaction_ms",
]


_ACTION_RANKS = (Rank.DRAW_TWO, Rank.SKIP, Rank.REVERSE)


class HeuristicBot:
    """A sensible player, deterministic, playing only from its ``PlayerView``.

    In UNO Party! it plays as below with the additions that
    engine.uno.party_bots lists (speed plays and catches out of turn,
    pointing, links, the mini pile).

    - catches a player who did not call UNO whenever it may, and always calls UNO;
    - plays rather than draws, coloured cards before wilds: a wild is played
      when nothing else matches or when an opponent is about to go out; a
      Wild Draw Four only when it is legal (no card of the current colour);
    - against a next player with few cards it prefers Draw Two, Skip, Reverse
      and Wild Draw Four; otherwise it keeps those and plays number cards of the
      colour it holds most, highest points first;
    - names the colour it holds most (ties: the colour worth more points);
    - challenges a Wild Draw Four when the chance that the player held the
      previous colour beats ``challenge_threshold`` (1/3 by default: accepting
      costs 4 cards, a failed challenge 6, a good one 0, so challenging draws
      fewer cards on average once that chance is over 1/3);
    - a Wild Showdown faces the player nearest to going out (fewest cards, then
      highest score), for the most cards when that player is close to winning
      the round or the match, else for the fewest.

    ``reaction_ms`` is the median of its reaction after GO when a unit presses
    its paddle in a showdown (100 to 1000 ms; a person's median by default).
    """

    #: Hand size at which a player counts as "about to go out".
    DANGER_CARDS = 2
    #: Hand size or share of the target at which a Wild Showdown opponent gets the maximum count.
    CLOSE_CARDS = 3
    CLOSE_SCORE = 0.75

    def __init__(
        self,
        name: str = "bot",
        *,
        challenge_threshold: float = 1 / 3,
        reaction_ms: float = DEFAULT_REACTION_MS,
    ):
        self.name = name
        self.challenge_threshold = challenge_threshold
        self.reaction_ms = check_reaction_ms(reaction_ms, f"bot {name!r}")

    def __repr__(self) -> str:
        return f"HeuristicBot(name={self.name!r})"

    def act(self, game: Game | PartyGame, player: int) -> Action:
        view = PlayerView(game, player)
        legal = view.legal_actions()
        if not legal:
            raise ValueError(f"player {player} has no decision to make: {game.notation()}")
        if view.is_party:
            return party_bots.heuristic_act(self, view, legal)
        for action in legal:
            if action.kind is ActionKind.CATCH:
                return action
        kind = legal[0].kind
        if kind is ActionKind.CHOOSE_COLOUR:
            return Action.choose_colour(self.best_colour(view.hand))
        if kind is ActionKind.CHOOSE_SHOWDOWN:
            return self.choose_showdown(view, legal)
        if any(a.kind is ActionKind.ACCEPT for a in legal):
            return self.answer_penalty(view, legal)
        return self.choose_play(view, legal)

    def react(self, game: Game | PartyGame, player: int) -> Action | None:
        """UNO Party!: a catch, else a right speed play, else None (never a wrong one)."""
        return party_bots.heuristic_react(PlayerView(game, player))

    # -- turns --------------------------------------------------------------------

    def choose_play(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """A turn (play or draw) or the drawn card (play or keep)."""
        best = self._best_play(view, [a for a in legal if a.kind is ActionKind.PLAY])
        if best is not None:
            return best
        return next(a for a in legal if a.kind is not ActionKind.PLAY)  # draw or keep

    def _best_play(self, view: PlayerView, plays: Sequence[Action]) -> Action | None:
        if any(a.uno for a in plays):
            plays = [a for a in plays if a.uno]  # always call UNO
        hand = view.hand
        colour = view.colour
        if colour is not None and any(c.colour is colour for c in hand):
            # Only honest Wild Draw Fours: holding the colour makes it challengeable.
            plays = [a for a in plays if played_card(a).rank is not Rank.WILD_DRAW_FOUR]
        danger = self._danger(view)
        if view.drawn_card is not None and plays and played_card(plays[0]).is_wild and not danger:
            return None  # a drawn wild is kept for later
        if not plays:
            return None
        best = max(plays, key=lambda a: self._play_score(view, a, danger))
        card = played_card(best)
        if card.is_wild:
            rest = list(hand)
            rest.remove(card)
            named = self.best_colour(rest)
            return next(a for a in plays if a.card == card and a.colour is named)
        return best

    def _danger(self, view: PlayerView) -> bool:
        sizes = view.hand_sizes
        return any(sizes[p] <= self.DANGER_CARDS for p in view.opponents())

    def _play_score(self, view: PlayerView, action: Action, danger: bool) -> float:
        card = action.card
        if card is None:
            raise ValueError(f"not a play: {action}")
        hand = view.hand
        next_small = view.hand_sizes[view.next_player()] <= self.DANGER_CARDS
        if card.is_wild:
            if card.rank is Rank.WILD_DRAW_FOUR:
                return 300 if next_small else (100 if danger else -100)
            return 100 if danger else -100
        held = sum(1 for c in hand if c.colour is card.colour)
        score = 10 * held + card.points / 10
        if card.rank in _ACTION_RANKS:
            useful = card.rank is not Rank.REVERSE or view.players == 2
            score += (200 if useful else 50) if next_small else -20
        return score

    @staticmethod
    def best_colour(cards: Iterable[Card]) -> Colour:
        """The colour held most among ``cards`` (ties: most points, then R, Y, G, B)."""
        count: Counter[Colour] = Counter()
        points: Counter[Colour] = Counter()
        for card in cards:
            if card.colour is not None:
                count[card.colour] += 1
                points[card.colour] += card.points
        return max(COLOURS, key=lambda c: (count[c], points[c], -c))

    # -- penalties ----------------------------------------------------------------

    def answer_penalty(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        stacks = [a for a in legal if a.kind is ActionKind.PLAY]
        stack = self._best_play(view, stacks)
        if stack is not None:  # the stacking house rule: pass the penalty on
            return stack
        if any(a.kind is ActionKind.CHALLENGE for a in legal):
            chance = self.held_colour_chance(view)
            if chance is not None and chance > self.challenge_threshold:
                return Action.challenge()
        return Action.accept()

    @staticmethod
    def held_colour_chance(view: PlayerView) -> float | None:
        """The chance that whoever just played a Wild Draw Four still holds a
        card of the colour it covered, judged from what this player can see:
        the offender's hand size and the unseen cards of that colour. None when
        the covered colour cannot be seen (the card under it is a wild too)."""
        pile = view.discard_pile
        if len(pile) < 2 or pile[-2].colour is None:
            return None
        covered = pile[-2].colour
        offender = view.next_player(-1)
        unseen = view.unseen_cards()
        total = sum(unseen.values())
        of_colour = sum(n for card, n in unseen.items() if card.colour is covered)
        held = min(view.hand_sizes[offender], total)
        return 1 - math.comb(total - of_colour, held) / math.comb(total, held)

    # -- Wild Showdown ------------------------------------------------------------

    def choose_showdown(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        sizes, scores = view.hand_sizes, view.scores
        opponent = min(view.opponents(), key=lambda p: (sizes[p], -scores[p], p))
        counts = sorted(a.count for a in legal if a.player == opponent and a.count is not None)
        close = (
            sizes[opponent] <= self.CLOSE_CARDS
            or scores[opponent] >= self.CLOSE_SCORE * view.target
        )
        return Action.face(opponent, counts[-1] if close else counts[0])
