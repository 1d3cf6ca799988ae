"""The figures the journal keeps beside its rows (version 4, journal_figures): ``history``
reads only the rows it returns, gives what reading every row gave, and finds a player's
showdowns through an index."""

import contextlib
import json
import random
import shutil
import sqlite3
import statistics
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import firmware_host.service.journal
from firmware_host.core.result import Result
from firmware_host.service import journal_figures
from firmware_host.service.journal import FILENAME, Journal
from tests.test_journal import Clock, decision, result

# -- the oracle: history as version 3 made it, reading and validating every row ----------


def old_merged(showdown_id, body, launch, counted):
    """A row's result as version 3 read it; ValueError if damaged."""
    try:
        found = json.loads(body)
    except (TypeError, ValueError):
        raise ValueError("its body is not JSON") from None
    if not isinstance(found, dict):
        raise ValueError(f"its body is not a result but a {type(found).__name__}")
    found = {**found, "launch": launch or "pending", "cards_counted": counted}
    try:
        Result.from_dict(found)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not a valid result: {exc}") from None
    if found["showdown_id"] != showdown_id:
        raise ValueError(f"its body is the result of {found['showdown_id']!r}")
    return found


def old_history(path, limit=50, player=None):
    """The history document of the journal at ``path``, computed as version 3 did."""
    db = sqlite3.connect(path)
    wanted = None if player is None else player.casefold()
    rows = db.execute(
        "SELECT entry, showdown_id, recorded_at, body, launch, cards_counted FROM results "
        "ORDER BY entry DESC"
    ).fetchall()
    names = {
        entry: (a.casefold(), b.casefold())
        for entry, a, b in db.execute("SELECT entry, player_a, player_b FROM results")
    }
    db.close()
    damaged, valid = set(), []
    for entry, showdown_id, recorded_at, body, launch, counted in rows:
        if wanted is not None and wanted not in names[entry]:
            continue
        try:
            valid.append((recorded_at, old_merged(showdown_id, body, launch, counted)))
        except ValueError:
            damaged.add(entry)
    results = [{"recorded_at": iso(recorded_at), **body} for recorded_at, body in valid[:limit]]
    tallies = ({}, {})
    for _, body in reversed(valid):
        for side in ("a", "b"):
            name = body["players"][side]
            if wanted is not None and name.casefold() != wanted:
                continue
            tally = tallies[side in body["bots"]].setdefault(
                name, {"showdowns": 0, "reactions": [], "false_starts": 0, "wins": 0, "losses": 0}
            )
            tally["showdowns"] += 1
            tally["wins"] += body["winner"] == side
            tally["losses"] += body["loser"] == side
            if body["reason"] == "false_start":
                tally["false_starts"] += body["loser"] == side
                continue
            reaction = body["reaction_us"][side]
            if isinstance(reaction, int) and not isinstance(reaction, bool) and reaction >= 0:
                tally["reactions"].append(reaction)
    players, bots = (
        {
            name: {
                "showdowns": t["showdowns"],
                "median_reaction_us": (
                    round(statistics.median(t["reactions"])) if t["reactions"] else None
                ),
                "best_reaction_us": min(t["reactions"]) if t["reactions"] else None,
                "false_starts": t["false_starts"],
                "wins": t["wins"],
                "losses": t["losses"],
            }
            for name, t in sorted(kind.items())
        }
        for kind in tallies
    )
    return {"results": results, "players": players, "bots": bots, "damaged": sorted(damaged)}


def iso(recorded_at):
    """The time as an entry gives it."""
    return firmware_host.service.journal.JournalEntry(recorded_at, {}).recorded_at_iso


# -- journals to read ------------------------------------------------------------------

NAMES = ["Ann", "ann", "ANN", "Bob", "Zoë", "ZOË", "Cy", "Straße", "STRASSE"]


