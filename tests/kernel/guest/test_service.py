"""The real service unit under systemd as PID 1, on the gpio-sim chip.

The guest boots this machine's own systemd (guest/init.sh). Here the unit is
installed the way systemd/install.sh lays it out on a Pi: the user and groups,
/opt/uno-showdown/venv (Debian's Python, finding this checkout), the stop script,
/etc/uno-showdown/unit.toml with a token, and systemd/uno-showdown-unit.service
copied unchanged. A drop-in adds only what the guest lacks and a Pi has: the
Pi 4's /proc/cpuinfo inside the service's own /proc (ProtectProc= gives it a
fresh one). `pinctrl` is the
stand-in of test_stop_lines.py: `set N op dl` pulls line N down.

The output lines have no pull-downs in these tests (the no_pull_downs fixture):
a line nobody drives reads high, so a low motor line after a stop, a kill or the
watchdog is the daemon's or the stop script's doing.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.daemon_helpers import ROOT, Client
from tests.kernel.guest.table import (
    ENABLE,
    LONG_LAUNCH,
    MOTOR,
    launch_toward_b,
    wait_until,
)

pytestmark = pytest.mark.slow

SERVICE = "uno-showdown-unit"
UNIT_FILE = Path("/etc/systemd/system") / f"{SERVICE}.service"
DROP_IN = UNIT_FILE.with_name(f"{SERVICE}.service.d") / "gpio-sim.conf"
PREFIX = Path("/opt/uno-showdown")
CONF_DIR = Path("/etc/uno-showdown")
TOKEN = "gpio-sim guest token"
PORT = 7700
MOTOR_LINES = (MOTOR["a"], MOTOR["b"], ENABLE)
#: Start, stop and restart under qemu's emulation take seconds each.
SLOW_S = 90.0


def run(*args: str) -> str:
    done = subprocess.run(args, capture_output=True, text=True, timeout=SLOW_S)
    assert done.returncode == 0, f"{' '.join(args)}: exit {done.returncode}\n{done.stderr}"
    return done.stdout


def start() -> None:
    """``systemctl start``: returns once the daemon sent READY=1 (Type=notify)."""
    done = subprocess.run(
        ["systemctl", "start", SERVICE], capture_output=True, text=True, timeout=SLOW_S
    )
    assert done.returncode == 0, f"systemctl start: {done.stderr}\n{journal()[-4000:]}"


def show(prop: str) -> str:
    return run("systemctl", "show", "--value", "-p", prop, SERVICE).strip()


def journal() -> str:
    return run("journalctl", "--no-pager", "-o", "cat", "-u", SERVICE)


def restarts() -> int:
    return int(show("NRestarts"))


def running_again(before: int) -> bool:
    """The service restarted since ``before`` restarts and is up (READY)."""
    return restarts() > before and show("ActiveState") == "active" and show("SubState") == "running"


def client() -> Client:
    link = Client.tcp(PORT)
    assert link.request("auth", token=TOKEN)["ok"]
    link.hello()
    return link


def motor_levels(chip) -> dict[int, int]:
    return {line: chip.value(line) for line in MOTOR_LINES}


@pytest.fixture(scope="module")
def service(chip):
    """The unit installed as install.sh would, not yet started."""
    pid1 = Path("/proc/1/comm").read_text().strip()
    assert pid1 == "systemd", f"PID 1 is {pid1}, not systemd: boot the guest with guest/init.sh"
    # The user, its groups, and the Pi's udev rule for GPIO chips (root:gpio 0660).
    for group in ("gpio", "dialout"):
        subprocess.run(["groupadd", "--system", "-f", group], check=True)
    try:
        pwd.getpwnam("uno-showdown")
    except KeyError:
        run(
            "useradd", "--system", "--user-group", "--home-dir", "/var/lib/uno-showdown",
            "--no-create-home", "--shell", "/usr/sbin/nologin", "uno-showdown",
        )  # fmt: skip
    for device in Path("/dev").glob("gpiochip*"):
        shutil.chown(device, group="gpio")
        device.chmod(0o660)
    # /opt/uno-showdown as install.sh lays it out. The venv is Debian's Python
    # (this machine's own lives under /root, which ProtectHome= hides from the
    # service) and finds the checkout, its .venv's packages and the cache's
    # lgpio through a .pth file instead of pip.
    venv = PREFIX / "venv"
    if not venv.exists():
        run("/usr/bin/python3", "-m", "venv", "--without-pip", str(venv))
        version = "python{}.{}".format(*sys.version_info[:2])
        (venv / "lib" / version / "site-packages" / "uno-showdown.pth").write_text(
            f"{ROOT}\n{ROOT / '.venv' / 'lib' / version / 'site-packages'}\n"
            f"{os.environ['UNO_GPIO_PYLIB']}\n"
        )
        script = (ROOT / ".venv" / "bin" / "showdown-unit").read_text().splitlines()
        entry = venv / "bin" / "showdown-unit"
        entry.write_text("\n".join([f"#!{venv / 'bin' / 'python'}", *script[1:]]) + "\n")
        entry.chmod(0o755)
    shutil.copy(ROOT / "systemd" / "motor-safe.sh", PREFIX / "motor-safe.sh")
    pinctrl = Path("/usr/local/bin/pinctrl")
    pinctrl.write_text(
        "#!/bin/sh\n"
        "# pinctrl stand-in for gpio-sim: `set N op dl` leaves line N low.\n"
        '[ "$1" = set ] && [ "$3" = op ] && [ "$4" = dl ] '
        '|| { echo "pinctrl stand-in: cannot $*" >&2; exit 2; }\n'
        f'echo pull-down > {chip.path}/sim_gpio"$2"/pull\n'
    )
    pinctrl.chmod(0o755)
    # The config and the token (root:uno-showdown 0640).
    CONF_DIR.mkdir(exist_ok=True)
    (CONF_DIR / "token").write_text(TOKEN + "\n")
    shutil.chown(CONF_DIR / "token", "root", "uno-showdown")
    (CONF_DIR / "token").chmod(0o640)
    (CONF_DIR / "unit.toml").write_text(
        f'backend = "lgpio"\n{LONG_LAUNCH}\n[server]\n'
        f'listen = "127.0.0.1:{PORT}"\ntoken_file = "{CONF_DIR / "token"}"\n'
    )
    # The unit file as shipped, and what the guest lacks that a Pi has.
    shutil.copy(ROOT / "systemd" / UNIT_FILE.name, UNIT_FILE)
    DROP_IN.parent.mkdir(exist_ok=True)
    DROP_IN.write_text(
        "# The gpio-sim guest only: a Pi 4's board revision for gpiozero, inside\n"
        "# the fresh /proc that ProtectProc= gives the service.\n"
        "[Service]\n"
        "BindReadOnlyPaths=/etc/uno-cpuinfo:/proc/cpuinfo\n"
        # A checkout under /tmp (a CI clone) would be hidden by PrivateTmp=.
        + (f"BindReadOnlyPaths={ROOT}\n" if ROOT.is_relative_to("/tmp") else "")
    )
    run("systemctl", "daemon-reload")
    yield
    subprocess.run(["systemctl", "stop", SERVICE], timeout=SLOW_S)


@pytest.fixture
def started(service):
    """The service up."""
    subprocess.run(["systemctl", "reset-failed", SERVICE], capture_output=True, timeout=SLOW_S)
    start()
    yield
    run("systemctl", "stop", SERVICE)


def test_start_waits_for_ready_and_the_unit_serves_as_its_user(started):
    assert (show("ActiveState"), show("SubState")) == ("active", "running")
    assert f"tcp 127.0.0.1:{PORT}" in show("StatusText")
    pid = int(show("MainPID"))
    owner = Path(f"/proc/{pid}").stat().st_uid
    assert pwd.getpwuid(owner).pw_name == "uno-showdown"
    link = client()
    assert link.request("status")["state"] == "idle"
    link.close()


def test_stop_mid_launch_leaves_every_motor_line_low(service, chip, no_pull_downs):
    start()
    launch_toward_b(client(), chip)
    assert motor_levels(chip)[MOTOR["b"]] == 1
    run("systemctl", "stop", SERVICE)
    assert show("ActiveState") == "inactive"
    assert motor_levels(chip) == dict.fromkeys(MOTOR_LINES, 0)
    assert f"GPIO{MOTOR['b']} driven low" in journal()


def test_sigkill_mid_launch_the_stop_script_forces_the_motor_low_and_systemd_restarts(
    started, chip, no_pull_downs
):
    before = restarts()
    launch_toward_b(client(), chip)
    old_pid = show("MainPID")
    run("systemctl", "kill", "--kill-whom=main", "--signal=SIGKILL", SERVICE)
    wait_until(lambda: running_again(before), SLOW_S, "the service restarted after SIGKILL")
    assert show("MainPID") != old_pid
    # The daemon died holding the lines; only the stop script drove them low,
    # and the new daemon drives them low from its start.
    assert motor_levels(chip) == dict.fromkeys(MOTOR_LINES, 0)
    assert journal().count(f"GPIO{MOTOR['a']} driven low") >= 1
    assert client().request("status")["state"] == "idle"


def test_the_watchdog_restarts_a_hung_daemon(started, chip, no_pull_downs):
    before = restarts()
    pid = int(show("MainPID"))
    hung_at = time.monotonic()
    os.kill(pid, 19)  # SIGSTOP: the daemon stops answering systemd's watchdog
    wait_until(lambda: running_again(before), SLOW_S, "the watchdog's restart")
    waited = time.monotonic() - hung_at
    assert int(show("MainPID")) != pid
    assert "Watchdog timeout" in journal()
    assert waited >= 10, f"restarted {waited:.1f} s after the hang, before WatchdogSec=10s"
    assert motor_levels(chip) == dict.fromkeys(MOTOR_LINES, 0)
    assert client().request("status")["state"] == "idle"
