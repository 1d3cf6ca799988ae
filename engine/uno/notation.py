"""The one-line game notation: text <-> ``Position`` (plain values, no rules).

``Game.notation()`` and ``Game.from_notation()`` build on this module; the
rules-level checks live in ``engine.uno.game``. The format is described, with
examples, in docs/notation.md. Sixteen space-separated fields::

    variant hands draw discard colour direction player phase uno showdown
    scores dealer round target house-rules rng

>>> text = ("classic R5,B+2/Y3,W G1,B9 Y7,R7 R + 0 play - - 0,0 1 1 500 - 2a:1")
>>> position = Position.parse(text)
>>> [str(card) for card in position.hands[1]], position.draw[0], position.phase
(['Y3', 'W'], Card.parse('G1'), 'play')
>>> position.format() == text
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, NoReturn

from engine.game.errors import NotationError
from engine.uno.cards import TEXT, Card, Colour
from engine.uno.rules import HouseRules

__all__ = ["Position", "FIELDS", "PHASES"]

FIELDS = (
    "variant",
    "hands",
    "draw",
    "discard",
    "colour",
    "direction",
    "player",
    "phase",
    "uno",
    "showdown",
    "scores",
    "dealer",
    "round",
    "target",
    "house-rules",
    "rng",
)
#: Phase words; ``penalty`` carries the pending draw count (and, under a Wild
#: Draw Four, whether it was played legally): ``penalty:4:illegal``.
PHASES = ("play", "drawn", "penalty", "colour", "face", "over")


class Position(NamedTuple):
    """Every field of a notation line as plain values (cards as ``Card``; ``format``
    also takes plain card codes).

    ``draw`` lists the draw pile next card first; ``discard`` bottom first (top
    last); ``colour`` is None before a first wild's colour is named; ``phase``
    is a word of PHASES and ``pending``/``wd4_legal`` belong to ``penalty``;
    ``showdown`` is (challenger, opponent, cards in the unit) or None.
    """

    variant: str
    hands: Sequence[Sequence[int]]
    draw: Sequence[int]
    discard: Sequence[int]
    colour: Colour | None
    direction: int
    player: int
    phase: str
    pending: int
    wd4_legal: bool | None
    catchable: int | None
    showdown: tuple[int, int, Sequence[int]] | None
    scores: Sequence[int]
    dealer: int
    round: int
    target: int
    house_rules: HouseRules
    seed: int
    shuffles: int

    def format(self) -> str:
        phase = self.phase
        if phase == "penalty":
            phase = f"penalty:{self.pending}"
            if self.wd4_legal is not None:
                phase += ":legal" if self.wd4_legal else ":illegal"
        showdown = "-"
        if self.showdown is not None:
            challenger, opponent, cards = self.showdown
            showdown = f"{challenger}v{opponent}:{_cards(cards)}"
        return " ".join(
            (
                self.variant,
                "/".join(",".join(map(TEXT.__getitem__, hand)) for hand in self.hands),
                _cards(self.draw),
                _cards(self.discard),
                "-" if self.colour is None else str(self.colour),
                "+" if self.direction == 1 else "-",
                str(self.player),
                phase,
                "-" if self.catchable is None else str(self.catchable),
                showdown,
                ",".join(map(str, self.scores)),
                str(self.dealer),
                str(self.round),
                str(self.target),
                str(self.house_rules),
                f"{self.seed:x}:{self.shuffles}",
            )
        )

    @classmethod
    def parse(cls, text: str) -> Position:
        """Split and type-check a notation line; raises NotationError naming the field."""
        if not isinstance(text, str):
            raise NotationError(f"notation must be a str, not {type(text).__name__}")
        fields = text.split(" ")
        if len(fields) != len(FIELDS):
            raise NotationError(
                f"notation has {len(fields)} fields, expected {len(FIELDS)} "
                f"({' '.join(FIELDS)}): {text!r}"
            )
        (
            variant,
            hands_field,
            draw,
            discard,
            colour_field,
            direction,
            player,
            phase,
            uno,
            showdown_field,
            scores,
            dealer,
            round_,
            target,
            house_field,
            rng,
        ) = fields
        field = _Field(text)
        hands = [field.cards("hands", part, empty="") for part in hands_field.split("/")]
        phase, pending, wd4_legal = _phase(field, phase)
        showdown = _showdown(field, showdown_field)
        if direction not in ("+", "-"):
            field.fail("direction", direction, "expected + or -")
        seed, shuffles = _rng(field, rng)
        house, colour = _house_and_colour(text, house_field, colour_field)
        return cls(
            variant=variant,
            hands=hands,
            draw=field.cards("draw", draw),
            discard=field.cards("discard", discard),
            colour=colour,
            direction=1 if direction == "+" else -1,
            player=field.number("player", player),
            phase=phase,
            pending=pending,
            wd4_legal=wd4_legal,
            catchable=None if uno == "-" else field.number("uno", uno),
            showdown=showdown,
            scores=[field.number("scores", s) for s in scores.split(",")],
            dealer=field.number("dealer", dealer),
            round=field.number("round", round_),
            target=field.number("target", target),
            house_rules=house,
            seed=seed,
            shuffles=shuffles,
        )


def _phase(field: _Field, text: str) -> tuple[str, int, bool | None]:
    """The phase field: the phase, a penalty's pending count and, for a Wild
    Draw Four's, whether it was legal (``penalty:N[:legal|:illegal]``)."""
    phase, *extra = text.split(":")
    if phase not in PHASES or (phase == "penalty") != bool(extra):
        field.fail(
            "phase",
            text,
            "expected " + ", ".join(PHASES) + " (penalty:N or penalty:N:legal|illegal)",
        )
    if not extra:
        return phase, 0, None
    pending = field.number("phase", extra[0])
    if len(extra) > 2 or (len(extra) == 2 and extra[1] not in ("legal", "illegal")):
        field.fail("phase", text, "expected penalty:N[:legal|:illegal]")
    return phase, pending, (extra[1] == "legal") if len(extra) == 2 else None


