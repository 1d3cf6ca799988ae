"""The history page's rows and figures (engine.units.unit_history): a unit's
``history`` reply read into rows, a row it cannot read skipped and said, each
player's figures (wins, losses, false starts, median, points over time, bins),
bots apart from people; the HistoryBook of a table with no unit; fetching over
a link from a scripted unit, and each way that fails."""

from __future__ import annotations

import pytest

from engine.game.errors import UnitProblem, UnitUnreachable
from engine.units.ports import ShowdownOutcome, ShowdownRequest, SimulatedUnit
from engine.units.unit_history import (
    Bin,
    HistoryBook,
    HistoryRow,
    UnitHistory,
    check_limit,
    history_document,
    parse_history,
    player_histories,
    reaction_bins,
)
from firmware_host.protocol import Reason
from tests.fake_unit import FakeUnit


def result(
    showdown_id="g1",
    a="Ann",
    b="Bob",
    winner="b",
    reason="faster",
    a_us=263000,
    b_us=241000,
    bots=(),
    at="2025-11-30T18:04:11Z",
    **extra,
):
    loser = None if winner is None else ("a" if winner == "b" else "b")
    return {
        "recorded_at": at,
        "showdown_id": showdown_id,
        "players": {"a": a, "b": b},
        "bots": list(bots),
        "winner": winner,
        "loser": loser,
        "reason": reason,
        "tie_reruns": 0,
        "reaction_us": {"a": a_us, "b": b_us},
        "margin_us": None if a_us is None or b_us is None else abs(a_us - b_us),
        "cards": 2,
        "launch": "launched" if winner else "none",
        "cards_counted": None,
        **extra,
    }


def false_start(showdown_id, offender="a", **fields):
    winner = "b" if offender == "a" else "a"
    return result(showdown_id, winner=winner, reason="false_start", a_us=None, b_us=None, **fields)


def rows_of(*results):
    """Rows as a unit sends them: newest first (the arguments are oldest first)."""
    history = parse_history({"results": list(reversed(results))}, source="test", limit=50)
    assert history.skipped == ()
    return history.rows


# -- rows ---------------------------------------------------------------------------------


def test_a_row_reads_a_units_result():
    row = HistoryRow.from_result(result(bots=["b"]))
    assert row == HistoryRow(
        recorded_at="2025-11-30T18:04:11Z",
        showdown_id="g1",
        players={"a": "Ann", "b": "Bob"},
        bots=("b",),
        winner="b",
        loser="a",
        reason="faster",
        reaction_us={"a": 263000, "b": 241000},
        cards=2,
    )
    assert (row.outcome("a"), row.outcome("b")) == ("lost", "won")
    assert row.reason is Reason.FASTER  # the wire's text made the protocol's member once


def test_a_result_from_a_unit_before_bots_has_people_on_both_sides():
    item = result()
    del item["bots"]
    assert HistoryRow.from_result(item).bots == ()


def test_a_field_a_newer_unit_adds_is_passed_over():
    assert HistoryRow.from_result(result(lights="new")).showdown_id == "g1"


def test_rows_that_cannot_be_read_are_skipped_and_said_and_the_others_kept():
    no_cards = result("g2")
    del no_cards["cards"]
    history = parse_history(
        {
            "results": [
                result("g5"),
                no_cards,
                result("g3", at="yesterday"),
                result("g4", winner="c"),
                "junk",
                result("g1"),
            ]
        },
        source="test",
        limit=50,
    )
    assert [row.showdown_id for row in history.rows] == ["g5", "g1"]
    assert history.skipped == (
        "row 2 (g2): missing field 'cards'",
        "row 3 (g3): field 'recorded_at' must be a time like 2025-11-30T18:04:11Z, not 'yesterday'",
        'row 4 (g4): field \'winner\' must be "a", "b" or null, not "c"',
        "row 5: not a result but str",
    )


def test_a_verdict_that_does_not_agree_with_itself_is_skipped():
    history = parse_history(
        {"results": [result("g1", winner=None, reason="faster")]}, source="test", limit=5
    )
    assert history.rows == ()
    assert history.skipped == (
        "row 1 (g1): the result must name a winner and a loser on different sides when its "
        'reason is "faster", not null and null',
    )


def test_the_units_damaged_entries_are_kept_and_said_in_the_document():
    history = parse_history({"results": [result()], "damaged": [3, 7]}, source="u", limit=50)
    assert history.damaged == (3, 7)
    assert history_document(history)["notes"] == [
        "2 damaged journal rows skipped on the unit (entries 3, 7): "
        "run showdown-unit journal check on the unit"
    ]


