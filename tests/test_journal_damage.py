"""A journal in trouble: a full disk, damaged pages, damaged rows, an emptied file."""

import json
import re
import sqlite3

import pytest

from firmware_host.service.journal import (
    FILENAME,
    Journal,
    JournalDamagedError,
    JournalError,
    JournalReport,
)
from tests.test_journal import Clock, decision, result


@pytest.fixture
def path(tmp_path):
    return tmp_path / FILENAME


def hint(path):
    return f"(run: showdown-unit journal check --journal {path})"


def fill(path, count):
    with Journal(path, clock=Clock()) as journal:
        journal._db.execute("PRAGMA synchronous = OFF")  # a test's file needs no fsync
        for n in range(1, count + 1):
            journal.record(result(f"sd-{n}"))


def set_body(path, entry, body):
    db = sqlite3.connect(path)
    db.execute("UPDATE results SET body = ? WHERE entry = ?", (body, entry))
    db.commit()
    db.close()


def damage_last_page(path):
    """Garbage over the file's last 4096 bytes (one page), as a bad SD card might leave."""
    size = path.stat().st_size
    with open(path, "r+b") as file:
        file.seek(size - 4096)
        file.write(b"\xde\xad\xbe\xef" * 1024)


def journal_warnings(caplog):
    return [
        (r.levelname, r.getMessage())
        for r in caplog.records
        if r.name == "firmware_host.service.journal"
    ]


# --- A full disk ------------------------------------------------------------


def test_a_full_disk_is_one_line_and_leaves_nothing_half_written(path):
    with Journal(path, clock=Clock()) as journal:
        journal.record_decision(decision("sd-1"))
        pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
        journal._db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full now
        long_name = "Zoë" * 2000  # needs new pages
        with pytest.raises(
            JournalError,
            match=f"^{path}: cannot record the decision of 'sd-2': database or disk is full$",
        ):
            journal.record_decision(decision("sd-2", a=long_name))
        assert not journal._db.in_transaction
        assert journal.get("sd-2") is None
        assert journal.recent() == [decision("sd-1")]
        journal._db.execute(f"PRAGMA max_page_count = {pages + 100}")  # room again
        assert journal.record_decision(decision("sd-2", a=long_name)) is True
    with Journal(path) as journal:
        assert [r["showdown_id"] for r in journal.recent()] == ["sd-2", "sd-1"]


# --- Damaged pages ----------------------------------------------------------


def test_a_damaged_page_is_refused_on_a_writable_open(path):
    fill(path, 300)
    damage_last_page(path)
    with pytest.raises(
        JournalDamagedError,
        match=re.escape(
            f"{path}: cannot open the journal: database disk image is malformed {hint(path)}"
        )
        + "$",
    ):
        Journal(path)


def test_a_damaged_page_is_reported_by_check(path):
    fill(path, 300)
    damage_last_page(path)
    with Journal(path, readonly=True) as reader:
        report = reader.check()
        assert reader.get("sd-1")["showdown_id"] == "sd-1"  # what is intact still reads
        with pytest.raises(
            JournalDamagedError,
            match=re.escape(
                f"{path}: cannot read the journal: database disk image is malformed {hint(path)}"
            )
            + "$",
        ):
            reader.history()
    assert report == JournalReport(
        path=str(path),
        ok=False,
        rows=293,
        pending=(),
        damaged=(),
        sqlite_messages=(
            "database disk image is malformed",
            "reading the rows stopped after 293: database disk image is malformed",
        ),
        schema_version=4,
        figures=("not checked: the rows could not all be read",),
    )
    assert str(report) == (
        f"{path}: 3 problems found\n"
        "  schema version 4, 293 rows\n"
        "  launches pending: none\n"
        "  damaged rows: none\n"
        "  kept figures: not checked: the rows could not all be read\n"
        "  SQLite: database disk image is malformed\n"
        "    reading the rows stopped after 293: database disk image is malformed"
    )


