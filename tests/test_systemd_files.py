"""The systemd unit, its motor-safe stop script and the installer.

The unit file is tested for the contracts the daemon relies on, each checked
against the code it must agree with: systemd waits for the daemon's READY=1 and
takes it from the main process only; the watchdog is pinged well within
WatchdogSec; a crash is restarted and a refusal is not; the motor pins are driven
low as root after every stop; the devices and paths the daemon uses are open to
it; and it stays as hardened as it is (systemd-analyze where installed, a named
list of directives everywhere).

The table's optional service (uno-showdown-table.service) is tested the same
way against what it must agree with: the real `showdown table` command line,
the unit's address, the installer's token, its state directory, the unit's
ordering, and a hardening list of its own (tests/test_systemd_table.py runs it).

The installer runs for real against a fake root (DESTDIR) with recording stubs
for the commands that would touch the system (systemctl, useradd, ...), with
and without --with-table.
"""

import fnmatch
import importlib
import ipaddress
import itertools
import os
import re
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath

import pytest

from firmware_host.commands import main
from firmware_host.protocol import token_from_text
from firmware_host.service import (
    EX_CONFIG,
    JournalLock,
    Notifier,
    WatchdogPacer,
    default_journal_path,
    load_config,
)

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "uno-showdown-unit.service"
INSTALL = ROOT / "systemd" / "install.sh"
MOTOR_SAFE = ROOT / "systemd" / "motor-safe.sh"
DEFAULT_TOML = ROOT / "firmware_host" / "service" / "default.toml"

#: The exposure `systemd-analyze security --offline=yes` gave the unit (systemd 252);
#: lower it when the unit gets tighter, never raise it.
EXPOSURE_TODAY = 1.6


# --- reading a unit file the way systemd does -------------------------------


