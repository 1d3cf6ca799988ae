"""UNO Party! at the browser table: its view fields, its words, its house rules.

Kept apart from ``room.py`` and ``views.py`` (which stay the classic and
Showdown table's), as python-chess keeps a variant's behaviour beside the board.
Everything here is built on the server from a ``PartyGame``:

- :func:`party_public`: the ``party`` field every connection gets: the
  speed-play window, the mini pile, the link, who has pointed (never at whom)
  and, once the last choice is in, the pointing revealed at once;
- :func:`party_private`: the ``you`` part of a seated phone: its hand, its
  legal actions (out of turn too: the right speed play, a catch, its pointing
  choices), its own pointing choice (``"you point at Bob"``, to it alone);

A phone is offered a speed play only while its card is identical to the top
card (the button lights); the engine's wrong speed plays (a penalty) are left
to the bots. Wild Drawn Together's choices (a colour and two players, hundreds
of actions at 16 seats) are summed up in ``you.link_play``.

>>> from engine.uno.party import PartyGame
>>> game = PartyGame.from_notation(
...     "party R5,G7/R5,B1/Y3,W - R1,R5 R + 0 play - - 0,0,0 2 1 500 - 1:0 -")
>>> you = party_private(game, 1, ["Ann", "Bob", "Cy"])
>>> you["speed"], [a["action"] for a in you["legal"]]
(['speed R5', 'speed R5 uno'], ['speed R5', 'speed R5 uno'])
>>> party_public(game, None)["speed_window"]
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from engine.uno.actions import Action, ActionKind
from engine.uno.cards import Card, Rank
from engine.uno.game import Phase
from engine.uno.labels import action_text, card_order
from engine.uno.narration import PARTY_EVENT_KINDS
from engine.uno.party import PartyGame
from engine.uno.party_rules import PartyRules
from engine.uno.words import COLOUR_WORDS, card_name
from firmware_host.people.words import plural

__all__ = [
    "PARTY_EVENTS",
    "MAX_PARTY_SEATS",
    "party_card_name",
    "party_public",
    "party_private",
    "party_prompt",
    "party_action_text",
    "party_rules_view",
    "party_rules_words",
    "own_choice",
    "is_party",
    "pointing_reveal",
    "party_draws",
]

#: A Party! table seats up to 16 (the others 10).
MAX_PARTY_SEATS = 16
#: The driver's Party! events, told in this module's words.
PARTY_EVENTS = PARTY_EVENT_KINDS
_PARTY_RANKS = {
    Rank.POINT_TAKEN: "Point Taken",
    Rank.WILD_PILE_UP: "Wild Pile Up",
    Rank.WILD_DRAWN_TOGETHER: "Wild Drawn Together",
}
_PARTY_FIELDS = tuple(field.name for field in dataclasses.fields(PartyRules))


def is_party(game: object) -> bool:
    return isinstance(game, PartyGame)


def party_card_name(card: Card) -> str:
    """A card in words, Party!'s own cards too.

    >>> party_card_name(Card.parse("GP")), party_card_name(Card.parse("WT"))
    ('green Point Taken', 'Wild Drawn Together')
    """
    rank = _PARTY_RANKS.get(card.rank)
    if rank is None:
        return card_name(card)
    return rank if card.colour is None else f"{COLOUR_WORDS[str(card.colour)]} {rank}"


def _card(card: Card, legal: bool | None = None) -> dict[str, Any]:
    view: dict[str, Any] = {
        "text": str(card),
        "colour": "W" if card.colour is None else str(card.colour),
        "label": party_card_name(card),
    }
    if legal is not None:
        view["legal"] = legal
    return view


def own_choice(game: PartyGame, seat: int) -> int | None:
    """Whom ``seat`` pointed at in the pointing under way (None: not yet, or no
    pointing). Read from ``notation(reveal=True)`` on the server: only the
    seat's own phone is told."""
    if game.phase is not Phase.POINT or seat not in game.pointing:
        return None
    for part in game.notation(reveal=True).rsplit(" ", 1)[-1].split(";"):
        if part.startswith("point="):
            entry = part.removeprefix("point=").split(",")[seat]
            return int(entry) if entry.isdigit() else None
    return None


# -- the public part -----------------------------------------------------------------


