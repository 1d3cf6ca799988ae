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
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.chaos_daemon import (  # noqa: E402
    CHAOS_CONFIG,
    FULL_DISK_BYTES,
    MAX_LINE_BYTES,
    PLAYERS,
    DaemonProcess,
    HarnessError,
    Service,
)
from benchmarks.chaos_rabble import Rabble, Wrong, reply_id  # noqa: E402
from benchmarks.chaos_report import MUST_BE_ZERO, text  # noqa: E402
from firmware_host.service.journal import Journal  # noqa: E402
from tests.daemon_helpers import WAIT_S, Client, LinkClosed  # noqa: E402

# The daemon, the bad clients and the report live in chaos_daemon, chaos_rabble
# and chaos_report; their names are here too, where the tests find them.
__all__ = [
    "main",
    "Chaos",
    "Service",
    "DaemonProcess",
    "HarnessError",
    "Rabble",
    "Wrong",
    "reply_id",
    "summary",
    "text",
    "MUST_BE_ZERO",
    "CHAOS_CONFIG",
    "MAX_LINE_BYTES",
    "FULL_DISK_BYTES",
]


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
