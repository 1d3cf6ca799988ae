"""UNO's shared screen: the table, the hands and the events of classic, Showdown and
UNO Party! in UNO's words, on :class:`engine.apps.screen.SharedScreen` (who sits at
the screen, the wipes, the recaps).

At a colour terminal the seated player's cards are shown in colour with a symbol and
their words (engine.uno.card_style); else as their codes (``R5 B+2 W``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.apps.screen import COMMANDS_HELP, SharedScreen
from engine.match import MatchEvent
from engine.uno.card_style import styled
from engine.uno.labels import card_order
from engine.uno.words import COLOUR_WORDS, card_name, event_text
from firmware_host.people.words import plural

__all__ = ["UnoScreen", "HELP", "PARTY_HELP", "party_line"]

#: What ``help`` says at an UNO game: the commands, the cards and the actions.
HELP = (
    *COMMANDS_HELP,
    "Cards: a colour letter (R red, Y yellow, G green, B blue) and a rank:",
    "  R5      red 5: play it on a red card or on any 5",
    "  B+2     blue Draw Two: the next player draws 2 and misses their turn",
    "  YR      yellow Reverse: play turns round (with two players: a Skip)",
    "  GS      green Skip: the next player misses their turn",
    "  W       Wild: plays on anything; you name the colour",
    "  W+4     Wild Draw Four: name the colour; the next player draws 4, or challenges it",
    "  WS      Wild Showdown: name the colour, then whom to face and for how many cards",
    "  R7!2    a Showdown symbol: playing it starts a showdown for 2 cards with the "
    "player it points at",
    "Showdown: both press their paddle after GO; the slower, or whoever presses "
    "before GO (a false start), takes the cards.",
    "Actions: type the menu's number, or its text (a word's first letters will do: d for draw):",
    "  R5      play that card; W=G plays a wild naming green",
    "  R5 uno  play it and call UNO (do, when it leaves you one card: else you can be caught)",
    "  draw    draw a card instead; then keep: keep the drawn card",
    "  accept  draw the penalty; challenge: say the Wild Draw Four was played while "
    "holding the colour (right: they draw 4; wrong: you draw 6)",
    "  catch Bob   Bob has one card and did not call UNO: Bob draws 2",
    "  face Bob    your Wild Showdown's opponent (then the number of cards)",
)


#: What ``help`` adds in an UNO Party! game (``showdown play --variant party``).
PARTY_HELP = (
    "UNO Party! cards:",
    "  RP      red Point Taken: everyone points at another player at once; each draws "
    "1 card per player pointing at them (at most 5)",
    "  WP      Wild Pile Up: names no colour; cards are flipped into a mini pile; in turn "
    "each adds a card of its colour or a wild (no effects), or takes the whole pile",
    "  WT      Wild Drawn Together: name the colour and link two players: when one draws, "
    "the other draws as many",
    "Out of turn: when the top card is a number card you hold too (same colour and number), "
    "the game stops and asks you before the next player plays: type the card to speed-play "
    "it (play then goes on after you), or Enter to let it pass. Another card is a wrong "
    "speed play: it comes back and you draw 1. A player who did not call UNO can be caught "
    "the same way.",
    "  speed G7    speed-play G7 (out of turn)",
    "  point Bob   point at Bob (Point Taken); nobody sees whom until all have pointed",
    "  take        take the mini pile into your hand",
    "  WT=G 2+5    Wild Drawn Together naming green, linking players 2 and 5 (or choose "
    "from the menu: the game asks the colour, then the two players)",
)


def party_line(game: Any, names: Sequence[str]) -> str:
    """UNO Party!'s public facts, one line: the speed window, the mini pile and
    its colour, the link, who has pointed (never whom). "" for other games, and
    when none applies.

    >>> from engine.uno.party import PartyGame
    >>> game = PartyGame.from_notation("party R5,G7/R5,B1/Y3,W G1,G2 R1,R5 R + 0 play - - "
    ...                                "0,0,0 2 1 500 - 1:0 link=0+2")
    >>> party_line(game, ["You", "bot1", "bot2"])
    'Party! · speed window open on R5 · linked: You + bot2'
    """
    if not hasattr(game, "speed_window"):
        return ""
    parts = []
    if game.speed_window:
        parts.append(f"speed window open on {game.top_card}")
    if game.pile:
        colour = COLOUR_WORDS[str(game.pile_colour)]
        parts.append(
            f"mini pile ({colour}, {plural(len(game.pile), 'card')}): "
            f"{' '.join(map(str, game.pile))}"
        )
    if game.links is not None:
        a, b = game.links
        parts.append(f"linked: {names[a]} + {names[b]}")
    if game.phase.value == "point":
        done = [names[p] for p in game.pointing]
        parts.append(
            f"pointed: {', '.join(done)} (whom stays hidden)" if done else "nobody has pointed yet"
        )
    return " · ".join(["Party!", *parts]) if parts else ""


class UnoScreen(SharedScreen):
    """The shared screen of an UNO match (classic, Showdown, UNO Party!).

    ``colour``: the seated player's cards in colour with a symbol and their words
    (a colour terminal), else their codes. The other arguments as SharedScreen's.
    """

    HELP_LINES = HELP

    def __init__(self, *args: Any, colour: bool = False, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.colour = colour

    def event_line(self, event: MatchEvent, player: int | None) -> str:
        return event_text(event, self.names, player)

    def card_key(self, card: Any) -> Any:
        return card_order(card)

    def cards_text(self, cards: Sequence[Any]) -> str:
        return (", " if self.colour else " ").join(styled(card, self.colour) for card in cards)

    def show_round_end(self) -> None:
        """The hands left and their points."""
        game = self.game
        for p in range(game.players):
            hand = game.hand(p)
            if hand:
                points = sum(card.points for card in hand)
                self.print_fn(
                    f"  {self.names[p]} held {' '.join(map(str, hand))} ({points} points)"
                )

    def status(self, player: int) -> None:
        game = self.game
        colour = "" if game.colour is None else f" · colour {COLOUR_WORDS[str(game.colour)]}"
        way = "clockwise" if game.direction == 1 else "anticlockwise"
        self.print_fn("")
        self.print_fn(
            f"Round {game.round} · top card {game.top_card}: {card_name(game.top_card)}"
            f"{colour} · {way}"
        )
        sizes = ", ".join(f"{n} {s}" for n, s in zip(self.names, game.hand_sizes, strict=True))
        scores = ", ".join(f"{n} {s}" for n, s in zip(self.names, game.scores, strict=True))
        self.print_fn(f"Cards in hand: {sizes} · Scores: {scores}")
        party = party_line(game, self.names)
        if party:
            self.print_fn(party)
        self.print_fn(self.hand_line(player))
        self._known[player] = Counter(game.hand(player))
