"""10 Point Pitch, the second game family: four players in two partnerships, to 52.

Its rules (cards, actions, house rules, the game and its notation), its views
(what a seat may know: engine.pitch.view), its narration and words, and its
taps at the browser table. Plain values and rules, sans-IO: it imports nothing
of the project but engine.game (and the people's words). ``FAMILY`` is what the
registry (engine.game.registry) hands out.

>>> game = new_game(4, seed=3)
>>> read_game(game.notation(reveal=True)).notation() == game.notation()
True
>>> FAMILY.parse_action("bid moon"), game.teams
(Action.parse('bid moon'), ((0, 2), (1, 3)))
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from engine.game.agents import RandomBot
from engine.game.errors import IllegalActionError, NotationError, StateError
from engine.pitch import taps
from engine.pitch.actions import BIDS, MIN_BID, MOON, PLAIN_TEN, Action, Kind, bid_rank
from engine.pitch.cards import (
    CARD_COUNT,
    DECK,
    POINTS_IN_HAND,
    SUITS,
    is_trump,
    off_jack,
    parse_card,
    point_value,
    suit_of,
    trump_order,
    trump_rank,
)
from engine.pitch.game import HAND_SIZE, HandOutcome, Phase, PitchGame, Trick
from engine.pitch.narration import NARRATION
from engine.pitch.rules import DEFAULT_RULES, PitchRules
from engine.pitch.view import SeatView

__all__ = [
    "FAMILY",
    "PitchFamily",
    "new_game",
    "read_game",
    "PitchGame",
    "Phase",
    "Trick",
    "HandOutcome",
    "SeatView",
    "PitchRules",
    "DEFAULT_RULES",
    "Action",
    "Kind",
    "MOON",
    "PLAIN_TEN",
    "MIN_BID",
    "BIDS",
    "bid_rank",
    "HAND_SIZE",
    "SUITS",
    "DECK",
    "CARD_COUNT",
    "POINTS_IN_HAND",
    "parse_card",
    "suit_of",
    "off_jack",
    "is_trump",
    "trump_order",
    "trump_rank",
    "point_value",
    "IllegalActionError",
    "NotationError",
    "StateError",
]


def new_game(
    players: int = 4,
    variant: str = "pitch",
    *,
    seed: int | None = None,
    rng: random.Random | None = None,
    target: int | None = None,
    house_rules: PitchRules | str | None = None,
    dealer: int | None = None,
) -> PitchGame:
    """Deal the first hand of a Pitch match (PitchGame.new; ``target`` None: 52)."""
    return PitchGame.new(
        players,
        variant,
        seed=seed,
        rng=rng,
        target=52 if target is None else target,
        house_rules=house_rules,
        dealer=dealer,
    )


def read_game(text: str) -> PitchGame:
    """The game a revealed notation line writes (PitchGame.from_notation)."""
    return PitchGame.from_notation(text)


class PitchFamily:
    """10 Point Pitch as a game family (engine.game.interface.Family)."""

    name = "pitch"
    variants = ("pitch",)
    narration = NARRATION
    taps = taps  # a phone's tap at the browser table, in Pitch's words
    #: "bot" the heuristic, "random" uniform over the legal actions, "strong" the search bot.
    bot_kinds = ("bot", "random", "strong")
    terminal = "engine.pitch.terminal"  # its game at the terminal (showdown play)
    table = "engine.pitch.table"  # its game at the browser table (engine.apps.table.setup)
    companion = "engine.apps.table.companion_pitch:PitchCompanionRoom"  # the scorekeeper
    rl_codec = "engine.pitch.rl_codec"  # its encoding for the environment (engine.rl)

    def make_bot(
        self, kind: str, name: str, rng: random.Random, *, reaction_ms: float | None = None
    ) -> Any:  # an engine.game.agents.Agent
        """Pitch's bots (engine.pitch.bots.make_bot, imported when first asked for).

        >>> FAMILY.make_bot("wise", "w", random.Random(1))
        Traceback (most recent call last):
        ...
        ValueError: no bot 'wise' in 10 Point Pitch (the bots: bot, random, strong)
        """
        if kind not in self.bot_kinds:
            kinds = ", ".join(self.bot_kinds)
            raise ValueError(f"no bot {kind!r} in 10 Point Pitch (the bots: {kinds})")
        try:
            bots = importlib.import_module("engine.pitch.bots")
        except ModuleNotFoundError as exc:  # the bots are not written yet: the random one plays
            if exc.name != "engine.pitch.bots":
                raise
            options = {} if reaction_ms is None else {"reaction_ms": reaction_ms}
            return RandomBot(random.Random(rng.getrandbits(64)), name, **options)
        return bots.make_bot(kind, name, rng, reaction_ms=reaction_ms)

    def new(
        self,
        players: int,
        variant: str,
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        target: int | None = None,
        house_rules: Any = None,  # PitchRules, its text, or None
    ) -> PitchGame:
        return new_game(
            players, variant, seed=seed, rng=rng, target=target, house_rules=house_rules
        )

    def from_notation(self, text: str) -> PitchGame:
        return read_game(text)

    def parse_action(self, text: str) -> Action:
        return Action.parse(text)

    #: The playout policies ``playout`` takes (engine.pitch.playout.POLICIES).
    playout_policies = ("random", "heuristic")

    def playout(self, game: Any, policy: str, rng: random.Random, *, to: str = "round") -> Any:
        """Play ``game`` (unchanged) to the end of the hand ("round", as the
        other families say, or "hand") or the match with a named policy
        (engine.pitch.playout.play_out, imported when first asked for)."""
        from engine.pitch.playout import play_out

        if to not in ("round", "hand", "match"):
            raise ValueError(f"play out to 'round', 'hand' or 'match', not {to!r}")
        return play_out(game, policy, rng, to="match" if to == "match" else "hand")

    def __repr__(self) -> str:
        return "PitchFamily()"


FAMILY = PitchFamily()
