"""Real servers for the league's tests: mosquitto and PostgreSQL from Debian's
packages, started by the tests on free loopback ports and stopped after them.

A pytest plugin (``pytest_plugins`` in tests/conftest.py): its fixtures
``mosquitto`` (one broker per test: the outage tests kill and restart it),
``postgres_server`` (one server for the session) and ``postgres_url`` (a new,
empty database per test on it). Missing packages: one line saying how to get
them and the test skips, or fails under ``CI=true`` (.ci/run installs them).
PostgreSQL runs as the ``postgres`` user when the tests are root (initdb
refuses root), as the tests' own user otherwise. Every test using one of these
fixtures is slow (tests/conftest.py's SLOW_FIXTURES).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["Mosquitto", "PostgresServer", "free_port", "wait_for_port"]

MOSQUITTO = os.environ.get("MOSQUITTO", "/usr/sbin/mosquitto")
#: As root, mosquitto would become user mosquitto before it reads the password
#: file, which a test's 0700 temporary folder keeps from it: it stays root.
AS_ROOT = ["user root"] if os.geteuid() == 0 else []
#: The services' files: the venue broker's config that install-league.sh installs.
SYSTEMD = Path(__file__).resolve().parents[1] / "systemd"
PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
START_TIMEOUT_S = 30.0
#: A throwaway cluster: trust on loopback, no fsync of the new files.
INITDB_OPTIONS = ["-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"]


def _missing(message: str):
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    """A loopback port nobody listens on now (the server binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, what: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"{what} exited with {process.returncode}: {log.read_text()[-2000:]}"
            )
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.02)
    raise RuntimeError(f"{what} did not listen on {port} in {START_TIMEOUT_S} s")


