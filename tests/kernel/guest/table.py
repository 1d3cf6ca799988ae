"""The simulated table around a gpio-sim chip, and the unit daemon on it.

Runs only inside the gpio-sim guest (tests/kernel/run.sh). The "outside
world" of the chip is its sysfs directory: writing ``pull-down`` to a line's
``pull`` is a switch to ground closing (a paddle pressed), ``pull-up`` opens
it; an output line's ``value`` is the level the program drives. A line no
program holds reads its pull: gpio-sim's default, pull-down, is the wiring's
10k pull-downs on the motor inputs (docs/wiring.md).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.daemon_helpers import Client, Daemon, supervised

__all__ = [
    "SimChip",
    "Sampler",
    "UnitOnChip",
    "unit_on_chip",
    "OUTPUTS",
    "PADDLE",
    "TIMER",
    "LED_BAR",
    "GO",
    "ARROW",
    "MOTOR",
    "ENABLE",
    "BUZZER",
    "TABLE_CONFIG",
    "LONG_LAUNCH",
    "launch_toward_b",
    "wait_until",
    "OUT_DIR",
]

# The packaged default pin map (firmware_host/service/default.toml).
PADDLE = {"a": 17, "b": 27}
TIMER = 22
LED_BAR = (5, 6, 13)
GO = 19
ARROW = {"a": 20, "b": 21}
BUZZER = 26
MOTOR = {"a": 23, "b": 24}
ENABLE = 12
OUTPUTS = (*LED_BAR, GO, ARROW["a"], ARROW["b"], BUZZER, MOTOR["a"], MOTOR["b"], ENABLE)

#: Slow enough that a sampler sees every countdown step and the PWM, fast
#: enough that a showdown takes about a second. Motor run: 0.2 + 2 x 0.05 s.
TABLE_CONFIG = """\
[timing]
countdown_step_s = 0.15
flash_period_s = 0.05
beep_s = 0.02
go_tone_s = 0.05
hold_min_s = 0.1
hold_max_s = 0.2
response_timeout_s = 1.0
paddle_warning_s = 0.4

[launcher]
spin_up_s = 0.2
per_card_s = 0.05
"""

#: A launch long enough to stop the daemon in the middle of it (4.1 s).
LONG_LAUNCH = TABLE_CONFIG.replace("spin_up_s = 0.2", "spin_up_s = 4.0\nmax_run_s = 6.0")

WAIT_S = 30.0
OUT_DIR = Path(os.environ.get("UNO_GPIO_SIM_OUT", "/run/out"))


def wait_until(condition, timeout: float = WAIT_S, what: str = "condition", poll: float = 0.001):
    """Poll ``condition`` until it is true; its value, or AssertionError."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(poll)


class SimChip:
    """The gpio-sim chip's sysfs side: what the table does to the unit."""

    def __init__(self):
        found = sorted(glob.glob("/sys/devices/platform/gpio-sim.*/gpiochip*"))
        if not found:
            raise RuntimeError("no gpio-sim chip: this runs only in the gpio-sim guest")
        self.path = Path(found[0])
        self.name = self.path.name  # gpiochip0
        self._value_fds: dict[int, int] = {}

    def _attr(self, line: int, name: str) -> Path:
        return self.path / f"sim_gpio{line}" / name

    def set_pull(self, line: int, pull: str) -> None:
        self._attr(line, "pull").write_text(pull)

    def pull(self, line: int) -> str:
        return self._attr(line, "pull").read_text().strip()

    def press(self, line: int) -> tuple[int, int]:
        """Close the switch on ``line`` (to ground); (ns before, ns after) the
        write on CLOCK_MONOTONIC, the clock of lgpio's edge ticks."""
        return self._write_pull(line, b"pull-down")

    def release(self, line: int) -> tuple[int, int]:
        return self._write_pull(line, b"pull-up")

    def _write_pull(self, line: int, what: bytes) -> tuple[int, int]:
        fd = os.open(self._attr(line, "pull"), os.O_WRONLY)
        try:
            before = time.monotonic_ns()
            os.write(fd, what)
            after = time.monotonic_ns()
        finally:
            os.close(fd)
        return before, after

    def value(self, line: int) -> int:
        fd = self._value_fds.get(line)
        if fd is None:
            fd = self._value_fds[line] = os.open(self._attr(line, "value"), os.O_RDONLY)
        return int(os.pread(fd, 4, 0))

    def values(self, lines=OUTPUTS) -> dict[int, int]:
        return {line: self.value(line) for line in lines}

    def close(self) -> None:
        for fd in self._value_fds.values():
            os.close(fd)
        self._value_fds.clear()