def parse_unit(text: str) -> dict[str, list[tuple[str, str]]]:
    """A systemd unit as {section: [(key, value), ...]}; keys may repeat."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        key, sep, value = line.partition("=")
        assert sep and current is not None, f"not a unit line: {raw!r}"
        current.append((key.strip(), value.strip()))
    return sections


@pytest.fixture(scope="module")
def unit():
    return parse_unit(UNIT.read_text())


def setting(unit, key, section="Service") -> str | None:
    """A single-valued setting: the last assignment wins."""
    found = [v for k, v in unit.get(section, []) if k == key]
    return found[-1] if found else None


def setting_list(unit, key, section="Service") -> list[str]:
    """A list setting: each assignment adds words, an empty one clears the list."""
    found: list[str] = []
    for k, v in unit.get(section, []):
        if k == key:
            found = found + shlex.split(v) if v else []
    return found


def is_yes(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "yes", "y", "true", "t", "on")


def words(unit, key, section="Service") -> list[str] | None:
    """Like setting_list, but None when the unit never sets ``key`` (so an empty
    CapabilityBoundingSet=, no capabilities, differs from none set, all of them)."""
    if not any(k == key for k, _ in unit.get(section, [])):
        return None
    return setting_list(unit, key, section)


def yes(value: list[str] | None) -> bool:
    return bool(value) and is_yes(value[-1])


def only(*allowed: str):
    return lambda value: bool(value) and value[-1] in allowed


def entries(unit, key, section="Service") -> list[str]:
    """A setting whose every assignment is one entry (DeviceAllow=, Environment=)."""
    found: list[str] = []
    for k, v in unit.get(section, []):
        if k == key:
            found = [*found, v] if v else []
    return found


def timespan(text: str) -> float:
    """A systemd time span ("10", "10s", "1min 30s", "500ms") in seconds."""
    units = {"": 1, "s": 1, "sec": 1, "ms": 1e-3, "us": 1e-6, "m": 60, "min": 60, "h": 3600}
    assert re.fullmatch(r"(\s*\d+(\.\d+)?\s*[a-z]*)+\s*", text), f"not a time span: {text!r}"
    return sum(
        float(number) * units[unit]
        for number, unit in re.findall(r"(\d+(?:\.\d+)?)\s*([a-z]*)", text)
    )


def exec_command(line: str) -> tuple[str, list[str]]:
    """An Exec*= value as (its prefixes, argv); "+" runs with full privileges."""
    prefixes = re.match(r"[-@:+!]*", line).group()
    return prefixes, shlex.split(line[len(prefixes) :])


def environment(unit) -> dict[str, str]:
    """What the daemon finds in its environment under this unit."""
    env = dict(
        e.split("=", 1) for entry in entries(unit, "Environment") for e in shlex.split(entry)
    )
    for key, base in (("State", "/var/lib"), ("Runtime", "/run"), ("Configuration", "/etc")):
        names = setting_list(unit, f"{key}Directory")
        if names:
            env[f"{key.upper()}_DIRECTORY"] = ":".join(f"{base}/{n}" for n in names)
    return env


def writable(unit) -> list[PurePosixPath]:
    """The directories the service may write in, under ProtectSystem=strict."""
    assert setting(unit, "ProtectSystem") == "strict", "without it, everything is writable"
    dirs = [f"/var/lib/{n}" for n in setting_list(unit, "StateDirectory")]
    dirs += [f"/run/{n}" for n in setting_list(unit, "RuntimeDirectory")]
    dirs += [f"/var/cache/{n}" for n in setting_list(unit, "CacheDirectory")]
    dirs += [f"/var/log/{n}" for n in setting_list(unit, "LogsDirectory")]
    dirs += [p.lstrip("-") for p in setting_list(unit, "ReadWritePaths")]
    dirs += ["/tmp", "/var/tmp"] if is_yes(setting(unit, "PrivateTmp")) else []
    return [PurePosixPath(d) for d in dirs]


def is_inside(path, dirs) -> bool:
    return any(PurePosixPath(path).is_relative_to(d) for d in dirs)


def device_allowed(unit, path: str, driver: str, access: str = "rw") -> bool:
    """Whether the service may open device node ``path``, whose major number
    /proc/devices names ``driver`` (systemd.resource-control(5), DeviceAllow=)."""
    if is_yes(setting(unit, "PrivateDevices")):
        return False  # only /dev/null, zero, random and the like are left
    allow = entries(unit, "DeviceAllow")
    if (setting(unit, "DevicePolicy") or "auto") == "auto" and not allow:
        return True
    for entry in allow:
        spec, _, granted = entry.partition(" ")
        matches = (
            fnmatch.fnmatchcase(driver, spec.removeprefix("char-"))
            if spec.startswith("char-")
            else spec == path
        )
        if matches and set(access) <= set(granted.strip() or "rwm"):
            return True
    return False


CLEAN_SIGNALS = {"SIGHUP", "SIGINT", "SIGTERM", "SIGPIPE"}


def systemd_restarts(unit, *, exit_status=None, signal=None, watchdog=False) -> bool:
    """Whether systemd restarts the service after its main process exited with
    ``exit_status``, died of ``signal`` or missed the watchdog
    (systemd.service(5): Restart=, SuccessExitStatus=, RestartPreventExitStatus=)."""
    prevent = setting_list(unit, "RestartPreventExitStatus")
    if str(exit_status) in prevent or signal in prevent:
        return False
    success = {"0", *setting_list(unit, "SuccessExitStatus")}
    if watchdog:
        clean = False
    elif signal is not None:
        clean = signal in CLEAN_SIGNALS | success
    else:
        clean = str(exit_status) in success
    policy = setting(unit, "Restart") or "no"
    return {"no": False, "always": True, "on-failure": not clean}[policy]


def daemon_command(unit):
    """ExecStart read by the real command line: (its argv, the parsed arguments)."""
    _, argv = exec_command(setting(unit, "ExecStart"))
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, function = scripts[PurePosixPath(argv[0]).name].partition(":")
    cli = importlib.import_module(module)
    assert getattr(cli, function) is main
    return argv, cli.build_parser().parse_args(argv[1:])


# --- the unit's contracts with the daemon -----------------------------------


def test_systemd_waits_for_the_daemon_s_ready_and_believes_only_the_daemon(unit):
    # Type=notify: systemd counts the service started at READY=1, which the daemon
    # sends once it listens (tests/test_daemon_signals.py), not at the fork.
    assert setting(unit, "Type") == "notify"
    # NotifyAccess=main: only the main process may say READY=1 or WATCHDOG=1, so
    # ExecStart must be the daemon itself (the console script), not a shell around it.
    assert setting(unit, "NotifyAccess") == "main"
    argv, args = daemon_command(unit)
    assert PurePosixPath(argv[0]).name == "showdown-unit" and argv[0].startswith("/")
    assert (args.subcommand, args.mock) == ("run", False)
    # systemd names the main process in WATCHDOG_PID; a child that inherited the
    # environment keeps quiet, as systemd would ignore it anyway.
    child = Notifier.from_environ(
        {
            "NOTIFY_SOCKET": "/run/systemd/notify",
            "WATCHDOG_USEC": "10000000",
            "WATCHDOG_PID": str(os.getpid() + 1),
        }
    )
    assert child.watchdog_interval() is None


def test_the_daemon_pings_the_watchdog_at_least_twice_per_watchdog_sec(
    unit, tmp_path, virtual_clock
):
    watchdog_s = timespan(setting(unit, "WatchdogSec"))
    assert watchdog_s > 0
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify"))
    listener.setblocking(False)
    # The environment systemd gives the main process under this unit.
    notifier = Notifier.from_environ(
        {
            "NOTIFY_SOCKET": str(tmp_path / "notify"),
            "WATCHDOG_USEC": str(round(watchdog_s * 1_000_000)),
            "WATCHDOG_PID": str(os.getpid()),
        }
    )
    pacer = WatchdogPacer(notifier, virtual_clock.now)
    pings = []
    try:
        # The idle event loop: it sleeps until the pacer's deadline, then polls it.
        while virtual_clock.now() < 5 * watchdog_s:
            virtual_clock.advance(max(0.0, pacer.next_deadline() - virtual_clock.now()))
            if pacer.poll():
                pings.append(virtual_clock.now())
                assert listener.recv(100) == b"WATCHDOG=1"
    finally:
        notifier.close()
        listener.close()
    # The first ping at once (systemd's timer runs from the start); then one ping
    # may be lost or late and the next still lands within WatchdogSec.
    assert pings[0] == 0.0
    assert max(b - a for a, b in itertools.pairwise(pings)) <= watchdog_s / 2


def test_systemd_restarts_a_crashed_daemon_but_not_one_that_refused_to_start(
    unit, tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    bad = tmp_path / "unit.toml"
    bad.write_text("[pins]\nmotor_a = 99\n")
    refused_config = main(["run", "--config", str(bad)])
    journal = tmp_path / "results.sqlite3"
    with JournalLock(journal):  # another daemon serves this journal
        refused_journal = main(["run", "--mock", "--listen", "", "--journal", str(journal)])
    (tmp_path / "file").write_text("")  # a journal folder that cannot be made (yet)
    failed = main(
        [
            "run",
            "--mock",
            "--listen",
            "",
            "--journal",
            str(tmp_path / "file" / "sub" / "results.sqlite3"),
        ]
    )
    errors = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in errors] == ["error"] * 3, errors
    assert (refused_config, refused_journal, failed) == (EX_CONFIG, EX_CONFIG, 1)

    # A restart cannot fix a bad config or a journal in use: systemd leaves them.
    assert not systemd_restarts(unit, exit_status=EX_CONFIG)
    # What may pass (a folder not mounted yet, pins busy), a crash, a kill or a
    # hung loop are restarted.
    assert systemd_restarts(unit, exit_status=failed)
    for signal in ("SIGKILL", "SIGSEGV", "SIGABRT"):
        assert systemd_restarts(unit, signal=signal)
    assert systemd_restarts(unit, watchdog=True)
    # Stopped by KillSignal (the daemon exits 0; killed outright before its
    # handlers are in place): stays stopped.
    assert not systemd_restarts(unit, exit_status=0)
    assert not systemd_restarts(unit, signal=setting(unit, "KillSignal") or "SIGTERM")
    # A daemon that fails at once every time reaches the start limit and stays
    # down, rather than toggle the motor pins forever.
    burst = int(setting(unit, "StartLimitBurst", "Unit"))
    assert burst * timespan(setting(unit, "RestartSec")) < timespan(
        setting(unit, "StartLimitIntervalSec", "Unit")
    )


def test_after_every_stop_the_motor_pins_of_the_daemon_s_config_are_driven_low_as_root(unit):
    prefixes, argv = exec_command(setting(unit, "ExecStopPost"))
    # "+": as root, without User=, CapabilityBoundingSet= or DevicePolicy=: pinctrl
    # may need /dev/mem, which the daemon itself must never get.
    assert "+" in prefixes
    assert PurePosixPath(argv[0]).name == "motor-safe.sh"
    # The pins come from the config the daemon ran with.
    _, args = daemon_command(unit)
    assert argv[1:] == [args.config]


#: The devices the daemon opens: (node, its /proc/devices name, the group that
#: owns it on Raspberry Pi OS, why).
DEVICES = [
    ("/dev/gpiochip0", "gpiochip", "gpio", "lgpio, the pin backend (Pi 4 and earlier)"),
    ("/dev/gpiochip4", "gpiochip", "gpio", "lgpio on a Pi 5"),
    ("/dev/gpiomem", "bcm2835-gpiomem", "gpio", "gpiozero's fallback pin access"),
    ("/dev/gpiomem0", "gpiomem0", "gpio", "the same on a Pi 5"),
    ("/dev/ttyAMA0", "ttyAMA", "dialout", "server.serial on the Pi's UART (/dev/serial0)"),
    ("/dev/ttyS0", "ttyS", "dialout", "/dev/serial0 on a Pi with Bluetooth on the UART"),
    ("/dev/ttyUSB0", "ttyUSB", "dialout", "a USB serial adapter"),
    ("/dev/ttyACM0", "ttyACM", "dialout", "a USB CDC serial device"),
]
#: Devices it has no business with.
NOT_DEVICES = [
    ("/dev/mem", "mem"),
    ("/dev/i2c-1", "i2c"),
    ("/dev/spidev0.0", "spi"),
    ("/dev/video0", "video4linux"),
    ("/dev/input/event0", "input"),
]


def test_the_devices_the_daemon_opens_are_allowed_and_nothing_hides_them(unit):
    for node, driver, _, why in DEVICES:
        assert device_allowed(unit, node, driver), f"{node} ({why}) is not allowed"
    for node, driver in NOT_DEVICES:
        assert not device_allowed(unit, node, driver), f"{node} is allowed"
    # With no capabilities, the nodes' groups are what let the service user in.
    assert {group for _, _, group, _ in DEVICES} <= set(setting_list(unit, "SupplementaryGroups"))
    # gpiozero reads /proc/device-tree and /proc/cpuinfo to know the board.
    assert (setting(unit, "ProcSubset") or "all") == "all"


def test_the_daemon_may_write_its_journal_and_lgpio_s_fifo_but_not_its_config(unit):
    env = environment(unit)
    dirs = writable(unit)
    # The results journal (the installed config leaves journal.path empty), its
    # lock file and SQLite's files beside it: StateDirectory=.
    config = load_config(DEFAULT_TOML)
    journal = default_journal_path(config.journal.path, mock=False, environ=env)
    assert is_inside(journal, dirs) and is_inside(JournalLock(journal).path, dirs)
    # lgpio makes its notification FIFO in $LG_WD, else in the working directory.
    assert is_inside(env.get("LG_WD") or setting(unit, "WorkingDirectory") or "/", dirs)
    # The config and the token are read, never written.
    assert not is_inside(env["CONFIGURATION_DIRECTORY"], dirs)


#: The hardening the unit must keep: directive -> (what its value must do, why).
#: Each shuts a door the daemon never uses; the score is how many are shut.
HARDENING = {
    "NoNewPrivileges": (yes, "no setuid program can raise a compromised daemon's rights"),
    "CapabilityBoundingSet": (lambda v: v == [], "no capabilities: devices come by group"),
    "AmbientCapabilities": (lambda v: not v, "and none handed to the process"),
    "ProtectSystem": (only("strict"), "all read-only but the state and runtime dirs"),
    "ProtectHome": (yes, "no one's home is the daemon's business"),
    "PrivateTmp": (yes, "its temporary files are its own"),
    "PrivateMounts": (yes, "it cannot change what others see mounted"),
    "UMask": (only("0077"), "what it creates (the journal) only it can read"),
    "ProtectProc": (only("invisible"), "other users' processes are hidden"),
    "RestrictSUIDSGID": (yes, "it cannot make setuid files"),
    "ProtectKernelTunables": (yes, "/proc/sys and /sys stay read-only"),
    "ProtectKernelModules": (yes, "it loads no kernel modules"),
    "ProtectKernelLogs": (yes, "it reads no kernel log"),
    "ProtectControlGroups": (yes, "cgroups stay read-only"),
    "ProtectClock": (yes, "it never sets the clock its timestamps come from"),
    "ProtectHostname": (yes, "nor the hostname"),
    "RestrictNamespaces": (yes, "it makes no namespaces"),
    "RestrictRealtime": (yes, "no real-time scheduling that could starve the Pi"),
    "LockPersonality": (yes, "no switching the execution domain"),
    "MemoryDenyWriteExecute": (yes, "no writable code: CPython and lgpio need none"),
    "RemoveIPC": (yes, "its System V IPC goes when it stops"),
    "RestrictAddressFamilies": (
        lambda v: bool(v) and set(v) <= {"AF_UNIX", "AF_INET", "AF_INET6"},
        "sockets for sd_notify (AF_UNIX) and the protocol listener (AF_INET, AF_INET6) only",
    ),
    "SystemCallArchitectures": (only("native"), "no 32-bit system calls around the filter"),
    "SystemCallFilter": (
        lambda v: bool(v) and {"@system-service", "~@privileged"} <= set(v),
        "the calls a service needs, less the privileged ones",
    ),
    "DevicePolicy": (only("closed", "strict"), "no devices but the DeviceAllow= ones"),
}


def test_the_unit_shuts_every_door_on_the_hardening_list(unit):
    missing = [
        f"{directive}= ({why})"
        for directive, (shut, why) in HARDENING.items()
        if not shut(words(unit, directive))
    ]
    score = len(HARDENING) - len(missing)
    assert score == len(HARDENING), f"hardening {score}/{len(HARDENING)}; open: {missing}"


def test_systemd_analyze_rates_the_unit_no_more_exposed_than_today():
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze here (HARDENING above still holds the line)")
    done = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--no-pager", str(UNIT)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 and "offline" in done.stderr:
        pytest.skip(f"this systemd-analyze cannot rate a unit file: {done.stderr.strip()}")
    found = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", done.stdout)
    assert found, done.stdout + done.stderr
    exposed = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("✗")]
    assert float(found[1]) <= EXPOSURE_TODAY, f"exposure {found[1]}; open: {exposed}"


def test_after_an_install_the_unit_runs_what_the_installer_put_there(unit, system, tmp_path):
    assert system.run().returncode == 0
    # `systemctl enable` (a stub here) needs an [Install] target: the unit starts at boot.
    assert "systemctl enable --now uno-showdown-unit" in system.changes
    assert "multi-user.target" in setting_list(unit, "WantedBy", "Install")

    def installed(path: str) -> Path:
        return system.root / path.lstrip("/")

    argv, args = daemon_command(unit)
    assert os.access(installed(argv[0]), os.X_OK)
    config = load_config(installed(args.config))
    # ExecStopPost, run in the fake root, drives the installed config's motor pins low.
    _, stop = exec_command(setting(unit, "ExecStopPost"))
    log = tmp_path / "pinctrl.log"
    pinctrl = write_script(tmp_path / "pinctrl", f'echo "$*" >> {log}\n')
    env = {**os.environ, "PINCTRL": str(pinctrl), "SHOWDOWN_UNIT": str(installed(argv[0]))}
    done = subprocess.run(
        [str(installed(word)) for word in stop], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    pins = config.pins
    assert log.read_text().splitlines() == [
        f"set {pin} op dl" for pin in (pins.motor_a, pins.motor_b, pins.motor_enable)
    ]


def test_installer_and_motor_safe_are_valid_bash_and_executable():
    for script in (INSTALL, MOTOR_SAFE):
        subprocess.run(["bash", "-n", str(script)], check=True)
        assert script.stat().st_mode & stat.S_IXUSR


# --- the table's service (uno-showdown-table) --------------------------------

TABLE_UNIT = ROOT / "systemd" / "uno-showdown-table.service"
#: What install.sh puts where (its readonly lines): the table reads the unit's
#: token through the token's group.
INSTALLED_TOKEN = "/etc/uno-showdown/token"
TOKEN_GROUP = "uno-showdown"
VENV_BIN = "/opt/uno-showdown/venv/bin"


@pytest.fixture(scope="module")
def table_unit():
    return parse_unit(TABLE_UNIT.read_text())


def table_command(table_unit):
    """The table's ExecStart read by the real `showdown` command line: (its
    argv, the parsed arguments)."""
    prefixes, argv = exec_command(setting(table_unit, "ExecStart"))
    assert prefixes == "", "the table needs no privileges, not even for a moment"
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, function = scripts[PurePosixPath(argv[0]).name].partition(":")
    cli = importlib.import_module(module)
    assert getattr(cli, function) is cli.main
    return argv, cli.build_parser().parse_args(argv[1:])


def test_the_table_service_runs_showdown_table_from_the_installed_venv(table_unit):
    argv, args = table_command(table_unit)
    assert PurePosixPath(argv[0]) == PurePosixPath(VENV_BIN) / "showdown"
    assert args.subcommand == "table"
    # Type=exec: `systemctl start` fails if the program cannot be run at all.
    assert setting(table_unit, "Type") == "exec"


def test_the_table_reaches_the_unit_on_loopback_at_the_port_the_unit_serves(table_unit):
    _, args = table_command(table_unit)
    scheme, _, address = args.unit.partition("://")
    host, _, port = address.rpartition(":")
    assert scheme == "socket" and host == "127.0.0.1"
    # The installed config is the packaged default plus the token (install.sh);
    # with --allow-remote it listens on 0.0.0.0, which loopback reaches too.
    listen = load_config(DEFAULT_TOML).server.listen
    assert listen == f"127.0.0.1:{port}"
    assert f"0.0.0.0:{port}" == listen.replace("127.0.0.1", "0.0.0.0")
    # ... with the token the installer makes, read through the token's group.
    assert args.token_file == INSTALLED_TOKEN
    assert TOKEN_GROUP in setting_list(table_unit, "SupplementaryGroups")
    install = INSTALL.read_text()
    assert "readonly TOKEN=$CONF_DIR/token" in install
    assert "readonly CONF_DIR=/etc/uno-showdown" in install
    assert "readonly TOKEN_OWNER=root:$SERVICE_USER" in install
    assert f"readonly SERVICE_USER={TOKEN_GROUP}" in install
    assert "readonly TOKEN_MODE=640" in install  # the group may read it


def test_the_table_listens_on_the_lan_on_its_own_port(table_unit, unit):
    _, args = table_command(table_unit)
    assert args.lan  # the join URL by IP address, and the QR code, in the log
    host, port = args.listen
    assert host == "0.0.0.0"
    unit_port = int(load_config(DEFAULT_TOML).server.listen.rpartition(":")[2])
    assert port != unit_port
    assert f"TABLE_PORT={port}" in INSTALL.read_text()  # what the installer prints


def test_the_match_is_saved_in_the_state_directory_and_continued_after_a_restart(table_unit):
    _, args = table_command(table_unit)
    env = environment(table_unit)
    save = PurePosixPath(args.save)
    # Room.save writes a temporary file beside the save file, then renames it.
    assert str(save.parent) == env["STATE_DIRECTORY"]
    assert is_inside(save, writable(table_unit))
    assert is_inside(save.with_name(save.name + ".tmp"), writable(table_unit))
    # The first start finds no save file, a restart the match: both start.
    assert args.resume_if_saved and not args.resume
    # Only the table's user may read it (it holds the seats' secrets).
    assert setting(table_unit, "StateDirectoryMode") == "0700"
    assert setting(table_unit, "UMask") == "0077"


def test_the_table_is_not_the_unit_s_user_and_cannot_write_its_config_or_token(table_unit, unit):
    # Its own (dynamic) user: it cannot open the unit's results journal or GPIO;
    # the token's group gives it the token and nothing else (the unit's state
    # and runtime directories are 0700).
    assert is_yes(setting(table_unit, "DynamicUser"))
    assert setting(table_unit, "User") in (None, "")
    assert set(setting_list(table_unit, "SupplementaryGroups")) == {TOKEN_GROUP}
    assert setting(unit, "StateDirectoryMode") == "0700"
    assert setting(unit, "RuntimeDirectoryMode") == "0700"
    assert not set(setting_list(table_unit, "StateDirectory")) & set(
        setting_list(unit, "StateDirectory")
    )
    dirs = writable(table_unit)
    assert not is_inside(INSTALLED_TOKEN, dirs)
    assert not is_inside("/etc/uno-showdown/unit.toml", dirs)
    for directory in setting_list(unit, "StateDirectory"):
        assert not is_inside(f"/var/lib/{directory}", dirs)
    # No device at all: the table draws the unit, it does not drive it.
    for node, driver, _, _ in DEVICES:
        assert not device_allowed(table_unit, node, driver)


def test_the_table_s_open_file_limit_holds_its_connection_cap(table_unit):
    """Each connection is an open file; the table cannot raise its own limit under
    the service (SystemCallFilter=~@resources forbids setrlimit), so LimitNOFILE=
    must hold the cap, or it would take fewer connections (with a warning)."""
    from engine.apps.table.limits import FD_RESERVE

    _, args = table_command(table_unit)
    soft, _, hard = setting(table_unit, "LimitNOFILE").partition(":")
    assert int(soft) >= args.max_connections + FD_RESERVE
    assert not hard or int(hard) >= int(soft)
    assert "@resources" in setting_list(table_unit, "SystemCallFilter")


def test_the_table_is_a_part_of_the_unit_started_after_it_and_stopped_with_it(table_unit, unit):
    unit_service = UNIT.name
    assert unit_service in setting_list(table_unit, "Wants", "Unit")
    assert unit_service in setting_list(table_unit, "After", "Unit")
    # After= a Type=notify service: the unit has sent READY=1 (it listens), so
    # the table's first connection finds it.
    assert setting(unit, "Type") == "notify"
    # Enabled, it is started whenever the unit is (at boot: multi-user.target
    # wants the unit, the unit wants the table) ...
    assert setting_list(table_unit, "WantedBy", "Install") == [unit_service]
    assert "multi-user.target" in setting_list(unit, "WantedBy", "Install")
    # ... and stopped or restarted with it: a restarted unit may have a new
    # token, read at start. Stopped first (the reverse of After=), while the
    # unit still answers.
    assert unit_service in setting_list(table_unit, "PartOf", "Unit")
    # Not BindsTo=: a unit that crashes and comes back leaves the table up; it
    # pauses the game until the link is back.
    for binding in ("Requires", "Requisite", "BindsTo"):
        assert unit_service not in setting_list(table_unit, binding, "Unit"), binding
    # The join URL carries the LAN address read at start.
    assert "network-online.target" in setting_list(table_unit, "Wants", "Unit")
    assert "network-online.target" in setting_list(table_unit, "After", "Unit")


def test_systemd_restarts_a_crashed_table_but_not_one_given_arguments_that_do_not_fit(
    table_unit,
):
    # `showdown table` exits 2 for a UsageError: an unreadable token file, a
    # save file that is not a saved table. A restart cannot fix those.
    assert not systemd_restarts(table_unit, exit_status=2)
    # Exit 1 (the port in use, perhaps for a moment), a crash: restarted.
    assert systemd_restarts(table_unit, exit_status=1)
    for signal in ("SIGKILL", "SIGSEGV", "SIGABRT"):
        assert systemd_restarts(table_unit, signal=signal)
    # Stopped: SIGINT is the command's Ctrl-C, which exits 0 (tests/test_systemd_table.py).
    assert setting(table_unit, "KillSignal") == "SIGINT"
    assert not systemd_restarts(table_unit, exit_status=0)
    assert not systemd_restarts(table_unit, signal="SIGINT")
    burst = int(setting(table_unit, "StartLimitBurst", "Unit"))
    assert burst * timespan(setting(table_unit, "RestartSec")) < timespan(
        setting(table_unit, "StartLimitIntervalSec", "Unit")
    )


#: The unit's list, with the devices closed outright (the table opens none)
#: and /proc cut down to processes (it reads nothing else there).
TABLE_HARDENING = {
    **{k: v for k, v in HARDENING.items() if k != "DevicePolicy"},
    "PrivateDevices": (yes, "no devices: the table drives no pins"),
    "ProcSubset": (only("pid"), "nothing in /proc but processes"),
    "DynamicUser": (yes, "a user of its own that exists only while it runs"),
    "SystemCallFilter": (
        lambda v: bool(v) and {"@system-service", "~@privileged", "@resources"} <= set(v),
        "the calls a service needs, less the privileged and resource-setting ones",
    ),
    "IPAddressDeny": (only("any"), "no traffic but from the addresses allowed"),
}


def test_the_table_shuts_every_door_on_the_hardening_list(table_unit):
    missing = [
        f"{directive}= ({why})"
        for directive, (shut, why) in TABLE_HARDENING.items()
        if not shut(words(table_unit, directive))
    ]
    assert missing == []


def ip_allowed(unit, address: str) -> bool:
    """Whether IPAddressAllow=/IPAddressDeny= let traffic from ``address``
    through (systemd.resource-control(5): allow wins, then deny, else allowed)."""
    names = {
        "any": ["0.0.0.0/0", "::/0"],
        "localhost": ["127.0.0.0/8", "::1/128"],
        "link-local": ["169.254.0.0/16", "fe80::/64"],
        "multicast": ["224.0.0.0/4", "ff00::/8"],
    }

    def matches(key):
        nets = [n for word in setting_list(unit, key) for n in names.get(word, [word])]
        ip = ipaddress.ip_address(address)
        return any(
            ip.version == net.version and ip in net
            for net in (ipaddress.ip_network(n) for n in nets)
        )

    return matches("IPAddressAllow") or not matches("IPAddressDeny")


def test_the_table_hears_the_unit_and_phones_on_a_private_lan_and_nobody_else(table_unit):
    for address in (
        "127.0.0.1",  # the unit
        "192.168.1.23",  # a home router's LAN
        "10.42.0.17",  # the Pi's own hotspot (NetworkManager)
        "172.20.10.2",  # a phone's hotspot
        "169.254.10.1",  # no DHCP: link-local
        "fe80::1",
        "fd12:3456::7",  # IPv6 unique local
    ):
        assert ip_allowed(table_unit, address), address
    for address in ("8.8.8.8", "100.64.0.9", "2001:db8::1"):
        assert not ip_allowed(table_unit, address), address


# --- motor-safe.sh ---------------------------------------------------------


def write_script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)
    return path


@pytest.fixture
def motor_env(tmp_path):
    """A recording pinctrl and a showdown-unit that runs this checkout's CLI."""
    log = tmp_path / "pinctrl.log"
    pinctrl = write_script(tmp_path / "pinctrl", f'echo "$*" >> {log}\n')
    showdown_unit = write_script(
        tmp_path / "showdown-unit", f'cd {ROOT} && exec {sys.executable} -m firmware_host "$@"\n'
    )
    env = {**os.environ, "PINCTRL": str(pinctrl), "SHOWDOWN_UNIT": str(showdown_unit)}
    return env, log


