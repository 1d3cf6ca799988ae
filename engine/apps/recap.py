"""What happened at the table, in words for the person at the screen.

``showdown play`` tells each event of the match driver (``MatchEvent``) once as
it happens, and again, in a recap, to each person who sits down at the shared
screen: everything since their last turn. Both are :func:`event_text`,
written for whoever reads it: ``you`` is the seated player (their own doings
read "You play R5", "you take 2 cards"), the others by name ("Ann plays R5").
A player called You reads as "You play" too. The pieces (plurals, times in
ms, "Ann vs Bob", the verdicts) are ``firmware_host.protocol.words``'.

>>> from engine.apps.driver import MatchEvent
>>> names = ["Ann", "Bob", "bot2"]
>>> play = MatchEvent("play", 1, {"player": 2, "action": "B+2", "card": "B+2", "colour": "B",
...                               "uno": False, "cards_left": 5, "draws": {0: 2}})
>>> event_text(play, names), event_text(play, names, you=0)
('bot2 plays B+2; Ann draws 2.', 'bot2 plays B+2; you draw 2.')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.apps.driver import MatchEvent
from engine.core.cards import Card, Rank
from firmware_host.protocol.words import capital, duel_verdict, plural, verb, versus

__all__ = ["event_text", "scoreboard", "card_name", "COLOUR_WORDS"]

#: A colour's letter (``str(colour)``, as events give it) in words.
COLOUR_WORDS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
_RANK_WORDS = {
    Rank.DRAW_TWO: "Draw Two",
    Rank.REVERSE: "Reverse",
    Rank.SKIP: "Skip",
    Rank.WILD: "Wild",
    Rank.WILD_DRAW_FOUR: "Wild Draw Four",
    Rank.WILD_SHOWDOWN: "Wild Showdown",
}


def card_name(card: Card) -> str:
    """``card_name(Card.parse("B+2"))`` -> ``'blue Draw Two'``.

    >>> card_name(Card.parse("R7!2")), card_name(Card.parse("W+4"))
    ('red 7 (showdown 2)', 'Wild Draw Four')
    """
    rank = _RANK_WORDS.get(card.rank, str(card.number))
    colour = card.colour  # None for a wild
    name = rank if colour is None else f"{COLOUR_WORDS[str(colour)]} {rank}"
    return f"{name} (showdown {card.showdown})" if card.showdown else name


def event_text(event: MatchEvent, names: Sequence[str], you: int | None = None) -> str:
    """One sentence for ``event``, told to player ``you`` (None: to the table).

    >>> from engine.apps.driver import MatchEvent
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
        return _sentence(text, names)

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
        if d["card"].startswith("W") and d["colour"] is not None:
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
        return _said(f"{does(player, 'draw')} {cards}.")
    if kind == "keep":
        return _said(f"{does(player, 'keep')} the card.")
    if kind == "accept":
        return _said(f"{does(player, 'draw')} {plural(d['cards'], 'card')} (the penalty).")
    if kind == "challenge":
        said = f"{does(player, 'challenge')} the Wild Draw Four"
        if d["succeeded"]:
            offender = d["offender"]
            return _said(
                f"{said}: {who(offender)} held a card of the colour; "
                f"{does(offender, 'draw')} {d['cards']}."
            )
        return _said(f"{said}: it was legal; {does(player, 'draw')} {d['cards']}.")
    if kind == "catch":
        caught = d["caught"]
        return _said(
            f"{does(player, 'catch')} {who(caught)} without UNO: {does(caught, 'draw')} "
            f"{d['cards']}."
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
            f"{plural(d['cards'], 'card')}. {_sentence(verdict, names)}. "
            f"{_sentence(does(loser, 'take'), names)} {plural(d['cards'], 'card')}."
        )
    if kind == "round_end":
        return f"Round {event.round} won by {who(d['winner'])} for {d['points']} points."
    if kind == "match_end":
        winner = d["winner"]
        return _said(
            f"{does(winner, 'win')} the match with {d['scores'][winner]} points after "
            f"{plural(d['rounds'], 'round')}."
        )
    return f"{kind}: {d}"


def _sentence(text: str, names: Sequence[str] = ()) -> str:
    """``text`` as a sentence: a capital first, unless it starts with a name,
    which stays as written ("bot2 plays").

    >>> _sentence("you play R5."), _sentence("bot2 wins", ["Ann", "bot2"])
    ('You play R5.', 'bot2 wins')
    """
    if any(text.startswith(f"{name} ") for name in names):
        return text
    return capital(text)


def scoreboard(
    names: Sequence[str], scores: Sequence[int], hand_sizes: Sequence[int] | None = None
) -> list[str]:
    """The scores, best first, one player a line (and the cards in hand, mid-round).

    >>> print("\\n".join(scoreboard(["Ann", "Bob", "bot2"], [12, 120, 0], [3, 1, 7])))
      Bob   120 points  1 card in hand
      Ann    12 points  3 cards in hand
      bot2    0 points  7 cards in hand
    """
    width = max(map(len, names))
    order = sorted(range(len(names)), key=lambda p: (-scores[p], p))
    lines = []
    for p in order:
        line = f"  {names[p]:<{width}}  {scores[p]:>4} points"
        if hand_sizes is not None:
            line += f"  {plural(hand_sizes[p], 'card')} in hand"
        lines.append(line)
    return lines
