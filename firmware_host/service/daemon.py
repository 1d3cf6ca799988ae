"""The unit as a service: the unit, its journal, the protocol server, systemd and
signals, wired together. ``showdown-unit run`` checks the config with
:func:`check_start` (what ``showdown-unit check-config`` checks too), builds a
:class:`Daemon` and calls :meth:`Daemon.run`.

Threads, and the one job of each:

- **main**: this module. Starts everything, sends ``READY=1``, then waits on
  the control :class:`~firmware_host.core.mailbox.Mailbox`. Signals reach it there
  through :func:`signal.set_wakeup_fd` (SIGTERM/SIGINT: stop, SIGHUP:
  reload), so one that lands at any moment, even just before the main thread
  blocks or on another thread, wakes it; the unit subscriber below and the
  ui thread put their items there too. The main thread does the reloads,
  the ``STATUS=`` updates and the shutdown.
- **showdown-loop**: the :class:`~firmware_host.core.unit.Unit`'s event loop. It
  runs the state machine, writes each decision to the journal before anything
  moves and each launch outcome after (the :class:`JournalWriter` recorder),
  and paces the systemd watchdog, so a hung loop stops the pings. Its
  subscribers only enqueue.
- **server-io** and **server-commands**: the protocol server
  (:mod:`firmware_host.service.transports`, :mod:`firmware_host.service.server`),
  and **server-history** once a client asked for ``history``
  (:mod:`firmware_host.service.history_reader`).
- **ui** (``--mock`` only): the keyboard table or the headless event printer.

The threads hand the GIL on within :data:`SWITCH_INTERVAL_S` (Python's own
default is 5 ms): a thread busy in Python, the history reader working through
1,000 results, would otherwise hold off each thread a request passes through
(the I/O thread, the command worker, the loop) up to 5 ms at every hand-off,
20 ms at the p99 of a ``status`` while history requests loop
(benchmarks/history_load.py; docs/performance.md).

On SIGTERM: ``STOPPING=1``, stop accepting clients, cancel what runs (motor
off first; a launch cut short is journaled as cancelled), close the unit
(outputs safe, their levels logged), close the links, exit 0.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import logging
import os
import random
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from firmware_host.core.errors import BusyError, UnitError
from firmware_host.core.machine import RecordFailed
from firmware_host.core.mailbox import Mailbox
from firmware_host.core.unit import Unit
from firmware_host.protocol import DEFAULT_MAX_LINE_BYTES, auth_line_bytes, token_from_text
from firmware_host.service.config import SYSTEM_CONFIG, ConfigError, UnitConfig, load_config
from firmware_host.service.journal import Journal, JournalError, JournalLock, default_journal_path
from firmware_host.service.sdnotify import Notifier, WatchdogPacer
from firmware_host.service.server import Server
from firmware_host.service.transports import Reactor, is_loopback, parse_address
from hw.pins import make_pin_factory

__all__ = [
    "Daemon",
    "Links",
    "Checked",
    "JournalPlaceError",
    "JournalWriter",
    "EX_CONFIG",
    "apply_flags",
    "check_start",
    "check_links",
    "check_journal",
    "check_backend",
    "read_token",
    "journal_path",
    "restart_keys",
    "config_source",
]

log = logging.getLogger(__name__)

#: sysexits.h EX_CONFIG: the service unit's RestartPreventExitStatus.
EX_CONFIG = 78
#: The daemon's ``sys.setswitchinterval``, seconds (see the module's docstring).
SWITCH_INTERVAL_S = 0.0005
COMMAND_LINE = "<command line>"

# What each signal the daemon handles asks the main thread to do.
_SIGNAL_ITEMS: dict[int, tuple[str | signal.Signals, ...]] = {
    signal.SIGTERM: ("stop", signal.SIGTERM),
    signal.SIGINT: ("stop", signal.SIGINT),
    signal.SIGHUP: ("reload",),
}

# flag attribute -> [server] key it overrides
_SERVER_FLAGS = {
    "listen": "listen",
    "allow_remote": "allow_remote",
    "token_file": "token_file",
    "serial": "serial",
    "baud": "baud",
}

# What signal.signal takes and returns.
_SignalHandler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


def config_source(path) -> str:
    """The file ``load_config(path, system=True)`` reads on top of the default."""
    if path is not None:
        return str(path)
    return str(SYSTEM_CONFIG) if SYSTEM_CONFIG.exists() else "<packaged default.toml>"


def apply_flags(config: UnitConfig, args) -> UnitConfig:
    """``config`` with the ``run`` flags on top (``--mock``, ``--listen``,
    ``--allow-remote``, ``--token-file``, ``--serial``, ``--baud``,
    ``--journal``); a flag that was not given changes nothing. A value that
    no config could hold is a ConfigError naming the flag."""
    if getattr(args, "mock", False):
        config = config.replace(backend="mock")
    changes = {
        key: getattr(args, flag)
        for flag, key in _SERVER_FLAGS.items()
        if getattr(args, flag, None) is not None
    }
    baud = changes.get("baud")
    if baud is not None and not 50 <= baud <= 4_000_000:
        raise ConfigError(f"{COMMAND_LINE}: --baud: must be 50 to 4000000, not {baud}")
    if changes:
        config = config.replace(server=dataclasses.replace(config.server, **changes))
    if getattr(args, "journal", None):
        config = config.replace(journal=dataclasses.replace(config.journal, path=args.journal))
    return config


@dataclass(frozen=True)
class Links:
    """What the server opens: a TCP address (None: no TCP), the token TCP
    clients must send (None: no auth), a serial device (None: no serial)."""

    listen: tuple[str, int] | None
    token: str | None
    serial: str | None
    baud: int

    def __str__(self) -> str:
        parts = [f"tcp {self.listen[0]}:{self.listen[1]}"] if self.listen else []
        parts += [f"serial {self.serial}"] if self.serial else []
        return ", ".join(parts) or "no links"


class JournalPlaceError(ConfigError):
    """The journal's file or folder cannot be used, perhaps not yet (a
    folder on a drive not mounted yet): ``run`` exits 1, so systemd tries
    again, where another ConfigError is exit 78."""


@dataclass(frozen=True)
class Checked:
    """What :func:`check_start` found: the links to open and the journal's file."""

    links: Links
    journal: Path


