"""The Showdown unit's devices, built on gpiozero. Imports nothing else of this project."""

from hw.pinmap import OPTIONAL_DEVICES, PinConflictError, PinMap

__all__ = ["PinMap", "PinConflictError", "OPTIONAL_DEVICES"]
