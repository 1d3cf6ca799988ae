"""The journal's errors: each names the file, and says what to run when it is damaged."""

from __future__ import annotations

__all__ = ["JournalError", "JournalConflictError", "JournalDamagedError", "JournalLockedError"]


class JournalError(RuntimeError):
    """The journal cannot be opened or used; the message names the file."""


class JournalConflictError(JournalError, ValueError):
    """A result was recorded again with different content."""


class JournalDamagedError(JournalError):
    """SQLite found the file damaged, or a row is not a valid result. The
    message ends with the command that reports the damage (given ``path``);
    ``detail`` is the message without it."""

    def __init__(self, detail: str, path=None):
        hint = "" if path is None else f" (run: showdown-unit journal check --journal {path})"
        super().__init__(detail + hint)
        self.detail = detail


class JournalLockedError(JournalError):
    """Another unit daemon holds the journal's lock."""
