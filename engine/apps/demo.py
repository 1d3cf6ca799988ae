"""``showdown demo``: bots play a whole match through a real unit daemon on mock pins.

The demo starts ``showdown-unit run --mock`` as a child process on a free
loopback port (its own journal and config in a temporary directory), connects a
:class:`~engine.units.remote.RemoteUnit` to it, and lets heuristic bots play a match
to the target score. The unit presses each bot's paddle itself (its "bots"
capability: a virtual paddle with the bot's reaction median, ``REACTION_MS``)
and starts each showdown of two bots by itself, so nobody presses anything.
It decides every showdown exactly as it would on a Pi, journals it with the
bot sides marked, and the engine applies the result.

A :class:`SimulatedTable` plays the people at a unit on mock pins: for every
showdown it presses their paddles through the unit's bench commands (the
presses of :data:`firmware_host.people.reactions.HUMAN`, the model every
simulation shares: now and then a false start, a near-tie or a photo finish)
and presses the timer button. The demo uses it only on a unit too old to press
for bots; the end-to-end tests use it for simulated people.

The unit gets a short countdown and hold (``DEMO_UNIT_CONFIG``) so a match
takes seconds; its own defaults stay as they are, and the log says so. At the
end the daemon is stopped with SIGTERM and must exit 0.
"""

from __future__ import annotations

import argparse
import importlib.resources
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from engine.match import Driver, MatchEvent
from engine.units.remote import RemoteUnit, UnitProblem
from engine.units.unit_link import LinkLost, UnitLink
from engine.uno.bots import HeuristicBot
from engine.uno.game import Game
from engine.uno.words import event_text
from firmware_host.people import console
from firmware_host.people.reactions import HUMAN, Reactions
from firmware_host.people.words import ms, player_label, plural, reruns_text, versus

__all__ = [
    "DEMO_UNIT_CONFIG",
    "DEMO_TIMING",
    "NAMES",
    "SimulatedTable",
    "UnitDaemon",
    "DaemonError",
    "run_demo",
    "add_arguments",
    "command",
]

#: The unit's timing for the demo: short, so a 500-point match takes seconds.
DEMO_TIMING = {
    "countdown_step_s": 0.02,
    "flash_period_s": 0.01,
    "beep_s": 0.005,
    "go_tone_s": 0.01,
    "hold_min_s": 0.01,
    "hold_max_s": 0.02,
    "response_timeout_s": 2.0,
    "paddle_warning_s": 0.1,
    "bot_start_s": 0.02,
}
DEMO_LAUNCHER = {"spin_up_s": 0.02, "per_card_s": 0.005}
#: The unit's settle window (its default): the table needs it to time its presses.
DEMO_SETTLE_S = 0.025


def _toml(section: str, values: dict) -> str:
    return f"[{section}]\n" + "".join(f"{key} = {value!r}\n" for key, value in values.items())


DEMO_UNIT_CONFIG = (
    "# showdown demo: a short countdown and hold (the unit's defaults are "
    "much longer)\n"
    + _toml("timing", {**DEMO_TIMING, "settle_s": DEMO_SETTLE_S})
    + _toml("launcher", DEMO_LAUNCHER)
)

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Joe")
#: Each bot's reaction median on the unit (ms), by seat: a little different, so
#: the unit's figures tell them apart.
REACTION_MS = (215.0, 245.0, 230.0, 260.0, 200.0, 275.0, 225.0, 250.0, 235.0, 240.0)


class DaemonError(RuntimeError):
    """The unit daemon would not start, or did not stop cleanly."""


