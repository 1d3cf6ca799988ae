"""``showdown league``, the command: a bad option is one clear line naming it
(before anything is opened); as a real process on a real broker it serves the
pages while the broker is down at its start (and says it retries), stores and
acks once the broker is up, loses nothing when SIGKILLed and restarted (the
resend is acked, stored once), and stops cleanly on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from engine.apps.cli import main
from engine.league.store_open import open_store
from tests.league_server_helpers import Uplink, resend_until_acked, showdown, wait_for

ROOT = Path(__file__).resolve().parents[1]
#: Between two polls of the pages: the table's server, which the league's is,
#: refuses an address that opens connections faster than 5 a second for long.
POLL_S = 0.3


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--broker", "mqtt:0"], "argument --broker: the port must be 1 to 65535, not '0'"),
        (["--listen", "x:99999"], "argument --listen: 'x:99999': give HOST:PORT with a port"),
        (
            ["--broker", "mqtt", "--allow-host", "http://x"],
            "argument --allow-host: 'http://x' is not a host name",
        ),
        (["--broker", "mqtt", "--listen", "here"], "argument --listen: 'here': give HOST:PORT"),
        (
            ["--broker", "mqtt", "--venue", "Bar 1"],
            "argument --venue: the venue must be 1 to 32 lower-case letters",
        ),
        (["--broker", "mqtt", "--username", "u"], "--username needs --password-file FILE"),
        (
            ["--broker", "mqtt", "--password-file", "/nonexistent"],
            "--password-file is for a broker login: give --username too",
        ),
        (
            ["--broker", "mqtt", "--username", "u", "--password-file", "/nonexistent/pw"],
            "--password-file /nonexistent/pw: cannot read it:",
        ),
        (
            ["--broker", "mqtt", "--ca-file", "/nonexistent/ca.pem"],
            "--ca-file /nonexistent/ca.pem: no such file",
        ),
        (
            ["--broker", "mqtt", "--db", "mysql://db/league"],
            "--db: cannot open 'mysql://db/league': a league database is sqlite:PATH",
        ),
    ],
)
def test_a_bad_option_is_one_line_naming_it(capsys, argv, error):
    try:
        status = main(["league", *argv])
    except SystemExit as exit:  # argparse's own checks
        status = exit.code
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert status == 2
    assert last.startswith("showdown league: error: ")
    assert error in last


def test_the_broker_port_defaults_to_1883_and_8883_with_tls():
    import argparse

    from engine.league.league_cmd import _broker_options, add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    plain = _broker_options(parser.parse_args(["--broker", "mqtt.local"]))
    tls = _broker_options(parser.parse_args(["--broker", "mqtt.local", "--tls"]))
    given = _broker_options(parser.parse_args(["--broker", "[::1]:1999", "--tls"]))
    assert (str(plain), str(tls), str(given)) == (
        "mqtt.local:1883",
        "mqtt.local:8883 (TLS)",
        "::1:1999 (TLS)",
    )


# -- the real process ---------------------------------------------------------------------


class League:
    """``python -m engine league`` in a process of its own, its output in a file."""

    def __init__(self, tmp_path: Path, broker_port: int, web_port: int, db: str):
        self.log = tmp_path / f"league-{web_port}.log"
        self.url = f"http://127.0.0.1:{web_port}"
        argv = [sys.executable, "-m", "engine", "-v", "league", "--broker"]
        argv += [f"127.0.0.1:{broker_port}", "--db", db, "--listen", f"127.0.0.1:{web_port}"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        wait_for(self._serving, "the league's pages", every=POLL_S)

    def _serving(self) -> bool:
        assert self.process.poll() is None, self.log.read_text()
        try:
            self.get("/figures.json")
        except OSError:
            return False
        return True

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=5) as answer:
            return json.loads(answer.read())

    def output(self) -> str:
        return self.log.read_text()

    def stop(self, sig=signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(20)


def test_the_league_serves_while_the_broker_is_down_then_stores_and_acks(mosquitto, tmp_path):
    from tests.league_servers import free_port

    db = f"sqlite:{tmp_path / 'league.sqlite3'}"
    mosquitto.stop()
    league = League(tmp_path, mosquitto.port, free_port(), db)
    try:
        wait_for(
            lambda: "cannot reach the broker" in league.output(), "the retry said", every=POLL_S
        )
        assert league.get("/figures.json")["broker"] == "reconnecting"
        mosquitto.start()
        wait_for(
            lambda: league.get("/figures.json")["broker"] == "connected", "connected", every=POLL_S
        )
        uplink = Uplink(mosquitto.host, mosquitto.port)
        try:
            resend_until_acked(uplink, [showdown(n=n) for n in range(1, 4)])
        finally:
            uplink.close()
        assert league.get("/figures.json")["results"] == 3
        assert league.stop() == 0
        assert "The league is closed." in league.output()
    finally:
        league.stop(signal.SIGKILL)


def test_the_league_sigkilled_and_restarted_acks_the_resend_and_stores_once(mosquitto, tmp_path):
    from tests.league_servers import free_port

    db = f"sqlite:{tmp_path / 'league.sqlite3'}"
    messages = [showdown(n=n) for n in range(1, 21)]
    uplink = Uplink(mosquitto.host, mosquitto.port)
    try:
        first = League(tmp_path, mosquitto.port, free_port(), db)
        wait_for(
            lambda: first.get("/figures.json")["broker"] == "connected", "connected", every=POLL_S
        )
        for message in messages[:10]:
            uplink.publish(message)
        wait_for(lambda: first.get("/figures.json")["results"] >= 5, "some stored", every=POLL_S)
        first.stop(signal.SIGKILL)
        second = League(tmp_path, mosquitto.port, free_port(), db)
        try:
            resend_until_acked(uplink, messages)  # all twenty, the first ten again
            assert second.get("/figures.json")["results"] == 20
        finally:
            assert second.stop() == 0
    finally:
        uplink.close()
    with open_store(db) as store:
        (unit,) = store.units()
        assert (unit["results"], unit["refusals"]) == (20, 0)


def test_without_the_web_extra_the_league_says_which_to_install(monkeypatch, capsys):
    from engine.league import league_cmd

    monkeypatch.setattr(league_cmd, "_importable", lambda module: module != "uvicorn")
    assert main(["league", "--broker", "mqtt"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "showdown league: error: showdown league needs the table extra: "
        "pip install 'uno-showdown[table,league]'"
    )
