"""Older journals read as they are, and upgraded to version 4 in place: version 1 (the
whole result in one row), version 2 (the launch outcome in columns of its own; no
``bots`` in a result: every side was a person's, so an old result reads as ``"bots": []``)
and version 3 (no figures kept beside the rows: journal_figures)."""

import json
import random
import re
import sqlite3

import pytest

import firmware_host.service.journal_figures
import firmware_host.service.journal_schema
from firmware_host.core.result import Result
from firmware_host.service.journal import FILENAME, Journal, JournalEntry, JournalError
from tests.test_journal import T0, result
from tests.test_journal_figures import old_history, random_result

#: The schema of version 1, as the unit created it.
V1_SCHEMA = """
CREATE TABLE results (
    entry INTEGER PRIMARY KEY,
    showdown_id TEXT NOT NULL UNIQUE,
    recorded_at REAL NOT NULL,
    player_a TEXT NOT NULL,
    player_b TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX results_player_a ON results (player_a);
CREATE INDEX results_player_b ON results (player_b);
PRAGMA user_version = 1;
"""

#: The results as this version reads them (bots came with version 3)...
V1_RESULTS = [
    result("g1-r1", winner="b", cards_counted=2),
    result("g1-r2", a="Cy", winner=None, reason="timeout", reaction=(None, None)),
    result("g1-r3", launch="jam", cards_counted=1),
]


def old(body):
    """... and as a version 1 or 2 unit wrote them: without ``bots``."""
    return {key: value for key, value in body.items() if key != "bots"}


#: The schema of version 2, as the unit created it.
V2_SCHEMA = """
CREATE TABLE results (
    entry INTEGER PRIMARY KEY,
    showdown_id TEXT NOT NULL UNIQUE,
    recorded_at REAL NOT NULL,
    player_a TEXT NOT NULL,
    player_b TEXT NOT NULL,
    body TEXT NOT NULL,
    launch TEXT,
    cards_counted INTEGER,
    outcome_at REAL
);
CREATE INDEX results_player_a ON results (player_a);
CREATE INDEX results_player_b ON results (player_b);
PRAGMA user_version = 2;
"""

V4_COLUMNS = [
    "entry",
    "showdown_id",
    "recorded_at",
    "player_a",
    "player_b",
    "body",
    "launch",
    "cards_counted",
    "outcome_at",
    "key_a",
    "key_b",
]


@pytest.fixture
def v1_path(tmp_path):
    """A version 1 journal: three results, and entry 4 damaged."""
    path = tmp_path / FILENAME
    db = sqlite3.connect(path)
    db.executescript(V1_SCHEMA)
    for n, body in enumerate(V1_RESULTS, start=1):
        db.execute(
            "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?)",
            (
                n,
                body["showdown_id"],
                T0 + n,
                body["players"]["a"],
                body["players"]["b"],
                json.dumps(old(body), sort_keys=True, separators=(",", ":")),
            ),
        )
    db.execute("INSERT INTO results VALUES (4, 'g1-r4', ?, 'Ann', 'Bob', '{\"oops')", (T0 + 4,))
    db.commit()
    db.close()
    return path


@pytest.fixture
def v2_path(tmp_path):
    """A version 2 journal: two results, a decision whose launch is running, entry 4 damaged."""
    path = tmp_path / FILENAME
    db = sqlite3.connect(path)
    db.executescript(V2_SCHEMA)
    for n, body in enumerate(V1_RESULTS[:2], start=1):
        db.execute(
            "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                n,
                body["showdown_id"],
                T0 + n,
                body["players"]["a"],
                body["players"]["b"],
                json.dumps(old(body), sort_keys=True, separators=(",", ":")),
                body["launch"],
                body["cards_counted"],
                T0 + n,
            ),
        )
    pending = old({**V1_RESULTS[2], "launch": "pending", "cards_counted": None})
    db.execute(
        "INSERT INTO results VALUES (3, 'g1-r3', ?, 'Ann', 'Bob', ?, NULL, 1, NULL)",
        (T0 + 3, json.dumps(pending, sort_keys=True, separators=(",", ":"))),
    )
    db.execute(
        "INSERT INTO results VALUES (4, 'g1-r4', ?, 'Ann', 'Bob', '{\"oops', NULL, NULL, NULL)",
        (T0 + 4,),
    )
    db.commit()
    db.close()
    return path