class SimulatedTable:
    """Two people at a unit on mock pins, played through the bench commands.

    For each countdown it draws the presses from ``reactions`` (a
    :class:`~firmware_host.people.reactions.Reactions`; :data:`HUMAN`
    unless given): a false start (one player presses before GO, the other
    never does), or the faster player's reaction and how much later the other
    one presses (now and then a near-tie, 20-180 µs apart, that the unit
    re-runs, or a photo finish), either player alike the faster one. It sends
    the presses relative to GO with ``bench_press``, then, unless the engine
    starts the unit itself, presses the timer button (``bench_timer``). Both
    let go of the paddles before each showdown, and after a tie, when they
    press again.

    On a unit that presses for bots (its hello lists "bots"), the table
    presses only the people's paddles: against a bot, one press (or a false
    start) for the person; for two bots nothing at all, not even the timer
    button, as the unit starts by itself.

    A press the unit would no longer see (later than the first press plus the
    settle window and the launch, ``settle_s + spin_up_s + per_card_s *
    cards``) is not sent: the unit drops a bench press still pending when the
    showdown ends, so it would change nothing. And a false start comes at
    most ``countdown_s + hold_min_s - lockout_s`` (less 5 ms) before GO: a
    paddle ignores its edges for ``lockout_s`` after the release that ended
    the last showdown, so an earlier press would go unseen.
    """

    def __init__(
        self,
        rng: random.Random,
        *,
        reactions: Reactions = HUMAN,
        press_timer: bool = True,
        settle_s: float = DEMO_SETTLE_S,
        spin_up_s: float = DEMO_LAUNCHER["spin_up_s"],
        per_card_s: float = DEMO_LAUNCHER["per_card_s"],
        countdown_s: float = 3 * DEMO_TIMING["countdown_step_s"],
        hold_min_s: float = DEMO_TIMING["hold_min_s"],
        lockout_s: float = 0.05,
    ):
        self.rng = rng
        self.reactions = reactions
        self.press_timer = press_timer
        self.settle_s = settle_s
        self.spin_up_s = spin_up_s
        self.per_card_s = per_card_s
        # How early a false start may come (see above), in ms.
        self.max_lead_ms = min(40.0, (countdown_s + hold_min_s - lockout_s) * 1000 - 5)
        if self.max_lead_ms < 1:
            raise ValueError(
                "countdown_s + hold_min_s must exceed lockout_s by 6 ms for false starts to be seen"
            )
        self._cards = 1
        self._people = "ab"  # the sides people press (the unit presses the bots')

    def plan(self, cards: int, people: str = "ab") -> list[tuple[str, float]]:
        """The presses for one countdown: (side, ms after GO), in time order,
        of the ``people`` sides (the unit presses for the others, bots)."""
        rng = self.rng
        if len(people) == 1:  # a person against a bot the unit presses for
            if self.reactions.false_start(rng):
                return [(people, round(-rng.uniform(1, self.max_lead_ms), 3))]
            return [(people, self.reactions.reaction_us(rng) / 1000)]
        if self.reactions.false_start(rng):
            return [(rng.choice("ab"), round(-rng.uniform(1, self.max_lead_ms), 3))]
        first_us, second_us = self.reactions.presses_us(rng)
        faster, slower = ("a", "b") if rng.random() < 0.5 else ("b", "a")
        times = {faster: first_us / 1000, slower: second_us / 1000}
        window_ms = (self.settle_s + self.spin_up_s + self.per_card_s * cards) * 1000
        return sorted(
            ((side, at) for side, at in times.items() if at < first_us / 1000 + window_ms - 1),
            key=lambda press: press[1],
        )

    def armed(self, link: UnitLink, request, unit_id: str) -> None:
        self._cards = request.cards
        self._people = _people_sides(link, request)
        if not self._people:
            return  # two bots: the unit presses for both and starts by itself
        self._release(link)  # hands off the paddles, whatever happened before
        self._press(link)
        if self.press_timer:
            link.call("bench_timer")

    def event(self, link: UnitLink, event) -> None:
        if event.name == "tie" and not event.data["void"] and self._people:
            self._release(link)  # they let go; the countdown runs again
            self._press(link)

    def _press(self, link: UnitLink) -> None:
        for side, offset_ms in self.plan(self._cards, self._people):
            link.call("bench_press", side=side, offset_ms=offset_ms)

    @staticmethod
    def _release(link: UnitLink) -> None:
        for side in "ab":
            link.call("bench_release", side=side)


def _people_sides(link: UnitLink, request) -> str:
    """The sides of ``request`` that people press: all but the bots, if the
    unit presses for bots (its hello lists "bots"), else both."""
    hello = link.hello or {}
    if "bots" not in hello.get("capabilities", ()):
        return "ab"
    players = {"a": request.challenger, "b": request.opponent}
    return "".join(side for side in "ab" if players[side] not in request.bots)


