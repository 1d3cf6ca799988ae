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


#: ``who(player)`` and ``does(player, verb)``: a player (a seat from an event's
#: data, so Any) as the one told hears them.
_Who = Callable[[Any], str]
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
    d = event.data

    def _said(text: str) -> str:
        return sentence(text, names)

    # A player is a seat from the event's data, whose values are Any (Told).
    def who(player: Any) -> str:
        return "you" if player == you else names[player]

    def does(player: Any, base: str) -> str:
        return verb(who(player), base)

    kind = event.kind
    if kind == "match_start":
        rules = "" if d["house_rules"] == "-" else f"; house rules {d['house_rules']}"
        return f"Match: {', '.join(d['players'])}; {d['variant']} to {d['target']} points{rules}."
    if kind == "round_start":
        colour = "" if d["colour"] is None else f" ({COLOUR_WORDS[d['colour']]})"
        return (
            f"Round {event.round}: {does(d['dealer'], 'deal')}; {d['top']}{colour} turned up; "
            f"{does(d['first'], 'go')} first."
        )
    player = d.get("player")
    if kind == "play":
        text = f"{does(player, 'play')} {d['card']}"
        # A wild that names a colour (a Wild Pile Up names none): its action says "=".
        if "=" in d["action"] and d["colour"] is not None:
            text += f", naming {COLOUR_WORDS[d['colour']]}"
        if d["uno"]:
            text += f" and {verb(who(player), 'call').rsplit(' ', 1)[1]} UNO"
        if d["cards_left"] == 0:
            text += ", going out"
        elif d["cards_left"] <= 2:
            text += f" ({d['cards_left']} left)"
        for other, count in d["draws"].items():
            text += f"; {does(other, 'draw')} {count}"
        return _said(text + ".")
    if kind == "draw":
        cards = "a card" if d["cards"] == 1 else plural(d["cards"], "card")
        return _said(f"{does(player, 'draw')} {cards}{_linked(d, (player,), does)}.")
    if kind == "keep":
        return _said(f"{does(player, 'keep')} the card.")
    if kind == "accept":
        return _said(
            f"{does(player, 'draw')} {plural(d['cards'], 'card')} (the penalty)"
            f"{_linked(d, (player,), does)}."
        )
    if kind == "challenge":
        said = f"{does(player, 'challenge')} the Wild Draw Four"
        if d["succeeded"]:
            offender = d["offender"]
            return _said(
                f"{said}: {who(offender)} held a card of the colour; "
                f"{does(offender, 'draw')} {d['cards']}{_linked(d, (offender,), does)}."
            )
        return _said(
            f"{said}: it was legal; {does(player, 'draw')} {d['cards']}"
            f"{_linked(d, (player,), does)}."
        )
    if kind == "catch":
        caught = d["caught"]
        return _said(
            f"{does(player, 'catch')} {who(caught)} without UNO: {does(caught, 'draw')} "
            f"{d['cards']}{_linked(d, (caught,), does)}."
        )
    if kind == "colour":
        return _said(f"{does(player, 'name')} {COLOUR_WORDS[d['colour']]}.")
    if kind == "face":
        return _said(
            f"{does(player, 'face')} {who(d['opponent'])} in a showdown for "
            f"{plural(d['count'], 'card')}."
        )
    if kind == "showdown":
        challenger, opponent, loser = d["challenger"], d["opponent"], d["loser"]
        two = {challenger: who(challenger), opponent: who(opponent)}
        verdict = duel_verdict(
            two,
            d["winner"],
            loser,
            d["reason"],
            d["reaction_us"],
            d["margin_us"],
            d["tie_reruns"],
        )
        return (
            f"Showdown ({d['cause']}): {versus(two[challenger], two[opponent])} for "
            f"{plural(d['cards'], 'card')}. {sentence(verdict, names)}. "
            f"{sentence(does(loser, 'take'), names)} {plural(d['cards'], 'card')}."
        )
    party = _party_text(event, names, who, does)
    if party is not None:
        return party if party.startswith(tuple(f"{n}'s " for n in names)) else _said(party)
    if kind == "round_end":
        return f"Round {event.round} won by {who(d['winner'])} for {d['points']} points."
    if kind == "match_end":
        winner = d["winner"]
        return _said(
            f"{does(winner, 'win')} the match with {d['scores'][winner]} points after "
            f"{plural(d['rounds'], 'round')}."
        )
    return f"{kind}: {d}"