class Mosquitto:
    """One mosquitto on a loopback port: anonymous, or with a password file
    (``users``: name -> password) and, if given, an ``acl`` file's text. :meth:`kill` SIGKILLs it, :meth:`start`
    brings it back on the same port (a restarted broker), with its
    persistence file if ``persistence`` is set."""

    def __init__(
        self,
        folder: Path,
        *,
        users: dict[str, str] | None = None,
        acl: str = "",
        persistence=False,
    ):
        self.folder, self.host, self.port = folder, "127.0.0.1", free_port()
        self.users, self.acl, self.persistence = users or {}, acl, persistence
        self.config, self.log = folder / "mosquitto.conf", folder / "mosquitto.log"
        self.process: subprocess.Popen | None = None
        self._write_config()

    def _write_config(self) -> None:
        lines = [
            f"listener {self.port} 127.0.0.1",
            *AS_ROOT,
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "max_queued_messages 100000",
            f"persistence {'true' if self.persistence else 'false'}",
            f"persistence_location {self.folder}/",
        ]
        if self.users:
            password_file = self.folder / "passwords"
            password_file.write_text("".join(f"{u}:{p}\n" for u, p in self.users.items()))
            subprocess.run(
                ["mosquitto_passwd", "-U", str(password_file)], check=True, capture_output=True
            )
            lines += ["allow_anonymous false", f"password_file {password_file}"]
            if self.acl:
                acl_file = self.folder / "acl"
                acl_file.write_text(self.acl)
                lines.append(f"acl_file {acl_file}")
        else:
            lines.append("allow_anonymous true")
        self.config.write_text("\n".join(lines) + "\n")

    @property
    def url(self) -> str:
        return f"{self.host}:{self.port}"

    def add_tls_listener(self, certfile: Path, keyfile: Path) -> int:
        """A second listener, TLS with this certificate, beside the plain one
        (the venue config's "TLS on request"); its port."""
        port = free_port()
        with self.config.open("a") as config:
            config.write(f"listener {port} 127.0.0.1\ncertfile {certfile}\nkeyfile {keyfile}\n")
        return port

    def use_venue_config(self) -> Mosquitto:
        """Serve with the venue broker's config as install-league.sh installs it
        (systemd/league-mosquitto.conf and its ACL), its port and paths moved
        into the test's folder: the logins in ``users``, no anonymous client."""
        assert self.users, "the venue's broker has logins"
        acl = self.folder / "acl"
        acl.write_text((SYSTEMD / "league-mosquitto.acl").read_text())
        text = (SYSTEMD / "league-mosquitto.conf").read_text()
        text = text.replace("/etc/mosquitto/uno-showdown.passwd", str(self.folder / "passwords"))
        text = text.replace("/etc/mosquitto/uno-showdown.acl", str(acl))
        assert "\nlistener 1883\n" in text
        text = text.replace("\nlistener 1883\n", f"\nlistener {self.port} 127.0.0.1\n")
        self.config.write_text("\n".join([*AS_ROOT, "log_dest stderr", text]) + "\n")
        return self

    def start(self) -> Mosquitto:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [MOSQUITTO, "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT
            )
        wait_for_port(self.port, self.process, "mosquitto", self.log)
        return self

    def kill(self) -> None:
        """SIGKILL, as a crash or a pulled plug: no goodbye to any client."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


class PostgresServer:
    """One PostgreSQL cluster in a folder of its own, on a loopback port,
    trusting loopback connections (a test server: nothing else reaches it)."""

    def __init__(self, folder: Path):
        self.folder, self.port = folder, free_port()
        self.data, self.log = folder / "data", folder / "postgres.log"
        self.process: subprocess.Popen | None = None
        self._ids = itertools.count(1)
        # initdb refuses root: the cluster belongs to postgres then.
        self.user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name

    def _as_owner(self) -> dict:
        """Popen's arguments that run a program as the cluster's owner: the
        server itself is the child (no runuser between, which would leave it
        running when signalled)."""
        if os.geteuid() != 0:
            return {}
        owner = pwd.getpwnam(self.user)
        return {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}

    def start(self) -> PostgresServer:
        if os.geteuid() == 0:
            shutil.chown(self.folder, self.user)
        subprocess.run(
            [str(PG_BIN / "initdb"), "-D", str(self.data), "-U", self.user, *INITDB_OPTIONS],
            check=True,
            capture_output=True,
            cwd=self.folder,
            **self._as_owner(),
        )
        argv = [str(PG_BIN / "postgres"), "-D", str(self.data), "-p", str(self.port)]
        argv += ["-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.folder}"]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, cwd=self.folder, **self._as_owner()
            )
        wait_for_port(self.port, self.process, "postgres", self.log)
        self._wait_until_ready()
        return self

    def _wait_until_ready(self) -> None:
        """The port opens before the server takes connections ("the database
        system is starting up"): ready when a connection is accepted."""
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                psycopg.connect(self.url(), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new, empty database: its URL."""
        import psycopg

        name = f"league_{os.getpid()}_{next(self._ids)}"
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            # SIGINT: PostgreSQL's fast shutdown.
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@pytest.fixture
def venue_broker(tmp_path) -> Iterator[Mosquitto]:
    """The venue's broker as install-league.sh sets it up (logins, the ACL),
    with the league's login and three units'; started, stopped after the test.
    Their passwords are in ``broker.users``."""
    if not os.path.exists(MOSQUITTO):
        _missing(f"no mosquitto at {MOSQUITTO}: apt-get install mosquitto (or set MOSQUITTO)")
    folder = tmp_path / "venue-broker"
    folder.mkdir()
    users = {name: f"pw-{name}-{os.getpid()}" for name in ("league", "unit-1", "unit-2", "unit-3")}
    broker = Mosquitto(folder, users=users).use_venue_config().start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def mosquitto(tmp_path) -> Iterator[Mosquitto]:
    """A broker of the test's own, started; stopped after the test."""
    if not os.path.exists(MOSQUITTO):
        _missing(f"no mosquitto at {MOSQUITTO}: apt-get install mosquitto (or set MOSQUITTO)")
    folder = tmp_path / "mosquitto"
    folder.mkdir()
    broker = Mosquitto(folder).start()
    try:
        yield broker
    finally:
        broker.stop()


#: The session's PostgreSQL servers, stopped when the session finishes.
_SESSION_SERVERS: list[PostgresServer] = []


@pytest.fixture(scope="session")
def postgres_server() -> PostgresServer:
    if not (PG_BIN / "initdb").exists():
        _missing(f"no PostgreSQL in {PG_BIN}: apt-get install postgresql (or set PG_BIN)")
    server = PostgresServer(Path(tempfile.mkdtemp(prefix="league-pg-"))).start()
    _SESSION_SERVERS.append(server)
    return server


def pytest_sessionfinish(session):
    # Here, not in the fixture's teardown: a session fixture is torn down inside
    # the last test's teardown, and the fast tier's guard would blame the wait
    # for the server's exit on that test.
    while _SESSION_SERVERS:
        server = _SESSION_SERVERS.pop()
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server) -> Iterator[str]:
    """A new, empty database on the session's PostgreSQL, dropped after the test."""
    url = postgres_server.new_database()
    try:
        yield url
    finally:
        postgres_server.drop_database(url)