def run_motor_safe(env, *args):
    return subprocess.run([str(MOTOR_SAFE), *args], env=env, capture_output=True, text=True)


def test_motor_safe_drives_the_configured_motor_pins_low(motor_env, tmp_path):
    env, log = motor_env
    config = tmp_path / "unit.toml"
    config.write_text("[pins]\nmotor_a = 25\nmotor_b = 16\nmotor_enable = 18\n")
    done = run_motor_safe(env, str(config))
    assert done.returncode == 0
    assert log.read_text() == "set 25 op dl\nset 16 op dl\nset 18 op dl\n"
    assert done.stderr == (
        "motor-safe: GPIO25 driven low\nmotor-safe: GPIO16 driven low\n"
        "motor-safe: GPIO18 driven low\n"
    )


def test_motor_safe_reads_the_pins_of_a_config_whose_token_it_cannot_check(motor_env, tmp_path):
    """check-config also runs the daemon's start checks now (the token file,
    the journal folder, ...); motor-safe.sh needs the pins alone, whatever
    else the config names (--file-only), never the default pins instead."""
    env, log = motor_env
    config = tmp_path / "unit.toml"
    config.write_text(
        '[server]\ntoken_file = "/nonexistent"\n[pins]\nmotor_a = 25\nmotor_b = 16\n'
        "motor_enable = 18\n"
    )
    done = run_motor_safe(env, str(config))
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "set 25 op dl\nset 16 op dl\nset 18 op dl\n"