# -- figures ------------------------------------------------------------------------------


def test_each_players_wins_losses_false_starts_median_and_best():
    rows = rows_of(
        result("g1", winner="b", a_us=263000, b_us=241000),
        result("g2", winner="a", a_us=230000, b_us=250000),
        false_start("g3", offender="a"),
        result("g4", winner="a", a_us=210000, b_us=300000),
    )
    people, bots = player_histories(rows)
    assert bots == {}
    ann, bob = people["Ann"], people["Bob"]
    assert (ann.showdowns, ann.wins, ann.losses, ann.false_starts) == (4, 2, 2, 1)
    assert (ann.median_reaction_us, ann.best_reaction_us) == (230000, 210000)
    assert (bob.showdowns, bob.wins, bob.losses, bob.false_starts) == (4, 2, 2, 0)
    # Bob's time in g3 does not count: Ann's false start decided it.
    assert (bob.median_reaction_us, bob.best_reaction_us) == (250000, 241000)
    assert ann.summary == (
        "Ann: 4 showdowns, 2 wins, 2 losses, 1 false start; median reaction 230.0 ms, "
        "best 210.0 ms (3 timed presses, from 210.0 ms to 263.0 ms)."
    )


def test_points_follow_the_showdowns_oldest_first_with_how_each_ended():
    rows = rows_of(
        result("g1", winner="b", at="2025-11-30T18:00:00Z"),
        false_start("g2", offender="b", at="2025-11-30T18:01:00Z"),
        result("g3", winner=None, reason="timeout", a_us=None, b_us=400000),
    )
    bob = player_histories(rows)[0]["Bob"]
    assert [(p.n, p.showdown_id, p.reaction_us, p.outcome) for p in bob.points] == [
        (1, "g1", 241000, "won"),
        (2, "g2", None, "false_start"),
        (3, "g3", 400000, "undecided"),  # a press after GO counts, as on the unit
    ]
    assert bob.points[0].against == "Ann" and bob.points[0].recorded_at == "2025-11-30T18:00:00Z"
    assert (bob.wins, bob.losses, bob.false_starts, bob.undecided) == (1, 1, 1, 1)
    ann = player_histories(rows)[0]["Ann"]
    assert [p.outcome for p in ann.points] == ["lost", "won", "undecided"]
    assert ann.summary == (
        "Ann: 3 showdowns, 1 win, 1 loss, 0 false starts, 1 without a loser; "
        "median reaction 263.0 ms, best 263.0 ms."
    )


def test_a_bots_times_never_go_into_a_persons_figures():
    rows = rows_of(
        result("g1", a="Ann", b="Robo", winner="b", a_us=300000, b_us=150000, bots=["b"]),
        result("g2", a="Ann", b="Robo", winner="a", a_us=200000, b_us=250000),
        result("g3", a="Zed", b="Robo", winner="b", a_us=500000, b_us=180000, bots=["b"]),
    )
    people, bots = player_histories(rows)
    assert list(people) == ["Ann", "Robo", "Zed"]  # Robo played g2 as a person
    assert list(bots) == ["Robo"]
    assert (people["Robo"].showdowns, people["Robo"].median_reaction_us) == (1, 250000)
    assert (bots["Robo"].showdowns, bots["Robo"].median_reaction_us) == (2, 165000)
    assert bots["Robo"].bot and not people["Robo"].bot
    assert [p.against_bot for p in people["Ann"].points] == [True, False]
    assert bots["Robo"].summary.startswith("Robo (bot): 2 showdowns, 2 wins")


def test_a_player_with_no_timed_press_says_so():
    people, _ = player_histories(rows_of(false_start("g1", offender="a")))
    ann = people["Ann"]
    assert (ann.median_reaction_us, ann.best_reaction_us, ann.bins) == (None, None, ())
    assert ann.summary == "Ann: 1 showdown, 0 wins, 1 loss, 1 false start; no timed press yet."


def test_names_come_in_order_without_regard_to_case():
    people, _ = player_histories(rows_of(result("g1", a="bob", b="Ann"), result("g2", a="Cy")))
    assert list(people) == ["Ann", "Bob", "bob", "Cy"]


