"""The league's service (systemd/uno-showdown-league.service) and
``install-league.sh`` (the fake root of tests/systemd_helpers.py): the broker's
logins and ACL, the database, the service, on any Debian machine."""

from __future__ import annotations

import re
import stat
from pathlib import Path, PurePosixPath

import pytest

from engine.apps.cli import build_parser
from tests.systemd_helpers import (
    ROOT,
    exec_command,
    is_inside,
    parse_unit,
    setting,
    setting_list,
    systemd_restarts,
    writable,
)
from tests.test_systemd_files import HARDENING, open_doors

SCRIPT = ROOT / "systemd" / "install-league.sh"
SERVICE = ROOT / "systemd" / "uno-showdown-league.service"
UNIT_FILE = "etc/systemd/system/uno-showdown-league.service"
ENV_FILE = "etc/uno-showdown-league/league.env"
PASSWORD = "etc/uno-showdown-league/mqtt-password"
BROKER_CONF = "etc/mosquitto/conf.d/uno-showdown.conf"
BROKER_PASSWD = "etc/mosquitto/uno-showdown.passwd"
BROKER_ACL = "etc/mosquitto/uno-showdown.acl"
PIP = "pip install --quiet --disable-pip-version-check COPY[table,league]"
VENV = "opt/uno-showdown-league/venv"


@pytest.fixture(scope="module")
def league_unit():
    return parse_unit(SERVICE.read_text())


def read_env(path: Path) -> dict[str, str]:
    """An EnvironmentFile= as systemd reads it (KEY=VALUE lines, # comments)."""
    pairs = (line.split("=", 1) for line in path.read_text().splitlines())
    return {k: v for k, v in (p for p in pairs if len(p) == 2) if not k.startswith("#")}


def expand(argv: list[str], env: dict[str, str]) -> list[str]:
    """ExecStart='s variables as systemd expands them: ``${X}`` one word,
    ``$X`` alone as many words as it holds (systemd.service(5), Command lines)."""
    out: list[str] = []
    for word in argv:
        alone = re.fullmatch(r"\$([A-Z_]+)", word)
        if alone:
            out += env.get(alone.group(1), "").split()
        else:
            out.append(re.sub(r"\$\{([A-Z_]+)\}", lambda m: env.get(m.group(1), ""), word))
    return out


def league_command(league_unit, env: dict[str, str]):
    """The service's ExecStart under ``env``, read by the real `showdown` command line."""
    prefixes, argv = exec_command(setting(league_unit, "ExecStart"))
    assert prefixes == ""
    argv = expand(argv, env)
    assert PurePosixPath(argv[0]) == PurePosixPath("/opt/uno-showdown-league/venv/bin/showdown")
    return build_parser().parse_args(argv[1:])