def _house_and_colour(
    line: str, house_field: str, colour_field: str
) -> tuple[HouseRules, Colour | None]:
    """The house rules and the colour in force, each read by its own parser."""
    try:
        house = HouseRules.parse(house_field)
        return house, None if colour_field == "-" else Colour.parse(colour_field)
    except NotationError as exc:
        raise NotationError(f"{exc} in {line!r}") from None


def _rng(field: _Field, text: str) -> tuple[int, int]:
    """The rng field: the match's seed (hex) and the shuffles made so far."""
    seed_hex, _, shuffles = text.partition(":")
    try:
        seed = int(seed_hex, 16)
    except ValueError:
        field.fail("rng", text, "expected SEED:COUNT, the seed in hex")
    return seed, field.number("rng", shuffles)


def _showdown(field: _Field, text: str) -> tuple[int, int, list[Card]] | None:
    """The showdown field: ``-``, or ``CvO:cards`` (challenger, opponent, the cards)."""
    if text == "-":
        return None
    players, _, cards = text.partition(":")
    challenger, _, opponent = players.partition("v")
    return (
        field.number("showdown", challenger),
        field.number("showdown", opponent),
        field.cards("showdown", cards, empty=None),
    )


def _cards(cards: Iterable[int]) -> str:
    return ",".join(map(TEXT.__getitem__, cards)) or "-"


class _Field:
    """Parses single fields, naming the field and the whole line on error."""

    def __init__(self, text: str):
        self.text = text

    def fail(self, name: str, value: str, expected: str) -> NoReturn:
        raise NotationError(f"invalid {name} field {value!r}: {expected}, in {self.text!r}")

    def number(self, name: str, value: str) -> int:
        if not value.isdigit() or not value.isascii() or (len(value) > 1 and value[0] == "0"):
            self.fail(name, value, "expected a whole number")
        return int(value)

    def cards(self, name: str, value: str, empty: str | None = "-") -> list[Card]:
        if value == empty:
            return []
        try:
            return [Card.parse(part) for part in value.split(",")]
        except NotationError as exc:
            self.fail(name, value, str(exc))
