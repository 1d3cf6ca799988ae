"""Chaos: showdowns on a real unit daemon that is killed, cut off, starved of disk
and pestered, checked against its journal: every verdict exactly once.

    .venv/bin/python benchmarks/chaos.py [--showdowns 300] [--seed 1] [--json] [--workdir DIR]

A client fights each showdown over TCP against ``python -m firmware_host run
--mock`` (a subprocess with its own config and journal in the work folder, fast
timing, ``--listen 127.0.0.1:0``, readiness from ``READY=1`` on a
``NOTIFY_SOCKET``): ``showdown`` with a fresh id, ``bench_press`` timed from GO,
``start``, then every event up to ``result``. The showdowns come in blocks of
twelve, each block in an order shuffled with the seed, so every twelve cover:

- nine SIGKILLs of the daemon, one at each moment a client can see: the
  ``armed`` event; the ``state`` event of countdown, hold, go, false_start,
  resolved, launching and timeout; the ``result`` event. The daemon is started
  again on the same journal; the client asks ``result``, then sends the same
  ``showdown``. A showdown the unit had decided must come back ``done`` with
  the verdict the client saw (launch ``interrupted`` after a kill
  mid-launch); one it had not decided arms afresh and is fought to its end;
- one link cut: the client closes its socket at one of armed, countdown, go,
  launching, result, reconnects and sends the same ``showdown`` (half the
  time ``result`` first): the status while it runs, or the result;
- one full disk: the daemon is started again under a 4 KiB file-size limit
  (``RLIMIT_FSIZE``; Python ignores SIGXFSZ, so SQLite's write fails with
  EFBIG), so the decision cannot be recorded. The unit must fault without a
  ``launched`` or ``result`` event and never enter ``launching``; ``result``
  must not know the id; ``cancel`` must clear the fault. A normal daemon then
  comes back and the showdown, never decided, is fought. (While the limited
  daemon runs this script holds the journal open: SQLite's shared-memory file
  is 32 KiB, and a daemon that had to create it under the limit could not
  open its journal at all.)
- one second daemon started on the same journal, which must exit 78; the
  showdown is then fought on the first one, with nothing done to it.

The presses are drawn per showdown to fit its moment (a kill at ``go`` needs a
showdown that reaches GO): a clear winner, a near tie (50 to 600 us apart, so
some are ties that run the countdown again), a false start in the countdown or
in the hold (the other side pressing after GO or not at all), both early, or
nobody (a timeout).

The client "sees a verdict" in a ``false_start`` event (the offender loses) or
a ``result`` event, and "sees a launch" in the ``state`` event of launching.
Per showdown it counts: a verdict lost (a verdict or a launch seen, and the
journal has no decision), a verdict changed (the journal's winner, loser or
reason differ from one seen), a launch without a record (a launch seen, and no
decision in the journal), a showdown run twice (an ``armed`` event for an id the
journal already holds). The journal is read right after each restart (with
``result``), at every ``armed`` event (read-only), and at the end.

Meanwhile bad clients run on threads of their own, each following the daemon
from restart to restart: bursts of 1,000 to 5,000 pipelined pings in one write
(every reply must come, in order), garbage lines and protocol commands sent
without ``hello`` (each refused, in order), real HTTP POSTs whose bodies hold
protocol lines, silent sockets (each must get ``hello_timeout``), and storms of
connect-and-close. None of them may arm or start anything: an ``armed`` event or a
journal entry with an id that is not ours, or a countdown the client did not
start, is a bad-client arm. The hello deadline is short (0.5 s), so on a loaded
machine it can end a garbage round (or a burst whose hello was read late) first:
a ``hello_timeout`` line after the replies so far, then the close, is the daemon
doing its job and is counted (``*_cut_by_hello_timeout``); a close without that
line, a line after it, or a reply out of order is a bad-client problem.

At the end the daemon is stopped with SIGTERM and the journal is opened
read-only and held against what the client saw. Exit status 1 unless verdicts
lost, verdicts changed, launches without a record, showdowns run twice,
bad-client arms, bad-client problems, full-disk failures, daemon exits nobody
asked for and harness errors (a wait that ran out, a reply nobody expected) are
all 0 and every second daemon exited 78; the work folder is kept then, and its
daemon.log (every daemon's log, and a line per showdown) says what happened.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_host.service.journal import Journal  # noqa: E402
from tests.daemon_helpers import WAIT_S, Client, LinkClosed, NotifyListener, malformed_line  # noqa: E402

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

PLAYERS = {"a": "Ann", "b": "Bob"}
KILL_MOMENTS = (
    "armed",
    "countdown",
    "hold",
    "go",
    "false_start",
    "resolved",
    "launching",
    "timeout",
    "result",
)
CUT_MOMENTS = ("armed", "countdown", "go", "launching", "result")
#: One block of plans; every twelve showdowns run each once, in a shuffled order.
BLOCK = (
    *(("kill", moment) for moment in KILL_MOMENTS),
    ("cut", None),
    ("disk", None),
    ("second", None),
)
SCENARIOS = ("clear", "near_tie", "false_start", "early_false_start", "both_early", "nobody")
#: The scenarios in which each moment comes at all.
FITS = {
    "armed": SCENARIOS,
    "countdown": SCENARIOS,
    "result": SCENARIOS,
    None: SCENARIOS,
    "hold": ("clear", "near_tie", "false_start", "nobody"),  # nobody jumps in the countdown
    "go": ("clear", "near_tie", "nobody"),  # nobody jumps at all
    "resolved": ("clear", "near_tie"),  # decided after GO
    "timeout": ("nobody",),
    "false_start": ("false_start", "early_false_start", "both_early"),
    "launching": ("clear", "near_tie", "false_start", "early_false_start", "both_early"),
    "disk": ("clear", "false_start", "early_false_start"),  # a decision with a loser
}
#: The file-size limit of the full-disk daemon: less than one WAL frame (4120 bytes).
FULL_DISK_BYTES = 4096
RUNNING = ("countdown", "hold", "go", "false_start", "resolved", "launching", "timeout")


def other(side: str) -> str:
    return "b" if side == "a" else "a"


def draw_presses(rng: random.Random, scenario: str) -> list[tuple[str, float]]:
    """(side, offset_ms from GO) for one showdown. GO comes 200-250 ms after
    start (three 50 ms countdown steps, a 50-100 ms hold). No press comes in the
    first 50 ms after start: a paddle the last showdown left down is let go when
    it ends, and the paddle's 50 ms lockout (``press_lockout_s``) would swallow it."""
    first = rng.choice("ab")
    second = other(first)
    at = rng.uniform(40, 150)
    if scenario == "clear":
        return [(first, at), (second, at + rng.uniform(15, 80))]
    if scenario == "near_tie":  # under 200 us is a tie: a re-run
        return [(first, at), (second, at + rng.choice((50, 150, 300, 600)) / 1000)]
    if scenario == "both_early":
        early = rng.uniform(-150, -30)
        return [(first, early), (second, early + rng.uniform(2, 25))]
    if scenario == "nobody":
        return []
    early = rng.uniform(-40, -5) if scenario == "false_start" else rng.uniform(-150, -110)
    return [(first, early)] + ([(second, at)] if rng.random() < 0.5 else [])


