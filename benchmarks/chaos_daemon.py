"""The unit daemon under chaos (benchmarks/chaos.py): started again and
again on one journal and config, killed, stopped, started under a file-size
limit or a second time beside itself, its log kept in the work folder.

:class:`Service` runs ``python -m firmware_host run --mock`` with the chaos
config (the tests' fast timing, a short hello deadline), reads its TCP port
from ``READY=1`` on a ``NOTIFY_SOCKET``, and counts a ``generation`` each time
a daemon ends, so a client can tell a link the daemon dropped from one a
restart cut.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.daemon_helpers import WAIT_S, NotifyListener

__all__ = [
    "Service",
    "DaemonProcess",
    "HarnessError",
    "CHAOS_CONFIG",
    "MAX_LINE_BYTES",
    "FULL_DISK_BYTES",
    "PLAYERS",
    "ROOT",
]

ROOT = Path(__file__).resolve().parents[1]
#: The two players every showdown of the run names (and a bad client's try too).
PLAYERS = {"a": "Ann", "b": "Bob"}


#: The tests' fast timing (tests/daemon_helpers.FAST_CONFIG), with a short
#: response timeout (a showdown nobody presses in ends sooner) and a launch
#: long enough (~0.17 s) that a kill at ``launching`` lands before it ends.
#: max_clients leaves room for the bad clients beside the engine's link; a short
#: hello deadline closes the silent sockets soon (and cuts a garbage round short
#: when it takes longer, on a loaded machine). A line over MAX_LINE_BYTES is
#: refused unread (its reply's id is null).
MAX_LINE_BYTES = 4096


CHAOS_CONFIG = f"""\
[timing]
countdown_step_s = 0.05
flash_period_s = 0.025
beep_s = 0.01
go_tone_s = 0.02
hold_min_s = 0.05
hold_max_s = 0.1
response_timeout_s = 0.4
paddle_warning_s = 0.1

[launcher]
spin_up_s = 0.15
per_card_s = 0.01

[server]
hello_timeout_s = 0.5
max_clients = 16
max_line_bytes = {MAX_LINE_BYTES}
"""


#: The file-size limit of the full-disk daemon: less than one WAL frame (4120 bytes).
FULL_DISK_BYTES = 4096


class HarnessError(RuntimeError):
    """Something this script did not expect (not a broken promise by itself)."""


class DaemonProcess(subprocess.Popen[bytes]):
    """A daemon's process, with the thread that copies its output to the log."""

    drain: threading.Thread


class Service:
    """The unit daemon, started again and again on one journal and config.
    ``generation`` counts up each time a daemon is stopped or killed, so a
    client can tell a link the daemon dropped from one a restart cut."""

    def __init__(self, workdir: Path, *, verbose: bool = False):
        self.workdir = workdir
        self.config_path = workdir / "unit.toml"
        self.config_path.write_text(CHAOS_CONFIG)
        self.journal_path = workdir / "results.sqlite3"
        self.log_path = workdir / "daemon.log"
        self.verbose = verbose
        self.process: DaemonProcess | None = None
        self.port: int | None = None
        self.generation = 0
        self.starts = 0
        self.limited = False  # the running daemon has the full-disk limit
        self._notify: NotifyListener | None = None
        self._lock = threading.Lock()  # port and generation change together
        self._log_lock = threading.Lock()
        self._log = open(self.log_path, "ab")  # noqa: SIM115 (kept open until close())

    def _args(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "firmware_host",
            *(["-v"] if self.verbose else []),
            "run",
            "--mock",
            "--config",
            str(self.config_path),
            "--journal",
            str(self.journal_path),
            "--listen",
            "127.0.0.1:0",
        ]

    def _spawn(self, env: dict) -> DaemonProcess:
        self.starts += 1
        process = DaemonProcess(
            self._args(),
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        # Its log goes through a pipe: under the full-disk limit a log file
        # would stop taking lines long before the journal fails.
        process.drain = threading.Thread(
            target=self._drain,
            name=f"log-{self.starts}",
            args=(process.stdout, self.starts),
            daemon=True,
        )
        process.drain.start()
        return process

    def _drain(self, pipe, number: int) -> None:
        for line in iter(pipe.readline, b""):
            with self._log_lock:
                self._log.write(b"[%d] " % number + line)
                self._log.flush()
        pipe.close()

    def note(self, text: str) -> None:
        with self._log_lock:
            self._log.write(f"--- {text}\n".encode())
            self._log.flush()

    def start(self, *, file_size_limit: int | None = None) -> float:
        """Start a daemon and wait for READY=1; returns the monotonic time it
        came. With ``file_size_limit`` no file of the daemon may grow past
        that many bytes (set right after exec, long before it opens the journal)."""
        notify = NotifyListener(self.workdir / f"notify-{self.starts + 1}.sock")
        env = {**os.environ, "NOTIFY_SOCKET": notify.path, "PYTHONUNBUFFERED": "1"}
        env.pop("WATCHDOG_PID", None)
        env.pop("WATCHDOG_USEC", None)
        process = self._spawn(env)
        if file_size_limit is not None:
            resource.prlimit(process.pid, resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))
        self.note(
            f"daemon {self.starts} (pid {process.pid}) started"
            + (f" with a {file_size_limit}-byte file-size limit" if file_size_limit else "")
        )
        try:
            ready = notify.wait_for(lambda m: m.get("READY") == "1", WAIT_S, process=process)
        except TimeoutError:
            process.kill()
            process.wait()
            notify.close()
            raise HarnessError(
                f"daemon {self.starts} never got ready (exit "
                f"{process.returncode}); see {self.log_path}"
            ) from None
        ready_at = time.monotonic()
        found = re.search(r"tcp [^ ;,]+:(\d+)", ready.get("STATUS", ""))
        if found is None:
            raise HarnessError(f"no TCP port in the READY status: {ready}")
        with self._lock:
            self.process, self._notify, self.port = process, notify, int(found.group(1))
        self.limited = file_size_limit is not None
        return ready_at

    def current(self) -> tuple[int | None, int]:
        """The daemon's port (None while there is none) and its generation."""
        with self._lock:
            return self.port, self.generation

    def _end(self, how) -> int:
        with self._lock:
            process, notify = self.process, self._notify
            if process is None:
                raise HarnessError("no daemon to end")
            self.generation += 1
            self.port = self.process = self._notify = None
        how(process)
        code = process.wait(WAIT_S)
        process.drain.join(WAIT_S)
        if notify is not None:
            notify.close()
            Path(notify.path).unlink(missing_ok=True)
        return code

    def kill(self) -> float:
        """SIGKILL the daemon; returns the monotonic time of the signal."""
        killed_at = time.monotonic()
        self._end(lambda process: process.send_signal(signal.SIGKILL))
        return killed_at

    def stop(self) -> int:
        """SIGTERM the daemon; returns its exit status."""
        return self._end(lambda process: process.send_signal(signal.SIGTERM))

    def exited(self) -> int | None:
        """The exit status if the daemon ended without being told to (and
        clears it away), else None."""
        if self.process is None or self.process.poll() is None:
            return None
        return self._end(lambda process: None)

    def second(self) -> int:
        """Start another daemon on the same journal; returns its exit status."""
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("NOTIFY_SOCKET", "WATCHDOG_PID", "WATCHDOG_USEC")
        }
        process = self._spawn(env)
        self.note(f"daemon {self.starts} (pid {process.pid}): a second one on the same journal")
        try:
            return process.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return -1
        finally:
            process.drain.join(WAIT_S)

    def close(self) -> None:
        if self.process is not None:
            self.stop()
        self._log.close()