class UnitDaemon:
    """``python -m firmware_host -v run --mock`` as a child process,
    listening on a free loopback port, with its journal, config and log in
    ``workdir`` (``seed``: the unit's draws, ``run --seed``). The engine may not
    import the daemon, so this is a process and text: the port comes from the
    daemon's ``ready: ... tcp HOST:PORT`` log line.
    """

    READY = re.compile(r"ready: .*?\btcp 127\.0\.0\.1:(\d+)")

    def __init__(
        self,
        workdir: Path,
        *,
        config_text: str = DEMO_UNIT_CONFIG,
        listen: str = "127.0.0.1:0",
        python: str = sys.executable,
        seed: int | None = None,
    ):
        self.workdir = Path(workdir)
        self.seed = seed
        self.config_path = self.workdir / "unit.toml"
        self.journal_path = self.workdir / "results.sqlite3"
        self.log_path = self.workdir / "daemon.log"
        self.config_text = config_text
        self.listen = listen
        self.python = python
        self.process: subprocess.Popen | None = None
        self.port: int | None = None

    @property
    def url(self) -> str:
        return f"socket://127.0.0.1:{self.port}"

    @property
    def args(self) -> list[str]:
        return [
            self.python,
            "-m",
            "firmware_host",
            "-v",
            "run",
            "--mock",
            "--listen",
            self.listen,
            "--journal",
            str(self.journal_path),
            "--config",
            str(self.config_path),
            # The unit's draws (holds, the bots' reactions) seeded too: the same match.
            *([] if self.seed is None else ["--seed", str(self.seed)]),
        ]

    def start(self, timeout_s: float = 30.0) -> int:
        """Start the daemon and wait for its ready line; returns the port."""
        self.config_path.write_text(self.config_text)
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")
        }
        env["PYTHONUNBUFFERED"] = "1"
        # The log goes to a file: a pipe nobody reads would fill and stall the daemon.
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                self.args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
            )
        deadline = time.monotonic() + timeout_s
        while True:
            found = self.READY.search(self.log_text())
            if found:
                self.port = int(found.group(1))
                return self.port
            if self.process.poll() is not None:
                raise DaemonError(
                    f"the unit daemon exited with status {self.process.returncode} "
                    f"before it was ready:\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                self.kill()
                raise DaemonError(
                    f"the unit daemon was not ready after {timeout_s:g} s:\n{self.log_tail()}"
                )
            time.sleep(0.02)  # a log file gives no notice: look again shortly

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 15) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def stop(self, timeout_s: float = 15.0) -> int:
        """SIGTERM, then wait; returns the exit status (DaemonError if it hangs)."""
        process = self.process
        if process is None:
            return 0
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            raise DaemonError(
                f"the unit daemon did not stop within {timeout_s:g} s of SIGTERM and was killed"
            ) from None

    def kill(self) -> None:
        """SIGKILL (a crash, for the fault tests), then reap it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _unit_defaults() -> str:
    """The unit's own countdown and hold, from its packaged default config."""
    text = importlib.resources.files("firmware_host.service").joinpath("default.toml").read_text()
    config = tomllib.loads(text)
    timing = config["timing"]
    steps = len(config["pins"]["countdown_leds"])
    return (
        f"{steps} steps of {timing['countdown_step_s']:g} s and a "
        f"{timing['hold_min_s']:g}-{timing['hold_max_s']:g} s hold"
    )


def _notable(event: MatchEvent) -> bool:
    """The plays worth a line: actions that hit someone, wilds, UNO, a last card."""
    kind = event.kind
    if kind in (
        "match_start",
        "round_start",
        "face",
        "challenge",
        "catch",
        "showdown",
        "round_end",
        "match_end",
    ):
        return True
    if kind == "play":
        data = event.data
        return (
            data["uno"]
            or data["cards_left"] == 0
            or bool(data["draws"])
            or data["card"].startswith("W")
        )
    return False


