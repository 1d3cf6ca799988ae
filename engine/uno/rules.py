"""The rules: what each card does, the first-card rules, the variants (deck,
first-card rule, showdowns) and the optional house rules.

``engine.uno.game.Game`` keeps the state and applies these: the effect of a
card played (``card_effects``) or turned first (``first_card_effect``), which
first card goes back or is covered, and when a Wild Draw Four is legal and may
be challenged.

>>> Variant.named("classic").deck_size, Variant.named("showdown").deck_size
(108, 112)
>>> house = HouseRules.parse("stack,uno=4")
>>> house.stacking, house.uno_penalty, str(house)
(True, 4, 'stack,uno=4')
>>> str(HouseRules())
'-'
>>> CARD_EFFECTS[Rank.SKIP]
Effect(turns=2)
>>> card_effects(two_players=True, stacking=False)[Rank.REVERSE] == CARD_EFFECTS[Rank.SKIP]
True
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine.game.errors import DeckError, NotationError
from engine.uno.cards import (
    COLOUR_MASK,
    COLOUR_SHIFT,
    COLOURS,
    LAST_NUMBER_RANK,
    MAX_SHOWDOWN,
    RANK_MASK,
    WILD_RANKS,
    Card,
    Rank,
)
from engine.uno.deck_file import read_deck_file
from engine.uno.party_rules import load_party_deck

__all__ = [
    "HouseRules",
    "Variant",
    "FIRST_CARD_RULES",
    "classic_deck",
    "load_showdown_deck",
    "HAND_SIZE",
    "DRAW_TWO_CARDS",
    "WILD_DRAW_FOUR_CARDS",
    "LOST_CHALLENGE_CARDS",
    "Effect",
    "CARD_EFFECTS",
    "TWO_PLAYER_REVERSE",
    "STACKED_DRAW_TWO",
    "FIRST_CARD_EFFECTS",
    "FIRST_CARD_RETURNED",
    "FIRST_CARD_COVERED",
    "card_effects",
    "first_card_effect",
    "wild_draw_four_is_legal",
    "may_challenge",
    "stacks_on",
]

#: Cards dealt to each player.
HAND_SIZE = 7
#: Cards a Draw Two makes the next player draw.
DRAW_TWO_CARDS = 2
#: Cards a Wild Draw Four makes the next player draw (unless a challenge wins).
WILD_DRAW_FOUR_CARDS = 4
#: Cards a player who challenges a legal Wild Draw Four draws on top of its four.
LOST_CHALLENGE_CARDS = 2

#: How the first discard is handled:
#: ``return``  a Wild, Wild Draw Four or Wild Showdown goes back into the pile, which
#:             is reshuffled, and a new card is turned (classic UNO, seed 003);
#: ``choose``  a Wild or Wild Showdown stays and the first player names the colour; a
#:             Wild Draw Four goes back as above (the Showdown variant's default);
#: ``flip``    any action or wild card is covered by the next card until a number card
#:             shows (UNO Party's rule).
#: In every rule a Draw Two, Skip or Reverse left showing acts as if played, and a first
#: card never starts a showdown.
FIRST_CARD_RULES = ("return", "choose", "flip")


# -- What each card does ------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Effect:
    """What a card does once it lies on the discard pile.

    turns          how far the turn moves on from the player who played it, in
                   the direction of play after the card: 1 the next player, 2 the
                   next player misses their turn, 0 the same player decides again
    reverses       the direction of play turns round first
    draws          cards the next player draws now, with any pending penalty
    penalty        cards the next player must answer for instead (``then`` is
                   ``penalty``): accept them, challenge, or stack
    names_colour   the player names the colour to match (a wild)
    challengeable  the next player may challenge it (records whether it was legal)
    then           what the game waits for next, a phase word of the notation:
                   ``play``, ``penalty`` (the next player answers the penalty) or
                   ``face`` (the player names a showdown's opponent and cards)
    last_card      the effect instead when it was the player's last card (None:
                   the same); the round ends once no decision is left (``then``
                   is ``play``)
    """

    turns: int = 1
    reverses: bool = False
    draws: int = 0
    penalty: int = 0
    names_colour: bool = False
    challengeable: bool = False
    then: str = "play"
    last_card: Effect | None = None

    def __post_init__(self) -> None:
        if (
            self.then not in ("play", "penalty", "face")
            or (self.then == "penalty") != (self.penalty > 0)
            or (self.draws and self.penalty)
            or self.turns not in (0, 1, 2)
        ):
            raise ValueError(f"inconsistent card effect: {self!r}")

    def __repr__(self) -> str:
        fields = (
            f"{f.name}={getattr(self, f.name)!r}"
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        )
        return f"Effect({', '.join(fields)})"


_NUMBER_RANKS = tuple(rank for rank in Rank if rank <= LAST_NUMBER_RANK)
_WILD_DRAW_FOUR = int(Rank.WILD_DRAW_FOUR)  # for may_challenge: an int compares faster

#: What each card does when played, by rank: the official rules. A number card
#: passes the turn on; the game plays it on a fast path (``Game.apply``) that
#: does what this table says.
CARD_EFFECTS: dict[Rank, Effect] = {
    **dict.fromkeys(_NUMBER_RANKS, Effect()),
    Rank.DRAW_TWO: Effect(draws=DRAW_TWO_CARDS, turns=2),
    Rank.REVERSE: Effect(reverses=True),
    Rank.SKIP: Effect(turns=2),
    Rank.WILD: Effect(names_colour=True),
    Rank.WILD_DRAW_FOUR: Effect(
        names_colour=True, penalty=WILD_DRAW_FOUR_CARDS, challengeable=True, then="penalty"
    ),
    # The same player then names the opponent and the cards (``face``).
    Rank.WILD_SHOWDOWN: Effect(names_colour=True, turns=0, then="face"),
    # UNO Party!'s cards, as far as this table can say it: the pointing, the mini
    # pile and the links are engine.uno.party's own (a classic or Showdown game
    # never holds these cards).
    Rank.POINT_TAKEN: Effect(),
    Rank.WILD_PILE_UP: Effect(),
    Rank.WILD_DRAWN_TOGETHER: Effect(names_colour=True),
}
#: With two players a Reverse acts as a Skip: the same player plays again.
TWO_PLAYER_REVERSE = CARD_EFFECTS[Rank.SKIP]
#: House rule ``stacking``: a Draw Two waits for the next player's answer (a
#: Draw Two of their own, or accepting the total); as a last card it acts at once.
STACKED_DRAW_TWO = Effect(
    penalty=DRAW_TWO_CARDS, then="penalty", last_card=CARD_EFFECTS[Rank.DRAW_TWO]
)

#: What a coloured card turned first does, by rank: as if the dealer had played
#: it (the player after the dealer draws two or misses the turn), except that
#: after a Reverse the dealer plays first, to the right. Stacking does not
#: apply, and a first card never starts a showdown; a wild turned first makes
#: the first player name the colour.
FIRST_CARD_EFFECTS: dict[Rank, Effect] = {
    **dict.fromkeys(_NUMBER_RANKS, Effect()),
    Rank.DRAW_TWO: CARD_EFFECTS[Rank.DRAW_TWO],
    Rank.REVERSE: Effect(reverses=True, turns=0),
    Rank.SKIP: CARD_EFFECTS[Rank.SKIP],
    Rank.POINT_TAKEN: Effect(),  # Party! only, where a first card has no effect
}

# The ranks a classic or Showdown deck can hold (Game's first-card rules cover these).
_LAST_GAME_RANK = int(Rank.WILD_SHOWDOWN)
_GAME_WILD_RANKS = tuple(rank for rank in WILD_RANKS if rank <= _LAST_GAME_RANK)

#: By first-card rule (FIRST_CARD_RULES): the ranks of a first card that goes
#: back into the pile (which is reshuffled and a new card turned) ...
FIRST_CARD_RETURNED: dict[str, frozenset[int]] = {
    "return": frozenset(map(int, _GAME_WILD_RANKS)),
    "choose": frozenset({int(Rank.WILD_DRAW_FOUR)}),
    "flip": frozenset(),
}
#: ... and of one covered by the next card from the pile.
FIRST_CARD_COVERED: dict[str, frozenset[int]] = {
    "return": frozenset(),
    "choose": frozenset(),
    "flip": frozenset(int(rank) for rank in Rank if LAST_NUMBER_RANK < rank <= _LAST_GAME_RANK),
}


# The same keyed by plain int (a lookup by IntEnum key is slower), with two players' Reverse.
_FIRST_CARD_EFFECTS = {int(rank): effect for rank, effect in FIRST_CARD_EFFECTS.items()}
_FIRST_CARD_EFFECTS_TWO_PLAYERS = {**_FIRST_CARD_EFFECTS, int(Rank.REVERSE): TWO_PLAYER_REVERSE}


def card_effects(*, two_players: bool, stacking: bool) -> dict[Rank, Effect]:
    """What each card does in a game of two players or more, with or without
    the stacking house rule (no other rule changes an effect)."""
    effects = dict(CARD_EFFECTS)
    if two_players:
        effects[Rank.REVERSE] = TWO_PLAYER_REVERSE
    if stacking:
        effects[Rank.DRAW_TWO] = STACKED_DRAW_TWO
    return effects


def first_card_effect(rank: int, two_players: bool) -> Effect:
    """What the coloured card of ``rank`` does when it is turned first.

    >>> first_card_effect(Rank.REVERSE, two_players=False)
    Effect(turns=0, reverses=True)
    """
    return (_FIRST_CARD_EFFECTS_TWO_PLAYERS if two_players else _FIRST_CARD_EFFECTS)[rank]


def wild_draw_four_is_legal(hand: Iterable[int], colour: int) -> bool:
    """Whether a Wild Draw Four was legal: the ``hand`` it left (card codes)
    holds no card of the ``colour`` that was to be matched."""
    return all(card >> COLOUR_SHIFT & COLOUR_MASK != colour for card in hand)


def may_challenge(rank: int, pending: int) -> bool:
    """A penalty may be challenged when it is a Wild Draw Four's own four cards
    (not a Draw Two, and nobody has stacked on it)."""
    return rank == _WILD_DRAW_FOUR and pending == WILD_DRAW_FOUR_CARDS


def stacks_on(card: int, rank: int) -> bool:
    """House rule ``stacking``: a penalty is answered with a card of its own
    rank (a Draw Two on a Draw Two, a Wild Draw Four on a Wild Draw Four)."""
    return card & RANK_MASK == rank


@dataclasses.dataclass(frozen=True)
class HouseRules:
    """Optional rules, all off unless chosen. The target score is ``Game.new(target=)``.

    stacking             a Draw Two may be answered with a Draw Two, a Wild Draw Four
                         with a Wild Draw Four; the last player who cannot (or will
                         not) draws the total
    draw_until_playable  a player who draws keeps drawing until a card is playable,
                         at most 10 cards
    uno_penalty          cards drawn by a player caught without calling UNO
    first_card           one of FIRST_CARD_RULES; None keeps the variant's rule
    showdown_cards       (lowest, highest) card count a Wild Showdown may name
    """

    stacking: bool = False
    draw_until_playable: bool = False
    uno_penalty: int = 2
    first_card: str | None = None
    showdown_cards: tuple[int, int] = (1, 3)

    #: Most cards a player draws under ``draw_until_playable``.
    DRAW_UNTIL_MAX = 10

    def __post_init__(self) -> None:
        if not isinstance(self.uno_penalty, int) or not 0 <= self.uno_penalty <= 20:
            raise ValueError(f"uno_penalty must be 0-20, not {self.uno_penalty!r}")
        if self.first_card is not None and self.first_card not in FIRST_CARD_RULES:
            raise ValueError(
                f"first_card must be one of {', '.join(FIRST_CARD_RULES)}, not {self.first_card!r}"
            )
        low, high = self.showdown_cards
        if not 1 <= low <= high <= MAX_SHOWDOWN:
            raise ValueError(
                f"showdown_cards must be (low, high) with 1 <= low <= high <= "
                f"{MAX_SHOWDOWN}, not {self.showdown_cards!r}"
            )
        object.__setattr__(self, "showdown_cards", (int(low), int(high)))

    def __str__(self) -> str:
        parts = []
        if self.stacking:
            parts.append("stack")
        if self.draw_until_playable:
            parts.append("until")
        if self.uno_penalty != 2:
            parts.append(f"uno={self.uno_penalty}")
        if self.first_card is not None:
            parts.append(f"first={self.first_card}")
        if self.showdown_cards != (1, 3):
            parts.append("ws={}-{}".format(*self.showdown_cards))
        return ",".join(parts) or "-"

    @classmethod
    def parse(cls, text: str) -> HouseRules:
        """The house rules written as ``str()`` writes them (``-`` for none)."""
        if text == "-":
            return cls()
        options: dict[str, Any] = {}  # HouseRules keywords, of mixed types: __post_init__ checks
        seen: set[str] = set()  # the names as written (options has the keyword names)
        try:
            for part in text.split(","):
                name, _, value = part.partition("=")
                if name in seen:
                    raise ValueError(f"{name} given twice")
                seen.add(name)
                if part == "stack":
                    options["stacking"] = True
                elif part == "until":
                    options["draw_until_playable"] = True
                elif name == "uno" and value.isdigit():
                    options["uno_penalty"] = int(value)
                elif name == "first" and value:
                    options["first_card"] = value
                elif name == "ws" and value.count("-") == 1:
                    low, high = value.split("-")
                    if not (low.isdigit() and high.isdigit()):
                        raise ValueError(f"ws={value}")
                    options["showdown_cards"] = (int(low), int(high))
                else:
                    raise ValueError(f"unknown option {part!r}")
            return cls(**options)
        except ValueError as exc:
            raise NotationError(
                f"invalid house rules {text!r}: {exc} (options: stack, until, uno=N, "
                "first=return|choose|flip, ws=LOW-HIGH)"
            ) from None


@dataclasses.dataclass(frozen=True)
class Variant:
    """A member of the UNO family: its deck and the rules that differ between members."""

    name: str
    deck: tuple[Card, ...]
    first_card: str
    showdowns: bool
    min_players: int = 2
    max_players: int = 10

    @property
    def deck_size(self) -> int:
        return len(self.deck)

    @functools.cached_property
    def codes(self) -> tuple[int, ...]:
        """The deck as plain card codes (what the game deals)."""
        return tuple(map(int, self.deck))

    @classmethod
    def classic(cls) -> Variant:
        """Classic UNO: 108 cards, wilds turned first go back (seed 003)."""
        return cls("classic", classic_deck(), first_card="return", showdowns=False)

    @classmethod
    def showdown(cls, deck_file: str | Path | None = None) -> Variant:
        """UNO Showdown: 112 cards; ``deck_file`` replaces the packaged symbol list."""
        return cls("showdown", load_showdown_deck(deck_file), first_card="choose", showdowns=True)

    @classmethod
    def party(cls, deck_file: str | Path | None = None) -> Variant:
        """UNO Party!: 224 cards (an assumption, engine/uno/data/party_deck.toml),
        2-16 players; played by ``engine.uno.party.PartyGame``."""
        return cls(
            "party",
            load_party_deck(deck_file),
            first_card="flip",
            showdowns=False,
            min_players=2,
            max_players=16,
        )

    @classmethod
    def named(cls, name: str) -> Variant:
        """The variant with its packaged deck: ``classic``, ``showdown`` or ``party``."""
        if name == "classic":
            return _CLASSIC
        if name == "showdown":
            return _SHOWDOWN
        if name == "party":
            return _PARTY
        raise NotationError(f"unknown variant {name!r}: expected classic, showdown or party")


def classic_deck() -> tuple[Card, ...]:
    """The 108 classic cards: per colour one 0, two each of 1-9, Draw Two,
    Reverse and Skip; four Wild and four Wild Draw Four."""
    cards = []
    for colour in COLOURS:
        cards.append(Card.of(colour, Rank.ZERO))
        for rank in Rank:
            if Rank.ONE <= rank <= Rank.SKIP:
                cards += [Card.of(colour, rank)] * 2
    cards += [Card.of(None, Rank.WILD)] * 4 + [Card.of(None, Rank.WILD_DRAW_FOUR)] * 4
    return tuple(cards)


def load_showdown_deck(path: str | Path | None = None) -> tuple[Card, ...]:
    """The Showdown deck from a deck definition file (the packaged one by default).

    Each symbol entry replaces one plain copy of that card in the classic deck;
    ``wild_showdown`` Wild Showdown cards are added.
    """
    data, name = read_deck_file(path, "showdown_deck.toml", ("wild_showdown", "symbols"))
    count = data.get("wild_showdown", 4)
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 20:
        raise DeckError(f"{name}: wild_showdown: must be a whole number 0-20, not {count!r}")
    symbols = data.get("symbols", [])
    if not isinstance(symbols, list):
        raise DeckError(f'{name}: symbols: must be a list of cards such as "R7!2"')
    plain = Counter(classic_deck())
    deck = list(classic_deck())
    for index, text in enumerate(symbols):
        where = f"{name}: symbols[{index}]"
        try:
            card = Card.parse(text)
        except NotationError as exc:
            raise DeckError(f"{where}: {exc}") from None
        if not card.showdown:
            raise DeckError(f'{where}: {text!r} has no Showdown number (write e.g. "R7!2")')
        base = Card.of(card.colour, card.rank)
        if plain[base] == 0:
            raise DeckError(
                f"{where}: {text!r}: the deck has no plain {base} left to carry the symbol"
            )
        plain[base] -= 1
        deck[deck.index(base)] = card
    deck += [Card.of(None, Rank.WILD_SHOWDOWN)] * count
    return tuple(deck)


_CLASSIC = Variant.classic()
_SHOWDOWN = Variant.showdown()
_PARTY = Variant.party()