@dataclass
class Sampler:
    """Reads ``lines`` in a loop on a thread and keeps every change as
    ``(monotonic_ns, {line: value})``: the table's view of the outputs."""

    chip: SimChip
    lines: tuple[int, ...] = OUTPUTS
    changes: list[tuple[int, dict[int, int]]] = field(default_factory=list)
    reads: int = 0
    longest_read_ns: int = 0

    def __post_init__(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sampler", daemon=True)

    def _run(self) -> None:
        last = None
        while not self._stop.is_set():
            now = time.monotonic_ns()
            levels = {line: self.chip.value(line) for line in self.lines}
            # One line after another through sysfs: a snapshot is only as sharp
            # as the time it took (a few ms in the guest).
            self.longest_read_ns = max(self.longest_read_ns, time.monotonic_ns() - now)
            self.reads += 1
            if levels != last:
                self.changes.append((now, levels))
                last = levels

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(5)

    def rises(self, line: int) -> list[int]:
        """The times ``line`` went from low to high."""
        out, prev = [], 0
        for t, levels in self.changes:
            if levels[line] and not prev:
                out.append(t)
            prev = levels[line]
        return out

    def ever_high(self, line: int) -> bool:
        return any(levels[line] for _, levels in self.changes)

    def high_span(self, line: int) -> tuple[int, int] | None:
        """(first rise, last fall) of ``line`` in ns, or None if never high."""
        first = last = None
        prev = 0
        for t, levels in self.changes:
            if levels[line] and not prev and first is None:
                first = t
            if prev and not levels[line]:
                last = t
            prev = levels[line]
        if first is None:
            return None
        return first, last if last is not None else self.changes[-1][0]

    def duty(self, line: int, while_line: int) -> tuple[float, int]:
        """Time-weighted share of ``line`` high while ``while_line`` is high,
        and how many times ``line`` changed meanwhile (PWM: many)."""
        high = total = 0
        toggles = 0
        for (t, levels), (t_next, next_levels) in itertools.pairwise(self.changes):
            if levels[while_line]:
                total += t_next - t
                high += (t_next - t) if levels[line] else 0
                toggles += levels[line] != next_levels[line]
        return (high / total if total else 0.0), toggles


def launch_toward_b(client: Client, chip: SimChip) -> Client:
    """Arm, start, A presses: the motor runs toward B (LONG_LAUNCH: 4.1 s)."""
    for line in (*PADDLE.values(), TIMER):
        chip.release(line)
    assert client.request(
        "showdown",
        showdown_id=f"stop{time.monotonic_ns()}",
        cards=2,
        players={"a": "Ann", "b": "Bob"},
    )["ok"]
    assert client.request("start")["ok"]
    client.wait_for_event("go")
    chip.press(PADDLE["a"])
    wait_until(lambda: chip.value(MOTOR["b"]) == 1, 10, "motor toward b")
    chip.release(PADDLE["a"])
    return client


class UnitOnChip(Daemon):
    """A ``showdown-unit run`` process on the gpio-sim chip (``backend``: lgpio or rpigpio)."""

    backend: str

    def client(self) -> Client:
        assert self.port is not None
        client = Client.tcp(self.port)
        client.hello()
        return client


def daemon_args(config_path: Path, journal: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "firmware_host",
        "-v",
        "run",
        "--config",
        str(config_path),
        "--journal",
        str(journal),
        "--listen",
        "127.0.0.1:0",
    ]


def write_config(tmp_path: Path, backend: str, config_text: str = TABLE_CONFIG) -> Path:
    config_path = Path(tmp_path) / "unit.toml"
    config_path.write_text(f'backend = "{backend}"\n{config_text}')
    return config_path


@contextlib.contextmanager
def unit_on_chip(tmp_path, backend: str, config_text: str = TABLE_CONFIG, *, wait_ready=True):
    """Start the daemon with ``backend`` (lgpio or rpigpio) and yield it once
    it sent READY=1; SIGTERM (then SIGKILL) on the way out."""
    tmp_path = Path(tmp_path)
    tmp_path.mkdir(parents=True, exist_ok=True)
    config_path = write_config(tmp_path, backend, config_text)
    journal_path = tmp_path / "results.sqlite3"
    with supervised(
        daemon_args(config_path, journal_path),
        tmp_path,
        config_path=config_path,
        journal_path=journal_path,
        unset=("GPIOZERO_PIN_FACTORY",),
        wait_ready=wait_ready,
        ready_s=60,
        daemon_class=UnitOnChip,
    ) as unit:
        unit.backend = backend
        yield unit