class _Screen:
    """The demo's log lines, and on a terminal one progress line under them."""

    def __init__(self, out: TextIO, tty: bool):
        self.out = out
        self.tty = tty
        self.progress = ""

    def line(self, text: str) -> None:
        if self.tty:
            self.out.write("\r\x1b[K")
        self.out.write(text + "\n")
        if self.tty and self.progress:
            self.out.write(self.progress)
        self.out.flush()

    def show_progress(self, text: str) -> None:
        if self.tty:
            self.progress = text
            self.out.write("\r\x1b[K" + text)
            self.out.flush()

    def clear_progress(self) -> None:
        if self.tty and self.progress:
            self.out.write("\r\x1b[K")
            self.out.flush()
        self.progress = ""


def _showdown_line(number: int, event: MatchEvent, names) -> str:
    d = event.data
    challenger, opponent = d["names"]
    again = f" [{reruns_text(d['tie_reruns'])}]" if d["tie_reruns"] else ""
    sides = versus(player_label(challenger, "a"), player_label(opponent, "b"))
    return (
        f"  Showdown {number} ({d['cause']}): {challenger} loads "
        f"{plural(d['cards'], 'card')}, {sides}. Unit: {d['detail']}{again}. "
        f"{names[d['loser']]} takes the cards."
    )


def _scoreboard(names, scores, rounds_won, stats: dict) -> list[str]:
    """The final table: points and rounds from the engine, showdown figures from the unit."""
    lines = [
        "",
        "Final scoreboard (showdown figures are the unit's, from its journal):",
        f"  {'player':<7}{'points':>7}{'rounds':>8}{'showdowns':>11}{'won':>5}{'lost':>6}"
        f"{'false starts':>14}{'median reaction':>17}{'best':>10}",
    ]
    order = sorted(range(len(names)), key=lambda p: -scores[p])
    for p in order:
        unit = stats.get(names[p], {})
        lines.append(
            f"  {names[p]:<7}{scores[p]:>7}{rounds_won[p]:>8}"
            f"{unit.get('showdowns', 0):>11}{unit.get('wins', 0):>5}"
            f"{unit.get('losses', 0):>6}{unit.get('false_starts', 0):>14}"
            f"{ms(unit.get('median_reaction_us')):>17}"
            f"{ms(unit.get('best_reaction_us')):>10}"
        )
    return lines


