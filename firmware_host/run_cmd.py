"""``showdown-unit run``: the unit on its own, on its pins, until told to stop.

:func:`serve` is the daemon's skeleton: build the :class:`Unit`, attach what
else should run with it (the protocol server plugs in through ``attach``),
and block until SIGTERM or SIGINT, which only wake the main thread; the unit
then closes, making the outputs safe (motor first), and the process exits 0.
Python's default SIGTERM action would skip that cleanup. :func:`command` runs
the whole service instead (:mod:`firmware_host.daemon`: the unit, its journal,
the protocol server over TCP and serial, systemd notifications, SIGHUP reload).

With ``--mock`` on a terminal the keyboard plays the table: space or ``t`` is
the timer button, ``a`` and ``l`` (or ``b``) tap the paddles, ``c`` cancels,
``q`` quits; one refreshing line shows the outputs and events scroll above it.
Without a terminal it runs headless, printing the events.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import termios
import threading
import time
import tty

from hw.pins import PinBackendError

from firmware_host.bench import pin_states
from firmware_host.config import ConfigError, load_config
from firmware_host.errors import UnitError
from firmware_host.journal import JournalError
from firmware_host.unit import Unit

__all__ = ["StopSignal", "serve", "describe", "status_line", "TerminalUI",
           "add_arguments", "command"]


class StopSignal:
    """A stop request that SIGTERM/SIGINT or :meth:`request` raise, and a
    file descriptor that becomes readable when they do (so ``select`` can
    wait on it with the keyboard). The signal handler only writes one byte."""

    def __init__(self):
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self.signum: int | None = None
        self._previous: dict[int, object] = {}

    def fileno(self) -> int:
        return self._read

    def request(self, signum: int | None = None, frame=None) -> None:
        if signum is not None:
            self.signum = signum
        with contextlib.suppress(BlockingIOError):
            os.write(self._write, b"\0")

    @property
    def requested(self) -> bool:
        return bool(select.select([self._read], [], [], 0)[0])

    def wait(self, timeout: float | None = None) -> bool:
        """Block until a stop is requested (True) or ``timeout`` passes."""
        return bool(select.select([self._read], [], [], timeout)[0])

    @contextlib.contextmanager
    def installed(self):
        """SIGTERM and SIGINT request a stop while inside (main thread only)."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            self._previous[signum] = signal.signal(signum, self.request)
        try:
            yield self
        finally:
            for signum, handler in self._previous.items():
                signal.signal(signum, handler)
            self._previous.clear()

    def close(self) -> None:
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)


def serve(config, *, pin_factory=None, attach=(), ui=None, stop: StopSignal | None = None) -> int:
    """Run the unit until a stop signal; returns the exit status (0).

    ``attach`` holds callables ``fn(unit, stop)`` started once the unit is
    open; each may return a function that stops it again (called in reverse
    order before the unit closes). ``ui(unit, stop)``, if given, runs in the
    main thread instead of the plain wait and returns when the user quits.
    """
    stop = stop or StopSignal()
    try:
        with stop.installed(), Unit(config, pin_factory=pin_factory) as unit:
            closers = []
            try:
                for start in attach:
                    closer = start(unit, stop)
                    if closer is not None:
                        closers.append(closer)
                if ui is not None:
                    ui(unit, stop)
                else:
                    stop.wait()
            finally:
                for closer in reversed(closers):
                    closer()
    finally:
        stop.close()
    return 0


# -- words for what happens -------------------------------------------------------

def describe(event) -> str | None:
    """One line of text for a UnitEvent (None for state changes)."""
    data = event.data
    name = event.name
    if name == "armed":
        players = data["players"]
        return (f"armed     {data['showdown_id']}: {_cards(data['cards'])}, "
                f"{players['a']} (a) vs {players['b']} (b)")
    if name == "countdown":
        rerun = f" (re-run {data['rerun']})" if data["rerun"] else ""
        return f"countdown {data['step']}/{data['steps']}{rerun}"
    if name == "go":
        return "GO"
    if name == "false_start":
        return f"FALSE START by side {data['side']}"
    if name == "tie":
        verdict = "void" if data["void"] else f"re-run {data['rerun']}"
        return f"tie       {data['gap_us']} us apart: {verdict}"
    if name == "paddle_held":
        return f"paddle {data['side']} is held down: release it to start"
    if name == "launched":
        counted = "counted" if data["verified"] else "not counted (no sensor)"
        if data["outcome"] == "jam":
            counted = "JAM: not all counted"
        return f"launched  {_cards(data['cards'])} toward {data['side']}, {counted}"
    if name == "result":
        from firmware_host.result import Result
        result = Result.from_dict(data)
        reactions = ", ".join(f"{side} {'-' if us is None else f'{us / 1000:.1f} ms'}"
                              for side, us in result.reaction_us.items())
        return f"result    {result} (reactions: {reactions})"
    if name == "cancelled":
        return f"cancelled {data['showdown_id']}"
    if name == "fault":
        return f"FAULT     {data['reason']}"
    return None