def test_motor_safe_uses_the_packaged_pins_for_a_config_without_pins(motor_env, tmp_path):
    env, log = motor_env
    config = tmp_path / "unit.toml"
    config.write_text('unit_name = "bench"\n')
    assert run_motor_safe(env, str(config)).returncode == 0
    assert log.read_text() == "set 23 op dl\nset 24 op dl\nset 12 op dl\n"


def test_motor_safe_falls_back_to_default_pins_when_the_config_is_bad(motor_env, tmp_path):
    env, log = motor_env
    config = tmp_path / "unit.toml"
    config.write_text("[pins]\nmotor_a = 99\n")
    done = run_motor_safe(env, str(config))
    assert done.returncode == 0
    assert log.read_text() == "set 23 op dl\nset 24 op dl\nset 12 op dl\n"
    assert done.stderr.splitlines()[0] == (
        f"motor-safe: cannot read {config} (error: {config}: pins.motor_a: "
        "must be a BCM pin number 0-27, not 99); using the default pins"
    )


def test_motor_safe_falls_back_when_showdown_unit_is_gone(motor_env, tmp_path):
    env, log = motor_env
    env = {**env, "SHOWDOWN_UNIT": str(tmp_path / "no-such-venv" / "showdown-unit")}
    done = run_motor_safe(env, str(tmp_path / "unit.toml"))
    assert done.returncode == 0
    assert log.read_text() == "set 23 op dl\nset 24 op dl\nset 12 op dl\n"


def test_motor_safe_fails_loudly_without_pinctrl(motor_env, tmp_path):
    env, _log = motor_env
    env = {**env, "PINCTRL": str(tmp_path / "no-pinctrl")}
    done = run_motor_safe(env, str(tmp_path / "missing.toml"))
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "motor-safe: pinctrl not found (install raspi-utils); motor pins 23 24 12 NOT forced low"
    )


def test_motor_safe_tries_every_pin_and_fails_if_one_failed(motor_env, tmp_path):
    env, log = motor_env
    pinctrl = write_script(tmp_path / "flaky-pinctrl", f'echo "$*" >> {log}\n[[ $2 != 24 ]]\n')
    done = run_motor_safe({**env, "PINCTRL": str(pinctrl)}, str(tmp_path / "missing.toml"))
    assert done.returncode == 1
    assert log.read_text() == "set 23 op dl\nset 24 op dl\nset 12 op dl\n"
    assert "motor-safe: pinctrl failed for GPIO24\n" in done.stderr


