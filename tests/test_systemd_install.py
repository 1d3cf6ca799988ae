"""The installer (systemd/install.sh) run for real against a fake root (DESTDIR)
with recording stubs for the commands that would touch the system (systemctl,
useradd, ...): tests/systemd_helpers.py's FakeSystem."""

import re
import stat
from pathlib import Path

import pytest

from firmware_host.protocol import token_from_text
from firmware_host.service import (
    load_config,
)
from tests.systemd_helpers import (
    DEFAULT_TOML,
    MOTOR_SAFE,
    PIP,
    ROOT,
    TOKEN,
    TOKEN_HINT,
    UNIT,
    first_install_changes,
)


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
    # pip installed from a copy of the checkout without build files, the venv, or
    # what no package holds (the docs' screenshots are most of the checkout's bytes).
    seen = (system.state / "pip-saw").read_text().split()
    assert {"pyproject.toml", "README.md", "engine", "firmware_host", "hw"} <= set(seen)
    assert not {".git", ".venv", "build", "uno_showdown.egg-info", ".mypy_cache"} & set(seen)
    assert not {"docs", "tests", "benchmarks"} & set(seen)
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