def check_start(
    config: UnitConfig, *, sources: dict[str, str] | None = None, default_source: str = "<config>"
) -> Checked:
    """Every check the daemon makes before it opens anything, in one place:
    ``showdown-unit run`` calls it before it starts the daemon (a ConfigError
    is exit 78, which systemd does not retry; a :class:`JournalPlaceError`
    exit 1, retried) and ``showdown-unit check-config`` calls it too (exit
    1), so the two cannot disagree.

    In order: the addresses and the token file (:func:`check_links`), the
    journal's file and folder (:func:`check_journal`), the pin backend's
    library (:func:`check_backend`). The pin map itself (a BCM pin 0-27 for
    every device, no pin used twice) is checked as the config is loaded
    (:class:`~hw.pinmap.PinMap`), which both do with the same
    :func:`~firmware_host.service.config.load_config`. Nothing is opened or
    created. ``sources`` maps ``section.key`` to where it was set (for the
    error message); any other key is blamed on ``default_source``."""
    sources = sources or {}
    links = check_links(config, sources=sources, default_source=default_source)
    journal = check_journal(config, source=sources.get("journal.path", default_source))
    check_backend(config, source=sources.get("backend", default_source))
    return Checked(links, journal)


def check_links(
    config: UnitConfig, *, sources: dict[str, str] | None = None, default_source: str = "<config>"
) -> Links:
    """The links ``config.server`` asks for, or a ConfigError: an address
    that is not loopback without ``allow_remote`` and a token, a token file
    that :func:`read_token` refuses. ``sources`` maps ``server.<key>`` to
    where it was set, for the error message."""
    sources = sources or {}

    def fail(key: str, message: str) -> NoReturn:
        raise ConfigError(
            f"{sources.get(f'server.{key}', default_source)}: server.{key}: {message}"
        )

    server = config.server
    listen = token = None
    if server.listen:
        try:
            listen = parse_address(server.listen)
        except ValueError as exc:
            fail("listen", str(exc))
        if not is_loopback(listen[0]) and not server.allow_remote:
            fail(
                "listen",
                f"{server.listen} is not a loopback address; serving other hosts "
                "needs --allow-remote (server.allow_remote) and --token-file "
                "(server.token_file)",
            )
    if server.token_file:
        try:
            token = read_token(server.token_file, max_line_bytes=server.max_line_bytes)
        except ValueError as exc:
            fail("token_file", str(exc))
    if listen is not None and not is_loopback(listen[0]) and token is None:
        fail(
            "listen",
            f"{server.listen} is not loopback, so clients must authenticate: "
            "give --token-file FILE (server.token_file), which others may not read",
        )
    return Links(listen, token, server.serial or None, server.baud)


