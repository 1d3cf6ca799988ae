"""``showdown-unit run``: the unit as a service, until told to stop.

:func:`command` loads the config, applies the flags and makes the daemon's
start checks (:func:`~firmware_host.service.daemon.check_start`, which
``check-config`` makes too): a config it cannot use is one line and exit 78,
so systemd does not restart it, as is a port another program holds (the line
says how to choose another). Then it runs a
:class:`~firmware_host.service.daemon.Daemon`: the unit, its journal, the protocol
server over TCP and serial, systemd notifications, SIGTERM/SIGINT (outputs
safe, exit 0) and SIGHUP (reload).

With ``--mock`` on a terminal the keyboard plays the table (the keyboard
bench, :class:`TerminalUI`): space or ``t`` is the timer button, ``a`` and
``l`` (or ``b``) tap the paddles, ``c`` cancels, ``?`` shows the keys, ``q``
quits. It prints where it serves the protocol (the real port for ``:0``) and
where the results go; the last line is a status line (the outputs and the
state), redrawn whenever it changes; events, each press with its time from GO
and the log lines print above it. Without a terminal it runs headless,
printing the events. Both print each event in the words of
:func:`firmware_host.people.words.event_line`. The unit's subscriber only
puts each event in the ui thread's :class:`~firmware_host.core.mailbox.Mailbox`,
and while the keyboard bench runs, so does the logging of every thread; the ui
thread does the printing, so a terminal that is slow, or not read at all,
never holds up the unit's loop (a decision, or the motor's cut-off), and
nothing else writes between the status line and its end.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import sys
import termios
import threading
import time
import tty
from typing import ClassVar

from firmware_host.core.bench import PinLevels, pin_states
from firmware_host.core.errors import UnitError
from firmware_host.core.mailbox import Mailbox
from firmware_host.core.unit import Unit
from firmware_host.people.console import CommandError
from firmware_host.people.words import event_line, ms
from firmware_host.protocol import EventName
from firmware_host.service.config import ConfigError, add_config_argument, load_config
from firmware_host.service.journal import JournalError, JournalLockedError
from hw.pins import PinBackendError

__all__ = ["status_line", "TerminalUI", "print_events", "add_arguments", "command"]


# -- the outputs on one line ---------------------------------------------------------


def status_line(pins: PinLevels, state: str) -> str:
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
    the last line of the terminal is the status line (the outputs and the
    state), redrawn whenever it changes, and everything else (events, each
    press and its time from GO, the keys, log lines) prints above it. Only
    the ui thread writes to the terminal while it runs: the unit's loop and
    the logging of every other thread only put into its mailbox."""

    KEYS: ClassVar[dict[str, str]] = {
        " ": "timer",
        "t": "timer",
        "a": "a",
        "l": "b",
        "b": "b",
        "c": "cancel",
        "?": "help",
        "h": "help",
        "q": "quit",
    }
    #: What ``?`` prints: (keys, what they do); every line fits 80 columns.
    KEY_HELP: ClassVar[tuple[tuple[str, str], ...]] = (
        ("space, t", "timer button: starts the countdown (in idle, arms a showdown first)"),
        ("a", "paddle A: a tap (pressed now, let go 0.15 s later)"),
        ("l, b", "paddle B: a tap"),
        ("c", "cancel the showdown: motor off, back to idle"),
        ("?, h", "these keys"),
        ("q", "quit (outputs safe); Ctrl-C too"),
    )
    HEADER = "mock unit on the keyboard: ? shows the keys, q quits"
    POLL_S = 0.05  # how often the status line is compared with the pins

    def __init__(self, unit: Unit | None = None, out=None):
        self.unit = unit
        self.out = out or sys.stdout
        self._state = "idle"
        self._status: str | None = None  # what the status line shows now
        self._go_tick: float | None = None  # this round's GO, once it came
        self._mailbox: Mailbox | None = None  # set while the ui runs
        self._lock = threading.Lock()  # guards _mailbox against log_line
        self._started = time.monotonic()

    @property
    def _unit(self) -> Unit:
        # Given to __init__, or to __call__ before any key or drawing.
        assert self.unit is not None, "the terminal ui has no unit"
        return self.unit

    # -- keys ------------------------------------------------------------------

    def handle_key(self, key: str) -> bool:
        """Act on one key; False when it means quit."""
        action = self.KEYS.get(key.lower())
        try:
            if action == "quit":
                return False
            if action == "help":
                self.show_keys()
            elif action == "timer":
                self._unit.bench.press_timer()
            elif action in ("a", "b"):
                placed = self._unit.bench.tap(action)
                # The tap ran on the unit's loop, after every event before it:
                # with those shown, this round's GO (if any) is known.
                self._show_waiting()
                self._print(self.press_text(action, placed["tick"]))
            elif action == "cancel":
                self._unit.cancel()
        except UnitError as exc:
            self._print(f"{exc.code}: {exc}")
        return True

    def show_keys(self) -> None:
        """Print the keys above the status line."""
        width = max(len(keys) for keys, _ in self.KEY_HELP)
        lines = [f"  {keys:<{width}}  {meaning}" for keys, meaning in self.KEY_HELP]
        self._print("keys:\n" + "\n".join(lines), stamp=False)

    def press_text(self, side: str, tick: float) -> str:
        """A paddle press and its time from this round's GO."""
        paddle = f"press     paddle {side.upper()}"
        board = self._unit.board
        if self._go_tick is not None and board is not None:
            after_us = round(board.ticks_diff(tick, self._go_tick) * 1e6)
            return f"{paddle}: {ms(after_us)} after GO"
        if self._state in ("countdown", "hold"):
            return f"{paddle}: before GO"
        if self._state in ("idle", "armed"):
            return f"{paddle} (no countdown running)"
        return f"{paddle} (no GO this round)"

    # -- what the terminal shows -------------------------------------------------

    def show(self, event) -> None:
        """Print one unit event (taken from the mailbox) above the status line;
        a state change shows in the status line."""
        if event.name == EventName.STATE:
            self._state = event.data["state"]
            if self._state == "idle":
                self._go_tick = None
            self.draw()
            return
        if event.name == EventName.COUNTDOWN and event.data["step"] == 1:
            self._go_tick = None  # a new round (a re-run too)
        elif event.name == EventName.GO:
            self._go_tick = event.data["ticks"]
        self._print(event_line(event.name, event.data))

    def log_line(self, text: str) -> None:
        """A log line from any thread: printed above the status line by the
        ui thread while it runs, else straight to stderr."""
        with self._lock:
            if self._mailbox is not None:
                self._mailbox.put(_LogLine(text))
                return
            sys.stderr.write(text + "\n")
            sys.stderr.flush()

    def _print(self, text: str, *, stamp: bool = True) -> None:
        if stamp:
            text = f"{time.monotonic() - self._started:8.3f} s  {text}"
        self.out.write(f"\r\x1b[K{text}\n")
        self._status = None  # the line it was on is gone: draw it again
        self.draw()

    def draw(self) -> None:
        """Draw the status line if it changed (or was overwritten)."""
        board = self._unit.board
        if board is None:
            return
        text = status_line(pin_states(board), self._state)
        if text != self._status:
            self.out.write(f"\r\x1b[K{text}")
            self._status = text
        self.out.flush()

    def _take(self, item) -> None:
        if isinstance(item, _LogLine):
            self._print(item.text, stamp=False)
        else:
            self.show(item)

    def _show_waiting(self) -> None:
        if self._mailbox is not None:
            for item in self._mailbox.take():
                self._take(item)

    # -- running -------------------------------------------------------------------

    @contextlib.contextmanager
    def holding_logs(self):
        """While in this block, the root logger's lines to stderr go through
        :meth:`log_line` (so they never land on the status line); its
        handlers are put back after."""
        root = logging.getLogger()
        replaced = [
            handler
            for handler in root.handlers
            if isinstance(handler, logging.StreamHandler)
            and getattr(handler, "stream", None) in (sys.stderr, sys.__stderr__)
        ]
        ours = _UIHandler(self)
        if replaced:
            ours.setFormatter(replaced[0].formatter)
            ours.setLevel(replaced[0].level)
        for handler in replaced:
            root.removeHandler(handler)
        root.addHandler(ours)
        try:
            yield self
        finally:
            root.removeHandler(ours)
            for handler in replaced:
                root.addHandler(handler)

    def __call__(
        self, unit: Unit, mailbox: Mailbox, *, serving: str = "", journal: str = ""
    ) -> None:
        """Run on the terminal until ``q`` or the daemon stops the ui.
        ``serving``: the links as open (printed first); ``journal``: where
        the results go."""
        self.unit = unit
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        unsubscribe = unit.subscribe(mailbox.put)  # the loop thread only enqueues
        with self._lock:
            self._mailbox = mailbox  # from now on only this thread writes
        try:
            tty.setcbreak(fd)
            self.out.write(f"{self.HEADER}\n")
            if serving:
                self.out.write(f"protocol: {serving}\n")
            if journal:
                self.out.write(f"results journal: {journal}\n")
            self.draw()
            while not mailbox.stop_requested:
                ready, _, _ = select.select([fd, mailbox], [], [], self.POLL_S)
                self._show_waiting()
                if fd in ready:
                    key = os.read(fd, 1).decode(errors="replace")
                    if not key or not self.handle_key(key):
                        break
                self.draw()
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
            unsubscribe()
            with self._lock:  # what is still queued, then stderr again
                self._show_waiting()
                self._mailbox = None
                self.out.write("\n")
                self.out.flush()


