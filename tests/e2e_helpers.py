"""Shared pieces of the end-to-end tests: a fast unit config, a fast simulated
table, a match played through a RemoteUnit, and the check that the engine's
record and the unit's journal tell the same story."""

from __future__ import annotations

import contextlib
import os
import pty
import random
import re
import select
import socket
import threading
import tty
from typing import ClassVar

from engine.apps.demo import SimulatedTable
from engine.match import Driver
from engine.units.unit_link import open_serial_url
from engine.uno.bots import HeuristicBot
from engine.uno.game import Game
from firmware_host.people.reactions import Reactions
from firmware_host.service.journal import Journal

__all__ = [
    "E2E_CONFIG",
    "NAMES",
    "FAST_HANDS",
    "BOT_REACTION_MS",
    "SimulatedPerson",
    "fast_table",
    "play",
    "check_against_journal",
    "PtyBridge",
    "LinkOpens",
    "NoisyProxy",
]

#: Short enough that a showdown takes about 0.1 s; false starts still fit the
#: paddle lockout (countdown + minimum hold - 50 ms lockout > 5 ms).
E2E_CONFIG = """\
[timing]
countdown_step_s = 0.02
flash_period_s = 0.01
beep_s = 0.005
go_tone_s = 0.01
hold_min_s = 0.01
hold_max_s = 0.02
response_timeout_s = 2.0
paddle_warning_s = 0.1
bot_start_s = 0.01

[launcher]
spin_up_s = 0.01
per_card_s = 0.002
"""

NAMES = ["Ann", "Bob", "Cat"]


#: Quick hands for E2E_CONFIG: reactions around 25 ms, and more of the rare cases.
FAST_HANDS = Reactions(
    median_ms=25.0,
    min_ms=15.0,
    gap_sd_ms=4.0,
    false_start_rate=0.08,
    near_tie_rate=0.08,
    photo_finish_rate=0.08,
)


def fast_table(seed: int, **options) -> SimulatedTable:
    """A table with quick hands (:data:`FAST_HANDS`) for E2E_CONFIG."""
    options = {
        "reactions": FAST_HANDS,
        "settle_s": 0.025,
        "spin_up_s": 0.01,
        "per_card_s": 0.002,
        "countdown_s": 0.06,
        "hold_min_s": 0.01,
        **options,
    }
    return SimulatedTable(random.Random(seed), **options)


#: The bots' reaction medians on the unit, by seat (ms): the fastest the unit takes.
BOT_REACTION_MS = (100.0, 120.0, 140.0)


class SimulatedPerson:
    """A person at the unit who plays the cards as the heuristic bot does: an
    agent with no ``reaction_ms``, so the unit does not press their paddle
    (a simulated table does, see :func:`fast_table`)."""

    def __init__(self, name: str):
        self.name = name
        self._cards = HeuristicBot(name)

    def act(self, game, player):
        return self._cards.act(game, player)


def play(port, *, seed: int, target: int, players: int = 3, bots: bool = False) -> Driver:
    """A whole match through ``port``, invariants checked after every decision;
    returns the finished Driver (its match and events). The players choose their cards as heuristic
    bots do; at the unit they are people (a simulated table presses for them)
    unless ``bots``: then they are bots the unit presses for, with
    :data:`BOT_REACTION_MS`."""
    names = NAMES[:players]
    game = Game.new(players, "showdown", seed=seed, target=target)
    agents = [
        HeuristicBot(name, reaction_ms=BOT_REACTION_MS[seat]) if bots else SimulatedPerson(name)
        for seat, name in enumerate(names)
    ]
    match = Driver(game, agents, port, names=names, debug=True, match_id=f"e2e{seed}")
    match.run()
    game.check_invariants()
    return match


def check_against_journal(match: Driver, port, journal_path) -> int:
    """Every showdown in the engine's record has exactly one decided result in
    the unit's journal (same id, same loser, same cards, same players, the bot
    sides marked: those the unit pressed for), and the journal holds no
    decided result the engine did not apply. Returns the number of showdowns."""
    with Journal(journal_path, readonly=True) as journal:
        rows = {row["showdown_id"]: row for row in journal.history(1000)["results"]}
    showdowns = [e.data for e in match.events if e.kind == "showdown"]
    assert showdowns, "the match had no showdown"
    applied = set()
    for data in showdowns:
        unit_id = port.unit_ids[data["showdown_id"]]
        assert unit_id not in applied
        applied.add(unit_id)
        row = rows[unit_id]
        players = {"a": data["challenger"], "b": data["opponent"]}
        assert players[row["loser"]] == data["loser"]
        assert players[row["winner"]] == data["winner"]
        assert row["reason"] == data["reason"]
        assert row["cards"] == data["cards"]
        assert row["players"] == {"a": data["names"][0], "b": data["names"][1]}
        if port.presses_for_bots:
            assert row["bots"] == [side for side in "ab" if players[side] in data["bots"]]
    decided = {sid for sid, row in rows.items() if row["loser"] is not None}
    assert decided == applied
    # The undecided ones (timeouts, void ties) were armed again as <id>.1, <id>.2, ...
    first_ids = {re.sub(r"\.\d+$", "", unit_id) for unit_id in applied}
    for showdown_id in set(rows) - decided:
        assert re.sub(r"\.\d+$", "", showdown_id) in first_ids
    return len(showdowns)