def party_public(game: PartyGame | None, reveal: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ``party`` field of the public view (None when no Party! match is
    dealt). ``reveal`` is the room's record of the last pointing, once every
    choice was in: ``{by, choices: [{seat, target}], draws: [{seat, cards}]}``."""
    if game is None:
        return None
    pile = game.pile
    colour = game.pile_colour
    point = None
    if game.phase is Phase.POINT:
        point = {
            "by": game.pointer,
            "waiting": list(game.waiting_for),
            "pointed": list(game.pointing),
        }
    return {
        "speed_window": game.speed_window,
        "pile": None
        if not pile
        else {
            "cards": [_card(card) for card in pile],
            "colour": None if colour is None else str(colour),
            "colour_name": None if colour is None else COLOUR_WORDS[str(colour)],
            "turn": game.to_act if game.phase is Phase.PILE else None,
        },
        "link": None if game.links is None else list(game.links),
        "point": point,
        "reveal": reveal,
    }


# -- a seat's part ---------------------------------------------------------------------


def _is_right_speed(action: Action, game: PartyGame) -> bool:
    return action.card is not None and str(action.card) == str(game.top_card)


def party_private(
    game: PartyGame, seat: int, names: Sequence[str], *, bot_playing: bool = False
) -> dict[str, Any]:
    """The ``you`` part for the phone of ``seat`` at a Party! table.

    ``legal`` is what the phone may send now, in turn or out of it: its plays,
    the right speed play (never a wrong one), ``catch N``, ``point N``,
    ``take``; the Wild Drawn Together plays that link two players are not
    listed one by one but in ``link_play`` ({colours, players, uno}: the phone
    sends ``WT=<colour> <a>+<b>``). ``speed`` lists the lit speed plays;
    ``point`` the pointing choices and the seat's own (``chosen``)."""
    legal: tuple[Action, ...] = ()
    if not bot_playing and not game.round_over:
        legal = game.legal_actions(seat)
    shown: list[Action] = []
    link_colours: set[str] = set()
    link_players: set[int] = set()
    link_uno: set[bool] = set()
    for action in legal:
        if action.kind is ActionKind.SPEED_PLAY and not _is_right_speed(action, game):
            continue
        if action.link is not None and action.colour is not None:
            link_colours.add(str(action.colour))
            link_players.update(action.link)
            link_uno.add(action.uno)
            continue
        shown.append(action)
    in_turn = {a.card for a in legal if a.kind is ActionKind.PLAY}
    hand = sorted(game.hand(seat), key=card_order)
    chosen = own_choice(game, seat)
    point = None
    if game.phase is Phase.POINT:
        point = {
            "choices": [
                {"seat": a.player, "name": names[a.player], "action": str(a)}
                for a in shown
                if a.kind is ActionKind.POINT and a.player is not None
            ],
            "chosen": chosen,
            "chosen_name": None if chosen is None else names[chosen],
        }
    return {
        "seat": seat,
        "hand": [_card(card, card in in_turn) for card in hand],
        "legal": [{"action": str(a), "label": party_action_text(a, game, names)} for a in shown],
        "prompt": party_prompt(game, seat, names, bot_playing=bot_playing, chosen=chosen),
        "bot_playing": bot_playing,
        "speed": [str(a) for a in shown if a.kind is ActionKind.SPEED_PLAY],
        "point": point,
        "link_play": None
        if not link_colours
        else {
            "card": "WT",
            "colours": sorted(link_colours, key="RYGB".index),
            "players": sorted(link_players),
            "self": seat in link_players,
            "uno": sorted(link_uno),
        },
    }


def party_prompt(
    game: PartyGame,
    seat: int,
    names: Sequence[str],
    *,
    bot_playing: bool = False,
    chosen: int | None = None,
) -> str:
    """What the phone of ``seat`` is asked now (empty when nothing)."""
    if bot_playing:
        return "A bot plays for you: take your seat back to play."
    phase = game.phase
    if phase is Phase.POINT:
        if chosen is not None:
            left = len(game.waiting_for)
            return f"You point at {names[chosen]}. Waiting for {left} more."
        if seat in game.waiting_for:
            return f"Point Taken by {names[game.pointer or 0]}: point at a player!"
        return ""
    if game.to_act != seat:
        top = game.top_card
        if game.speed_window and top in game.hand(seat):
            return f"Speed play! You hold {top} ({party_card_name(top)}): play it now."
        return ""
    if phase is Phase.PILE:
        colour = game.pile_colour
        words = "a card" if colour is None else f"a {COLOUR_WORDS[str(colour)]} card"
        count = len(game.pile)
        legal = game.legal_actions(seat)
        if any(a.kind is ActionKind.PLAY for a in legal):
            take = any(a.kind is ActionKind.TAKE_PILE for a in legal)
            return f"Pile up! Add {words} or a wild to the pile ({plural(count, 'card')})" + (
                ", or take it." if take else "."
            )
        return f"Pile up! You cannot add {words}: take the pile ({plural(count, 'card')})."
    if phase is Phase.DRAWN and game.drawn_card is not None:
        card = game.drawn_card
        return f"You drew {card} ({party_card_name(card)}): play it or keep it."
    if phase is Phase.PENALTY:
        offender = names[(seat - game.direction) % game.players]
        return f"{offender} played {game.top_card} at you: {game.pending_draws} cards to draw."
    if phase is Phase.CHOOSE_COLOUR:
        return "The first card is a wild: name the colour."
    return "Your turn."


def party_action_text(action: Action, game: PartyGame, names: Sequence[str]) -> str:
    """An action in words, for a phone's button.

    >>> game = PartyGame.from_notation(
    ...     "party R5,G7/R5,B1/Y3,W - R1,R5 R + 0 play - - 0,0,0 2 1 500 - 1:0 -")
    >>> party_action_text(Action.parse("speed R5"), game, ["Ann", "Bob", "Cy"])
    'speed-play red 5 now'
    >>> party_action_text(Action.parse("WT=G 0+2"), game, ["Ann", "Bob", "Cy"])
    'play Wild Drawn Together, naming green, linking Ann and Cy'
    """
    kind = action.kind
    uno = " and call UNO" if action.uno else ""
    if kind is ActionKind.SPEED_PLAY and action.card is not None:
        return f"speed-play {party_card_name(action.card)} now{uno}"
    if kind is ActionKind.POINT and action.player is not None:
        return f"point at {names[action.player]}"
    if kind is ActionKind.TAKE_PILE:
        return f"take the pile ({len(game.pile)} cards)"
    if kind is ActionKind.PLAY and action.card is not None:
        name = party_card_name(action.card)
        if game.phase is Phase.PILE:
            return f"add {name} to the pile{uno}"
        text = f"play {name}"
        if action.colour is not None:
            text += f", naming {COLOUR_WORDS[str(action.colour)]}"
        if action.link is not None:
            a, b = action.link
            text += f", linking {names[a]} and {names[b]}"
        return text + uno
    return action_text(action, game, names)


# -- the log ---------------------------------------------------------------------------


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def pointing_reveal(d: dict[str, Any]) -> dict[str, Any]:
    """The public record of a ``pointing`` event (every choice in): who played
    the Point Taken, who pointed at whom, who drew how many.

    >>> pointing_reveal({"player": 2, "choices": {0: 1, 2: 1, 1: 0}, "draws": {1: 2, 0: 1}})
    {'by': 2, 'choices': [{'seat': 0, 'target': 1}, {'seat': 1, 'target': 0}, \
{'seat': 2, 'target': 1}], 'draws': [{'seat': 0, 'cards': 1}, {'seat': 1, 'cards': 2}]}
    """
    choices = sorted(_pairs(d.get("choices")))
    draws = sorted(_pairs(d.get("draws")))
    return {
        "by": d.get("player"),
        "choices": [{"seat": p, "target": t} for p, t in choices],
        "draws": [{"seat": p, "cards": n} for p, n in draws if n],
    }


def party_draws(kind: str, d: dict[str, Any]) -> dict[int, int]:
    """The cards a Party! event made each seat draw (for the "+N" badges): the
    pointing, a wrong speed play, a pile taken (linked draws included)."""
    if kind in ("pointing", "speed", "pile_take"):
        return dict(_pairs(d.get("draws")))
    return {}


def _pairs(value: Any) -> list[tuple[int, int]]:
    if isinstance(value, dict):
        return [(int(k), int(v)) for k, v in value.items()]
    return []


# -- the house rules -------------------------------------------------------------------


def party_rules_view(rules: PartyRules) -> dict[str, Any]:
    """The Party! house rules as plain values, and their text form."""
    return {**{name: getattr(rules, name) for name in _PARTY_FIELDS}, "text": str(rules)}


def _on(flag: bool) -> str:
    return "on" if flag else "off"


def party_rules_words(
    target: int, rules: PartyRules, bot_kind: str, reaction_ms: float
) -> list[str]:
    """The Party! rules as the display lists them, every house rule said."""
    penalty = rules.uno_penalty
    return [
        f"Party to {target} points",
        f"bots: {bot_kind}, react in {reaction_ms:g} ms",
        f"first card: {'flip to a number' if rules.first_action == 'flip' else 'one more card'}",
        f"drawing closes speed play: {_on(rules.draw_closes_speed)}",
        f"going out by a speed play: {_on(rules.speed_out)}",
        f"Point Taken's player points too: {_on(rules.pointer_points)}",
        f"flipped wilds join the pile: {_on(rules.pile_wilds)}",
        f"taking a pile you could add to: {_on(rules.pile_refuse)}",
        "going out in a pile up: "
        + ("the pile finishes" if rules.pile_out == "finish" else "ends at once"),
        f"taking the pile is a linked draw: {_on(rules.pile_is_draw)}",
        f"linking yourself: {_on(rules.link_self)}",
        "a second Drawn Together: "
        + ("moves the link" if rules.relink == "move" else "keeps the first"),
        f"Point Taken's cap of 5 on the linked draw: {_on(rules.cap_linked)}",
        f"Pile Up and Drawn Together stop a Wild Draw Four: {_on(rules.wd4_all_wilds)}",
        f"draw until playable: {_on(rules.draw_until_playable)}",
        f"UNO penalty: {penalty} card{'' if penalty == 1 else 's'}",
    ]
