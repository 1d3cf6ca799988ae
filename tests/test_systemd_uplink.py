"""The uplink's service (systemd/uno-showdown-uplink.service) and
``install.sh --with-uplink BROKER`` (the fake root of tests/systemd_helpers.py)."""

from __future__ import annotations

import stat
from pathlib import PurePosixPath

import pytest

from firmware_host.commands.uplink_cmd import EX_CONFIG
from firmware_host.service import load_config
from firmware_host.service.journal_files import default_journal_path
from firmware_host.uplink import load_uplink_config
from tests.systemd_helpers import (
    DEFAULT_TOML,
    PIP,
    ROOT,
    daemon_command,
    environment,
    first_install_changes,
    is_inside,
    parse_unit,
    setting,
    setting_list,
    systemd_restarts,
    writable,
)
from tests.test_systemd_files import HARDENING, open_doors

UPLINK = ROOT / "systemd" / "uno-showdown-uplink.service"
UPLINK_UNIT_FILE = "etc/systemd/system/uno-showdown-uplink.service"
UPLINK_TOML = "etc/uno-showdown/uplink.toml"
PIP_UPLINK = PIP.replace("[pi]", "[pi,league]")


@pytest.fixture(scope="module")
def uplink_unit():
    return parse_unit(UPLINK.read_text())


def test_the_uplink_runs_showdown_unit_uplink_from_the_installed_venv(uplink_unit):
    argv, args = daemon_command(uplink_unit)
    assert PurePosixPath(argv[0]) == PurePosixPath("/opt/uno-showdown/venv/bin/showdown-unit")
    assert argv[1] == "uplink"
    assert args.config == "/etc/uno-showdown/uplink.toml"
    assert setting(uplink_unit, "Type") == "exec"


def test_it_reads_the_unit_s_journal_but_writes_only_its_own_state(uplink_unit, unit):
    _, args = daemon_command(uplink_unit)
    # The journal where the unit daemon keeps it, under the unit's own environment.
    config = load_config(DEFAULT_TOML)
    journal = default_journal_path(config.journal.path, mock=False, environ=environment(unit))
    assert PurePosixPath(args.journal) == PurePosixPath(journal)
    dirs = writable(uplink_unit)
    assert not is_inside(args.journal, dirs)
    assert is_inside(f"{args.state}/uplink-bar-1-unit-2.sqlite3", dirs)
    assert PurePosixPath(args.state) == PurePosixPath(environment(uplink_unit)["STATE_DIRECTORY"])
    # The unit's user: its journal's folder is 0700.
    assert setting(uplink_unit, "User") == setting(unit, "User")
    assert setting(unit, "StateDirectoryMode") == "0700"
    assert not is_inside("/etc/uno-showdown/uplink.toml", dirs)


def test_it_comes_after_the_unit_and_never_holds_it_up(uplink_unit):
    assert "uno-showdown-unit.service" in setting_list(uplink_unit, "After", "Unit")
    assert "uno-showdown-unit.service" in setting_list(uplink_unit, "Wants", "Unit")
    for binding in ("Requires", "BindsTo", "PartOf", "Requisite"):
        assert setting_list(uplink_unit, binding, "Unit") == []


def test_it_is_restarted_whatever_ends_it_but_a_bad_config_or_a_name_clash(uplink_unit):
    assert setting(uplink_unit, "Restart") == "always"
    assert not systemd_restarts(uplink_unit, exit_status=EX_CONFIG)
    for ending in ({"exit_status": 1}, {"exit_status": 0}, {"signal": "SIGKILL"}):
        assert systemd_restarts(uplink_unit, **ending)


def test_the_uplink_shuts_every_door_the_unit_does(uplink_unit):
    missing = open_doors(uplink_unit, HARDENING)
    assert missing == []
    assert setting(uplink_unit, "PrivateDevices") == "yes"  # no GPIO: it drives nothing


def test_with_uplink_installs_the_league_extra_its_config_and_its_service(system):
    done = system.run("--with-uplink", "mqtt.local:1883", "--venue", "bar-1")
    assert done.returncode == 0, done.stderr
    expected = [PIP_UPLINK if c == PIP else c for c in first_install_changes(system)]
    assert system.changes == [*expected, "systemctl enable --now uno-showdown-uplink"]
    assert f"+ install -D -m 0644 {ROOT}/systemd/uno-showdown-uplink.service " in done.stdout
    unit_file = system.root / UPLINK_UNIT_FILE
    assert unit_file.read_bytes() == UPLINK.read_bytes()
    assert stat.S_IMODE(unit_file.stat().st_mode) == 0o644
    config = load_uplink_config(system.root / UPLINK_TOML, system=False)
    assert (config.broker, config.venue, config.unit) == ("mqtt.local:1883", "bar-1", "unit-1")
    assert done.stdout.splitlines()[-1] == (
        "the uplink: journalctl -u uno-showdown-uplink -f   shows its log; "
        "its settings are in /etc/uno-showdown/uplink.toml"
    )


def test_once_installed_the_uplink_is_kept_up_to_date_and_its_config_kept(system):
    assert system.run("--with-uplink", "mqtt.local").returncode == 0
    config = system.root / UPLINK_TOML
    config.write_text(config.read_text().replace('venue = "venue-1"', 'venue = "bar-9"'))
    before = system.snapshot()
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert system.changes == [PIP_UPLINK]
    assert system.snapshot() == before
    (system.state / "package").write_text("v2\n")
    assert system.run().returncode == 0
    assert system.changes == [
        PIP_UPLINK,
        "systemctl restart uno-showdown-unit",
        "systemctl restart uno-showdown-uplink",
    ]
    done = system.run("--with-uplink", "other.local")
    assert "note: /etc/uno-showdown/uplink.toml exists and is kept; " in done.stdout
    assert load_uplink_config(config, system=False).venue == "bar-9"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--with-uplink", "mqtt://x"],
            "--with-uplink: the broker is HOST or HOST:PORT, not 'mqtt://x'",
        ),
        (["--venue", "bar-1"], "--venue only goes with --with-uplink BROKER"),
        (
            ["--with-uplink", "x", "--venue", "Bar 1"],
            "--venue: 1 to 32 lower-case letters, digits and inner dashes (like bar-1), not 'Bar 1'",
        ),
        (
            ["--uninstall", "--with-uplink", "x"],
            "--with-uplink and --venue do not go with --uninstall (which removes every service)",
        ),
    ],
)
def test_bad_uplink_arguments_are_refused(system, args, message):
    done = system.run(*args)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (1, f"install.sh: {message}")
    assert system.changes == []


def test_uninstall_removes_the_uplink_first_and_purge_its_state(system):
    assert system.run("--with-uplink", "mqtt.local").returncode == 0
    state = system.root / "var/lib/uno-showdown-uplink"
    state.mkdir(parents=True)
    done = system.run("--uninstall", "--purge")
    assert done.returncode == 0, done.stderr
    assert system.changes == [
        "systemctl disable --now uno-showdown-uplink",
        "systemctl disable --now uno-showdown-unit",
        "systemctl daemon-reload",
        "userdel uno-showdown",
    ]
    assert not state.exists() and not (system.root / UPLINK_UNIT_FILE).exists()
