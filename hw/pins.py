"""Choosing the gpiozero pin factory (the pin backend) by name.

>>> factory = make_pin_factory("mock")
>>> type(factory).__name__, factory.pin_class.__name__
('MockFactory', 'InjectableMockPin')
>>> make_pin_factory("pigeon")
Traceback (most recent call last):
...
ValueError: unknown pin backend 'pigeon' (choose from 'auto', 'mock', 'lgpio', 'rpigpio')
"""

from __future__ import annotations

import importlib
import os
import warnings

from gpiozero import BadPinFactory, Device
from gpiozero.pins.mock import MockFactory

from hw.mock import InjectableMockPin

__all__ = ["make_pin_factory", "PinBackendError", "BACKENDS"]

BACKENDS = ("auto", "mock", "lgpio", "rpigpio")

# backend name -> (module, factory class, library it needs, how to get it)
_PI_BACKENDS = {
    "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory", "lgpio", "pip install 'uno-showdown[pi]'"),
    "rpigpio": (
        "gpiozero.pins.rpigpio",
        "RPiGPIOFactory",
        "RPi.GPIO",
        "pip install 'uno-showdown[pi]' (rpi-lgpio provides RPi.GPIO)",
    ),
}
_NO_PI_HINT = 'without a Raspberry Pi use --mock (or backend = "mock" in the config)'


class PinBackendError(BadPinFactory):
    """The chosen pin backend cannot be used here (an ImportError, like
    gpiozero's own :exc:`~gpiozero.BadPinFactory`, which it extends)."""


def make_pin_factory(backend: str = "auto"):
    """A new gpiozero pin factory for ``backend``; the caller closes it.

    ``"auto"`` honours ``GPIOZERO_PIN_FACTORY`` like any gpiozero program and
    otherwise lets gpiozero pick (lgpio on a Pi). ``"mock"`` needs no hardware:
    its pins are :class:`~hw.mock.InjectableMockPin` (PWM capable, so the
    launcher works). ``"lgpio"`` and ``"rpigpio"`` import their library only
    when asked for.
    """
    if backend not in BACKENDS:
        raise ValueError(
            f"unknown pin backend {backend!r} (choose from {', '.join(map(repr, BACKENDS))})"
        )
    if backend == "auto":
        return _auto_factory()
    if backend == "mock":
        return MockFactory(pin_class=InjectableMockPin)
    return _pi_factory(backend)


def _auto_factory():
    name = os.environ.get("GPIOZERO_PIN_FACTORY")
    if name is not None and name.lower() in BACKENDS[1:]:
        # Our own names get our own factories: a plain gpiozero mock factory
        # has no PWM pins and could not drive the launcher.
        return make_pin_factory(name.lower())
    try:
        with warnings.catch_warnings():
            # gpiozero warns about each backend it falls back from; the
            # error below says what matters.
            warnings.simplefilter("ignore")
            # The same choice gpiozero makes for its first device
            # (Device.ensure_pin_factory), without installing it globally.
            return Device._default_pin_factory()
    except BadPinFactory as exc:
        if name is not None:
            raise PinBackendError(
                f"GPIOZERO_PIN_FACTORY={name!r} cannot be used: {exc}; {_NO_PI_HINT}"
            ) from None
        raise PinBackendError(
            "no GPIO pin backend works here (gpiozero tried lgpio, RPi.GPIO, "
            "pigpio and native); on a Raspberry Pi install the pi extra "
            f"(pip install 'uno-showdown[pi]'), {_NO_PI_HINT}"
        ) from None
    except Exception as exc:
        chosen = (
            "gpiozero's default pin factory" if name is None else f"GPIOZERO_PIN_FACTORY={name!r}"
        )
        raise PinBackendError(f"{chosen} cannot start: {exc}; {_NO_PI_HINT}") from exc


def _pi_factory(backend: str):
    module_name, class_name, library, install = _PI_BACKENDS[backend]
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise PinBackendError(
            f"pin backend {backend!r} needs the {library} library, which is not "
            f"installed (on a Raspberry Pi: {install}); {_NO_PI_HINT}"
        ) from None
    try:
        return getattr(module, class_name)()
    except Exception as exc:
        raise PinBackendError(
            f"pin backend {backend!r} cannot start: {exc}; is this a Raspberry Pi? {_NO_PI_HINT}"
        ) from exc
