"""The unit's subcommands: diagram, run (headless, on a terminal, signals), demo."""

import logging
import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time
from io import StringIO
from pathlib import Path
from types import SimpleNamespace

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_host.commands.cli import main
from firmware_host.commands.demo_cmd import play_demo
from firmware_host.commands.diagram import mermaid
from firmware_host.commands.run_cmd import TerminalUI, print_events
from firmware_host.core.mailbox import Mailbox
from firmware_host.core.result import UnitEvent
from firmware_host.core.unit import Unit
from firmware_host.service.config import load_config
from hw.mock import InjectableMockPin

WAIT_S = 30.0  # a safety net for a hung child, not a timing assertion


@pytest.fixture
def run_args(tmp_path):
    """``run --mock`` on a free port (never clashing with a daemon on 7700)
    with its own journal (not the mock journal other runs share)."""
    return [
        sys.executable,
        "-m",
        "firmware_host",
        "run",
        "--mock",
        "--listen",
        "127.0.0.1:0",
        "--journal",
        str(tmp_path / "results.sqlite3"),
    ]


def read_until(fd, text, buffer=b""):
    """Read from ``fd`` until ``text`` has appeared; returns all read."""
    deadline = time.monotonic() + WAIT_S
    while text.encode() not in buffer:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"{text!r} never came; got {buffer.decode(errors='replace')!r}"
        chunk = os.read(fd, 4096)
        assert chunk, f"the output ended before {text!r}: {buffer.decode(errors='replace')!r}"
        buffer += chunk
    return buffer


