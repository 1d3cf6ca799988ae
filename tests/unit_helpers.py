"""A real-time Unit on mock pins, for the tests of the Unit API: a short
timing config and an event recorder that waits for events (with a generous
safety timeout, never as a timing assertion)."""

from __future__ import annotations

import threading
from dataclasses import replace

from firmware_host.service.config import load_config

__all__ = ["WAIT_S", "short_config", "Recorder"]

WAIT_S = 10.0  # a safety net for a broken loop, not a timing assertion


def short_config(**timing):
    """The default config on mock pins with a countdown and launch of milliseconds."""
    config = load_config(None)
    fast = dict(
        countdown_step_s=0.01,
        flash_period_s=0.005,
        beep_s=0.002,
        go_tone_s=0.01,
        hold_min_s=0.01,
        hold_max_s=0.02,
        response_timeout_s=0.5,
        paddle_warning_s=0.05,
    )
    return config.replace(
        backend="mock",
        timing=replace(config.timing, **{**fast, **timing}),
        launcher=replace(config.launcher, spin_up_s=0.01, per_card_s=0.01),
    )


class Recorder:
    """Collects events; wait_for(name) blocks until one with that name came."""

    def __init__(self):
        self.events = []
        self._changed = threading.Condition()

    def __call__(self, event):
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def wait_for(self, name, count=1):
        with self._changed:
            ok = self._changed.wait_for(
                lambda: sum(e.name == name for e in self.events) >= count, WAIT_S
            )
        assert ok, f"no {name!r} event; got {[e.name for e in self.events]}"
        return [e for e in self.events if e.name == name][count - 1]

    def names(self):
        return [e.name for e in self.events if e.name != "state"]
