"""UNO, the first game family: classic, Showdown and UNO Party!.

Its rules (cards, actions, the games and their notation, variants and house
rules), its bots (engine.uno.bots), its narration and words (engine.uno.narration,
engine.uno.words) and its views for the browser table (engine.uno.views). Plain
values and rules, sans-IO: the rules import nothing of the project but
engine.game; ``FAMILY`` is what the registry (engine.game.registry) hands out.

>>> game = new_game(3, "party", seed=2)
>>> type(game).__name__, read_game(game.notation(reveal=True)).notation() == game.notation()
('PartyGame', True)
>>> FAMILY.parse_action("W=R")
Action.parse('W=R')
"""

import random
from typing import TYPE_CHECKING, Any

from engine.game.errors import (
    DeckError,
    EngineError,
    IllegalActionError,
    InvariantError,
    NotationError,
    StateError,
)
from engine.uno import taps
from engine.uno.actions import Action, ActionKind
from engine.uno.cards import CARD_COUNT, COLOURS, WILD_COLOUR, Card, Colour, Rank
from engine.uno.game import Game, Outcome, PendingShowdown, Phase
from engine.uno.narration import NARRATION
from engine.uno.notation import Position
from engine.uno.party import PartyGame
from engine.uno.party_rules import PartyRules, load_party_deck
from engine.uno.rules import (
    FIRST_CARD_RULES,
    HAND_SIZE,
    HouseRules,
    Variant,
    classic_deck,
    load_showdown_deck,
)

if TYPE_CHECKING:  # the bots load on first use: the rules alone stay light
    from engine.uno.bots import HeuristicBot, RandomBot
    from engine.uno.search_bot import SearchBot


def new_game(
    players: int,
    variant: str | Variant = "showdown",
    *,
    seed: int | None = None,
    rng: random.Random | None = None,
    target: int | None = None,
    house_rules: Any = None,
    dealer: int = 0,
) -> Game | PartyGame:
    """Deal the first round of an UNO match of any variant (``Game.new``'s arguments).
    ``house_rules`` is Any: HouseRules for classic and Showdown, PartyRules for
    Party!, and which one the variant decides at run time."""
    name = variant if isinstance(variant, str) else variant.name
    cls = PartyGame if name == "party" else Game
    return cls.new(
        players,
        variant,
        seed=seed,
        rng=rng,
        house_rules=house_rules,
        target=500 if target is None else target,
        dealer=dealer,
    )


def read_game(text: str, variant: Variant | None = None) -> Game | PartyGame:
    """The UNO game written as ``text``, of any variant (``Game.from_notation``)."""
    if isinstance(text, str) and text.startswith("party "):
        return PartyGame.from_notation(text, variant)
    return Game.from_notation(text, variant)


class UnoFamily:
    """UNO as a game family (engine.game.interface.Family)."""

    name = "uno"
    variants = ("classic", "showdown", "party")
    narration = NARRATION
    taps = taps  # a phone's tap at the browser table, in UNO's words
    #: "bot" the heuristic, "random" uniform over the legal actions, "strong" the search bot.
    bot_kinds = ("bot", "random", "strong")
    terminal = "engine.uno.terminal"  # its game at the terminal (showdown play)
    companion = "engine.apps.table.companion:CompanionRoom"  # its showdowns on the unit
    table = "engine.uno.table"  # its game at the browser table (engine.apps.table.setup)
    rl_codec = "engine.uno.rl_codec"  # its encoding for the environment (engine.rl)

    def make_bot(
        self, kind: str, name: str, rng: random.Random, *, reaction_ms: float | None = None
    ) -> "HeuristicBot | RandomBot | SearchBot":
        """UNO's bots: "bot" the heuristic (it draws nothing from ``rng``),
        "random" the random bot and "strong" the search bot
        (engine.uno.search_bot), each on a generator seeded from ``rng``.

        >>> FAMILY.make_bot("random", "r1", random.Random(1))
        RandomBot(name='r1')
        >>> FAMILY.make_bot("wise", "w", random.Random(1))
        Traceback (most recent call last):
        ...
        ValueError: no bot 'wise' in UNO (the bots: bot, random, strong)
        """
        from engine.uno.bots import HeuristicBot, RandomBot
        from engine.uno.search_bot import SearchBot

        options = {} if reaction_ms is None else {"reaction_ms": reaction_ms}
        if kind == "bot":
            return HeuristicBot(name, **options)
        if kind == "random":
            return RandomBot(random.Random(rng.getrandbits(64)), name, **options)
        if kind == "strong":
            bot_rng = random.Random(rng.getrandbits(64))
            if reaction_ms is None:
                return SearchBot(bot_rng, name)
            return SearchBot(bot_rng, name, reaction_ms=reaction_ms)
        raise ValueError(f"no bot {kind!r} in UNO (the bots: {', '.join(self.bot_kinds)})")

    def new(
        self,
        players: int,
        variant: str,
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        target: int | None = None,
        house_rules: Any = None,  # as new_game's
    ) -> Game | PartyGame:
        return new_game(
            players, variant, seed=seed, rng=rng, target=target, house_rules=house_rules
        )

    def from_notation(self, text: str) -> Game | PartyGame:
        return read_game(text)

    def parse_action(self, text: str) -> Action:
        return Action.parse(text)

    #: The playout policies ``playout`` takes (engine.uno.playout.POLICIES and,
    #: for UNO Party!, engine.uno.party_playout.POLICIES: the same three).
    playout_policies = ("random", "prefer-play", "heuristic")

    def playout(self, game: Any, policy: str, rng: random.Random, *, to: str = "round") -> Any:
        """Play ``game`` (unchanged) to the end of the round or the match with a
        named policy: classic and Showdown by engine.uno.playout.play_out, UNO
        Party! (a PartyGame) by engine.uno.party_playout.play_out."""
        if to not in ("round", "match"):
            raise ValueError(f"play out to 'round' or 'match', not {to!r}")
        if isinstance(game, PartyGame):
            from engine.uno import party_playout as playout
        else:
            from engine.uno import playout  # type: ignore[no-redef]
        return playout.play_out(game, policy, rng, to="match" if to == "match" else "round")

    def __repr__(self) -> str:
        return "UnoFamily()"


FAMILY = UnoFamily()

__all__ = [
    "FAMILY",
    "UnoFamily",
    "new_game",
    "read_game",
    "Action",
    "ActionKind",
    "Card",
    "Colour",
    "Rank",
    "COLOURS",
    "WILD_COLOUR",
    "CARD_COUNT",
    "EngineError",
    "IllegalActionError",
    "NotationError",
    "DeckError",
    "StateError",
    "InvariantError",
    "Game",
    "Outcome",
    "PendingShowdown",
    "Phase",
    "HAND_SIZE",
    "Position",
    "HouseRules",
    "Variant",
    "FIRST_CARD_RULES",
    "classic_deck",
    "load_showdown_deck",
    "PartyGame",
    "PartyRules",
    "load_party_deck",
]