def bodies(path):
    db = sqlite3.connect(path)
    try:
        return [
            json.loads(body) if body.startswith('{"') and body.endswith("}") else body
            for (body,) in db.execute("SELECT body FROM results ORDER BY entry")
        ]
    finally:
        db.close()


def columns(path):
    db = sqlite3.connect(path)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        names = [row[1] for row in db.execute("PRAGMA table_info(results)")]
        return version, names
    finally:
        db.close()


def test_a_writable_open_upgrades_it_and_keeps_every_row(v1_path):
    with Journal(v1_path) as journal:
        assert journal.schema_version == 4
        assert journal.entries() == [
            JournalEntry(T0 + n, body) for n, body in reversed(list(enumerate(V1_RESULTS, start=1)))
        ]
        assert journal.history()["damaged"] == [4]
        assert journal.recover() == []  # an old damaged row is no pending launch
    assert columns(v1_path) == (4, V4_COLUMNS)
    db = sqlite3.connect(v1_path)
    rows = db.execute("SELECT entry, launch, cards_counted, outcome_at FROM results").fetchall()
    assert rows == [
        (1, "launched", 2, T0 + 1),
        (2, "none", None, T0 + 2),
        (3, "jam", 1, T0 + 3),
        (4, None, None, None),
    ]
    db.close()


def test_an_upgraded_journal_takes_new_records(v1_path):
    with Journal(v1_path) as journal:
        assert journal.record(V1_RESULTS[0]) is False
        assert (
            journal.record_decision(
                {
                    **V1_RESULTS[0],
                    "showdown_id": "g2-r1",
                    "launch": "pending",
                    "cards_counted": None,
                }
            )
            is True
        )
    with Journal(v1_path) as journal:
        assert journal.get("g2-r1")["launch"] == "pending"


def test_read_only_reads_version_1_and_changes_nothing(v1_path):
    before = v1_path.read_bytes()
    with Journal(v1_path, readonly=True) as reader:
        assert reader.schema_version == 1
        assert reader.get("g1-r3") == V1_RESULTS[2]
        assert reader.history()["damaged"] == [4]
        report = reader.check()
    assert (report.ok, report.rows, report.damaged, report.schema_version) == (False, 4, (4,), 1)
    assert str(report).splitlines()[1] == "  schema version 1 (the daemon upgrades it to 4), 4 rows"
    assert v1_path.read_bytes() == before
    assert sorted(p.name for p in v1_path.parent.iterdir()) == [FILENAME]


def test_the_upgrade_is_one_transaction(v1_path, monkeypatch):
    monkeypatch.setattr(
        firmware_host.service.journal_schema,
        "V1_TO_V2",
        [*firmware_host.service.journal_schema.V1_TO_V2, "SELECT no_such_function()"],
    )
    with pytest.raises(
        JournalError,
        match=re.escape(f"{v1_path}: cannot open the journal: no such function: no_such_function"),
    ):
        Journal(v1_path)
    assert columns(v1_path) == (
        1,
        ["entry", "showdown_id", "recorded_at", "player_a", "player_b", "body"],
    )


# -- version 2 ---------------------------------------------------------------------------


def test_a_version_2_journal_is_upgraded_in_place_and_its_results_had_no_bots(v2_path, caplog):
    caplog.set_level("INFO", logger="firmware_host.service.journal")
    with Journal(v2_path) as journal:
        assert journal.schema_version == 4
        assert [entry.result for entry in journal.entries()] == [
            {**V1_RESULTS[2], "launch": "pending", "cards_counted": 1},
            V1_RESULTS[1],
            V1_RESULTS[0],
        ]
        assert journal.history()["damaged"] == [4]
    assert columns(v2_path) == (4, V4_COLUMNS)
    stored = bodies(v2_path)
    assert [body["bots"] for body in stored[:3]] == [[], [], []]
    assert stored[3] == '{"oops'  # a damaged row stays as it was
    with Journal(v2_path, readonly=True) as reader:
        assert (reader.check().damaged, reader.check().figures) == ((4,), ())
    assert [r.getMessage() for r in caplog.records if "upgraded" in r.getMessage()] == [
        f"{v2_path}: journal upgraded from schema version 2 to 4 (4 rows)"
    ]


