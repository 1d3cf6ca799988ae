"""UNO's events in words: the one voice of the terminal, its recap, the demo
and the browser table's log.

Each event of the match (engine.match, with UNO's narration: engine.uno.narration)
is one sentence, :func:`event_text`, written for whoever reads it: ``you`` is
the seated player (their own doings read "You play R5", "you take 2 cards"),
the others by name ("Ann plays R5"); ``you=None`` tells the table. A player
called You reads as "You play" too. The pieces (plurals, times in ms, "Ann vs
Bob", the verdicts) are ``firmware_host.people.words``'.

>>> from engine.match import MatchEvent
>>> names = ["Ann", "Bob", "bot2"]
>>> play = MatchEvent("play", 1, {"player": 2, "action": "B+2", "card": "B+2", "colour": "B",
...                               "uno": False, "cards_left": 5, "draws": {0: 2}})
>>> event_text(play, names), event_text(play, names, you=0)
('bot2 plays B+2; Ann draws 2.', 'bot2 plays B+2; you draw 2.')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from engine.uno.cards import Card, Rank
from firmware_host.people.words import capital, duel_verdict, plural, verb, versus

__all__ = ["event_text", "card_name", "COLOUR_WORDS", "sentence"]

#: A colour's letter (``str(colour)``, as events give it) in words.
COLOUR_WORDS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
_RANK_WORDS = {
    Rank.DRAW_TWO: "Draw Two",
    Rank.REVERSE: "Reverse",
    Rank.SKIP: "Skip",
    Rank.WILD: "Wild",
    Rank.WILD_DRAW_FOUR: "Wild Draw Four",
    Rank.WILD_SHOWDOWN: "Wild Showdown",
    Rank.POINT_TAKEN: "Point Taken",
    Rank.WILD_PILE_UP: "Wild Pile Up",
    Rank.WILD_DRAWN_TOGETHER: "Wild Drawn Together",
}


class Told(Protocol):
    """An event as the words read it: engine.match.MatchEvent, or one read back
    from a log. Its ``data`` holds plain values of the kinds events.py lists,
    of mixed types by key (hence Any)."""

    @property
    def kind(self) -> str: ...
    @property
    def round(self) -> int: ...
    @property
    def data(self) -> Mapping[str, Any]: ...


#: ``does(player, verb)``: a player (a seat from an event's data, so Any) as the
#: one told hears them.
_Does = Callable[[Any, str], str]


def card_name(card: Card) -> str:
    """``card_name(Card.parse("B+2"))`` -> ``'blue Draw Two'``.

    >>> card_name(Card.parse("R7!2")), card_name(Card.parse("W+4")), card_name(Card.parse("GP"))
    ('red 7 (showdown 2)', 'Wild Draw Four', 'green Point Taken')
    """
    rank = _RANK_WORDS.get(card.rank, str(card.number))
    colour = card.colour  # None for a wild
    name = rank if colour is None else f"{COLOUR_WORDS[str(colour)]} {rank}"
    return f"{name} (showdown {card.showdown})" if card.showdown else name


def event_text(event: Told, names: Sequence[str], you: int | None = None) -> str:
    """One sentence for ``event``, told to player ``you`` (None: to the table).

    >>> from engine.match import MatchEvent
    >>> showdown = MatchEvent("showdown", 1, {"showdown_id": "m1:r1:s1", "challenger": 0,
    ...     "opponent": 1, "names": ["Ann", "Bob"], "cause": "R7!2", "cards": 2, "loser": 1,
    ...     "winner": 0, "reason": "faster", "reaction_us": {0: 231049, 1: 254512},
    ...     "margin_us": 23463, "tie_reruns": 0, "detail": ""})
    >>> print(event_text(showdown, ["Ann", "Bob"], you=1))
    Showdown (R7!2): Ann vs you for 2 cards. Ann wins: Ann 231.0 ms, you 254.5 ms, \
margin 23.5 ms. You take 2 cards.
    """
    teller = _Teller(names, you)
    kind = event.kind
    if kind in _TOLD:
        return _TOLD[kind](teller, event)
    if kind in _PARTY_TOLD:
        text = _PARTY_TOLD[kind](teller, event.data)
        return text if text.startswith(tuple(f"{n}'s " for n in names)) else teller.said(text)
    return f"{kind}: {event.data}"


class _Teller:
    """Who hears an event: the players' names, and ``you``, the seated player
    (None: the table). A player is a seat from an event's data (Any: Told)."""

    def __init__(self, names: Sequence[str], you: int | None):
        self.names, self.you = names, you

    def who(self, player: Any) -> str:
        return "you" if player == self.you else self.names[player]

    def does(self, player: Any, base: str) -> str:
        return verb(self.who(player), base)

    def verb_of(self, player: Any, base: str) -> str:
        """The verb alone, as ``player`` takes it ("calls", "call")."""
        return verb(self.who(player), base).rsplit(" ", 1)[1]

    def said(self, text: str) -> str:
        return sentence(text, self.names)

    def linked(self, d: Mapping[str, Any], told: Sequence[Any]) -> str:
        return _linked(d, told, self.does)


