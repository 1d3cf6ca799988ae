"""Every verdict exactly once: the decision, the card counts, the outcome, recovery."""

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.service.journal import FILENAME, Journal, JournalConflictError, JournalError
from tests.test_journal import T0, Clock, decision, result

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def path(tmp_path):
    return tmp_path / FILENAME


@pytest.fixture
def journal(path):
    with Journal(path, clock=Clock()) as journal:
        yield journal


def row(path, showdown_id):
    """What another connection reads: (launch, cards_counted, outcome_at)."""
    db = sqlite3.connect(path)
    try:
        return db.execute(
            "SELECT launch, cards_counted, outcome_at FROM results WHERE showdown_id = ?",
            (showdown_id,),
        ).fetchone()
    finally:
        db.close()


def traced(journal):
    """The statements the journal runs from now on, as a list."""
    statements = []
    journal._db.set_trace_callback(statements.append)
    return statements


# --- Two records ------------------------------------------------------------


def test_a_decision_then_its_outcome(journal, path):
    assert journal.record_decision(decision("sd-1")) is True
    assert journal.get("sd-1") == decision("sd-1")
    assert row(path, "sd-1") == (None, None, None)  # seen by another connection
    journal.record_outcome("sd-1", "launched", 2)
    assert journal.get("sd-1") == result("sd-1", cards_counted=2)
    assert row(path, "sd-1") == ("launched", 2, T0 + 2)
    [entry] = journal.entries()
    assert entry.recorded_at == T0 + 1  # when it was decided


def test_the_outcome_adds_the_losers_late_press_but_never_changes_the_verdict(journal):
    journal.record_decision(decision("sd-1", reaction=(200_000, None)))
    journal.record_outcome(
        "sd-1", "launched", None, reaction_us={"a": 200_000, "b": 600_000}, margin_us=400_000
    )
    assert journal.get("sd-1") == result("sd-1", reaction=(200_000, 600_000))
    journal.record_decision(decision("sd-2", reaction=(200_000, None)))
    with pytest.raises(JournalConflictError) as refused:
        journal.record_outcome(
            "sd-2", "launched", None, reaction_us={"a": 190_000, "b": 600_000}, margin_us=410_000
        )
    assert str(refused.value) == (
        "showdown 'sd-2': the launch outcome may only add the timing of presses after the "
        "decision, not change {'a': 200000, 'b': None} (margin None) to "
        "{'a': 190000, 'b': 600000} (margin 410000)"
    )
    assert journal.get("sd-2")["launch"] == "pending"
    journal.record(result("sd-2", reaction=(200_000, 650_000)))  # completes it too
    assert journal.get("sd-2")["reaction_us"] == {"a": 200_000, "b": 650_000}


def test_a_decision_is_on_disk_before_record_decision_returns(journal):
    statements = traced(journal)
    journal.record_decision(decision("sd-1"))
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert not any("synchronous" in s for s in statements)
    assert journal._db.execute("PRAGMA synchronous").fetchone() == (2,)  # 2 = FULL
    assert not journal._db.in_transaction


def test_card_counts_during_the_launch(journal, path):
    journal.record_decision(decision("sd-1", cards=3))
    journal.record_cards("sd-1", 1)
    journal.record_cards("sd-1", 2)
    assert journal.get("sd-1") == decision("sd-1", cards=3, cards_counted=2)
    assert row(path, "sd-1") == (None, 2, None)
    journal.record_outcome("sd-1", "jam", 2)
    assert journal.get("sd-1") == result("sd-1", cards=3, launch="jam", cards_counted=2)


def test_a_card_count_is_committed_without_an_fsync_then_full_again(journal):
    journal.record_decision(decision("sd-1"))
    statements = traced(journal)
    journal.record_cards("sd-1", 1)
    assert statements[:2] == ["PRAGMA synchronous=NORMAL", "BEGIN IMMEDIATE"]
    assert statements[-2:] == ["COMMIT", "PRAGMA synchronous=FULL"]
    assert journal._db.execute("PRAGMA synchronous").fetchone() == (2,)


def test_the_same_decision_again_is_a_no_op(journal):
    assert journal.record_decision(decision("sd-1")) is True
    assert journal.record_decision(dict(reversed(decision("sd-1").items()))) is False
    journal.record_outcome("sd-1", "launched", None)
    assert journal.record_decision(decision("sd-1")) is False  # decided, and launched
    assert journal.recent() == [result("sd-1")]


def test_another_decision_under_a_known_id_is_refused(journal):
    journal.record_decision(decision("sd-1"))
    with pytest.raises(
        JournalConflictError, match=r"^showdown 'sd-1' is already recorded with a different result$"
    ):
        journal.record_decision(decision("sd-1", winner="b"))
    assert journal.get("sd-1") == decision("sd-1")


def test_a_decision_must_be_pending_and_a_finished_result_must_not(journal):
    with pytest.raises(
        ValueError,
        match=re.escape(
            "a decision has launch 'pending', not 'launched' (record() takes a finished result)"
        ),
    ):
        journal.record_decision(result("sd-1"))
    with pytest.raises(
        ValueError,
        match=re.escape(
            "record() takes a finished result, not launch 'pending' (use record_decision)"
        ),
    ):
        journal.record(decision("sd-1"))
    assert journal.recent() == []


def test_the_same_outcome_again_is_a_no_op_and_another_is_refused(journal):
    journal.record_decision(decision("sd-1"))
    journal.record_outcome("sd-1", "launched", 2)
    journal.record_outcome("sd-1", "launched", 2)
    with pytest.raises(
        JournalConflictError,
        match=re.escape(
            "showdown 'sd-1' already has the launch outcome 'launched' (cards_counted 2), "
            "not 'jam' (cards_counted 1)"
        ),
    ):
        journal.record_outcome("sd-1", "jam", 1)
    assert journal.get("sd-1") == result("sd-1", cards_counted=2)