def random_result(rng, showdown_id):
    a, b = rng.choice(NAMES), rng.choice(NAMES)
    kind = rng.random()
    bots = [side for side in "ab" if rng.random() < 0.2]
    if kind < 0.1:  # a false start: the loser pressed early
        winner = rng.choice("ab")
        loser = "b" if winner == "a" else "a"
        early = {loser: -rng.randrange(1, 90_000), winner: None}
        return result(showdown_id, a, b, winner, "false_start", (early["a"], early["b"]), bots=bots)
    if kind < 0.15:
        return result(showdown_id, a, b, None, "timeout", (None, None), bots=bots)
    if kind < 0.2:
        both = rng.randrange(150_000, 160_000)
        return result(showdown_id, a, b, None, "tie_void", (both, both), bots=bots)
    # Few distinct milliseconds, so that medians fall inside crowded ones.
    times = (rng.randrange(150_000, 170_000), rng.randrange(150_000, 170_000))
    if times[0] == times[1]:
        times = (times[0], times[1] + 1)
    winner = "a" if times[0] < times[1] else "b"
    if rng.random() < 0.1:  # the loser never pressed
        times = (times[0], None) if winner == "a" else (None, times[1])
    return result(showdown_id, a, b, winner, "faster", times, bots=bots)


def fill(journal, count, seed=1, start=1):
    rng = random.Random(seed)
    journal._db.execute("PRAGMA synchronous = OFF")  # a test's file needs no fsync
    for n in range(start, start + count):
        body = random_result(rng, f"sd-{n}")
        if rng.random() < 0.1 and body["loser"] is not None:
            # Decided, then the launch and a later press (the loser's) came.
            later = dict(body["reaction_us"])
            journal.record_decision(
                {
                    **body,
                    "launch": "pending",
                    "reaction_us": {**later, body["loser"]: None},
                    "margin_us": None,
                }
            )
            journal.record_cards(body["showdown_id"], 1)
            journal._db.execute("PRAGMA synchronous = OFF")  # record_cards set it back
            journal.record_outcome(
                body["showdown_id"], "launched", 2, reaction_us=later, margin_us=body["margin_us"]
            )
        elif rng.random() < 0.05:
            journal.record_decision({**body, "launch": "pending"})  # still flying
        else:
            journal.record(body)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A journal of 400 random results, made once for the module."""
    path = tmp_path_factory.mktemp("built") / FILENAME
    with Journal(path, clock=Clock()) as journal:
        fill(journal, 400)
    return path


@pytest.fixture
def path(built, tmp_path):
    """A copy of it of the test's own (closed, so the one file holds it all)."""
    return Path(shutil.copy(built, tmp_path / FILENAME))


PLAYERS = [None, "ann", "ZOË", "strasse", "Straße", "bob", "Nobody"]


@pytest.mark.parametrize("player", PLAYERS)
@pytest.mark.parametrize("limit", [1, 7, 50, 1000])
def test_history_is_what_reading_every_row_gave(path, limit, player):
    with Journal(path, readonly=True) as reader:
        assert reader.history(limit, player) == old_history(path, limit, player)


def test_the_writer_reads_the_same_as_a_reader(path):
    with Journal(path) as journal, Journal(path, readonly=True) as reader:
        assert (
            journal.history(20, "ann") == reader.history(20, "ann") == old_history(path, 20, "ann")
        )
        assert journal.player_stats() == old_history(path)["players"]
        assert journal.bot_stats("ANN") == old_history(path, player="ann")["bots"]


def test_the_figures_follow_each_write(tmp_path):
    path = tmp_path / FILENAME
    with Journal(path, clock=Clock()) as journal, Journal(path, readonly=True) as reader:
        for n in range(1, 41):
            fill(journal, 1, seed=n, start=n)
            assert reader.history(5) == old_history(path, 5)
        journal.recover()  # the launches still flying end as interrupted
        assert reader.history(50, "ann") == old_history(path, 50, "ann")


def test_history_reads_only_the_rows_it_returns(path, monkeypatch):
    read = []

    def counting(data):
        read.append(data["showdown_id"])
        return Result(**data)

    with Journal(path, readonly=True) as reader:
        monkeypatch.setattr(Result, "from_dict", counting)
        history = reader.history(1)
        assert read == [history["results"][0]["showdown_id"]] == ["sd-400"]
        read.clear()
        history = reader.history(3, "zoë")
        assert read == [r["showdown_id"] for r in history["results"]]
        assert len(read) == 3