# --- install.sh ------------------------------------------------------------

PIP = "pip install --quiet --disable-pip-version-check COPY[pi]"
QUERIES = (
    "getent ",
    "id ",
    "stat ",
    "systemctl is-enabled ",
    "systemctl is-active ",
    "python3 -c ",
    "hostname ",
)
TOKEN = "etc/uno-showdown/token"
TOKEN_HINT = [
    "to let a user command the unit: sudo usermod -aG uno-showdown USER  (USER then logs in again)",
    "  and gives the engine the token: showdown play --unit socket://127.0.0.1:7700 "
    "--token-file /etc/uno-showdown/token",
]


class FakeSystem:
    """A DESTDIR plus recording stubs for the commands that change the system.

    chown records the owner it was asked for in $state, and stat -c %U:%G
    reports it (else the real owner): the files in DESTDIR stay the tester's.
    """

    def __init__(self, tmp_path: Path):
        self.root = tmp_path / "root"
        self.root.mkdir()
        self.stubs = tmp_path / "stubs"
        self.stubs.mkdir()
        self.state = tmp_path / "state"
        self.state.mkdir()
        self.log = tmp_path / "calls.log"
        (self.state / "group").write_text("")
        (self.state / "passwd").write_text("")
        (self.state / "package").write_text("v1\n")
        self._write_stubs()

    def _stub(self, name, body):
        write_script(
            self.stubs / name, f'echo "{name} $*" >> {self.log}\nstate={self.state}\n{body}'
        )

    def _write_stubs(self):
        real_id = shutil.which("id")
        real_stat = shutil.which("stat")
        self._stub("getent", 'grep "^$2:" "$state/$1" || exit 2\n')
        self._stub("hostname", '[[ $1 == -I ]] && echo "192.168.1.23 fd00::5"\n')
        self._stub("groupadd", 'echo "${!#}:x:" >> "$state/group"\n')
        self._stub(
            "useradd",
            (
                "groups=; for ((i = 1; i <= $#; i++)); do\n"
                "  [[ ${!i} == --groups ]] && { j=$((i + 1)); groups=${!j//,/ }; }\n"
                "done\n"
                'echo "${!#}:x:" >> "$state/passwd"; echo "${!#}:x:" >> "$state/group"\n'
                'echo "${!#} $groups" > "$state/groups-${!#}"\n'
            ),
        )
        self._stub(
            "usermod",
            'echo " ${@: -2:1}" >> "$state/groups-${!#}"\n'
            'tr -d "\\n" < "$state/groups-${!#}" > "$state/t"\n'
            'mv "$state/t" "$state/groups-${!#}"\n',
        )
        self._stub(
            "userdel",
            'grep -v "^$1:" "$state/passwd" > "$state/t"; mv "$state/t" "$state/passwd"\n',
        )
        self._stub(
            "id",
            (
                'if [[ $1 == -nG ]]; then cat "$state/groups-$2"; exit; fi\n'
                'if [[ $1 == -u && $# == 1 && -n ${FAKE_UID:-} ]]; then echo "$FAKE_UID"; exit; fi\n'
                f'exec {real_id} "$@"\n'
            ),
        )
        self._stub("chown", 'echo "$1" > "$state/owner${2//\\//%}"\n')
        self._stub(
            "stat",
            (
                "if [[ $1 == -c && $2 == %U:%G && -e $state/owner${3//\\//%} ]]; then\n"
                '  cat "$state/owner${3//\\//%}"; exit\n'
                "fi\n"
                f'exec {real_stat} "$@"\n'
            ),
        )
        self._stub(
            "systemctl",
            (
                "unit=${!#}\n"
                'case "$1 $2" in\n'
                '  "is-enabled --quiet") [[ -e $state/enabled-$unit ]] ;;\n'
                '  "is-active --quiet") [[ -e $state/active-$unit ]] ;;\n'
                '  "enable --now") touch "$state/enabled-$unit" "$state/active-$unit" ;;\n'
                '  "disable --now") rm -f "$state/enabled-$unit" "$state/active-$unit" ;;\n'
                "esac\n"
            ),
        )
        # python3 -m venv makes a venv from these templates. Its pip records what
        # the copy it installs from holds and writes a RECORD from $state/package.
        templates = self.stubs / "venv-bin"
        templates.mkdir()
        write_script(templates / "python", f'exec {sys.executable} "$@"\n')
        write_script(
            templates / "showdown-unit",
            f'cd {ROOT} && exec {sys.executable} -m firmware_host "$@"\n',
        )
        write_script(templates / "showdown", f'cd {ROOT} && exec {sys.executable} -m engine "$@"\n')
        write_script(
            templates / "pip",
            (
                f'echo "pip $*" >> {self.log}\n'
                "source=${!#}\n"
                f'ls -A "${{source%\\[*}}" > {self.state}/pip-saw\n'
                'info=$(dirname "$0")/../lib/python3.11/site-packages/uno_showdown-0.1.0.dist-info\n'
                f'mkdir -p "$info" && cp {self.state}/package "$info/RECORD"\n'
            ),
        )
        self._stub(
            "python3",
            (
                "if [[ $1 == -m && $2 == venv ]]; then\n"
                f'  mkdir -p "$3/bin" && cp -p {templates}/* "$3/bin/" && exit 0\n'
                "fi\n"
                f'exec {sys.executable} "$@"\n'
            ),
        )

    def run(self, *args, env=None, destdir=True):
        environ = {**os.environ, "PATH": f"{self.stubs}:{os.environ['PATH']}", **(env or {})}
        environ.pop("DESTDIR", None)
        if destdir:
            environ["DESTDIR"] = str(self.root)
        self.log.write_text("")
        done = subprocess.run(
            ["bash", str(INSTALL), *args], env=environ, capture_output=True, text=True
        )
        self.calls = self.log.read_text().splitlines()
        return done

    @property
    def changes(self) -> list[str]:
        """The recorded calls that change something (queries left out), with
        the temporary copy pip installs from shown as COPY (then its extras)."""
        return [
            re.sub(r" /\S+(\[[a-z,]+\])$", r" COPY\1", c)
            for c in self.calls
            if not c.startswith(QUERIES)
        ]

    def owner(self, path: str) -> str:
        """user:group of a DESTDIR path, as the fake stat reports it."""
        return subprocess.run(
            ["stat", "-c", "%U:%G", str(self.root / path)],
            check=True,
            env={**os.environ, "PATH": f"{self.stubs}:{os.environ['PATH']}"},
            capture_output=True,
            text=True,
        ).stdout.strip()

    def put_token(self, text: str, mode: int, owner: str) -> Path:
        """A token file already there, as an earlier install may have left it."""
        token = self.root / TOKEN
        token.parent.mkdir(parents=True, exist_ok=True)
        token.write_text(text)
        token.chmod(mode)
        (self.state / ("owner" + str(token).replace("/", "%"))).write_text(owner + "\n")
        return token

    def snapshot(self) -> dict[str, tuple]:
        files = {}
        for path in sorted(self.root.rglob("*")):
            mode = stat.S_IMODE(path.stat().st_mode)
            content = path.read_bytes() if path.is_file() else None
            files[str(path.relative_to(self.root))] = (mode, content)
        return files


@pytest.fixture
def system(tmp_path):
    return FakeSystem(tmp_path)


def first_install_changes(system):
    return [
        "groupadd --system gpio",
        "groupadd --system dialout",
        "useradd --system --user-group --home-dir /var/lib/uno-showdown --no-create-home "
        "--shell /usr/sbin/nologin --comment UNO Showdown unit --groups gpio,dialout uno-showdown",
        f"python3 -m venv {system.root}/opt/uno-showdown/venv",
        PIP,
        f"chown root:uno-showdown {system.root}/{TOKEN}",
        "systemctl daemon-reload",
        "systemctl enable --now uno-showdown-unit",
    ]


def test_install_creates_user_venv_config_and_unit_then_enables_it(system):
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert system.changes == first_install_changes(system)
    root = system.root
    assert (root / "etc/systemd/system/uno-showdown-unit.service").read_bytes() == UNIT.read_bytes()
    assert (root / "opt/uno-showdown/motor-safe.sh").read_bytes() == MOTOR_SAFE.read_bytes()
    modes = {path: mode for path, (mode, _) in system.snapshot().items()}
    assert modes["etc/systemd/system/uno-showdown-unit.service"] == 0o644
    assert modes["opt/uno-showdown/motor-safe.sh"] == 0o755
    assert modes["etc/uno-showdown/unit.toml"] == 0o644
    assert (system.state / "groups-uno-showdown").read_text() == "uno-showdown gpio dialout\n"
    # pip installed from a copy of the checkout without build files or the venv.
    seen = (system.state / "pip-saw").read_text().split()
    assert {"pyproject.toml", "firmware_host", "systemd"} <= set(seen)
    assert not {".git", ".venv", "build", "uno_showdown.egg-info", ".mypy_cache"} & set(seen)
    assert done.stdout.splitlines()[-3:] == [
        "done: journalctl -u uno-showdown-unit -f   shows the log",
        *TOKEN_HINT,
    ]


