"""The Showdown unit daemon: state machine, protocol server, config, journal.

The public API is re-exported here, imported on first use so that importing
``firmware_host.protocol`` (which the engine does) pulls in no hardware,
threads or gpiozero.

>>> from firmware_host import Unit, Result, BusyError
>>> BusyError.code
'busy'
"""

import importlib

__all__ = [
    "Unit", "UnitBench", "Result", "UnitEvent",
    "UnitError", "BusyError", "NotArmedError", "InvalidCardsError", "InvalidArgumentError",
    "PaddleHeldError", "UnitFaultError", "UnknownShowdownError", "NotMockError",
    "UnitClosedError",
]

_HOMES = {
    "Unit": "firmware_host.unit", "UnitBench": "firmware_host.unit",
    "Result": "firmware_host.result", "UnitEvent": "firmware_host.result",
}


def __getattr__(name):
    if name in __all__:
        module = importlib.import_module(_HOMES.get(name, "firmware_host.errors"))
        return getattr(module, name)
    raise AttributeError(f"module 'firmware_host' has no attribute {name!r}")
