"""How UNO labels what a player may do and orders what they hold: the words of a
menu of actions and the order of a hand, for the terminal game and the browser
table alike (an event's words are engine.uno.words').

>>> from engine.uno.cards import Card
>>> sorted(map(Card.parse, ["W", "B2", "R7"]), key=card_order)
[Card.parse('R7'), Card.parse('B2'), Card.parse('W')]
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.uno.actions import Action, ActionKind
from engine.uno.cards import Card, Rank
from engine.uno.game import Game, Phase
from engine.uno.party import PartyGame
from engine.uno.words import card_name
from firmware_host.people.words import plural

__all__ = ["action_text", "card_order", "COLOUR_NAMES"]

#: The colours' names, by colour (Colour is an int: red 0 ... blue 3).
COLOUR_NAMES = ("red", "yellow", "green", "blue")


def card_order(card: Card) -> tuple[bool, int, int, int]:
    """Hands and menus list cards by colour, then rank, wilds last."""
    return (card.is_wild, card.colour or 0, card.rank, card.showdown)


def action_text(action: Action, game: Game | PartyGame, names: Sequence[str]) -> str:
    """What ``action`` does, in words, for the menu.

    >>> g = Game.from_notation("classic R5,W,G1/G3,Y9 G7 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    >>> [action_text(a, g, ["Ann", "Bob"]) for a in g.legal_actions()][:2]
    ['play red 5', 'play Wild, naming red']
    """
    # An action's fields depend on its kind (a play has its card...); one lacking them
    # is shown as its text.
    kind = action.kind
    party = _party_action_text(action, game, names)
    if party is not None:
        return party
    if kind is ActionKind.PLAY and action.card is not None:
        text = f"play {card_name(action.card)}"
        if action.colour is not None:
            text += f", naming {COLOUR_NAMES[action.colour]}"
        return text + (" and call UNO" if action.uno else "")
    if kind is ActionKind.DRAW:
        return "draw a card"
    if kind is ActionKind.KEEP:
        return "keep the card (your turn ends)"
    if kind is ActionKind.ACCEPT:
        return f"draw {game.pending_draws} cards (your turn ends)"
    if kind is ActionKind.CHALLENGE:
        return (
            f"challenge the Wild Draw Four: if it was legal you draw "
            f"{game.pending_draws + 2} instead of {game.pending_draws}"
        )
    if kind is ActionKind.CATCH and action.player is not None:
        who = names[action.player]
        penalty = game.house_rules.uno_penalty
        links = getattr(game, "links", None)
        if links is not None and action.player in links:
            other = names[links[0] + links[1] - action.player]
            return (
                f"catch {who}, who did not call UNO ({who} draws {penalty}, and {other}, "
                "linked, as many)"
            )
        return f"catch {who}, who did not call UNO ({who} draws {penalty})"
    if kind is ActionKind.CHOOSE_COLOUR and action.colour is not None:
        return f"name {COLOUR_NAMES[action.colour]}"
    if (
        kind is ActionKind.CHOOSE_SHOWDOWN
        and action.player is not None
        and action.count is not None
    ):
        return f"face {names[action.player]} for {plural(action.count, 'card')}"
    return str(action)


def _party_action_text(action: Action, game: Game | PartyGame, names: Sequence[str]) -> str | None:
    """UNO Party!'s actions in words (a speed play, pointing, the mini pile, the
    two Party wilds), or None for the others."""
    if not isinstance(game, PartyGame):  # the others are classic's too
        return None
    kind = action.kind
    uno = " and call UNO" if action.uno else ""
    if kind is ActionKind.SPEED_PLAY and action.card is not None:
        if action.card == game.top_card:
            return (
                f"play your {card_name(action.card)} now, out of turn{uno}: play goes on after you"
            )
        return f"a wrong speed play: {action.card} is not the top card; you keep it and draw 1"
    if kind is ActionKind.POINT and action.player is not None:
        return f"point at {names[action.player]} ({plural(game.hand_sizes[action.player], 'card')})"
    if kind is ActionKind.TAKE_PILE:
        return f"take the mini pile ({plural(len(game.pile), 'card')}) into your hand"
    if kind is not ActionKind.PLAY or action.card is None:
        return None
    card = action.card
    if game.phase is Phase.PILE:
        return f"add {card_name(card)} to the mini pile{uno}"
    if card.rank is Rank.WILD_PILE_UP:
        return f"play Wild Pile Up{uno}: the next players add to a mini pile or take it"
    if card.rank is Rank.WILD_DRAWN_TOGETHER and action.colour is not None:
        text = f"play Wild Drawn Together, naming {COLOUR_NAMES[action.colour]}"
        if action.link is None:
            return text + f"{uno} (the link stays)"
        a, b = action.link
        return text + f" and linking {names[a]} and {names[b]}{uno}"
    if card.rank is Rank.POINT_TAKEN:
        return (
            f"play {card_name(card)}{uno}: everyone points at someone; each draws 1 card "
            "per player pointing at them"
        )
    return None