def test_a_fresh_install_makes_a_token_the_service_group_can_read_but_not_write(system):
    done = system.run()
    assert done.returncode == 0, done.stderr
    token = system.root / TOKEN
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}\n", token.read_text())  # token_urlsafe(32)
    assert token_from_text(token.read_text(), str(token)) == token.read_text().strip()
    assert stat.S_IMODE(token.stat().st_mode) == 0o640
    assert system.owner(TOKEN) == "root:uno-showdown"
    assert "made a new token in /etc/uno-showdown/token" in done.stdout.splitlines()


def test_a_fresh_config_serves_loopback_and_names_the_token(system):
    assert system.run().returncode == 0
    config = system.root / "etc/uno-showdown/unit.toml"
    server = load_config(config).server
    assert (server.listen, server.allow_remote, server.token_file) == (
        "127.0.0.1:7700",
        False,
        "/etc/uno-showdown/token",
    )
    changed = [
        (old, new)
        for old, new in zip(
            DEFAULT_TOML.read_text().splitlines(), config.read_text().splitlines(), strict=True
        )
        if old != new
    ]
    [(old, new)] = changed
    assert old.startswith('token_file = ""')
    assert new.partition("#")[0] == 'token_file = "/etc/uno-showdown/token"  '
    assert new.partition("#")[2] == old.partition("#")[2]  # the comment kept
    assert len(config.read_text().splitlines()) == len(DEFAULT_TOML.read_text().splitlines())


def test_install_twice_changes_nothing_the_second_time(system):
    assert system.run().returncode == 0
    before = system.snapshot()
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert system.snapshot() == before
    # pip always runs (it is how an upgrade happens) but installs the same files.
    assert system.changes == [PIP]


def test_dry_run_prints_every_step_and_changes_nothing(system):
    done = system.run("--dry-run")
    assert done.returncode == 0, done.stderr
    assert system.changes == []
    assert list(system.root.iterdir()) == []
    root = system.root
    would = [line for line in done.stdout.splitlines() if line.startswith("would run: ")]
    assert would == [
        "would run: groupadd --system gpio",
        "would run: groupadd --system dialout",
        "would run: useradd --system --user-group --home-dir /var/lib/uno-showdown "
        "--no-create-home --shell /usr/sbin/nologin --comment UNO Showdown unit "
        "--groups gpio,dialout uno-showdown",
        f"would run: python3 -m venv {root}/opt/uno-showdown/venv",
        f"would run: {root}/opt/uno-showdown/venv/bin/pip install --quiet "
        f"--disable-pip-version-check {ROOT}[pi]",
        f"would run: install -D -m 0755 {ROOT}/systemd/motor-safe.sh "
        f"{root}/opt/uno-showdown/motor-safe.sh",
        f"would run: install -D -m 0640 {would[6].split()[6]} {root}/{TOKEN}",
        f"would run: chown root:uno-showdown {root}/{TOKEN}",
        f"would run: install -D -m 0644 {would[8].split()[6]} {root}/etc/uno-showdown/unit.toml",
        f"would run: install -D -m 0644 {ROOT}/systemd/uno-showdown-unit.service "
        f"{root}/etc/systemd/system/uno-showdown-unit.service",
        "would run: systemctl daemon-reload",
        "would run: systemctl enable --now uno-showdown-unit",
    ]
    assert not Path(would[6].split()[6]).exists()  # the token's copy, removed
    assert not Path(would[8].split()[6]).exists()  # the checked copy, removed


def test_dry_run_prints_only_what_it_would_do(system):
    """Regression: --dry-run ended with "done: ..." and the hints for after an
    install, said "made a new token" that it had not made, and let through
    what systemctl said on stderr about a unit it did not know."""
    system._stub(
        "systemctl",
        'echo "Failed to get unit file state for ${!#}.service: No such file or directory" >&2\n'
        "exit 1\n",
    )
    system._stub("pinctrl", "exit 0\n")  # on a Pi: no warning about it
    done = system.run("--dry-run")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert all(line.startswith("would run: ") for line in lines[:-1]), lines
    assert lines[-2:] == [
        "would run: systemctl enable --now uno-showdown-unit",
        "dry run: nothing was changed; without --dry-run the installer runs the lines above",
    ]
    assert system.changes == []

    system._stub("systemctl", "exit 0\n")  # installed and running
    system.run()
    before = system.snapshot()
    done = system.run("--uninstall", "--dry-run")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-2:] == [
        "would keep: /etc/uno-showdown (config) and /var/lib/uno-showdown (results); "
        "--purge removes them",
        "dry run: nothing was changed",
    ]
    assert system.snapshot() == before


def test_dry_run_after_install_has_only_pip_to_do(system):
    system.run()
    done = system.run("--dry-run")
    assert done.returncode == 0
    assert [line for line in done.stdout.splitlines() if line.startswith("would run: ")] == [
        f"would run: {system.root}/opt/uno-showdown/venv/bin/pip install --quiet "
        f"--disable-pip-version-check {ROOT}[pi]"
    ]


def test_a_new_package_version_restarts_the_running_service(system):
    system.run()
    (system.state / "package").write_text("v2\n")
    done = system.run()
    assert done.returncode == 0
    assert system.changes == [PIP, "systemctl restart uno-showdown-unit"]


def test_an_edited_unit_file_is_put_back_reloaded_and_restarted(system):
    system.run()
    unit_file = system.root / "etc/systemd/system/uno-showdown-unit.service"
    unit_file.write_text(unit_file.read_text().replace("WatchdogSec=10s", "WatchdogSec=0"))
    done = system.run()
    assert done.returncode == 0
    assert system.changes == [PIP, "systemctl daemon-reload", "systemctl restart uno-showdown-unit"]
    assert unit_file.read_bytes() == UNIT.read_bytes()


def test_a_stopped_service_is_started_again(system):
    system.run()
    (system.state / "active-uno-showdown-unit").unlink()
    system.run()
    assert system.changes[-1] == "systemctl enable --now uno-showdown-unit"


def test_an_existing_config_is_never_overwritten(system):
    config = system.root / "etc/uno-showdown/unit.toml"
    config.parent.mkdir(parents=True)
    config.write_text('unit_name = "bench 2"\n')
    assert system.run().returncode == 0
    assert config.read_text() == 'unit_name = "bench 2"\n'


def test_an_existing_user_only_gets_the_missing_group(system):
    (system.state / "passwd").write_text("uno-showdown:x:\n")
    (system.state / "group").write_text("gpio:x:\ndialout:x:\nuno-showdown:x:\n")
    (system.state / "groups-uno-showdown").write_text("uno-showdown gpio")
    assert system.run().returncode == 0
    assert system.changes[0] == "usermod --append --groups dialout uno-showdown"
    assert not any(c.startswith(("useradd", "groupadd")) for c in system.changes)


def owner_and_mode_changes(done) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith(("+ chown", "+ chmod"))]


@pytest.mark.parametrize(
    "mode, owner, fixes",
    [
        (
            0o600,
            "uno-showdown:uno-showdown",
            ["chown", "chmod 0640"],
        ),  # the old --allow-remote token
        (0o644, "root:uno-showdown", ["chmod 0640"]),  # others could read it
        (0o660, "root:uno-showdown", ["chmod 0640"]),  # the service could write it
        (0o640, "root:root", ["chown"]),  # the service could not read it
    ],
)
def test_an_existing_token_gets_owner_and_mode_put_right_and_keeps_its_text(
    system, mode, owner, fixes
):
    token = system.put_token("kept-token\n", mode, owner)
    done = system.run()
    assert done.returncode == 0, done.stderr
    # chmod is the real one, so the fixes are read from what run printed.
    expected = {
        "chown": f"+ chown root:uno-showdown {token}",
        "chmod 0640": f"+ chmod 0640 {token}",
    }
    assert owner_and_mode_changes(done) == [expected[fix] for fix in fixes]
    assert token.read_text() == "kept-token\n"
    assert stat.S_IMODE(token.stat().st_mode) == 0o640
    assert system.owner(TOKEN) == "root:uno-showdown"
    assert "made a new token in /etc/uno-showdown/token" not in done.stdout

    before = system.snapshot()
    again = system.run()
    assert again.returncode == 0
    assert system.changes == [PIP]
    assert owner_and_mode_changes(again) == []
    assert system.snapshot() == before