def test_an_upgraded_version_2_journal_completes_its_pending_launch(v2_path):
    with Journal(v2_path) as journal:
        [interrupted] = journal.recover()
        assert interrupted == {**V1_RESULTS[2], "launch": "interrupted", "cards_counted": 1}
        assert journal.record(V1_RESULTS[0]) is False  # the same result, bots [] and all
        with pytest.raises(JournalError, match="already recorded with a different result"):
            journal.record({**V1_RESULTS[0], "bots": ["b"]})


def test_read_only_reads_version_2_with_no_bots_and_changes_nothing(v2_path):
    before = v2_path.read_bytes()
    with Journal(v2_path, readonly=True) as reader:
        assert reader.schema_version == 2
        assert reader.get("g1-r1") == V1_RESULTS[0]
        assert reader.get("g1-r1")["bots"] == []
        assert reader.history()["bots"] == {}
        report = reader.check()
    assert (report.ok, report.rows, report.damaged, report.pending) == (False, 4, (4,), ("g1-r3",))
    assert str(report).splitlines()[1] == "  schema version 2 (the daemon upgrades it to 4), 4 rows"
    assert v2_path.read_bytes() == before


def test_the_upgrade_from_version_2_is_one_transaction(v2_path, monkeypatch):
    def broken(db):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(firmware_host.service.journal_schema, "upgrade_from_v2", broken)
    with pytest.raises(
        JournalError, match=re.escape(f"{v2_path}: cannot open the journal: disk I/O error")
    ):
        Journal(v2_path)
    assert columns(v2_path)[0] == 2
    assert "bots" not in bodies(v2_path)[0]


# -- version 3 ---------------------------------------------------------------------------

#: The schema of version 3, as the unit created it.
V3_SCHEMA = """
CREATE TABLE results (
    entry INTEGER PRIMARY KEY,
    showdown_id TEXT NOT NULL UNIQUE,
    recorded_at REAL NOT NULL,
    player_a TEXT NOT NULL,
    player_b TEXT NOT NULL,
    body TEXT NOT NULL,
    launch TEXT,
    cards_counted INTEGER,
    outcome_at REAL
);
CREATE INDEX results_player_a ON results (player_a);
CREATE INDEX results_player_b ON results (player_b);
PRAGMA user_version = 3;
"""


def write_v3(path, count, *, seed=1):
    """A version 3 journal of ``count`` random results (some bots, false starts,
    timeouts, one launch still pending), written by SQL as version 3 wrote them."""
    rng = random.Random(seed)
    db = sqlite3.connect(path)
    db.executescript(V3_SCHEMA)
    rows = []
    for n in range(1, count + 1):
        body = random_result(rng, f"g{n}")
        launch = "pending" if n == count else body["launch"]
        stored = {**body, "launch": "pending", "cards_counted": None}
        rows.append(
            (
                n,
                body["showdown_id"],
                T0 + n,
                body["players"]["a"],
                body["players"]["b"],
                json.dumps(stored, sort_keys=True, separators=(",", ":")),
                None if launch == "pending" else launch,
                body["cards_counted"],
                None if launch == "pending" else T0 + n,
            )
        )
    db.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()


@pytest.fixture
def v3_path(tmp_path):
    """A version 3 journal: 300 results, entry 5 damaged, the last launch pending."""
    path = tmp_path / FILENAME
    write_v3(path, 300)
    db = sqlite3.connect(path)
    db.execute("UPDATE results SET body = '{\"oops' WHERE entry = 5")
    db.commit()
    db.close()
    return path


def test_read_only_reads_version_3_the_long_way_and_changes_nothing(v3_path):
    before = v3_path.read_bytes()
    with Journal(v3_path, readonly=True) as reader:
        assert reader.schema_version == 3
        assert reader.history(20, "ann") == old_history(v3_path, 20, "ann")
        report = reader.check()
    assert (report.ok, report.rows, report.damaged, report.pending) == (False, 300, (5,), ("g300",))
    assert str(report).splitlines()[1:5] == [
        "  schema version 3 (the daemon upgrades it to 4), 300 rows",
        "  launches pending: g300",
        "  damaged rows: entry 5",
        "  kept figures: none (kept from version 4 on)",
    ]
    assert v3_path.read_bytes() == before


