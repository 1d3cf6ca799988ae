"""The results journal: idempotent records, history, per-player figures, files.

Decisions and launch outcomes: test_journal_launch.py; damage: test_journal_damage.py;
the version 1 journal: test_journal_migration.py; the lock: test_journal_lock.py.
"""

import os
import re
import sqlite3
import threading
from pathlib import Path

import pytest

from firmware_host.service.journal import (
    FILENAME,
    SCHEMA_VERSION,
    Journal,
    JournalConflictError,
    JournalEntry,
    JournalError,
    default_journal_path,
)

T0 = 1_764_525_851.0  # 2025-11-30T18:04:11Z


def result(
    showdown_id,
    a="Ann",
    b="Bob",
    winner="a",
    reason="faster",
    reaction=(200_000, 250_000),
    cards=2,
    launch=None,
    cards_counted=None,
    bots=(),
):
    """A dict shaped like Result.to_dict(); launch "launched" if someone lost, else "none"."""
    loser = {"a": "b", "b": "a", None: None}[winner]
    reaction_us = dict(zip("ab", reaction, strict=True))
    both = None not in reaction
    return {
        "showdown_id": showdown_id,
        "players": {"a": a, "b": b},
        "bots": list(bots),
        "winner": winner,
        "loser": loser,
        "reason": reason,
        "tie_reruns": 0,
        "reaction_us": reaction_us,
        "margin_us": abs(reaction[0] - reaction[1]) if both else None,
        "cards": cards,
        "launch": launch or ("launched" if loser else "none"),
        "cards_counted": cards_counted,
    }


def decision(showdown_id, **kwargs):
    """A decision: a result whose launch is still to come."""
    return result(showdown_id, launch="pending", **kwargs)


class Clock:
    def __init__(self):
        self.now = T0

    def __call__(self):
        self.now += 1.0
        return self.now


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / FILENAME, clock=Clock()) as journal:
        yield journal


