"""The uplink's errors: each one line, each also the builtin it is a kind of."""

from __future__ import annotations

__all__ = ["UplinkError", "UplinkConfigError", "NameClashError", "SourceError"]


class UplinkError(RuntimeError):
    """Something the uplink cannot do; the message says what and where."""


class UplinkConfigError(UplinkError, ValueError):
    """A config value is wrong: the message names the file (or flag) and the key."""


class NameClashError(UplinkError):
    """Another machine says it is online under this venue and unit name."""


class SourceError(UplinkError, OSError):
    """The journal or the match book cannot be read now (the uplink says
    ``fault`` and tries again); the message names the file."""
