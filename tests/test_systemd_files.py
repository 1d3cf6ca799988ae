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
motor-safe.sh: tests/test_systemd_motor_safe.py; the installer:
tests/test_systemd_install.py and test_systemd_install_table.py.
"""

import ipaddress
import itertools
import os
import re
import shutil
import socket
import stat
import subprocess
from pathlib import Path, PurePosixPath

import pytest

from firmware_host.commands import main
from firmware_host.service import (
    EX_CONFIG,
    JournalLock,
    Notifier,
    WatchdogPacer,
    default_journal_path,
    load_config,
)
from tests.systemd_helpers import (
    DEFAULT_TOML,
    EXPOSURE_TODAY,
    INSTALL,
    INSTALLED_TOKEN,
    MOTOR_SAFE,
    TOKEN_GROUP,
    UNIT,
    VENV_BIN,
    daemon_command,
    device_allowed,
    environment,
    exec_command,
    is_inside,
    is_yes,
    only,
    setting,
    setting_list,
    systemd_restarts,
    table_command,
    timespan,
    words,
    writable,
    write_script,
    yes,
)

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


def open_doors(unit, hardening=HARDENING) -> list[str]:
    """The directives of ``hardening`` that ``unit`` leaves open, each with why it matters."""
    return [
        f"{directive}= ({why})"
        for directive, (shut, why) in hardening.items()
        if not shut(words(unit, directive))
    ]


def test_the_unit_shuts_every_door_on_the_hardening_list(unit):
    missing = open_doors(unit, HARDENING)
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
    league = INSTALL.parent / "install-league.sh"
    for script in (INSTALL, MOTOR_SAFE, league):
        subprocess.run(["bash", "-n", str(script)], check=True)
        assert script.stat().st_mode & stat.S_IXUSR
    # The part both installers source: bash, not a program of its own.
    subprocess.run(["bash", "-n", str(INSTALL.parent / "install-lib.sh")], check=True)


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
    missing = open_doors(table_unit, TABLE_HARDENING)
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