def test_reaction_bins_take_the_narrowest_round_width_that_fits():
    assert reaction_bins([]) == ()
    assert reaction_bins([263000]) == (Bin(260000, 265000, 1),)
    # 150 to 900 ms: 5..50 ms need more than 12 bins; 100 ms bins from 100 to 900.
    bins = reaction_bins([150000, 420000, 430000, 899999, 900000])
    assert [(b.from_us, b.count) for b in bins] == [
        (100000, 1),
        (200000, 0),
        (300000, 0),
        (400000, 2),
        (500000, 0),
        (600000, 0),
        (700000, 0),
        (800000, 1),
        (900000, 1),
    ]
    assert all(b.to_us - b.from_us == 100000 for b in bins)


def test_reaction_bins_wider_than_every_round_width_use_whole_seconds():
    bins = reaction_bins([0, 30_000_000], max_bins=12)
    assert bins[0] == Bin(0, 3_000_000, 1) and bins[-1].count == 1
    assert sum(b.count for b in bins) == 2 and len(bins) <= 12


def test_the_document_says_where_from_how_many_and_whether_there_are_more():
    results = [result(f"g{n}", at=f"2025-11-30T18:0{n}:00Z") for n in (3, 2, 1)]
    document = history_document(parse_history({"results": results}, source="u", limit=3))
    assert document["source"] == "u"
    assert (document["showdowns"], document["limit"], document["more"]) == (3, 3, True)
    assert (document["first_at"], document["last_at"]) == (
        "2025-11-30T18:01:00Z",
        "2025-11-30T18:03:00Z",
    )
    assert [p["name"] for p in document["people"]] == ["Ann", "Bob"]
    assert document["bots"] == []
    ann = document["people"][0]
    assert [p["n"] for p in ann["points"]] == [1, 2, 3]
    assert ann["bins"] == [{"from_us": 260000, "to_us": 265000, "count": 3}]
    fewer = history_document(parse_history({"results": results}, source="u", limit=4))
    assert fewer["more"] is False


# -- the book of a table with no unit ---------------------------------------------------


class Clock:
    def __init__(self):
        self.t = 1764525851.0

    def __call__(self):
        self.t += 60
        return self.t


def test_the_book_keeps_showdowns_as_a_unit_does_challenger_on_side_a():
    book = HistoryBook(now=Clock())
    request = ShowdownRequest("m1:r1:s1", 2, 0, "Cy", "bot1", 3, bots={0: 250})
    book.record(request, ShowdownOutcome(0, 2, "faster", {2: 200000, 0: 260000}, 60000))
    assert book.document() == {
        "results": [
            {
                "recorded_at": "2025-11-30T18:05:11Z",
                "showdown_id": "m1:r1:s1",
                "players": {"a": "Cy", "b": "bot1"},
                "bots": ["b"],
                "winner": "a",
                "loser": "b",
                "reason": "faster",
                "tie_reruns": 0,
                "reaction_us": {"a": 200000, "b": 260000},
                "margin_us": 60000,
                "cards": 3,
                "launch": "launched",
                "cards_counted": None,
            }
        ],
        "damaged": [],
    }
    people, bots = player_histories(book.history().rows)
    assert list(people) == ["Cy"] and list(bots) == ["bot1"]


def test_the_book_gives_the_newest_first_up_to_the_limit_and_keeps_its_capacity():
    book = HistoryBook(capacity=3, now=Clock())
    for n in range(1, 6):
        request = ShowdownRequest(f"s{n}", 0, 1, "Ann", "Bob", 1)
        book.record(request, ShowdownOutcome(1, 0, "false_start", {0: None, 1: None}))
    assert len(book) == 3
    assert [r["showdown_id"] for r in book.document()["results"]] == ["s5", "s4", "s3"]
    history = book.history(limit=2)
    assert [row.showdown_id for row in history.rows] == ["s5", "s4"] and history.more
    assert player_histories(history.rows)[0]["Bob"].false_starts == 2


def test_the_book_refuses_an_outcome_between_other_players():
    book = HistoryBook()
    request = ShowdownRequest("s1", 0, 1, "Ann", "Bob", 1)
    with pytest.raises(ValueError, match="showdown s1 was player 0 vs 1"):
        book.record(request, ShowdownOutcome(2, 0, "faster", {}))
    assert len(book) == 0


def test_a_port_wrapped_by_the_book_records_every_showdown_it_fights():
    import random

    book = HistoryBook(now=Clock())
    port = book.recording(SimulatedUnit(random.Random(3)))
    outcomes = [
        port.run_showdown(ShowdownRequest(f"s{n}", 0, 1, "Ann", "Bob", 2)) for n in range(4)
    ]
    rows = book.history().rows
    assert [row.showdown_id for row in rows] == ["s3", "s2", "s1", "s0"]
    assert [row.loser for row in reversed(rows)] == [
        "a" if outcome.loser == 0 else "b" for outcome in outcomes
    ]
    assert port.rng is port.port.rng  # the rest is the port's own


