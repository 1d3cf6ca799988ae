"""Actions: every decision a game can ask for, with a text form that round-trips.

One ``Action`` type covers all of them; ``kind`` says which:

=================  ==================  =========================================
kind               text                meaning
=================  ==================  =========================================
PLAY               ``R5``, ``W+4=B``   play a card (a wild names its colour)
PLAY with UNO      ``R5 uno``          play the second-to-last card and call UNO
DRAW               ``draw``            draw instead of playing (always allowed)
KEEP               ``keep``            keep the card just drawn; the turn ends
CHALLENGE          ``challenge``       challenge the Wild Draw Four just played
ACCEPT             ``accept``          take the pending draw penalty
CATCH              ``catch 1``         player 1 did not call UNO and is caught
CHOOSE_COLOUR      ``colour G``        name the colour of a wild turned first
CHOOSE_SHOWDOWN    ``face 2 x3``       a Wild Showdown: face player 2 for 3 cards
SHOWDOWN_RESULT    ``loser 1``         the unit's answer: player 1 lost
SPEED_PLAY         ``speed R5``        UNO Party!: play R5 out of turn
POINT              ``point 3``         UNO Party!: point at player 3 (Point Taken)
TAKE_PILE          ``take``            UNO Party!: take the mini pile
=================  ==================  =========================================

UNO Party! also plays ``WT=G 2+5`` (a Wild Drawn Together naming green and
linking players 2 and 5), ``WP`` (a Wild Pile Up names no colour) and, on a mini
pile, wilds without a colour (``W``, ``W+4``).

>>> Action.parse("W+4=B")
Action.parse('W+4=B')
>>> str(Action.play(Card.parse("R5"), uno=True))
'R5 uno'
>>> Action.parse("face 2 x3").count
3

Actions are shared values: building the same action twice gives the same
object, so ``==`` and ``hash()`` are by identity and cost next to nothing
(``legal_actions()`` and ``apply()`` are the engine's hot path, and callers test
membership in the legal tuple on every decision).

>>> Action.parse("catch 1") is Action.catch(1)
True
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import NoReturn

from engine.game.errors import NotationError
from engine.uno.cards import CARD, COLOURS, MAX_SHOWDOWN, Card, Colour, Rank

__all__ = ["ActionKind", "Action"]


class ActionKind(enum.IntEnum):
    PLAY = 0
    DRAW = 1
    KEEP = 2
    CHALLENGE = 3
    ACCEPT = 4
    CATCH = 5
    CHOOSE_COLOUR = 6
    CHOOSE_SHOWDOWN = 7
    SHOWDOWN_RESULT = 8
    SPEED_PLAY = 9
    POINT = 10
    TAKE_PILE = 11


(
    PLAY,
    DRAW,
    KEEP,
    CHALLENGE,
    ACCEPT,
    CATCH,
    CHOOSE_COLOUR,
    CHOOSE_SHOWDOWN,
    SHOWDOWN_RESULT,
    SPEED_PLAY,
    POINT,
    TAKE_PILE,
) = ActionKind

_WORDS = {DRAW: "draw", KEEP: "keep", CHALLENGE: "challenge", ACCEPT: "accept", TAKE_PILE: "take"}
_BY_WORD = {word: kind for kind, word in _WORDS.items()}


class Action:
    """One decision. Build it with the class methods or ``Action.parse``.

    ``player`` is the caught player (CATCH), the opponent (CHOOSE_SHOWDOWN),
    the loser (SHOWDOWN_RESULT) or the player pointed at (POINT); ``count`` is a
    Wild Showdown's card count; ``link`` the pair a Wild Drawn Together links.
    Immutable; one shared instance per distinct action.
    """

    __slots__ = ("kind", "card", "colour", "player", "count", "uno", "link")

    kind: ActionKind
    card: Card | None
    colour: Colour | None
    player: int | None
    count: int | None
    uno: bool
    link: tuple[int, int] | None

    def __new__(
        cls,
        kind: ActionKind,
        card: Card | None = None,
        colour: Colour | None = None,
        player: int | None = None,
        count: int | None = None,
        uno: bool = False,
        link: tuple[int, int] | None = None,
    ) -> Action:
        key = (kind, card, colour, player, count, uno, link)
        action = _SHARED.get(key)
        if action is None:
            action = object.__new__(cls)
            values = (
                ActionKind(kind),
                None if card is None else CARD[card],
                None if colour is None else COLOURS[colour],
                player,
                count,
                bool(uno),
                link,
            )
            for name, value in zip(cls.__slots__, values, strict=True):
                object.__setattr__(action, name, value)
            _SHARED[key] = action
        return action

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"an Action is immutable (tried to set {name})")

    def __reduce__(self) -> tuple[Callable[[str], Action], tuple[str]]:
        return Action.parse, (str(self),)

    @classmethod
    def play(
        cls,
        card: Card,
        colour: Colour | None = None,
        uno: bool = False,
        link: tuple[int, int] | None = None,
    ) -> Action:
        """Play ``card``; a wild needs ``colour``; ``uno`` calls UNO with it.

        UNO Party!: a Wild Drawn Together names ``link``, the two players it links
        (stored sorted), with its colour; a Wild Pile Up names no colour, and
        neither does a wild added to a mini pile.
        """
        card = Card.parse(card) if isinstance(card, str) else card
        if card is None or CARD[card] is None:
            raise NotationError(f"not a card: {card!r}")
        if link is not None:
            if card.rank is not Rank.WILD_DRAWN_TOGETHER or colour is None:
                raise NotationError(
                    f"{card}: only a Wild Drawn Together naming a colour links players"
                )
            a, b = sorted((_index(link[0]), _index(link[1]))) if len(link) == 2 else (0, 0)
            if a == b:
                raise NotationError(f"a link joins two different players, not {link!r}")
            return cls(PLAY, card, COLOURS[colour], uno=bool(uno), link=(a, b))
        if colour is None and card.is_wild:
            return cls(PLAY, card, uno=bool(uno))  # a Wild Pile Up, or added to a pile
        if card.rank is Rank.WILD_DRAWN_TOGETHER and colour is not None:  # no link to choose
            return cls(PLAY, card, COLOURS[colour], uno=bool(uno))
        if card.is_wild != (colour is not None) or card.rank is Rank.WILD_PILE_UP:
            raise NotationError(f"{card}: a wild card needs a colour, a coloured card takes none")
        return _PLAYS[card, None if colour is None else COLOURS[colour], bool(uno)]

    @classmethod
    def speed(cls, card: Card, uno: bool = False) -> Action:
        """UNO Party!: play ``card`` out of turn (a wrong one costs a card)."""
        card = Card.parse(card) if isinstance(card, str) else card
        if card is None or CARD[card] is None:
            raise NotationError(f"not a card: {card!r}")
        return cls(SPEED_PLAY, CARD[card], uno=bool(uno))

    @classmethod
    def point(cls, player: int) -> Action:
        """UNO Party!: point at ``player`` (Point Taken)."""
        return cls(POINT, player=_index(player))

    @classmethod
    def take(cls) -> Action:
        """UNO Party!: take the mini pile."""
        return _TAKE

    @classmethod
    def draw(cls) -> Action:
        return _DRAW

    @classmethod
    def keep(cls) -> Action:
        return _KEEP

    @classmethod
    def challenge(cls) -> Action:
        return _CHALLENGE

    @classmethod
    def accept(cls) -> Action:
        return _ACCEPT

    @classmethod
    def catch(cls, player: int) -> Action:
        """Someone caught ``player`` holding one card without having called UNO."""
        return cls(CATCH, player=_index(player))

    @classmethod
    def choose_colour(cls, colour: Colour) -> Action:
        return _COLOUR_CHOICES[COLOURS[colour]]

    @classmethod
    def face(cls, opponent: int, count: int) -> Action:
        """A Wild Showdown's choice: the opponent to face and the cards at stake."""
        if not isinstance(count, int) or not 1 <= count <= MAX_SHOWDOWN:
            raise NotationError(f"a showdown is for 1-{MAX_SHOWDOWN} cards, not {count!r}")
        return cls(CHOOSE_SHOWDOWN, player=_index(opponent), count=count)

    @classmethod
    def showdown_result(cls, loser: int) -> Action:
        """The pending showdown's result: who lost (and takes the cards)."""
        return cls(SHOWDOWN_RESULT, player=_index(loser))

    @classmethod
    def parse(cls, text: str) -> Action:
        """The action written as ``text``; see the module docstring for the forms."""
        try:
            action = cls._parse_words(text.split(" ") if isinstance(text, str) else [])
        except (NotationError, IndexError):
            action = None
        if action is None:
            raise NotationError(
                f"invalid action {text!r}: expected e.g. R5, W=G, R5 uno, draw, keep, challenge, "
                "accept, catch 1, colour R, face 1 x2, loser 0; UNO Party!: speed R5, point 3, "
                "take, WP, WT=G 2+5"
            )
        return action

    @classmethod
    def _parse_words(cls, words: list[str]) -> Action | None:
        if len(words) == 1 and words[0] in _BY_WORD:
            return _SIMPLE[_BY_WORD[words[0]]]
        if words[0] == "speed" and len(words) in (2, 3) and words[2:] in ([], ["uno"]):
            return cls.speed(Card.parse(words[1]), uno=len(words) == 3)
        if words[0] == "point" and len(words) == 2:
            return cls.point(_number(words[1]))
        if (
            words[0].startswith("WT=")
            and len(words) in (2, 3)
            and words[1] != "uno"
            and words[2:] in ([], ["uno"])
        ):
            a, plus, b = words[1].partition("+")
            if not plus:
                return None
            return cls.play(
                Card.parse("WT"),
                Colour.parse(words[0][3:]),
                uno=len(words) == 3,
                link=(_number(a), _number(b)),
            )
        if words[0] == "catch" and len(words) == 2:
            return cls.catch(_number(words[1]))
        if words[0] == "loser" and len(words) == 2:
            return cls.showdown_result(_number(words[1]))
        if words[0] == "colour" and len(words) == 2:
            return cls.choose_colour(Colour.parse(words[1]))
        if words[0] == "face" and len(words) == 3 and words[2][:1] == "x":
            return cls.face(_number(words[1]), _number(words[2][1:]))
        if len(words) in (1, 2) and (len(words) == 1 or words[1] == "uno"):
            card, _, colour = words[0].partition("=")
            return cls.play(
                Card.parse(card), Colour.parse(colour) if colour else None, uno=len(words) == 2
            )
        return None

    @property
    def is_passive(self) -> bool:
        """True for draw and keep: the decisions that play no card."""
        return self.kind is DRAW or self.kind is KEEP

    def __str__(self) -> str:
        kind = self.kind
        if kind is PLAY:
            text = str(self.card) if self.colour is None else f"{self.card}={self.colour}"
            if self.link is not None:
                text += " {}+{}".format(*self.link)
            return text + " uno" if self.uno else text
        if kind is SPEED_PLAY:
            return f"speed {self.card} uno" if self.uno else f"speed {self.card}"
        if kind is POINT:
            return f"point {self.player}"
        if kind in _WORDS:
            return _WORDS[kind]
        if kind is CATCH:
            return f"catch {self.player}"
        if kind is SHOWDOWN_RESULT:
            return f"loser {self.player}"
        if kind is CHOOSE_COLOUR:
            return f"colour {self.colour}"
        return f"face {self.player} x{self.count}"

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"