class Moment(Exception):
    """The moment chosen for this showdown came: ``action`` ("kill" or "cut") now."""

    def __init__(self, action: str, state: str):
        super().__init__(f"{action} at {state}")
        self.action, self.state = action, state


class HarnessError(RuntimeError):
    """Something this script did not expect (not a broken promise by itself)."""


@dataclass
class Track:
    """One showdown: its plan and what the client saw of it."""

    sid: str
    plan: str
    moment: str | None
    scenario: str
    cards: int
    presses: list
    seen: list = field(default_factory=list)  # (winner, loser, reason) seen live
    events: list = field(default_factory=list)  # what it saw, for the log
    saw_launching: bool = False
    arms: int = 0
    lost: bool = False
    changed: bool = False
    unrecorded: bool = False
    twice: bool = False


@dataclass
class Figures:
    showdowns: int = 0
    kills: Counter = field(default_factory=lambda: Counter({m: 0 for m in KILL_MOMENTS}))
    kill_to_ready_s: list = field(default_factory=list)
    # moment -> the journal's launch value after that kill (no entry: nothing decided)
    after_kill: dict = field(default_factory=lambda: {m: Counter() for m in KILL_MOMENTS})
    kills_decided_unseen: int = 0  # the kill came after the decision, before the client saw it
    link_cuts: int = 0
    full_disk_runs: int = 0
    full_disk_faults: int = 0
    full_disk_cleared: int = 0
    full_disk_reason: str | None = None
    second_daemons: int = 0
    second_daemons_refused: int = 0
    answered_from_journal: int = 0
    foreign_arms: set = field(default_factory=set)
    unasked_starts: int = 0
    unexpected_exits: int = 0
    harness_errors: list = field(default_factory=list)
    moments_missed: int = 0
    unfinished: int = 0


# -- the daemon under test ------------------------------------------------------------


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


# -- the engine's side --------------------------------------------------------------


class Session:
    """One link to the daemon. Every message is read one at a time; events go
    to the watcher, which may raise :class:`Moment` the moment it sees one."""

    def __init__(self, port: int):
        self.client = Client.tcp(port)
        self.client.hello()
        self.watcher: Watcher | None = None

    def request(self, cmd: str, **args) -> dict:
        request_id = self.client.send(cmd, **args)
        self.wait(lambda: request_id in self.client.replies)
        self.client.events.clear()
        self.client.unread_events.clear()
        return self.client.replies.pop(request_id)

    def wait(self, ready, timeout: float = WAIT_S) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            message = self.client.read_message(deadline - time.monotonic())
            if "event" in message and self.watcher is not None:
                self.watcher.see(message)

    def close(self) -> None:
        self.client.close()


