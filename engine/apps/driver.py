"""The driver: plays a whole match, asking agents for decisions and a unit port for showdowns.

It is the only loop in the engine, and it is plain: while the round runs, a
pending showdown goes to the unit port and its loser back to the game; any
other decision goes to the agent of ``game.to_act``. Between rounds it deals
the next one, until a player reaches the target score. Everything worth
telling is reported as a ``MatchEvent`` to the ``log`` callback (and kept in
``Match.events``), so a terminal game, a demo and a test read the same record.

>>> import random
>>> from engine.uno.bots import HeuristicBot, RandomBot
>>> from engine.units.ports import SimulatedUnit
>>> result = play_match(3, [HeuristicBot(), RandomBot(random.Random(1)), HeuristicBot()],
...                     SimulatedUnit(random.Random(1)), seed=4, target=100)
>>> result.winner is not None and max(result.scores) >= 100
True
>>> [e.kind for e in result.events][:2], result.events[-1].kind
(['match_start', 'round_start'], 'match_end')

UNO Party! (a ``PartyGame``): ``run()`` (and ``play_round()``) hold claims
rounds (``Match.claims()``) at the start of a round and after each decision,
until nobody claims (``step()`` alone makes one decision and holds none: a
caller driving ``step()`` itself calls ``claims()``): every agent but the one to act
that has out-of-turn actions and a ``react(game, player)`` method is asked, on
the same position, for a claim (a speed play or a catch, or None); the claims
are applied in the order of the agents' claim times (``reaction_ms``, or
DEFAULT_REACTION_MS for an agent without one, times a log-normal jitter of
sigma CLAIM_JITTER; ties by a random draw; all from the match's seeded
``rng``); a claim an earlier one made illegal is dropped and reported as
``claim_lost``. While everyone points (phase ``point``) nobody is asked to
claim; ``step()`` asks the waiting agents' ``act`` in seat order, and the
choices stay hidden (``pointed`` says only who) until the last is in, when
``pointing`` reveals them all at once. A mini pile (phase ``pile``) is played
by ``step()`` as turns are. ``Match.step(player)`` makes the decision of a
given player in ``game.waiting_for``; ``Match.claim(player, action)`` applies
an out-of-turn action now (a person's tap), or reports it lost.

>>> party = play_match(8, [HeuristicBot()] + [RandomBot(random.Random(i)) for i in range(7)],
...                    SimulatedUnit(random.Random(1)), variant="party", seed=2, target=100)
>>> party.winner is not None and party.showdowns == 0
True

Events (``MatchEvent(kind, round, data)``; ``data`` holds plain values):

=============  ==========================================================================
kind           data
=============  ==========================================================================
match_start    players (names), variant, target, house_rules
round_start    dealer, first (who decides first), top, colour, hand_sizes, scores, notation
play           player, action, card, colour (the colour now), uno, cards_left,
               draws ({player: cards} drawn by others because of it)
draw           player, action, cards (drawn), can_play (the drawn card)
keep           player, action
accept         player, action, cards
challenge      player, action, offender, succeeded, drew (who drew), cards
catch          player, action, caught, cards
colour         player, action, colour
face           player, action, opponent, count
showdown       showdown_id, challenger, opponent, names, cause, cards, bots ({player:
               reaction_ms} for the bots of the two), loser, winner, reason, reaction_us
               ({player: us or None}), margin_us, tie_reruns, detail
round_end      winner, points, scores, hand_sizes
match_end      winner, scores, rounds, decisions, showdowns
speed          player, action, card, top (the card it was played on), right (identical:
               played; else taken back and a card drawn), uno, cards_left, drew (cards
               the player drew), draws, next (who is to act now)
point_taken    player (who played the Point Taken; the pointing opens), waiting
pointed        player (a choice is in; never whom it points at)
pointing       player (who played the Point Taken), choices ({player: target}, all
               revealed at once), draws
pile_start     player (who played the Wild Pile Up), flipped (the mini pile's cards,
               bottom first), colour, next (who must add first)
pile_add       player, action, card, uno, cards_left, next (who must add or take now)
pile_take      player, action, cards (the mini pile), draws
link           player, linked ([a, b], the pair now linked)
claim_lost     player, action (a claim made illegal by an earlier one)
=============  ==========================================================================

In UNO Party! ``draws`` ({player: cards}) is added to draw, accept, challenge
and catch too: everyone whose hand grew by the decision, linked draws included
(in a ``play`` it never includes the player, whose hand shrank). The ``play``
of a Point Taken, Wild Pile Up or Wild Drawn Together is followed by
``point_taken``, ``pile_start`` (when a pile starts) or ``link`` (when it links);
a card added to a mini pile is ``pile_add``, not ``play``.

Cards and colours are given as text (``"R5"``, ``"G"``); players as indices.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from typing import Any

from engine.game.errors import IllegalActionError, StateError
from engine.units.ports import ShowdownRequest, UnitPort
from engine.uno.actions import Action, ActionKind
from engine.uno.bots import DEFAULT_REACTION_MS, Agent
from engine.uno.cards import Rank
from engine.uno.game import Game, PendingShowdown, Phase
from engine.uno.party import PartyGame
from engine.uno.party_notation import PartyState

__all__ = [
    "Match",
    "MatchEvent",
    "MatchResult",
    "play_match",
    "EVENT_KINDS",
    "PARTY_EVENT_KINDS",
    "CLAIM_KINDS",
    "CLAIM_JITTER",
]

EVENT_KINDS = (
    "match_start",
    "round_start",
    "play",
    "draw",
    "keep",
    "accept",
    "challenge",
    "catch",
    "colour",
    "face",
    "showdown",
    "round_end",
    "match_end",
)
#: The events only UNO Party! has.
PARTY_EVENT_KINDS = (
    "speed",
    "point_taken",
    "pointed",
    "pointing",
    "pile_start",
    "pile_add",
    "pile_take",
    "link",
    "claim_lost",
)
#: What an agent may claim out of turn (``react``, ``Match.claim``).
CLAIM_KINDS = (ActionKind.SPEED_PLAY, ActionKind.CATCH)
#: Sigma of the log-normal factor on each claim's reaction_ms (about +-20 %).
CLAIM_JITTER = 0.2

_KIND_WORDS = {
    ActionKind.PLAY: "play",
    ActionKind.DRAW: "draw",
    ActionKind.KEEP: "keep",
    ActionKind.ACCEPT: "accept",
    ActionKind.CHALLENGE: "challenge",
    ActionKind.CATCH: "catch",
    ActionKind.CHOOSE_COLOUR: "colour",
    ActionKind.CHOOSE_SHOWDOWN: "face",
}
# UNO Party! adds ``draws`` (linked draws included) to these events.
_PARTY_DRAWS = (ActionKind.DRAW, ActionKind.ACCEPT, ActionKind.CHALLENGE, ActionKind.CATCH)


@dataclasses.dataclass(frozen=True)
class MatchEvent:
    """One line of a match's record; see the module docstring for the kinds."""

    kind: str
    round: int
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "round": self.round, **self.data}


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """A finished match: the winner, final scores, and the whole record."""

    winner: int
    scores: tuple[int, ...]
    rounds: int
    decisions: int
    showdowns: int
    events: tuple[MatchEvent, ...]


