"""The systemd unit, its motor-safe stop script and the installer.

The installer runs for real against a fake root (DESTDIR) with recording stubs
for the commands that would touch the system (systemctl, useradd, ...).
"""

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.config import load_config
from firmware_host.protocol import token_from_text
from firmware_host.sdnotify import Notifier

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "uno-showdown-unit.service"
INSTALL = ROOT / "systemd" / "install.sh"
MOTOR_SAFE = ROOT / "systemd" / "motor-safe.sh"
DEFAULT_TOML = ROOT / "firmware_host" / "default.toml"


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


def values(unit, section, key) -> list[str]:
    return [v for k, v in unit[section] if k == key]


def value(unit, section, key) -> str:
    [only] = values(unit, section, key)
    return only


def test_unit_sections_and_install_target(unit):
    assert list(unit) == ["Unit", "Service", "Install"]
    assert value(unit, "Install", "WantedBy") == "multi-user.target"


@pytest.mark.parametrize("key, expected", [
    ("Type", "notify"),
    ("NotifyAccess", "main"),
    ("ExecStart", "/opt/uno-showdown/venv/bin/showdown-unit run --config /etc/uno-showdown/unit.toml"),
    ("ExecReload", "/bin/kill -HUP $MAINPID"),
    ("ExecStopPost", "+/opt/uno-showdown/motor-safe.sh /etc/uno-showdown/unit.toml"),
    ("KillSignal", "SIGTERM"),
    ("TimeoutStopSec", "10"),
    ("WatchdogSec", "10s"),
    ("Restart", "on-failure"),
    ("RestartSec", "2s"),
    ("User", "uno-showdown"),
    ("Group", "uno-showdown"),
    ("SupplementaryGroups", "gpio dialout"),
    ("RuntimeDirectory", "uno-showdown"),
    ("StateDirectory", "uno-showdown"),
    ("ConfigurationDirectory", "uno-showdown"),
    ("WorkingDirectory", "/run/uno-showdown"),
    ("DevicePolicy", "closed"),
    ("ProtectSystem", "strict"),
    ("ProtectHome", "yes"),
    ("PrivateTmp", "yes"),
    ("NoNewPrivileges", "yes"),
    ("ProtectKernelTunables", "yes"),
    ("ProtectKernelModules", "yes"),
    ("ProtectKernelLogs", "yes"),
    ("ProtectControlGroups", "yes"),
    ("RestrictAddressFamilies", "AF_UNIX AF_INET AF_INET6"),
    ("RestrictNamespaces", "yes"),
    ("LockPersonality", "yes"),
    ("MemoryDenyWriteExecute", "yes"),
    ("SystemCallArchitectures", "native"),
    ("CapabilityBoundingSet", ""),
    ("RestrictRealtime", "yes"),
    ("UMask", "0077"),
])
def test_service_key(unit, key, expected):
    assert value(unit, "Service", key) == expected


def test_lgpio_fifo_directory_is_the_writable_runtime_directory(unit):
    assert values(unit, "Service", "Environment") == [
        "LG_WD=/run/uno-showdown", "PYTHONUNBUFFERED=1"]
    assert value(unit, "Service", "WorkingDirectory") == (
        "/run/" + value(unit, "Service", "RuntimeDirectory"))


def test_devices_allow_gpio_and_serial_only(unit):
    assert values(unit, "Service", "DeviceAllow") == [
        "char-gpiochip rw", "/dev/gpiomem rw", "char-*gpiomem* rw",
        "char-ttyS rw", "char-ttyAMA rw", "char-ttyUSB rw", "char-ttyACM rw"]
    # PrivateDevices=yes would hide /dev/gpiochip*.
    assert values(unit, "Service", "PrivateDevices") == []


def test_system_call_filter_allows_system_services_minus_privileged(unit):
    assert values(unit, "Service", "SystemCallFilter") == ["@system-service", "~@privileged"]
    assert value(unit, "Service", "SystemCallErrorNumber") == "EPERM"


def test_proc_stays_readable_for_gpiozero_board_detection(unit):
    # gpiozero reads /proc/device-tree and /proc/cpuinfo; ProcSubset=pid hides them.
    assert values(unit, "Service", "ProcSubset") == []
    assert value(unit, "Service", "ProtectProc") == "invisible"


