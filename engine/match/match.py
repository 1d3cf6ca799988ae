"""The match, fed rather than blocking: it says what it needs next and takes the answer.

h11's shape for a game: the match holds the game and the record, and never
calls out. ``needs()`` says what it waits for:

- ``Decide(players, claimants)``: an action from one of ``players`` (the first
  by seat order decides in turn; when several are listed, as while everyone
  points in UNO Party!, each in turn), and perhaps claims out of turn from
  ``claimants``; answered with ``act(player, action)``, ``claim`` or
  ``claim_round``;
- ``Showdown(request)``: the outside result, answered with ``settle(outcome)``;
- ``NextRound(outcome)``: the round is over, ``next_round()`` deals the next;
- ``Over(result)``: the match is won.

A blocking loop over it (engine.match.driver) plays agents against a unit
port; the browser table feeds it a phone's tap as it comes. Legality is
checked here, once; every event is emitted here, once, with the words the
game's family gives it (its ``narration``).

>>> from engine.uno import FAMILY
>>> match = Match(FAMILY.new(2, "classic", seed=3), names=["Ann", "Bob"])
>>> match.begin()
>>> need = match.needs()
>>> type(need).__name__, need.players
('Decide', (1,))
>>> match.act(1, match.game.legal_actions(1)[0])
>>> [event.kind for event in match.events][:3]
['match_start', 'round_start', 'play']
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from engine.game.claims import CLAIM_JITTER, claim_order
from engine.game.errors import IllegalActionError, StateError
from engine.game.interface import Family, GameState, Narration, RoundOutcome
from engine.game.registry import family_of
from engine.match.events import MatchEvent, MatchResult
from engine.units.ports import ShowdownOutcome, ShowdownRequest

__all__ = ["Match", "Need", "Decide", "Showdown", "NextRound", "Over", "Claim", "CLAIM_JITTER"]

G = TypeVar("G", bound=GameState)


@dataclasses.dataclass(frozen=True)
class Decide:
    """An action is needed from one of ``players``; ``claimants`` may claim out of turn."""

    players: tuple[int, ...]
    claimants: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True)
class Showdown:
    """The outside result: fight ``request`` at the unit and ``settle`` its outcome."""

    request: ShowdownRequest


@dataclasses.dataclass(frozen=True)
class NextRound:
    """The round is over (``outcome``) and the match is not: deal the next round."""

    outcome: RoundOutcome


@dataclasses.dataclass(frozen=True)
class Over:
    """The match is won."""

    result: MatchResult


Need = Decide | Showdown | NextRound | Over


@dataclasses.dataclass(frozen=True)
class Claim:
    """One claim out of turn, made together with others on the same position:
    ``reaction_ms`` orders them (times a log-normal jitter, ties at random)."""

    player: int
    action: Any  # the game family's action (engine.game.interface)
    reaction_ms: float


class Match(Generic[G]):
    """A match in progress, fed decision by decision.

    ``names`` are the players' (``player0``... by default). ``bots`` maps the
    seats a bot plays to the bot's reaction median in ms (None: a bot without
    one): a showdown request hands the unit the bots among its two players, so a
    unit that can press a bot's paddle does so with that skill. With ``debug``
    the game's invariants are checked every ``check_every`` decisions and at
    each round's end. A round still running after ``max_decisions`` decisions
    raises StateError. ``rng`` orders simultaneous claims (``random.Random(0)``
    by default); claims count as decisions. A resumed match gives the
    ``showdowns`` and ``decisions`` so far (the showdown ids go on) and
    ``begun`` (its start was told in its earlier life).
    """

    def __init__(
        self,
        game: G,
        *,
        names: Sequence[str] | None = None,
        bots: Mapping[int, float | None] | None = None,
        log: Callable[[MatchEvent], None] | None = None,
        debug: bool = False,
        check_every: int = 1,
        max_decisions: int = 200_000,
        match_id: str = "m1",
        rng: random.Random | None = None,
        showdowns: int = 0,
        decisions: int = 0,
        begun: bool = False,
    ):
        names = [f"player{i}" for i in range(game.players)] if names is None else list(names)
        if len(names) != game.players:
            raise ValueError(f"{len(names)} names for {game.players} players")
        if check_every < 1 or max_decisions < 1:
            raise ValueError("check_every and max_decisions must be at least 1")
        self.game = game
        self.names = names
        self.bots: dict[int, float | None] = dict(bots or {})
        self.family: Family = family_of(game)
        self.narration: Narration = self.family.narration
        self.log = log
        self.debug = debug
        self.check_every = check_every
        self.max_decisions = max_decisions
        self.match_id = match_id
        self.rng = random.Random(0) if rng is None else rng
        self.events: list[MatchEvent] = []
        self.decisions = decisions
        self.showdowns = showdowns
        self._round_decisions = 0
        self._announced = begun  # the match_start and the current round_start emitted
        self._request: ShowdownRequest | None = None
        self._in_claim_round = False
        self._round_ended = 0  # the last round whose round_end was emitted

    # -- what the match needs --------------------------------------------------------

    def begin(self, announce_match: bool = True) -> None:
        """Emit the match's start (unless ``announce_match`` is False: a match
        resumed mid-way) and the current round's, once; a match fed from its
        first decision calls it first (a test feeding a position may not)."""
        if self._announced:
            return
        self._announced = True
        if announce_match:
            game = self.game
            self._emit("match_start", players=list(self.names), **self.narration.match_start(game))
        if not self.game.round_over:
            self._emit("round_start", **self.narration.round_start(self.game))

    def needs(self) -> Need:
        """What the match waits for now (see the module docstring)."""
        game = self.game
        if game.round_over:
            if game.match_winner is not None:
                return Over(self.result)
            outcome = game.outcome
            if outcome is None:  # cannot happen: round_over and outcome go together
                raise StateError(f"round {game.round} ended without an outcome: {self._where()}")
            return NextRound(outcome)
        if game.pending_showdown is not None:
            return Showdown(self.showdown_request())
        return Decide(game.waiting_for, game.claimants() if game.out_of_turn else ())

    @property
    def result(self) -> MatchResult:
        """The result of a won match (StateError before)."""
        game = self.game
        winner = game.match_winner
        if not game.round_over or winner is None:
            raise StateError(f"the match is not over: {self._where()}")
        return MatchResult(
            winner, game.scores, game.round, self.decisions, self.showdowns, tuple(self.events)
        )

    # -- the answers -----------------------------------------------------------------

    # An action is Any: the family's own value, which the match passes to the
    # game and str()s (engine.game.interface).
    def act(self, player: int, action: Any, *, by: str = "chose", who: str = "") -> None:
        """Apply ``player``'s ``action`` (in turn, or a claim out of turn).
        IllegalActionError, naming the player (``who``, by default their name
        and seat), ``by`` (what they did: "chose", "claimed") and the legal
        actions, if it is not legal now; the match and the game are then
        unchanged."""
        game = self.game
        if not 0 <= player < game.players:
            raise ValueError(f"no player {player!r} in a {game.players}-player game")
        if not game.is_legal(action, player):
            legal = " ".join(map(str, game.legal_actions(player))) or "none"
            who = who or f"{self.names[player]} (player {player})"
            raise IllegalActionError(
                f"{who} {by} {str(action)!r}, which is not "
                f"legal in {self._where()!r} (legal: {legal})"
            )
        self._apply(player, action)

    def _apply(self, player: int, action: Any) -> None:
        game = self.game
        self._count_decision()
        narration = self.narration
        before = narration.before(game, player, action)
        game.apply(action, player)
        for kind, data in narration.after(game, player, action, before):
            self._emit(kind, **data)
        self._decided()

    def claim(self, player: int, action: Any) -> bool:
        """Apply ``player``'s claim out of turn now, if it is still legal: True.
        If it is not (an earlier claim took it, the window closed), it is
        dropped and reported as ``claim_lost``: False. The game's ``check_claim``
        raises StateError for a game without claims out of turn and ValueError
        for an action that is never a claim."""
        game = self.game
        game.check_claim(action)
        if not 0 <= player < game.players:
            raise ValueError(f"no player {player!r} in a {game.players}-player game")
        if game.round_over or not game.is_legal(action, player):
            self._emit("claim_lost", player=player, action=str(action))
            return False
        self._apply(player, action)
        return True

    def claim_round(self, claims: Sequence[Claim]) -> list[Claim]:
        """Claims made on the same position, applied fastest first: each claim's
        ``reaction_ms`` times a log-normal jitter (sigma CLAIM_JITTER), ties by a
        random draw, all from the match's ``rng`` in the order given (seat
        order, for a replay to match). Returns the claims applied."""
        order = claim_order([c.reaction_ms for c in claims], self.rng)  # engine.game.claims
        self._in_claim_round = True
        try:
            applied = [claims[i] for i in order if self.claim(claims[i].player, claims[i].action)]
        finally:
            self._in_claim_round = False
        self._round_end_if_over()
        return applied

    def showdown_request(self) -> ShowdownRequest:
        """The pending showdown's request (StateError without one): built once,
        the same until it is settled; its id counts the showdowns settled."""
        game = self.game
        pending = game.pending_showdown
        if pending is None:
            raise StateError(f"no showdown is pending: {self._where()}")
        if self._request is None:
            pair = (pending.challenger, pending.opponent)
            self._request = ShowdownRequest(
                f"{self.match_id}:r{game.round}:s{self.showdowns + 1}",
                pending.challenger,
                pending.opponent,
                self.names[pending.challenger],
                self.names[pending.opponent],
                len(pending.cards),
                bots={p: ms for p in pair if (ms := self.bots.get(p)) is not None},
            )
        return self._request

    def settle(self, outcome: ShowdownOutcome, *, by: str = "the unit") -> None:
        """The pending showdown's outcome (``by`` names who gave it, for the
        error): IllegalActionError if it does not answer the request."""
        request = self.showdown_request()
        try:
            outcome.check(request)
        except ValueError as exc:
            raise IllegalActionError(f"{by}: {exc}") from None
        game = self.game
        pending = game.pending_showdown
        assert pending is not None  # showdown_request() checked it
        self._count_decision()
        game.settle_showdown(outcome.loser)
        self.showdowns += 1
        self._request = None
        self._emit(
            "showdown",
            showdown_id=request.showdown_id,
            challenger=request.challenger,
            opponent=request.opponent,
            names=[request.challenger_name, request.opponent_name],
            cause=str(pending.cause),
            cards=request.cards,
            bots=dict(request.bots),
            loser=outcome.loser,
            winner=outcome.winner,
            reason=outcome.reason,
            reaction_us=dict(outcome.reaction_us),
            margin_us=outcome.margin_us,
            tie_reruns=outcome.tie_reruns,
            detail=outcome.detail,
        )
        self._decided()

    def next_round(self) -> None:
        """Deal the next round (StateError unless the round is over and the match is not)."""
        self.game.next_round()
        self._round_decisions = 0
        self._emit("round_start", **self.narration.round_start(self.game))

    # -- bookkeeping -----------------------------------------------------------------

    def _count_decision(self) -> None:
        self.decisions += 1
        self._round_decisions += 1
        if self._round_decisions > self.max_decisions:
            raise StateError(
                f"round {self.game.round} has not ended after {self.max_decisions} "
                f"decisions (a runaway game?): {self._where()}"
            )

    def _decided(self) -> None:
        if self.debug and self.decisions % self.check_every == 0:
            self.game.check_invariants()
        if not self._in_claim_round:  # a claims round ends the round after its last claim
            self._round_end_if_over()

    def _round_end_if_over(self) -> None:
        game = self.game
        if not game.round_over or self._round_ended == game.round:
            return
        self._round_ended = game.round
        if self.debug:
            game.check_invariants()
        outcome = game.outcome
        assert outcome is not None  # round_over and outcome go together
        self._emit(
            "round_end",
            winner=outcome.winner,
            points=outcome.points,
            scores=list(outcome.scores),
            **self.narration.round_end(game),
        )
        if outcome.match_winner is not None:
            self._emit(
                "match_end",
                winner=outcome.match_winner,
                scores=list(game.scores),
                rounds=game.round,
                decisions=self.decisions,
                showdowns=self.showdowns,
            )

    def _where(self) -> str:
        return self.game.notation()

    def _emit(self, kind: str, **data: Any) -> None:  # plain values (events.py)
        event = MatchEvent(kind, self.game.round, data)
        self.events.append(event)
        if self.log is not None:
            self.log(event)