def _raw_pty():
    master, slave = pty.openpty()
    tty.setraw(slave)
    return master, slave, os.ttyname(slave)


class PtyBridge:
    """Two ptys joined master to master by a byte-copying thread: a null-modem
    cable in software. The daemon opens ``daemon_path``, the engine
    ``engine_path`` (both pty slaves, so pyserial opens them as serial ports)."""

    def __init__(self):
        self._a_master, self._a_slave, self.daemon_path = _raw_pty()
        self._b_master, self._b_slave, self.engine_path = _raw_pty()
        self._stop_r, self._stop_w = os.pipe()
        self.copied = 0
        self._thread = threading.Thread(target=self._run, name="pty-bridge", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        peer = {self._a_master: self._b_master, self._b_master: self._a_master}
        while True:
            ready, _, _ = select.select([self._a_master, self._b_master, self._stop_r], [], [])
            if self._stop_r in ready:
                return
            for fd in ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    continue  # the far end is not open yet (EIO): nothing to copy
                view = memoryview(data)
                while view:
                    view = view[os.write(peer[fd], view) :]
                self.copied += len(data)

    def close(self) -> None:
        os.write(self._stop_w, b"x")
        self._thread.join(5)
        for fd in (
            self._a_master,
            self._a_slave,
            self._b_master,
            self._b_slave,
            self._stop_r,
            self._stop_w,
        ):
            os.close(fd)

    def __enter__(self) -> PtyBridge:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class LinkOpens:
    """An ``open_port`` for RemoteUnit that counts the links the engine opens.
    The proxy cannot count them: a stranger on the machine (another test's
    client retrying a port it once had) may reach its port too, and CI once
    saw three connections where the engine opened one."""

    def __init__(self):
        self.count = 0

    def __call__(self, url: str, **options):
        self.count += 1
        return open_serial_url(url, **options)


class NoisyProxy:
    """A TCP proxy between the engine and the daemon: it passes whole lines,
    adds a junk line before every ``junk_to_unit``-th line toward the unit and
    every ``junk_to_engine``-th line toward the engine, and, with ``cut_at``,
    drops the link (both sockets) instead of passing the ``cut_at``-th line
    toward the engine that contains ``cut_before``. New connections are served
    as they come (the engine reconnects through it)."""

    #: Noise the unit cannot take for a request (no usable id), and noise that
    #: is no message of the unit's.
    TO_UNIT: ClassVar[list[bytes]] = [
        b"\x00\xff\xfe garbage",
        b'{"half": ',
        b"[]",
        b'{"cmd": "ping"}',
        b"\xc3\x28 not utf-8",
    ]
    TO_ENGINE: ClassVar[list[bytes]] = [
        b"\xffnoise",
        b'{"not": "a message"}',
        b'{"id": 987654, "ok": true}',
        b'{"id": null, "ok": false, "error": {"code": "bad_json", "message": "x"}}',
    ]

    def __init__(
        self,
        unit_port: int,
        *,
        junk_to_unit: int = 0,
        junk_to_engine: int = 0,
        cut_before: bytes | None = None,
        cut_at: int = 1,
    ):
        self.unit_port = unit_port
        self.junk_to_unit = junk_to_unit
        self.junk_to_engine = junk_to_engine
        self.cut_before = cut_before
        self.cut_at = cut_at
        self.seen = 0
        self.cuts = 0
        self.junk_sent = 0
        self.null_id_errors = 0  # the unit's answers to the junk
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._closed = False
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    @property
    def url(self) -> str:
        return f"socket://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                engine, _ = self._listener.accept()
            except OSError:
                return
            try:
                unit = socket.create_connection(("127.0.0.1", self.unit_port))
            except OSError:  # the daemon is gone (a stranger came after the test)
                engine.close()
                continue
            for src, dst, toward in ((engine, unit, "unit"), (unit, engine, "engine")):
                threading.Thread(
                    target=self._pump, args=(src, dst, toward, (engine, unit)), daemon=True
                ).start()

    def _pump(self, src, dst, toward, both) -> None:
        buffer, count = b"", 0
        junk = self.TO_UNIT if toward == "unit" else self.TO_ENGINE
        every = self.junk_to_unit if toward == "unit" else self.junk_to_engine
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                *lines, buffer = (buffer + data).split(b"\n")
                for line in lines:
                    count += 1
                    if toward == "engine":
                        if b'"id":null' in line:
                            self.null_id_errors += 1
                        if self._cut(line):
                            return
                    if every and count % every == 0:
                        dst.sendall(junk[(count // every) % len(junk)] + b"\n")
                        self.junk_sent += 1
                    dst.sendall(line + b"\n")
        except OSError:
            pass
        finally:
            for sock in both:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def _cut(self, line: bytes) -> bool:
        if self.cut_before is None or self.cut_before not in line:
            return False
        with self._lock:
            self.seen += 1
            if self.seen != self.cut_at:
                return False
            self.cuts += 1
            return True

    def close(self) -> None:
        self._listener.close()