class Watcher:
    """What the client makes of one showdown's events: the verdict when it
    sees one (a ``false_start`` or ``result`` event), whether it saw
    ``launching``, arms of ids that are not ours, starts it did not ask for."""

    def __init__(
        self,
        chaos: Chaos,
        track: Track,
        session: Session,
        *,
        kill_at: str | None = None,
        cut_at: str | None = None,
    ):
        self.chaos, self.track, self.session = chaos, track, session
        self.moment = ("kill", kill_at) if kill_at else ("cut", cut_at) if cut_at else None
        self.started = False
        self.saw_launching = False
        self.launched = False
        self.result: dict | None = None
        self.fault_reason: str | None = None
        session.watcher = self

    def see(self, event: dict) -> None:
        name, sid, track = event["event"], event.get("showdown_id"), self.track
        if name == "armed" and sid is not None and not sid.startswith(self.chaos.prefix):
            self.chaos.figures.foreign_arms.add(sid)
        if name == "fault":
            self.fault_reason = event["reason"]
        if sid is not None and sid != track.sid:
            return
        track.events.append(event.get("state", name))
        if name == "armed":
            track.arms += 1
            if self.chaos.journal_has(track.sid):  # decided before, and armed again
                track.twice = True
            self._moment("armed")
        elif name == "state":
            state = event["state"]
            if state == "launching":
                track.saw_launching = self.saw_launching = True
            elif state == "countdown" and event["previous"] == "armed" and not self.started:
                self.chaos.figures.unasked_starts += 1
            if state != "armed":
                self._moment(state)
        elif name == "false_start":
            track.seen.append((other(event["side"]), event["side"], "false_start"))
        elif name == "tie" and not event["void"]:
            rerun = draw_presses(self.chaos.rng, "clear")  # the re-run gets a clear winner
            for side, offset in rerun:
                self.session.client.send("bench_press", side=side, offset_ms=offset)
        elif name == "launched":
            self.launched = True
        elif name == "result":
            track.seen.append((event["winner"], event["loser"], event["reason"]))
            self.result = event
            self._moment("result")

    def _moment(self, state: str) -> None:
        if self.moment is not None and self.moment[1] == state:
            action, self.moment = self.moment[0], None
            raise Moment(action, state)