def run_demo(
    *,
    seed: int = 1,
    players: int = 3,
    target: int = 500,
    out: TextIO = sys.stdout,
    tty: bool | None = None,
    workdir: Path | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Play the demo; returns the exit status (0: the match finished and the
    daemon stopped cleanly)."""
    if not 2 <= players <= len(NAMES):
        raise ValueError(f"players must be 2 to {len(NAMES)}, not {players}")
    screen = _Screen(out, out.isatty() if tty is None else tty)
    with tempfile.TemporaryDirectory(prefix="showdown-demo-") as tmp:
        daemon = UnitDaemon(Path(workdir or tmp), seed=seed)
        screen.line(f"Starting the unit daemon on mock pins: {' '.join(daemon.args[1:])}")
        try:
            daemon.start()
        except DaemonError as exc:
            screen.line(f"error: {exc}")
            return 1
        try:
            status = _play(daemon, screen, seed=seed, players=players, target=target, clock=clock)
        except KeyboardInterrupt:
            screen.clear_progress()
            screen.line("Interrupted: the match is abandoned.")
            status = 130
        finally:
            try:
                code: int | None = daemon.stop()
            except DaemonError as exc:
                screen.line(f"error: {exc}")
                code = None
        if code != 0:
            screen.line(f"error: the unit daemon exited with status {code}:\n{daemon.log_tail()}")
            return status or 1
        screen.line("The unit daemon stopped cleanly (SIGTERM, exit status 0).")
        return status


def _play(
    daemon: UnitDaemon, screen: _Screen, *, seed: int, players: int, target: int, clock
) -> int:
    rng = random.Random(seed)
    names = list(NAMES[:players])
    unit = _open_unit(daemon, screen, names, rng)
    if unit is None:
        return 1
    game = Game.new(players, "showdown", seed=seed, target=target)
    started = clock()
    counts = {"showdowns": 0}
    rounds_won = [0] * players

    def log(event: MatchEvent) -> None:
        if event.kind == "showdown":
            counts["showdowns"] += 1
            screen.line(_showdown_line(counts["showdowns"], event, names))
        elif event.kind == "round_end":
            rounds_won[event.data["winner"]] += 1
            screen.line(event_text(event, names))
        elif _notable(event):
            screen.line(
                ("  " if event.kind in ("play", "face", "challenge", "catch") else "")
                + event_text(event, names)
            )
        scores = ", ".join(f"{n} {s}" for n, s in zip(names, game.scores, strict=True))
        screen.show_progress(
            f"[round {game.round}, showdown {counts['showdowns']}, "
            f"{clock() - started:.0f} s] {scores}"
        )

    match = Driver(
        game,
        [HeuristicBot(name, reaction_ms=REACTION_MS[seat]) for seat, name in enumerate(names)],
        unit,
        names=names,
        log=log,
        match_id=f"s{seed}",
    )
    try:
        with unit:
            result = match.run()
    except UnitProblem as problem:
        screen.clear_progress()
        screen.line(f"error: {problem}. {problem.what_to_do}")
        return 1
    screen.clear_progress()
    try:
        stats = _unit_stats(daemon.url)
    except (LinkLost, RuntimeError) as exc:
        screen.line(f"(the unit's figures could not be read: {exc})")
        stats = {}
    for line in _scoreboard(names, result.scores, rounds_won, stats):
        screen.line(line)
    elapsed = clock() - started
    screen.line(
        f"{names[result.winner]} wins the match: {result.rounds} rounds, "
        f"{result.showdowns} showdowns, {result.decisions} decisions in {elapsed:.1f} s."
    )
    return 0


def _open_unit(
    daemon: UnitDaemon, screen: _Screen, names: list[str], rng: random.Random
) -> RemoteUnit | None:
    """The unit the demo plays on, opened, and told about (who presses the
    paddles); None when it could not be opened (the problem told)."""
    steps = ", ".join(
        f"{key} {value:g}"
        for key, value in DEMO_TIMING.items()
        if key in ("countdown_step_s", "hold_min_s", "hold_max_s")
    )
    screen.line(
        f"The unit listens on {daemon.url}; its journal is {daemon.journal_path} "
        "(removed at the end)."
    )
    screen.line(
        f"For the demo the unit runs a short countdown and hold ({steps}); its own "
        f"defaults are {_unit_defaults()}."
    )
    unit = RemoteUnit(daemon.url, start=False, id_prefix="demo")
    try:
        unit.open()
    except UnitProblem as problem:
        unit.close()
        screen.line(f"error: {problem}. {problem.what_to_do}")
        return None
    if unit.presses_for_bots:
        skills = ", ".join(f"{name} {REACTION_MS[seat]:g} ms" for seat, name in enumerate(names))
        screen.line(
            "The unit presses each bot's paddle itself, with that bot's reaction "
            f"({skills}, medians), and starts each showdown by itself: nobody presses "
            "anything."
        )
    else:  # an older unit: the table plays the paddles for the bots
        unit.table = SimulatedTable(random.Random(rng.getrandbits(64)))
        screen.line(
            "A simulated table presses the mock paddles and the timer button through the "
            "unit's bench commands; the unit decides every showdown."
        )
    return unit


def _unit_stats(url: str) -> dict:
    """Per-player showdown figures from the unit's journal (``history``): the
    unit keeps bots' figures apart from people's, and the demo's players are
    bots (people simulated by the table on a unit without bots)."""
    link = UnitLink(url)
    try:
        link.open()
        history = link.call("history", limit=1)
    finally:
        link.close()
    return {**history.get("bots", {}), **history["players"]}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        type=console.seed,
        default=1,
        help="deal, bots and table seed (default: 1, the same match each time)",
    )
    parser.add_argument(
        "--players",
        type=console.whole_number(2, len(NAMES)),
        default=3,
        help="number of bots (default: 3)",
    )
    parser.add_argument(
        "--target",
        type=console.positive_int,
        default=500,
        help="points that win the match (default: 500)",
    )


def command(args: argparse.Namespace) -> int:
    return run_demo(seed=args.seed, players=args.players, target=args.target)