def null_body(path, entry):
    """A NULL body, which the schema forbids: only a damaged file holds one."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA writable_schema = ON")
    db.execute(
        "UPDATE sqlite_master SET sql = replace(sql, 'body TEXT NOT NULL', 'body TEXT') "
        "WHERE name = 'results'"
    )
    db.commit()
    db.close()
    set_body(path, entry, None)
    db = sqlite3.connect(path)
    db.execute("PRAGMA writable_schema = ON")
    db.execute(
        "UPDATE sqlite_master SET sql = replace(sql, 'body TEXT,', 'body TEXT NOT NULL,') "
        "WHERE name = 'results'"
    )
    db.commit()
    db.close()


def test_what_quick_check_finds_refuses_a_writable_open(path):
    fill(path, 2)
    null_body(path, 2)
    with pytest.raises(
        JournalDamagedError,
        match=re.escape(f"{path}: the journal is damaged: NULL value in results.body {hint(path)}")
        + "$",
    ):
        Journal(path)
    with Journal(path, readonly=True) as reader:
        report = reader.check()
    assert (report.ok, report.damaged, report.sqlite_messages) == (
        False,
        (2,),
        ("NULL value in results.body",),
    )


# --- Damaged rows -----------------------------------------------------------


def test_history_skips_a_damaged_row_and_names_it(path, caplog):
    fill(path, 3)
    set_body(path, 2, '{"showdown_id": "sd-2", "players": ')
    with Journal(path, readonly=True) as reader:
        history = reader.history()
    assert [r["showdown_id"] for r in history["results"]] == ["sd-3", "sd-1"]
    assert history["players"]["Ann"]["showdowns"] == 2
    assert history["damaged"] == [2]
    assert journal_warnings(caplog) == [
        ("WARNING", f"{path}: entry 2 skipped, it is damaged: its body is not JSON")
    ]


def test_every_reader_skips_a_damaged_row_and_get_names_it(path, caplog):
    fill(path, 3)
    set_body(path, 2, "")
    with Journal(path) as journal:
        assert [r["showdown_id"] for r in journal.recent(limit=2)] == ["sd-3", "sd-1"]
        assert [e.result["showdown_id"] for e in journal.entries()] == ["sd-3", "sd-1"]
        assert journal.player_stats()["Bob"]["showdowns"] == 2
        with pytest.raises(
            JournalDamagedError,
            match=re.escape(
                f"{path}: the result of 'sd-2' (entry 2) is damaged: its body is not JSON "
                f"{hint(path)}"
            )
            + "$",
        ):
            journal.get("sd-2")
        assert journal.get("sd-3") == result("sd-3")
    assert len(journal_warnings(caplog)) == 3  # one per read that met it


@pytest.mark.parametrize(
    "body, why",
    [
        ("[1, 2]", "its body is not a result but a list"),
        (
            '{"showdown_id": "sd-2"}',
            "not a valid result: result keys wrong: missing ['bots', 'cards', 'loser', 'margin_us', "
            "'players', 'reaction_us', 'reason', 'tie_reruns', 'winner'], unknown []",
        ),
        (
            result("sd-2", reason="slower"),
            "not a valid result: reason must be one of faster, false_start, timeout, tie_void, "
            "not 'slower'",
        ),
        (result("sd-9"), "its body is the result of 'sd-9'"),
    ],
)
def test_kinds_of_damaged_row(path, caplog, body, why):
    fill(path, 3)
    set_body(path, 2, body if isinstance(body, str) else json.dumps(body))
    with Journal(path, readonly=True) as reader:
        assert reader.history()["damaged"] == [2]
    assert journal_warnings(caplog) == [
        ("WARNING", f"{path}: entry 2 skipped, it is damaged: {why}")
    ]


def test_a_bad_launch_outcome_makes_a_row_damaged(path):
    fill(path, 1)
    db = sqlite3.connect(path)
    db.execute("UPDATE results SET launch = 'flew' WHERE entry = 1")
    db.commit()
    db.close()
    with Journal(path) as journal:
        assert journal.history()["damaged"] == [1]


def test_recover_leaves_a_damaged_decision_alone(path, caplog):
    with Journal(path) as journal:
        journal.record_decision(decision("sd-1"))
        journal.record_decision(decision("sd-2"))
    set_body(path, 1, "{")
    with Journal(path) as journal:
        assert [r["showdown_id"] for r in journal.recover()] == ["sd-2"]
        with pytest.raises(JournalDamagedError, match="the result of 'sd-1' is damaged"):
            journal.record_decision(decision("sd-1"))
    assert journal_warnings(caplog) == [
        ("WARNING", f"{path}: entry 1 skipped, it is damaged: its body is not JSON")
    ]


def test_check_reports_damaged_rows_and_pending_launches(path):
    fill(path, 3)
    with Journal(path) as journal:
        journal.record_decision(decision("sd-4"))
    set_body(path, 2, "{")
    with Journal(path, readonly=True) as reader:
        report = reader.check()
    assert report == JournalReport(
        path=str(path),
        ok=False,
        rows=4,
        pending=("sd-4",),
        damaged=(2,),
        sqlite_messages=(),
        schema_version=4,
    )
    assert str(report) == (
        f"{path}: 1 problem found\n"
        "  schema version 4, 4 rows\n"
        "  launches pending: sd-4\n"
        "  damaged rows: entry 2\n"
        "  kept figures: ok\n"
        "  SQLite: ok"
    )


def test_check_of_a_sound_journal(path):
    fill(path, 2)
    with Journal(path, readonly=True) as reader:
        report = reader.check()
    assert report == JournalReport(
        path=str(path),
        ok=True,
        rows=2,
        pending=(),
        damaged=(),
        sqlite_messages=(),
        schema_version=4,
    )
    assert report.to_dict() == {
        "path": str(path),
        "ok": True,
        "rows": 2,
        "pending": [],
        "damaged": [],
        "sqlite_messages": [],
        "schema_version": 4,
        "figures": [],
    }
    assert str(report).splitlines()[0] == f"{path}: ok"


# --- An emptied file --------------------------------------------------------


def test_a_zero_byte_journal_starts_again_with_a_warning(path, caplog):
    path.write_bytes(b"")
    with Journal(path) as journal:
        assert journal.record(result("sd-1")) is True
    assert journal_warnings(caplog) == [
        (
            "WARNING",
            f"{path}: the journal file was empty (0 bytes): any results it held "
            "are gone; starting a new journal",
        )
    ]


def test_a_new_or_reopened_journal_warns_of_nothing(path, caplog):
    Journal(path).close()
    Journal(path).close()
    assert journal_warnings(caplog) == []


def test_a_zero_byte_journal_read_only_is_an_error(path):
    path.write_bytes(b"")
    with pytest.raises(JournalError, match=f"^{path}: the journal file is empty \\(0 bytes\\)$"):
        Journal(path, readonly=True)
    assert path.read_bytes() == b""