def _match_start(t: _Teller, event: Told) -> str:
    d = event.data
    rules = "" if d["house_rules"] == "-" else f"; house rules {d['house_rules']}"
    return f"Match: {', '.join(d['players'])}; {d['variant']} to {d['target']} points{rules}."


def _round_start(t: _Teller, event: Told) -> str:
    d = event.data
    colour = "" if d["colour"] is None else f" ({COLOUR_WORDS[d['colour']]})"
    return (
        f"Round {event.round}: {t.does(d['dealer'], 'deal')}; {d['top']}{colour} turned up; "
        f"{t.does(d['first'], 'go')} first."
    )


def _play(t: _Teller, event: Told) -> str:
    d = event.data
    player = d["player"]
    text = f"{t.does(player, 'play')} {d['card']}"
    # A wild that names a colour (a Wild Pile Up names none): its action says "=".
    if "=" in d["action"] and d["colour"] is not None:
        text += f", naming {COLOUR_WORDS[d['colour']]}"
    if d["uno"]:
        text += f" and {t.verb_of(player, 'call')} UNO"
    text += _left(d.get("cards_left"))
    for other, count in d["draws"].items():
        text += f"; {t.does(other, 'draw')} {count}"
    return t.said(text + ".")


def _left(left: int | None) -> str:
    """How a play leaves the hand: going out, or the last cards counted."""
    if left == 0:
        return ", going out"
    if left is not None and left <= 2:
        return f" ({left} left)"
    return ""


def _draw(t: _Teller, event: Told) -> str:
    d = event.data
    player = d["player"]
    cards = "a card" if d["cards"] == 1 else plural(d["cards"], "card")
    return t.said(f"{t.does(player, 'draw')} {cards}{t.linked(d, (player,))}.")


def _keep(t: _Teller, event: Told) -> str:
    return t.said(f"{t.does(event.data['player'], 'keep')} the card.")


def _accept(t: _Teller, event: Told) -> str:
    d = event.data
    player = d["player"]
    return t.said(
        f"{t.does(player, 'draw')} {plural(d['cards'], 'card')} (the penalty)"
        f"{t.linked(d, (player,))}."
    )


def _challenge(t: _Teller, event: Told) -> str:
    d = event.data
    player = d["player"]
    said = f"{t.does(player, 'challenge')} the Wild Draw Four"
    if d["succeeded"]:
        offender = d["offender"]
        return t.said(
            f"{said}: {t.who(offender)} held a card of the colour; "
            f"{t.does(offender, 'draw')} {d['cards']}{t.linked(d, (offender,))}."
        )
    return t.said(
        f"{said}: it was legal; {t.does(player, 'draw')} {d['cards']}{t.linked(d, (player,))}."
    )


def _catch(t: _Teller, event: Told) -> str:
    d = event.data
    caught = d["caught"]
    return t.said(
        f"{t.does(d['player'], 'catch')} {t.who(caught)} without UNO: "
        f"{t.does(caught, 'draw')} {d['cards']}{t.linked(d, (caught,))}."
    )


def _colour(t: _Teller, event: Told) -> str:
    d = event.data
    return t.said(f"{t.does(d['player'], 'name')} {COLOUR_WORDS[d['colour']]}.")


def _face(t: _Teller, event: Told) -> str:
    d = event.data
    return t.said(
        f"{t.does(d['player'], 'face')} {t.who(d['opponent'])} in a showdown for "
        f"{plural(d['count'], 'card')}."
    )


def _showdown(t: _Teller, event: Told) -> str:
    d = event.data
    challenger, opponent, loser = d["challenger"], d["opponent"], d["loser"]
    two = {challenger: t.who(challenger), opponent: t.who(opponent)}
    verdict = duel_verdict(
        two, d["winner"], loser, d["reason"], d["reaction_us"], d["margin_us"], d["tie_reruns"]
    )
    return (
        f"Showdown ({d['cause']}): {versus(two[challenger], two[opponent])} for "
        f"{plural(d['cards'], 'card')}. {t.said(verdict)}. "
        f"{t.said(t.does(loser, 'take'))} {plural(d['cards'], 'card')}."
    )


def _round_end(t: _Teller, event: Told) -> str:
    d = event.data
    return f"Round {event.round} won by {t.who(d['winner'])} for {d['points']} points."


def _match_end(t: _Teller, event: Told) -> str:
    d = event.data
    winner = d["winner"]
    return t.said(
        f"{t.does(winner, 'win')} the match with {d['scores'][winner]} points after "
        f"{plural(d['rounds'], 'round')}."
    )


_TOLD: dict[str, Callable[[_Teller, Told], str]] = {
    "match_start": _match_start,
    "round_start": _round_start,
    "play": _play,
    "draw": _draw,
    "keep": _keep,
    "accept": _accept,
    "challenge": _challenge,
    "catch": _catch,
    "colour": _colour,
    "face": _face,
    "showdown": _showdown,
    "round_end": _round_end,
    "match_end": _match_end,
}