def _index(player: object) -> int:
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < 64:
        raise NotationError(f"a player is an index 0, 1, 2... (below 64), not {player!r}")
    return int(player)


def _number(text: str) -> int:
    if not text.isdigit() or (len(text) > 1 and text[0] == "0"):
        raise NotationError(f"not a number: {text!r}")
    return int(text)


#: Every action built, by its fields (``Action.__new__``'s arguments).
_SHARED: dict[
    tuple[
        ActionKind, Card | None, Colour | None, int | None, int | None, bool, tuple[int, int] | None
    ],
    Action,
] = {}
_DRAW, _KEEP, _CHALLENGE, _ACCEPT = (Action(k) for k in (DRAW, KEEP, CHALLENGE, ACCEPT))
_TAKE = Action(TAKE_PILE)
_SIMPLE = {DRAW: _DRAW, KEEP: _KEEP, CHALLENGE: _CHALLENGE, ACCEPT: _ACCEPT, TAKE_PILE: _TAKE}
_COLOUR_CHOICES = {c: Action(CHOOSE_COLOUR, colour=c) for c in COLOURS}


def _build_plays() -> dict[tuple[Card, Colour | None, bool], Action]:
    plays: dict[tuple[Card, Colour | None, bool], Action] = {}
    for card in CARD:
        if card is None or card.rank in (Rank.WILD_PILE_UP, Rank.WILD_DRAWN_TOGETHER):
            continue  # Party!'s wilds: built on demand (Action.play), never in Game's tables
        for uno in (False, True):
            if card.is_wild:
                for colour in COLOURS:
                    plays[card, colour, uno] = Action(PLAY, card, colour, uno=uno)
            else:
                plays[card, None, uno] = Action(PLAY, card, uno=uno)
    return plays


_PLAYS = _build_plays()
