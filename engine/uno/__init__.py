"""The rules core: cards, actions, the game and its notation, variants and house rules.

Plain values and rules, sans-IO: it imports nothing else of the project.
"""

from engine.game.errors import (
    AuthFailed,
    CommandRefused,
    DeckError,
    EngineError,
    IllegalActionError,
    InvariantError,
    LinkLost,
    NotationError,
    ProtocolViolation,
    StateError,
    UnitBusy,
    UnitFault,
    UnitFlooding,
    UnitJam,
    UnitProblem,
    UnitUnreachable,
    UnitVersionError,
    VersionMismatch,
)
from engine.uno.actions import Action, ActionKind
from engine.uno.cards import CARD_COUNT, COLOURS, WILD_COLOUR, Card, Colour, Rank
from engine.uno.game import Game, Outcome, PendingShowdown, Phase
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

__all__ = [
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
    # raised by the unit ports (engine.units), kept with the others
    "UnitProblem",
    "UnitUnreachable",
    "UnitBusy",
    "UnitVersionError",
    "UnitFault",
    "UnitJam",
    "LinkLost",
    "UnitFlooding",
    "ProtocolViolation",
    "CommandRefused",
    "VersionMismatch",
    "AuthFailed",
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
