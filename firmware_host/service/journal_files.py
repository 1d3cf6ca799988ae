"""Where the journal lives, its folder, and the lock that keeps one daemon per journal."""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from firmware_host.service.journal_errors import JournalError, JournalLockedError

__all__ = ["FILENAME", "JournalLock", "default_journal_path", "folder_problem", "make_folder"]

FILENAME = "results.sqlite3"


def default_journal_path(
    configured: str, *, mock: bool, environ: Mapping[str, str] | None = None
) -> Path:
    """Where the journal lives: ``journal.path`` if set; else a temp dir for a
    unit on mock pins (bench results stay out of the real history); else
    ``$STATE_DIRECTORY`` (systemd's ``StateDirectory=``); else
    ``$XDG_STATE_HOME/uno-showdown`` (``~/.local/state/uno-showdown``).

    >>> default_journal_path("", mock=False, environ={"STATE_DIRECTORY": "/var/lib/uno-showdown"})
    PosixPath('/var/lib/uno-showdown/results.sqlite3')
    >>> default_journal_path("", mock=False, environ={"HOME": "/home/pi"})
    PosixPath('/home/pi/.local/state/uno-showdown/results.sqlite3')
    """
    env = os.environ if environ is None else environ
    if configured:
        return Path(configured).expanduser()
    if mock:
        user = os.getuid() if hasattr(os, "getuid") else "user"
        return Path(tempfile.gettempdir()) / f"uno-showdown-mock-{user}" / FILENAME
    if env.get("STATE_DIRECTORY"):
        # systemd passes one directory per StateDirectory= entry, colon-separated.
        return Path(env["STATE_DIRECTORY"].split(":")[0]) / FILENAME
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "uno-showdown" / FILENAME
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return home / ".local" / "state" / "uno-showdown" / FILENAME


def folder_problem(path: str | os.PathLike) -> str | None:
    """Why a writable :class:`Journal` at ``path`` could not make its folder,
    in the words of the JournalError it would raise, or None; creates nothing
    (for ``check-config``). A journal path creates at most its last folder."""
    if str(path) == ":memory:":
        return None
    file = Path(path)
    folder = file.parent
    if folder.is_dir() or _made_whole(folder):
        return None
    parent = folder.parent
    if not parent.is_dir():
        why = "is not a folder" if parent.exists() else "does not exist"
        return (
            f"{file}: cannot create its folder: {parent} {why} "
            f"(only the journal's own folder is created: check the path)"
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{file}: cannot create its folder: {parent} is not writable"
    return None


def _made_whole(folder: Path) -> bool:
    """The default places (:func:`default_journal_path`) are made with their
    parents, as XDG's ``~/.local/state`` may be missing."""
    return folder in {default_journal_path("", mock=mock).parent for mock in (False, True)}


def make_folder(file: Path, shown) -> None:
    """The journal's folder: at most its last directory is created, so a
    mistyped path cannot make folders anywhere (:func:`folder_problem`)."""
    folder = file.parent
    if folder.is_dir():
        return
    whole = _made_whole(folder)
    parent = folder.parent
    if not whole and not parent.is_dir():
        why = "is not a folder" if parent.exists() else "does not exist"
        raise JournalError(
            f"{shown}: cannot create its folder: {parent} {why} "
            f"(only the journal's own folder is created: check the path)"
        )
    try:
        folder.mkdir(parents=whole, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise JournalError(f"{shown}: cannot create its folder: {exc.strerror or exc}") from None


# -- one daemon per journal -------------------------------------------------------------


class JournalLock:
    """One unit daemon per journal: an exclusive ``flock`` on
    ``<journal>.lock``, a file of its own next to the journal (SQLite closes
    and reopens the database's descriptors, which would drop a POSIX lock on
    it). The lock file holds the daemon's pid, for the message another daemon
    gets. It is left in place on release; a lock file nobody holds is free.

    >>> with JournalLock(":memory:") as lock:
    ...     lock.held()
    True
    """

    def __init__(self, journal_path: str | os.PathLike):
        self.journal_path = journal_path if str(journal_path) == ":memory:" else Path(journal_path)
        self.path = None if self.journal_path == ":memory:" else Path(f"{journal_path}.lock")
        self._fd: int | None = None
        self._memory_held = False

    def acquire(self) -> JournalLock:
        """Take the lock, or JournalLockedError naming the pid that holds it."""
        if self.path is None:
            self._memory_held = True
            return self
        if self._fd is not None:
            return self
        try:
            make_folder(self.path, self.journal_path)
            while True:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    pid = self._holder(fd)
                    os.close(fd)
                    raise JournalLockedError(
                        f"{self.journal_path}: in use by another unit daemon ({pid})"
                    ) from None
                if self._same_file(self.path, fd):
                    break
                os.close(fd)  # deleted or replaced before we locked it: again
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as exc:
            raise JournalError(
                f"{self.path}: cannot take the journal's lock: {exc.strerror or exc}"
            ) from None
        self._fd = fd
        return self

    @staticmethod
    def _holder(fd: int) -> str:
        try:
            return f"pid {int(os.pread(fd, 32, 0).decode().strip())}"
        except (OSError, ValueError):
            return "pid unknown"

    @staticmethod
    def _same_file(path: Path, fd: int) -> bool:
        try:
            on_disk, ours = os.stat(path), os.fstat(fd)
        except OSError:
            return False
        return (on_disk.st_dev, on_disk.st_ino) == (ours.st_dev, ours.st_ino)

    def held(self) -> bool:
        """True while our lock still guards the path: False once released, or
        if someone deleted or replaced the lock file (another daemon could
        then take a new one)."""
        if self.path is None:
            return self._memory_held
        return self._fd is not None and self._same_file(self.path, self._fd)

    def release(self) -> None:
        """Let go of the lock; safe to call twice."""
        fd, self._fd = self._fd, None
        self._memory_held = False
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> JournalLock:
        return self.acquire()

    def __exit__(self, *exc_info) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"<JournalLock {str(self.journal_path)!r} {'held' if self.held() else 'free'}>"
