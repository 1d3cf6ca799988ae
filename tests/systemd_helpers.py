"""What the systemd tests share: reading a unit file the way systemd does and
the fake root the installer runs against (FakeSystem); their fixtures (unit,
table_unit, system) are in tests/conftest.py."""

import fnmatch
import importlib
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath

from firmware_host.commands import main

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


# --- the table's service (uno-showdown-table) --------------------------------

TABLE_UNIT = ROOT / "systemd" / "uno-showdown-table.service"
#: What install.sh puts where (its readonly lines): the table reads the unit's
#: token through the token's group.
INSTALLED_TOKEN = "/etc/uno-showdown/token"
TOKEN_GROUP = "uno-showdown"
VENV_BIN = "/opt/uno-showdown/venv/bin"


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
    "dpkg-query ",
    "runuser -u postgres -- psql ",
)
TOKEN = "etc/uno-showdown/token"
TOKEN_HINT = [
    "to let a user command the unit: sudo usermod -aG uno-showdown USER  (USER then logs in again)",
    "  and gives the engine the token: showdown play --unit socket://127.0.0.1:7700 "
    "--token-file /etc/uno-showdown/token",
]


def write_script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)
    return path


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
        # The league's machine (install-league.sh): Debian's packages, PostgreSQL's
        # roles and databases (in $state), mosquitto_passwd's hashing (a stand-in).
        self._stub(
            "dpkg-query",
            '[[ -e $state/package-${!#} ]] && echo "install ok installed"\n',
        )
        self._stub(
            "apt-get",
            (
                'for p in "$@"; do [[ $p == -* || $p == install ]] || touch "$state/package-$p"; done\n'
                '[[ " $* " != *" postgresql "* ]] || echo "postgres:x:" >> "$state/passwd"\n'
            ),
        )
        self._stub(
            "runuser",
            (
                "shift 3\n"  # -u postgres --
                "case $1 in\n"
                "  psql) [[ $3 =~ (rolname|datname)\\ =\\ \\'([a-z_-]+)\\' ]] || exit 2\n"
                "        [[ -e $state/pg-${BASH_REMATCH[2]} ]] && echo 1; exit 0 ;;\n"
                '  createuser) touch "$state/pg-$2" ;;\n'
                '  createdb) touch "$state/pg-${!#}" ;;\n'
                '  dropdb|dropuser) rm -f "$state/pg-$2" ;;\n'
                "esac\n"
            ),
        )
        self._stub(
            "mosquitto_passwd",
            'sed -i -e "s/^\\([^:]*\\):\\(.*\\)/\\1:\\$7\\$hashed-\\2/" "$2"\n',
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

    def run(self, *args, env=None, destdir=True, script=INSTALL):
        environ = {**os.environ, "PATH": f"{self.stubs}:{os.environ['PATH']}", **(env or {})}
        environ.pop("DESTDIR", None)
        if destdir:
            environ["DESTDIR"] = str(self.root)
        self.log.write_text("")
        done = subprocess.run(
            ["bash", str(script), *args], env=environ, capture_output=True, text=True
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
