"""The venue league: results from every unit over MQTT, stored once, standings served.

(Provisional: the ``store`` helper owns this file; merged with theirs.) The
server's names load on first use, so ``showdown --help`` loads no MQTT or web
library.
"""

from typing import Any

__all__ = ["Broker", "Ingest", "Changes", "create_app"]

_LAZY = {
    "Broker": "engine.league.ingest",
    "Ingest": "engine.league.ingest",
    "Changes": "engine.league.web",
    "create_app": "engine.league.web",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'engine.league' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)