def test_a_right_token_is_left_alone(system):
    token = system.put_token("kept-token\n", 0o640, "root:uno-showdown")
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert owner_and_mode_changes(done) == []
    assert token.read_text() == "kept-token\n"
    assert "made a new token in /etc/uno-showdown/token" not in done.stdout


def test_a_removed_token_is_made_again_and_the_service_restarted_to_read_it(system):
    system.run()
    token = system.root / TOKEN
    old = token.read_text()
    token.unlink()
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert system.changes == [
        PIP,
        f"chown root:uno-showdown {token}",
        "systemctl restart uno-showdown-unit",
    ]
    assert token.read_text() != old
    assert stat.S_IMODE(token.stat().st_mode) == 0o640


def test_dry_run_shows_the_token_fixes_and_makes_none(system):
    system.run()
    token = system.put_token("kept-token\n", 0o600, "uno-showdown:uno-showdown")
    done = system.run("--dry-run")
    assert done.returncode == 0, done.stderr
    assert system.changes == []
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    would = [line for line in done.stdout.splitlines() if line.startswith("would run: ")]
    assert would[1:] == [
        f"would run: chown root:uno-showdown {token}",
        f"would run: chmod 0640 {token}",
    ]


def test_a_token_that_is_not_a_plain_file_is_refused(system, tmp_path):
    token = system.root / TOKEN
    token.parent.mkdir(parents=True)
    token.symlink_to(tmp_path / "elsewhere")
    done = system.run()
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "install.sh: /etc/uno-showdown/token is not a plain file; remove it and run "
        "install.sh again"
    )


def test_an_empty_token_is_warned_about(system):
    system.put_token(" \n", 0o640, "root:uno-showdown")
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert (
        "warning: /etc/uno-showdown/token is empty, so the service will not start; "
        "delete it and run install.sh again"
    ) in done.stdout.splitlines()


def test_allow_remote_writes_a_config_listening_on_the_lan_with_the_token(system):
    done = system.run("--allow-remote")
    assert done.returncode == 0, done.stderr
    config = system.root / "etc/uno-showdown/unit.toml"
    server = load_config(config).server
    assert (server.listen, server.allow_remote, server.token_file) == (
        "0.0.0.0:7700",
        True,
        "/etc/uno-showdown/token",
    )
    changed = [
        (old, new)
        for old, new in zip(
            DEFAULT_TOML.read_text().splitlines(), config.read_text().splitlines(), strict=True
        )
        if old != new
    ]
    assert [new.partition("#")[0].rstrip() for _, new in changed] == [
        'listen = "0.0.0.0:7700"',
        "allow_remote = true",
        'token_file = "/etc/uno-showdown/token"',
    ]
    assert [new.partition("#")[2] for _, new in changed] == [
        old.partition("#")[2] for old, _ in changed
    ]  # the comments kept
    token = system.root / TOKEN
    assert stat.S_IMODE(token.stat().st_mode) == 0o640
    assert system.owner(TOKEN) == "root:uno-showdown"
    assert done.stdout.splitlines()[-3:] == [
        *TOKEN_HINT,
        "  an engine on another machine needs a private copy of /etc/uno-showdown/token "
        "(chmod 600) and --unit socket://THIS-PI:7700",
    ]

    before = system.snapshot()
    assert system.run("--allow-remote").returncode == 0
    assert system.snapshot() == before
    assert system.changes == [PIP]


def test_an_existing_config_without_a_token_file_gets_a_note(system):
    config = system.root / "etc/uno-showdown/unit.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[server]\nlisten = "127.0.0.1:7700"\n')
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert config.read_text() == '[server]\nlisten = "127.0.0.1:7700"\n'
    lines = done.stdout.splitlines()
    start = lines.index(
        "note: /etc/uno-showdown/unit.toml exists and is kept; add to its [server] table:"
    )
    assert lines[start + 1 : start + 4] == [
        '      token_file = "/etc/uno-showdown/token"',
        "      (without a token_file any local process, of any user, can command the unit)",
        "      then: sudo systemctl restart uno-showdown-unit",
    ]


def test_an_existing_config_with_a_token_file_gets_no_note(system):
    config = system.root / "etc/uno-showdown/unit.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[server]\ntoken_file = '/etc/uno-showdown/token'\n")
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert not any(line.startswith("note:") for line in done.stdout.splitlines())


def test_allow_remote_with_an_existing_config_only_says_what_to_set(system):
    config = system.root / "etc/uno-showdown/unit.toml"
    config.parent.mkdir(parents=True)
    config.write_text('unit_name = "bench 2"\n')
    done = system.run("--allow-remote")
    assert done.returncode == 0, done.stderr
    assert config.read_text() == 'unit_name = "bench 2"\n'
    lines = done.stdout.splitlines()
    start = lines.index(
        "note: /etc/uno-showdown/unit.toml exists and is kept; add to its [server] table:"
    )
    assert lines[start + 1 : start + 6] == [
        '      token_file = "/etc/uno-showdown/token"',
        '      listen = "0.0.0.0:7700"',
        "      allow_remote = true",
        "      (without a token_file any local process, of any user, can command the unit)",
        "      then: sudo systemctl restart uno-showdown-unit",
    ]


def test_uninstall_removes_service_and_venv_but_keeps_config_and_results(system):
    system.run()
    results = system.root / "var/lib/uno-showdown/results.sqlite3"
    results.parent.mkdir(parents=True)
    results.write_bytes(b"SQLite format 3\0")
    done = system.run("--uninstall")
    assert done.returncode == 0, done.stderr
    assert system.changes == [
        "systemctl disable --now uno-showdown-unit",
        "systemctl daemon-reload",
    ]
    assert not (system.root / "etc/systemd/system/uno-showdown-unit.service").exists()
    assert not (system.root / "opt/uno-showdown").exists()
    assert (system.root / "etc/uno-showdown/unit.toml").exists()
    assert results.read_bytes() == b"SQLite format 3\0"

    again = system.run("--uninstall")
    assert again.returncode == 0
    assert system.changes == []


def test_uninstall_purge_removes_config_results_and_user(system):
    system.run("--allow-remote")
    (system.root / "var/lib/uno-showdown").mkdir(parents=True)
    done = system.run("--uninstall", "--purge")
    assert done.returncode == 0, done.stderr
    assert system.changes == [
        "systemctl disable --now uno-showdown-unit",
        "systemctl daemon-reload",
        "userdel uno-showdown",
    ]
    assert [p for p in system.root.rglob("*") if p.is_file()] == []
    assert not (system.root / "etc/uno-showdown").exists()
    assert not (system.root / "var/lib/uno-showdown").exists()


def test_uninstall_dry_run_changes_nothing(system):
    system.run()
    before = system.snapshot()
    done = system.run("--uninstall", "--purge", "--dry-run")
    assert done.returncode == 0
    assert system.changes == []
    assert system.snapshot() == before
    assert f"would run: rm -rf {system.root}/opt/uno-showdown" in done.stdout.splitlines()


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["--purge"], 1, "install.sh: --purge only goes with --uninstall"),
        (
            ["--uninstall", "--allow-remote"],
            1,
            "install.sh: --allow-remote does not go with --uninstall",
        ),
        (["--frobnicate"], 2, "install.sh: unknown argument: --frobnicate"),
        (["--source"], 1, "install.sh: --source needs a directory"),
    ],
)
def test_bad_arguments_are_refused(system, args, code, message):
    done = system.run(*args)
    assert done.returncode == code
    assert done.stderr.splitlines()[-1] == message
    assert system.changes == []


def test_source_that_is_not_a_checkout_is_refused(system, tmp_path):
    done = system.run("--source", str(tmp_path / "elsewhere"))
    assert done.returncode == 1
    assert done.stderr == (
        f"install.sh: {tmp_path}/elsewhere is not an uno-showdown checkout "
        "(no pyproject.toml or firmware_host/service/default.toml)\n"
    )
    assert system.changes == []


def test_a_real_install_needs_root(system, tmp_path):
    # No DESTDIR: the real paths. The bogus --source is a second line of defence.
    done = system.run(
        "--source", str(tmp_path / "nowhere"), env={"FAKE_UID": "1000"}, destdir=False
    )
    assert done.returncode == 1
    assert done.stderr.startswith("install.sh: must be run as root (try: sudo ")
    assert system.changes == []


# --- install.sh --with-table -------------------------------------------------

PIP_TABLE = "pip install --quiet --disable-pip-version-check COPY[pi,table]"
TABLE_UNIT_FILE = "etc/systemd/system/uno-showdown-table.service"
TABLE_HINT = [
    "the table: open its host URL (http://192.168.1.23:8700/#host=...) on the display; "
    "phones scan its QR code",
    "  journalctl -u uno-showdown-table | grep 'host:' | tail -1   shows the host URL "
    "(keep it secret)",
    "  journalctl -u uno-showdown-table -f   shows its log, the host URL, the join URL and "
    "the QR code",
]