def _cards(count: int) -> str:
    return f"{count} card{'' if count == 1 else 's'}"


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
    return (f"bar [{bar}]  GO {'*' if pins['go'] else '.'}  arrow {arrow}  "
            f"buzz {'*' if pins['buzzer'] else '.'}  motor {motor}  | {state}")


# -- the keyboard on mock pins ---------------------------------------------------------

class TerminalUI:
    """Keys press the mock pins (through the unit's bench, on the real clock);
    one line shows the outputs, refreshed while a showdown runs."""

    KEYS = {" ": "timer", "t": "timer", "a": "a", "l": "b", "b": "b", "c": "cancel", "q": "quit"}
    HELP = "space/t timer button, a and l paddles, c cancel, q quit"
    REFRESH_S = 0.05            # only while a showdown runs, for the flashing LEDs

    def __init__(self, unit: Unit | None = None, out=None):
        self.unit = unit
        self.out = out or sys.stdout
        self._lock = threading.Lock()
        self._state = "idle"
        self._started = time.monotonic()

    def handle_key(self, key: str) -> bool:
        """Act on one key; False when it means quit."""
        action = self.KEYS.get(key.lower())
        try:
            if action == "quit":
                return False
            if action == "timer":
                self.unit.bench.press_timer()
            elif action in ("a", "b"):
                self.unit.bench.tap(action)
            elif action == "cancel":
                self.unit.cancel()
        except UnitError as exc:
            self._print(f"{exc.code}: {exc}")
        return True

    def on_event(self, event) -> None:
        if event.name == "state":
            self._state = event.data["state"]
        text = describe(event)
        if text is not None:
            self._print(text)
        else:
            self.draw()

    def _print(self, text: str) -> None:
        stamp = time.monotonic() - self._started
        with self._lock:
            self.out.write(f"\r\x1b[K{stamp:8.3f} s  {text}\n")
        self.draw()

    def draw(self) -> None:
        board = self.unit.board
        if board is None:
            return
        with self._lock:
            self.out.write(f"\r\x1b[K{status_line(pin_states(board), self._state)}")
            self.out.flush()

    def __call__(self, unit: Unit, stop: StopSignal) -> None:
        """Run on the terminal until ``q`` or a stop signal."""
        self.unit = unit
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        unsubscribe = unit.subscribe(self.on_event)
        try:
            tty.setcbreak(fd)
            self.out.write(f"mock unit on the keyboard: {self.HELP}\n")
            self.draw()
            while True:
                active = self._state not in ("idle", "armed", "fault")
                ready, _, _ = select.select([fd, stop], [], [], self.REFRESH_S if active else None)
                if stop in ready:
                    break
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


def _print_events(unit: Unit, stop: StopSignal) -> None:
    """Headless mock run: events as plain lines."""
    started = time.monotonic()

    def show(event):
        text = describe(event)
        if text is not None:
            print(f"{time.monotonic() - started:8.3f} s  {text}", flush=True)
    unsubscribe = unit.subscribe(show)
    # Said only now: the signal handlers are in place.
    print("mock unit running headless (stdin is not a terminal); "
          "SIGTERM or Ctrl-C stops it", flush=True)
    try:
        stop.wait()
    finally:
        unsubscribe()


def add_arguments(parser) -> None:
    parser.add_argument("--config", metavar="FILE",
                        help="config file (default: /etc/uno-showdown/unit.toml if present)")
    parser.add_argument("--mock", action="store_true",
                        help="mock pins instead of GPIO; on a terminal the keyboard plays the table")
    parser.add_argument("--listen", metavar="HOST:PORT",
                        help='serve the protocol over TCP here (default: server.listen, '
                             '127.0.0.1:7700; port 0 picks a free one; "" for no TCP)')
    parser.add_argument("--allow-remote", action="store_true", default=None,
                        help="allow a --listen address that is not loopback (needs --token-file)")
    parser.add_argument("--token-file", metavar="FILE",
                        help="file with the token TCP clients must send with auth "
                             "(mode 600: readable only by the service user)")
    parser.add_argument("--serial", metavar="DEVICE",
                        help="also serve the protocol on this serial device (pyserial)")
    parser.add_argument("--baud", type=int, metavar="N", help="serial speed (default: server.baud)")
    parser.add_argument("--journal", metavar="PATH",
                        help="results journal (default: journal.path, else $STATE_DIRECTORY, "
                             "or a temp dir with --mock)")


def command(args) -> int:
    from firmware_host import daemon      # the service: unit, journal, server, systemd

    sources = {f"server.{key}": daemon.COMMAND_LINE for key in
               ("listen", "allow_remote", "token_file", "serial", "baud")
               if getattr(args, key, None) is not None}

    def load():
        return daemon.apply_flags(load_config(args.config, system=True), args)
    try:
        config = load()
        links = daemon.check_links(config, sources=sources,
                                   default_source=daemon.config_source(args.config))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return daemon.EX_CONFIG
    ui = None
    if args.mock:
        ui = TerminalUI() if sys.stdin.isatty() else _print_events
    try:
        status = daemon.Daemon(config, links, load=load, ui=ui).run()
    except (PinBackendError, OSError, JournalError, UnitError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.mock:
        print("stopped: outputs safe", flush=True)
    return status
