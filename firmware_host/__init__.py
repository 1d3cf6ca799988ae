"""The Showdown unit daemon: its core, the service around it, the simulator, the commands.

Subpackages: ``core`` (the state machine, decision, timers, loop and the Unit
API), ``service`` (server, transports, journal, config, sd_notify, daemon),
``sim`` (virtual time and the simulator), ``commands`` (``showdown-unit``),
``protocol`` (the wire protocol) and ``people`` (the words, the reaction model and
the command-line scaffold): the engine imports those two too.

The unit's public API is re-exported here from ``firmware_host.core``, imported
on first use so that importing ``firmware_host.protocol`` or
``firmware_host.people`` (which the engine does) pulls in no hardware, threads or
gpiozero.

>>> from firmware_host import Unit, Result, BusyError
>>> BusyError.code
'busy'
"""

import importlib

__all__ = [
    "Unit",
    "UnitBench",
    "Result",
    "UnitEvent",
    "UnitError",
    "BusyError",
    "NotArmedError",
    "InvalidCardsError",
    "InvalidArgumentError",
    "PaddleHeldError",
    "UnitFaultError",
    "UnknownShowdownError",
    "NotMockError",
    "UnitClosedError",
]


def __getattr__(name: str) -> object:
    if name in __all__:
        return getattr(importlib.import_module("firmware_host.core"), name)
    raise AttributeError(f"module 'firmware_host' has no attribute {name!r}")
