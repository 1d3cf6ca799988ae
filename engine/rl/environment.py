"""A PettingZoo AEC environment over any game of the registry, one round an episode.

``CardGameEnv("classic", players=2)`` deals a match of that variant on each
``reset`` and plays its first round. Each agent (``player_0`` ...) observes a
dict: ``observation``, a fixed-size ``uint8`` vector of what that player may
see (the family's codec writes it), and ``action_mask``, an ``int8`` vector
over the variant's fixed action space (ones where the action is legal now, all
zeros when the agent is not the one to decide). Actions are numbers; a game
with claims out of turn has one more, ``pass`` (the last number), the answer
that declines a claim window (engine.rl.turns).

- Rewards: at the round's end, each player's (the codec's: UNO +1 for the
  winner and -1 for the others, Pitch each team's points of the hand); 0
  before. Terminations: every agent at the round's end.
- Truncation: every agent after ``max_steps`` decisions (passes count),
  ``DEFAULT_MAX_STEPS`` unless given: a random UNO round takes some 600
  decisions in classic and some 17,000 in Showdown.
- Showdowns are settled inside the environment by a simulated unit drawn from
  the reset's seed (engine.rl.turns). The same seed plays the same episode.
"""

from __future__ import annotations

import importlib
import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from engine.game.errors import IllegalActionError
from engine.game.interface import GameState
from engine.game.registry import family_playing
from engine.rl.codec import Codec, MaskMaker, make_mask
from engine.rl.turns import Turns

__all__ = ["CardGameEnv", "DEFAULT_MAX_STEPS", "make_codec"]

#: The default step limit (decisions per episode, passes included).
DEFAULT_MAX_STEPS = 2000


def make_codec(variant: str, players: int, house_rules: Any = None) -> Codec:
    """The codec of ``variant`` for ``players``, from its family's ``rl_codec`` module."""
    module = importlib.import_module(family_playing(variant).rl_codec)
    codec: Codec = module.make_codec(variant, players, house_rules)
    return codec


class _StepSlots:
    """What a step reads, in slots: an instance dict of more than 30 attributes
    no longer shares its keys (CPython 3.11), and every attribute read gets
    slower. The rest (PettingZoo's dictionaries, the spaces) stays in the
    environment's dict. (A base of its own: mypy takes the environment's own
    ``__slots__`` for all its attributes.)"""

    __slots__ = (
        "agent_selection",
        "possible_agents",
        "infos",
        "game",
        "turns",
        "codec",
        "steps",
        "max_steps",
        "_over",
        "_player",
        "_seat",
        "_one_actor",
        "_actions",
        "_views",
        "_scratch",
        "_scratch_view",
        "_make_mask",
    )