class Chaos:
    """The showdowns, their faults and the checks."""

    session: Session  # the link in use: run() makes the first

    def __init__(self, service: Service, seed: int):
        self.service = service
        self.rng = random.Random(seed)
        self.prefix = f"chaos{seed}-"
        self.figures = Figures()
        self.tracks: list[Track] = []

    # -- links and the journal ----------------------------------------------------------

    def connect(self) -> Session:
        port = self.service.port
        if port is None:
            raise HarnessError("no daemon to connect to")
        for _ in range(20):  # a connect storm may hold every slot a moment
            try:
                return Session(port)
            except (LinkClosed, ConnectionError):
                time.sleep(0.05)
        raise HarnessError("cannot connect to the daemon")

    def journal_has(self, sid: str) -> bool:
        with Journal(self.service.journal_path, readonly=True) as journal:
            return journal.get(sid) is not None

    @staticmethod
    def ok(reply: dict, what: str) -> dict:
        if not reply.get("ok"):
            raise HarnessError(f"{what}: {reply}")
        return reply

    def check(self, track: Track, record: dict | None) -> None:
        """What the client saw of ``track`` against the journal's ``record``."""
        if record is None:
            track.lost |= bool(track.seen) or track.saw_launching
            track.unrecorded |= track.saw_launching
            return
        verdict = (record["winner"], record["loser"], record["reason"])
        track.changed |= any(seen != verdict for seen in track.seen)

    # -- one showdown --------------------------------------------------------------------

    def run(self, count: int) -> None:
        plans: list[tuple[str, str | None]] = []
        while len(plans) < count:
            block = list(BLOCK)
            self.rng.shuffle(block)
            plans += block
        self.service.start()
        self.session = self.connect()
        for index, (plan, moment) in enumerate(plans[:count], 1):
            fits = FITS["disk" if plan == "disk" else moment]
            if plan == "cut":
                moment = self.rng.choice(CUT_MOMENTS)
                fits = FITS[moment]
            scenario = self.rng.choice(fits)
            track = Track(
                f"{self.prefix}{index:04d}",
                plan,
                moment,
                scenario,
                self.rng.randint(1, 4),
                draw_presses(self.rng, scenario),
            )
            self.tracks.append(track)
            self.figures.showdowns += 1
            self.service.note(
                f"showdown {track.sid}: {plan} {moment or ''} {scenario} {track.presses}"
            )
            try:
                self.one(track)
            except (HarnessError, TimeoutError, LinkClosed, OSError) as exc:
                try:
                    self.harness_error(track, exc)
                except (HarnessError, TimeoutError, LinkClosed, OSError) as again:
                    self.figures.harness_errors.append(f"could not go on: {again!r}")
                    return

    def one(self, track: Track) -> None:
        if track.plan == "disk":
            self.full_disk(track)
        elif track.plan == "second":
            self.second_daemon()
        kill_at = track.moment if track.plan == "kill" else None
        cut_at = track.moment if track.plan == "cut" else None
        try:
            self.attempt(track, kill_at=kill_at, cut_at=cut_at)
            if kill_at or cut_at:
                self.figures.moments_missed += 1  # the showdown ended before its moment
                self.service.note(
                    f"{track.sid}: the {kill_at or cut_at} moment never came; "
                    f"events seen: {' '.join(track.events)}"
                )
            return
        except Moment as moment:
            self.interrupt(track, moment)
        self.resume(track)

    def arm(self, session: Session, track: Track) -> dict:
        return self.ok(
            session.request("showdown", showdown_id=track.sid, cards=track.cards, players=PLAYERS),
            f"showdown {track.sid}",
        )

    def press_and_start(
        self, session: Session, watcher: Watcher, track: Track, *, press: bool = True
    ) -> None:
        if press:
            for side, offset in track.presses:
                self.ok(session.request("bench_press", side=side, offset_ms=offset), "bench_press")
        if watcher.moment == ("cut", "armed"):
            watcher.moment = None
            raise Moment("cut", "armed")
        watcher.started = True
        for _ in range(10):
            reply = session.request("start")
            if reply.get("ok"):
                return
            if reply["error"]["code"] != "paddle_held":
                raise HarnessError(f"start {track.sid}: {reply}")
            time.sleep(0.2)  # a press of the last showdown still lets go
        raise HarnessError(f"start {track.sid}: a paddle stays held")

    def attempt(self, track: Track, *, kill_at=None, cut_at=None) -> None:
        """The first run of ``track``: arm, press, start, follow to the result."""
        session = self.session
        watcher = Watcher(self, track, session, kill_at=kill_at, cut_at=cut_at)
        reply = self.arm(session, track)
        if reply["state"] != "armed":
            raise HarnessError(f"a new id was not armed: {reply}")
        self.press_and_start(session, watcher, track)
        self.follow(session, watcher, track)

    def follow(self, session: Session, watcher: Watcher, track: Track) -> None:
        """Read on to the showdown's result event."""
        session.wait(lambda: watcher.result is not None or watcher.fault_reason is not None)
        if watcher.result is None:
            raise HarnessError(f"the unit faulted during {track.sid}: {watcher.fault_reason}")

    def interrupt(self, track: Track, moment: Moment) -> None:
        self.session.close()
        if moment.action == "kill":
            killed_at = self.service.kill()
            self.figures.kills[moment.state] += 1
            ready_at = self.service.start()
            self.figures.kill_to_ready_s.append(ready_at - killed_at)
        else:
            self.figures.link_cuts += 1
        self.session = self.connect()

    def resume(self, track: Track) -> None:
        """After a kill or a cut: ask again, as an engine does, until it is done."""
        session = self.session
        watcher = Watcher(self, track, session)
        if track.plan == "kill" or self.rng.random() < 0.5:
            reply = session.request("result", showdown_id=track.sid)
            if not reply["ok"] and reply["error"]["code"] != "unknown_showdown":
                raise HarnessError(f"result {track.sid}: {reply}")
            record = reply.get("result")
            self.check(track, record)
            if track.plan == "kill" and record is not None:
                self.figures.after_kill[track.moment][record["launch"]] += 1
                if not track.seen and not track.saw_launching:
                    self.figures.kills_decided_unseen += 1
        arms = track.arms
        reply = self.arm(session, track)
        state = reply["state"]
        if state == "done":
            self.figures.answered_from_journal += 1
            self.check(track, reply["result"])
            return
        if state == "armed":
            # Armed afresh (an "armed" event came: nothing was decided), or
            # still armed from before a cut (its presses are placed already).
            self.press_and_start(session, watcher, track, press=track.arms > arms)
        elif state not in RUNNING or reply["showdown"]["showdown_id"] != track.sid:
            raise HarnessError(f"showdown {track.sid} again: {reply}")
        self.follow(session, watcher, track)

    # -- the other faults ---------------------------------------------------------------

    def full_disk(self, track: Track) -> None:
        """The decision of ``track`` meets a full disk: fault, no launch; then
        a normal daemon again (the caller fights the showdown on it)."""
        figures = self.figures
        figures.full_disk_runs += 1
        keeper = sqlite3.connect(self.service.journal_path)  # keeps -shm and -wal there
        try:
            keeper.execute("SELECT count(*) FROM results").fetchone()
            self.session.close()
            self.expect_exit(self.service.stop(), 0, "the daemon on SIGTERM")
            self.service.start(file_size_limit=FULL_DISK_BYTES)
            session = self.session = self.connect()
            watcher = Watcher(self, track, session)
            if self.arm(session, track)["state"] != "armed":
                raise HarnessError(f"the full-disk daemon did not arm {track.sid}")
            self.press_and_start(session, watcher, track)
            session.wait(lambda: watcher.fault_reason is not None or watcher.result is not None)
            status = session.request("status")
            reply = session.request("result", showdown_id=track.sid)
            record = reply.get("result")
            self.check(track, record)  # nothing may have been seen, and nothing recorded
            again = session.request(
                "showdown", showdown_id=track.sid, cards=track.cards, players=PLAYERS
            )
            faulted = (
                watcher.fault_reason is not None
                and not watcher.launched
                and watcher.result is None
                and not watcher.saw_launching
                and status["state"] == "fault"
                and record is None
                and again.get("state") not in ("armed", "done")
            )
            if faulted:
                figures.full_disk_faults += 1
                figures.full_disk_reason = figures.full_disk_reason or watcher.fault_reason
            else:
                self.service.note(
                    f"full disk {track.sid}: fault {watcher.fault_reason!r}, "
                    f"status {status}, result {reply}, again {again}"
                )
            if session.request("cancel").get("state") == "idle":
                figures.full_disk_cleared += 1
            session.close()
            self.expect_exit(self.service.stop(), 0, "the full-disk daemon on SIGTERM")
        finally:
            keeper.close()
        self.service.start()
        self.session = self.connect()

    def second_daemon(self) -> None:
        self.figures.second_daemons += 1
        code = self.service.second()
        if code == 78:
            self.figures.second_daemons_refused += 1
        else:
            self.service.note(f"the second daemon exited {code}, not 78")

    # -- trouble ------------------------------------------------------------------------

    def expect_exit(self, code: int, expected: int, what: str) -> None:
        if code != expected:
            raise HarnessError(f"{what} exited {code}, not {expected}")

    def harness_error(self, track: Track, exc: Exception) -> None:
        """Note what went wrong, then get a daemon and a link back."""
        code = self.service.exited()
        if code is not None:
            self.figures.unexpected_exits += 1
            self.service.note(f"the daemon exited {code} by itself during {track.sid}")
        self.figures.harness_errors.append(f"{track.sid}: {type(exc).__name__}: {exc}")
        self.service.note(f"harness error in {track.sid}: {exc!r}")
        with contextlib.suppress(OSError):
            self.session.close()
        if self.service.limited and self.service.process is not None:
            self.service.stop()
        if self.service.process is None:
            self.service.start()
        self.session = self.connect()
        self.session.request("cancel")

    # -- the end --------------------------------------------------------------------------

    def finish(self) -> None:
        """Stop the daemon and hold every showdown against the journal."""
        self.session.close()
        self.expect_exit(self.service.stop(), 0, "the daemon on SIGTERM at the end")
        with Journal(self.service.journal_path, readonly=True) as journal:
            for track in self.tracks:
                record = journal.get(track.sid)
                self.check(track, record)
                if record is None or record["launch"] == "pending":
                    self.figures.unfinished += 1
            for result in journal.recent(1_000_000):
                if not result["showdown_id"].startswith(self.prefix):
                    self.figures.foreign_arms.add(result["showdown_id"])


