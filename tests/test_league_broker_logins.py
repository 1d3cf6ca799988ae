"""The venue's broker as install-league.sh sets it up, for real: mosquitto with
the shipped config, password file and ACL (tests/league_servers.py's
``venue_broker``), the league process with its login, and the real uplinks with
theirs. A unit with its password is stored; a wrong password is refused and
said so; a unit cannot send a result as another, nor can anyone without a login."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import subprocess
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from firmware_host.protocol.league import encode, result_topic, showdown_message
from tests.league_servers import MOSQUITTO, Mosquitto, _missing, free_port
from tests.league_uplinks import VENUE, Fleet, LeagueProcess, result, wait_until

pytestmark = pytest.mark.slow


def password_files(folder: Path, broker: Mosquitto, **wrong: str) -> dict[str, Path]:
    """Each login's password in a file of its own (``wrong``: name -> another password)."""
    folder.mkdir(exist_ok=True)
    files = {}
    for name, password in broker.users.items():
        files[name] = folder / f"{name}.password"
        files[name].write_text(wrong.get(name, password) + "\n")
    return files


def league_with_login(tmp_path: Path, broker: Mosquitto, secret: Path) -> LeagueProcess:
    login = ["--username", "league", "--password-file", str(secret)]
    db = f"sqlite:{tmp_path / 'league.sqlite3'}"
    return LeagueProcess(tmp_path, broker.url, free_port(), db, options=login)


@contextlib.contextmanager
def connected_client(broker: Mosquitto, username: str | None, password: str | None):
    """A raw MQTT client (not an uplink), connected: (client, its CONNACK's
    reason). Stopped when the block ends: a refused one would go on retrying."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"raw-{username}")
    if username is not None:
        client.username_pw_set(username, password)
    answers: list = []
    client.on_connect = lambda _c, _u, _f, code, _p: answers.append(code)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        wait_until(lambda: answers, "the broker's answer to a login")
        yield client, answers[0]
    finally:
        client.loop_stop()
        client.disconnect()


def test_units_with_their_logins_reach_the_league_and_a_wrong_password_is_refused(
    venue_broker, tmp_path, caplog
):
    secrets = password_files(tmp_path / "secrets", venue_broker, **{"unit-3": "not-it"})
    league = league_with_login(tmp_path, venue_broker, secrets["league"]).start()
    fleet = Fleet(tmp_path / "units", venue_broker.url, 3, logins=secrets)
    caplog.set_level(logging.ERROR, logger="firmware_host.uplink")
    try:
        fleet.start()
        fleet.write(30)  # ten a unit
        wait_until(lambda: fleet.drained(upto=[10, 10, 0]), "units 1 and 2 acked")
        wait_until(
            lambda: "refused the connection: Not authorized" in caplog.text,
            "unit-3's uplink saying its login was refused",
        )
        units = {u["unit"]: u["results"] for u in league.get("/units.json")["units"]}
    finally:
        fleet.stop()
        league.stop()
    assert units == {"unit-1": 10, "unit-2": 10}
    assert fleet.uplinks[2].outbox.counts.sent == 0  # it sent nothing, and lost nothing:
    assert fleet.uplinks[2].outbox.cursor("journal") == 0  # its ten wait in its journal


def test_a_unit_cannot_send_a_result_as_another_nor_a_client_without_a_login(
    venue_broker, tmp_path
):
    secrets = password_files(tmp_path / "secrets", venue_broker)
    league = league_with_login(tmp_path, venue_broker, secrets["league"]).start()
    try:
        with connected_client(venue_broker, None, None) as (_, anonymous):
            assert anonymous.is_failure  # no login, no broker
        unit_2 = venue_broker.users["unit-2"]
        with connected_client(venue_broker, "unit-2", unit_2) as (forger, answer):
            assert not answer.is_failure
            forged = showdown_message(VENUE, "unit-1", 1, 1.0e9, {**result(0, 1), "launch": "none"})
            forger.publish(result_topic(VENUE, "unit-1"), encode(forged), qos=1).wait_for_publish(
                10
            )
            # Then one of its own, after the forgery (one client's messages keep their order).
            own = showdown_message(VENUE, "unit-2", 1, 1.0e9, result(1, 1))
            forger.publish(result_topic(VENUE, "unit-2"), encode(own), qos=1).wait_for_publish(10)
            wait_until(
                lambda: league.get("/figures.json")["results"] >= 1, "unit-2's own result stored"
            )
        recent = league.get("/standings.json?players=all")["recent"]
    finally:
        league.stop()
    assert [row["id"] for row in recent] == ["unit-2:sd-1"]
    assert json.dumps(recent).count("unit-1") == 0


def test_over_tls_the_units_and_the_league_check_the_brokers_certificate(tmp_path):
    """The venue config's "TLS on request": a TLS listener with a certificate of
    the venue's own CA; the uplink (ca_file) and the league (--ca-file) trust it."""
    if shutil.which("openssl") is None:
        _missing("no openssl: apt-get install openssl")
    if not os.path.exists(MOSQUITTO):
        _missing(f"no mosquitto at {MOSQUITTO}: apt-get install mosquitto")
    ca, cert, key = make_certificates(tmp_path / "tls")
    folder = tmp_path / "broker"
    folder.mkdir()
    users = {"league": "pw-league", "unit-1": "pw-unit-1"}
    broker = Mosquitto(folder, users=users).use_venue_config()
    tls_port = broker.add_tls_listener(cert, key)
    broker.start()
    secrets = password_files(tmp_path / "secrets", broker)
    tls_url = f"127.0.0.1:{tls_port}"
    login = ["--username", "league", "--password-file", str(secrets["league"])]
    league = LeagueProcess(
        tmp_path,
        tls_url,
        free_port(),
        f"sqlite:{tmp_path / 'l.sqlite3'}",
        options=[*login, "--ca-file", str(ca)],
    )
    fleet = Fleet(tmp_path / "units", tls_url, 1, logins=secrets, settings={"ca_file": str(ca)})
    try:
        league.start()
        fleet.start()
        fleet.write(5)
        wait_until(fleet.drained, "the unit's five acked over TLS")
        units = {u["unit"]: u["results"] for u in league.get("/units.json")["units"]}
    finally:
        fleet.stop()
        league.stop()
        broker.stop()
    assert units == {"unit-1": 5}


def make_certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA, and the broker's certificate for 127.0.0.1 signed by it: (ca, cert, key)."""
    folder.mkdir()
    ca, ca_key = folder / "ca.pem", folder / "ca.key"
    cert, key, request = folder / "broker.crt", folder / "broker.key", folder / "broker.csr"
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    sign = ["-out", cert, "-days", "2", "-extfile", folder / "san.ext"]
    for argv in (
        ["req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=venue CA"],
        ["req", *ec, "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"],
        ["x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", *sign],
    ):
        subprocess.run(["openssl", *map(str, argv)], check=True, capture_output=True)
    return ca, cert, key
