"""``showdown-unit selftest``: light, sound and spin every device once, check
every input reads idle, and report one line per device. A bad config or pins
that cannot be used are one ``error:`` line (the scaffold's), exit 1."""

from __future__ import annotations

import json
import time

from firmware_host.service.config import add_config_argument, load_config
from hw.board import Board
from hw.pins import make_pin_factory
from hw.selftest import run_selftest

__all__ = ["add_arguments", "command", "SLEEP"]

#: How the selftest waits while a light is on; tests replace it with a no-op.
SLEEP = time.sleep


def add_arguments(parser) -> None:
    parser.add_argument(
        "--mock", action="store_true", help="use mock pins instead of the configured backend"
    )
    add_config_argument(parser)
    parser.add_argument(
        "--json", action="store_true", help='print {"ok": ..., "devices": [...]} instead of lines'
    )


def command(args) -> int:
    config = load_config(args.config, system=True)
    # A GPIOZeroError (PinBackendError is one) is left to the scaffold.
    factory = make_pin_factory("mock" if args.mock else config.backend)
    try:
        with Board(
            config.pins, pin_factory=factory, lockout_s=config.timing.press_lockout_s
        ) as board:
            checks = run_selftest(board, sleep=SLEEP)
    finally:
        factory.close()
    ok = all(check.ok for check in checks)
    if args.json:
        print(json.dumps({"ok": ok, "devices": [check.to_dict() for check in checks]}))
    else:
        width = max(len(check.name) for check in checks)
        for check in checks:
            print(f"{'ok' if check.ok else 'FAIL':<4} {check.name:<{width}}  {check.detail}")
    return 0 if ok else 1