# -- bad clients -----------------------------------------------------------------------


class Wrong(Exception):
    """A bad client got something the unit must never send."""


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the reader finds out
        sock.sendall(data)


def _read_to_eof(sock: socket.socket) -> bytes:
    data = b""
    while chunk := _recv(sock):
        data += chunk
    return data


def _recv(sock: socket.socket) -> bytes:
    """What comes next; b"" once the daemon closed the link. A reset counts as
    a close: the daemon closes a link it stopped reading (``hello_timeout``)
    with the client's last lines unread, and the kernel then sends a reset;
    the lines it wrote before come first all the same."""
    try:
        return sock.recv(65536)
    except ConnectionResetError:
        return b""


def _is_hello_timeout(message: dict) -> bool:
    """The daemon's last line to a client that did not finish hello in time."""
    error = message.get("error")
    return (
        message.get("id") is None
        and message.get("ok") is False
        and isinstance(error, dict)
        and error.get("code") == "hello_timeout"
    )


def reply_id(line: bytes, max_line: int = MAX_LINE_BYTES):
    """The id of the unit's reply to ``line``, by docs/protocol.md: the line's
    ``id`` if it is a JSON object (UTF-8, within ``server.max_line_bytes``)
    whose id is a number or a string, else None.

    >>> reply_id(b'{"id": 7, "cmd": "fire"}'), reply_id(b'{"id": true, "cmd": "ping"}')
    (7, None)
    >>> long = b'{"id": 7, "pad": "%s"}' % (b"y" * 5000)
    >>> reply_id(b'{"id": 7, "cmd'), reply_id(b"[]"), reply_id(bytes([255])), reply_id(long)
    (None, None, None, None)
    """
    if len(line) > max_line:
        return None  # line_too_long: not read
    try:
        value = json.loads(line.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError too
        return None
    if not isinstance(value, dict):
        return None
    request_id = value.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (int, float, str)):
        return None
    return request_id


