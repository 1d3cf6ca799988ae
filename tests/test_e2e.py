"""End to end: simulated people (who choose their cards as the heuristic bot
does) play whole seeded matches through a real unit daemon on mock pins (a
subprocess), over TCP and over a serial line (two ptys bridged), and
``showdown demo`` (bots the unit presses for) runs to its scoreboard.
tests/test_e2e_bots.py has the matches of bots.

A simulated table presses the people's mock paddles through the bench
commands. The seeds and targets give each match 15 to 20 showdowns: enough
for false starts and near-tie re-runs, in a few seconds. Every
showdown the engine applied must be exactly one decided result in the unit's
journal, and the cards are conserved after every decision (Match(debug=True)).
Waits are on the unit's events and replies, never sleeps.
"""

import io
import os
import re
import subprocess
import sys

from engine.apps.demo import run_demo
from engine.units.remote import RemoteUnit
from tests.daemon_helpers import running_daemon
from tests.e2e_helpers import E2E_CONFIG, PtyBridge, check_against_journal, fast_table, play


def test_a_whole_match_over_tcp_with_the_table_pressing_the_timer_button(tmp_path):
    with running_daemon(tmp_path, config_text=E2E_CONFIG) as daemon:
        port = RemoteUnit(f"socket://127.0.0.1:{daemon.port}", table=fast_table(2), id_prefix="tcp")
        with port:
            match = play(port, seed=2, target=40)
        assert check_against_journal(match, port, daemon.journal_path) >= 15
        assert daemon.stop() == 0
    showdowns = [e.data for e in match.events if e.kind == "showdown"]
    assert {s["reason"] for s in showdowns} == {"faster", "false_start"}
    assert sum(s["tie_reruns"] for s in showdowns) >= 1  # near-ties were re-run


def test_a_whole_match_over_a_serial_line_with_the_engine_starting_the_unit(tmp_path):
    with PtyBridge() as cable:
        with running_daemon(
            tmp_path, ["--serial", cable.daemon_path], config_text=E2E_CONFIG, listen=None
        ) as daemon:
            port = RemoteUnit(
                cable.engine_path,
                start=True,
                table=fast_table(2, press_timer=False),
                id_prefix="pty",
            )
            with port:
                assert port.hello["unit"]["backend"] == "mock"
                match = play(port, seed=2, target=40)
            check_against_journal(match, port, daemon.journal_path)
            assert daemon.stop() == 0
        assert cable.copied > 0


def test_showdown_demo_plays_to_the_scoreboard_and_stops_the_daemon():
    out = io.StringIO()
    assert run_demo(seed=1, players=2, target=20, out=out) == 0
    text = out.getvalue()
    lines = text.splitlines()
    assert lines[0].startswith(
        "Starting the unit daemon on mock pins: -m firmware_host -v "
        "run --mock --listen 127.0.0.1:0 --journal "
    )
    assert re.fullmatch(
        r"The unit listens on socket://127\.0\.0\.1:\d+; its journal is .*", lines[1]
    )
    assert lines[2] == (
        "For the demo the unit runs a short countdown and hold "
        "(countdown_step_s 0.02, hold_min_s 0.01, hold_max_s 0.02); its own "
        "defaults are 3 steps of 1 s and a 0.5-2.5 s hold."
    )
    assert "Match: Ann, Bob; showdown to 20 points." in lines
    assert any(
        re.fullmatch(
            r"  Showdown 1 \(\S+\): \w+ loads \d cards?, \w+ \(side A\) vs \w+ \(side B\)\. "
            r"Unit: .* \(unit showdown demo-s1:r1:s1\)(, after .*)?(\[.*\])?\. "
            r"\w+ takes the cards\.",
            line,
        )
        for line in lines
    )
    board = lines.index("Final scoreboard (showdown figures are the unit's, from its journal):")
    assert lines[board + 1].split() == [
        "player",
        "points",
        "rounds",
        "showdowns",
        "won",
        "lost",
        "false",
        "starts",
        "median",
        "reaction",
        "best",
    ]
    rows = [line.split() for line in lines[board + 2 : board + 4]]
    assert sorted(row[0] for row in rows) == ["Ann", "Bob"]
    assert max(int(row[1]) for row in rows) >= 20
    # The unit's figures of the bots (kept apart from people's) reach the board:
    # both fought every showdown of a two-player match.
    showdowns = int(re.search(r"(\d+) showdowns", lines[board + 4]).group(1))
    assert [int(row[3]) for row in rows] == [showdowns, showdowns]
    assert all(re.fullmatch(r"\d+\.\d", row[-2]) for row in rows)  # a median reaction
    assert re.fullmatch(
        r"(Ann|Bob) wins the match: \d+ rounds?, \d+ showdowns, \d+ decisions "
        r"in [\d.]+ s\.",
        lines[board + 4],
    )
    assert lines[-1] == "The unit daemon stopped cleanly (SIGTERM, exit status 0)."
    assert "\x1b" not in text  # not a terminal: no progress line


def test_on_a_terminal_the_demo_keeps_a_progress_line_under_the_log():
    out = io.StringIO()
    assert run_demo(seed=1, players=2, target=20, out=out, tty=True) == 0
    text = out.getvalue()
    assert re.search(r"\r\x1b\[K\[round 1, showdown 1, \d+ s\] Ann \d+, Bob \d+", text)
    assert text.endswith("\r\x1b[KThe unit daemon stopped cleanly (SIGTERM, exit status 0).\n")


def test_the_demo_command_line_plays_the_same_match_each_time():
    # Two runs at once, with other hash seeds: the deal, the bots and the unit's
    # draws (``run --seed``) are seeded, so every showdown and the scores agree.
    command = [sys.executable, "-m", "engine", "demo", "--seed", "6", "--players", "2"]
    runs = [
        subprocess.Popen(
            [*command, "--target", "20"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": str(hash_seed)},
        )
        for hash_seed in (1, 2)
    ]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    for run, output in zip(runs, outputs, strict=True):
        assert run.returncode == 0, output
        assert "Final scoreboard" in output
        assert output.endswith("The unit daemon stopped cleanly (SIGTERM, exit status 0).\n")

    def match(output: str) -> list[str]:
        # What the match was: every play, verdict and score. Not the daemon's address,
        # the time taken, nor the loser's reaction: a bot that lost may press before
        # the result is out or after it (then "did not press"), as a person may.
        lines = output.splitlines()[2:]
        board = lines.index("Final scoreboard (showdown figures are the unit's, from its journal):")
        lines = lines[:board] + lines[board + 4 :]
        lines = [re.sub(r"(Unit: [^:]*):.*?( \(unit showdown)", r"\1: _\2", x) for x in lines]
        return [re.sub(r" in [\d.]+ s\.$", " in _ s.", line) for line in lines]

    assert match(outputs[0]) == match(outputs[1])
    assert "--seed 6" in outputs[0].splitlines()[0]  # the unit was seeded too
