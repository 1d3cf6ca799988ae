"""``showdown-unit history``: text and JSON output, and the missing-journal cases."""

import json
import sqlite3
import time

import pytest

from firmware_host.commands.cli import main
from firmware_host.service.journal import FILENAME, Journal

T0 = 1_764_525_851.0  # 2025-11-30T18:04:11Z


def result(showdown_id, a, b, winner, reason, reaction, margin, launch="launched"):
    loser = {"a": "b", "b": "a", None: None}[winner]
    if reason == "false_start":
        winner, loser = loser, winner  # the offender loses
    return {
        "showdown_id": showdown_id,
        "players": {"a": a, "b": b},
        "winner": winner,
        "loser": loser,
        "reason": reason,
        "tie_reruns": 0,
        "reaction_us": dict(zip("ab", reaction, strict=True)),
        "margin_us": margin,
        "cards": 2,
        "launch": launch,
        "cards_counted": None,
    }


RESULTS = [
    result("g1-r1", "Ann", "Bob", "b", "faster", (263_000, 241_000), 22_000),
    result("g1-r2", "Ann", "Bob", "a", "false_start", (None, None), None),
    result("g1-r3", "Bob", "Cy", None, "timeout", (None, None), None, launch="none"),
]


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def journal_path(tmp_path):
    path = tmp_path / FILENAME
    clock = iter(T0 + 60 * n for n in range(10))
    with Journal(path, clock=lambda: next(clock)) as journal:
        for r in RESULTS:
            journal.record(r)
    return path


