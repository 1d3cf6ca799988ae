"""Who decides next in a round, one player at a time: the AEC order over any game.

The game interface may wait for several players at once (``waiting_for``), let
players act out of turn (``claimants``) or wait for a showdown at the unit
(``pending_showdown``). An AEC environment asks one player at a time, so:

- a showdown is settled at once by a simulated unit (engine.units.SimulatedUnit,
  seeded), both players pressing as the default person does;
- after every decision that leaves claimants (players who may act out of turn:
  UNO Party!'s speed plays and catches), each claimant in turn is offered a
  claim-or-pass decision, in reaction order: seat order from the player after
  the one who decided, that player last. A pass declines and changes nothing;
  a claim is a decision, which opens a new window (so does the deal: from the
  player to act, who is never a claimant). Each window offers each
  claimant once, so passes end it: the game goes on with the players it waits
  for (the first of ``waiting_for``, in seat order, when several are).

Nothing here reads a clock: the order is a fixed rule, never a race.
"""

from __future__ import annotations

import random

from engine.game.interface import GameState, ShowdownAsk
from engine.units import ShowdownRequest, SimulatedUnit

__all__ = ["Turns", "reaction_order"]


def reaction_order(claimants: tuple[int, ...], actor: int, players: int) -> list[int]:
    """The claimants in seat order from the player after ``actor`` (who comes last).

    >>> reaction_order((0, 1, 3), actor=1, players=4)
    [3, 0, 1]
    """
    return sorted(claimants, key=lambda seat: (seat - actor - 1) % players)


class Turns:
    """The decision order of one round of ``game``; showdowns drawn from ``rng``
    (a generator, or the seed of one made at the first showdown: most rounds
    of most games have none, and an episode of Pitch is some 35 steps)."""

    __slots__ = ("game", "window", "showdowns", "_players", "_claims", "_names", "_unit", "_rng")

    def __init__(self, game: GameState, rng: random.Random | int):
        self.game = game
        self._unit: SimulatedUnit | None = None
        self._rng = rng
        #: The claimants still to be offered the window open now, next first.
        self.window: list[int] = []
        #: Showdowns the simulated unit settled this round.
        self.showdowns = 0
        self._players = game.players
        self._claims = type(game).out_of_turn
        self._names = [f"player {p}" for p in range(game.players)]  # the showdowns' names
        self._settle(game.pending_showdown)
        waiting = game.waiting_for
        if waiting:  # claims on the first card: offered from the player to act on
            self._open(waiting[0] - 1)

    @property
    def unit(self) -> SimulatedUnit:
        """The simulated unit that settles the showdowns."""
        if self._unit is None:
            rng = self._rng
            if not isinstance(rng, random.Random):
                rng = random.Random(rng)
            self._unit = SimulatedUnit(rng)
        return self._unit

    @property
    def actor(self) -> int | None:
        """The player to decide now (None once the round is over)."""
        if self.window:
            return self.window[0]
        waiting = self.game.waiting_for
        return waiting[0] if waiting else None

    @property
    def claiming(self) -> bool:
        """Whether the actor is offered a claim-or-pass decision (out of turn)."""
        return bool(self.window)

    def decided(self, player: int) -> int | None:
        """``player``'s decision was applied: settle showdowns, open the next
        window; the player to decide now (``actor``)."""
        game = self.game
        ask = game.pending_showdown
        if ask is not None:
            self._settle(ask)
        if self._claims:
            self._open(player)
            if self.window:
                return self.window[0]
        waiting = game.waiting_for
        return waiting[0] if waiting else None

    def _open(self, player: int) -> None:
        if self._claims and not self.game.round_over:
            claimants = self.game.claimants()
            self.window = reaction_order(claimants, player, self._players) if claimants else []
        else:
            self.window = []

    def passed(self) -> int | None:
        """The actor declined the claim offered (ValueError if none was); the
        player to decide now (``actor``)."""
        if not self.window:
            raise ValueError("pass is a claim window's answer, and no window is open")
        del self.window[0]
        return self.actor

    def _settle(self, ask: ShowdownAsk | None) -> None:
        game = self.game
        while ask is not None:
            self.showdowns += 1
            request = ShowdownRequest(
                showdown_id=f"rl-{self.showdowns}",
                challenger=ask.challenger,
                opponent=ask.opponent,
                challenger_name=self._names[ask.challenger],
                opponent_name=self._names[ask.opponent],
                cards=len(ask.cards),
            )
            game.settle_showdown(self.unit.run_showdown(request).loser)
            ask = game.pending_showdown
