"""The driver: plays a whole match, asking agents for decisions and a unit port for showdowns.

It is the only loop in the engine, and it is plain: while the round runs, a
pending showdown goes to the unit port and its loser back to the game; any
other decision goes to the agent of ``game.to_act``. Between rounds it deals
the next one, until a player reaches the target score. Everything worth
telling is reported as a ``MatchEvent`` to the ``log`` callback (and kept in
``Match.events``), so a terminal game, a demo and a test read the same record.

>>> import random
>>> from engine.players.bots import HeuristicBot, RandomBot
>>> from engine.units.ports import SimulatedUnit
>>> result = play_match(3, [HeuristicBot(), RandomBot(random.Random(1)), HeuristicBot()],
...                     SimulatedUnit(random.Random(1)), seed=4, target=100)
>>> result.winner is not None and max(result.scores) >= 100
True
>>> [e.kind for e in result.events][:2], result.events[-1].kind
(['match_start', 'round_start'], 'match_end')

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
=============  ==========================================================================

Cards and colours are given as text (``"R5"``, ``"G"``); players as indices.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from engine.core.actions import Action, ActionKind
from engine.core.errors import IllegalActionError, StateError
from engine.core.game import Game, PendingShowdown
from engine.players.bots import Agent
from engine.units.ports import ShowdownRequest, UnitPort
from firmware_host.protocol.words import ms, plural, reruns_text, versus

__all__ = ["Match", "MatchEvent", "MatchResult", "play_match", "describe", "EVENT_KINDS"]

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
    raises StateError.
    """

    def __init__(
        self,
        game: Game,
        agents: Sequence[Agent],
        unit: UnitPort,
        *,
        names: Sequence[str] | None = None,
        log: Callable[[MatchEvent], None] | None = None,
        debug: bool = False,
        check_every: int = 1,
        max_decisions: int = 200_000,
        match_id: str = "m1",
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
        while not game.round_over:
            self.step()
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

    def step(self) -> None:
        """One decision: the pending showdown's result, or the next agent's action."""
        game = self.game
        self.decisions += 1
        self._round_decisions += 1
        if self._round_decisions > self.max_decisions:
            raise StateError(
                f"round {game.round} has not ended after {self.max_decisions} "
                f"decisions (a runaway game?): {game.notation()}"
            )
        pending = game.pending_showdown
        if pending is not None:
            self._showdown(pending)
        else:
            player = game.to_act
            if player is None:  # no showdown pending: the round is over
                raise StateError(f"round {game.round} is over: {game.notation()}")
            action = self.agents[player].act(game, player)
            if not game.is_legal(action):
                legal = " ".join(map(str, game.legal_actions()))
                raise IllegalActionError(
                    f"{self.names[player]} (player {player}, {self.agents[player]!r}) chose "
                    f"{str(action)!r}, which is not legal in {game.notation()!r} (legal: {legal})"
                )
            self._apply(player, action)
        if self.debug and self.decisions % self.check_every == 0:
            game.check_invariants()

    def _apply(self, player: int, action: Action) -> None:
        game = self.game
        before = game.hand_sizes
        offender = (player - game.direction) % game.players
        game.apply(action)
        after = game.hand_sizes
        grew = {p: after[p] - before[p] for p in range(game.players) if after[p] > before[p]}
        kind = action.kind
        word = _KIND_WORDS[kind]
        data = {"player": player, "action": str(action)}
        if kind is ActionKind.PLAY:
            data.update(
                card=str(action.card),
                colour=_text(game.colour),
                uno=action.uno,
                cards_left=after[player],
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
) -> MatchResult:
    """Play a match to the end and return its result.

    ``game_or_players`` is a Game (played from where it stands), a number of
    players, or the players' names; for the last two a new game is dealt with
    ``variant``, ``seed`` or ``rng``, ``target`` and ``house_rules``.
    """
    if isinstance(game_or_players, Game):
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
    ).run()


