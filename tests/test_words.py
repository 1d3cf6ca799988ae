"""The one place unit events and results become words (firmware_host.people.words):
every event and every launch outcome has its line, and each idea reads the same
on every surface (the unit's log and keyboard ui, history, the table, the demos)."""

import pytest

from firmware_host.core.result import Result
from firmware_host.people.words import (
    again_line,
    announce,
    apart,
    capital,
    decision_line,
    duel_verdict,
    event_line,
    history_line,
    interrupted_text,
    launch_problem,
    launch_text,
    load_line,
    ms,
    noun,
    outputs_text,
    player_label,
    plural,
    rearmed_line,
    reruns_text,
    result_line,
    side_label,
    table_line,
    third_person,
    us,
    verb,
    verdict,
    versus,
)
from firmware_host.protocol import EventName, Launch, Reason

NAMES = {"a": "Ann", "b": "Bob"}


def result(**changes):
    base = {
        "showdown_id": "sd-1",
        "players": dict(NAMES),
        "bots": [],
        "winner": "b",
        "loser": "a",
        "reason": "faster",
        "tie_reruns": 0,
        "reaction_us": {"a": 254500, "b": 231000},
        "margin_us": 23500,
        "cards": 2,
        "launch": "launched",
        "cards_counted": None,
    }
    return {**base, **changes}


#: One event of each kind, with the keys the unit sends (EventName.fields).
EVENTS = {
    EventName.STATE: {"state": "go", "previous": "hold"},
    EventName.ARMED: {"showdown_id": "sd-1", "cards": 1, "players": dict(NAMES), "bots": []},
    EventName.COUNTDOWN: {"showdown_id": "sd-1", "step": 1, "steps": 3, "rerun": 0},
    EventName.GO: {"showdown_id": "sd-1", "ticks": 12.5},
    EventName.FALSE_START: {"showdown_id": "sd-1", "side": "b"},
    EventName.TIE: {"showdown_id": "sd-1", "gap_us": 120, "rerun": 1, "void": False},
    EventName.PADDLE_HELD: {"side": "a"},
    EventName.RESULT: result(),
    EventName.LAUNCHED: {
        "showdown_id": "sd-1",
        "side": "a",
        "cards": 2,
        "verified": True,
        "outcome": "launched",
    },
    EventName.CANCELLED: {"showdown_id": "sd-1"},
    EventName.FAULT: {"reason": "motor driver not responding"},
    EventName.OUTPUTS: {
        "leds": [True, True, False],
        "go": False,
        "arrows": {"a": False, "b": True},
        "buzzer": True,
        "motor": {"direction": "b", "speed": 0.8},
        "paddles": {"a": True, "b": False},
    },
}

#: Each event as the keyboard ui and the headless printer show it.
EVENT_LINES = {
    EventName.STATE: "state     hold -> go",
    EventName.ARMED: "armed     sd-1: 1 card, Ann (side A) vs Bob (side B)",
    EventName.COUNTDOWN: "countdown 1/3",
    EventName.GO: "GO",
    EventName.FALSE_START: "FALSE START by side B",
    EventName.TIE: "tie       120 us apart: re-run 1",
    EventName.PADDLE_HELD: "paddle A is held down: release it to start",
    EventName.RESULT: "result    sd-1: Bob (side B) beat Ann (side A), faster by 23.5 ms; "
    "2 cards launched (reactions: A 254.5 ms, B 231.0 ms)",
    EventName.LAUNCHED: "launched  2 cards toward side A, counted",
    EventName.CANCELLED: "cancelled sd-1",
    EventName.FAULT: "FAULT     motor driver not responding",
    EventName.OUTPUTS: "outputs   leds 110, GO off, arrow B, buzzer on, motor toward side B at "
    "80%, paddle A down",
}


def test_the_examples_cover_every_event_with_its_fields():
    assert set(EVENTS) == set(EventName) == set(EVENT_LINES)
    assert all(list(EVENTS[name]) == list(name.fields) for name in EventName)


@pytest.mark.parametrize("name", list(EventName))
def test_every_event_has_its_line(name):
    assert event_line(name, EVENTS[name]) == EVENT_LINES[name]
    assert event_line(str(name), EVENTS[name]) == EVENT_LINES[name]  # the wire's text too


def test_an_unknown_event_is_an_error_not_a_silent_line():
    with pytest.raises(ValueError, match="unknown event 'boom'"):
        event_line("boom", {})


@pytest.mark.parametrize(
    "data, line",
    [
        ({"showdown_id": "x", "step": 2, "steps": 3, "rerun": 1}, "countdown 2/3 (re-run 1)"),
    ],
)
def test_a_rerun_countdown_says_which_rerun(data, line):
    assert event_line("countdown", data) == line