def install(system, *args):
    done = system.run(*args, script=SCRIPT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def first_install_changes(system, *, postgresql=True):
    root = system.root
    return [
        "apt-get install -y --no-install-recommends mosquitto"
        + (" postgresql" if postgresql else ""),
        "useradd --system --user-group --home-dir /var/lib/uno-showdown-league "
        "--no-create-home --shell /usr/sbin/nologin --comment UNO Showdown league uno-league",
        f"python3 -m venv {root}/{VENV}",
        PIP,
        f"chown root:uno-league {root}/{PASSWORD}",
        "mosquitto_passwd -U " + "TMP",
        f"chown root:mosquitto {root}/{BROKER_PASSWD}",
        f"chown root:mosquitto {root}/{BROKER_ACL}",
        *(
            [
                "runuser -u postgres -- createuser uno-league",
                "runuser -u postgres -- createdb --owner uno-league uno_league",
            ]
            if postgresql
            else []
        ),
        "systemctl daemon-reload",
        "systemctl restart mosquitto",
        "systemctl enable --now uno-showdown-league",
    ]


def changes(system) -> list[str]:
    """The recorded changes, mosquitto_passwd's temporary file shown as TMP."""
    return [
        re.sub(r"^mosquitto_passwd -U /\S+$", "mosquitto_passwd -U TMP", c) for c in system.changes
    ]


# --- the unit file ----------------------------------------------------------


def test_the_service_runs_showdown_league_with_the_installed_settings(system, league_unit):
    install(system)
    env = read_env(system.root / ENV_FILE)
    args = league_command(league_unit, env)
    assert args.broker == ("127.0.0.1", 1883)
    assert (args.username, str(args.password_file)) == ("league", f"/{PASSWORD}")
    assert args.db == "postgresql:///uno_league"
    assert args.listen == ("0.0.0.0", 8090)
    assert setting(league_unit, "EnvironmentFile") == f"/{ENV_FILE}"
    # The options line: as many words as it holds.
    more = {**env, "LEAGUE_OPTIONS": "--venue bar-1 --allow-host league.local"}
    args = league_command(league_unit, more)
    assert (args.venue, args.allow_host) == ("bar-1", ["league.local"])


def test_it_writes_only_its_state_directory_and_reads_its_password_by_its_group(league_unit):
    dirs = writable(league_unit)
    assert is_inside("/var/lib/uno-showdown-league/league.sqlite3", dirs)
    assert not is_inside(f"/{PASSWORD}", dirs) and not is_inside(f"/{ENV_FILE}", dirs)
    assert setting(league_unit, "User") == setting(league_unit, "Group") == "uno-league"


def test_it_comes_after_its_broker_and_database_but_never_needs_them(league_unit):
    for name in ("mosquitto.service", "postgresql.service"):
        assert name in setting_list(league_unit, "After", "Unit")
        assert name in setting_list(league_unit, "Wants", "Unit")
    for binding in ("Requires", "BindsTo", "Requisite"):
        assert setting_list(league_unit, binding, "Unit") == []


def test_it_is_restarted_whatever_ends_it_but_a_bad_option(league_unit):
    assert not systemd_restarts(league_unit, exit_status=2)  # a usage error in league.env
    for ending in ({"exit_status": 1}, {"exit_status": 0}, {"signal": "SIGKILL"}):
        assert systemd_restarts(league_unit, **ending)


def test_the_league_shuts_every_door_the_unit_does(league_unit):
    missing = open_doors(league_unit, HARDENING)
    assert missing == []
    assert setting(league_unit, "PrivateDevices") == "yes"
    assert set(setting_list(league_unit, "RestrictAddressFamilies")) == {
        "AF_UNIX",  # PostgreSQL's local socket
        "AF_INET",
        "AF_INET6",
    }


# --- install-league.sh --------------------------------------------------------


def test_a_first_install_sets_up_the_broker_the_database_and_the_service(system):
    done = install(system)
    assert changes(system) == first_install_changes(system)
    root = system.root
    assert (root / UNIT_FILE).read_bytes() == SERVICE.read_bytes()
    assert (root / BROKER_CONF).read_bytes() == (
        ROOT / "systemd/league-mosquitto.conf"
    ).read_bytes()
    assert (root / BROKER_ACL).read_bytes() == (ROOT / "systemd/league-mosquitto.acl").read_bytes()
    password = (root / PASSWORD).read_text().strip()
    assert len(password) >= 32 and stat.S_IMODE((root / PASSWORD).stat().st_mode) == 0o640
    assert system.owner(PASSWORD) == "root:uno-league"
    # The league's login, hashed (by the stand-in here), with the password the service reads.
    assert (root / BROKER_PASSWD).read_text() == f"league:$7$hashed-{password}\n"
    assert system.owner(BROKER_PASSWD) == "root:mosquitto"
    assert stat.S_IMODE((root / BROKER_PASSWD).stat().st_mode) == 0o640
    assert done.stdout.splitlines()[-3] == (
        "done: the standings at http://192.168.1.23:8090/ and the units at /units"
    )


def test_a_second_run_changes_nothing_and_a_new_package_restarts_the_league(system):
    install(system)
    before = system.snapshot()
    install(system)
    assert changes(system) == [PIP]
    assert system.snapshot() == before
    (system.state / "package").write_text("v2\n")
    install(system)
    assert changes(system) == [PIP, "systemctl restart uno-showdown-league"]


def test_with_sqlite_there_is_no_postgresql_and_the_file_is_in_the_state_directory(system):
    install(system, "--db", "sqlite", "--listen", "127.0.0.1:8091")
    assert changes(system) == first_install_changes(system, postgresql=False)
    env = read_env(system.root / ENV_FILE)
    assert env["LEAGUE_DB"] == "sqlite:/var/lib/uno-showdown-league/league.sqlite3"
    assert env["LEAGUE_LISTEN"] == "127.0.0.1:8091"


def test_league_env_is_the_users_once_made(system):
    install(system, "--db", "sqlite")
    env_file = system.root / ENV_FILE
    env_file.write_text(
        env_file.read_text().replace("LEAGUE_OPTIONS=", "LEAGUE_OPTIONS=--venue bar-1")
    )
    done = install(system, "--db", "postgresql")
    assert "note: /etc/uno-showdown-league/league.env exists and is kept" in done.stdout
    assert read_env(env_file)["LEAGUE_OPTIONS"] == "--venue bar-1"
    assert "postgresql" not in " ".join(changes(system))  # it still says sqlite


def test_add_unit_makes_a_login_once_and_says_how_to_give_it_to_the_pi(system):
    install(system)
    done = install(system, "--add-unit", "unit-1", "--add-unit", "unit-2")
    secret = system.root / "etc/uno-showdown-league/units/unit-1.password"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    lines = (system.root / BROKER_PASSWD).read_text().splitlines()
    assert [line.split(":")[0] for line in lines] == ["league", "unit-1", "unit-2"]
    assert lines[1] == f"unit-1:$7$hashed-{secret.read_text().strip()}"
    assert changes(system)[-1] == "systemctl restart mosquitto"  # it reads its logins at start
    assert (
        '  username = "unit-1" and password_file = "/etc/uno-showdown/uplink-password" in its uplink.toml'
        in done.stdout
    )
    done = install(system, "--add-unit", "unit-1")
    assert "note: the unit unit-1 has a login already" in done.stdout
    assert changes(system) == [PIP]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--db", "mysql"], "--db: postgresql or sqlite, not 'mysql'"),
        (["--listen", "8090"], "--listen: HOST:PORT, like 0.0.0.0:8090, not '8090'"),
        (
            ["--add-unit", "Unit 1"],
            "--add-unit: 1 to 32 lower-case letters, digits and inner dashes (like unit-1), "
            "not 'Unit 1'",
        ),
        (
            ["--add-unit", "league"],
            "--add-unit: 'league' is the broker login of the league, not a unit's name",
        ),
        (["--purge"], "--purge only goes with --uninstall"),
        (
            ["--uninstall", "--db", "sqlite"],
            "--db, --listen and --add-unit do not go with --uninstall",
        ),
    ],
)
def test_bad_arguments_are_refused_before_anything_changes(system, args, message):
    done = system.run(*args, script=SCRIPT)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (1, f"install-league.sh: {message}")
    assert system.changes == []


