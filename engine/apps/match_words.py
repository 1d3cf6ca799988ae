"""What a match's events say: one readable line per ``MatchEvent`` (the demo's
log, the terminal game's table lines, the browser table's log).

The events themselves, and their fields, are the driver's (engine.apps.driver).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.apps.driver import MatchEvent
from firmware_host.people.words import ms, plural, reruns_text, versus

__all__ = ["describe"]


_COLOUR_NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}


def describe(event: MatchEvent, names: Sequence[str]) -> str:
    """One readable line for ``event`` (player indices shown as ``names``).

    >>> describe(MatchEvent("catch", 1, {"player": 2, "action": "catch 0", "caught": 0,
    ...                                  "cards": 2}), ["Ann", "Bob", "Cy"])
    'Cy catches Ann, who did not call UNO: Ann draws 2.'
    """
    d = event.data
    who = names[d["player"]] if "player" in d else ""
    kind = event.kind
    if kind == "match_start":
        return (
            f"Match: {', '.join(d['players'])}; {d['variant']} to {d['target']} points"
            + ("" if d["house_rules"] == "-" else f"; house rules {d['house_rules']}")
            + "."
        )
    if kind == "round_start":
        colour = "" if d["colour"] is None else f" ({_COLOUR_NAMES[d['colour']]})"
        return (
            f"Round {event.round}: {names[d['dealer']]} deals; {d['top']}{colour} turned up; "
            f"{names[d['first']]} goes first."
        )
    if kind == "play":
        text = f"{who} plays {d['card']}"
        if d["card"].startswith("W") and d["card"] != "WP" and d["colour"] is not None:
            text += f", naming {_COLOUR_NAMES[d['colour']]}"
        if d["uno"]:
            text += " and calls UNO!"
        # The count is the player's own, so it comes before what the others draw.
        if d["cards_left"] == 0:
            text += ", going out"
        elif d["cards_left"] <= 2:
            text += f" ({d['cards_left']} left)"
        for p, n in d["draws"].items():
            text += f"; {names[p]} draws {n}"
        return text + "."
    if kind in _PARTY_TEXTS:
        return _PARTY_TEXTS[kind](d, names, who)
    if kind == "draw":
        if d["cards"] == 1:
            return f"{who} draws a card{_linked(d, names, d['player'])}."
        return f"{who} draws {plural(d['cards'], 'card')}{_linked(d, names, d['player'])}."
    if kind == "keep":
        return f"{who} keeps the card."
    if kind == "accept":
        return f"{who} draws {plural(d['cards'], 'card')}{_linked(d, names, d['player'])}."
    if kind == "challenge":
        if d["succeeded"]:
            return (
                f"{who} challenges the Wild Draw Four: {names[d['offender']]} held a card "
                f"of the colour and draws {d['cards']}{_linked(d, names, d['drew'])}."
            )
        return (
            f"{who} challenges the Wild Draw Four: it was legal; {who} draws "
            f"{plural(d['cards'], 'card')}{_linked(d, names, d['drew'])}."
        )
    if kind == "catch":
        caught = names[d["caught"]]
        return (
            f"{who} catches {caught}, who did not call UNO: {caught} draws {d['cards']}"
            f"{_linked(d, names, d['caught'])}."
        )
    if kind == "colour":
        return f"{who} names {_COLOUR_NAMES[d['colour']]}."
    if kind == "face":
        return f"{who} faces {names[d['opponent']]} in a showdown for {plural(d['count'], 'card')}."
    if kind == "showdown":
        challenger, opponent = d["names"]
        winner, loser = names[d["winner"]], names[d["loser"]]
        how = f"false start by {loser}" if d["reason"] == "false_start" else f"{winner} wins"
        if d["margin_us"] is not None:
            how += f" by {ms(d['margin_us'])}"
        rerun = f" after {reruns_text(d['tie_reruns'])}" if d["tie_reruns"] else ""
        return (
            f"Showdown ({d['cause']}): {versus(challenger, opponent)} for "
            f"{plural(d['cards'], 'card')}: {how}{rerun}; {loser} takes the cards."
        )
    if kind == "round_end":
        scores = ", ".join(f"{n} {s}" for n, s in zip(names, d["scores"], strict=True))
        return (
            f"Round {event.round} won by {names[d['winner']]} for {d['points']} points. "
            f"Scores: {scores}."
        )
    if kind == "match_end":
        return (
            f"{names[d['winner']]} wins the match with {d['scores'][d['winner']]} points "
            f"after {plural(d['rounds'], 'round')}."
        )
    return f"{kind}: {d}"


def _linked(d: dict[str, Any], names: Sequence[str], drawer: int) -> str:
    """UNO Party!: "; Bob draws 2 (linked)" for each other player who drew."""
    return "".join(
        f"; {names[p]} draws {n} (linked)" for p, n in d.get("draws", {}).items() if p != drawer
    )


def _left(d: dict[str, Any]) -> str:
    if d["cards_left"] == 0:
        return ", going out"
    return f" ({d['cards_left']} left)" if d["cards_left"] <= 2 else ""


def _speed_text(d: dict[str, Any], names: Sequence[str], who: str) -> str:
    if not d["right"]:
        return (
            f"{who} speed-plays {d['card']} on {d['top']}: not the same card; {who} takes it "
            f"back and draws {d['drew']}{_linked(d, names, d['player'])}."
        )
    text = f"{who} speed-plays {d['card']} out of turn"
    if d["uno"]:
        text += " and calls UNO!"
    text += _left(d)
    if d["next"] is not None:
        text += f"; {names[d['next']]} plays next"
    return text + "."


def _pointing_text(d: dict[str, Any], names: Sequence[str], who: str) -> str:
    pointed = ", ".join(f"{names[p]} at {names[t]}" for p, t in sorted(d["choices"].items()))
    drawn = "".join(f"; {names[p]} draws {n}" for p, n in sorted(d["draws"].items()))
    return f"Everyone points: {pointed or 'nobody'}{drawn or '; nobody draws'}."


def _pile_add_text(d: dict[str, Any], names: Sequence[str], who: str) -> str:
    text = f"{who} adds {d['card']} to the mini pile"
    if d["uno"]:
        text += " and calls UNO!"
    return text + _left(d) + "."


_PARTY_TEXTS: dict[str, Callable[[dict[str, Any], Sequence[str], str], str]] = {
    "speed": _speed_text,
    "point_taken": lambda d, names, who: f"{who} plays Point Taken: everyone points at someone.",
    "pointed": lambda d, names, who: f"{who} has pointed.",
    "pointing": _pointing_text,
    "pile_start": lambda d, names, who: (
        f"A mini pile starts: {', '.join(d['flipped'])} turned up, "
        f"{_COLOUR_NAMES[d['colour']]}; {names[d['next']]} must add to it or take it."
    ),
    "pile_add": _pile_add_text,
    "pile_take": lambda d, names, who: (
        f"{who} takes the mini pile ({plural(len(d['cards']), 'card')})"
        f"{_linked(d, names, d['player'])}."
    ),
    "link": lambda d, names, who: (
        f"{who} links {names[d['linked'][0]]} and {names[d['linked'][1]]}: "
        "whenever one draws, the other draws as many."
    ),
    "claim_lost": lambda d, names, who: f"{who} was too late: {d['action']} no longer stands.",
}
