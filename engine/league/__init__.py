"""The venue league (issue 23): what a venue's units and tables report,
stored once and turned into standings.

``store`` is the API (:func:`open_store`, :class:`Store`, :class:`StoreError`),
on SQLite (``store_sqlite``) or PostgreSQL (``store_postgres``, loaded only
when asked for), with the statements both share (``store_sql``), the tables
(``schema``) and the standings kept as results arrive (``standings``).
"""

from engine.league.store import CONFLICT, Store, StoreError, open_store

__all__ = ["open_store", "Store", "StoreError", "CONFLICT"]