def test_an_outcome_or_a_count_needs_a_decision(journal, path):
    with pytest.raises(
        JournalError,
        match=f"^{path}: cannot record the launch outcome of 'sd-9': no decision recorded for it$",
    ):
        journal.record_outcome("sd-9", "launched", None)
    with pytest.raises(
        JournalError,
        match=f"^{path}: cannot record the card count of 'sd-9': no decision recorded for it$",
    ):
        journal.record_cards("sd-9", 1)
    assert journal.recent() == [] and not journal._db.in_transaction


def test_a_count_after_the_outcome_is_refused(journal, path):
    journal.record_decision(decision("sd-1"))
    journal.record_outcome("sd-1", "cancelled", 1)
    with pytest.raises(
        JournalError,
        match=f"^{path}: cannot record the card count of "
        r"'sd-1': its launch already ended \(cancelled\)$",
    ):
        journal.record_cards("sd-1", 2)
    assert journal.get("sd-1")["cards_counted"] == 1


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda j: j.record_outcome("sd-1", "pending", None),
            "launch must be one of launched, jam, cancelled, none, fault, interrupted, not 'pending'",
        ),
        (
            lambda j: j.record_outcome("sd-1", "flew", None),
            "launch must be one of launched, jam, cancelled, none, fault, interrupted, not 'flew'",
        ),
        (
            lambda j: j.record_outcome("sd-1", "launched", -1),
            "cards_counted must be a whole number >= 0 or None, not -1",
        ),
        (
            lambda j: j.record_cards("sd-1", None),
            "cards_counted must be a whole number >= 0, not None",
        ),
        (
            lambda j: j.record_cards("sd-1", True),
            "cards_counted must be a whole number >= 0, not True",
        ),
    ],
)
def test_bad_outcomes_and_counts(journal, call, message):
    journal.record_decision(decision("sd-1"))
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call(journal)
    assert journal.get("sd-1") == decision("sd-1")


# --- record(): the one-step form --------------------------------------------


def test_record_completes_a_pending_decision(journal):
    journal.record_decision(decision("sd-1"))
    journal.record_cards("sd-1", 1)
    assert journal.record(result("sd-1", launch="jam", cards_counted=1)) is True
    assert journal.get("sd-1") == result("sd-1", launch="jam", cards_counted=1)
    assert journal.record(result("sd-1", launch="jam", cards_counted=1)) is False
    journal.record_outcome("sd-1", "jam", 1)  # the same outcome: no-op
    with pytest.raises(
        JournalConflictError, match=r"^showdown 'sd-1' is already recorded with a different result$"
    ):
        journal.record(result("sd-1", launch="launched", cards_counted=2))


def test_record_does_not_complete_another_decision(journal):
    journal.record_decision(decision("sd-1"))
    with pytest.raises(
        JournalConflictError, match=r"^showdown 'sd-1' is already recorded with a different result$"
    ):
        journal.record(result("sd-1", winner="b"))
    assert journal.get("sd-1") == decision("sd-1")


def test_a_result_without_a_launch_is_one_record(journal, path):
    timeout = result("sd-1", winner=None, reason="timeout", reaction=(None, None))
    assert journal.record(timeout) is True
    assert row(path, "sd-1") == ("none", None, T0 + 1)
    assert journal.recover() == []
    assert journal.get("sd-1") == timeout


# --- After a crash ----------------------------------------------------------


def test_recover_closes_a_decision_without_outcome_as_interrupted(journal, path):
    journal.record_decision(decision("sd-1", cards=3))
    journal.record_cards("sd-1", 1)
    journal.record_decision(decision("sd-2", cards_counted=0))  # counted nothing yet
    journal.record_decision(decision("sd-3"))  # no card sensor
    journal.record_decision(decision("sd-4"))
    journal.record_outcome("sd-4", "launched", None)
    assert journal.recover() == [
        result("sd-1", cards=3, launch="interrupted", cards_counted=1),
        result("sd-2", launch="interrupted", cards_counted=0),
        result("sd-3", launch="interrupted", cards_counted=None),
    ]
    assert journal.recover() == []
    assert row(path, "sd-1") == ("interrupted", 1, T0 + 6)
    assert journal.get("sd-4") == result("sd-4")
    with pytest.raises(JournalConflictError, match="already has the launch outcome 'interrupted'"):
        journal.record_outcome("sd-1", "launched", 3)


def test_recovery_is_on_disk(path):
    with Journal(path) as journal:
        journal.record_decision(decision("sd-1"))
        statements = traced(journal)
        journal.recover()
        assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    with Journal(path, readonly=True) as reader:
        assert reader.get("sd-1")["launch"] == "interrupted"


CRASH = """
import json, os, signal, sys
from firmware_host.service.journal import Journal
journal = Journal(sys.argv[1])
journal.record_decision(json.loads(sys.argv[2]))
journal.record_cards("sd-1", 1)
journal.record_cards("sd-1", 2)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_card_counts_survive_a_crash_of_the_process(path):
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH, str(path), json.dumps(decision("sd-1", cards=3))], cwd=REPO
    )
    assert crashed.returncode == -signal.SIGKILL
    assert os.path.exists(f"{path}-wal")  # it never closed the journal
    with Journal(path) as journal:
        assert journal.get("sd-1") == decision("sd-1", cards=3, cards_counted=2)
        assert journal.recover() == [result("sd-1", cards=3, launch="interrupted", cards_counted=2)]