def test_a_dry_run_changes_nothing(system):
    done = system.run("--dry-run", "--add-unit", "unit-1", script=SCRIPT)
    assert done.returncode == 0, done.stderr
    assert system.changes == []
    assert (
        "would run: apt-get install -y --no-install-recommends mosquitto postgresql" in done.stdout
    )
    assert list(system.root.iterdir()) == []


def test_uninstall_keeps_the_results_and_logins_and_purge_removes_them(system):
    install(system, "--add-unit", "unit-1")
    done = install(system, "--uninstall")
    assert changes(system) == [
        "systemctl disable --now uno-showdown-league",
        "systemctl daemon-reload",
    ]
    assert "kept: /etc/uno-showdown-league (settings and logins)" in done.stdout
    root = system.root
    assert not (root / UNIT_FILE).exists() and not (root / BROKER_CONF).exists()
    assert (root / BROKER_PASSWD).exists() and (root / PASSWORD).exists()
    install(system, "--uninstall", "--purge")
    assert changes(system) == [
        "runuser -u postgres -- dropdb uno_league",
        "runuser -u postgres -- dropuser uno-league",
        "userdel uno-league",
    ]
    assert not (root / BROKER_PASSWD).exists() and not (root / "etc/uno-showdown-league").exists()


def test_the_script_reads_its_paths_from_the_files_it_installs():
    """What the script installs where is what the unit file and the broker's config name."""
    text = SCRIPT.read_text()
    conf = (ROOT / "systemd/league-mosquitto.conf").read_text()
    for path in ("/etc/mosquitto/uno-showdown.passwd", "/etc/mosquitto/uno-showdown.acl"):
        assert path in conf and path in text
    service = SERVICE.read_text()
    assert (
        f"--password-file /{PASSWORD} " in service and f"EnvironmentFile=/{ENV_FILE}\n" in service
    )
