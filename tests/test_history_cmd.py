"""``showdown-unit history``: text and JSON output, and the missing-journal cases."""

import json
import sqlite3
import time

import pytest

from firmware_host.commands.cli import main
from firmware_host.service.journal import FILENAME, Journal

T0 = 1_764_525_851.0  # 2025-11-30T18:04:11Z


def result(showdown_id, a, b, winner, reason, reaction, margin, launch="launched", bots=()):
    loser = {"a": "b", "b": "a", None: None}[winner]
    if reason == "false_start":
        winner, loser = loser, winner  # the offender loses
    return {
        "showdown_id": showdown_id,
        "players": {"a": a, "b": b},
        "bots": list(bots),
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
        "bots": {},
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
    assert (code, json.loads(out)) == (
        0,
        {"results": [], "players": {}, "bots": {}, "damaged": []},
    )
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


# -- where a mock run's results are ---------------------------------------------------------


@pytest.fixture
def homes(tmp_path, monkeypatch):
    """A machine with nothing in it: temp dir, state dirs and no system config."""
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.setattr("firmware_host.service.config.SYSTEM_CONFIG", tmp_path / "no-such.toml")
    return tmp_path


def mock_journal(results=RESULTS):
    """The journal 'showdown-unit run --mock' writes, with ``results``."""
    from types import SimpleNamespace

    from firmware_host.service.config import load_config
    from firmware_host.service.daemon import apply_flags, journal_path

    run_args = SimpleNamespace(mock=True, listen=None, allow_remote=None, token_file=None)
    run_args.serial = run_args.baud = run_args.journal = None
    path = journal_path(apply_flags(load_config(None), run_args))
    clock = iter(T0 + 60 * n for n in range(10))
    with Journal(path, clock=lambda: next(clock)) as journal:
        for r in results:
            journal.record(r)
    return path


def test_history_mock_reads_what_run_mock_wrote(capsys, homes):
    # Before: history read the mock place only with backend = "mock" in the
    # config, while `run --mock` always writes there: a bench tester never
    # found their results.
    path = mock_journal()
    assert path.parent.parent == homes / "tmp"
    code, out, err = run(capsys, "--mock")
    assert (code, err) == (0, "")
    assert out.startswith(f"Recent results, newest first ({path}):\n")
    assert len(out.splitlines()) == 1 + 3 + 2 + 4


def test_plain_history_points_at_the_mock_units_results(capsys, homes):
    path = mock_journal()
    real = homes / "state" / "uno-showdown" / FILENAME
    assert run(capsys) == (
        0,
        f"no results yet ({real} does not exist); the mock unit ('showdown-unit run --mock') "
        f"keeps its results in {path}: run 'showdown-unit history --mock'\n",
        "",
    )


def test_plain_history_says_nothing_of_a_mock_unit_that_never_ran(capsys, homes):
    real = homes / "state" / "uno-showdown" / FILENAME
    assert run(capsys) == (0, f"no results yet ({real} does not exist)\n", "")
    assert run(capsys, "--mock")[1].startswith("no results yet (")


def test_journal_check_takes_mock_too(capsys, homes):
    path = mock_journal()
    assert main(["journal", "check", "--mock"]) == 0
    assert capsys.readouterr().out.startswith(f"{path}: ok\n")


def test_mock_and_journal_are_one_or_the_other(capsys, tmp_path):
    with pytest.raises(SystemExit) as exited:
        main(["history", "--mock", "--journal", str(tmp_path / FILENAME)])
    assert exited.value.code == 2
    assert "argument --journal: not allowed with argument --mock" in capsys.readouterr().err


# -- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ann", "ANN", " Ann "])
def test_a_name_matches_in_any_case(capsys, journal_path, name):
    code, out, _ = run(capsys, "--journal", str(journal_path), "--json", "--player", name)
    assert code == 0
    found = json.loads(out)
    assert [r["showdown_id"] for r in found["results"]] == ["g1-r2", "g1-r1"]
    assert list(found["players"]) == ["Ann"]


def test_an_unknown_name_says_so_and_lists_the_known_ones(capsys, journal_path):
    # Before: "no results yet", as if the journal were empty.
    assert run(capsys, "--journal", str(journal_path), "--player", "Zed") == (
        1,
        "",
        f"error: no player named 'Zed' in {journal_path}; known: Ann, Bob, Cy\n",
    )


def test_a_name_that_cannot_be_a_name_is_refused(capsys, journal_path):
    assert run(capsys, "--journal", str(journal_path), "--player", "A\u202eB") == (
        1,
        "",
        "error: --player must be a name of 1 to 40 printable characters, "
        'not "A\u202eB" (it holds U+202E (Cf))\n',
    )


def test_one_card_is_one_card(capsys, tmp_path):
    path = tmp_path / FILENAME
    with Journal(path, clock=lambda: T0) as journal:
        journal.record({**RESULTS[0], "cards": 1})
    out = run(capsys, "--journal", str(path))[1]
    assert out.splitlines()[1].endswith("margin 22.0 ms  1 card launched")


# -- bots -------------------------------------------------------------------------------------

BOT_RESULTS = [
    result("g2-r1", "Ann", "bot2", "b", "faster", (263_000, 201_000), 62_000, bots=("b",)),
    result("g2-r2", "Ann", "bot2", "a", "faster", (180_000, 230_000), 50_000, bots=("b",)),
    result("g2-r3", "bot1", "bot2", "a", "faster", (150_000, 400_000), 250_000, bots=("a", "b")),
]


@pytest.fixture
def bot_journal(tmp_path):
    path = tmp_path / FILENAME
    clock = iter(T0 + 60 * n for n in range(10))
    with Journal(path, clock=lambda: next(clock)) as journal:
        for r in BOT_RESULTS:
            journal.record(r)
    return path


def test_bots_are_marked_and_their_figures_kept_apart_from_peoples(capsys, bot_journal):
    code, out, err = run(capsys, "--journal", str(bot_journal))
    assert (code, err) == (0, "")
    assert out == (
        f"Recent results, newest first ({bot_journal}):\n"
        "2025-11-30 18:06:11  g2-r3  bot1 (bot) vs bot2 (bot)  bot1 (bot) won (faster)  "
        "A 150.0 ms  B 400.0 ms  margin 250.0 ms  2 cards launched\n"
        "2025-11-30 18:05:11  g2-r2  Ann vs bot2 (bot)  Ann won (faster)  "
        "A 180.0 ms  B 230.0 ms  margin 50.0 ms  2 cards launched\n"
        "2025-11-30 18:04:11  g2-r1  Ann vs bot2 (bot)  bot2 (bot) won (faster)  "
        "A 263.0 ms  B 201.0 ms  margin 62.0 ms  2 cards launched\n"
        "\n"
        "Reaction times of people (all recorded showdowns; the bots' are below):\n"
        "player  showdowns    median      best  false starts  wins  losses\n"
        "Ann             2  221.5 ms  180.0 ms             0     1       1\n"
        "\n"
        "Bots (the unit pressed their paddles; all recorded showdowns):\n"
        "bot   showdowns    median      best  false starts  wins  losses\n"
        "bot1          1  150.0 ms  150.0 ms             0     1       0\n"
        "bot2          3  230.0 ms  201.0 ms             0     1       2\n"
    )


def test_the_json_keeps_bots_apart_too(capsys, bot_journal):
    found = json.loads(run(capsys, "--journal", str(bot_journal), "--json")[1])
    assert [r["bots"] for r in found["results"]] == [["a", "b"], ["b"], ["b"]]
    assert list(found["players"]) == ["Ann"]
    assert list(found["bots"]) == ["bot1", "bot2"]
    assert found["bots"]["bot2"]["median_reaction_us"] == 230_000


def test_a_name_that_played_as_a_person_and_as_a_bot_is_counted_apart(capsys, tmp_path):
    path = tmp_path / FILENAME
    with Journal(path, clock=lambda: T0) as journal:
        journal.record(result("g3-r1", "Ann", "Bob", "a", "faster", (200_000, 300_000), 100_000))
        journal.record(
            result("g3-r2", "Ann", "Bob", "b", "faster", (400_000, 100_000), 300_000, bots="b")
        )
    found = json.loads(run(capsys, "--journal", str(path), "--json", "--player", "bob")[1])
    assert found["players"]["Bob"]["median_reaction_us"] == 300_000  # the person's press only
    assert found["bots"]["Bob"]["median_reaction_us"] == 100_000


# -- over the link: errors that need no unit --------------------------------------------------


def test_token_file_needs_unit(capsys, tmp_path):
    assert run(capsys, "--token-file", str(tmp_path / "token")) == (
        1,
        "",
        "error: --token-file goes with --unit URL\n",
    )


def test_a_unit_url_with_another_scheme_says_what_to_give(capsys):
    assert run(capsys, "--unit", "tcp://127.0.0.1:7700") == (
        1,
        "",
        "error: --unit tcp://127.0.0.1:7700: unknown scheme 'tcp://'; give socket://HOST:PORT "
        "for TCP, or a serial device such as /dev/ttyUSB0\n",
    )


def test_a_unit_that_is_not_there(capsys):
    import socket

    with socket.socket() as free:  # a port nobody listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    url = f"socket://127.0.0.1:{port}"
    assert run(capsys, "--unit", url) == (
        1,
        "",
        f"error: cannot connect to the unit at {url}: connection refused (is the unit daemon "
        "running and listening there? see server.listen)\n",
    )


def test_a_serial_device_that_is_not_there(capsys, tmp_path):
    device = tmp_path / "ttyNOPE"
    code, out, err = run(capsys, "--unit", str(device))
    assert (code, out) == (1, "")
    assert err.startswith(f"error: cannot open the serial device {device}: ")
    assert "No such file or directory" in err
