"""The game interface: what the match, the table and the shared bots may ask of a game.

A game family (``engine.uno``, one day ``engine.pitch``) implements these
protocols; nothing outside a family names a family's classes or variants.
python-chess's nouns, OpenSpiel's calls: the seats and their teams, who may
act now (``waiting_for``, possibly several players at once) and who may act out
of turn (``claimants``), ``legal_actions(player)``, ``apply(action, player)``,
the outside result the game waits for (``pending_showdown``, settled by
``settle_showdown``), the round's and the match's outcome, and a notation that
round-trips.

An action, a family's house rules and, in Narration and Taps, the game are
typed Any: each is the family's own type, which the shared layer only passes
through (and str()s), and a Protocol method taking ``object`` would refuse the
family's narrower one. Event data is Any too: plain values of mixed types by
key (engine.match.events).

>>> from engine.uno import FAMILY
>>> game = FAMILY.new(2, "classic", seed=1)
>>> isinstance(game, GameState) and isinstance(FAMILY, Family)
True
>>> game.waiting_for, game.claimants(), game.teams
((0,), (), ((0,), (1,)))
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

__all__ = [
    "GameState",
    "ShowdownAsk",
    "RoundOutcome",
    "Family",
    "Narration",
    "Narrated",
    "Taps",
]


class ShowdownAsk(Protocol):
    """An outside result a game waits for: two players face each other at the
    unit for ``cards`` (the penalty), because of ``cause``."""

    @property
    def challenger(self) -> int: ...
    @property
    def opponent(self) -> int: ...
    @property
    def cards(self) -> Sequence[object]: ...
    @property
    def cause(self) -> object: ...


class RoundOutcome(Protocol):
    """A finished round: its winner, the points it scored, the scores and the match's winner."""

    @property
    def winner(self) -> int: ...
    @property
    def points(self) -> int: ...
    @property
    def scores(self) -> tuple[int, ...]: ...
    @property
    def match_winner(self) -> int | None: ...


@runtime_checkable
class GameState(Protocol):
    """One match of a game, round by round. Actions are the family's values
    (each with a text form the family's ``parse_action`` reads back)."""

    #: The registry name of the game's family (engine.game.registry).
    family: ClassVar[str]
    #: Whether players outside ``waiting_for`` may ever act (claims out of turn).
    out_of_turn: ClassVar[bool]

    @property
    def players(self) -> int: ...
    @property
    def teams(self) -> tuple[tuple[int, ...], ...]: ...
    @property
    def round(self) -> int: ...
    @property
    def scores(self) -> tuple[int, ...]: ...
    @property
    def target(self) -> int: ...
    @property
    def match_winner(self) -> int | None: ...
    @property
    def waiting_for(self) -> tuple[int, ...]: ...
    @property
    def pending_showdown(self) -> ShowdownAsk | None: ...
    @property
    def outcome(self) -> RoundOutcome | None: ...

    round_over: bool

    def claimants(self) -> tuple[int, ...]:
        """The players who may act out of turn now (each has legal actions)."""
        ...

    def check_claim(self, action: Any) -> None:
        """ValueError if ``action`` is never a claim out of turn (StateError if
        the game has none), in the game's words."""
        ...

    def legal_actions(self, player: int | None = None) -> Sequence[Any]: ...
    def is_legal(self, action: Any, player: int | None = None) -> bool: ...
    def apply(self, action: Any, player: int | None = None) -> None: ...
    def settle_showdown(self, loser: int) -> None: ...
    def next_round(self) -> None: ...
    def notation(self, reveal: bool = False) -> str: ...
    def check_invariants(self) -> None: ...


#: One event a decision produced: its kind and its data (plain values).
Narrated = tuple[str, dict[str, Any]]


class Narration(Protocol):
    """How a family tells the match what happened: the match is the same for
    every game, the events are the family's (engine.match.events)."""

    def match_start(self, game: Any) -> dict[str, Any]:
        """The family's data of the ``match_start`` event (beside the names)."""
        ...

    def round_start(self, game: Any) -> dict[str, Any]:
        """The data of a round's ``round_start`` event."""
        ...

    def round_end(self, game: Any) -> dict[str, Any]:
        """The family's data of a ``round_end`` event (beside winner, points, scores)."""
        ...

    def before(self, game: Any, player: int, action: Any) -> object:
        """What ``after`` needs to know of the position before the action."""
        ...

    def after(self, game: Any, player: int, action: Any, before: object) -> list[Narrated]:
        """The events of ``player``'s ``action``, now applied."""
        ...


class Taps(Protocol):
    """A phone's tap at the browser table, in the family's words."""

    #: The events that are a decision of their player (whom a late claim lost to).
    DECISION_EVENTS: frozenset[str]

    def parse_tap(self, text: str) -> Any:
        """The action a tap's text names, or (a str) why it names none."""
        ...

    def refuse_early(
        self, game: Any, seat: int, action: Any, text: str, names: Sequence[str], last: Any
    ) -> str | None:
        """Why a tap is refused before the rules are asked, or None."""
        ...

    def refuse_illegal(
        self, game: Any, seat: int, action: Any, text: str, names: Sequence[str], last: Any
    ) -> str:
        """Why a tap the rules do not allow now is refused."""
        ...


@runtime_checkable
class Family(Protocol):
    """A game family: its variants, how to deal or read a game, and its words."""

    name: str
    #: The variants it plays, by name (unique across families).
    variants: tuple[str, ...]
    narration: Narration
    taps: Taps
    #: The bots it offers by kind, the first the default ("bot": its heuristic;
    #: "random": uniform over the legal actions; perhaps "strong": its search).
    bot_kinds: tuple[str, ...]
    #: The module of its game at the terminal (``showdown play``), an
    #: engine.apps.play.TerminalGame (engine.uno.terminal, engine.pitch.terminal): its
    #: default target, its seats, its screen.
    terminal: str
    #: The room that keeps the score of a table playing with real cards, "module:Class".
    companion: str
    #: The module of its game at the browser table (engine.apps.table.setup):
    #: the seats, bots, house rules from the host's form, the views, the log's words.
    table: str
    #: The module of its encoding for the environment (engine.rl): its
    #: ``make_codec(variant, players, house_rules)`` gives an engine.rl.codec.Codec.
    rl_codec: str

    def make_bot(
        self, kind: str, name: str, rng: random.Random, *, reaction_ms: float | None = None
    ) -> Any:
        """A bot of ``kind`` (one of ``bot_kinds``; ValueError naming them
        otherwise) called ``name``, drawing any randomness from ``rng``; an
        engine.game.agents.Agent. ``reaction_ms``: its median after GO when a
        unit presses its paddle (the default person's when None)."""
        ...

    def new(
        self,
        players: int,
        variant: str,
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        target: int | None = None,
        house_rules: Any = None,
    ) -> GameState: ...

    def from_notation(self, text: str) -> GameState: ...
    def parse_action(self, text: str) -> Any: ...