# -- UNO Party!'s events (speed plays, Point Taken, the mini pile, links) ---------------


def _speed(t: _Teller, d: Mapping[str, Any]) -> str:
    player = d["player"]
    if d["right"]:
        text = f"{t.does(player, 'speed-play')} {d['card']} out of turn"
        if d.get("uno"):
            text += f" and {t.verb_of(player, 'call')} UNO"
        text += _left(d.get("cards_left"))
        following = d.get("next")
        if following is None:
            return f"{text}."
        return f"{text}; {t.said(t.does(following, 'play'))} next."
    drew = d.get("drew")
    top = d.get("top", "the top card")
    return (
        f"{t.does(player, 'speed-play')} {d['card']} on {top}: not the same card; "
        f"{t.who(player)} {t.verb_of(player, 'take')} it back and "
        f"{t.verb_of(player, 'draw')} {1 if drew is None else drew}{t.linked(d, (player,))}."
    )


def _point_taken(t: _Teller, d: Mapping[str, Any]) -> str:
    return (
        f"{_possessive(t.who(d['player']))} Point Taken: everyone points at another player; "
        "nobody sees whom until all have pointed."
    )


def _pointed(t: _Teller, d: Mapping[str, Any]) -> str:
    return f"{t.does(d['player'], 'point')} (whom stays hidden)."


def _pointing(t: _Teller, d: Mapping[str, Any]) -> str:
    choices = {int(p): int(c) for p, c in d["choices"].items()}
    draws = {int(p): int(n) for p, n in d["draws"].items() if n}
    pointed = ", ".join(f"{t.who(p)} at {t.who(c)}" for p, c in sorted(choices.items()))
    drawn = "; ".join(f"{t.does(p, 'draw')} {n}" for p, n in sorted(draws.items()))
    return f"Everyone points: {pointed}. {t.said(drawn) if drawn else 'Nobody draws'}."


def _pile_start(t: _Teller, d: Mapping[str, Any]) -> str:
    flipped = " ".join(d.get("flipped") or ())
    colour = COLOUR_WORDS.get(d.get("colour") or "", "no colour")
    first = d.get("next")
    adds = "" if first is None else f" {t.said(t.does(first, 'add'))} first."
    return (
        f"Wild Pile Up: the mini pile is {flipped or 'empty'} ({colour}). In turn, each adds "
        f"a {colour} card or a wild (no effects), or takes the pile.{adds}"
    )


def _pile_add(t: _Teller, d: Mapping[str, Any]) -> str:
    player = d["player"]
    text = f"{t.does(player, 'add')} {d['card']} to the mini pile"
    if d.get("uno"):
        text += f" and {t.verb_of(player, 'call')} UNO"
    return text + _left(d.get("cards_left")) + "."


def _pile_take(t: _Teller, d: Mapping[str, Any]) -> str:
    player, cards = d["player"], d["cards"]
    count = len(cards) if isinstance(cards, (list, tuple)) else int(cards)
    text = f"{t.does(player, 'take')} the mini pile: {plural(count, 'card')}"
    return text + t.linked(d, (player,)) + "."


def _link(t: _Teller, d: Mapping[str, Any]) -> str:
    a, b = d["linked"]
    return (
        f"{t.does(d['player'], 'link')} {t.who(a)} and {t.who(b)}: when one draws, "
        "the other draws as many."
    )


def _claim_lost(t: _Teller, d: Mapping[str, Any]) -> str:
    words = str(d["action"]).split()
    if words[0] == "catch" and len(words) == 2 and words[1].isdigit():
        what = f"catch of {t.who(int(words[1]))}"
    elif words[0] == "speed":
        what = f"speed play ({' '.join(words[1:])})"
    else:
        what = str(d["action"])
    return f"{_possessive(t.who(d['player']))} {what} came too late: someone was quicker."


_PARTY_TOLD: dict[str, Callable[[_Teller, Mapping[str, Any]], str]] = {
    "speed": _speed,
    "point_taken": _point_taken,
    "pointed": _pointed,
    "pointing": _pointing,
    "pile_start": _pile_start,
    "pile_add": _pile_add,
    "pile_take": _pile_take,
    "link": _link,
    "claim_lost": _claim_lost,
}


def _linked(data: Mapping[str, Any], told: Sequence[Any], does: _Does) -> str:
    """UNO Party!: the draws of linked players (``data["draws"]``, those not in ``told``)."""
    draws = data.get("draws") or {}
    parts = [f"; {does(p, 'draw')} {n} (linked)" for p, n in draws.items() if p not in told and n]
    return "".join(parts)


def _possessive(name: str) -> str:
    return "your" if name.casefold() == "you" else f"{name}'s"


def sentence(text: str, names: Sequence[str] = ()) -> str:
    """``text`` as a sentence: a capital first, unless it starts with a name,
    which stays as written ("bot2 plays").

    >>> sentence("you play R5."), sentence("bot2 wins", ["Ann", "bot2"])
    ('You play R5.', 'bot2 wins')
    """
    if any(text.startswith(f"{name} ") for name in names):
        return text
    return capital(text)