class Rabble:
    """Clients that must never command the unit, each on a thread of its own
    and following the daemon from restart to restart. ``counts``: what they
    did; ``problems``: what they got that they should not have."""

    KINDS = ("burst", "garbage", "http", "silent", "silent", "storm")

    def __init__(self, service: Service, seed: int):
        self.service = service
        self.seed = seed
        self.counts: Counter = Counter()
        self.problems: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for number, kind in enumerate(self.KINDS):
            thread = threading.Thread(
                target=self._run,
                name=f"rabble-{kind}-{number}",
                args=(kind, random.Random(f"{self.seed}-{number}")),
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(WAIT_S)

    def _count(self, key: str, amount: int = 1) -> None:
        with self._lock:
            self.counts[key] += amount

    def _run(self, kind: str, rng: random.Random) -> None:
        action = getattr(self, f"_{kind}")
        rounds = 0
        while not self._stop.is_set():
            port, generation = self.service.current()
            if port is None:
                self._stop.wait(0.05)
                continue
            rounds += 1
            try:
                action(port, generation, rng, rounds)
            except Wrong as exc:
                with self._lock:
                    self.problems.append(f"{kind}: {exc}")
            except (OSError, http.client.HTTPException, ValueError) as exc:
                if self.service.generation != generation:
                    self._count("cut_by_a_restart")
                else:
                    with self._lock:
                        self.problems.append(f"{kind}: {type(exc).__name__}: {exc}")
            self._stop.wait(rng.uniform(0.1, 0.4))

    def _connect(self, port: int) -> socket.socket:
        return socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)

    def _burst(self, port: int, generation: int, rng: random.Random, rounds: int) -> None:
        """Thousands of pings in one write; every reply must come, in order."""
        count = rng.randint(1000, 5000)
        payload = b'{"id":0,"cmd":"hello","version":1}\n' + b"".join(
            b'{"id":%d,"cmd":"ping"}\n' % n for n in range(1, count + 1)
        )
        with self._connect(port) as sock:
            sender = threading.Thread(target=_send_quietly, args=(sock, payload), daemon=True)
            sender.start()
            due, buffer = 0, b""
            while due <= count:
                data = _recv(sock)
                if not data:
                    raise ConnectionError(f"closed after {due} of {count + 1} replies")
                buffer += data
                *lines, buffer = buffer.split(b"\n")
                for number, line in enumerate(lines):
                    message = json.loads(line)
                    if "event" in message:
                        continue
                    if due == 0 and _is_hello_timeout(message):
                        # The daemon read the hello after its deadline (a loaded
                        # machine): it says so and closes, and must answer nothing.
                        after = b"".join(rest + b"\n" for rest in lines[number + 1 :]) + buffer
                        self._cut_by_hello_timeout(sock, after, "burst")
                        sender.join(WAIT_S)
                        return
                    if message.get("id") != due or not message.get("ok"):
                        raise Wrong(f"reply {message} where the reply to id {due} was due")
                    due += 1
            sender.join(WAIT_S)
        self._count("bursts")
        self._count("pings", count)

    def _cut_by_hello_timeout(self, sock: socket.socket, after: bytes, kind: str) -> None:
        """A ``hello_timeout`` line came, with ``after`` read behind it: it
        must be the last line, then the link closes."""
        after += _read_to_eof(sock)
        if after:
            raise Wrong(f"{after[:200]!r} after hello_timeout")
        self._count(f"{kind}_cut_by_hello_timeout")

    def _garbage(self, port: int, generation: int, rng: random.Random, rounds: int) -> None:
        """Malformed lines and commands without hello: one refusal each, in
        order. A round that takes longer than ``server.hello_timeout_s`` (a
        loaded machine) is cut short, as the daemon documents: after the
        refusals so far, its ``hello_timeout`` line, then the link closes."""
        lines = [malformed_line(rng, MAX_LINE_BYTES) for _ in range(rng.randint(50, 300))]
        evil = f"evil-garbage-{rounds}"
        lines += [
            json.dumps(request).encode()
            for request in (
                {"id": 1, "cmd": "showdown", "showdown_id": evil, "cards": 2, "players": PLAYERS},
                {"id": 2, "cmd": "start"},
                {"id": 3, "cmd": "bench_timer"},
                {"id": 4, "cmd": "bench_press", "side": "a"},
                {"id": 5, "cmd": "selftest"},
                {"id": 6, "cmd": "cancel"},
            )
        ]
        rng.shuffle(lines)
        with self._connect(port) as sock:
            sender = threading.Thread(
                target=_send_quietly,
                daemon=True,
                args=(sock, b"\n".join(lines) + b'\n{"id":"end","cmd":"ping"}\n'),
            )
            sender.start()
            due = [reply_id(line) for line in lines] + ["end"]
            replies, buffer = 0, b""
            while replies < len(due):
                data = _recv(sock)
                if not data:
                    raise ConnectionError(f"closed after {replies} of {len(due)} replies")
                buffer += data
                *got, buffer = buffer.split(b"\n")
                for number, line in enumerate(got):
                    if replies == len(due):
                        break  # all answered: what follows is not this round's
                    message = json.loads(line)
                    if _is_hello_timeout(message):
                        after = b"".join(rest + b"\n" for rest in got[number + 1 :]) + buffer
                        self._cut_by_hello_timeout(sock, after, "garbage")
                        sender.join(WAIT_S)
                        self._count("garbage_rounds")
                        self._count("garbage_lines", replies)
                        return
                    if message.get("id") != due[replies]:
                        raise Wrong(f"reply {message} where the reply to line {replies} was due")
                    if replies < len(lines) and message.get("ok") is not False:
                        raise Wrong(f"a line sent before hello was obeyed: {message}")
                    replies += 1
            sender.join(WAIT_S)
        self._count("garbage_rounds")
        self._count("garbage_lines", len(lines))

    def _http(self, port: int, generation: int, rng: random.Random, rounds: int) -> None:
        """A real HTTP POST with protocol lines in its body: refused at its first line."""
        body = b"".join(
            json.dumps(request).encode() + b"\n"
            for request in (
                {"id": 1, "cmd": "hello", "version": 1},
                {
                    "id": 2,
                    "cmd": "showdown",
                    "showdown_id": f"evil-http-{rounds}",
                    "cards": 2,
                    "players": PLAYERS,
                },
                {"id": 3, "cmd": "start"},
                {"id": 4, "cmd": "bench_timer"},
            )
        )
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
        try:
            connection.request("POST", "/", body=body, headers={"Content-Type": "text/plain"})
            response = connection.getresponse()
        except ConnectionRefusedError:
            raise
        except (http.client.HTTPException, ConnectionError):
            if self.service.generation != generation:
                raise ConnectionError("the daemon went away") from None
            self._count("http_refused")
        else:
            raise Wrong(f"an HTTP POST got an HTTP response: {response.status}")
        finally:
            connection.close()

    def _silent(self, port: int, generation: int, rng: random.Random, rounds: int) -> None:
        """Connect and say nothing: one hello_timeout line, then the link closes."""
        with self._connect(port) as sock:
            lines = _read_to_eof(sock).splitlines()
        if not lines:
            raise ConnectionError("closed without a word")
        codes = [json.loads(line).get("error", {}).get("code") for line in lines]
        if codes != ["hello_timeout"]:
            raise Wrong(f"a silent socket got {lines}")
        self._count("silent_closed")

    def _storm(self, port: int, generation: int, rng: random.Random, rounds: int) -> None:
        for _ in range(200):
            self._connect(port).close()
            self._count("storm_connects")