def test_with_table_installs_the_table_extra_and_the_second_service_then_starts_it(system):
    done = system.run("--with-table")
    assert done.returncode == 0, done.stderr
    expected = [PIP_TABLE if c == PIP else c for c in first_install_changes(system)]
    assert system.changes == [*expected, "systemctl enable --now uno-showdown-table"]
    table_file = system.root / TABLE_UNIT_FILE
    assert table_file.read_bytes() == TABLE_UNIT.read_bytes()
    assert stat.S_IMODE(table_file.stat().st_mode) == 0o644
    assert done.stdout.splitlines()[-6:] == [
        "done: journalctl -u uno-showdown-unit -f   shows the log",
        *TOKEN_HINT,
        *TABLE_HINT,
    ]
    assert not any(line.startswith("note:") for line in done.stdout.splitlines())


def test_without_the_flag_nothing_of_the_table_is_installed(system):
    for args in ((), ("--without-table",)):
        done = system.run(*args)
        assert done.returncode == 0, done.stderr
        assert not any("table" in change for change in system.changes), system.changes
        assert not (system.root / TABLE_UNIT_FILE).exists()
        assert not any("table" in line for line in done.stdout.splitlines())


def test_after_an_install_with_table_the_table_reads_the_installer_s_token_and_finds_the_unit(
    system, table_unit
):
    assert system.run("--with-table").returncode == 0
    argv, args = table_command(table_unit)
    assert os.access(system.root / argv[0].lstrip("/"), os.X_OK)
    config = load_config(system.root / "etc/uno-showdown/unit.toml")
    # The token the unit asks for is the file the table sends.
    assert config.server.token_file == args.token_file
    token = system.root / args.token_file.lstrip("/")
    owner_group = system.owner(args.token_file.lstrip("/")).partition(":")[2]
    assert owner_group in setting_list(table_unit, "SupplementaryGroups")
    assert stat.S_IMODE(token.stat().st_mode) & stat.S_IRGRP
    # The unit serves the address the table connects to.
    assert f"socket://{config.server.listen}" == args.unit


def test_once_installed_the_table_is_kept_up_to_date_without_the_flag(system):
    assert system.run("--with-table").returncode == 0
    before = system.snapshot()
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert system.changes == [PIP_TABLE]  # the table extra too, for new dependencies
    assert system.snapshot() == before
    assert done.stdout.splitlines()[-3:] == TABLE_HINT

    # A new version of the package: both services run it.
    (system.state / "package").write_text("v2\n")
    assert system.run().returncode == 0
    assert system.changes == [
        PIP_TABLE,
        "systemctl restart uno-showdown-unit",
        "systemctl restart uno-showdown-table",
    ]


def test_an_edited_table_unit_file_is_put_back_and_only_the_table_restarted(system):
    assert system.run("--with-table").returncode == 0
    table_file = system.root / TABLE_UNIT_FILE
    table_file.write_text(table_file.read_text().replace("--lan", ""))
    assert system.run("--with-table").returncode == 0
    assert system.changes == [
        PIP_TABLE,
        "systemctl daemon-reload",
        "systemctl restart uno-showdown-table",
    ]
    assert table_file.read_bytes() == TABLE_UNIT.read_bytes()


def test_a_new_token_restarts_the_table_too_which_reads_it_at_start(system):
    assert system.run("--with-table").returncode == 0
    (system.root / TOKEN).unlink()
    assert system.run().returncode == 0
    assert system.changes[-2:] == [
        "systemctl restart uno-showdown-unit",
        "systemctl restart uno-showdown-table",
    ]


def test_a_stopped_table_is_started_again_and_the_unit_left_alone(system):
    assert system.run("--with-table").returncode == 0
    (system.state / "active-uno-showdown-table").unlink()
    assert system.run().returncode == 0
    assert system.changes == [PIP_TABLE, "systemctl enable --now uno-showdown-table"]


def test_with_table_dry_run_prints_the_table_steps_and_changes_nothing(system):
    done = system.run("--with-table", "--dry-run")
    assert (done.returncode, done.stderr) == (0, "")
    assert system.changes == []
    assert list(system.root.iterdir()) == []
    root = system.root
    would = [line for line in done.stdout.splitlines() if line.startswith("would run: ")]
    assert would[4] == (
        f"would run: {root}/opt/uno-showdown/venv/bin/pip install --quiet "
        f"--disable-pip-version-check {ROOT}[pi,table]"
    )
    assert would[-5:] == [
        f"would run: install -D -m 0644 {ROOT}/systemd/uno-showdown-unit.service "
        f"{root}/etc/systemd/system/uno-showdown-unit.service",
        f"would run: install -D -m 0644 {ROOT}/systemd/uno-showdown-table.service "
        f"{root}/{TABLE_UNIT_FILE}",
        "would run: systemctl daemon-reload",
        "would run: systemctl enable --now uno-showdown-unit",
        "would run: systemctl enable --now uno-showdown-table",
    ]


def test_without_table_removes_the_table_service_and_keeps_the_unit_and_the_match(system):
    assert system.run("--with-table").returncode == 0
    saved = system.root / "var/lib/private/uno-showdown-table/table.json"
    saved.parent.mkdir(parents=True)
    saved.write_text("{}")
    done = system.run("--without-table")
    assert done.returncode == 0, done.stderr
    assert system.changes == [
        PIP,
        "systemctl disable --now uno-showdown-table",
        "systemctl daemon-reload",
    ]
    assert not (system.root / TABLE_UNIT_FILE).exists()
    assert (system.root / "etc/systemd/system/uno-showdown-unit.service").exists()
    assert saved.read_text() == "{}"
    assert not any("table" in line for line in done.stdout.splitlines() if "+ " not in line)
    # Gone for good: the next plain run does not bring it back.
    assert system.run().returncode == 0
    assert system.changes == [PIP]


def test_uninstall_removes_both_services_and_keeps_the_table_s_saved_match(system):
    assert system.run("--with-table").returncode == 0
    state = system.root / "var/lib/private/uno-showdown-table"
    state.mkdir(parents=True)
    (state / "table.json").write_text("{}")
    (system.root / "var/lib/uno-showdown-table").symlink_to("private/uno-showdown-table")
    done = system.run("--uninstall")
    assert done.returncode == 0, done.stderr
    assert system.changes == [
        "systemctl disable --now uno-showdown-table",
        "systemctl disable --now uno-showdown-unit",
        "systemctl daemon-reload",
    ]
    assert not (system.root / TABLE_UNIT_FILE).exists()
    assert (state / "table.json").read_text() == "{}"
    assert done.stdout.splitlines()[-1] == (
        "kept: /etc/uno-showdown (config), /var/lib/uno-showdown (results) and "
        "/var/lib/uno-showdown-table (the table's saved match); --purge removes them"
    )

    done = system.run("--uninstall", "--purge")
    assert done.returncode == 0, done.stderr
    assert not (system.root / "var/lib/uno-showdown-table").is_symlink()
    assert not state.exists()


def test_the_table_is_told_about_a_unit_that_serves_elsewhere(system):
    config = system.root / "etc/uno-showdown/unit.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        '[server]\nlisten = "127.0.0.1:7800"\ntoken_file = "/etc/uno-showdown/token"\n'
    )
    done = system.run("--with-table")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index(
        "note: the unit listens on 127.0.0.1:7800, but uno-showdown-table looks for it at "
        "127.0.0.1:7700;"
    )
    assert lines[start + 1] == (
        "      give the table the unit's address: sudo systemctl edit uno-showdown-table  "
        "(see docs/systemd.md)"
    )

    config.write_text('[server]\nlisten = ""\ntoken_file = "/etc/uno-showdown/token"\n')
    lines = system.run().stdout.splitlines()
    start = lines.index(
        'note: /etc/uno-showdown/unit.toml serves no TCP (listen = ""), so uno-showdown-table '
        "cannot reach the unit;"
    )
    assert lines[start + 1] == (
        '      set listen = "127.0.0.1:7700" in its [server] table, then: '
        "sudo systemctl restart uno-showdown-unit"
    )


def test_help_names_the_table_options(system):
    done = system.run("--help")
    assert done.returncode == 0
    assert "[--with-table | --without-table]" in done.stdout.splitlines()[0]
    options = {line.split()[0] for line in done.stdout.splitlines() if line.startswith("  --")}
    assert {"--with-table", "--without-table", "--uninstall", "--purge"} <= options
    assert "the services" in done.stdout  # --uninstall removes both


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--with-table", "--without-table"],
            "install.sh: --with-table and --without-table do not go together",
        ),
        (
            ["--uninstall", "--with-table"],
            "install.sh: --with-table does not go with --uninstall (which removes both services)",
        ),
        (
            ["--uninstall", "--without-table"],
            "install.sh: --without-table does not go with --uninstall (which removes both "
            "services)",
        ),
    ],
)
def test_table_options_that_do_not_fit_are_refused(system, args, message):
    done = system.run(*args)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == message
    assert system.changes == []
