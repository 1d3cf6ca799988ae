"""The unit's events and results in words for people: the one place they are written.

Both ends use it: the unit's keyboard ui and headless printer (``showdown-unit
run --mock``), its demo and ``history``; the engine's remote port (what
``showdown play`` tells the table), its demo and its match log. Each surface
has its own form (a log line, a sentence for the table, a history row), and
every form is built from the same pieces, so one idea reads the same
everywhere:

- counts: ``plural(3, "card")`` is ``'3 cards'``;
- times: ``ms(231400)`` is ``'231.4 ms'`` for people, ``us(120)`` is
  ``'120 us'`` where the microsecond matters (a margin on the unit's log, a
  near-tie's gap); an unknown time is ``'-'``;
- who does what: ``verb("Ann", "play")`` is ``'Ann plays'``, ``verb("You", "play")``
  ``'You play'``;
- sides and players: ``side_label("b")`` is ``'side B'``, ``player_label("Ann",
  "a")`` is ``'Ann (side A)'``, two players face each other as ``'Ann vs Bob'``;
- the verdicts: ``'false start by Bob (side B)'``, ``'nobody pressed in time'``,
  ``'too close to call after 3 re-runs: void'``; a loser with no time ``'did
  not press in time'``;
- the launch outcomes (:class:`~firmware_host.protocol.Launch`, the journal's
  ``pending`` and ``interrupted`` too): :func:`launch_text`.

Standard library only: values in, text out; nothing here prints.

>>> result = {"showdown_id": "sd-1", "players": {"a": "Ann", "b": "Bob"}, "winner": "b",
...           "loser": "a", "reason": "faster", "tie_reruns": 0,
...           "reaction_us": {"a": 254500, "b": 231000}, "margin_us": 23500, "cards": 2,
...           "launch": "launched", "cards_counted": None}
>>> result_line(result)                 # the unit's log, the keyboard ui
'sd-1: Bob (side B) beat Ann (side A), faster by 23.5 ms; 2 cards launched'
>>> announce(result)                    # what the table hears (showdown play)
'Bob wins: Ann 254.5 ms, Bob 231.0 ms, margin 23.5 ms. Ann takes 2 cards.'
>>> event_line("go", {"showdown_id": "sd-1", "ticks": 12.5})
'GO'
>>> table_line("go", {"showdown_id": "sd-1", "ticks": 12.5}, {"a": "Ann", "b": "Bob"})
'  GO!'
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any, TypeGuard

from firmware_host.protocol import EventName, Launch, Reason, Side

__all__ = [
    "plural",
    "noun",
    "ms",
    "us",
    "side_label",
    "player_label",
    "versus",
    "launch_text",
    "launch_problem",
    "verdict",
    "announce",
    "result_line",
    "history_line",
    "event_line",
    "outputs_text",
    "table_line",
    "load_line",
    "rearmed_line",
    "at_unit_label",
    "START_TEXTS",
    "NO_BOTS_TEXT",
    "interrupted_text",
    "decision_line",
    "reruns_text",
    "verb",
    "third_person",
    "capital",
    "duel_verdict",
    "again_line",
    "apart",
]

Result = Mapping[str, Any]


# -- the pieces ------------------------------------------------------------------


def noun(count: int, singular: str, many: str | None = None) -> str:
    """The noun for ``count`` things (``many`` for an irregular plural).

    >>> noun(1, "card"), noun(0, "card"), noun(2, "entry", "entries")
    ('card', 'cards', 'entries')
    """
    if count == 1:
        return singular
    return many if many is not None else singular + "s"


def plural(count: int, singular: str, many: str | None = None) -> str:
    """``count`` and its noun.

    >>> plural(1, "card"), plural(3, "card"), plural(0, "card"), plural(2, "entry", "entries")
    ('1 card', '3 cards', '0 cards', '2 entries')
    """
    return f"{count} {noun(count, singular, many)}"


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def ms(micros: object, digits: int = 1) -> str:
    """Microseconds as milliseconds for people; ``-`` for no time.

    >>> ms(231400), ms(23974), ms(120, 2), ms(None), ms("?")
    ('231.4 ms', '24.0 ms', '0.12 ms', '-', '-')
    """
    if not _is_number(micros):
        return "-"
    return f"{micros / 1000:.{digits}f} ms"


def us(micros: object) -> str:
    """Microseconds as they are, where the microsecond matters; ``-`` for no time.

    >>> us(120), us(23500), us(None)
    ('120 us', '23500 us', '-')
    """
    return f"{micros} us" if _is_number(micros) else "-"


def side_label(side: str) -> str:
    """A side of the unit for people: its letter as the unit shows it.

    >>> side_label("a"), side_label(Side.B)
    ('side A', 'side B')
    """
    return f"side {str(side).upper()}"


def player_label(name: str, side: str) -> str:
    """A player and the side they stand on.

    >>> player_label("Ann", "a")
    'Ann (side A)'
    """
    return f"{name} ({side_label(side)})"


def versus(first: str, second: str) -> str:
    """Two players (or their labels) facing each other.

    >>> versus("Ann", "Bob")
    'Ann vs Bob'
    """
    return f"{first} vs {second}"


def reruns_text(reruns: int) -> str:
    """How many near-ties were fought again.

    >>> reruns_text(1), reruns_text(3)
    ('1 near-tie re-run', '3 near-tie re-runs')
    """
    return plural(reruns, "near-tie re-run")


_THIRD_PERSON = {"be": "is", "have": "has", "do": "does", "go": "goes"}


def third_person(base: str) -> str:
    """The verb as Ann does it (``base`` as you do it).

    >>> [third_person(v) for v in ("play", "catch", "draw", "have", "carry", "say", "go")]
    ['plays', 'catches', 'draws', 'has', 'carries', 'says', 'goes']
    """
    if base in _THIRD_PERSON:
        return _THIRD_PERSON[base]
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        return base + "es"
    if len(base) > 1 and base.endswith("y") and base[-2] not in "aeiou":
        return base[:-1] + "ies"
    return base + "s"


def verb(subject: str, base: str) -> str:
    """``subject`` doing ``base``, the verb agreeing: only "you" (any case, a
    person addressed or a player called You) takes it as it is.

    >>> verb("Ann", "play"), verb("You", "play"), verb("you", "take"), verb("Bob", "catch")
    ('Ann plays', 'You play', 'you take', 'Bob catches')
    """
    return f"{subject} {base if subject.casefold() == 'you' else third_person(base)}"


def capital(text: str) -> str:
    """``text`` with its first letter a capital (a sentence that starts with "you").

    >>> capital("you play R5."), capital("")
    ('You play R5.', '')
    """
    return text[:1].upper() + text[1:]


# -- verdicts and launches ---------------------------------------------------------

_TIMEOUT = "nobody pressed in time"
_LATE = "did not press in time"


def _false_start(name: str, side: str) -> str:
    return f"false start by {player_label(name, side)}"


def _void(reruns: int) -> str:
    return f"too close to call after {plural(reruns, 're-run')}: void"


def launch_text(launch: str | None, cards: int | None, counted: int | None = None) -> str:
    """What the launcher did with a showdown's cards, every outcome a result can carry
    (``cards`` None: a damaged journal row that lost the count).

    >>> for launch in Launch:
    ...     print(f"{launch:<12} {launch_text(launch, 3, 1)}")
    launched     3 cards launched
    jam          3 cards jam
    cancelled    3 cards cancelled
    none         no launch
    fault        3 cards fault
    pending      3 cards launching
    interrupted  launch of 3 cards interrupted, 1 counted out
    >>> launch_text("interrupted", 1, None), launch_text("launched", 1), launch_text("jam", None)
    ('launch of 1 card interrupted', '1 card launched', '? cards jam')
    """
    if launch in (None, Launch.NONE):
        return "no launch"
    cards_text = "? cards" if cards is None else plural(cards, "card")
    if launch == Launch.PENDING:
        return f"{cards_text} launching"
    if launch == Launch.INTERRUPTED:
        return f"launch of {cards_text} interrupted" + (
            "" if counted is None else f", {counted} counted out"
        )
    return f"{cards_text} {launch}"


#: What the table is told when the cards did not all fly (RemoteUnit pauses the game).
_LAUNCH_PROBLEMS: dict[str, str] = {
    Launch.JAM: "The launcher jammed",
    Launch.FAULT: "The unit faulted during the launch",
    Launch.CANCELLED: "The launch was cancelled on the unit",
    Launch.PENDING: "The unit did not record how the launch ended",
    Launch.INTERRUPTED: "The unit stopped before the launch ended",
}


def launch_problem(launch: str) -> str:
    """What went wrong with a launch that did not end well, as the table hears it.

    >>> launch_problem("jam"), launch_problem("pending")
    ('The launcher jammed', 'The unit did not record how the launch ended')
    """
    return _LAUNCH_PROBLEMS.get(launch, str(launch))


def verdict(result: Result) -> str:
    """The unit's verdict as the table hears it, with both players' times; a
    bot (a side in the result's ``bots``) marked ``(bot)``; a loser who never
    pressed "did not press", one who pressed too late to be timed against the
    winner "did not press in time".

    >>> names = {"a": "Ann", "b": "Bob"}
    >>> verdict({"players": names, "winner": "a", "loser": "b", "reason": "faster",
    ...          "reaction_us": {"a": 231000, "b": None}, "margin_us": None})
    'Ann wins: Ann 231.0 ms; Bob did not press'
    >>> verdict({"players": names, "winner": "a", "loser": "b", "reason": "faster",
    ...          "reaction_us": {"a": 231000, "b": None}, "margin_us": None, "bots": ["b"]})
    'Ann wins: Ann 231.0 ms; Bob (bot) did not press'
    >>> verdict({"players": names, "winner": "a", "loser": "b", "reason": "faster",
    ...          "reaction_us": {"a": 231000, "b": 412000}, "margin_us": None})
    'Ann wins: Ann 231.0 ms, Bob 412.0 ms (Bob did not press in time)'
    >>> verdict({"players": names, "winner": "b", "loser": "a", "reason": "faster",
    ...          "reaction_us": {"a": 254500, "b": 231000}, "margin_us": 23500, "bots": ["b"]})
    'Bob wins: Ann 254.5 ms, Bob (bot) 231.0 ms, margin 23.5 ms'
    >>> verdict({"players": names, "winner": "a", "loser": "b", "reason": "false_start"})
    'False start by Bob (side B)'
    >>> verdict({"players": names, "reason": "timeout"})
    'Nobody pressed in time'
    >>> verdict({"players": names, "reason": "tie_void", "tie_reruns": 3})
    'Too close to call after 3 re-runs: void'
    """
    names = result["players"]
    reason = result["reason"]
    if reason == Reason.FALSE_START:
        loser = result["loser"]
        return capital(_false_start(names[loser], loser))
    if reason == Reason.TIMEOUT:
        return capital(_TIMEOUT)
    if reason == Reason.TIE_VOID:
        return capital(_void(result["tie_reruns"]))
    winner, loser = result["winner"], result["loser"]
    bots = result.get("bots") or ()
    pressed = [side for side in Side if result["reaction_us"][side] is not None]
    told = {side: f"{names[side]}{' (bot)' if side in bots else ''}" for side in Side}
    reactions = ", ".join(f"{told[side]} {ms(result['reaction_us'][side])}" for side in pressed)
    if loser not in pressed:  # no time to tell: said in words, not as a dash
        return f"{names[winner]} wins: {reactions}; {told[loser]} did not press"
    if result["margin_us"] is not None:
        return f"{names[winner]} wins: {reactions}, margin {ms(result['margin_us'])}"
    return f"{names[winner]} wins: {reactions} ({names[loser]} {_late(result, loser)})"


def _late(result: Result, loser: str) -> str:
    """Why a loser has no margin: never pressed, or pressed after the settle window."""
    if (result.get("reaction_us") or {}).get(loser, 0) is None:
        return "did not press"
    return _LATE


def duel_verdict(
    names: Mapping[Any, str],
    winner: Any,
    loser: Any,
    reason: str,
    reaction_us: Mapping[Any, int | None] | None = None,
    margin_us: int | None = None,
    tie_reruns: int = 0,
) -> str:
    """A showdown's verdict between two players, whatever they are keyed by
    (sides, seats), in the form of the unit's :func:`verdict`: who won and
    both times in ms, the margin in the same unit. ``names`` in the order the
    times are told; a player called "you" agrees with the verb. No capital:
    the caller makes the sentence.

    >>> names = {0: "Ann", 2: "you"}
    >>> duel_verdict(names, 2, 0, "faster", {0: 254512, 2: 231049}, 23463)
    'you win: Ann 254.5 ms, you 231.0 ms, margin 23.5 ms'
    >>> duel_verdict(names, 0, 2, "faster", {0: 231000, 2: None})
    'Ann wins: Ann 231.0 ms; you did not press'
    >>> duel_verdict(names, 0, 2, "false_start", {0: None, 2: None}, None, 1)
    'false start by you, after 1 near-tie re-run'
    >>> duel_verdict(names, 0, 2, "faster")      # decided by hand: no times
    'Ann wins'
    """
    times = reaction_us or {}
    if reason == Reason.FALSE_START:
        text = f"false start by {names[loser]}"
    else:
        text = verb(names[winner], "win")
        pressed = [p for p in names if times.get(p) is not None]
        if pressed:
            told = ", ".join(f"{names[p]} {ms(times.get(p))}" for p in pressed)
            if margin_us is not None:
                text += f": {told}, margin {ms(margin_us)}"
            elif loser not in pressed:
                text += f": {told}; {names[loser]} did not press"
            else:
                text += f": {told} ({names[loser]} {_LATE})"
    if tie_reruns:
        text += f", after {reruns_text(tie_reruns)}"
    return text


def again_line(reason: str, cards: int) -> str:
    """What the table hears when a showdown has no loser and is fought again
    (``reason``: ``timeout`` or ``tie``): the cards stay where they are.

    >>> print(again_line("timeout", 2))
    Nobody pressed in time: the showdown is fought again. The 2 cards are still loaded: do not \
load them again.
    >>> again_line("tie", 1)
    'Too close to call: the showdown is fought again. The card is still loaded.'
    """
    why = capital(_TIMEOUT) if reason == Reason.TIMEOUT else "Too close to call"
    loaded = "The card is" if cards == 1 else f"The {plural(cards, 'card')} are"
    tail = ": do not load them again." if reason == Reason.TIMEOUT else "."
    if cards == 1 and reason == Reason.TIMEOUT:
        tail = ": do not load it again."
    return f"{why}: the showdown is fought again. {loaded} still loaded{tail}"


def announce(result: Result) -> str:
    """The verdict and what follows from it: who takes the cards, or (no
    loser: the game needs one, so it is fought again) that they are still loaded.

    >>> announce({"players": {"a": "Ann", "b": "Bob"}, "reason": "timeout", "loser": None,
    ...           "cards": 2})
    'Nobody pressed in time. The cards are still loaded.'
    """
    loser = result["loser"]
    if loser is None:
        return f"{verdict(result)}. The cards are still loaded."
    return f"{verdict(result)}. {result['players'][loser]} takes {plural(result['cards'], 'card')}."


def result_line(result: Result) -> str:
    """A result on one line, as the unit logs it (``str(Result)``).

    >>> names = {"a": "Ann", "b": "Bob"}
    >>> result_line({"showdown_id": "sd-2", "players": names, "winner": "a", "loser": "b",
    ...              "reason": "faster", "margin_us": None, "cards": 1, "launch": "jam"})
    'sd-2: Ann (side A) beat Bob (side B), who did not press in time; 1 card jam'
    >>> result_line({"showdown_id": "sd-3", "players": names, "winner": None, "loser": None,
    ...              "reason": "tie_void", "tie_reruns": 3, "cards": 2, "launch": "none"})
    'sd-3: too close to call after 3 re-runs: void; no launch'
    """
    names = result["players"]
    reason = result["reason"]
    if reason == Reason.FASTER:
        winner = player_label(names[result["winner"]], result["winner"])
        loser = player_label(names[result["loser"]], result["loser"])
        margin = result["margin_us"]
        text = (
            f"{winner} beat {loser}, who {_late(result, result['loser'])}"
            if margin is None
            else f"{winner} beat {loser}, faster by {ms(margin)}"
        )
    elif reason == Reason.FALSE_START:
        text = _false_start(names[result["loser"]], result["loser"])
    elif reason == Reason.TIMEOUT:
        text = _TIMEOUT
    else:
        text = _void(result["tie_reruns"])
    launched = launch_text(result["launch"], result["cards"], result.get("cards_counted"))
    return f"{result['showdown_id']}: {text}; {launched}"


def history_line(result: Result) -> str:
    """One row of ``showdown-unit history``: when (local time), which, who, the
    outcome, both times, the margin and the launch. A journal row is read as
    it is, so a missing field shows as ``?`` or ``-``.

    >>> print(history_line({"recorded_at": None, "showdown_id": "g1-r2",
    ...     "players": {"a": "Ann", "b": "Bob"}, "winner": "b", "loser": "a",
    ...     "reason": "false_start", "tie_reruns": 0, "reaction_us": {"a": None, "b": None},
    ...     "margin_us": None, "cards": 1, "launch": "launched", "cards_counted": None}))
    ?  g1-r2  Ann vs Bob  false start by Ann  A -  B -  margin -  1 card launched
    """
    players = result.get("players") or {}
    name = {side: players.get(side, "?") for side in Side}
    winner, loser, reason = result.get("winner"), result.get("loser"), result.get("reason")
    if reason == Reason.FALSE_START and loser in name:
        outcome = f"false start by {name[loser]}"
    elif winner in name:
        outcome = f"{name[winner]} won ({reason})"
    elif reason == Reason.TIMEOUT:
        outcome = _TIMEOUT
    elif reason == Reason.TIE_VOID and _is_number(result.get("tie_reruns")):
        outcome = _void(result["tie_reruns"])
    else:
        outcome = f"no winner ({reason})"
    reaction = result.get("reaction_us") or {}
    cards = result.get("cards")
    if not isinstance(cards, int) or isinstance(cards, bool):  # a damaged row: not known
        cards = None
    return "  ".join(
        [
            _local_time(result.get("recorded_at")),
            str(result.get("showdown_id")),
            versus(name[Side.A], name[Side.B]),
            outcome,
            f"A {ms(reaction.get(Side.A))}",
            f"B {ms(reaction.get(Side.B))}",
            f"margin {ms(result.get('margin_us'))}",
            launch_text(result.get("launch"), cards, result.get("cards_counted")),
        ]
    )


def _local_time(iso: object) -> str:
    if not isinstance(iso, str):  # no time, or a damaged one
        return "?"
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return "?"


def decision_line(
    outcome: str, winner: str | None, loser: str | None, margin_us: int | None
) -> str | None:
    """The core's decision as the unit's demo shows it (None for a tie: the
    tie event says it).

    >>> decision_line("faster", "a", "b", 300)
    'decided   side A faster by 0.3 ms: cards go to side B'
    >>> decision_line("faster", "a", "b", None)
    'decided   side A first, no edge from side B within the settle window: cards go to side B'
    >>> decision_line("false_start", "b", "a", None)
    'decided   false start by side A: cards go to side A'
    """
    if outcome == Reason.FASTER:
        assert winner is not None and loser is not None  # a faster decision names both
        if margin_us is None:
            return (
                f"decided   {side_label(winner)} first, no edge from {side_label(loser)} "
                f"within the settle window: cards go to {side_label(loser)}"
            )
        return (
            f"decided   {side_label(winner)} faster by {ms(margin_us)}: "
            f"cards go to {side_label(loser)}"
        )
    if outcome == Reason.FALSE_START:
        assert loser is not None  # the offender
        return f"decided   false start by {side_label(loser)}: cards go to {side_label(loser)}"
    return None


# -- events -------------------------------------------------------------------------


def event_line(name: str, data: Mapping[str, Any]) -> str:
    """One event as the unit's keyboard ui and headless printer show it (and
    its demo); the word first, padded, so the lines align.

    >>> event_line("armed", {"showdown_id": "sd-1", "cards": 2,
    ...                      "players": {"a": "Ann", "b": "Bob"}})
    'armed     sd-1: 2 cards, Ann (side A) vs Bob (side B)'
    >>> event_line("countdown", {"showdown_id": "sd-1", "step": 2, "steps": 3, "rerun": 1})
    'countdown 2/3 (re-run 1)'
    >>> event_line("tie", {"showdown_id": "sd-1", "gap_us": 120, "rerun": 1, "void": False})
    'tie       120 us apart: re-run 1'
    >>> event_line("launched", {"showdown_id": "sd-1", "side": "b", "cards": 1,
    ...                         "verified": False, "outcome": "jam"})
    'launched  1 card toward side B, JAM: not all counted'
    """
    if name == EventName.STATE:
        return f"state     {data['previous']} -> {data['state']}"
    if name == EventName.ARMED:
        players = data["players"]
        return (
            f"armed     {data['showdown_id']}: {plural(data['cards'], 'card')}, "
            f"{versus(player_label(players['a'], Side.A), player_label(players['b'], Side.B))}"
        )
    if name == EventName.COUNTDOWN:
        rerun = f" (re-run {data['rerun']})" if data["rerun"] else ""
        return f"countdown {data['step']}/{data['steps']}{rerun}"
    if name == EventName.GO:
        return "GO"
    if name == EventName.FALSE_START:
        return f"FALSE START by {side_label(data['side'])}"
    if name == EventName.TIE:
        then = "void" if data["void"] else f"re-run {data['rerun']}"
        return f"tie       {us(data['gap_us'])} apart: {then}"
    if name == EventName.PADDLE_HELD:
        return f"paddle {str(data['side']).upper()} is held down: release it to start"
    if name == EventName.LAUNCHED:
        counted = "counted" if data["verified"] else "not counted (no sensor)"
        if data["outcome"] == Launch.JAM:
            counted = "JAM: not all counted"
        return (
            f"launched  {plural(data['cards'], 'card')} toward {side_label(data['side'])}, "
            f"{counted}"
        )
    if name == EventName.RESULT:
        reactions = ", ".join(f"{side.upper()} {ms(data['reaction_us'][side])}" for side in Side)
        return f"result    {result_line(data)} (reactions: {reactions})"
    if name == EventName.CANCELLED:
        return f"cancelled {data['showdown_id']}"
    if name == EventName.FAULT:
        return f"FAULT     {data['reason']}"
    if name == EventName.OUTPUTS:
        return f"outputs   {outputs_text(data)}"
    raise ValueError(f"unknown event {name!r}")


def outputs_text(outputs: Mapping[str, Any]) -> str:
    """The ``outputs`` object (the event's data, the status's field) in one line.

    >>> outputs_text({"leds": [True, True, False], "go": False,
    ...               "arrows": {"a": False, "b": True}, "buzzer": True,
    ...               "motor": {"direction": "b", "speed": 0.8},
    ...               "paddles": {"a": True, "b": False}})
    'leds 110, GO off, arrow B, buzzer on, motor toward side B at 80%, paddle A down'
    """

    def sides(flags: Mapping[str, Any], one: str, none: str, after: str = "") -> str:
        on = [side.upper() for side in Side if flags.get(side)]
        if not on:
            return none
        return f"{one}{'s' if len(on) > 1 else ''} {' and '.join(on)}{after}"

    bar = "".join("1" if lit else "0" for lit in outputs["leds"])
    buzzer = outputs["buzzer"]
    motor = outputs["motor"]
    drive = (
        "off"
        if motor["direction"] is None
        else f"toward {side_label(motor['direction'])} at {motor['speed']:.0%}"
    )
    return (
        f"leds {bar}, GO {'on' if outputs['go'] else 'off'}, "
        f"{sides(outputs['arrows'], 'arrow', 'arrows off')}, "
        f"buzzer {'none' if buzzer is None else 'on' if buzzer else 'off'}, motor {drive}, "
        f"{sides(outputs['paddles'], 'paddle', 'paddles up', ' down')}"
    )


def table_line(name: str, data: Mapping[str, Any], names: Mapping[str, str]) -> str | None:
    """An event of a running showdown as the table hears it (``showdown play``
    on a real unit), indented under the showdown's lines; None for the events
    it is not told. The verdict, a false start's included, is told once, by
    :func:`announce`; a gap is in ms, as the verdict's times are.

    >>> names = {"a": "Cat", "b": "Ann"}
    >>> table_line("false_start", {"showdown_id": "x", "side": "a"}, names) is None
    True
    >>> table_line("tie", {"showdown_id": "x", "gap_us": 120, "rerun": 1, "void": False}, names)
    '  Too close to call (0.1 ms apart): the countdown runs again.'
    >>> table_line("state", {"state": "go", "previous": "hold"}, names) is None
    True
    """
    if name == EventName.COUNTDOWN:
        return f"  {event_line(name, data)}"
    if name == EventName.GO:
        return "  GO!"
    if name == EventName.TIE:
        gap = "" if data["gap_us"] is None else f" ({apart(data['gap_us'])})"
        then = "void" if data["void"] else "the countdown runs again"
        return f"  Too close to call{gap}: {then}."
    if name == EventName.PADDLE_HELD:
        side = data["side"]
        return (
            f"  {names[side]}'s paddle ({side_label(side)}) is held down: let go, "
            "then press the timer button."
        )
    if name == EventName.LAUNCHED and data["outcome"] == Launch.JAM:
        return f"  {launch_problem(Launch.JAM)}: {plural(data['cards'], 'card')} counted."
    return None


def apart(gap_us: object) -> str:
    """How far apart two presses were, for people: in ms, as the verdicts'
    times; a gap that rounds to nothing is "under 0.1 ms".

    >>> apart(120), apart(30), apart(2500)
    ('0.1 ms apart', 'under 0.1 ms apart', '2.5 ms apart')
    """
    if _is_number(gap_us) and gap_us < 50:
        return "under 0.1 ms apart"
    return f"{ms(gap_us)} apart"


#: Who starts a showdown's countdown, as the table is told when it is armed.
START_TEXTS = {
    "unit": "The unit starts by itself.",  # two bots: nobody need press
    "engine": "Starting the countdown.",  # the engine sends start
    "table": "Press the timer button.",
}

#: Said once to a table whose unit cannot press for bots.
NO_BOTS_TEXT = (
    'This unit cannot press a paddle for a bot (its software lacks the "bots" '
    "capability): on it a bot never presses, so whoever presses beats it, and two "
    "bots only time out. Update the unit's software to let bots press."
)


def at_unit_label(name: str, side: str, bots: Collection[str] = ()) -> str:
    """A player at the unit, and who presses for a bot.

    >>> at_unit_label("Ann", "a"), at_unit_label("bot1", "b", {"b"})
    ('Ann (side A)', 'bot1 (side B, a bot: the unit presses for it)')
    """
    if side in bots:
        return f"{name} ({side_label(side)}, a bot: the unit presses for it)"
    return player_label(name, side)


def load_line(
    cards: int, names: Mapping[str, str], *, starts: str, bots: Collection[str] = ()
) -> str:
    """What the table does when a showdown is armed the first time: load the
    cards; ``starts`` says who starts the countdown (a key of START_TEXTS).

    >>> load_line(3, {"a": "Cat", "b": "Ann"}, starts="table")
    'Load 3 cards into the unit: Cat (side A) vs Ann (side B). Press the timer button.'
    >>> load_line(1, {"a": "Cat", "b": "bot1"}, starts="engine", bots={"b"})
    'Load 1 card into the unit: Cat (side A) vs bot1 (side B, a bot: the unit presses for it). \
Starting the countdown.'
    """
    players = versus(
        at_unit_label(names["a"], Side.A, bots), at_unit_label(names["b"], Side.B, bots)
    )
    return f"Load {plural(cards, 'card')} into the unit: {players}. {START_TEXTS[starts]}"


def rearmed_line(starts: str) -> str:
    """What the table hears when the unit is armed again for the same showdown
    (no loser last time, or the link came back): the cards are in already.

    >>> rearmed_line("table")
    'The showdown is armed again. Press the timer button.'
    """
    return f"The showdown is armed again. {START_TEXTS[starts]}"


def interrupted_text(name: str, cards: int, counted: int | None) -> str:
    """What the table does after the unit stopped mid-launch (an ``interrupted``
    result): the loser takes the cards the unit did not throw.

    >>> interrupted_text("Bob", 3, None)
    'The unit stopped before the launch ended: Bob takes 3 cards by hand.'
    >>> interrupted_text("Bob", 3, 1)
    'The unit stopped before the launch ended: Bob takes 3 cards
    (1 of 3 counted out: hand Bob the other 2).'
    """
    said = f"{launch_problem(Launch.INTERRUPTED)}: {name} takes {plural(cards, 'card')}"
    if counted is None:
        return f"{said} by hand."
    if counted >= cards:
        return f"{said} ({counted} of {cards} counted out)."
    return f"{said} ({counted} of {cards} counted out: hand {name} the other {cards - counted})."