def test_a_player_is_found_through_the_key_indexes(path):
    db = sqlite3.connect(path)
    plan = [
        row[3]
        for row in db.execute(
            "EXPLAIN QUERY PLAN SELECT entry FROM results WHERE key_a = ? "
            "UNION SELECT entry FROM results WHERE key_b = ? ORDER BY entry DESC",
            ("ann", "ann"),
        )
    ]
    assert plan == [
        "MERGE (UNION)",
        "LEFT",
        "SEARCH results USING COVERING INDEX results_key_a (key_a=?)",
        "RIGHT",
        "SEARCH results USING COVERING INDEX results_key_b (key_b=?)",
    ]
    tallies = [
        row[3]
        for row in db.execute("EXPLAIN QUERY PLAN SELECT * FROM tallies WHERE name_key = ?", ("a",))
    ]
    assert tallies == ["SEARCH tallies USING INDEX tallies_keys (name_key=?)"]
    db.close()


def test_every_query_of_a_players_history_searches_an_index(path):
    """Each query a player's history makes, as SQLite plans it: the only tables
    it scans are ``damaged`` and ``unchecked`` (empty but for damage), and the
    window over one name's milliseconds."""
    statements = []
    with Journal(path, readonly=True) as reader:
        reader._db.set_trace_callback(statements.append)  # the SQL with its values
        reader.history(5, "ann")
        reader._db.set_trace_callback(None)
        scans = {
            step
            for sql in statements
            if sql.startswith("SELECT")
            for *_, step in reader._db.execute("EXPLAIN QUERY PLAN " + sql)
            if step.startswith("SCAN")
        }
    assert scans == {
        "SCAN CONSTANT ROW",
        "SCAN unchecked",
        "SCAN damaged",
        "SCAN (subquery-1)",
        "SCAN (subquery-3)",
    }
    assert sum("FROM figures" in sql for sql in statements) == 12  # 6 names x best, median


# -- medians, exactly ------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=3_000), min_size=1, max_size=40))
def test_the_median_is_exact_within_and_across_milliseconds(reactions):
    with Journal(":memory:", clock=Clock()) as journal:
        for n, reaction in enumerate(reactions):
            journal.record(result(f"sd-{n}", reaction=(reaction, reaction + 1)))
        figures = journal.player_stats("Ann")["Ann"]
    assert figures["median_reaction_us"] == round(statistics.median(reactions))
    assert figures["best_reaction_us"] == min(reactions)


def test_a_removed_result_leaves_no_figures(tmp_path):
    path = tmp_path / FILENAME
    with Journal(path, clock=Clock()) as journal:
        journal.record(result("sd-1"))
        journal.record(result("sd-2", a="Cy"))
    db = sqlite3.connect(path)
    db.execute("DELETE FROM results WHERE showdown_id = 'sd-1'")
    db.commit()
    assert db.execute("SELECT name, showdowns FROM tallies ORDER BY name").fetchall() == [
        ("Bob", 1),
        ("Cy", 1),
    ]
    db.close()
    with Journal(path, readonly=True) as reader:
        assert reader.history() == old_history(path)
        assert reader.check().ok


# -- rows another program changed -------------------------------------------------------


def set_body(path, entry, body):
    db = sqlite3.connect(path)
    db.execute("UPDATE results SET body = ? WHERE entry = ?", (body, entry))
    db.commit()
    db.close()


def test_a_row_changed_by_another_program_is_read_the_long_way_until_reopened(path, caplog):
    caplog.set_level("INFO", logger="firmware_host.service.journal")
    set_body(path, 7, "{")
    with open_body(path, 9) as body:
        body["players"]["a"] = "Straße"
    with Journal(path, readonly=True) as reader:
        assert reader.history(30, "strasse") == old_history(path, 30, "strasse")
        assert reader.history(30) == old_history(path, 30)
    with Journal(path):  # the daemon starts: it reads them again
        pass
    assert f"{path}: 2 rows changed by another program read again (entries 7, 9)" in [
        r.getMessage() for r in caplog.records
    ]
    db = sqlite3.connect(path)
    assert db.execute("SELECT * FROM unchecked").fetchall() == []
    assert db.execute("SELECT * FROM damaged").fetchall() == [(7, "its body is not JSON")]
    db.close()
    with Journal(path, readonly=True) as reader:
        assert reader.history(30, "strasse") == old_history(path, 30, "strasse")
        assert reader.history(1000) == old_history(path, 1000)
        report = reader.check()
    assert (report.damaged, report.figures) == ((7,), ())