class CardGameEnv(AECEnv[str, dict[str, np.ndarray], int], _StepSlots):
    """One variant's rounds as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "uno_showdown_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    #: Made anew by a copy (see ``__getstate__``).
    _REMADE = ("_views", "_scratch_view", "_make_mask")

    def __init__(
        self,
        variant: str,
        players: int,
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        house_rules: Any = None,
        render_mode: str | None = None,
    ):
        super().__init__()
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, not {max_steps}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.variant, self.players, self.max_steps = variant, players, max_steps
        self.house_rules, self.render_mode = house_rules, render_mode
        self._family = family_playing(variant)
        self.codec = make_codec(variant, players, house_rules)
        probe = self._family.new(players, variant, seed=0, house_rules=house_rules)
        count = len(self.codec.actions[0])
        #: The number of ``pass``, or None when the game has no claims out of turn.
        self.pass_action: int | None = count if type(probe).out_of_turn else None
        self.action_count = count + (self.pass_action is not None)
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._seat = {name: p for p, name in enumerate(self.possible_agents)}
        high = np.frombuffer(self.codec.observation_high, dtype=np.uint8)
        observation = spaces.Box(0, high, dtype=np.uint8)
        mask = spaces.Box(0, 1, (self.action_count,), dtype=np.int8)
        self._observation_space = spaces.Dict({"observation": observation, "action_mask": mask})
        self._action_space = spaces.Discrete(self.action_count)
        #: A numpy view of each player's kept observation (the codec's buffer,
        #: the same for a player every time: Codec.update), made at the first.
        self._views: list[np.ndarray | None] = [None] * players
        # A mask is made in this buffer (all zeros between two masks) and copied:
        # a copy costs less than numpy's read-only flag or a lookup of a mask kept.
        self._scratch = bytearray(self.action_count)
        self._scratch_view = np.frombuffer(self._scratch, dtype=np.int8)
        self._make_mask: MaskMaker = getattr(self.codec, "make_mask", make_mask)
        self._rng = random.Random()
        self.game: GameState = probe
        self.turns = Turns(probe, random.Random(0))
        #: Whether the actor after a decision is the game's ``to_act`` (Codec.one_actor).
        self._one_actor = self.codec.one_actor
        self._actions = self.codec.actions
        self.steps = 0
        self._over = False
        #: The seat of ``agent_selection`` while the episode is on (set with it).
        self._player = 0

    # numpy views of bytearrays are copied (deepcopy, pickle) as arrays of their
    # own, no longer seeing their buffers: a copy makes its views anew (and
    # takes the codec's make_mask again: a compiled function is not pickled).
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in _StepSlots.__slots__:
            if name not in self._REMADE and hasattr(self, name):
                state[name] = getattr(self, name)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._views = [None] * self.players
        self._scratch_view = np.frombuffer(self._scratch, dtype=np.int8)
        self._make_mask = getattr(self.codec, "make_mask", make_mask)

    # -- the spaces --------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    # -- an episode ---------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new match (its seed drawn from ``seed``'s generator) and start its
        first round; or, with ``options={"notation": text}``, start from the
        position a revealed notation line writes (of this variant and players)."""
        if seed is not None:
            self._rng = random.Random(seed)
        rng = self._rng
        seed = rng.getrandbits(32)
        text = (options or {}).get("notation")
        if text is None:
            game = self._family.new(
                self.players, self.variant, seed=seed, house_rules=self.house_rules
            )
        else:
            game = self._family.from_notation(text)
            if game.players != self.players:
                raise ValueError(f"not a {self.players}-player position: {text!r}")
        self.game = game
        self.codec.start_round(self.game)
        self.turns = Turns(self.game, rng.getrandbits(64))  # the showdowns' seed
        self.steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {name: {} for name in self.agents}
        self._over = False  # terminated or truncated
        actor = self.turns.actor
        if actor is not None:
            self.agent_selection = self.possible_agents[actor]
            self._player = actor

    def step(self, action: int | None) -> None:
        if self._over:  # every agent is done: each steps None to leave
            self._was_dead_step(action)
            return
        # The agent's cumulative reward is 0 here (PettingZoo sets it to 0 on
        # its step): rewards come at the round's end, when every agent is done.
        player = self._player
        game, turns = self.game, self.turns
        if self._one_actor:  # no claims: the game's actor is the next one
            move = self._move(player, action)
            # The player is the game's own actor (to_act): not named, not checked.
            game.apply(move)
            actor = game.to_act  # type: ignore[attr-defined]
            if actor is None:  # a showdown to settle, or the round over
                actor = turns.decided(player)
        elif action == self.pass_action and action is not None:
            actor = turns.passed()
        else:
            move = self._move(player, action)
            if turns.window:
                game.check_claim(move)
            game.apply(move, player)
            actor = turns.decided(player)
        steps = self.steps = self.steps + 1
        if actor is not None and steps < self.max_steps:  # the game goes on
            self.agent_selection = self.possible_agents[actor]
            self._player = actor
            return
        if game.round_over:
            for name, reward in zip(self.agents, self.codec.rewards(game), strict=True):
                self.rewards[name] = reward
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            self._over = True
        elif self.steps >= self.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)
            self._over = True

    def _move(self, player: int, action: int | None) -> Any:
        """The game's move for ``player``'s action number, or the refusal."""
        try:
            if action < 0:  # type: ignore[operator]
                raise IndexError(action)
            return self._actions[player][action]  # type: ignore[index]
        except (IndexError, TypeError):
            raise self._no_action(action) from None

    def _no_action(self, action: object) -> IllegalActionError:
        return IllegalActionError(
            f"no action {action!r} for {self.agent_selection} (0 to {self.action_count - 1})"
        )

    # -- what an agent sees -------------------------------------------------------------

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The observation of the agent to decide, its cumulative reward, whether it
        is terminated or truncated, its info (PettingZoo's ``last``).

        The agent's observation and mask are made here rather than by a call
        to ``observe`` (the same arrays): the environment's hot path, once a step.
        """
        agent = self.agent_selection
        if not observe or self._over:
            return (
                self.observe(agent) if observe else None,
                self._cumulative_rewards[agent],
                self.terminations[agent],
                self.truncations[agent],
                self.infos[agent],
            )
        player = self._player
        game, codec = self.game, self.codec
        kept = codec.update(game, player)
        view = self._views[player]
        if view is None:  # the first time: a numpy view of the codec's buffer (always the same)
            view = self._views[player] = self._view(kept)
        observation = view.copy()
        if self._one_actor:  # the player is the game's actor (to_act): not named
            legal = game.legal_actions()
            claiming = False
        else:
            legal = game.legal_actions(player)
            claiming = bool(self.turns.window)
        scratch = self._scratch
        if claiming:  # a claim window's pass
            scratch[-1] = 1
        try:
            mask = self._make_mask(legal, codec.index[player], scratch, self._scratch_view)
        except KeyError as exc:
            scratch[:] = bytes(len(scratch))
            raise KeyError(
                f"{exc.args[0]} has no number in {self.variant}'s action space "
                f"for {self.players} players: {self.game.notation()}"
            ) from None
        if claiming:
            scratch[-1] = 0
        # While the episode is on, every agent's cumulative reward is 0 and none
        # is terminated or truncated (what the dictionaries hold): no lookups.
        return (
            {"observation": observation, "action_mask": mask},
            0.0,
            False,
            False,
            self.infos[agent],
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` sees now, and its action mask (all zeros unless it is to decide).

        Both are new arrays each time (the observation kept by the codec is copied).
        """
        if agent == self.agent_selection and not self._over:  # the one to decide
            observation: dict[str, np.ndarray] = self.last()[0]
            return observation
        player = self._seat[agent]
        kept = self.codec.update(self.game, player)
        view = self._views[player]
        if view is None:
            view = self._views[player] = self._view(kept)
        return {"observation": view.copy(), "action_mask": self._scratch_view.copy()}

    def _view(self, kept: bytearray) -> np.ndarray:
        """A numpy view of a player's observation kept by the codec (its buffer's start)."""
        return np.frombuffer(kept, dtype=np.uint8, count=self.codec.observation_size)

    def action_meaning(self, action: int, agent: str | None = None) -> str:
        """The text of action number ``action`` for ``agent`` (the one to decide by default).

        >>> env = CardGameEnv("classic", players=2); env.reset(seed=1)
        >>> mask = env.last()[0]["action_mask"]
        >>> env.agent_selection, [env.action_meaning(i) for i in mask.nonzero()[0]]
        ('player_1', ['G0', 'draw'])
        >>> env.action_meaning(env.action_count - 1)  # numbered from player_1's seat
        'catch 0'
        """
        player = self._seat[agent or self.agent_selection]
        if action == self.pass_action:
            return "pass"
        return str(self.codec.actions[player][action])

    def render(self) -> str | None:
        """The game's notation (engine.game.interface's one line), in ``ansi`` mode."""
        if self.render_mode is None:
            return None
        return self.game.notation()

    def close(self) -> None:
        """Nothing to release: safe to call twice."""
