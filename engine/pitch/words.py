"""Pitch's events and actions in words: one sentence per event, for a seat or the table.

``you`` is the seat told (its own doings read "You bid 5"); ``you=None`` tells
the table. Partners are named as a team: "Ann and Cy".

>>> from engine.match import MatchEvent
>>> names = ["Ann", "Bob", "Cy", "Di"]
>>> event_text(MatchEvent("bid", 1, {"player": 1, "action": "bid moon", "bid": 10}), names)
'Bob bids Shoot the Moon.'
>>> play = MatchEvent("play", 1, {"player": 0, "action": "play HJ", "card": "HJ"})
>>> event_text(play, names, you=0)
'You play the high joker.'
>>> end = MatchEvent("match_end", 3, {"winner": 1, "scores": [40, 53, 40, 53]})
>>> event_text(end, names), event_text(end, names, you=3)
('Bob and Di win the match, 53 to 40.', 'Your team (Bob and Di) wins the match, 53 to 40.')
>>> card_name("JD"), bid_name(None), action_text(Action.parse("give"), names)
('jack of diamonds', 'pass', 'give the stock to your partner unseen')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from engine.pitch.actions import MOON, PLAIN_TEN, Action, Kind
from engine.pitch.cards import HIGH_JOKER, LOW_JOKER, SUIT_NAMES
from firmware_host.people.words import capital, plural, verb

__all__ = ["event_text", "card_name", "bid_name", "action_text", "team_name", "SUIT_NAMES"]

_RANK_NAMES = {
    "A": "ace",
    "K": "king",
    "Q": "queen",
    "J": "jack",
    "T": "10",
    **{str(n): str(n) for n in range(2, 10)},
}


class Told(Protocol):
    """An event as the words read it (engine.match.MatchEvent, or one read from a log)."""

    @property
    def kind(self) -> str: ...
    @property
    def round(self) -> int: ...
    @property
    def data(self) -> Mapping[str, Any]: ...


def card_name(card: str | None) -> str:
    """``"AH"`` -> ``"ace of hearts"``, ``"HJ"`` -> ``"high joker"``; None: a face-down card."""
    if card is None:
        return "a card face down"
    if card == HIGH_JOKER:
        return "high joker"
    if card == LOW_JOKER:
        return "low joker"
    return f"{_RANK_NAMES[card[0]]} of {SUIT_NAMES[card[1]]}"


def _the(card: str | None) -> str:
    name = card_name(card)
    return name if card is None else f"the {name}"


def bid_name(bid: int | None) -> str:
    """``4`` -> ``"4"``, MOON -> ``"Shoot the Moon"``, None -> ``"pass"``."""
    if bid is None:
        return "pass"
    if bid == MOON:
        return "Shoot the Moon"
    return "10" if bid == PLAIN_TEN else str(bid)


def team_name(team: int, names: Sequence[str]) -> str:
    """The partners of team 0 (seats 0, 2) or 1 (seats 1, 3): "Ann and Cy"."""
    return f"{names[team]} and {names[team + 2]}"


def action_text(action: Action, names: Sequence[str] = ()) -> str:
    """What an action does, in words (a button's or a log's)."""
    kind, value = action.kind, action.value
    if kind is Kind.BID:
        assert isinstance(value, int)
        return f"bid {bid_name(value)}"
    if kind is Kind.PASS:
        return "pass"
    if kind is Kind.TRUMP:
        return f"name {SUIT_NAMES[str(value)]} trump"
    if kind is Kind.KEEP:
        return "keep the rest of the stock"
    if kind is Kind.GIVE:
        return "give the stock to your partner unseen"
    if kind is Kind.BURN:
        return f"burn {_the(action.card)}"
    if kind is Kind.PLAY:
        return f"play {_the(action.card)}"
    return "ask for a redeal"


def event_text(event: Told, names: Sequence[str], you: int | None = None) -> str:
    """One sentence for ``event``, told to seat ``you`` (None: to the table)."""
    teller = _Teller(names, you)
    told = _TOLD.get(event.kind)
    if told is None:
        return f"{event.kind}: {dict(event.data)}"
    text = told(teller, event.round, event.data)
    return text if any(text.startswith(f"{n} ") for n in names) else capital(text)


class _Teller:
    def __init__(self, names: Sequence[str], you: int | None):
        self.names, self.you = names, you

    def who(self, seat: Any) -> str:
        return "you" if seat == self.you else self.names[seat]

    def does(self, seat: Any, base: str) -> str:
        return verb(self.who(seat), base)

    def team(self, team: int) -> str:
        if self.you is not None and self.you % 2 == team:
            return f"your team ({team_name(team, self.names)})"
        return team_name(team, self.names)


_Data = Mapping[str, Any]


def _match_start(t: _Teller, r: int, d: _Data) -> str:
    rules = "" if d["house_rules"] == "-" else f"; house rules {d['house_rules']}"
    teams = f"{team_name(0, t.names)} against {team_name(1, t.names)}"
    return f"Match: 10 Point Pitch to {d['target']}, {teams}{rules}."


def _round_start(t: _Teller, r: int, d: _Data) -> str:
    a, b = d["team_scores"]
    deals, first = t.does(d["dealer"], "deal"), t.does(d["first"], "bid")
    return f"Hand {r} ({a} to {b}): {deals}; {first} first."


def _bid(t: _Teller, r: int, d: _Data) -> str:
    return (
        f"{t.does(d['player'], 'pass')}."
        if d["bid"] is None
        else (f"{t.does(d['player'], 'bid')} {bid_name(d['bid'])}.")
    )


def _redeal(t: _Teller, r: int, d: _Data) -> str:
    return f"{t.does(d['player'], 'ask')} for a redeal (no face card, no point card); " + (
        f"{t.does(d['dealer'], 'deal')} again."
    )


def _pitcher(t: _Teller, r: int, d: _Data) -> str:
    return f"{t.does(d['player'], 'pitch')} at {bid_name(d['bid'])}."


def _trump(t: _Teller, r: int, d: _Data) -> str:
    return (
        f"{t.does(d['player'], 'name')} {SUIT_NAMES[d['suit']]} trump "
        f"(the off-jack: {card_name(d['off_jack'])})."
    )


def _refill(t: _Teller, r: int, d: _Data) -> str:
    counts = d["counts"]
    if all(n is None for n in counts):
        return "Everyone discards the non-trumps and draws back to 6."
    parts = [f"{t.who(s)} {'?' if n is None else n}" for s, n in enumerate(counts)]
    return f"Everyone discards the non-trumps and draws back to 6: {', '.join(parts)}."


def _stock(t: _Teller, r: int, d: _Data) -> str:
    cards = plural(d["count"], "card")
    if d["kept"]:
        return f"{t.does(d['player'], 'take')} the rest of the stock ({cards})."
    to = t.who(d["receiver"])
    return f"{t.does(d['player'], 'give')} the rest of the stock ({cards}) unseen to {to}."


def _burn(t: _Teller, r: int, d: _Data) -> str:
    return f"{t.does(d['player'], 'burn')} {_the(d['card'])}."


def _play(t: _Teller, r: int, d: _Data) -> str:
    return f"{t.does(d['player'], 'play')} {_the(d['card'])}."


def _trick(t: _Teller, r: int, d: _Data) -> str:
    points = plural(d["points"], "point")
    return f"{t.does(d['winner'], 'take')} the trick ({points})."


def _out(t: _Teller, r: int, d: _Data) -> str:
    if d["player"] == t.you:
        return "you have no trump left and sit out."
    return f"{t.who(d['player'])} has no trump left and sits out."


def _round_end(t: _Teller, r: int, d: _Data) -> str:
    side = d["pitcher"] % 2
    taken = d["taken"][side]
    result = "made it" if d["made"] else "went set"
    contract = bid_name(d["contract"])
    a, b = d["team_scores"]
    return (
        f"Hand {r}: {t.team(side)} bid {contract}, took {taken} and {result}; "
        f"the score is {a} to {b}."
    )


def _match_end(t: _Teller, r: int, d: _Data) -> str:
    team = d["winner"] % 2
    # A team is two players: "Ann and Cy win", "your team (Ann and Cy) wins".
    ours = t.you is not None and t.you % 2 == team
    wins = "wins" if ours else "win"
    return f"{t.team(team)} {wins} the match, {d['scores'][team]} to {d['scores'][1 - team]}."


_TOLD: dict[str, Callable[[_Teller, int, _Data], str]] = {
    "match_start": _match_start,
    "round_start": _round_start,
    "bid": _bid,
    "redeal": _redeal,
    "pitcher": _pitcher,
    "trump": _trump,
    "refill": _refill,
    "stock": _stock,
    "burn": _burn,
    "play": _play,
    "trick": _trick,
    "out": _out,
    "round_end": _round_end,
    "match_end": _match_end,
}