def test_a_running_daemon_reads_a_changed_row_again_with_its_next_write(path, caplog):
    caplog.set_level("INFO", logger="firmware_host.service.journal")
    with Journal(path, clock=Clock()) as journal:
        set_body(path, 3, "[]")
        journal.record(result("sd-401", a="Cy"))
        assert f"{path}: 1 row changed by another program read again (entry 3)" in [
            r.getMessage() for r in caplog.records
        ]
    db = sqlite3.connect(path)
    assert db.execute("SELECT * FROM unchecked").fetchall() == []
    assert db.execute("SELECT * FROM damaged").fetchall() == [
        (3, "its body is not a result but a list")
    ]
    db.close()
    with Journal(path, readonly=True) as reader:
        assert reader.history(10, "cy") == old_history(path, 10, "cy")


@contextlib.contextmanager
def open_body(path, entry):
    """The body of ``entry`` as a dict to change; written back by SQL, with its player_a."""
    db = sqlite3.connect(path)
    (text,) = db.execute("SELECT body FROM results WHERE entry = ?", (entry,)).fetchone()
    body = json.loads(text)
    yield body
    db.execute(
        "UPDATE results SET body = ?, player_a = ? WHERE entry = ?",
        (json.dumps(body), body["players"]["a"], entry),
    )
    db.commit()
    db.close()


def test_journal_check_finds_figures_that_disagree_with_their_rows(path):
    db = sqlite3.connect(path)
    db.execute("UPDATE figures SET won = 1 - won WHERE entry = 12 AND side = 'a'")
    db.execute("UPDATE tallies SET losses = losses + 1 WHERE name = 'Cy' AND bot = 0")
    db.commit()
    db.close()
    with Journal(path, readonly=True) as reader:
        report = reader.check()
    assert report.figures == (
        "the figures of entry 12 differ from the results",
        "the tallies differ from the sums of the figures",
    )
    assert not report.ok
    assert str(report).splitlines()[4] == (
        "  kept figures: the figures of entry 12 differ from the results; "
        "the tallies differ from the sums of the figures"
    )


def test_kept_figures_that_do_not_add_up_are_a_damaged_journal(path):
    db = sqlite3.connect(path)
    db.execute("DELETE FROM reaction_ms WHERE name = 'Cy' AND bot = 0")
    db.commit()
    db.close()
    with (
        Journal(path, readonly=True) as reader,
        pytest.raises(
            firmware_host.service.journal.JournalDamagedError,
            match=f"^{path}: cannot read the journal: the reactions kept for 'Cy' do not add up",
        ),
    ):
        reader.history(player="cy")


def test_side_figures_counts_what_the_figures_count():
    body = result("sd-1", "Ann", "Bob", "b", "false_start", (-5_000, None), bots=["b"])
    assert journal_figures.side_figures(3, body) == [
        (3, "a", "Ann", "ann", 0, 0, 1, 1, None),
        (3, "b", "Bob", "bob", 1, 1, 0, 0, None),
    ]
    too_big = result("sd-2", reaction=(2**63, 1))
    assert [row[-1] for row in journal_figures.side_figures(4, too_big)] == [None, 1]


def test_a_decision_counts_until_its_outcome_fills_in_the_loser(tmp_path):
    path = tmp_path / FILENAME
    with Journal(path, clock=Clock()) as journal:
        journal.record_decision(decision("sd-1", reaction=(200_000, None)))
        assert journal.player_stats()["Bob"]["median_reaction_us"] is None
        journal.record_outcome(
            "sd-1", "launched", None, reaction_us={"a": 200_000, "b": 260_000}, margin_us=60_000
        )
        assert journal.player_stats()["Bob"]["median_reaction_us"] == 260_000
    with Journal(path, readonly=True) as reader:
        assert reader.check().ok
