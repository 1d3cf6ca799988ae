"""A version 1 journal (the whole result in one row) read as it is, and upgraded to 2."""

import json
import re
import sqlite3

import pytest

import firmware_host.service.journal
from firmware_host.service.journal import FILENAME, Journal, JournalEntry, JournalError
from tests.test_journal import T0, result

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

V1_RESULTS = [
    result("g1-r1", winner="b", cards_counted=2),
    result("g1-r2", a="Cy", winner=None, reason="timeout", reaction=(None, None)),
    result("g1-r3", launch="jam", cards_counted=1),
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
                json.dumps(body, sort_keys=True, separators=(",", ":")),
            ),
        )
    db.execute("INSERT INTO results VALUES (4, 'g1-r4', ?, 'Ann', 'Bob', '{\"oops')", (T0 + 4,))
    db.commit()
    db.close()
    return path


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
        assert journal.schema_version == 2
        assert journal.entries() == [
            JournalEntry(T0 + n, body) for n, body in reversed(list(enumerate(V1_RESULTS, start=1)))
        ]
        assert journal.history()["damaged"] == [4]
        assert journal.recover() == []  # an old damaged row is no pending launch
    assert columns(v1_path) == (
        2,
        [
            "entry",
            "showdown_id",
            "recorded_at",
            "player_a",
            "player_b",
            "body",
            "launch",
            "cards_counted",
            "outcome_at",
        ],
    )
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
    assert str(report).splitlines()[1] == "  schema version 1 (the daemon upgrades it to 2), 4 rows"
    assert v1_path.read_bytes() == before
    assert sorted(p.name for p in v1_path.parent.iterdir()) == [FILENAME]


def test_the_upgrade_is_one_transaction(v1_path, monkeypatch):
    monkeypatch.setattr(
        firmware_host.service.journal,
        "_V1_TO_V2",
        [*firmware_host.service.journal._V1_TO_V2, "SELECT no_such_function()"],
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