def test_a_new_file_gets_the_schema_in_wal_mode(tmp_path):
    path = tmp_path / "dir" / FILENAME
    with Journal(path):
        pass
    db = sqlite3.connect(path)
    assert SCHEMA_VERSION == 4
    assert db.execute("PRAGMA user_version").fetchone() == (4,)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")] == [
        "results",
        "figures",
        "tallies",
        "reaction_ms",
        "damaged",
        "unchecked",
    ]
    assert [r[1] for r in db.execute("PRAGMA table_info(results)")] == [
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
    db.close()
    assert (path.parent.stat().st_mode & 0o777) == 0o700


def test_record_then_get(journal):
    assert journal.record(result("sd-1")) is True
    assert journal.get("sd-1") == result("sd-1")
    assert journal.get("sd-2") is None


def test_recording_the_same_result_again_is_a_no_op(journal):
    assert journal.record(result("sd-1")) is True
    assert (
        journal.record(dict(reversed(result("sd-1").items()))) is False
    )  # key order is no content
    assert journal.recent() == [result("sd-1")]


def test_a_different_result_under_a_known_id_is_refused(journal):
    journal.record(result("sd-1"))
    with pytest.raises(
        JournalConflictError, match=r"^showdown 'sd-1' is already recorded with a different result$"
    ):
        journal.record(result("sd-1", winner="b"))
    assert journal.get("sd-1") == result("sd-1")
    assert isinstance(JournalConflictError("x"), ValueError)


@pytest.mark.parametrize(
    "bad, message",
    [
        ([1], "a result must be a dict, not list"),
        ({"players": {"a": "A", "b": "B"}}, "a result needs a showdown_id string, not None"),
        ({"showdown_id": "", "players": {}}, "a result needs a showdown_id string, not ''"),
        (
            {"showdown_id": "s", "players": {"a": "A"}},
            "a result needs players {'a': name, 'b': name}, not {'a': 'A'}",
        ),
        (
            {"showdown_id": "s", "players": {"a": "A", "b": "B"}, "reason": "timeout"},
            "not a valid result: result keys wrong: missing ['bots', 'cards', 'cards_counted', "
            "'launch', 'loser', 'margin_us', 'reaction_us', 'tie_reruns', 'winner'], unknown []",
        ),
        (
            {**result("s"), "reason": "slower"},
            "not a valid result: reason must be one of faster, false_start, timeout, tie_void, "
            "not 'slower'",
        ),
        (
            {**result("s"), "margin_us": float("nan")},
            "not a valid result: Out of range float values are not JSON compliant",
        ),
        (
            result("s", cards_counted=-1),
            "cards_counted must be a whole number >= 0 or None, not -1",
        ),
    ],
)
def test_a_result_without_id_or_players_is_refused(journal, bad, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        journal.record(bad)
    assert journal.recent() == []


def test_history_survives_reopening(tmp_path):
    path = tmp_path / FILENAME
    with Journal(path, clock=Clock()) as journal:
        journal.record(result("sd-1"))
        journal.record(result("sd-2", winner="b"))
    with Journal(path) as journal:
        assert [r["showdown_id"] for r in journal.recent()] == ["sd-2", "sd-1"]
        assert journal.record(result("sd-1")) is False


def test_a_record_is_committed_before_record_returns(tmp_path):
    path = tmp_path / FILENAME
    with Journal(path) as journal:
        journal.record(result("sd-1"))
        other = sqlite3.connect(path)  # another connection sees it at once
        assert other.execute("SELECT showdown_id FROM results").fetchall() == [("sd-1",)]
        other.close()
        assert journal._db.execute("PRAGMA synchronous").fetchone() == (2,)  # 2 = FULL
        assert not journal._db.in_transaction


def test_recent_is_newest_first_with_a_limit_and_a_player_filter(journal):
    journal.record(result("sd-1", a="Ann", b="Bob"))
    journal.record(result("sd-2", a="Cy", b="Ann"))
    journal.record(result("sd-3", a="Bob", b="Cy"))
    assert [r["showdown_id"] for r in journal.recent()] == ["sd-3", "sd-2", "sd-1"]
    assert [r["showdown_id"] for r in journal.recent(limit=2)] == ["sd-3", "sd-2"]
    assert [r["showdown_id"] for r in journal.recent(player="Ann")] == ["sd-2", "sd-1"]
    assert journal.recent(player="Nobody") == []
    with pytest.raises(ValueError, match=r"^limit must be a whole number >= 1, not 0$"):
        journal.recent(limit=0)


def test_entries_carry_the_recording_time(journal):
    journal.record(result("sd-1"))
    [entry] = journal.entries()
    assert entry == JournalEntry(T0 + 1, result("sd-1"))
    assert entry.recorded_at_iso == "2025-11-30T18:04:12Z"


def test_player_stats(journal):
    journal.record(result("sd-1", winner="a", reaction=(200_000, 250_000)))
    journal.record(result("sd-2", winner="b", reaction=(301_000, 240_000)))
    # Ann false-starts (her press came 20 ms before GO); Bob never pressed.
    journal.record(result("sd-3", winner="b", reason="false_start", reaction=(-20_000, None)))
    journal.record(result("sd-4", winner=None, reason="timeout", reaction=(None, None)))
    journal.record(result("sd-5", a="Bob", b="Cy", winner="a", reaction=(190_000, 260_000)))
    assert journal.player_stats() == {
        "Ann": {
            "showdowns": 4,
            "median_reaction_us": 250_500,
            "best_reaction_us": 200_000,
            "false_starts": 1,
            "wins": 1,
            "losses": 2,
        },
        "Bob": {
            "showdowns": 5,
            "median_reaction_us": 240_000,
            "best_reaction_us": 190_000,
            "false_starts": 0,
            "wins": 3,
            "losses": 1,
        },
        "Cy": {
            "showdowns": 1,
            "median_reaction_us": 260_000,
            "best_reaction_us": 260_000,
            "false_starts": 0,
            "wins": 0,
            "losses": 1,
        },
    }
    assert journal.player_stats("Cy") == {"Cy": journal.player_stats()["Cy"]}
    assert journal.player_stats("Nobody") == {}


def test_a_player_who_never_pressed_in_time_has_no_reaction_figures(journal):
    journal.record(result("sd-1", winner="b", reason="false_start", reaction=(-5_000, None)))
    assert journal.player_stats("Ann") == {
        "Ann": {
            "showdowns": 1,
            "median_reaction_us": None,
            "best_reaction_us": None,
            "false_starts": 1,
            "wins": 0,
            "losses": 1,
        }
    }


def test_history_document(journal):
    journal.record(result("sd-1"))
    assert journal.history(limit=5, player="Bob") == {
        "results": [{"recorded_at": "2025-11-30T18:04:12Z", **result("sd-1")}],
        "players": {
            "Bob": {
                "showdowns": 1,
                "median_reaction_us": 250_000,
                "best_reaction_us": 250_000,
                "false_starts": 0,
                "wins": 0,
                "losses": 1,
            }
        },
        "bots": {},
        "damaged": [],
    }


def test_names_are_stored_exactly(journal):
    journal.record(result("sd-1", a="Zoë", b="Bob"))
    assert journal.get("sd-1")["players"] == {"a": "Zoë", "b": "Bob"}
    assert journal.recent(player="Zoë")[0]["showdown_id"] == "sd-1"
    with pytest.raises(ValueError, match=r"^a result's names must be valid text, not '\\ud800'$"):
        journal.record(result("sd-2", b="\ud800"))


# --- Opening ----------------------------------------------------------------


def test_read_only_reads_and_creates_nothing(tmp_path):
    path = tmp_path / FILENAME
    with Journal(path, clock=Clock()) as journal:
        journal.record(result("sd-1"))
    before = sorted(p.name for p in tmp_path.iterdir())
    assert before == [FILENAME]
    with Journal(path, readonly=True) as reader:
        assert reader.get("sd-1") == result("sd-1")
        with pytest.raises(
            JournalError, match=f"^{path}: cannot record 'sd-2': the journal is open read-only$"
        ):
            reader.record(result("sd-2"))
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_read_only_sees_a_running_units_latest_record(tmp_path):
    path = tmp_path / FILENAME
    with Journal(path) as writer:
        writer.record(result("sd-1"))
        with Journal(path, readonly=True) as reader:
            assert reader.recent() == [result("sd-1")]
            writer.record(result("sd-2"))
            assert [r["showdown_id"] for r in reader.recent()] == ["sd-2", "sd-1"]


def test_read_only_of_a_missing_file(tmp_path):
    with pytest.raises(JournalError, match=f"^{tmp_path}/none.sqlite3: no journal there$"):
        Journal(tmp_path / "none.sqlite3", readonly=True)
    assert not (tmp_path / "none.sqlite3").exists()


def test_a_file_that_is_not_a_database(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello, this is not SQLite at all. " * 10)
    with pytest.raises(
        JournalError,
        match=f"^{path}: cannot open the journal: "
        r"file is not a database \(run: showdown-unit "
        f"journal check --journal {path}\\)$",
    ):
        Journal(path)
    with pytest.raises(JournalError, match="file is not a database"):
        Journal(path, readonly=True)


def test_a_database_of_something_else(tmp_path):
    path = tmp_path / "other.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE cards (x)")
    db.commit()
    db.close()
    with pytest.raises(
        JournalError,
        match=f"^{path}: not a results journal "
        r"\(it has tables cards and no schema version\)$",
    ):
        Journal(path)


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / FILENAME
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 7")
    db.close()
    with pytest.raises(
        JournalError,
        match="journal schema version 7 is newer than this "
        r"software understands \(4\)$",
    ):
        Journal(path)


def test_close_is_idempotent_and_a_closed_journal_says_so(tmp_path):
    journal = Journal(tmp_path / FILENAME)
    journal.close()
    journal.close()
    with pytest.raises(JournalError, match=r"the journal is closed$"):
        journal.get("sd-1")
    assert repr(journal) == f"<Journal '{tmp_path / FILENAME}' closed>"


def test_the_journal_belongs_to_the_thread_that_opened_it(journal):
    errors = []
    thread = threading.Thread(target=lambda: errors.append(_try(journal.get, "sd-1")))
    thread.start()
    thread.join()
    assert isinstance(errors[0], sqlite3.ProgrammingError)


def _try(fn, *args):
    try:
        fn(*args)
    except Exception as exc:
        return exc
    return None


# --- Where it lives ---------------------------------------------------------


def test_default_paths(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    env = {"STATE_DIRECTORY": "/var/lib/uno-showdown:/var/lib/other", "HOME": "/home/pi"}
    assert default_journal_path("~/r.sqlite3", mock=True, environ=env) == (
        Path.home() / "r.sqlite3"
    )
    assert default_journal_path("", mock=False, environ=env) == (
        Path("/var/lib/uno-showdown/results.sqlite3")
    )
    assert str(default_journal_path("", mock=True, environ=env)) == (
        f"{tmp_path}/uno-showdown-mock-{os.getuid()}/results.sqlite3"
    )
    assert str(default_journal_path("", mock=False, environ={"HOME": "/home/pi"})) == (
        "/home/pi/.local/state/uno-showdown/results.sqlite3"
    )
    assert str(
        default_journal_path(
            "", mock=False, environ={"HOME": "/home/pi", "XDG_STATE_HOME": "/srv/state"}
        )
    ) == ("/srv/state/uno-showdown/results.sqlite3")


def test_a_journal_whose_folder_cannot_be_made_is_a_journal_error(tmp_path):
    (tmp_path / "file").write_text("")
    path = tmp_path / "file" / "sub" / "results.sqlite3"
    with pytest.raises(
        JournalError,
        match=(
            f"^{path}: cannot create its folder: {tmp_path / 'file'} is not a folder "
            r"\(only the journal's own folder is created: check the path\)$"
        ),
    ):
        Journal(path)


def test_a_journal_path_creates_at_most_its_last_folder(tmp_path):
    # Before: mkdir(parents=True), so a typo in --journal made folders anywhere.
    typo = tmp_path / "srv" / "uno" / FILENAME
    with pytest.raises(JournalError) as caught:
        Journal(typo)
    assert str(caught.value) == (
        f"{typo}: cannot create its folder: {tmp_path / 'srv'} does not exist "
        "(only the journal's own folder is created: check the path)"
    )
    assert not (tmp_path / "srv").exists()
    with Journal(tmp_path / "new" / FILENAME):
        pass
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700


def test_the_default_places_are_made_whole(tmp_path, monkeypatch):
    # ~/.local/state may be missing on a fresh machine: the default place is made anyway.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state" / "deep"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    path = default_journal_path("", mock=False)
    assert path == tmp_path / "state" / "deep" / "uno-showdown" / FILENAME
    with Journal(path):
        pass
    assert path.exists()


def test_folder_problem_says_what_opening_would_say_and_creates_nothing(tmp_path):
    from firmware_host.service.journal import folder_problem

    typo = tmp_path / "srv" / "uno" / FILENAME
    with pytest.raises(JournalError) as caught:
        Journal(typo)
    assert folder_problem(typo) == str(caught.value)
    (tmp_path / "file").write_text("")
    assert folder_problem(tmp_path / "file" / "sub" / FILENAME) == (
        f"{tmp_path / 'file' / 'sub' / FILENAME}: cannot create its folder: "
        f"{tmp_path / 'file'} is not a folder (only the journal's own folder is created: "
        "check the path)"
    )
    assert folder_problem(tmp_path / "new" / FILENAME) is None
    assert folder_problem(":memory:") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
