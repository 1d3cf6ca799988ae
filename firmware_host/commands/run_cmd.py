"""``showdown-unit run``: the unit as a service, until told to stop.

:func:`command` loads the config (a bad one is one line and exit 78, so
systemd does not restart it), applies the flags and runs a
:class:`~firmware_host.service.daemon.Daemon`: the unit, its journal, the protocol
server over TCP and serial, systemd notifications, SIGTERM/SIGINT (outputs
safe, exit 0) and SIGHUP (reload).

With ``--mock`` on a terminal the keyboard plays the table: space or ``t`` is
the timer button, ``a`` and ``l`` (or ``b``) tap the paddles, ``c`` cancels,
``q`` quits; one refreshing line shows the outputs and events scroll above it.
Without a terminal it runs headless, printing the events. Both print each
event in the words of :func:`firmware_host.protocol.words.event_line`
(a state change only moves the status line). Either way the
unit's subscriber only puts each event in the ui thread's
:class:`~firmware_host.core.mailbox.Mailbox`; the ui thread does the printing, so
a terminal that is slow, or not read at all, never holds up the unit's loop
(a decision, or the motor's cut-off).
"""

from __future__ import annotations

import os
import select
import sys
import termios
import time
import tty
from typing import ClassVar

from firmware_host.core.bench import pin_states
from firmware_host.core.errors import UnitError
from firmware_host.core.mailbox import Mailbox
from firmware_host.core.unit import Unit
from firmware_host.protocol import EventName
from firmware_host.protocol.console import CommandError
from firmware_host.protocol.words import event_line
from firmware_host.service.config import ConfigError, add_config_argument, load_config
from firmware_host.service.journal import JournalError, JournalLockedError
from hw.pins import PinBackendError

__all__ = ["status_line", "TerminalUI", "print_events", "add_arguments", "command"]


# -- the outputs on one line ---------------------------------------------------------


def status_line(pins: dict, state: str) -> str:
    """The outputs as one line of text.

    >>> status_line({"bar": (1, 1, 0), "go": 0, "arrow_a": 1, "arrow_b": 0, "buzzer": 1,
    ...              "motor_a": 1, "motor_b": 0, "duty": 0.8}, "launching")
    'bar [##.]  GO .  arrow <A  buzz *  motor >A 80%  | launching'
    """
    bar = "".join("#" if lit else "." for lit in pins["bar"])
    arrow = "<A" if pins["arrow_a"] else "B>" if pins["arrow_b"] else "--"
    if pins["duty"] and (pins["motor_a"] or pins["motor_b"]):
        motor = f">{'A' if pins['motor_a'] else 'B'} {round(pins['duty'] * 100)}%"
    else:
        motor = "off"
    return (
        f"bar [{bar}]  GO {'*' if pins['go'] else '.'}  arrow {arrow}  "
        f"buzz {'*' if pins['buzzer'] else '.'}  motor {motor}  | {state}"
    )


# -- the keyboard on mock pins ---------------------------------------------------------


class TerminalUI:
    """Keys press the mock pins (through the unit's bench, on the real clock);
    one line shows the outputs, refreshed while a showdown runs. Everything
    here runs on the ui thread; the unit's loop only fills the mailbox."""

    KEYS: ClassVar[dict[str, str]] = {
        " ": "timer",
        "t": "timer",
        "a": "a",
        "l": "b",
        "b": "b",
        "c": "cancel",
        "q": "quit",
    }
    HELP = "space/t timer button, a and l paddles, c cancel, q quit"
    REFRESH_S = 0.05  # only while a showdown runs, for the flashing LEDs

    def __init__(self, unit: Unit | None = None, out=None):
        self.unit = unit
        self.out = out or sys.stdout
        self._state = "idle"
        self._started = time.monotonic()

    @property
    def _unit(self) -> Unit:
        # Given to __init__, or to __call__ before any key or drawing.
        assert self.unit is not None, "the terminal ui has no unit"
        return self.unit

    def handle_key(self, key: str) -> bool:
        """Act on one key; False when it means quit."""
        action = self.KEYS.get(key.lower())
        try:
            if action == "quit":
                return False
            if action == "timer":
                self._unit.bench.press_timer()
            elif action in ("a", "b"):
                self._unit.bench.tap(action)
            elif action == "cancel":
                self._unit.cancel()
        except UnitError as exc:
            self._print(f"{exc.code}: {exc}")
        return True

    def show(self, event) -> None:
        """Print one unit event (taken from the mailbox) above the status line;
        a state change shows in the status line."""
        if event.name == EventName.STATE:
            self._state = event.data["state"]
            self.draw()
        else:
            self._print(event_line(event.name, event.data))

    def _print(self, text: str) -> None:
        stamp = time.monotonic() - self._started
        self.out.write(f"\r\x1b[K{stamp:8.3f} s  {text}\n")
        self.draw()

    def draw(self) -> None:
        board = self._unit.board
        if board is None:
            return
        self.out.write(f"\r\x1b[K{status_line(pin_states(board), self._state)}")
        self.out.flush()

    def __call__(self, unit: Unit, mailbox: Mailbox) -> None:
        """Run on the terminal until ``q`` or the daemon stops the ui."""
        self.unit = unit
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        unsubscribe = unit.subscribe(mailbox.put)  # the loop thread only enqueues
        try:
            tty.setcbreak(fd)
            self.out.write(f"mock unit on the keyboard: {self.HELP}\n")
            self.draw()
            while not mailbox.stop_requested:
                active = self._state not in ("idle", "armed", "fault")
                ready, _, _ = select.select(
                    [fd, mailbox], [], [], self.REFRESH_S if active else None
                )
                for event in mailbox.take():
                    self.show(event)
                if fd in ready:
                    key = os.read(fd, 1).decode(errors="replace")
                    if not key or not self.handle_key(key):
                        break
                self.draw()
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
            unsubscribe()
            self.out.write("\n")
            self.out.flush()


