"""The venue league (issue 23): what a venue's units and tables report,
stored once and turned into standings.

``store`` is the API (:class:`Store`, :class:`StoreError`; ``store_open``: :func:`open_store`),
on SQLite (``store_sqlite``) or PostgreSQL (``store_postgres``, loaded only
when asked for), with the statements both share (``store_sql``), the tables
(``schema``) and the standings kept as results arrive (``standings``).

The server, ``showdown league`` (``league_cmd``): the MQTT ingest (``ingest``,
around the sans-IO ``intake``) and the pages (``web``); their names load on
first use, so ``showdown --help`` loads no MQTT or web library.
"""

from typing import Any

from engine.league.store import CONFLICT, Store, StoreError
from engine.league.store_open import open_store

__all__ = ["open_store", "Store", "StoreError", "CONFLICT", "Broker", "Ingest", "create_app"]

_SERVER = {"Broker": "engine.league.ingest", "Ingest": "engine.league.ingest"}
_SERVER["create_app"] = "engine.league.web"


def __getattr__(name: str) -> Any:
    if name not in _SERVER:
        raise AttributeError(f"module 'engine.league' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_SERVER[name]), name)
