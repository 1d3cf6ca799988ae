"""The league's store: what ``showdown league`` keeps, behind one small API.

:func:`~engine.league.store_open.open_store` opens SQLite (``sqlite:PATH`` or
a bare path: one bar, one Pi) or PostgreSQL (``postgresql://...``: a league);
both speak the
:class:`Store` API below and keep the same tables (:mod:`engine.league.schema`).

A result is stored once under its (venue, id): a resend with the same bytes
is answered as stored, one with other bytes is refused and counted on its
unit. Standings are kept up to date as results arrive
(:mod:`engine.league.standings`), so reading them costs the same at any size.

Threads: every method may be called from any thread. A backend keeps a small
pool of connections (one per caller at a time) and writes one batch at a time
behind a lock; SQLite runs in WAL mode, so reads never wait for a write.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from firmware_host.protocol.league import ResultMessage, Status

__all__ = ["CONFLICT", "StoreError", "Store", "safe_url", "URL_WORDS"]

#: Why a result is refused: its (venue, id) is stored with other bytes.
CONFLICT = "id reused with a different result"
#: What a database URL may be (the words of a refused one).
URL_WORDS = "a league database is sqlite:PATH, a file path or postgresql://..."


class StoreError(Exception):
    """The store cannot do what was asked (cannot open, connect, read or
    write): the message names the database (never its password) and why."""


class Store(abc.ABC):
    """What the league server reads and writes; see the module's doc."""

    @abc.abstractmethod
    def store(self, messages: Sequence[ResultMessage]) -> list[tuple[str, str | None]]:
        """Stores a batch in one transaction: for each message in order,
        ``(id, None)`` when stored now or before with the same bytes (a
        resend), ``(id, CONFLICT)`` when refused. Idempotent."""

    @abc.abstractmethod
    def record_refusal(
        self, venue: str | None, unit: str | None, topic: str, reason: str, at: float
    ) -> None:
        """Counts a malformed or forged message on its unit (on its topic when
        the topic names no unit); the message itself is stored nowhere."""

    @abc.abstractmethod
    def record_status(self, status: Status) -> None:
        """Keeps the unit's last status (the last one received wins)."""

    @abc.abstractmethod
    def standings(
        self,
        *,
        venue: str | None = None,
        day: str | None = None,
        bots: bool | None = False,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        """One dict per player (:data:`~engine.league.standings.STANDING_FIELDS`),
        wins first, then the best reaction. ``bots``: False people only, True
        bots only, None both. ValueError for a filter that is not one."""

    @abc.abstractmethod
    def units(self) -> list[dict[str, Any]]:
        """Per (venue, unit), by venue and unit: its last status and its counts."""

    @abc.abstractmethod
    def figures(self) -> dict[str, Any]:
        """Totals: results (and per kind), units (and per state), venues,
        players, refusals."""

    @abc.abstractmethod
    def recent(self, limit: int = 20, venue: str | None = None) -> list[dict[str, Any]]:
        """The newest results (by their time), with each player's outcome."""

    @abc.abstractmethod
    def venues(self) -> list[str]:
        """The venues with results, in name order."""

    @abc.abstractmethod
    def days(self, venue: str | None = None) -> list[str]:
        """The days (UTC, ``YYYY-MM-DD``) with results, oldest first."""

    @abc.abstractmethod
    def close(self) -> None:
        """Closes every connection; safe to call twice."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def safe_url(url: str) -> str:
    """``url`` with its password (if any) blanked, fit for a message or a log.

    >>> safe_url("postgresql://league:s3cret@db.local:5432/league")
    'postgresql://league:***@db.local:5432/league'
    >>> safe_url("sqlite:league.sqlite3")
    'sqlite:league.sqlite3'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<a URL that does not parse>"
    if parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))