@pytest.mark.parametrize(
    "verified, outcome, line",
    [
        (True, "launched", "launched  1 card toward side B, counted"),
        (False, "launched", "launched  1 card toward side B, not counted (no sensor)"),
        (False, "jam", "launched  1 card toward side B, JAM: not all counted"),
    ],
)
def test_a_launch_says_whether_the_sensor_counted_it(verified, outcome, line):
    data = {"showdown_id": "x", "side": "b", "cards": 1, "verified": verified, "outcome": outcome}
    assert event_line("launched", data) == line


def test_a_void_tie_says_void():
    data = {"showdown_id": "x", "gap_us": 3, "rerun": 3, "void": True}
    assert event_line("tie", data) == "tie       3 us apart: void"
    assert table_line("tie", data, NAMES) == "  Too close to call (under 0.1 ms apart): void."


#: What the table hears of a running showdown (showdown play on a unit); None: nothing.
TABLE_LINES = {
    EventName.STATE: None,
    EventName.ARMED: None,  # load_line says it, before the start
    EventName.COUNTDOWN: "  countdown 1/3",
    EventName.GO: "  GO!",
    EventName.FALSE_START: None,  # announce says it, once
    EventName.TIE: "  Too close to call (0.1 ms apart): the countdown runs again.",
    EventName.PADDLE_HELD: "  Ann's paddle (side A) is held down: let go, then press the timer "
    "button.",
    EventName.RESULT: None,  # announce says it
    EventName.LAUNCHED: None,  # only a jam is told
    EventName.CANCELLED: None,  # the port raises a UnitProblem
    EventName.FAULT: None,  # the port raises a UnitFault
    EventName.OUTPUTS: None,  # for a drawing of the unit, not for words
}


@pytest.mark.parametrize("name", list(EventName))
def test_the_table_hears_the_events_of_a_running_showdown(name):
    assert table_line(name, EVENTS[name], NAMES) == TABLE_LINES[name]


@pytest.mark.parametrize(
    "change, text",
    [
        (
            {},
            "leds 110, GO off, arrow B, buzzer on, motor toward side B at 80%, paddle A down",
        ),
        (
            {
                "leds": [False, False, False],
                "go": True,
                "arrows": {"a": False, "b": False},
                "buzzer": None,
                "motor": {"direction": None, "speed": 0.0},
                "paddles": {"a": True, "b": True},
            },
            "leds 000, GO on, arrows off, buzzer none, motor off, paddles A and B down",
        ),
        (
            {
                "arrows": {"a": True, "b": True},
                "buzzer": False,
                "paddles": {"a": False, "b": False},
            },
            "leds 110, GO off, arrows A and B, buzzer off, motor toward side B at 80%, paddles up",
        ),
    ],
)
def test_the_outputs_in_one_line(change, text):
    assert outputs_text({**EVENTS[EventName.OUTPUTS], **change}) == text


def test_the_table_hears_of_a_jam_with_the_count():
    data = {"showdown_id": "x", "side": "a", "cards": 1, "verified": False, "outcome": "jam"}
    assert table_line("launched", data, NAMES) == "  The launcher jammed: 1 card counted."


def test_the_table_is_told_what_to_load_and_who_stands_where():
    assert load_line(1, {"a": "Cat", "b": "Ann"}, starts="engine") == (
        "Load 1 card into the unit: Cat (side A) vs Ann (side B). Starting the countdown."
    )
    assert load_line(2, {"a": "bot1", "b": "bot2"}, starts="unit", bots={"a", "b"}) == (
        "Load 2 cards into the unit: bot1 (side A, a bot: the unit presses for it) vs "
        "bot2 (side B, a bot: the unit presses for it). The unit starts by itself."
    )
    assert rearmed_line("table") == "The showdown is armed again. Press the timer button."


# -- launch outcomes --------------------------------------------------------------------

LAUNCH_TEXTS = {
    Launch.LAUNCHED: "2 cards launched",
    Launch.JAM: "2 cards jam",
    Launch.CANCELLED: "2 cards cancelled",
    Launch.NONE: "no launch",
    Launch.FAULT: "2 cards fault",
    Launch.PENDING: "2 cards launching",
    Launch.INTERRUPTED: "launch of 2 cards interrupted, 1 counted out",
}


@pytest.mark.parametrize("launch", list(Launch))
def test_every_launch_outcome_has_its_words(launch):
    assert set(LAUNCH_TEXTS) == set(Launch)
    assert launch_text(launch, 2, 1) == LAUNCH_TEXTS[launch]
    assert launch_problem(launch)  # a sentence for the table, whatever happened