def test_watchdog_interval_the_daemon_sees_is_half_of_watchdog_sec(unit):
    seconds = int(value(unit, "Service", "WatchdogSec").removesuffix("s"))
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": "/run/systemd/notify",
                                      "WATCHDOG_USEC": str(seconds * 1_000_000)})
    assert notifier.watchdog_interval() == 5.0


def test_unit_paths_match_the_installer(unit):
    text = INSTALL.read_text()
    assert "readonly PREFIX=/opt/uno-showdown\n" in text
    assert "readonly VENV=$PREFIX/venv\n" in text
    assert "readonly MOTOR_SAFE=$PREFIX/motor-safe.sh\n" in text
    assert "readonly CONFIG=$CONF_DIR/unit.toml\n" in text
    assert "readonly CONF_DIR=/etc/uno-showdown\n" in text
    assert "readonly SERVICE_USER=uno-showdown\n" in text


def test_installer_and_motor_safe_are_valid_bash_and_executable():
    for script in (INSTALL, MOTOR_SAFE):
        subprocess.run(["bash", "-n", str(script)], check=True)
        assert script.stat().st_mode & stat.S_IXUSR


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
        tmp_path / "showdown-unit",
        f'cd {ROOT} && exec {sys.executable} -m firmware_host.cli "$@"\n')
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
    assert done.stderr == ("motor-safe: GPIO25 driven low\nmotor-safe: GPIO16 driven low\n"
                           "motor-safe: GPIO18 driven low\n")


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
        "must be a BCM pin number 0-27, not 99); using the default pins")


def test_motor_safe_falls_back_when_showdown_unit_is_gone(motor_env, tmp_path):
    env, log = motor_env
    env = {**env, "SHOWDOWN_UNIT": str(tmp_path / "no-such-venv" / "showdown-unit")}
    done = run_motor_safe(env, str(tmp_path / "unit.toml"))
    assert done.returncode == 0
    assert log.read_text() == "set 23 op dl\nset 24 op dl\nset 12 op dl\n"


def test_motor_safe_fails_loudly_without_pinctrl(motor_env, tmp_path):
    env, log = motor_env
    env = {**env, "PINCTRL": str(tmp_path / "no-pinctrl")}
    done = run_motor_safe(env, str(tmp_path / "missing.toml"))
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "motor-safe: pinctrl not found (install raspi-utils); motor pins 23 24 12 NOT forced low")


def test_motor_safe_tries_every_pin_and_fails_if_one_failed(motor_env, tmp_path):
    env, log = motor_env
    pinctrl = write_script(tmp_path / "flaky-pinctrl",
                           f'echo "$*" >> {log}\n[[ $2 != 24 ]]\n')
    done = run_motor_safe({**env, "PINCTRL": str(pinctrl)}, str(tmp_path / "missing.toml"))
    assert done.returncode == 1
    assert log.read_text() == "set 23 op dl\nset 24 op dl\nset 12 op dl\n"
    assert "motor-safe: pinctrl failed for GPIO24\n" in done.stderr


# --- install.sh ------------------------------------------------------------

