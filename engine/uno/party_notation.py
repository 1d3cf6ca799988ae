"""UNO Party!'s notation: Game's sixteen fields plus a seventeenth, ``party``.

The seventeenth field is ``-`` or ``;``-separated parts, in this order, each
present only when it applies::

    link=2+5              the linked pair (Wild Drawn Together)
    pile=G3,W,G+2         the mini pile, bottom first (its colour is the colour field)
    out=3                 player 3 went out during the pile up (pile_out=finish)
    point=3,?,-,x         the pointing, one entry per player: a player number
                          (their choice), ``?`` (a choice made, sealed), ``-``
                          (still to choose), ``x`` (takes no part)

>>> party = PartyState.parse("link=2+5;pile=G3,W", players=6)
>>> party.link, [str(c) for c in party.pile], party.format(reveal=True)
((2, 5), ['G3', 'W'], 'link=2+5;pile=G3,W')
"""

from __future__ import annotations

from typing import NamedTuple, NoReturn

from engine.game.errors import NotationError
from engine.uno.cards import TEXT, Card

__all__ = ["PartyState", "SEALED", "WAITING", "NO_PART"]

#: Pointing entries that are not a player number.
SEALED, WAITING, NO_PART = "?", "-", "x"


class PartyState(NamedTuple):
    """The Party!-only state: link, mini pile, who went out in it, the pointing
    (per player: a player number, WAITING or NO_PART; None: no pointing)."""

    link: tuple[int, int] | None = None
    pile: tuple[Card, ...] = ()
    out: int | None = None
    pointing: tuple[int | str, ...] | None = None

    def format(self, reveal: bool) -> str:
        parts = []
        if self.link is not None:
            parts.append("link={}+{}".format(*self.link))
        if self.pile:
            parts.append("pile=" + ",".join(TEXT[c] for c in self.pile))
        if self.out is not None:
            parts.append(f"out={self.out}")
        if self.pointing is not None:
            entries = (
                str(e) if reveal or not isinstance(e, int) else SEALED for e in self.pointing
            )
            parts.append("point=" + ",".join(entries))
        return ";".join(parts) or "-"

    @classmethod
    def parse(cls, text: str, players: int) -> PartyState:
        if text == "-":
            return cls()
        link: tuple[int, int] | None = None
        pile: tuple[Card, ...] = ()
        out: int | None = None
        pointing: tuple[int | str, ...] | None = None
        seen: set[str] = set()
        for part in text.split(";"):
            name, _, value = part.partition("=")
            if name in seen or name not in ("link", "pile", "out", "point") or not value:
                _fail(text, f"unknown or repeated part {part!r}")
            seen.add(name)
            if name == "link":
                a, plus, b = value.partition("+")
                link = (_player(text, a, players), _player(text, b, players))
                if not plus or link[0] >= link[1]:
                    _fail(text, f"link={value}: expected two different players, lower first")
            elif name == "pile":
                try:
                    pile = tuple(Card.parse(c) for c in value.split(","))
                except NotationError as exc:
                    _fail(text, str(exc))
            elif name == "out":
                out = _player(text, value, players)
            else:
                entries = value.split(",")
                if len(entries) != players:
                    _fail(text, f"point= has {len(entries)} entries for {players} players")
                if SEALED in entries:
                    raise NotationError(
                        f"invalid party field {text!r}: the pointing choices are sealed (?); "
                        "save the game with notation(reveal=True) to read it back"
                    )
                pointing = tuple(
                    e if e in (WAITING, NO_PART) else _player(text, e, players) for e in entries
                )
        return cls(link, pile, out, pointing)


def _player(text: str, value: str, players: int) -> int:
    if not value.isdigit() or (len(value) > 1 and value[0] == "0") or int(value) >= players:
        _fail(text, f"{value!r} is not a player 0-{players - 1}")
    return int(value)


def _fail(text: str, problem: str) -> NoReturn:
    raise NotationError(
        f"invalid party field {text!r}: {problem} "
        "(expected - or link=A+B;pile=CARDS;out=P;point=N,?,-,x)"
    )