def test_the_launch_problems_the_table_hears():
    assert [
        launch_problem(launch) for launch in ("jam", "fault", "cancelled", "pending", "interrupted")
    ] == [
        "The launcher jammed",
        "The unit faulted during the launch",
        "The launch was cancelled on the unit",
        "The unit did not record how the launch ended",
        "The unit stopped before the launch ended",
    ]


def test_an_interrupted_launch_without_a_sensor_count_says_no_count():
    assert launch_text("interrupted", 3) == "launch of 3 cards interrupted"
    assert interrupted_text("Bob", 2, 2) == (
        "The unit stopped before the launch ended: Bob takes 2 cards (2 of 2 counted out)."
    )


def test_regression_history_said_1_cards():
    # history wrote "{cards} cards ..." whatever the count; Result said "1 card".
    line = history_line({**result(cards=1), "recorded_at": None})
    assert line.endswith("  1 card launched")
    assert line.endswith(launch_text("launched", 1))


# -- verdicts: one wording per idea, on every surface --------------------------------


@pytest.mark.parametrize(
    "changes, unit_line, table_sentence, history_outcome",
    [
        (
            {},
            "sd-1: Bob (side B) beat Ann (side A), faster by 23.5 ms; 2 cards launched",
            "Bob wins: Ann 254.5 ms, Bob 231.0 ms, margin 23.5 ms. Ann takes 2 cards.",
            "Bob won (faster)",
        ),
        (
            {"margin_us": None, "reaction_us": {"a": None, "b": 231000}},
            "sd-1: Bob (side B) beat Ann (side A), who did not press; 2 cards launched",
            "Bob wins: Bob 231.0 ms; Ann did not press. Ann takes 2 cards.",
            "Bob won (faster)",
        ),
        (
            {"reason": "false_start", "reaction_us": {"a": None, "b": None}, "margin_us": None},
            "sd-1: false start by Ann (side A); 2 cards launched",
            "False start by Ann (side A). Ann takes 2 cards.",
            "false start by Ann",
        ),
        (
            {
                "reason": "timeout",
                "winner": None,
                "loser": None,
                "launch": "none",
                "reaction_us": {"a": None, "b": None},
                "margin_us": None,
            },
            "sd-1: nobody pressed in time; no launch",
            "Nobody pressed in time. The cards are still loaded.",
            "nobody pressed in time",
        ),
        (
            {
                "reason": "tie_void",
                "winner": None,
                "loser": None,
                "launch": "none",
                "tie_reruns": 3,
                "margin_us": 50,
            },
            "sd-1: too close to call after 3 re-runs: void; no launch",
            "Too close to call after 3 re-runs: void. The cards are still loaded.",
            "too close to call after 3 re-runs: void",
        ),
    ],
)
def test_each_verdict_reads_the_same_on_every_surface(
    changes, unit_line, table_sentence, history_outcome
):
    data = result(**changes)
    assert result_line(data) == unit_line == str(Result.from_dict(data))
    assert announce(data) == table_sentence
    assert table_sentence.startswith(verdict(data) + ".")
    assert history_line({**data, "recorded_at": None}).split("  ")[3] == history_outcome


def test_every_reason_has_a_verdict():
    lines = {reason: result_line(result(reason=reason, tie_reruns=1)) for reason in Reason}
    assert len(set(lines.values())) == len(Reason)


def test_a_history_row_shows_when_who_how_and_the_times():
    row = history_line({**result(), "recorded_at": "2025-11-30T18:04:11+00:00"})
    when, *rest = row.split("  ")
    assert len(when) == len("2025-11-30 18:04:11")  # local time, to the second
    assert rest == [
        "sd-1",
        "Ann vs Bob",
        "Bob won (faster)",
        "A 254.5 ms",
        "B 231.0 ms",
        "margin 23.5 ms",
        "2 cards launched",
    ]


def test_a_damaged_history_row_still_gets_a_line():
    assert history_line({"showdown_id": "x"}) == (
        "?  x  ? vs ?  no winner (None)  A -  B -  margin -  no launch"
    )


@pytest.mark.parametrize(
    "outcome, winner, loser, margin, line",
    [
        ("faster", "b", "a", 23500, "decided   side B faster by 23.5 ms: cards go to side A"),
        ("false_start", "a", "b", None, "decided   false start by side B: cards go to side B"),
        ("tie", None, None, 120, None),
    ],
)
def test_the_demo_says_each_decision(outcome, winner, loser, margin, line):
    assert decision_line(outcome, winner, loser, margin) == line