PIP = "pip install --quiet --disable-pip-version-check COPY[pi]"
QUERIES = ("getent ", "id ", "stat ", "systemctl is-enabled ", "systemctl is-active ",
           "python3 -c ")
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
        write_script(self.stubs / name,
                     f'echo "{name} $*" >> {self.log}\nstate={self.state}\n{body}')

    def _write_stubs(self):
        real_id = shutil.which("id")
        real_stat = shutil.which("stat")
        self._stub("getent", 'grep "^$2:" "$state/$1" || exit 2\n')
        self._stub("groupadd", 'echo "${!#}:x:" >> "$state/group"\n')
        self._stub("useradd", (
            'groups=; for ((i = 1; i <= $#; i++)); do\n'
            '  [[ ${!i} == --groups ]] && { j=$((i + 1)); groups=${!j//,/ }; }\n'
            'done\n'
            'echo "${!#}:x:" >> "$state/passwd"; echo "${!#}:x:" >> "$state/group"\n'
            'echo "${!#} $groups" > "$state/groups-${!#}"\n'))
        self._stub("usermod", 'echo " ${@: -2:1}" >> "$state/groups-${!#}"\n'
                              'tr -d "\\n" < "$state/groups-${!#}" > "$state/t"\n'
                              'mv "$state/t" "$state/groups-${!#}"\n')
        self._stub("userdel", 'grep -v "^$1:" "$state/passwd" > "$state/t"; '
                              'mv "$state/t" "$state/passwd"\n')
        self._stub("id", (
            'if [[ $1 == -nG ]]; then cat "$state/groups-$2"; exit; fi\n'
            'if [[ $1 == -u && $# == 1 && -n ${FAKE_UID:-} ]]; then echo "$FAKE_UID"; exit; fi\n'
            f'exec {real_id} "$@"\n'))
        self._stub("chown", 'echo "$1" > "$state/owner${2//\\//%}"\n')
        self._stub("stat", (
            'if [[ $1 == -c && $2 == %U:%G && -e $state/owner${3//\\//%} ]]; then\n'
            '  cat "$state/owner${3//\\//%}"; exit\n'
            'fi\n'
            f'exec {real_stat} "$@"\n'))
        self._stub("systemctl", (
            'unit=${!#}\n'
            'case "$1 $2" in\n'
            '  "is-enabled --quiet") [[ -e $state/enabled ]] ;;\n'
            '  "is-active --quiet") [[ -e $state/active ]] ;;\n'
            '  "enable --now") touch "$state/enabled" "$state/active" ;;\n'
            '  "disable --now") rm -f "$state/enabled" "$state/active" ;;\n'
            'esac\n'))
        # python3 -m venv makes a venv from these templates. Its pip records what
        # the copy it installs from holds and writes a RECORD from $state/package.
        templates = self.stubs / "venv-bin"
        templates.mkdir()
        write_script(templates / "python", f'exec {sys.executable} "$@"\n')
        write_script(templates / "showdown-unit",
                     f'cd {ROOT} && exec {sys.executable} -m firmware_host.cli "$@"\n')
        write_script(templates / "pip", (
            f'echo "pip $*" >> {self.log}\n'
            'source=${!#}\n'
            f'ls -A "${{source%"[pi]"}}" > {self.state}/pip-saw\n'
            'info=$(dirname "$0")/../lib/python3.11/site-packages/uno_showdown-0.1.0.dist-info\n'
            f'mkdir -p "$info" && cp {self.state}/package "$info/RECORD"\n'))
        self._stub("python3", (
            'if [[ $1 == -m && $2 == venv ]]; then\n'
            f'  mkdir -p "$3/bin" && cp -p {templates}/* "$3/bin/" && exit 0\n'
            'fi\n'
            f'exec {sys.executable} "$@"\n'))

    def run(self, *args, env=None, destdir=True):
        environ = {**os.environ, "PATH": f"{self.stubs}:{os.environ['PATH']}", **(env or {})}
        environ.pop("DESTDIR", None)
        if destdir:
            environ["DESTDIR"] = str(self.root)
        self.log.write_text("")
        done = subprocess.run(["bash", str(INSTALL), *args], env=environ,
                              capture_output=True, text=True)
        self.calls = self.log.read_text().splitlines()
        return done

    @property
    def changes(self) -> list[str]:
        """The recorded calls that change something (queries left out), with
        the temporary copy pip installs from shown as COPY."""
        return [re.sub(r" /\S+\[pi\]$", " COPY[pi]", c)
                for c in self.calls if not c.startswith(QUERIES)]

    def owner(self, path: str) -> str:
        """user:group of a DESTDIR path, as the fake stat reports it."""
        return subprocess.run(["stat", "-c", "%U:%G", str(self.root / path)], check=True,
                              env={**os.environ, "PATH": f"{self.stubs}:{os.environ['PATH']}"},
                              capture_output=True, text=True).stdout.strip()

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
    assert not {".git", ".venv", "build", "uno_showdown.egg-info"} & set(seen)
    assert done.stdout.splitlines()[-3:] == [
        "done: journalctl -u uno-showdown-unit -f   shows the log", *TOKEN_HINT]


