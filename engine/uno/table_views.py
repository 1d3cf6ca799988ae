"""The views: what each connection of the browser table is sent, built on the server.

Every connection gets the *public* part (the seats and their card counts, the top
card, the colour in force, the turn, the scores, the log, the showdown); only the
phone that owns a seat also gets ``you``: its hand, its legal actions and what it
is asked. Nothing here reads another player's hand: :func:`public_view` takes the
game but reads only what the table can see (``hand_sizes``, the discard pile's
top, ``catchable``), and :func:`private_view` reads the one hand it is given the
seat of. The room (``engine.apps.table.room``) decides which connection gets
which.

>>> from engine.uno.game import Game
>>> game = Game.from_notation(
...     "showdown R5,W,G2/B1,Y1,Y2 G1,B2 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
>>> you = private_view(game, 0, ["Ann", "Bob"])
>>> [card["text"] for card in you["hand"]], [a["action"] for a in you["legal"]][:3]
(['R5', 'G2', 'W'], ['R5', 'W=R', 'W=Y'])
>>> card_view(game.top_card)
{'text': 'R1', 'colour': 'R', 'label': 'red 1'}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.uno.actions import ActionKind
from engine.uno.cards import Card
from engine.uno.game import Game, Phase
from engine.uno.labels import action_text, card_order
from engine.uno.party import PartyGame
from engine.uno.party_rules import PartyRules
from engine.uno.party_table_views import (
    party_card_name,
    party_private,
    party_public,
    party_rules_view,
    party_rules_words,
)
from engine.uno.rules import HouseRules, Variant
from engine.uno.words import COLOUR_WORDS, card_name

__all__ = [
    "card_view",
    "public_view",
    "private_view",
    "prompt",
    "house_rules_view",
    "rules_words",
    "SEPARATOR",
    "WILD",
    "BOT_PLAYS",
]

#: The log line between two rounds.
SEPARATOR = "---"
#: A wild card's "colour" in a view (it has none until it is played).
WILD = "W"
#: What the phone of a seat a bot plays for is told.
BOT_PLAYS = "A bot plays for you: take your seat back to play."


def card_view(card: Card, legal: bool | None = None) -> dict[str, Any]:
    """A card as the pages draw it: its text, its colour letter (``W`` for a
    wild), its name in words; in a hand, whether it may be played now."""
    view: dict[str, Any] = {
        "text": str(card),
        "colour": WILD if card.colour is None else str(card.colour),
        "label": party_card_name(card),  # card_name, and Party!'s own cards
    }
    if legal is not None:
        view["legal"] = legal
    return view


def prompt(game: Game, seat: int, names: Sequence[str]) -> str:
    """What the phone of ``seat`` is asked now (empty when it is not its turn)."""
    if game.to_act != seat:
        return ""
    phase = game.phase
    if phase is Phase.DRAWN and game.drawn_card is not None:
        card = game.drawn_card
        return f"You drew {card} ({card_name(card)}): play it or keep it."
    if phase is Phase.PENALTY:
        offender = names[(seat - game.direction) % game.players]
        return f"{offender} played {game.top_card} at you: {game.pending_draws} cards to draw."
    if phase is Phase.CHOOSE_COLOUR:
        return "The first card is a wild: name the colour."
    if phase is Phase.CHOOSE_SHOWDOWN:
        return "Your Wild Showdown: choose whom to face and how many cards."
    return "Your turn."


def private_view(
    game: Game | PartyGame, seat: int, names: Sequence[str], *, bot_playing: bool = False
) -> dict[str, Any]:
    """The ``you`` part for the phone of ``seat``: its own hand (sorted, the
    playable cards marked), its legal actions with their words, its prompt.
    While a bot plays for the seat (``bot_playing``) the hand is still shown
    to its owner, with nothing to do but take the seat back. A Party! seat's
    is ``party_view.party_private``."""
    if isinstance(game, PartyGame):
        return party_private(game, seat, names, bot_playing=bot_playing)
    legal = game.legal_actions() if game.to_act == seat and not bot_playing else ()
    playable = {a.card for a in legal if a.kind is ActionKind.PLAY}
    hand = sorted(game.hand(seat), key=card_order)
    return {
        "seat": seat,
        "hand": [card_view(card, card in playable) for card in hand],
        "legal": [{"action": str(a), "label": action_text(a, game, names)} for a in legal],
        "prompt": BOT_PLAYS if bot_playing else prompt(game, seat, names),
        "bot_playing": bot_playing,
    }


def house_rules_view(house: HouseRules | PartyRules) -> dict[str, Any]:
    """The house rules as plain values (what the host form sends back), and
    their text form (``HouseRules.parse`` reads it; Party!'s: ``PartyRules``)."""
    if isinstance(house, PartyRules):
        return party_rules_view(house)
    return {
        "stacking": house.stacking,
        "draw_until_playable": house.draw_until_playable,
        "uno_penalty": house.uno_penalty,
        "first_card": house.first_card,
        "showdown_cards": list(house.showdown_cards),
        "text": str(house),
    }


def rules_words(
    variant: str, target: int, house: HouseRules | PartyRules, bot_kind: str, reaction_ms: float
) -> list[str]:
    """The match's rules as the display lists them, every house rule said
    (on or off), so the table can check what the host chose.

    >>> rules_words("classic", 500, HouseRules(stacking=True), "heuristic", 230.0)[:3]
    ['Classic to 500 points', 'bots: heuristic, react in 230 ms', 'stacking +2 and +4: on']
    """
    if isinstance(house, PartyRules):
        return party_rules_words(target, house, bot_kind, reaction_ms)
    rules = Variant.named(variant)
    penalty = house.uno_penalty
    words = [
        f"{variant.capitalize()} to {target} points",
        f"bots: {bot_kind}, react in {reaction_ms:g} ms",
        f"stacking +2 and +4: {'on' if house.stacking else 'off'}",
        f"draw until playable: {'on' if house.draw_until_playable else 'off'}",
        f"UNO penalty: {penalty} card{'' if penalty == 1 else 's'}",
        f"first card: {house.first_card}"
        if house.first_card is not None
        else f"first card: {rules.first_card} (the variant's)",
    ]
    if rules.showdowns:
        words.append("Wild Showdown: {} to {} cards".format(*house.showdown_cards))
    return words


def public_view(
    *,
    code: str,
    join_url: str,
    seats: Sequence[dict[str, Any]],
    game: Game | PartyGame | None,
    phase: str,
    variant: str,
    target: int,
    log: Sequence[str],
    showdown: dict[str, Any] | None,
    paused: str | None,
    host_paused: bool = False,
    house_rules: HouseRules | PartyRules | None = None,
    bot_kind: str = "heuristic",
    reaction_ms: float = 230.0,
    reveal: dict[str, Any] | None = None,
    cannot_save: bool = False,
) -> dict[str, Any]:
    """What every connection sees. ``seats`` are the room's seat entries
    (seat, name, kind, connected, bot_playing, lag_ms, drew); the game adds
    each one's card count and UNO state. ``phase`` is ``lobby``,
    ``match_over`` or the game's phase. ``paused`` is a unit problem (what
    happened, what to do), or why the table cannot save (``cannot_save``
    true: only the host's retry goes on); ``host_paused`` the host's own pause. The house
    rules are the game's once it is dealt. ``party`` is UNO Party!'s fields
    (``party_view.party_public``; null for the other variants), ``reveal``
    the last pointing, revealed once every choice was in."""
    if game is not None:
        variant, target, house_rules = game.variant.name, game.target, game.house_rules
    house = _house_shown(variant, house_rules)
    table: dict[str, Any] = {
        "code": code,
        "join_url": join_url,
        "phase": phase,
        "variant": variant,
        "target": target,
        "round": None,
        "turn": None,
        "top": None,
        "colour": None,
        "direction": None,
        "scores": None,
        "winner": None,
        "log": list(log),
        "showdown": showdown,
        "paused": paused,
        "cannot_save": cannot_save,
        "host_paused": host_paused,
        "house_rules": house_rules_view(house),
        "bots": {"kind": bot_kind, "reaction_ms": reaction_ms},
        "rules": rules_words(variant, target, house, bot_kind, reaction_ms),
        "party": None,
    }
    table["seats"] = [{**entry, "cards": None, "uno": False, "catchable": False} for entry in seats]
    if game is not None:
        _add_game(table, game, reveal)
    return table


def _winner(game: Game | PartyGame) -> dict[str, Any] | None:
    """Who won, for the winner banner: the match's winner once it is over, else
    the finished round's (None while a round is played): the engine's word, so
    the pages never work it out from scores or card counts."""
    if game.match_winner is not None:
        return {"seat": game.match_winner, "match": True}
    outcome = game.outcome
    if outcome is None:
        return None
    return {"seat": outcome.winner, "match": False}


def _house_shown(
    variant: str, house_rules: HouseRules | PartyRules | None
) -> HouseRules | PartyRules:
    """The house rules the view shows: the variant's defaults when the lobby's
    last choice was another variant's."""
    house: HouseRules | PartyRules = house_rules or HouseRules()
    if (variant == "party") != isinstance(house, PartyRules):  # the lobby's last choice
        house = PartyRules() if variant == "party" else HouseRules()
    return house


def _add_game(table: dict[str, Any], game: Game | PartyGame, reveal: dict[str, Any] | None) -> None:
    """The dealt game's part of the public view: each seat's cards and UNO
    state, the round, the turn, the top card, the scores (UNO Party!'s fields)."""
    sizes = game.hand_sizes
    catchable = game.catchable
    for seat in table["seats"]:
        n = seat["seat"]
        seat["cards"] = sizes[n]
        seat["catchable"] = catchable == n
        seat["uno"] = sizes[n] == 1 and catchable != n
    colour = game.colour
    table.update(
        round=game.round,
        turn=game.to_act,
        top=card_view(game.top_card),
        colour=None if colour is None else str(colour),
        colour_name=None if colour is None else COLOUR_WORDS[str(colour)],
        direction=game.direction,
        scores=list(game.scores),
        target=game.target,
        winner=_winner(game),
    )
    if isinstance(game, PartyGame):
        table["party"] = party_public(game, reveal)