def _text(value) -> str | None:
    return None if value is None else str(value)


_COLOUR_NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}


def describe(event: MatchEvent, names: Sequence[str]) -> str:
    """One readable line for ``event`` (player indices shown as ``names``).

    >>> describe(MatchEvent("catch", 1, {"player": 2, "action": "catch 0", "caught": 0,
    ...                                  "cards": 2}), ["Ann", "Bob", "Cy"])
    'Cy catches Ann, who did not call UNO: Ann draws 2.'
    """
    d = event.data
    who = names[d["player"]] if "player" in d else ""
    kind = event.kind
    if kind == "match_start":
        return (
            f"Match: {', '.join(d['players'])}; {d['variant']} to {d['target']} points"
            + ("" if d["house_rules"] == "-" else f"; house rules {d['house_rules']}")
            + "."
        )
    if kind == "round_start":
        colour = "" if d["colour"] is None else f" ({_COLOUR_NAMES[d['colour']]})"
        return (
            f"Round {event.round}: {names[d['dealer']]} deals; {d['top']}{colour} turned up; "
            f"{names[d['first']]} goes first."
        )
    if kind == "play":
        text = f"{who} plays {d['card']}"
        if d["card"].startswith("W") and d["colour"] is not None:
            text += f", naming {_COLOUR_NAMES[d['colour']]}"
        if d["uno"]:
            text += " and calls UNO!"
        # The count is the player's own, so it comes before what the others draw.
        if d["cards_left"] == 0:
            text += ", going out"
        elif d["cards_left"] <= 2:
            text += f" ({d['cards_left']} left)"
        for p, n in d["draws"].items():
            text += f"; {names[p]} draws {n}"
        return text + "."
    if kind == "draw":
        if d["cards"] == 1:
            return f"{who} draws a card."
        return f"{who} draws {plural(d['cards'], 'card')}."
    if kind == "keep":
        return f"{who} keeps the card."
    if kind == "accept":
        return f"{who} draws {plural(d['cards'], 'card')}."
    if kind == "challenge":
        if d["succeeded"]:
            return (
                f"{who} challenges the Wild Draw Four: {names[d['offender']]} held a card "
                f"of the colour and draws {d['cards']}."
            )
        return (
            f"{who} challenges the Wild Draw Four: it was legal; {who} draws "
            f"{plural(d['cards'], 'card')}."
        )
    if kind == "catch":
        caught = names[d["caught"]]
        return f"{who} catches {caught}, who did not call UNO: {caught} draws {d['cards']}."
    if kind == "colour":
        return f"{who} names {_COLOUR_NAMES[d['colour']]}."
    if kind == "face":
        return f"{who} faces {names[d['opponent']]} in a showdown for {plural(d['count'], 'card')}."
    if kind == "showdown":
        challenger, opponent = d["names"]
        winner, loser = names[d["winner"]], names[d["loser"]]
        how = f"false start by {loser}" if d["reason"] == "false_start" else f"{winner} wins"
        if d["margin_us"] is not None:
            how += f" by {ms(d['margin_us'])}"
        rerun = f" after {reruns_text(d['tie_reruns'])}" if d["tie_reruns"] else ""
        return (
            f"Showdown ({d['cause']}): {versus(challenger, opponent)} for "
            f"{plural(d['cards'], 'card')}: {how}{rerun}; {loser} takes the cards."
        )
    if kind == "round_end":
        scores = ", ".join(f"{n} {s}" for n, s in zip(names, d["scores"], strict=True))
        return (
            f"Round {event.round} won by {names[d['winner']]} for {d['points']} points. "
            f"Scores: {scores}."
        )
    if kind == "match_end":
        return (
            f"{names[d['winner']]} wins the match with {d['scores'][d['winner']]} points "
            f"after {plural(d['rounds'], 'round')}."
        )
    return f"{kind}: {d}"