def test_a_fresh_install_makes_a_token_the_service_group_can_read_but_not_write(system):
    done = system.run()
    assert done.returncode == 0, done.stderr
    token = system.root / TOKEN
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}\n", token.read_text())   # token_urlsafe(32)
    assert token_from_text(token.read_text(), str(token)) == token.read_text().strip()
    assert stat.S_IMODE(token.stat().st_mode) == 0o640
    assert system.owner(TOKEN) == "root:uno-showdown"
    assert "made a new token in /etc/uno-showdown/token" in done.stdout.splitlines()


def test_a_fresh_config_serves_loopback_and_names_the_token(system):
    assert system.run().returncode == 0
    config = system.root / "etc/uno-showdown/unit.toml"
    server = load_config(config).server
    assert (server.listen, server.allow_remote, server.token_file) == (
        "127.0.0.1:7700", False, "/etc/uno-showdown/token")
    changed = [(old, new) for old, new in zip(DEFAULT_TOML.read_text().splitlines(),
                                              config.read_text().splitlines()) if old != new]
    [(old, new)] = changed
    assert old.startswith('token_file = ""')
    assert new.partition("#")[0] == 'token_file = "/etc/uno-showdown/token"  '
    assert new.partition("#")[2] == old.partition("#")[2]      # the comment kept
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
    assert not Path(would[6].split()[6]).exists()    # the token's copy, removed
    assert not Path(would[8].split()[6]).exists()    # the checked copy, removed


def test_dry_run_after_install_has_only_pip_to_do(system):
    system.run()
    done = system.run("--dry-run")
    assert done.returncode == 0
    assert [line for line in done.stdout.splitlines() if line.startswith("would run: ")] == [
        f"would run: {system.root}/opt/uno-showdown/venv/bin/pip install --quiet "
        f"--disable-pip-version-check {ROOT}[pi]"]


def test_a_new_package_version_restarts_the_running_service(system):
    system.run()
    (system.state / "package").write_text("v2\n")
    done = system.run()
    assert done.returncode == 0
    assert system.changes == [PIP,
                              "systemctl restart uno-showdown-unit"]


def test_an_edited_unit_file_is_put_back_reloaded_and_restarted(system):
    system.run()
    unit_file = system.root / "etc/systemd/system/uno-showdown-unit.service"
    unit_file.write_text(unit_file.read_text().replace("WatchdogSec=10s", "WatchdogSec=0"))
    done = system.run()
    assert done.returncode == 0
    assert system.changes == [PIP,
                              "systemctl daemon-reload", "systemctl restart uno-showdown-unit"]
    assert unit_file.read_bytes() == UNIT.read_bytes()


def test_a_stopped_service_is_started_again(system):
    system.run()
    (system.state / "active").unlink()
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


@pytest.mark.parametrize("mode, owner, fixes", [
    (0o600, "uno-showdown:uno-showdown", ["chown", "chmod 0640"]),   # the old --allow-remote token
    (0o644, "root:uno-showdown", ["chmod 0640"]),                    # others could read it
    (0o660, "root:uno-showdown", ["chmod 0640"]),                    # the service could write it
    (0o640, "root:root", ["chown"]),                                  # the service could not read it
])
def test_an_existing_token_gets_owner_and_mode_put_right_and_keeps_its_text(
        system, mode, owner, fixes):
    token = system.put_token("kept-token\n", mode, owner)
    done = system.run()
    assert done.returncode == 0, done.stderr
    # chmod is the real one, so the fixes are read from what run printed.
    expected = {"chown": f"+ chown root:uno-showdown {token}", "chmod 0640": f"+ chmod 0640 {token}"}
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
    assert system.changes == [PIP, f"chown root:uno-showdown {token}",
                              "systemctl restart uno-showdown-unit"]
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
    assert would[1:] == [f"would run: chown root:uno-showdown {token}",
                         f"would run: chmod 0640 {token}"]


def test_a_token_that_is_not_a_plain_file_is_refused(system, tmp_path):
    token = system.root / TOKEN
    token.parent.mkdir(parents=True)
    token.symlink_to(tmp_path / "elsewhere")
    done = system.run()
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "install.sh: /etc/uno-showdown/token is not a plain file; remove it and run "
        "install.sh again")


def test_an_empty_token_is_warned_about(system):
    system.put_token(" \n", 0o640, "root:uno-showdown")
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert ("warning: /etc/uno-showdown/token is empty, so the service will not start; "
            "delete it and run install.sh again") in done.stdout.splitlines()