def test_diagram_prints_the_machines_mermaid_text(capsys, tmp_path):
    assert main(["diagram"]) == 0
    assert capsys.readouterr().out == mermaid()
    target = tmp_path / "machine.mmd"
    assert main(["diagram", "-o", str(target)]) == 0
    assert target.read_text() == mermaid()
    assert main(["diagram", "-o", str(tmp_path / "missing" / "x.mmd")]) == 1
    assert capsys.readouterr().err.startswith(f"error: cannot write {tmp_path}/missing/x.mmd: ")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_run_headless_stops_cleanly_on_a_signal(signum, run_args):
    child = subprocess.Popen(
        run_args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        read_until(child.stdout.fileno(), "SIGTERM or Ctrl-C stops it")
        child.send_signal(signum)
        out, _ = child.communicate(timeout=WAIT_S)
    finally:
        child.kill()
    assert child.returncode == 0
    assert out.decode().endswith("stopped: outputs safe\n")


def test_run_with_a_bad_config_is_one_line_and_exit_78(tmp_path, capsys):
    bad = tmp_path / "unit.toml"
    bad.write_text("[timing]\nsettle_s = -1\n")
    assert main(["run", "--mock", "--config", str(bad)]) == 78  # EX_CONFIG
    assert capsys.readouterr().err == (f"error: {bad}: timing.settle_s: must be >= 0.0, not -1.0\n")


def test_run_seeds_only_a_unit_on_mock_pins(capsys):
    # A real unit's draws (holds, the bots' reactions) must stay unpredictable.
    assert main(["run", "--seed", "3"]) == 78
    assert "--seed is only for --mock" in capsys.readouterr().err


def test_run_on_a_terminal_plays_the_table_from_the_keyboard(run_args):
    master, slave = pty.openpty()
    child = subprocess.Popen(run_args, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    try:
        seen = read_until(master, "q quit")
        os.write(master, b"t")  # the timer button
        seen = read_until(master, "countdown 1/3", seen)
        assert b"armed     local-" in seen
        assert b"bar [#..]" in read_until(master, "bar [#..]", seen)
        os.write(master, b"a")  # a jumps the countdown
        seen = read_until(master, "FALSE START by side A", seen)
        os.write(master, b"q")
        assert child.wait(WAIT_S) == 0
    finally:
        child.kill()
        os.close(master)


def test_the_keys_press_the_mock_pins_through_the_bench():
    config = load_config(None).replace(backend="mock")
    factory = MockFactory(pin_class=InjectableMockPin)
    with Unit(config, pin_factory=factory) as unit:
        ui = TerminalUI(unit, out=StringIO())
        assert ui.handle_key("t") is True
        assert unit.status()["state"] == "countdown"
        assert ui.handle_key("c") is True
        assert unit.status()["state"] == "idle"
        unit.arm("sd-1", 2)
        paddle_a = factory.pin(config.pins.paddle_a)
        assert paddle_a.state  # up: not pressed
        changes = len(paddle_a.states)
        ui.handle_key("a")  # tap: pressed now, released 0.15 s later
        # The pin went down: its history says so (on a loaded machine the release
        # may have come before the test looks, so not its level now).
        assert not paddle_a.states[changes].state
        ui.handle_key("x")  # not a key: nothing
        assert ui.handle_key("q") is False


def test_the_ui_prints_errors_with_their_codes():
    config = load_config(None).replace(backend="mock")
    with Unit(config, pin_factory=MockFactory(pin_class=MockPWMPin)) as unit:
        out = StringIO()
        assert TerminalUI(unit, out=out).handle_key("a") is True
        assert 'not_mock: the bench needs mock pins (backend "mock" or --mock)\n' in out.getvalue()


class BlockedTerminal:
    """A terminal nobody reads: every write waits until :attr:`unblocked` is set."""

    def __init__(self):
        self.unblocked = threading.Event()
        self.blocked = threading.Event()
        self.text = ""

    def write(self, text):
        self.blocked.set()
        self.unblocked.wait(WAIT_S)
        self.text += text

    def flush(self):
        pass


def test_printing_on_the_loop_thread_a_blocked_terminal_never_holds_up_the_unit():
    """Regression: the --mock event printer and keyboard ui printed from the
    unit's loop thread (a subscriber), so a terminal that was not read stalled
    the loop: a decision, or the motor's cut-off, would wait on stdout. Now the
    subscriber only puts the event in the ui's mailbox."""
    config = load_config(None).replace(backend="mock")
    terminal, mailbox = BlockedTerminal(), Mailbox()
    with Unit(config, pin_factory=MockFactory(pin_class=InjectableMockPin)) as unit:
        printer = threading.Thread(target=print_events, args=(unit, mailbox, terminal))
        printer.start()
        assert terminal.blocked.wait(WAIT_S)  # stuck on its first line
        unit.arm("sd-1", 2, {"a": "Ann", "b": "Bob"})  # events while the printer is stuck
        assert unit.cancel()["state"] == "idle"  # the loop answers all the same
        unit.arm("sd-2", 1)
        assert unit.status()["state"] == "armed"
        terminal.unblocked.set()
        mailbox.request_stop()
        printer.join(WAIT_S)
    mailbox.close()
    lines = [line.split(" s  ", 1)[1] for line in terminal.text.splitlines()[1:]]
    assert lines == [
        "armed     sd-1: 2 cards, Ann (side A) vs Bob (side B)",
        "cancelled sd-1",
        "armed     sd-2: 1 card, A (side A) vs B (side B)",
    ]


def test_the_ui_shows_events_it_takes_from_its_mailbox():
    config = load_config(None).replace(backend="mock")
    with Unit(config, pin_factory=MockFactory(pin_class=InjectableMockPin)) as unit:
        out = StringIO()
        ui = TerminalUI(unit, out=out)
        ui.show(UnitEvent("state", {"state": "countdown", "previous": "armed"}))
        ui.show(UnitEvent("go", {"showdown_id": "x", "ticks": 1.0}))
    text = out.getvalue()
    assert "| countdown" in text and "GO\n" in text


def test_the_header_and_the_keys_fit_80_columns_and_name_every_key(board):
    """Regression: the header (every key in one line) broke at 80 columns, and
    there was no key to show the keys."""
    out = StringIO()
    ui = TerminalUI(SimpleNamespace(board=board), out=out)
    assert len(TerminalUI.HEADER) <= 80 and "?" in TerminalUI.HEADER
    assert ui.handle_key("?") is True
    shown = out.getvalue().split("\r\x1b[K")
    keys = shown[1].splitlines()
    assert keys[0] == "keys:"
    assert [line.split()[0] for line in keys[1:]] == ["space,", "a", "l,", "c", "?,", "q"]
    assert "cancel the showdown" in keys[4]
    assert all(len(line) <= 80 for line in keys)
    assert shown[2].startswith("bar [...]")  # the status line, drawn again below


def test_each_press_shows_its_time_from_this_round_s_go(board):
    ui = TerminalUI(SimpleNamespace(board=board), out=StringIO())
    assert ui.press_text("a", 5.0) == "press     paddle A (no countdown running)"
    ui.show(UnitEvent("state", {"state": "countdown", "previous": "armed"}))
    ui.show(UnitEvent("countdown", {"showdown_id": "x", "step": 1, "steps": 3, "rerun": 0}))
    assert ui.press_text("b", 5.0) == "press     paddle B: before GO"
    ui.show(UnitEvent("go", {"showdown_id": "x", "ticks": 10.0}))
    assert ui.press_text("a", 10.2314) == "press     paddle A: 231.4 ms after GO"
    # A re-run: its own GO, none until then.
    ui.show(UnitEvent("countdown", {"showdown_id": "x", "step": 1, "steps": 3, "rerun": 1}))
    assert ui.press_text("a", 11.0) == "press     paddle A: before GO"
    ui.show(UnitEvent("state", {"state": "idle", "previous": "launching"}))
    assert ui.press_text("a", 12.0) == "press     paddle A (no countdown running)"


def test_the_status_line_is_redrawn_on_every_change_and_only_then(board):
    """Regression: in idle the status line was drawn only on an event or a
    key, so an output that changed after the last event stayed shown wrong."""
    out = StringIO()
    ui = TerminalUI(SimpleNamespace(board=board), out=out)
    ui.draw()
    assert out.getvalue() == "\r\x1b[Kbar [...]  GO .  arrow --  buzz .  motor off  | idle"
    ui.draw()
    assert out.getvalue().count("\r\x1b[K") == 1  # nothing changed: nothing written
    board.set_go(True)
    ui.draw()
    assert out.getvalue().endswith("\r\x1b[Kbar [...]  GO *  arrow --  buzz .  motor off  | idle")


def test_log_lines_wait_for_the_ui_and_go_to_stderr_when_it_is_not_running(board, capsys):
    root = logging.getLogger()
    to_stderr = logging.StreamHandler(sys.stderr)
    to_stderr.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(to_stderr)
    try:
        ui = TerminalUI(SimpleNamespace(board=board), out=StringIO())
        with ui.holding_logs():
            assert to_stderr not in root.handlers
            logging.getLogger("firmware_host.x").warning("the ui is not running")
        assert to_stderr in root.handlers
    finally:
        root.removeHandler(to_stderr)
    assert capsys.readouterr().err == "WARNING firmware_host.x: the ui is not running\n"


def test_demo_plays_the_four_scenes_and_says_the_countdown_is_short():
    out = StringIO()
    results = play_demo(out)
    text = out.getvalue()
    assert "The countdown is shortened for the demo: 0.5 s steps" in text
    assert [(r["reason"], r["winner"], r["loser"], r["tie_reruns"]) for r in results] == [
        ("faster", "a", "b", 0),
        ("false_start", "a", "b", 0),
        ("faster", "a", "b", 1),
        ("timeout", None, None, 0),
    ]
    assert "tie       120 us apart: re-run 1" in text
    assert "callback 9.0 ms after the tick" in text


def test_demo_command_ends_with_a_simulation_and_exit_0(capsys):
    assert main(["demo", "--showdowns", "30"]) == 0
    out = capsys.readouterr().out
    assert "== simulate --showdowns 30 --seed 1" in out
    assert out.endswith("every decision right\n")


def test_the_readme_shows_the_diagram_the_machine_prints():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert f"```mermaid\n{mermaid()}```\n" in readme