def print_events(unit: Unit, mailbox: Mailbox, out=None) -> None:
    """Headless mock run: each event as a plain line, until the daemon stops
    the ui (``mailbox.request_stop()``)."""
    out = out or sys.stdout
    started = time.monotonic()
    unsubscribe = unit.subscribe(mailbox.put)  # the loop thread only enqueues
    # Said only now: the daemon's signal handlers are in place.
    out.write("mock unit running headless (stdin is not a terminal); SIGTERM or Ctrl-C stops it\n")
    out.flush()
    try:
        while True:
            for event in mailbox.take():
                if event.name != EventName.STATE:
                    out.write(
                        f"{time.monotonic() - started:8.3f} s  "
                        f"{event_line(event.name, event.data)}\n"
                    )
            out.flush()
            if mailbox.stop_requested:  # after the events that came before it
                return
            mailbox.wait()
    finally:
        unsubscribe()


def add_arguments(parser) -> None:
    add_config_argument(parser)
    parser.add_argument(
        "--mock",
        action="store_true",
        help="mock pins instead of GPIO; on a terminal the keyboard plays the table",
    )
    parser.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="serve the protocol over TCP here (default: server.listen, "
        '127.0.0.1:7700; port 0 picks a free one; "" for no TCP)',
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        default=None,
        help="allow a --listen address that is not loopback (needs --token-file)",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help="file with the token TCP clients must send with auth, on one "
        "line (others may not read it; its group may)",
    )
    parser.add_argument(
        "--serial",
        metavar="DEVICE",
        help="also serve the protocol on this serial device (pyserial)",
    )
    parser.add_argument("--baud", type=int, metavar="N", help="serial speed (default: server.baud)")
    parser.add_argument(
        "--journal",
        metavar="PATH",
        help="results journal (default: journal.path, else $STATE_DIRECTORY, "
        "or a temp dir with --mock)",
    )


def command(args) -> int:
    from firmware_host.service import daemon  # the service: unit, journal, server, systemd

    sources = {
        f"server.{key}": daemon.COMMAND_LINE
        for key in ("listen", "allow_remote", "token_file", "serial", "baud")
        if getattr(args, key, None) is not None
    }

    def load():
        return daemon.apply_flags(load_config(args.config, system=True), args)

    try:
        config = load()
        links = daemon.check_links(
            config, sources=sources, default_source=daemon.config_source(args.config)
        )
    except ConfigError as exc:
        raise CommandError(str(exc), daemon.EX_CONFIG) from None
    ui = None
    if args.mock:
        ui = TerminalUI() if sys.stdin.isatty() else print_events
    try:
        status = daemon.Daemon(config, links, load=load, ui=ui).run()
    except JournalLockedError as exc:
        # Another daemon serves this journal: no restart helps.
        raise CommandError(str(exc), daemon.EX_CONFIG) from None
    except (PinBackendError, OSError, JournalError, UnitError) as exc:
        raise CommandError(str(exc)) from None
    if args.mock:
        print("stopped: outputs safe", flush=True)
    return status
