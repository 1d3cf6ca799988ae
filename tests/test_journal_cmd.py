"""``showdown-unit journal check``: the report, its exit status, and that it changes nothing."""

import json
import sqlite3

import pytest

from firmware_host.commands.cli import main
from firmware_host.service.journal import FILENAME, Journal
from tests.test_journal import Clock, decision, result


@pytest.fixture
def journal_path(tmp_path):
    path = tmp_path / FILENAME
    with Journal(path, clock=Clock()) as journal:
        journal.record(result("sd-1"))
        journal.record(result("sd-2", winner="b"))
        journal.record_decision(decision("sd-3"))
    return path


def run(capsys, *argv):
    code = main(["journal", "check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def files(folder):
    """Each file's content; the WAL index (-shm) by name only: readers mark it as they read."""
    return {p.name: None if p.name.endswith("-shm") else p.read_bytes() for p in folder.iterdir()}


def test_a_sound_journal(capsys, journal_path):
    before = files(journal_path.parent)
    assert run(capsys, "--journal", str(journal_path)) == (
        0,
        (
            f"{journal_path}: ok\n"
            "  schema version 4, 3 rows\n"
            "  launches pending: sd-3\n"
            "  damaged rows: none\n"
            "  kept figures: ok\n"
            "  SQLite: ok\n"
        ),
        "",
    )
    assert files(journal_path.parent) == before


def test_json(capsys, journal_path):
    code, out, err = run(capsys, "--journal", str(journal_path), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "path": str(journal_path),
        "ok": True,
        "rows": 3,
        "pending": ["sd-3"],
        "damaged": [],
        "sqlite_messages": [],
        "schema_version": 4,
        "figures": [],
    }


def test_damaged_rows_exit_1(capsys, journal_path):
    db = sqlite3.connect(journal_path)
    db.execute("UPDATE results SET body = 'x' WHERE entry IN (1, 2)")
    db.commit()
    db.close()
    code, out, err = run(capsys, "--journal", str(journal_path))
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == f"{journal_path}: 2 problems found"
    assert out.splitlines()[3] == "  damaged rows: entries 1, 2"
    code, out, _ = run(capsys, "--journal", str(journal_path), "--json")
    assert (code, json.loads(out)["ok"], json.loads(out)["damaged"]) == (1, False, [1, 2])


def test_the_journal_of_a_running_daemon(capsys, journal_path):
    with Journal(journal_path) as daemon:
        daemon.record_outcome("sd-3", "launched", None)
        daemon.record_decision(decision("sd-4"))
        before = files(journal_path.parent)
        code, out, _ = run(capsys, "--journal", str(journal_path))
        assert (code, out.splitlines()[1:3]) == (
            0,
            ["  schema version 4, 4 rows", "  launches pending: sd-4"],
        )
        assert files(journal_path.parent) == before


def test_the_journal_named_in_the_config(capsys, tmp_path, journal_path):
    config = tmp_path / "unit.toml"
    config.write_text(f'[journal]\npath = "{journal_path}"\n')
    code, out, _ = run(capsys, "--config", str(config))
    assert (code, out.splitlines()[0]) == (0, f"{journal_path}: ok")


def test_a_missing_journal_is_an_error_and_is_not_created(capsys, tmp_path):
    missing = tmp_path / "state" / FILENAME
    assert run(capsys, "--journal", str(missing)) == (
        1,
        "",
        f"error: {missing}: no such journal file\n",
    )
    config = tmp_path / "unit.toml"
    config.write_text(f'[journal]\npath = "{missing}"\n')
    assert run(capsys, "--config", str(config)) == (
        1,
        "",
        f"error: {missing}: no such journal file\n",
    )
    assert not missing.parent.exists()


def test_a_file_that_is_not_a_journal(capsys, tmp_path):
    path = tmp_path / "x.sqlite3"
    path.write_text("not sqlite " * 20)
    assert run(capsys, "--journal", str(path)) == (
        1,
        "",
        f"error: {path}: cannot open the journal: file is not a database\n",
    )


def test_an_empty_file(capsys, tmp_path):
    path = tmp_path / FILENAME
    path.write_bytes(b"")
    assert run(capsys, "--journal", str(path)) == (
        1,
        "",
        f"error: {path}: the journal file is empty (0 bytes)\n",
    )
    assert path.read_bytes() == b""


def test_a_bad_config_is_one_line(capsys, tmp_path):
    config = tmp_path / "unit.toml"
    config.write_text("[journal]\nhistory_limit = 0\n")
    assert run(capsys, "--config", str(config)) == (
        1,
        "",
        f"error: {config}: journal.history_limit: must be >= 1, not 0\n",
    )


def test_journal_needs_an_action(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["journal"])
    assert exited.value.code == 2
    assert "the following arguments are required: ACTION" in capsys.readouterr().err
