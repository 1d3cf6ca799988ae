"""The blocking driver: a short loop over the fed match, with agents and a unit port.

While the round runs, a pending showdown goes to the unit port and its outcome
back to the match; any other decision goes to the agent of the first player
the match waits for. A game with claims out of turn (UNO Party!) holds claims
rounds at the start of a round and after each decision, until nobody claims:
every agent but the one to act that may claim and has a ``react(game, player)``
method is asked, on the same position, for a claim (or None); the match orders
them by the agents' ``reaction_ms`` (DEFAULT_REACTION_MS for an agent without
one; engine.match.match.Match.claim_round). Between rounds it deals the next
one, until the match is won. Every event is the match's (``Match.events``, and
the ``log`` callback), so a terminal game, a demo and a test read one record.

>>> import random
>>> from engine.uno.bots import HeuristicBot, RandomBot
>>> from engine.units.ports import SimulatedUnit
>>> result = play_match(3, [HeuristicBot(), RandomBot(random.Random(1)), HeuristicBot()],
...                     SimulatedUnit(random.Random(1)), seed=4, target=100)
>>> result.winner is not None and max(result.scores) >= 100
True
>>> [e.kind for e in result.events][:2], result.events[-1].kind
(['match_start', 'round_start'], 'match_end')
>>> party = play_match(8, [HeuristicBot()] + [RandomBot(random.Random(i)) for i in range(7)],
...                    SimulatedUnit(random.Random(1)), variant="party", seed=2, target=100)
>>> party.winner is not None and party.showdowns == 0
True

A game without showdowns needs no unit; Pitch's winner is a team's first seat:

>>> pitch = play_match(4, [RandomBot(random.Random(i)) for i in range(4)], None,
...                    variant="pitch", seed=1)
>>> pitch.winner in (0, 1), pitch.events[-1].kind
(True, 'match_end')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from engine.game.agents import DEFAULT_REACTION_MS, Agent, tell_showdown
from engine.game.errors import IllegalActionError, StateError
from engine.game.interface import GameState
from engine.game.registry import family_playing
from engine.match.events import MatchEvent, MatchResult
from engine.match.match import Claim, Decide, Match, NextRound, Over, Showdown
from engine.units.ports import UnitPort

__all__ = ["Driver", "play_match"]


class Driver:
    """Plays a match with ``agents`` (``agents[i]`` decides for player i) and a
    ``unit`` port for the showdowns (None for a game that has none, as Pitch):
    ``run()`` to the end, ``play_round()``,
    ``step()`` one decision, ``claims()`` one claims round.

    ``names`` default to each agent's ``name`` plus its seat. An agent with a
    ``reaction_ms`` (a bot) is a bot at the unit too: the showdown request
    gives it, so a unit that can press a bot's paddle does so with that skill;
    agents without one (people) press their own. The other arguments are the
    match's (engine.match.match.Match).
    """

    def __init__(
        self,
        game: GameState,
        agents: Sequence[Agent],
        unit: UnitPort | None,
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
        self.agents = list(agents)
        self.unit = unit
        bots = {i: getattr(agent, "reaction_ms", None) for i, agent in enumerate(agents)}
        self.match = Match(
            game,
            names=names,
            bots={i: ms for i, ms in bots.items() if ms is not None},
            log=log,
            debug=debug,
            check_every=check_every,
            max_decisions=max_decisions,
            match_id=match_id,
            rng=rng,
        )
        self._quiet_at = -1  # the decision count at which a claims round found nothing

    game = property(lambda self: self.match.game)
    names = property(lambda self: self.match.names)
    events = property(lambda self: self.match.events)
    decisions = property(lambda self: self.match.decisions)
    showdowns = property(lambda self: self.match.showdowns)

    def run(self) -> MatchResult:
        """Play every remaining round; return the result once the match is won."""
        self.match.begin()
        while True:
            need = self.match.needs()
            if isinstance(need, Over):
                return need.result
            if isinstance(need, NextRound):
                self.match.next_round()
            self.play_round()

    def play_round(self) -> None:
        """Play the current round to its end."""
        self.match.begin()
        self._settle_claims()
        while not self.game.round_over:
            self.step()
            self._settle_claims()

    def step(self, player: int | None = None) -> None:
        """One decision: the pending showdown's result, or an agent's action:
        the agent of ``player`` (who must be among those the match waits for)
        or, by default, of the first of them."""
        need = self.match.needs()
        if isinstance(need, Showdown):
            if player is not None:
                raise StateError(
                    f"a showdown is pending, not player {player!r}'s decision: "
                    f"{self.game.notation()}"
                )
            if self.unit is None:
                raise StateError(
                    f"a showdown is pending and the driver has no unit port: {self.game.notation()}"
                )
            outcome = self.unit.run_showdown(need.request)
            self.match.settle(outcome, by=f"unit port {self.unit!r}")
            tell_showdown(self.agents, outcome.reaction_us)
            return
        if not isinstance(need, Decide) or not need.players:
            raise StateError(f"round {self.game.round} is over: {self.game.notation()}")
        if player is None:
            player = need.players[0]
        elif player not in need.players:
            raise StateError(
                f"player {player!r} has no decision to make now (waiting for "
                f"{', '.join(map(str, need.players))}): {self.game.notation()}"
            )
        agent = self.agents[player]
        action = agent.act(self.game, player)
        self.match.act(player, action, who=self._who(player))

    # An action is Any: the family's own value (engine.game.interface).
    def claims(self) -> list[tuple[int, Any]]:
        """One claims round: returns the claims applied, in order; ``[]`` when
        nobody may claim."""
        need = self.match.needs()
        if not isinstance(need, Decide) or not need.claimants:
            return []
        game = self.game
        made = []
        for player in need.claimants:
            react = getattr(self.agents[player], "react", None)
            if react is None:
                continue
            action = react(game, player)
            if action is None:
                continue
            if not game.is_legal(action, player):
                legal = " ".join(map(str, game.legal_actions(player)))
                raise IllegalActionError(
                    f"{self._who(player)} claimed {str(action)!r}, which is not legal in "
                    f"{game.notation()!r} (legal: {legal})"
                )
            ms = getattr(self.agents[player], "reaction_ms", None) or DEFAULT_REACTION_MS
            made.append(Claim(player, action, ms))
        return [(c.player, c.action) for c in self.match.claim_round(made)]

    def claim(self, player: int, action: Any) -> bool:
        """Apply ``player``'s claim out of turn now (Match.claim)."""
        if isinstance(action, str):
            action = self._parse(action)
        return self.match.claim(player, action)

    def _settle_claims(self) -> None:
        """Claims rounds until nobody claims (each claim may open another)."""
        while self.claims():
            pass

    def _who(self, player: int) -> str:
        return f"{self.names[player]} (player {player}, {self.agents[player]!r})"

    def _parse(self, text: str) -> Any:
        return self.match.family.parse_action(text)