class _LogLine:
    """A formatted log record on its way to the ui thread."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class _UIHandler(logging.Handler):
    """Log records as lines of a :class:`TerminalUI` (see ``holding_logs``)."""

    def __init__(self, ui: TerminalUI):
        super().__init__()
        self.ui = ui

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.ui.log_line(self.format(record))
        except Exception:
            self.handleError(record)


def print_events(
    unit: Unit, mailbox: Mailbox, out=None, *, serving: str = "", journal: str = ""
) -> None:
    """Headless mock run: each event as a plain line, until the daemon stops
    the ui (``mailbox.request_stop()``). ``serving`` and ``journal`` as for
    :class:`TerminalUI`."""
    out = out or sys.stdout
    started = time.monotonic()
    unsubscribe = unit.subscribe(mailbox.put)  # the loop thread only enqueues
    # Said only now: the daemon's signal handlers are in place.
    out.write("mock unit running headless (stdin is not a terminal); SIGTERM or Ctrl-C stops it\n")
    if serving:
        out.write(f"protocol: {serving}\n")
    if journal:
        out.write(f"results journal: {journal}\n")
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
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="with --mock: seed the unit's random draws (the hold before GO, the bots' "
        "reactions), so a demo or a test plays the same showdowns each time",
    )


def command(args) -> int:
    from firmware_host.service import daemon  # the service: unit, journal, server, systemd

    flags = {
        "server.listen": args.listen,
        "server.allow_remote": args.allow_remote,
        "server.token_file": args.token_file,
        "server.serial": args.serial,
        "server.baud": args.baud,
        "journal.path": args.journal or None,
        "backend": True if args.mock else None,
    }
    sources = {key: daemon.COMMAND_LINE for key, value in flags.items() if value is not None}
    default_source = daemon.config_source(args.config)

    def load():
        return daemon.apply_flags(load_config(args.config, system=True), args)

    if args.seed is not None and not args.mock:
        # A real unit's draws stay unpredictable: nobody may learn the bots' timing.
        raise CommandError("--seed is only for --mock (a unit on mock pins)", daemon.EX_CONFIG)
    try:
        config = load()
        checked = daemon.check_start(config, sources=sources, default_source=default_source)
    except daemon.JournalPlaceError as exc:
        raise CommandError(str(exc)) from None  # perhaps not mounted yet: systemd retries
    except ConfigError as exc:
        raise CommandError(str(exc), daemon.EX_CONFIG) from None
    terminal = TerminalUI() if args.mock and sys.stdin.isatty() else None
    shown = terminal if terminal is not None else print_events

    def ui(unit: Unit, mailbox: Mailbox) -> None:
        shown(unit, mailbox, serving=service.serving(), journal=str(checked.journal))

    service = daemon.Daemon(
        config, checked.links, load=load, ui=ui if args.mock else None, seed=args.seed
    )
    try:
        with terminal.holding_logs() if terminal is not None else contextlib.nullcontext():
            status = service.run()
    except JournalLockedError as exc:
        # Another daemon serves this journal: no restart helps.
        raise CommandError(str(exc), daemon.EX_CONFIG) from None
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE and checked.links.listen is not None:
            host, port = checked.links.listen
            source = sources.get("server.listen", default_source)
            raise CommandError(
                f"{source}: server.listen: {host}:{port} is in use (another unit daemon?): "
                f"choose another with --listen {host}:0 or stop the other one",
                daemon.EX_CONFIG,
            ) from None
        raise CommandError(str(exc)) from None
    except (PinBackendError, JournalError, UnitError) as exc:
        raise CommandError(str(exc)) from None
    if args.mock:
        print("stopped: outputs safe", flush=True)
    return status
