"""What a game family gives the environment: its codec, the fixed-size encoding of one variant.

A family names the module of its codec in ``Family.rl_codec``; that module has
``make_codec(variant, players, house_rules) -> Codec``. The environment
(engine.rl.environment) is the same for every game; the codec knows the family's
actions and what a player may see. Encodings are plain bytes (``bytearray``),
so a family needs no numpy; the environment views them as numpy arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from engine.game.interface import GameState

__all__ = ["Codec", "make_mask", "MaskMaker"]

#: ``make_mask``'s type: (legal actions, their numbers, the scratch, its view) -> the mask.
MaskMaker = Callable[[Sequence[Any], Mapping[Any, int], bytearray, Any], Any]


def make_mask(legal: Sequence[Any], index: Mapping[Any, int], scratch: bytearray, view: Any) -> Any:
    """The action mask of ``legal``: a copy (``view.copy()``, ``view`` a numpy
    view of ``scratch``) of ``scratch`` with a one at each legal action's number
    in ``index``. ``scratch`` holds zeros but where the caller marked (the pass
    of a claim window), before and after; a KeyError (an action without a
    number) leaves ones in it. A codec may give its own, compiled
    (``Codec.make_mask``: engine.uno.rl_kernel's); this is the reference.

    >>> import numpy as np
    >>> scratch = bytearray(4)
    >>> index = {"a": 0, "b": 1, "c": 2, "d": 3}
    >>> make_mask(("b", "d"), index, scratch, np.frombuffer(scratch, np.int8))
    array([0, 1, 0, 1], dtype=int8)
    >>> scratch
    bytearray(b'\\x00\\x00\\x00\\x00')
    """
    for move in legal:
        scratch[index[move]] = 1
    mask = view.copy()
    for move in legal:
        scratch[index[move]] = 0
    return mask


class Codec(Protocol):
    """One variant's encoding, for a fixed number of players.

    Actions are numbered from the acting player's seat: ``actions[p][i]`` is
    action ``i`` for player ``p`` and ``index[p]`` its inverse, so "catch the
    next player" has one number whoever catches. Every legal action of every
    position has a number (the tests play random rounds to check it).

    A codec may also give ``make_mask`` (a ``MaskMaker``: this module's
    ``make_mask`` compiled, engine.uno.rl_kernel's); the environment runs this
    module's where it gives none.
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
