"""What a game family gives the environment: its codec, the fixed-size encoding of one variant.

A family names the module of its codec in ``Family.rl_codec``; that module has
``make_codec(variant, players, house_rules) -> Codec``. The environment
(engine.rl.environment) is the same for every game; the codec knows the family's
actions and what a player may see. Encodings are plain bytes (``bytearray``),
so a family needs no numpy; the environment views them as numpy arrays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from engine.game.interface import GameState

__all__ = ["Codec"]


class Codec(Protocol):
    """One variant's encoding, for a fixed number of players.

    Actions are numbered from the acting player's seat: ``actions[p][i]`` is
    action ``i`` for player ``p`` and ``index[p]`` its inverse, so "catch the
    next player" has one number whoever catches. Every legal action of every
    position has a number (the tests play random rounds to check it).
    """

    #: Action number -> the family's action, for each player.
    actions: Sequence[Sequence[Any]]
    #: The family's action -> its number, for each player.
    index: Sequence[Mapping[Any, int]]
    #: The length of an observation, and the highest value of each of its bytes.
    observation_size: int
    observation_high: bytes
    #: Whether the game waits for one player at a time, its ``to_act`` (None
    #: while it waits for a showdown or for nobody), and none acts out of turn:
    #: ``waiting_for`` is then ``(to_act,)`` or ``()``, and the environment reads
    #: ``to_act`` after each decision (one property where ``waiting_for`` is two).
    one_actor: bool

    def start_round(self, game: GameState) -> None:
        """Forget what was kept of the last round (a new round is dealt)."""
        ...

    def observe(self, game: GameState, player: int, out: bytearray) -> None:
        """Write what ``player`` may see of ``game`` into ``out`` (all of it:
        ``out`` may hold anything): the full rebuild, the reference."""
        ...

    def update(self, game: GameState, player: int) -> bytearray:
        """``player``'s observation kept by the codec, brought up to date from
        what changed since their last update; the same buffer for a player every
        time, its first ``observation_size`` bytes equal to ``observe``'s."""
        ...

    def rewards(self, game: GameState) -> tuple[float, ...]:
        """Each player's reward for the round just over."""
        ...
