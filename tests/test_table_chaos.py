"""benchmarks/table_chaos.py: its bookkeeping on hand-made views (what counts as a
move shown then lost, as a changed verdict), and the probe run ``--quick`` against
a real ``showdown table`` (slow): exit status 0 and the must-be-zero figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.table_chaos_book import (
    Book,
    lost_lines,
    new_lines,
    panel_verdict,
    result_verdict,
)

ROOT = Path(__file__).resolve().parents[1]


def view(log, phase="play", showdown=None):
    return {"phase": phase, "log": log, "showdown": showdown}


def result(winner="a", a=231049, b=254512, reason="faster", showdown_id="t-m1:r1:s1"):
    return {
        "showdown_id": showdown_id,
        "winner": winner,
        "loser": "b" if winner == "a" else "a",
        "reason": reason,
        "reaction_us": {"a": a, "b": b},
        "margin_us": abs(b - a),
        "tie_reruns": 0,
    }


def panel(winner=0, a=231.0, b=254.5):
    return {
        "stage": "decided",
        "challenger": 0,
        "opponent": 1,
        "winner": winner,
        "loser": 1 - winner,
        "reactions": {"challenger": a, "opponent": b},
        "margin_ms": round(abs(b - a), 1),
        "false_start_by": None,
        "rerun": 0,
    }


# -- what counts as a move lost --------------------------------------------------------


def test_a_log_that_grows_or_stays_loses_nothing():
    assert lost_lines(["a"], ["a"], 300) == 0
    assert lost_lines(["b", "a"], ["d", "c", "b", "a"], 300) == 0
    assert lost_lines([], ["a"], 300) == 0


def test_the_newest_lines_missing_are_counted():
    assert lost_lines(["c", "b", "a"], ["a"], 300) == 2
    assert lost_lines(["c", "b", "a"], ["x", "b", "a"], 300) == 1  # c gone, another line came
    assert lost_lines(["b", "a"], [], 300) == 2


def test_a_window_that_cut_off_the_oldest_lines_loses_nothing():
    # a phone's 5 lines: two new ones pushed the oldest two out
    assert lost_lines(["e", "d", "c", "b", "a"], ["g", "f", "e", "d", "c"], 5) == 0
    # a window cut on one common line proves little: only the line that fits is kept
    assert lost_lines(["x", "draw", "draw"], ["y", "z", "q", "draw"], 4) == 2
    assert lost_lines(["x", "d", "c", "b"], ["y", "z", "x", "d"], 4) == 0  # x, d kept; c, b cut


def test_a_full_window_with_none_of_the_lines_cannot_tell():
    assert lost_lines(["c", "b"], ["f", "e", "d"], 3) is None
    assert lost_lines(["c", "b"], ["f", "e"], 3) == 2  # not full: it holds the whole log


def test_the_lines_a_log_gained_are_counted_past_its_cap():
    assert new_lines([], ["b", "a"]) == 2
    assert new_lines(["c", "b", "a"], ["e", "d", "c", "b"]) == 2  # the oldest cut off
    assert new_lines(["b", "a"], ["b", "a"]) == 0
    assert new_lines(["Bob wins the match."], ["Round 1: ...", "Match: ..."]) == 2


def test_the_book_counts_a_move_a_phone_saw_that_the_resumed_display_lacks():
    book = Book()
    book.page("display", display=True)
    book.page("phone 0", display=False)
    book.view("display", 1, view(["b", "a"]))
    book.view("phone 0", 1, view(["c", "b", "a"]))  # the phone saw c; the display not yet
    book.view("display", 2, view(["b", "a"]))  # the restarted server lacks c
    figures = book.figures()
    assert figures["moves_lost"] == 1
    assert figures["lost_examples"][0]["lost"] == ["c"]


def test_the_book_lets_a_new_match_start_a_new_log_but_not_an_old_one_come_back():
    book = Book()
    book.page("display", display=True)
    book.view("display", 1, view(["Bob wins the match.", "a"], phase="match_over"))
    book.view("display", 1, view(["Round 1: ...", "Match: Ann, Bob; ..."]))
    assert book.figures()["moves_lost"] == 0
    book.view("display", 1, view(["Bob wins the match.", "a"], phase="match_over"))
    assert book.figures()["moves_lost"] == 2


def test_the_book_checks_one_view_to_the_next_of_each_page():
    book = Book()
    book.page("phone 1", display=False)
    book.view("phone 1", 1, view(["b", "a"]))
    book.view("phone 1", 1, view(["a"]))
    assert book.figures()["moves_lost"] == 1 and book.figures()["log_checks"] == 1


# -- what counts as a verdict changed ---------------------------------------------------


def test_the_same_verdict_from_the_event_and_the_panel_is_one_verdict():
    assert result_verdict(result()) == panel_verdict(panel()) == ("a", False, 231.0, 254.5, 23.5, 0)
    assert panel_verdict({"stage": "countdown"}) is None


def test_a_showdown_fought_again_after_a_restart_with_another_winner_is_counted():
    book = Book()
    book.page("display", display=True)
    book.event("display", 1, "armed", {"showdown_id": "t-m1:r1:s1"})
    book.event("display", 1, "result", result())
    book.view("display", 1, view(["a"], showdown=panel()))
    book.event("display", 2, "armed", {"showdown_id": "t-m1:r1:s1"})
    book.event("display", 2, "result", result())
    assert book.figures()["verdicts_changed"] == 0
    book.event("display", 2, "result", result(winner="b", a=300000, b=250000))
    figures = book.figures()
    assert figures["showdowns_seen"] == 1 and figures["verdicts_changed"] == 1
    assert figures["showdowns_seen_across_a_restart"] == 1
    assert list(figures["changed_examples"]) == ["t-m1:r1:s1"]


def test_a_panel_from_before_the_page_was_told_the_showdown_id_is_not_keyed():
    book = Book()
    book.page("phone 0", display=False)
    book.event("phone 0", 1, "armed", {"showdown_id": "t-m1:r1:s1"})
    book.view("phone 0", 2, view(["a"], showdown=panel(winner=1)))  # reconnected to a new server
    figures = book.figures()
    assert figures["verdicts_changed"] == 0 and figures["panels_without_an_id"] == 1


# -- the probe against a real table -----------------------------------------------------


@pytest.mark.slow
def test_the_probe_runs_quick_and_nothing_shown_is_lost_or_changed(tmp_path):
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "benchmarks/table_chaos.py", "--quick", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # a safety net for a hung run, not a timing check
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    figures = json.loads(out.read_text())
    assert figures["moves_lost"] == 0
    assert figures["verdicts_changed"] == 0
    assert figures["crashes"] == 0
    assert figures["forgeries_accepted"] == 0
    for name, phase in figures["phases"].items():
        assert phase["ran"] or phase.get("skipped"), (name, phase)