class Match:
    """A match in progress: ``run()`` plays it to the end; ``step()`` makes one decision.

    ``agents[i]`` decides for player i (``agent.act(game, i) -> Action``);
    ``unit.run_showdown(request) -> ShowdownOutcome`` fights the showdowns.
    ``names`` default to each agent's ``name`` plus its seat. An agent with a
    ``reaction_ms`` (a bot) is a bot at the unit too: each showdown request
    gives it in ``bots``, so a unit that can press a bot's paddle does so with
    that skill; agents without one (people) press their own. With ``debug``
    the game's invariants are checked every ``check_every`` decisions and at
    each round's end. A round still running after ``max_decisions`` decisions
    raises StateError. ``rng`` (UNO Party!) orders simultaneous claims (seeded
    ``random.Random(0)`` by default); claims count as decisions.
    """

    def __init__(
        self,
        game: Game | PartyGame,
        agents: Sequence[Agent],
        unit: UnitPort,
        *,
        names: Sequence[str] | None = None,
        log: Callable[[MatchEvent], None] | None = None,
        debug: bool = False,
        check_every: int = 1,
        max_decisions: int = 200_000,
        match_id: str = "m1",
        rng: random.Random | None = None,
    ):
        if len(agents) != game.players:
            raise ValueError(f"{len(agents)} agents for {game.players} players")
        if names is None:
            names = [f"{getattr(agent, 'name', 'player')}{i}" for i, agent in enumerate(agents)]
        if len(names) != game.players:
            raise ValueError(f"{len(names)} names for {game.players} players")
        if check_every < 1 or max_decisions < 1:
            raise ValueError("check_every and max_decisions must be at least 1")
        self.game = game
        self.agents = list(agents)
        self.unit = unit
        self.names = list(names)
        self.log = log
        self.debug = debug
        self.check_every = check_every
        self.max_decisions = max_decisions
        self.match_id = match_id
        self.events: list[MatchEvent] = []
        self.decisions = 0
        self.showdowns = 0
        self._round_decisions = 0
        self.rng = random.Random(0) if rng is None else rng
        self.party = isinstance(game, PartyGame)

    def run(self) -> MatchResult:
        """Play every remaining round; return the result once the match is won."""
        game = self.game
        if not self.events:
            self._emit(
                "match_start",
                players=list(self.names),
                variant=game.variant.name,
                target=game.target,
                house_rules=str(game.house_rules),
            )
        while True:
            if game.round_over:
                winner = game.match_winner
                if winner is not None:
                    break
                game.next_round()
            self.play_round()
        result = MatchResult(winner, game.scores, game.round, self.decisions, self.showdowns, ())
        self._emit(
            "match_end",
            winner=result.winner,
            scores=list(result.scores),
            rounds=result.rounds,
            decisions=result.decisions,
            showdowns=result.showdowns,
        )
        return dataclasses.replace(result, events=tuple(self.events))

    def play_round(self) -> None:
        """Play the current round to its end."""
        game = self.game
        self._round_decisions = 0
        self._emit(
            "round_start",
            dealer=game.dealer,
            first=game.to_act,
            top=str(game.top_card),
            colour=_text(game.colour),
            hand_sizes=list(game.hand_sizes),
            scores=list(game.scores),
            notation=game.notation(),
        )
        self._settle_claims()
        while not game.round_over:
            self.step()
            self._settle_claims()
        if self.debug:
            game.check_invariants()
        outcome = game.outcome
        if outcome is None:  # cannot happen: round_over and outcome go together
            raise StateError(f"round {game.round} ended without an outcome: {game.notation()}")
        self._emit(
            "round_end",
            winner=outcome.winner,
            points=outcome.points,
            scores=list(outcome.scores),
            hand_sizes=list(game.hand_sizes),
        )

    def step(self, player: int | None = None) -> None:
        """One decision: the pending showdown's result, or an agent's action:
        the agent of ``player`` (who must be in ``game.waiting_for``) or, by
        default, of the player to act (in UNO Party!'s pointing, the first
        player still to point)."""
        game = self.game
        self._count_decision()
        pending = game.pending_showdown
        if pending is not None:
            if player is not None:
                raise StateError(
                    f"a showdown is pending, not player {player!r}'s decision: {game.notation()}"
                )
            self._showdown(pending)
        else:
            waiting = self._waiting()
            if not waiting:  # no showdown pending: the round is over
                raise StateError(f"round {game.round} is over: {game.notation()}")
            if player is None:
                player = waiting[0]
            elif player not in waiting:
                raise StateError(
                    f"player {player!r} has no decision to make now (waiting for "
                    f"{', '.join(map(str, waiting))}): {game.notation()}"
                )
            action = self.agents[player].act(game, player)
            self._check_legal(player, action, "chose")
            if self.party:
                self._apply_party(player, action)
            else:
                self._apply(player, action)
        if self.debug and self.decisions % self.check_every == 0:
            game.check_invariants()

    def _waiting(self) -> tuple[int, ...]:
        game = self.game
        if isinstance(game, PartyGame):
            return game.waiting_for
        return () if game.to_act is None else (game.to_act,)

    def _count_decision(self) -> None:
        game = self.game
        self.decisions += 1
        self._round_decisions += 1
        if self._round_decisions > self.max_decisions:
            raise StateError(
                f"round {game.round} has not ended after {self.max_decisions} "
                f"decisions (a runaway game?): {game.notation()}"
            )

    def _check_legal(self, player: int, action: object, verb: str) -> None:
        game = self.game
        if isinstance(game, PartyGame):
            legal_now = game.legal_actions(player)
        else:
            legal_now = game.legal_actions()
        if not isinstance(action, Action) or action not in legal_now:
            legal = " ".join(map(str, legal_now))
            raise IllegalActionError(
                f"{self.names[player]} (player {player}, {self.agents[player]!r}) {verb} "
                f"{str(action)!r}, which is not legal in {game.notation()!r} (legal: {legal})"
            )

    # -- UNO Party!: claims out of turn ---------------------------------------------------

    def claims(self) -> list[tuple[int, Action]]:
        """One claims round (UNO Party!): every agent with a ``react`` method but
        the one to act, that has out-of-turn actions, is asked on the same
        position; the claims are applied fastest first (see the module
        docstring). Returns the claims applied, in order; ``[]`` outside Party!,
        while everyone points, and once the round is over."""
        game = self.game
        if not isinstance(game, PartyGame) or game.round_over or game.phase is Phase.POINT:
            return []
        timed = []
        for player, agent in enumerate(self.agents):
            react = getattr(agent, "react", None)
            if player == game.to_act or react is None or not game.legal_actions(player):
                continue
            action = react(game, player)
            if action is None:
                continue
            self._check_legal(player, action, "claimed")
            reaction_ms = getattr(agent, "reaction_ms", None) or DEFAULT_REACTION_MS
            at = reaction_ms * self.rng.lognormvariate(0.0, CLAIM_JITTER)
            timed.append((at, self.rng.random(), player, action))
        timed.sort(key=lambda claim: claim[:2])
        return [(p, a) for _, _, p, a in timed if self.claim(p, a)]

    def claim(self, player: int, action: Action | str) -> bool:
        """Apply ``player``'s out-of-turn ``action`` (a speed play or a catch)
        now, if it is still legal: True. If it is not (an earlier claim took
        it, the window closed), it is dropped and reported as ``claim_lost``:
        False. ValueError for an action that is no claim; StateError outside
        UNO Party!."""
        game = self.game
        if not isinstance(game, PartyGame):
            raise StateError(f"claims out of turn are UNO Party!'s, not {game.variant.name}'s")
        if isinstance(action, str):
            action = Action.parse(action)
        if action.kind not in CLAIM_KINDS:
            raise ValueError(f"{str(action)!r} is not a claim (a speed play or a catch)")
        if not 0 <= player < game.players:
            raise ValueError(f"no player {player!r} in a {game.players}-player game")
        if game.round_over or not game.is_legal(action, player):
            self._emit("claim_lost", player=player, action=str(action))
            return False
        self._count_decision()
        self._apply_party(player, action)
        if self.debug and self.decisions % self.check_every == 0:
            game.check_invariants()
        return True

    def _settle_claims(self) -> None:
        """Claims rounds until nobody claims (each claim may open another)."""
        while self.claims():
            pass

    def _apply_party(self, player: int, action: Action) -> None:
        game = self.game
        assert isinstance(game, PartyGame)
        before = game.hand_sizes
        phase = game.phase
        top = game.top_card
        pile = game.pile
        offender = (player - game.direction) % game.players
        pointer = game.pointer
        choices: dict[int, int] = {}
        kind = action.kind
        if kind is ActionKind.POINT and game.waiting_for == (player,):
            state = PartyState.parse(game.notation(reveal=True).split(" ")[16], game.players)
            choices = {p: c for p, c in enumerate(state.pointing or ()) if isinstance(c, int)}
            choices[player] = int(action.player)  # type: ignore[arg-type]
        game.apply(action, player)
        after = game.hand_sizes
        grew = {p: after[p] - before[p] for p in range(game.players) if after[p] > before[p]}
        data: dict[str, Any] = {"player": player, "action": str(action)}
        if kind is ActionKind.PLAY and phase is Phase.PILE:
            self._emit(
                "pile_add",
                **data,
                card=str(action.card),
                uno=action.uno,
                cards_left=after[player],
                next=game.to_act,
            )
            return
        if kind is ActionKind.PLAY:
            self._apply_event(action, data, grew, offender)
            rank = action.card.rank if action.card is not None else None
            if rank is Rank.POINT_TAKEN and game.phase is Phase.POINT:
                self._emit("point_taken", player=player, waiting=list(game.waiting_for))
            elif rank is Rank.WILD_PILE_UP and game.phase is Phase.PILE:
                self._emit(
                    "pile_start",
                    player=player,
                    flipped=[str(c) for c in game.pile],
                    colour=_text(game.pile_colour),
                    next=game.to_act,
                )
            elif rank is Rank.WILD_DRAWN_TOGETHER and action.link is not None:
                self._emit("link", player=player, linked=list(action.link))
            return
        if kind is ActionKind.SPEED_PLAY:
            card = action.card
            self._emit(
                "speed",
                **data,
                card=str(card),
                top=str(top),
                right=card == top,
                uno=action.uno,
                cards_left=after[player],
                drew=grew.get(player, 0),
                draws=grew,
                next=game.to_act,
            )
            return
        if kind is ActionKind.POINT:
            self._emit("pointed", player=player)
            if game.phase is not Phase.POINT:  # the last choice: all revealed at once
                self._emit("pointing", player=pointer, choices=choices, draws=grew)
            return
        if kind is ActionKind.TAKE_PILE:
            self._emit("pile_take", **data, cards=[str(c) for c in pile], draws=grew)
            return
        self._apply_event(action, data, grew, offender, party=True)

    def _apply(self, player: int, action: Action) -> None:
        game = self.game
        before = game.hand_sizes
        offender = (player - game.direction) % game.players
        game.apply(action)
        after = game.hand_sizes
        grew = {p: after[p] - before[p] for p in range(game.players) if after[p] > before[p]}
        self._apply_event(action, {"player": player, "action": str(action)}, grew, offender)

    def _apply_event(
        self,
        action: Action,
        data: dict[str, Any],
        grew: dict[int, int],
        offender: int,
        party: bool = False,
    ) -> None:
        game = self.game
        player = data["player"]
        kind = action.kind
        word = _KIND_WORDS[kind]
        if kind is ActionKind.PLAY:
            data.update(
                card=str(action.card),
                colour=_text(game.colour),
                uno=action.uno,
                cards_left=game.hand_sizes[player],
                draws=grew,
            )
        elif kind is ActionKind.DRAW:
            data.update(cards=grew.get(player, 0), can_play=game.drawn_card is not None)
        elif kind is ActionKind.ACCEPT:
            data.update(cards=grew.get(player, 0))
        elif kind is ActionKind.CHALLENGE:
            # A good challenge leaves the challenger to play on.
            succeeded = not game.round_over and game.current == player
            drew = offender if succeeded else player
            data.update(offender=offender, succeeded=succeeded, drew=drew, cards=grew.get(drew, 0))
        elif kind is ActionKind.CATCH:
            caught = action.player
            data.update(caught=caught, cards=0 if caught is None else grew.get(caught, 0))
        elif kind is ActionKind.CHOOSE_COLOUR:
            data.update(colour=str(action.colour))
        elif kind is ActionKind.CHOOSE_SHOWDOWN:
            data.update(opponent=action.player, count=action.count)
        if party and kind in _PARTY_DRAWS:
            data.update(draws=grew)
        self._emit(word, **data)

    def _showdown(self, pending: PendingShowdown) -> None:
        game = self.game
        self.showdowns += 1
        request = ShowdownRequest(
            f"{self.match_id}:r{game.round}:s{self.showdowns}",
            pending.challenger,
            pending.opponent,
            self.names[pending.challenger],
            self.names[pending.opponent],
            len(pending.cards),
            bots={
                player: reaction_ms
                for player in (pending.challenger, pending.opponent)
                if (reaction_ms := getattr(self.agents[player], "reaction_ms", None)) is not None
            },
        )
        outcome = self.unit.run_showdown(request)
        try:
            outcome.check(request)
        except ValueError as exc:
            raise IllegalActionError(f"unit port {self.unit!r}: {exc}") from None
        game.apply(Action.showdown_result(outcome.loser))
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

    def _emit(self, kind: str, **data) -> None:
        event = MatchEvent(kind, self.game.round, data)
        self.events.append(event)
        if self.log is not None:
            self.log(event)