def test_an_outcome_the_port_does_not_give_is_not_recorded():
    class Broken:
        def run_showdown(self, request):
            raise RuntimeError("the unit port failed")

    book = HistoryBook()
    with pytest.raises(RuntimeError, match="the unit port failed"):
        book.recording(Broken()).run_showdown(ShowdownRequest("s1", 0, 1, "Ann", "Bob", 1))
    assert len(book) == 0


@pytest.mark.parametrize("limit", [0, 1001, True, 2.0])
def test_a_limit_out_of_range_is_refused_naming_it(limit):
    with pytest.raises(
        ValueError, match=f"limit must be a whole number from 1 to 1000, not {limit!r}"
    ):
        check_limit(limit)


# -- fetched over a link -------------------------------------------------------------------


def unit_with_history(document=None, **options):
    unit = FakeUnit(**options)
    reply = (
        document
        if document is not None
        else {
            "results": [result("g2", bots=["b"]), result("g1")],
            "players": {},
            "bots": {},
            "damaged": [9],
        }
    )
    unit.replace_reply["history"] = lambda unit, request: reply
    return unit


def source_for(unit, token=None):
    return UnitHistory(
        "socket://127.0.0.1:7700",
        token=token,
        clock=unit.clock,
        sleep=unit.sleep,
        open_port=unit.open_port,
    )


def test_the_history_is_fetched_with_the_history_command_and_its_limit():
    unit = unit_with_history(token="sesame")
    history = source_for(unit, token="sesame").history(limit=20)
    assert unit.commands("history") == [{"limit": 20, "player": None}]
    assert [row.showdown_id for row in history.rows] == ["g2", "g1"]
    assert history.damaged == (9,)
    assert history.source == "the unit at socket://127.0.0.1:7700"
    assert unit.ports == []  # the link is closed again


def test_an_unreachable_unit_is_said_with_what_to_do():
    unit = unit_with_history()
    unit.reachable = False
    with pytest.raises(UnitUnreachable) as caught:
        source_for(unit).history()
    assert str(caught.value) == (
        "cannot read the history of the unit at socket://127.0.0.1:7700: "
        "connection refused: nothing listens at 127.0.0.1:7700"
    )
    assert caught.value.what_to_do.startswith("Check that the unit is switched on")


def test_a_unit_that_wants_a_token_says_to_give_it():
    unit = unit_with_history(token="sesame")
    with pytest.raises(UnitProblem) as caught:
        source_for(unit).history()
    assert str(caught.value) == (
        "the unit at socket://127.0.0.1:7700 asks for a token and none was given"
    )
    assert "--token-file FILE" in caught.value.what_to_do


def test_a_refused_history_command_is_said_with_the_units_words():
    unit = unit_with_history()
    unit._cmd_history = lambda request: request.fail("fault", "the journal is locked")
    unit.replace_reply.clear()
    with pytest.raises(UnitProblem) as caught:
        source_for(unit).history()
    assert str(caught.value) == (
        "the unit at socket://127.0.0.1:7700 refused history: the journal is locked (fault)"
    )


def test_a_reply_out_of_shape_is_a_problem_not_a_crash():
    unit = unit_with_history({"results": "none", "players": {}})
    with pytest.raises(UnitUnreachable) as caught:
        source_for(unit).history()
    assert "field 'results' must be an array of objects" in str(caught.value)


def test_a_unit_on_a_serial_line_is_not_opened_a_second_time():
    unit = unit_with_history()
    source = UnitHistory(
        "/dev/ttyUSB0", clock=unit.clock, sleep=unit.sleep, open_port=unit.open_port
    )
    with pytest.raises(UnitProblem) as caught:
        source.history()
    assert str(caught.value) == (
        "the history cannot be read from the unit at /dev/ttyUSB0 while the table fights its "
        "showdowns there: a serial line has room for one peer"
    )
    assert "socket://HOST:PORT" in caught.value.what_to_do
    assert unit.log == []  # nothing was opened
    serial_ok = UnitHistory(
        "/dev/ttyUSB0", clock=unit.clock, sleep=unit.sleep, open_port=unit.open_port, serial_ok=True
    )
    assert [row.showdown_id for row in serial_ok.history().rows] == ["g2", "g1"]
