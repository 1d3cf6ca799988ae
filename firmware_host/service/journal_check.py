"""``showdown-unit journal check``: what it reads, and what it found, as text and JSON."""

from __future__ import annotations

import collections
import sqlite3
from dataclasses import dataclass
from typing import Any

from firmware_host.people.words import noun, plural
from firmware_host.service import journal_figures
from firmware_host.service.journal_figures import Merged, RowDamaged
from firmware_host.service.journal_schema import COLUMNS, SCHEMA_VERSION

__all__ = ["JournalReport", "check", "entries_text"]


@dataclass(frozen=True)
class JournalReport:
    """What :meth:`Journal.check` found. ``rows``: the rows read; ``pending``:
    showdown ids decided with no launch outcome yet; ``damaged``: entry
    numbers of rows that are not a valid result; ``sqlite_messages``: what
    SQLite's integrity check reported (or the error that stopped it);
    ``figures``: where the figures kept beside the rows (version 4,
    journal_figures) disagree with them, one sentence each."""

    path: str
    ok: bool
    rows: int
    pending: tuple[str, ...]
    damaged: tuple[int, ...]
    sqlite_messages: tuple[str, ...]
    schema_version: int
    figures: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "ok": self.ok,
            "rows": self.rows,
            "pending": list(self.pending),
            "damaged": list(self.damaged),
            "sqlite_messages": list(self.sqlite_messages),
            "schema_version": self.schema_version,
            "figures": list(self.figures),
        }

    def __str__(self) -> str:
        problems = len(self.damaged) + len(self.sqlite_messages) + len(self.figures)
        verdict = "ok" if self.ok else f"{plural(problems, 'problem')} found"
        upgrade = (
            f" (the daemon upgrades it to {SCHEMA_VERSION})"
            if self.schema_version < SCHEMA_VERSION
            else ""
        )
        lines = [
            f"{self.path}: {verdict}",
            f"  schema version {self.schema_version}{upgrade}, {self.rows} rows",
            f"  launches pending: {', '.join(self.pending) or 'none'}",
            f"  damaged rows: {entries_text(self.damaged) or 'none'}",
            f"  kept figures: {self._figures_text()}",
        ]
        shown = self.sqlite_messages[:10]
        lines.append(f"  SQLite: {'ok' if not shown else shown[0]}")
        lines += [f"    {message}" for message in shown[1:]]
        if len(self.sqlite_messages) > len(shown):
            lines.append(f"    ... and {len(self.sqlite_messages) - len(shown)} more")
        return "\n".join(lines)

    def _figures_text(self) -> str:
        if self.schema_version < 4:
            return "none (kept from version 4 on)"
        return "; ".join(self.figures) or "ok"


def entries_text(entries) -> str:
    """``entry 17`` or ``entries 3, 17``."""
    if not entries:
        return ""
    return f"{noun(len(entries), 'entry', 'entries')} {', '.join(map(str, entries))}"


def check(db, path: str, schema_version: int, merged: Merged) -> JournalReport:
    """SQLite's ``integrity_check``, every row read and validated with
    ``merged``, and the figures kept beside them compared with them."""
    messages = []
    try:
        messages += [row[0] for row in db.execute("PRAGMA integrity_check") if row[0] != "ok"]
    except sqlite3.Error as exc:
        messages.append(str(exc))
    rows, pending, damaged = 0, [], []

    def each_row():
        """(entry, its figures, or None if damaged) per row, in order."""
        nonlocal rows
        for entry, showdown_id, _, body, launch, counted in db.execute(
            f"SELECT {COLUMNS[schema_version]} FROM results ORDER BY entry"
        ):
            rows += 1
            try:
                result = merged(showdown_id, body, launch, counted)
            except RowDamaged:
                damaged.append(entry)
                yield entry, None
                continue
            if result["launch"] == "pending":
                pending.append(showdown_id)
            yield entry, journal_figures.side_figures(entry, result)

    figures: list[str] = []
    try:
        if schema_version >= 4:
            figures = journal_figures.check_kept(db, each_row())
        else:
            collections.deque(each_row(), maxlen=0)
    except sqlite3.Error as exc:
        messages.append(f"reading the rows stopped after {rows}: {exc}")
        if schema_version >= 4:
            figures = ["not checked: the rows could not all be read"]
    return JournalReport(
        path=path,
        ok=not (messages or damaged or figures),
        rows=rows,
        pending=tuple(pending),
        damaged=tuple(damaged),
        sqlite_messages=tuple(messages),
        schema_version=schema_version,
        figures=tuple(figures),
    )
