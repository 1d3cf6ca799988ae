"""The keyboard bench as a person sees it: ``showdown-unit -v run --mock`` in a
pseudo-terminal of 80 x 24 (pexpect), its output rendered by a terminal
emulator (pyte, with the scrollback), keys pressed as a person would.

Regression for what a bench tester met: log lines glued onto the status line,
a status line left stale in idle, no key to show the keys, press times never
shown, a header wider than 80 columns, the listening port never shown."""

import contextlib
import json
import re
import socket
import sys
import time

import pexpect
import pyte
import pytest

from tests.daemon_helpers import ROOT

pytestmark = pytest.mark.slow

WAIT_S = 30.0  # a safety net for a hung child, not a timing assertion
COLUMNS, ROWS = 80, 24

#: The status line, whole: the outputs, then the state.
STATUS = re.compile(
    r"bar \[[#.]{3}\]  GO [*.]  arrow (<A|B>|--)  buzz [*.]  motor (off|>[AB] \d+%)  \| [a-z_]+"
)
IDLE = "bar [...]  GO .  arrow --  buzz .  motor off  | idle"

# Short steps, so a showdown takes about a second.
CONFIG = """\
[timing]
countdown_step_s = 0.2
hold_min_s = 0.2
hold_max_s = 0.4
response_timeout_s = 5.0
[launcher]
spin_up_s = 0.1
per_card_s = 0.1
"""


class Terminal:
    """A child on a pty and the screen a person would see."""

    def __init__(self, argv, cwd):
        self.screen = pyte.HistoryScreen(COLUMNS, ROWS, history=2000)
        self.stream = pyte.ByteStream(self.screen)
        self.child = pexpect.spawn(
            argv[0], argv[1:], cwd=str(cwd), dimensions=(ROWS, COLUMNS), env=None
        )

    def rows(self) -> list[str]:
        """Every line, scrollback first, without trailing blanks."""
        history = [
            "".join(line[x].data for x in range(COLUMNS)).rstrip()
            for line in self.screen.history.top
        ]
        return history + [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.rows())

    def cursor_row(self) -> str:
        return self.screen.display[self.screen.cursor.y].rstrip()

    def pump(self) -> None:
        with contextlib.suppress(pexpect.TIMEOUT):
            self.stream.feed(self.child.read_nonblocking(65536, timeout=0.05))

    def wait_for(self, what, *, where=None) -> None:
        """Until ``what`` (a string or a regex) is on the screen (or in ``where()``)."""
        deadline = time.monotonic() + WAIT_S
        find = where or self.text
        while not _found(what, find()):
            assert time.monotonic() < deadline, f"{what!r} never came; the screen:\n{self.text()}"
            self.pump()

    def press(self, key: str) -> None:
        self.child.send(key)


def _found(what, text: str) -> bool:
    return what.search(text) is not None if isinstance(what, re.Pattern) else what in text


@pytest.fixture
def bench(tmp_path):
    config = tmp_path / "unit.toml"
    config.write_text(CONFIG)
    argv = [
        sys.executable,
        "-m",
        "firmware_host",
        "-v",
        "run",
        "--mock",
        "--listen",
        "127.0.0.1:0",
        "--config",
        str(config),
        "--journal",
        str(tmp_path / "results.sqlite3"),
    ]
    terminal = Terminal(argv, ROOT)
    try:
        yield terminal
    finally:
        terminal.child.terminate(force=True)


def test_the_bench_on_a_terminal_shows_what_a_person_needs(bench, tmp_path):
    # At start: a header within 80 columns, the real port, the journal.
    bench.wait_for(re.compile(r"protocol: tcp 127\.0\.0\.1:\d+\n"))
    bench.wait_for(IDLE, where=bench.cursor_row)
    rows = bench.rows()
    header = rows.index("mock unit on the keyboard: ? shows the keys, q quits")
    protocol = rows[header + 1]
    assert protocol.startswith("protocol: tcp 127.0.0.1:")  # not wrapped, not glued
    port = int(protocol.rsplit(":", 1)[1])
    assert port != 0
    # (a long path wraps, as it would for a person)
    assert f"results journal: {tmp_path}/results.sqlite3" in "".join(rows[header + 2 :])
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as link:
        link.sendall(b'{"id":1,"cmd":"hello","version":1}\n')
        reply = json.loads(link.makefile().readline())
    assert reply["id"] == 1 and reply["ok"] is True  # it is the port it listens on

    # ? shows the keys, cancel among them.
    bench.press("?")
    bench.wait_for("quit (outputs safe)")
    assert "  c         cancel the showdown: motor off, back to idle" in bench.rows()

    # A showdown: the timer button, then both paddles after GO.
    bench.press("t")
    bench.wait_for(re.compile(r" s  GO$", re.M))
    bench.press("a")
    bench.wait_for(re.compile(r"press     paddle A: \d+\.\d ms after GO"))
    bench.press("l")
    bench.wait_for(re.compile(r"press     paddle B: \d+\.\d ms after GO"))
    bench.wait_for(re.compile(r" s  result    "))
    # Back in idle, the status line says so, every output off: never stale.
    bench.wait_for(IDLE, where=bench.cursor_row)

    # A showdown cancelled in its countdown.
    bench.press("t")
    bench.wait_for(re.compile(r"\| (countdown|hold)$"), where=bench.cursor_row)
    bench.press("c")
    bench.wait_for(re.compile(r" s  cancelled "))
    bench.wait_for(IDLE, where=bench.cursor_row)

    rows = bench.rows()
    # -v's log lines printed above the status line, each on a line of its own.
    logs = [row for row in rows if row.startswith("INFO firmware_host.")]
    assert any(row.endswith("state idle -> armed") for row in logs), rows
    # The status line is the cursor's row and only there; no log text on it.
    assert STATUS.fullmatch(bench.cursor_row())
    statuses = [row for row in rows if "bar [" in row]
    assert statuses == [IDLE], rows
    press_a = next(row for row in rows if "press     paddle A:" in row)
    result = next(row for row in rows if " s  result    " in row)
    reaction_a = re.search(r"A (\d+\.\d) ms", result + rows[rows.index(result) + 1])
    assert reaction_a and f"{reaction_a.group(1)} ms after GO" in press_a  # the unit's figure

    bench.press("q")
    bench.wait_for("stopped: outputs safe")
    bench.child.expect(pexpect.EOF, timeout=WAIT_S)
    bench.child.close()
    assert bench.child.exitstatus == 0


def test_a_second_bench_on_a_taken_port_says_how_to_choose_another(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        terminal = Terminal(
            [
                sys.executable,
                "-m",
                "firmware_host",
                "run",
                "--mock",
                "--listen",
                f"127.0.0.1:{port}",
                "--journal",
                str(tmp_path / "results.sqlite3"),
            ],
            ROOT,
        )
        terminal.child.expect(pexpect.EOF, timeout=WAIT_S)
        said = terminal.child.before.decode()
        terminal.child.close()
    assert terminal.child.exitstatus == 78
    assert said == (
        f"error: <command line>: server.listen: 127.0.0.1:{port} is in use (another unit "
        "daemon?): choose another with --listen 127.0.0.1:0 or stop the other one\r\n"
    )
