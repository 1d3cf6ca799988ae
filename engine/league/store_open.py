"""Which store a database URL names, opened: SQLite or PostgreSQL.

Apart from :mod:`engine.league.store` (the API and its errors), which the
backends import: this module imports the backends, so nothing imports back.
"""

from __future__ import annotations

from engine.league.store import URL_WORDS, Store, StoreError, safe_url

__all__ = ["open_store"]


def open_store(url: str) -> Store:
    """The store at ``url``: ``sqlite:PATH`` or a bare path (the file is
    created, in WAL mode), or ``postgresql://...`` / ``postgres://...`` (the
    schema is created if missing). StoreError naming the URL otherwise.

    >>> open_store("mysql://db/league")
    Traceback (most recent call last):
    ...
    engine.league.store.StoreError: cannot open 'mysql://db/league': a league database \
is sqlite:PATH, a file path or postgresql://...
    """
    if not isinstance(url, str) or not url.strip():
        raise StoreError(f"cannot open {url!r}: {URL_WORDS}")
    if url.startswith(("postgresql://", "postgres://")):
        try:
            from engine.league.store_postgres import PostgresStore
        except ImportError as exc:
            raise StoreError(
                f"cannot open {safe_url(url)!r}: PostgreSQL needs psycopg "
                f"(pip install 'uno-showdown[league]'): {exc}"
            ) from None
        return PostgresStore(url)
    if url.startswith("sqlite:"):
        path = url.removeprefix("sqlite:")
        # sqlite:///abs/path and sqlite://rel are the SQLAlchemy spellings.
        path = path[2:] if path.startswith("//") else path
    elif "://" in url or url.startswith(":"):
        raise StoreError(f"cannot open {safe_url(url)!r}: {URL_WORDS}")
    else:
        path = url
    from engine.league.store_sqlite import SqliteStore

    return SqliteStore(path)