# -- figures ----------------------------------------------------------------------------


def summary(chaos: Chaos, rabble: Rabble, seconds: float, seed: int) -> dict:
    figures, tracks = chaos.figures, chaos.tracks
    ready = figures.kill_to_ready_s
    return {
        "showdowns": figures.showdowns,
        "seed": seed,
        "seconds": round(seconds, 1),
        "kills": dict(figures.kills),
        "kill_moments_missed": figures.moments_missed,
        "kills_decided_before_the_client_saw_it": figures.kills_decided_unseen,
        "launch_after_a_kill_in_launching": dict(figures.after_kill["launching"]),
        "journal_after_a_kill": {
            moment: dict(launches) for moment, launches in figures.after_kill.items()
        },
        "kill_to_ready_s": {
            "median": round(statistics.median(ready), 3) if ready else None,
            "max": round(max(ready), 3) if ready else None,
        },
        "link_cuts": figures.link_cuts,
        "full_disk": {
            "runs": figures.full_disk_runs,
            "faulted": figures.full_disk_faults,
            "cleared_by_cancel": figures.full_disk_cleared,
            "reason": figures.full_disk_reason,
        },
        "full_disk_failures": figures.full_disk_runs - figures.full_disk_faults,
        "second_daemons": {
            "started": figures.second_daemons,
            "exited_78": figures.second_daemons_refused,
        },
        "second_daemons_not_refused": figures.second_daemons - figures.second_daemons_refused,
        "verdicts_seen": sum(bool(track.seen) for track in tracks),
        "answered_from_journal": figures.answered_from_journal,
        "verdicts_lost": sum(track.lost for track in tracks),
        "verdicts_changed": sum(track.changed for track in tracks),
        "launches_without_record": sum(track.unrecorded for track in tracks),
        "run_twice": sum(track.twice for track in tracks),
        "unfinished": figures.unfinished,
        "bad_clients": {
            key: rabble.counts[key]
            for key in (
                "bursts",
                "pings",
                "garbage_rounds",
                "garbage_lines",
                "garbage_cut_by_hello_timeout",
                "burst_cut_by_hello_timeout",
                "http_refused",
                "silent_closed",
                "storm_connects",
                "cut_by_a_restart",
            )
        },
        "bad_client_problems": len(rabble.problems),
        "bad_client_arms": len(figures.foreign_arms) + figures.unasked_starts,
        "unexpected_daemon_exits": figures.unexpected_exits,
        "harness_errors": len(figures.harness_errors),
        "problems": (figures.harness_errors + rabble.problems)[:10],  # the first few, in words
        "daemon_starts": chaos.service.starts,
    }