def test_allow_remote_writes_a_config_listening_on_the_lan_with_the_token(system):
    done = system.run("--allow-remote")
    assert done.returncode == 0, done.stderr
    config = system.root / "etc/uno-showdown/unit.toml"
    server = load_config(config).server
    assert (server.listen, server.allow_remote, server.token_file) == (
        "0.0.0.0:7700", True, "/etc/uno-showdown/token")
    changed = [(old, new) for old, new in zip(DEFAULT_TOML.read_text().splitlines(),
                                              config.read_text().splitlines()) if old != new]
    assert [new.partition("#")[0].rstrip() for _, new in changed] == [
        'listen = "0.0.0.0:7700"', "allow_remote = true", 'token_file = "/etc/uno-showdown/token"']
    assert [new.partition("#")[2] for _, new in changed] == [
        old.partition("#")[2] for old, _ in changed]               # the comments kept
    token = system.root / TOKEN
    assert stat.S_IMODE(token.stat().st_mode) == 0o640
    assert system.owner(TOKEN) == "root:uno-showdown"
    assert done.stdout.splitlines()[-3:] == [
        *TOKEN_HINT,
        "  an engine on another machine needs a private copy of /etc/uno-showdown/token "
        "(chmod 600) and --unit socket://THIS-PI:7700"]

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
    start = lines.index("note: /etc/uno-showdown/unit.toml exists and is kept; "
                        "add to its [server] table:")
    assert lines[start + 1:start + 4] == [
        '      token_file = "/etc/uno-showdown/token"',
        "      (without a token_file any local process, of any user, can command the unit)",
        "      then: sudo systemctl restart uno-showdown-unit"]


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
    start = lines.index("note: /etc/uno-showdown/unit.toml exists and is kept; "
                        "add to its [server] table:")
    assert lines[start + 1:start + 6] == [
        '      token_file = "/etc/uno-showdown/token"',
        '      listen = "0.0.0.0:7700"',
        "      allow_remote = true",
        "      (without a token_file any local process, of any user, can command the unit)",
        "      then: sudo systemctl restart uno-showdown-unit"]


def test_uninstall_removes_service_and_venv_but_keeps_config_and_results(system):
    system.run()
    results = system.root / "var/lib/uno-showdown/results.sqlite3"
    results.parent.mkdir(parents=True)
    results.write_bytes(b"SQLite format 3\0")
    done = system.run("--uninstall")
    assert done.returncode == 0, done.stderr
    assert system.changes == ["systemctl disable --now uno-showdown-unit",
                              "systemctl daemon-reload"]
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
    assert system.changes == ["systemctl disable --now uno-showdown-unit",
                              "systemctl daemon-reload", "userdel uno-showdown"]
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


@pytest.mark.parametrize("args, code, message", [
    (["--purge"], 1, "install.sh: --purge only goes with --uninstall"),
    (["--uninstall", "--allow-remote"], 1, "install.sh: --allow-remote does not go with --uninstall"),
    (["--frobnicate"], 2, "install.sh: unknown argument: --frobnicate"),
    (["--source"], 1, "install.sh: --source needs a directory"),
])
def test_bad_arguments_are_refused(system, args, code, message):
    done = system.run(*args)
    assert done.returncode == code
    assert done.stderr.splitlines()[-1] == message
    assert system.changes == []


def test_source_that_is_not_a_checkout_is_refused(system, tmp_path):
    done = system.run("--source", str(tmp_path / "elsewhere"))
    assert done.returncode == 1
    assert done.stderr == (f"install.sh: {tmp_path}/elsewhere is not an uno-showdown checkout "
                           "(no pyproject.toml or firmware_host/default.toml)\n")
    assert system.changes == []


def test_a_real_install_needs_root(system, tmp_path):
    # No DESTDIR: the real paths. The bogus --source is a second line of defence.
    done = system.run("--source", str(tmp_path / "nowhere"), env={"FAKE_UID": "1000"},
                      destdir=False)
    assert done.returncode == 1
    assert done.stderr.startswith("install.sh: must be run as root (try: sudo ")
    assert system.changes == []
