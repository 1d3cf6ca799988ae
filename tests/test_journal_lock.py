"""One unit daemon per journal: the lock file next to it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.service.journal import (
    FILENAME,
    Journal,
    JournalError,
    JournalLock,
    JournalLockedError,
)

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def path(tmp_path):
    return tmp_path / FILENAME


def locked_message(path, pid):
    return f"^{re.escape(f'{path}: in use by another unit daemon ({pid})')}$"


def test_the_lock_file_holds_our_pid(path):
    with JournalLock(path) as lock:
        assert lock.path == Path(f"{path}.lock")
        assert lock.held()
        assert lock.path.read_text() == f"{os.getpid()}\n"
        assert repr(lock) == f"<JournalLock '{path}' held>"
    assert not lock.held()
    assert repr(lock) == f"<JournalLock '{path}' free>"


def test_a_second_lock_is_refused_with_the_holders_pid(path):
    first = JournalLock(path).acquire()
    second = JournalLock(path)
    with pytest.raises(JournalLockedError, match=locked_message(path, f"pid {os.getpid()}")):
        second.acquire()
    assert not second.held() and first.held()
    assert isinstance(JournalLockedError("x"), JournalError)
    first.release()
    second.acquire()
    assert second.held()
    second.release()


def test_release_is_safe_twice_and_acquire_is_safe_twice(path):
    lock = JournalLock(path)
    lock.release()
    assert lock.acquire() is lock and lock.acquire() is lock
    lock.release()
    lock.release()
    assert not lock.held()


def test_an_unreadable_pid(path):
    with JournalLock(path) as lock:
        lock.path.write_text("garbage")  # the same file, so still locked
        with pytest.raises(JournalLockedError, match=locked_message(path, "pid unknown")):
            JournalLock(path).acquire()


HOLDER = """
import sys
from firmware_host.service.journal import JournalLock
lock = JournalLock(sys.argv[1]).acquire()
print("locked", flush=True)
sys.stdin.read()            # hold it until the test closes our stdin
"""


def test_a_lock_held_by_another_process_names_that_process(path):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "locked\n"
        with pytest.raises(JournalLockedError, match=locked_message(path, f"pid {holder.pid}")):
            JournalLock(path).acquire()
    finally:
        holder.stdin.close()
        holder.wait()
        holder.stdout.close()
    with JournalLock(path) as lock:  # its exit let go of the lock
        assert lock.held()


def test_a_child_process_does_not_inherit_the_lock(path):
    lock = JournalLock(path).acquire()
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('running', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        close_fds=False,
    )
    try:
        # Once it runs, its exec has closed the descriptors marked close-on-exec.
        assert child.stdout.readline() == "running\n"
        lock.release()
        with JournalLock(path) as again:
            assert again.held()
    finally:
        child.stdin.close()
        child.wait()
        child.stdout.close()


def test_the_lock_is_lost_when_its_file_is_deleted_or_replaced(path):
    with JournalLock(path) as lock:
        lock.path.unlink()
        assert not lock.held()
    with JournalLock(path) as lock:
        replacement = path.parent / "other.lock"
        replacement.write_text("1\n")
        replacement.replace(lock.path)
        assert not lock.held()
        with JournalLock(path) as newcomer:  # so another daemon can take it now
            assert newcomer.held()


def test_opening_and_closing_the_journal_keeps_the_lock(path):
    # The lock is a file of its own: SQLite closing its descriptors on the
    # database (which drops POSIX locks) cannot let a second daemon in.
    with JournalLock(path) as lock:
        for _ in range(2):
            Journal(path).close()
            Journal(path, readonly=True).close()
        assert lock.held()
        with pytest.raises(JournalLockedError):
            JournalLock(path).acquire()


def test_the_lock_makes_the_journals_folder(tmp_path):
    path = tmp_path / "state" / FILENAME
    with JournalLock(path):
        assert (path.parent.stat().st_mode & 0o777) == 0o700


def test_a_lock_that_cannot_be_made_is_a_journal_error(tmp_path):
    (tmp_path / "file").write_text("")
    path = tmp_path / "file" / "sub" / FILENAME
    with pytest.raises(
        JournalError,
        match=(
            f"^{path}: cannot create its folder: {tmp_path / 'file'} is not a folder "
            r"\(only the journal's own folder is created: check the path\)$"
        ),
    ):
        JournalLock(path).acquire()


def test_a_lock_creates_at_most_the_journals_own_folder(tmp_path):
    path = tmp_path / "typo" / "sub" / FILENAME
    with pytest.raises(
        JournalError,
        match=f"^{path}: cannot create its folder: {tmp_path / 'typo'} does not exist ",
    ):
        JournalLock(path).acquire()
    assert not (tmp_path / "typo").exists()
    with JournalLock(tmp_path / "sub" / FILENAME) as lock:
        assert lock.held()


def test_a_memory_journal_needs_no_lock_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with JournalLock(":memory:") as lock:
        assert lock.held() and lock.path is None
    assert not lock.held()
    assert list(tmp_path.iterdir()) == []