@pytest.mark.parametrize("player", [None, "ann", "ZOË", "strasse", "cy"])
def test_a_version_3_journal_is_upgraded_with_its_figures(v3_path, caplog, player):
    caplog.set_level("INFO", logger="firmware_host.service.journal")
    expected = {limit: old_history(v3_path, limit, player) for limit in (1, 50, 1000)}
    with Journal(v3_path) as journal:
        assert journal.schema_version == 4
    assert [r.getMessage() for r in caplog.records if "upgraded" in r.getMessage()] == [
        f"{v3_path}: journal upgraded from schema version 3 to 4 (300 rows)"
    ]
    assert columns(v3_path) == (4, V4_COLUMNS)
    with Journal(v3_path, readonly=True) as reader:
        assert {limit: reader.history(limit, player) for limit in expected} == expected
        report = reader.check()
    assert (report.ok, report.damaged, report.pending, report.figures) == (
        False,
        (5,),
        ("g300",),
        (),
    )
    assert str(report).splitlines()[1:5] == [
        "  schema version 4, 300 rows",
        "  launches pending: g300",
        "  damaged rows: entry 5",
        "  kept figures: ok",
    ]
    db = sqlite3.connect(v3_path)
    assert db.execute("SELECT * FROM damaged").fetchall() == [(5, "its body is not JSON")]
    assert db.execute("SELECT * FROM unchecked").fetchall() == []
    keys = db.execute("SELECT player_a, key_a, player_b, key_b FROM results").fetchall()
    assert keys == [(a, a.casefold(), b, b.casefold()) for a, _, b, _ in keys]
    db.close()


def test_an_upgraded_version_3_journal_goes_on_with_its_pending_launch(v3_path):
    with Journal(v3_path, clock=lambda: T0 + 1000) as journal:
        [interrupted] = journal.recover()
        assert interrupted["showdown_id"] == "g300"
        journal.record(result("g301", a="ANN", reaction=(150_000, 151_000)))
        assert journal.history(1, "ann")["results"][0]["showdown_id"] == "g301"
    with Journal(v3_path, readonly=True) as reader:
        assert reader.history(50, "ann") == old_history(v3_path, 50, "ann")
        assert reader.check().figures == ()


def test_the_upgrade_from_version_3_is_one_transaction(v3_path, monkeypatch):
    def broken(db, merged):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(firmware_host.service.journal_figures, "keep_all", broken)
    with pytest.raises(
        JournalError, match=re.escape(f"{v3_path}: cannot open the journal: disk I/O error")
    ):
        Journal(v3_path)
    assert columns(v3_path)[0] == 3
    db = sqlite3.connect(v3_path)
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    db.close()
    assert tables == ["results"]


def test_limit_1_on_a_big_upgraded_journal_reads_one_row(tmp_path, monkeypatch):
    path = tmp_path / FILENAME
    write_v3(path, 500)
    Journal(path).close()
    read = []
    real = Result.from_dict

    def counting(data):
        read.append(data["showdown_id"])
        return real(data)

    with Journal(path, readonly=True) as reader:
        monkeypatch.setattr(Result, "from_dict", counting)
        history = reader.history(1)
        assert read == ["g500"] == [r["showdown_id"] for r in history["results"]]
        read.clear()
        history = reader.history(1, "zoë")
        assert read == [r["showdown_id"] for r in history["results"]]
        assert len(read) == 1


def schema_objects(path):
    db = sqlite3.connect(path)
    try:
        return db.execute(
            "SELECT type, name, tbl_name FROM sqlite_master ORDER BY type, name"
        ).fetchall()
    finally:
        db.close()


def test_an_upgraded_journal_has_the_schema_of_a_new_one(v3_path, tmp_path):
    Journal(v3_path).close()
    new = tmp_path / "new" / FILENAME
    Journal(new).close()
    assert schema_objects(v3_path) == schema_objects(new)
    assert columns(v3_path) == columns(new) == (4, V4_COLUMNS)