def read_token(path, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> str:
    """The token in ``path``, read as the engine reads it
    (:func:`~firmware_host.protocol.token_from_text`: one line, surrounding
    white space dropped). ValueError if the file is missing, not UTF-8, not
    one line of a token, readable or writable by others (its group may read
    it: that is how the Pi install lets people command the unit), or too long
    for an ``auth`` line within ``max_line_bytes``."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
        data = path.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if mode & stat.S_IRWXO:
        raise ValueError(
            f"{path}: mode {stat.S_IMODE(mode):04o} lets others use it; chmod o-rwx {path}"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path}: not UTF-8 text (byte {exc.start}: {data[exc.start]:#04x})"
        ) from None
    token = token_from_text(text, str(path))
    if auth_line_bytes(token) > max_line_bytes:
        raise ValueError(
            f"{path}: the token is too long: its auth line would be "
            f"{auth_line_bytes(token)} bytes, more than server.max_line_bytes "
            f"({max_line_bytes})"
        )
    return token


def journal_path(config: UnitConfig) -> Path:
    """Where the daemon's journal is (``--journal`` is ``journal.path`` by now)."""
    return default_journal_path(config.journal.path, mock=config.backend == "mock")


def check_journal(config: UnitConfig, *, source: str = "<config>") -> Path:
    """The journal's file (:func:`journal_path`), or a
    :class:`JournalPlaceError` if the daemon could not keep it there: a
    folder where the file should be, a file or folder it may not write
    (SQLite puts its ``-wal`` file and the daemon its ``.lock`` next to the
    journal), or a folder it cannot make. A
    ``journal.path`` (or ``--journal``) the config names may need its own
    folder made, never more: a mistyped path is refused rather than creating
    folders anywhere. A default place (``journal.path`` empty) may need its
    parents made too (``~/.local/state`` on a fresh account). The same rule
    as the journal's when it opens; nothing is created here."""
    path = journal_path(config)
    defaults = {default_journal_path("", mock=mock).parent for mock in (False, True)}
    problem = _journal_problem(path, parents=path.parent in defaults)
    if problem is not None:
        default = "" if config.journal.path else " (the default: journal.path is empty)"
        raise JournalPlaceError(f"{source}: journal.path: {path}{default}: {problem}")
    return path


def _journal_problem(path: Path, *, parents: bool) -> str | None:
    """Why the daemon could not keep its journal at ``path``; None if it can."""
    try:
        if path.exists():
            if path.is_dir():
                return "is a folder (journal.path names the journal's file)"
            if not os.access(path, os.R_OK | os.W_OK):
                return "cannot write it: permission denied"
            if not os.access(path.parent, os.W_OK | os.X_OK):
                return f"cannot write in its folder {path.parent}: permission denied"
            return None
        missing, folder = [], path.parent
        while not folder.exists():
            missing.append(folder)
            folder = folder.parent
    except OSError as exc:
        return f"cannot look at it: {exc.strerror or exc}"
    if not folder.is_dir():
        return f"cannot create its folder: {folder} is not a folder"
    if len(missing) > 1 and not parents:
        return (
            f"cannot create its folder: {path.parent.parent} does not exist "
            "(only the journal's own folder is created: check the path)"
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        doing = "create its folder" if missing else "write in its folder"
        return f"cannot {doing}: {folder}: permission denied"
    return _try_folder(missing[-1] if missing else None, folder)


def _try_folder(top_missing: Path | None, folder: Path) -> str | None:
    """Do what the daemon will do, and undo it: make the topmost missing folder
    (then remove it) or a file in the folder. The permission bits are not the
    whole answer: root passes every access check, and a read-only or special
    file system (/proc, a read-only mount) refuses only when asked."""
    try:
        if top_missing is not None:
            top_missing.mkdir(mode=0o700)
            top_missing.rmdir()
        else:
            tempfile.TemporaryFile(dir=folder).close()  # a file made there and gone
    except OSError as exc:
        doing = "create its folder" if top_missing is not None else "write in its folder"
        where = top_missing if top_missing is not None else folder
        return f"cannot {doing}: {where}: {exc.strerror or exc}"
    return None


#: The pin backends that need a library of their own, and that library.
_BACKEND_LIBRARIES = {"lgpio": "lgpio", "rpigpio": "RPi.GPIO"}


def check_backend(config: UnitConfig, *, source: str = "<config>") -> None:
    """A ConfigError if ``backend`` names a pin backend whose library is not
    installed (no restart installs it). Only looked up, never imported or
    opened: "auto" is gpiozero's choice when the daemon starts, and a backend
    that is installed but cannot start (not a Pi, no GPIO access) is the
    daemon's start-up error, which systemd retries."""
    library = _BACKEND_LIBRARIES.get(config.backend)
    if library is None:
        return
    try:
        found = importlib.util.find_spec(library) is not None
    except ImportError:  # its parent package (RPi) is missing
        found = False
    if not found:
        raise ConfigError(
            f"{source}: backend: pin backend {config.backend!r} needs the {library} library, "
            "which is not installed (on a Raspberry Pi: pip install 'uno-showdown[pi]'); "
            'without a Raspberry Pi use --mock (or backend = "mock" in the config)'
        )


def restart_keys(old: UnitConfig, new: UnitConfig) -> list[str]:
    """The changed keys a reload cannot apply: backend, pins, server, journal."""
    keys = ["backend"] if old.backend != new.backend else []
    for section in ("pins", "server", "journal"):
        before, after = getattr(old, section), getattr(new, section)
        keys += [
            f"{section}.{field.name}"
            for field in dataclasses.fields(before)
            if getattr(before, field.name) != getattr(after, field.name)
        ]
    return keys


class JournalWriter:
    """The unit's recorder (:class:`~firmware_host.core.machine.Recorder`): each
    decision, card count and final result into the journal. Open, call and
    close it on the unit's loop thread (``unit.call``). ``lock``: the
    daemon's :class:`JournalLock`; a decision is only recorded while it
    still holds, so two daemons can never both launch on one journal."""

    def __init__(self, path, lock: JournalLock | None = None):
        self.path = path
        self.lock = lock
        self._journal: Journal | None = None
        self._decided: set[str] = set()  # decisions of this run awaiting their outcome

    def open(self) -> None:
        """Open the journal; a decision a crash left without its launch
        outcome is recorded as "interrupted" (and logged) before anything runs."""
        if self._journal is not None:
            return
        self._journal = Journal(self.path)
        for result in self._journal.recover():
            loser = result["loser"]
            log.warning(
                "showdown %s was decided (%s loses) but the unit stopped before its "
                "launch ended: recorded as interrupted",
                result["showdown_id"],
                result["players"][loser] if loser else "nobody",
            )

    def _open_journal(self) -> Journal:
        if self._journal is None:
            raise JournalError(f"{self.path}: the journal is not open")
        return self._journal

    def decided(self, result) -> None:
        with _said_as_a_fault():
            journal = self._open_journal()
            if self.lock is not None and not self.lock.held():
                raise JournalError(
                    f"{self.path}: cannot record the decision of {result.showdown_id!r}: the "
                    "journal's lock file was removed or replaced (another daemon may use it)"
                )
            journal.record_decision(result.to_dict())
        self._decided.add(result.showdown_id)

    def cards_counted(self, showdown_id: str, counted: int) -> None:
        self._open_journal().record_cards(showdown_id, counted)

    def finished(self, result) -> None:
        with _said_as_a_fault():
            journal = self._open_journal()
            if result.showdown_id in self._decided:
                journal.record_outcome(
                    result.showdown_id,
                    result.launch,
                    result.cards_counted,
                    reaction_us=result.reaction_us,
                    margin_us=result.margin_us,
                )
                self._decided.discard(result.showdown_id)
            else:
                journal.record(result.to_dict())

    def close(self) -> None:
        journal, self._journal = self._journal, None
        if journal is not None:
            journal.close()


@contextlib.contextmanager
def _said_as_a_fault():
    """A journal error, whose one line names the file and the showdown, is
    the unit's fault reason as it stands."""
    try:
        yield
    except JournalError as exc:
        raise RecordFailed(str(exc)) from exc


class Daemon:
    """The unit, its journal and its protocol server, until stopped.

    ``config``: the effective config (flags applied), which passed
    :func:`check_start`; ``links``: what that found; ``load``: returns a
    fresh config for SIGHUP (flags applied, ConfigError if bad);
    ``ui(unit, mailbox)``: runs on its own thread (the ``--mock`` keyboard
    or event printer) until
    ``mailbox.stop_requested``, and ends the daemon when it returns; it
    subscribes ``mailbox.put`` to the unit's events and prints them itself;
    ``notifier``: default from ``$NOTIFY_SOCKET``; ``seed``: seeds the unit's
    random draws (``run --mock --seed``; None: unseeded, as on a Pi).
    """

    def __init__(
        self,
        config: UnitConfig,
        links: Links,
        *,
        load: Callable[[], UnitConfig] | None = None,
        ui=None,
        notifier: Notifier | None = None,
        pin_factory=None,
        seed: int | None = None,
    ):
        self.config = config
        self._seed = seed
        self.links = links
        self._load = load or (lambda: load_config(None, system=True))
        self._ui = ui
        self._notifier = notifier if notifier is not None else Notifier.from_environ()
        self._pin_factory = pin_factory
        self._owns_factory = pin_factory is None
        self._control = Mailbox()
        self._previous_handlers: dict[int, _SignalHandler] = {}
        self._previous_wakeup_fd: int | None = None
        self._pending: UnitConfig | None = None
        self._state, self._showdown_id = "idle", None
        self.unit: Unit | None = None
        self.server: Server | None = None
        self.reactor: Reactor | None = None
        self._writer: JournalWriter | None = None
        self._lock: JournalLock | None = None
        self._ui_thread: threading.Thread | None = None
        self._ui_mailbox: Mailbox | None = None

    # -- what other threads may call -------------------------------------------------

    def request_stop(self, signum: int | None = None) -> None:
        """Ask the main thread to stop (what SIGTERM does)."""
        self._control.put(("stop", signum))

    def request_reload(self) -> None:
        """Ask the main thread to reload the config (what SIGHUP does)."""
        self._control.put(("reload",))

    # -- running ---------------------------------------------------------------------

    def run(self) -> int:
        """Start, serve until stopped, shut down; returns the exit status (0).
        Start-up failures raise (PinBackendError, OSError, JournalError, ...)
        after undoing what was started."""
        self._install_signals()
        switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        try:
            self._start()
            self._notifier.ready(status=self.status_text())
            log.info("ready: %s", self.status_text())
            self._serve()
        finally:
            try:
                self._shutdown()
            finally:
                self._restore_signals()
                self._control.close()
                sys.setswitchinterval(switch_interval)
        return 0

    def _start(self) -> None:
        config = self.config
        if self._pin_factory is None:
            self._pin_factory = make_pin_factory(config.backend)
        path = journal_path(config)
        log.info("results journal: %s", path)
        Journal(path).close()  # a journal that cannot be opened fails here, plainly
        self._lock = JournalLock(path)
        self._lock.acquire()  # one daemon per journal: a second one stops here
        self._writer = JournalWriter(path, self._lock)
        pacer = WatchdogPacer(self._notifier, time.monotonic)
        self.unit = Unit(
            config,
            pin_factory=self._pin_factory,
            rng=None if self._seed is None else random.Random(self._seed),
            recorder=self._writer,
            pacers=[pacer],
        ).open()
        self.unit.call(self._writer.open)
        self.unit.subscribe(self._on_unit_event)
        self.server = Server(
            self.unit,
            path,
            settings=config.server,
            history_limit=config.journal.history_limit,
            mock=config.backend == "mock",
        )
        self.reactor = Reactor(
            self.server,
            listen=self.links.listen,
            token=self.links.token,
            serial_device=self.links.serial,
            baud=self.links.baud,
        ).open()
        self.reactor.start()
        if self._ui is not None:
            self._ui_mailbox = Mailbox()
            self._ui_thread = threading.Thread(target=self._run_ui, name="ui", daemon=True)
            self._ui_thread.start()

    def _serve(self) -> None:
        while True:
            self._control.wait()
            for item in self._control.take():
                if isinstance(item, int):  # a signal, noted on the pipe
                    if item not in _SIGNAL_ITEMS:
                        continue  # another handler's signal: not ours
                    item = _SIGNAL_ITEMS[item]
                kind = item[0]
                if kind == "stop":
                    name = signal.Signals(item[1]).name if item[1] else "request"
                    log.info("stopping (%s)", name)
                    return
                if kind == "quit":
                    log.info("stopping (the user quit)")
                    return
                if kind == "reload":
                    self._reload()
                elif kind == "unit":
                    self._unit_changed(item[1], item[2])

    def _run_ui(self) -> None:
        try:
            self._ui(self.unit, self._ui_mailbox)
        except Exception:
            log.exception("the terminal interface failed")
        finally:
            self._control.put(("quit",))

    def _on_unit_event(self, event) -> None:
        # On the unit's loop thread: only enqueue.
        if event.name in ("state", "armed"):
            self._control.put(("unit", event.name, event.data))

    def _unit_changed(self, name: str, data: dict) -> None:
        if name == "armed":
            self._showdown_id = data["showdown_id"]
        else:
            self._state = data["state"]
            if self._state == "idle":
                self._showdown_id = None
            if self._pending is not None and self._state in ("idle", "fault"):
                self._apply_pending()
        self._notifier.status(self.status_text())

    def serving(self) -> str:
        """The links as they are open (the real port for a ``:0`` address),
        e.g. ``tcp 127.0.0.1:40123, serial /dev/ttyUSB0``; "no links"."""
        return self.reactor.describe() if self.reactor is not None else "no links"

    def status_text(self) -> str:
        """systemd's STATUS= line: the state, the showdown, the links."""
        showdown = f" {self._showdown_id}" if self._showdown_id else ""
        links = self.reactor.describe() if self.reactor is not None else str(self.links)
        return f"{self._state}{showdown}; {links}"

    # -- SIGHUP ------------------------------------------------------------------------

    def _reload(self) -> None:
        self._notifier.reloading()
        log.info("reloading the config")
        try:
            new = self._load()
        except ConfigError as exc:
            log.error("reload failed, keeping the running config: %s", exc)
        except Exception:  # a bug in loading must not end the service
            log.exception("reload failed, keeping the running config")
        else:
            for key in restart_keys(self.config, new):
                log.warning("reload: %s changed; it takes effect after a restart", key)
            # What needs a restart stays as it runs.
            self._pending = new.replace(
                backend=self.config.backend,
                pins=self.config.pins,
                server=self.config.server,
                journal=self.config.journal,
            )
            self._apply_pending()
        self._notifier.ready(status=self.status_text())

    def _apply_pending(self) -> None:
        pending, unit = self._pending, self.unit
        assert pending is not None and unit is not None  # a reload waits for a running unit
        try:
            unit.reconfigure(pending)
        except BusyError:
            log.info(
                "reload: a showdown is under way; the new config applies when the unit is idle"
            )
            return
        except UnitError as exc:
            log.error("reload: cannot apply the new config: %s", exc)
            self._pending = None
            return
        self.config, self._pending = pending, None
        log.info("reload: config applied")

    # -- signals -----------------------------------------------------------------------

    def _install_signals(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            log.debug("not the main thread: no signal handlers (use request_stop)")
            return
        # The interpreter writes each signal's number to the control pipe the
        # moment it arrives; the Python-level handler has nothing left to do.
        self._previous_wakeup_fd = signal.set_wakeup_fd(self._control.wakeup_fd)
        for signum in _SIGNAL_ITEMS:
            self._previous_handlers[signum] = signal.signal(signum, _noted_on_the_pipe)

    def _restore_signals(self) -> None:
        for signum, handler in self._previous_handlers.items():
            signal.signal(signum, handler)
        self._previous_handlers.clear()
        if self._previous_wakeup_fd is not None:
            signal.set_wakeup_fd(self._previous_wakeup_fd)
            self._previous_wakeup_fd = None

    # -- stopping ----------------------------------------------------------------------

    def _shutdown(self) -> None:
        self._notifier.stopping()
        if self.reactor is not None:
            self.reactor.stop_accepting()
        if self._ui_thread is not None:
            mailbox = self._ui_mailbox
            assert mailbox is not None  # made before the thread
            mailbox.request_stop()
            self._ui_thread.join(5.0)
            if self._ui_thread.is_alive():  # stuck on its terminal: leave its pipe open
                log.warning("the terminal interface did not stop within 5 s")
            else:
                mailbox.close()
            self._ui_thread = None
        unit, writer = self.unit, self._writer
        if unit is not None:
            assert writer is not None  # made before the unit
            for step in (unit.cancel, lambda: unit.call(writer.close)):
                try:
                    step()  # cancel: the motor stops now, a cut launch is journaled
                except UnitError as exc:
                    log.warning("on stop: %s", exc)
            unit.close()  # outputs safe (motor first), levels logged
        if self.reactor is not None:
            self.reactor.close()
        if self.server is not None:
            self.server.close()
        if self._owns_factory and self._pin_factory is not None:
            self._pin_factory.close()
            self._pin_factory = None
        if self._lock is not None:
            self._lock.release()  # last: nothing writes the journal any more
        self._notifier.close()
        log.info("stopped")


def _noted_on_the_pipe(signum, frame) -> None:
    """The daemon's Python-level signal handler: nothing to do, the number is
    on the control pipe already (:func:`signal.set_wakeup_fd`); it only keeps
    the default action (death, or KeyboardInterrupt) from happening."""
