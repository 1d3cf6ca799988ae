"""UnitWatcher against a real ``showdown-unit run --mock`` daemon: the outputs of
a showdown, the bench presses, a lost daemon reported and reconnected, a token
refused, a unit with real pins saying no."""

from __future__ import annotations

import threading
import time
from typing import ClassVar

import pytest

from engine.game.errors import CommandRefused, LinkLost
from engine.units.unit_link import open_serial_url
from engine.units.watch import REAL_PINS_TEXT, UnitWatcher
from tests.daemon_helpers import FAST_CONFIG, PLAYERS, WAIT_S, Client, running_daemon

pytestmark = pytest.mark.slow


class Listener:
    """Notes what the watcher tells, and waits for it."""

    def __init__(self):
        self.told: list[tuple] = []
        self._changed = threading.Condition()

    def _note(self, *item):
        with self._changed:
            self.told.append(item)
            self._changed.notify_all()

    def connected(self, hello, status):
        self._note("connected", hello, status)

    def outputs(self, outputs):
        self._note("outputs", outputs)

    def event(self, event):
        self._note("event", event.name, dict(event.data))

    def lost(self, problem, retrying):
        self._note("lost", problem, retrying)

    def wait_for(self, predicate, *, after=0, timeout=WAIT_S):
        """The first thing told (the ``after``-th or later, before or from now
        on) that passes ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for item in self.told[after:]:
                    if predicate(item):
                        return item
                left = deadline - time.monotonic()
                assert left > 0, f"never told; told: {self.told}"
                self._changed.wait(left)

    def outputs_seen(self):
        with self._changed:
            return [item[1] for item in self.told if item[0] == "outputs"]


class Watching:
    """A watcher of ``url`` running in a thread, closed on the way out."""

    def __init__(self, url, **options):
        self.listener = Listener()
        self.watcher = UnitWatcher(url, listener=self.listener, **options)
        self.thread = threading.Thread(target=self.watcher.run, name="watcher")

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.watcher.close()
        self.thread.join(WAIT_S)
        assert not self.thread.is_alive(), "the watcher did not stop"


def url(daemon):
    return f"socket://127.0.0.1:{daemon.port}"


def test_the_outputs_of_a_showdown_arrive_as_it_runs(tmp_path):
    with running_daemon(tmp_path) as daemon, Watching(url(daemon)) as w:
        _, hello, status = w.listener.wait_for(lambda i: i[0] == "connected")
        assert "outputs" in hello["capabilities"] and status["state"] == "idle"
        assert w.listener.wait_for(lambda i: i[0] == "outputs")[1]["go"] is False
        client = Client.tcp(daemon.port)
        client.hello()
        reply = client.request("showdown", showdown_id="w1", cards=2, players=PLAYERS)
        assert reply["ok"], reply
        client.request("bench_press", side="b", offset_ms=180)
        client.request("bench_press", side="a", offset_ms=215)
        client.request("bench_timer")
        result = client.wait_for_event("result")
        assert result["loser"] == "a"
        told = w.listener.wait_for(lambda i: i[:2] == ("event", "result"))
        after = next(n for n, item in enumerate(w.listener.told) if item is told)
        seen = w.listener.outputs_seen()
        assert any(o["go"] for o in seen)
        assert any(o["motor"] == {"direction": "a", "speed": 0.8} for o in seen)
        assert any(o["leds"] == [True, True, True] for o in seen)
        events = [i[1] for i in w.listener.told if i[0] == "event"]
        assert events.index("armed") < events.index("go") < events.index("result")
        # at rest again
        w.listener.wait_for(lambda i: i[0] == "outputs" and i[1] == seen[0], after=after)


def test_a_bench_press_holds_the_paddle_down_until_released(tmp_path):
    with running_daemon(tmp_path) as daemon, Watching(url(daemon)) as w:
        w.listener.wait_for(lambda i: i[0] == "connected")
        assert w.watcher.bench
        assert w.watcher.press("a").result(WAIT_S) == {}
        w.listener.wait_for(lambda i: i[0] == "outputs" and i[1]["paddles"]["a"])
        count = len(w.listener.told)
        assert w.watcher.release("a").result(WAIT_S) == {}
        w.listener.wait_for(lambda i: i[0] == "outputs" and not i[1]["paddles"]["a"], after=count)
        # the timer button arms a showdown and starts it, as on the unit
        assert w.watcher.timer().result(WAIT_S) == {}
        w.listener.wait_for(lambda i: i[:2] == ("event", "countdown"))


def test_a_unit_with_real_pins_says_no_without_being_asked(tmp_path):
    with running_daemon(tmp_path) as daemon, Watching(url(daemon)) as w:
        _, hello, _ = w.listener.wait_for(lambda i: i[0] == "connected")
        # as a unit with real pins says hello: no "bench"
        w.watcher.hello = {**hello, "capabilities": ["bots", "outputs"]}
        with pytest.raises(CommandRefused) as refused:
            w.watcher.press("b").result(WAIT_S)
        assert refused.value.code == "not_mock"
        assert refused.value.message == f"the unit at {url(daemon)} {REAL_PINS_TEXT}"
        with pytest.raises(ValueError, match='a side is "a" or "b", not \'c\''):
            w.watcher.press("c")


def test_a_lost_daemon_is_reported_and_the_watcher_comes_back_with_it(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    with running_daemon(tmp_path / "one") as daemon, Watching(url(daemon)) as w:
        w.listener.wait_for(lambda i: i[0] == "connected")
        port = daemon.port
        assert daemon.stop() == 0
        _, lost, retrying = w.listener.wait_for(lambda i: i[0] == "lost")
        assert lost.startswith("Lost the link to the unit (") and lost.endswith(
            "): reconnecting..."
        )
        assert retrying is True
        _, refused, _ = w.listener.wait_for(lambda i: i[0] == "lost" and "refused" in i[1])
        assert refused == (
            f"cannot reach the unit at socket://127.0.0.1:{port}: connection refused: nothing "
            f"listens at 127.0.0.1:{port}. What to do: Check that the unit is switched on and "
            "its daemon is running (showdown-unit run), and that it listens on that address and "
            "port (server.listen in its config), then retry."
        )
        with pytest.raises(
            LinkLost, match=f"not connected to the unit at socket://127.0.0.1:{port}"
        ):
            w.watcher.press("a").result(WAIT_S)
        told = len(w.listener.told)
        with running_daemon(tmp_path / "two", listen=f"127.0.0.1:{port}"):
            w.listener.wait_for(lambda i: i[0] == "connected", after=told)
            assert w.watcher.press("a").result(WAIT_S) == {}


def test_a_refused_token_is_said_once_and_not_retried(tmp_path):
    token = tmp_path / "token"
    token.write_text("correct horse\n")
    token.chmod(0o600)
    config = FAST_CONFIG + f'\n[server]\ntoken_file = "{token}"\n'
    with running_daemon(tmp_path, config_text=config) as daemon:
        w = Watching(url(daemon), token="wrong horse")
        with w:
            _, problem, retrying = w.listener.wait_for(lambda i: i[0] == "lost")
            w.thread.join(WAIT_S)
            assert not w.thread.is_alive()  # run() returned: nothing to retry
        assert retrying is False
        assert problem.startswith(f"the unit at {url(daemon)} refused the token: ")
        assert problem.endswith(
            "What to do: Check the token: the file given with --token-file must hold the same "
            "token as the unit's server.token_file (on a Pi, /etc/uno-showdown/token)."
        )
        right = Watching(url(daemon), token="correct horse")
        with right:
            right.listener.wait_for(lambda i: i[0] == "connected")


class RecordingPort:
    """A real port whose writes are noted (what the watcher sends)."""

    sent: ClassVar[list[bytes]] = []

    def __init__(self, url, **options):
        self.port = open_serial_url(url, **options)

    def fileno(self):
        return self.port.fileno()

    def read(self, size):
        return self.port.read(size)

    def write(self, data):
        RecordingPort.sent.append(bytes(data))
        return self.port.write(data)

    def close(self):
        self.port.close()


def test_a_quiet_link_is_pinged_and_close_stops_it_and_is_safe_twice(tmp_path):
    RecordingPort.sent = []
    with running_daemon(tmp_path) as daemon:
        w = Watching(url(daemon), heartbeat_s=0.2, open_port=RecordingPort)
        with w:
            w.listener.wait_for(lambda i: i[0] == "connected")
            deadline = time.monotonic() + WAIT_S
            while sum(b'"cmd":"ping"' in line for line in RecordingPort.sent) < 2:
                assert time.monotonic() < deadline, RecordingPort.sent
                w.thread.join(0.05)
            assert w.thread.is_alive() and w.watcher.watching
            told = len(w.listener.told)
            w.watcher.close()
            w.watcher.close()
            # It returns at its next poll (poll_s); the wait is a safety net, not a
            # timing check (how soon is the poll's contract, not this test's).
            w.thread.join(WAIT_S)
            assert not w.thread.is_alive()
            # Closed, not lost: nothing more was told (no "lost", no reconnect).
            assert w.listener.told[told:] == []
        assert not w.watcher.watching
        with pytest.raises(LinkLost):
            w.watcher.timer().result(WAIT_S)


def test_a_serial_line_cannot_be_watched_beside_the_game():
    with pytest.raises(ValueError) as error:
        UnitWatcher("/dev/ttyUSB0")
    assert str(error.value) == (
        "the unit panel watches a unit on the network (socket://HOST:PORT), not "
        "'/dev/ttyUSB0': a serial line has one end, and the game's link holds it"
    )