def play_match(
    game_or_players: GameState | int | Sequence[str],
    agents: Sequence[Agent],
    unit_port: UnitPort | None,
    *,
    log: Callable[[MatchEvent], None] | None = None,
    names: Sequence[str] | None = None,
    variant: str = "showdown",
    seed: int | None = None,
    rng: random.Random | None = None,
    target: int | None = None,
    house_rules: Any = None,  # the family's own (engine.game.interface)
    debug: bool = False,
    check_every: int = 1,
    max_decisions: int = 200_000,
    match_id: str = "m1",
    claims_rng: random.Random | None = None,
) -> MatchResult:
    """Play a match to the end and return its result.

    ``game_or_players`` is a game (played from where it stands), a number of
    players, or the players' names; for the last two a new game is dealt by
    the family that plays ``variant``, with ``seed`` or ``rng``, ``target`` (None:
    the family's own, 500 for UNO, 52 for Pitch) and ``house_rules``.
    ``unit_port`` may be None for a game without showdowns. Claims out of turn
    are ordered with ``claims_rng``; by default ``random.Random(seed)`` when a
    seed is given, else one seeded from ``rng`` after the deal, else Match's
    default.
    """
    if isinstance(game_or_players, GameState):
        game = game_or_players
    else:
        if not isinstance(game_or_players, int):
            if names is not None:
                raise TypeError("give the names once: as game_or_players or as names")
            names = list(game_or_players)
            game_or_players = len(names)
        game = family_playing(variant).new(
            game_or_players, variant, seed=seed, rng=rng, target=target, house_rules=house_rules
        )
        if claims_rng is None and game.out_of_turn:
            if seed is not None:
                claims_rng = random.Random(seed)
            elif rng is not None:
                claims_rng = random.Random(rng.getrandbits(64))
    return Driver(
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