def run(capsys, *argv):
    code = main(["history", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output(capsys, journal_path):
    code, out, err = run(capsys, "--journal", str(journal_path))
    assert (code, err) == (0, "")
    assert out == (
        f"Recent results, newest first ({journal_path}):\n"
        "2025-11-30 18:06:11  g1-r3  Bob vs Cy  nobody pressed in time  A -  B -  margin -  no launch\n"
        "2025-11-30 18:05:11  g1-r2  Ann vs Bob  false start by Ann  A -  B -  margin -  2 cards launched\n"
        "2025-11-30 18:04:11  g1-r1  Ann vs Bob  Bob won (faster)  A 263.0 ms  B 241.0 ms  "
        "margin 22.0 ms  2 cards launched\n"
        "\n"
        "Reaction times (all recorded showdowns):\n"
        "player  showdowns    median      best  false starts  wins  losses\n"
        "Ann             2  263.0 ms  263.0 ms             1     0       2\n"
        "Bob             3  241.0 ms  241.0 ms             0     2       0\n"
        "Cy              1         -         -             0     0       0\n"
    )


def test_json_output_with_player_and_limit(capsys, journal_path):
    code, out, _ = run(
        capsys, "--journal", str(journal_path), "--json", "--player", "Ann", "--limit", "1"
    )
    assert code == 0
    assert json.loads(out) == {
        "results": [{"recorded_at": "2025-11-30T18:05:11Z", **RESULTS[1]}],
        "players": {
            "Ann": {
                "showdowns": 2,
                "median_reaction_us": 263_000,
                "best_reaction_us": 263_000,
                "false_starts": 1,
                "wins": 0,
                "losses": 2,
            }
        },
        "damaged": [],
    }


def test_the_journal_named_in_the_config_and_the_default_limit(capsys, tmp_path, journal_path):
    config = tmp_path / "unit.toml"
    config.write_text(f'[journal]\npath = "{journal_path}"\nhistory_limit = 2\n')
    code, out, _ = run(capsys, "--config", str(config), "--json")
    assert code == 0
    assert [r["showdown_id"] for r in json.loads(out)["results"]] == ["g1-r3", "g1-r2"]


def test_a_missing_default_journal_means_no_results_yet(capsys, tmp_path):
    config = tmp_path / "unit.toml"
    missing = tmp_path / "state" / FILENAME
    config.write_text(f'[journal]\npath = "{missing}"\n')
    assert run(capsys, "--config", str(config)) == (
        0,
        f"no results yet ({missing} does not exist)\n",
        "",
    )
    code, out, _ = run(capsys, "--config", str(config), "--json")
    assert (code, json.loads(out)) == (0, {"results": [], "players": {}, "damaged": []})
    assert not missing.exists() and not missing.parent.exists()


def test_a_missing_journal_given_on_the_command_line_is_an_error(capsys, tmp_path):
    missing = tmp_path / "nope.sqlite3"
    assert run(capsys, "--journal", str(missing)) == (
        1,
        "",
        f"error: {missing}: no such journal file\n",
    )


def test_the_mock_backend_reads_the_mock_journal(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    config = tmp_path / "unit.toml"
    config.write_text('backend = "mock"\n')
    code, out, _ = run(capsys, "--config", str(config))
    assert code == 0 and out.startswith(f"no results yet ({tmp_path}/uno-showdown-mock-")


def test_an_empty_journal(capsys, tmp_path):
    path = tmp_path / FILENAME
    Journal(path).close()
    assert run(capsys, "--journal", str(path)) == (0, f"no results yet in {path}\n", "")


def test_a_file_that_is_not_a_journal(capsys, tmp_path):
    path = tmp_path / "x.sqlite3"
    path.write_text("not sqlite " * 20)
    assert run(capsys, "--journal", str(path)) == (
        1,
        "",
        f"error: {path}: cannot open the journal: file is not a database "
        f"(run: showdown-unit journal check --journal {path})\n",
    )


def test_a_bad_config_is_one_line(capsys, tmp_path):
    config = tmp_path / "unit.toml"
    config.write_text("[journal]\nhistory_limit = 0\n")
    assert run(capsys, "--config", str(config)) == (
        1,
        "",
        f"error: {config}: journal.history_limit: must be >= 1, not 0\n",
    )


def test_a_bad_limit(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["history", "--limit", "0"])
    assert exited.value.code == 2
    assert "argument --limit: must be a whole number >= 1, not '0'" in capsys.readouterr().err


def damage(path, *entries):
    db = sqlite3.connect(path)
    db.executemany("UPDATE results SET body = '{' WHERE entry = ?", [(e,) for e in entries])
    db.commit()
    db.close()


def test_damaged_rows_are_skipped_and_named(capsys, journal_path):
    damage(journal_path, 2)
    code, out, err = run(capsys, "--journal", str(journal_path))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [line.split("  ")[1] for line in lines[1:3]] == ["g1-r3", "g1-r1"]
    assert lines[-1] == (
        f"1 damaged row skipped (entry 2): run showdown-unit journal check --journal {journal_path}"
    )
    code, out, _ = run(capsys, "--journal", str(journal_path), "--json")
    assert (code, json.loads(out)["damaged"]) == (0, [2])


def test_only_damaged_rows(capsys, journal_path):
    damage(journal_path, 1, 2, 3)
    assert run(capsys, "--journal", str(journal_path)) == (
        0,
        (
            f"no results yet in {journal_path}\n"
            "3 damaged rows skipped (entries 1, 2, 3): "
            f"run showdown-unit journal check --journal {journal_path}\n"
        ),
        "",
    )


def test_a_launch_pending_or_interrupted(capsys, tmp_path):
    path = tmp_path / FILENAME
    clock = iter(T0 + 60 * n for n in range(10))
    with Journal(path, clock=lambda: next(clock)) as journal:
        for showdown_id in ("g2-r1", "g2-r2"):
            pending = result(
                showdown_id,
                "Ann",
                "Bob",
                "b",
                "faster",
                (263_000, 241_000),
                22_000,
                launch="pending",
            )
            journal.record_decision(pending)
        journal.record_cards("g2-r1", 1)
        journal.recover()
        journal.record_decision({**pending, "showdown_id": "g2-r3"})
    code, out, _ = run(capsys, "--journal", str(path), "--limit", "3")
    assert code == 0
    assert [line.rsplit("  ", 1)[1] for line in out.splitlines()[1:4]] == [
        "2 cards launching",
        "launch of 2 cards interrupted",
        "launch of 2 cards interrupted, 1 counted out",
    ]