def _party_text(event: Told, names: Sequence[str], who: _Who, does: _Does) -> str | None:
    """UNO Party!'s events (speed plays, Point Taken, the mini pile, links), or None."""
    d = event.data
    kind = event.kind
    player = d.get("player")
    if kind == "speed":
        if d["right"]:
            text = f"{does(player, 'speed-play')} {d['card']} out of turn"
            if d.get("uno"):
                text += f" and {verb(who(player), 'call').rsplit(' ', 1)[1]} UNO"
            left = d.get("cards_left")
            if left == 0:
                text += ", going out"
            elif left is not None and left <= 2:
                text += f" ({left} left)"
            following = d.get("next")
            if following is None:
                return f"{text}."
            return f"{text}; {sentence(does(following, 'play'), names)} next."
        drew = d.get("drew")
        top = d.get("top", "the top card")
        took = verb(who(player), "take").rsplit(" ", 1)[1]
        drawn = verb(who(player), "draw").rsplit(" ", 1)[1]
        return (
            f"{does(player, 'speed-play')} {d['card']} on {top}: not the same card; "
            f"{who(player)} {took} it back and {drawn} {1 if drew is None else drew}"
            f"{_linked(d, (player,), does)}."
        )
    if kind == "point_taken":
        return (
            f"{_possessive(who(player))} Point Taken: everyone points at another player; "
            "nobody sees whom until all have pointed."
        )
    if kind == "pointed":
        return f"{does(player, 'point')} (whom stays hidden)."
    if kind == "pointing":
        choices = {int(p): int(t) for p, t in d["choices"].items()}
        draws = {int(p): int(n) for p, n in d["draws"].items() if n}
        pointed = ", ".join(f"{who(p)} at {who(t)}" for p, t in sorted(choices.items()))
        drawn = "; ".join(f"{does(p, 'draw')} {n}" for p, n in sorted(draws.items()))
        return f"Everyone points: {pointed}. {sentence(drawn, names) if drawn else 'Nobody draws'}."
    if kind == "pile_start":
        flipped = " ".join(d.get("flipped") or ())
        colour = COLOUR_WORDS.get(d.get("colour") or "", "no colour")
        first = d.get("next")
        adds = "" if first is None else f" {sentence(does(first, 'add'), names)} first."
        return (
            f"Wild Pile Up: the mini pile is {flipped or 'empty'} ({colour}). In turn, each adds "
            f"a {colour} card or a wild (no effects), or takes the pile.{adds}"
        )
    if kind == "pile_add":
        text = f"{does(player, 'add')} {d['card']} to the mini pile"
        if d.get("uno"):
            text += f" and {verb(who(player), 'call').rsplit(' ', 1)[1]} UNO"
        left = d.get("cards_left")
        if left == 0:
            text += ", going out"
        elif left is not None and left <= 2:
            text += f" ({left} left)"
        return text + "."
    if kind == "pile_take":
        cards = d["cards"]
        count = len(cards) if isinstance(cards, (list, tuple)) else int(cards)
        text = f"{does(player, 'take')} the mini pile: {plural(count, 'card')}"
        return text + _linked(d, (player,), does) + "."
    if kind == "link":
        a, b = d["linked"]
        return (
            f"{does(player, 'link')} {who(a)} and {who(b)}: when one draws, "
            "the other draws as many."
        )
    if kind == "claim_lost":
        words = str(d["action"]).split()
        if words[0] == "catch" and len(words) == 2 and words[1].isdigit():
            what = f"catch of {who(int(words[1]))}"
        elif words[0] == "speed":
            what = f"speed play ({' '.join(words[1:])})"
        else:
            what = str(d["action"])
        return f"{_possessive(who(player))} {what} came too late: someone was quicker."
    return None


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