# -- the helpers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "count, text", [(0, "0 cards"), (1, "1 card"), (2, "2 cards"), (10, "10 cards")]
)
def test_plural(count, text):
    assert plural(count, "card") == text
    assert noun(count, "card") == text.split(" ", 1)[1]


def test_plural_of_an_irregular_noun():
    assert [plural(n, "entry", "entries") for n in (1, 2)] == ["1 entry", "2 entries"]
    assert [reruns_text(n) for n in (1, 2)] == ["1 near-tie re-run", "2 near-tie re-runs"]


@pytest.mark.parametrize(
    "micros, text",
    [
        (231400, "231.4 ms"),
        (23974, "24.0 ms"),
        (0, "0.0 ms"),
        (-2500, "-2.5 ms"),
        (None, "-"),
        (True, "-"),
        ("5", "-"),
    ],
)
def test_ms_from_microseconds(micros, text):
    assert ms(micros) == text


def test_us_where_the_microsecond_matters():
    assert (us(120), us(0), us(None), ms(120, 2)) == ("120 us", "0 us", "-", "0.12 ms")


def test_sides_and_players():
    assert (side_label("a"), side_label("b")) == ("side A", "side B")
    assert player_label("Zoë", "b") == "Zoë (side B)"
    assert versus("Ann", "Bob") == "Ann vs Bob"


# -- who does what, and the table's verdicts ----------------------------------------------


@pytest.mark.parametrize(
    "subject, base, text",
    [
        ("Ann", "play", "Ann plays"),
        ("You", "play", "You play"),
        ("you", "take", "you take"),
        ("YOU", "draw", "YOU draw"),
        ("Bob", "catch", "Bob catches"),
        ("Bob", "go", "Bob goes"),
        ("Bob", "have", "Bob has"),
        ("Youssef", "win", "Youssef wins"),
        ("Ann Lee", "face", "Ann Lee faces"),
    ],
)
def test_a_verb_agrees_with_its_subject_never_you_plays(subject, base, text):
    assert verb(subject, base) == text


def test_third_person_forms():
    assert [third_person(v) for v in ("pass", "push", "fix", "carry", "say", "be")] == [
        "passes",
        "pushes",
        "fixes",
        "carries",
        "says",
        "is",
    ]
    assert (capital("you win."), capital("")) == ("You win.", "")


def test_a_duel_verdict_reads_as_the_units_and_in_ms():
    names = {0: "Ann", 2: "Bob"}
    assert duel_verdict(names, 2, 0, "faster", {0: 254500, 2: 231000}, 23500) == (
        "Bob wins: Ann 254.5 ms, Bob 231.0 ms, margin 23.5 ms"
    )
    unit = verdict(result())
    assert unit == "Bob wins: Ann 254.5 ms, Bob 231.0 ms, margin 23.5 ms"
    assert duel_verdict(names, 2, 0, "faster", {0: None, 2: 231000}) == (
        "Bob wins: Bob 231.0 ms; Ann did not press"
    )
    assert duel_verdict(names, 2, 0, "faster", {0: None, 2: None}) == "Bob wins"
    assert duel_verdict(names, 2, 0, "false_start", {0: None, 2: None}) == "false start by Ann"
    assert duel_verdict({0: "you", 2: "Bob"}, 0, 2, "faster", {}, None, 2) == (
        "you win, after 2 near-tie re-runs"
    )


def test_a_showdown_fought_again_says_the_cards_are_still_loaded():
    assert again_line("timeout", 3) == (
        "Nobody pressed in time: the showdown is fought again. The 3 cards are still loaded: "
        "do not load them again."
    )
    assert again_line("tie", 2) == (
        "Too close to call: the showdown is fought again. The 2 cards are still loaded."
    )


@pytest.mark.parametrize(
    "gap, text",
    [
        (0, "under 0.1 ms apart"),
        (49, "under 0.1 ms apart"),
        (50, "0.1 ms apart"),
        (2500, "2.5 ms apart"),
    ],
)
def test_a_gap_is_in_ms_like_every_time_the_table_hears(gap, text):
    assert apart(gap) == text


def test_the_benchs_margin_is_in_ms_like_everything_else():
    """Issue 22: the bench said "faster by 396548 us" where all else says ms."""
    result = {
        "showdown_id": "sd-9",
        "players": {"a": "Ann", "b": "Bob"},
        "winner": "a",
        "loser": "b",
        "reason": "faster",
        "tie_reruns": 0,
        "margin_us": 396548,
        "reaction_us": {"a": 200000, "b": 596548},
        "cards": 2,
        "launch": "launched",
        "cards_counted": None,
    }
    assert "faster by 396.5 ms" in result_line(result)
    assert " us" not in result_line(result)