def play_match(
    game_or_players: Game | int | Sequence[str],
    agents: Sequence[Agent],
    unit_port: UnitPort,
    *,
    log: Callable[[MatchEvent], None] | None = None,
    names: Sequence[str] | None = None,
    variant: str = "showdown",
    seed: int | None = None,
    rng=None,
    target: int = 500,
    house_rules=None,
    debug: bool = False,
    check_every: int = 1,
    max_decisions: int = 200_000,
    match_id: str = "m1",
    claims_rng: random.Random | None = None,
) -> MatchResult:
    """Play a match to the end and return its result.

    ``game_or_players`` is a Game or PartyGame (played from where it stands),
    a number of players, or the players' names; for the last two a new game
    is dealt with ``variant``, ``seed`` or ``rng``, ``target`` and
    ``house_rules``. UNO Party!'s claims are ordered with ``claims_rng``; by
    default ``random.Random(seed)`` when a seed is given, else one seeded
    from ``rng`` after the deal, else Match's default.
    """
    if isinstance(game_or_players, (Game, PartyGame)):
        game = game_or_players
    else:
        if not isinstance(game_or_players, int):
            if names is not None:
                raise TypeError("give the names once: as game_or_players or as names")
            names = list(game_or_players)
            game_or_players = len(names)
        game = Game.new(
            game_or_players, variant, seed=seed, rng=rng, target=target, house_rules=house_rules
        )
        if claims_rng is None and isinstance(game, PartyGame):
            if seed is not None:
                claims_rng = random.Random(seed)
            elif rng is not None:
                claims_rng = random.Random(rng.getrandbits(64))
    return Match(
        game,
        agents,
        unit_port,
        names=names,
        log=log,
        debug=debug,
        check_every=check_every,
        max_decisions=max_decisions,
        match_id=match_id,
        rng=claims_rng,
    ).run()


def _text(value) -> str | None:
    return None if value is None else str(value)