#: Each must be 0 for exit status 0.
MUST_BE_ZERO = (
    "verdicts_lost",
    "verdicts_changed",
    "launches_without_record",
    "run_twice",
    "bad_client_arms",
    "bad_client_problems",
    "full_disk_failures",
    "second_daemons_not_refused",
    "unexpected_daemon_exits",
    "harness_errors",
    "unfinished",
)


def text(figures: dict) -> str:
    kills = figures["kills"]
    after = figures["journal_after_a_kill"]
    disk = figures["full_disk"]
    bad = figures["bad_clients"]
    ready = figures["kill_to_ready_s"]
    lines = [
        f"showdowns run: {figures['showdowns']} (seed {figures['seed']}) in "
        f"{figures['seconds']} s, {figures['daemon_starts']} daemon starts",
        f"kills (SIGKILL) per moment: {sum(kills.values())} ("
        + ", ".join(f"{moment} {count}" for moment, count in kills.items())
        + ")"
        + (
            f"; {figures['kill_moments_missed']} planned moments never came"
            if figures["kill_moments_missed"]
            else ""
        ),
        "  then the journal said, per moment: "
        + "; ".join(
            f"{moment} "
            + (", ".join(f"{launch} {count}" for launch, count in launches.items()) or "undecided")
            for moment, launches in after.items()
        ),
        f"  decided before the kill but not yet seen by the client: "
        f"{figures['kills_decided_before_the_client_saw_it']}",
        f"  kill to ready again: median {ready['median']} s, max {ready['max']} s",
        f"link cuts: {figures['link_cuts']}",
        f"full-disk faults: {disk['faulted']} of {disk['runs']} (cleared by cancel: "
        f"{disk['cleared_by_cancel']}); reason: {disk['reason']}",
        f"second daemons on the same journal: {figures['second_daemons']['started']}, "
        f"exited 78: {figures['second_daemons']['exited_78']}",
        f"verdicts seen: {figures['verdicts_seen']}; answered from the journal after a "
        f"kill or cut: {figures['answered_from_journal']}",
        f"verdicts lost: {figures['verdicts_lost']}",
        f"verdicts changed after restart: {figures['verdicts_changed']}",
        f"launches without a record: {figures['launches_without_record']}",
        f"showdowns run twice: {figures['run_twice']}",
        f"showdowns without a final result: {figures['unfinished']}",
        f"bad clients: {bad['bursts']} bursts ({bad['pings']} pings, all answered in order; "
        f"{bad['burst_cut_by_hello_timeout']} more cut by hello_timeout before their hello "
        f"was read), {bad['garbage_lines']} garbage lines refused in order in "
        f"{bad['garbage_rounds']} rounds ({bad['garbage_cut_by_hello_timeout']} of them cut "
        f"short by hello_timeout), {bad['http_refused']} HTTP POSTs refused, "
        f"{bad['silent_closed']} silent sockets closed at the hello deadline, "
        f"{bad['storm_connects']} connect/close; {bad['cut_by_a_restart']} cut by a restart",
        f"bad-client arms: {figures['bad_client_arms']}",
        f"bad-client problems: {figures['bad_client_problems']}",
        f"daemon exits nobody asked for: {figures['unexpected_daemon_exits']}",
        f"harness errors: {figures['harness_errors']}",
    ]
    lines += [f"  {problem}" for problem in figures["problems"]]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--showdowns", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--workdir",
        type=Path,
        help="keep the journal, config and daemon.log here (default: a "
        "temporary folder, kept only if something broke)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="run the daemon with -v (every wire line in daemon.log)",
    )
    args = parser.parse_args(argv)
    if args.showdowns < 1:
        parser.error("--showdowns must be at least 1")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="chaos-"))
    workdir.mkdir(parents=True, exist_ok=True)
    service = Service(workdir, verbose=args.verbose)
    chaos = Chaos(service, args.seed)
    rabble = Rabble(service, args.seed)
    started = time.monotonic()
    try:
        rabble.start()
        chaos.run(args.showdowns)
        rabble.stop()
        chaos.finish()
    finally:
        rabble.stop()
        service.close()
    figures = summary(chaos, rabble, time.monotonic() - started, args.seed)
    wrong = [key for key in MUST_BE_ZERO if figures[key]]
    print(json.dumps(figures) if args.json else text(figures))
    if wrong:
        print(
            f"broken: {', '.join(wrong)}; the journal and daemon.log are in {workdir}",
            file=sys.stderr,
        )
        return 1
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
