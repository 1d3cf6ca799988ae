"""install.sh --with-table: the table's service installed, kept up to date and
removed beside the unit's (the fake root of tests/systemd_helpers.py)."""

import os
import stat

import pytest

from firmware_host.service import (
    load_config,
)
from tests.systemd_helpers import (
    PIP,
    ROOT,
    TABLE_UNIT,
    TOKEN,
    TOKEN_HINT,
    first_install_changes,
    setting_list,
    table_command,
)

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
    token_chown = expected.index(f"chown root:uno-showdown {system.root}/{TOKEN}")
    expected[token_chown + 1 : token_chown + 1] = [  # the match book's folder and file
        f"chown root:uno-showdown {system.root}/var/lib/uno-showdown-matches",
        f"chown root:uno-showdown {system.root}/var/lib/uno-showdown-matches/matches.sqlite3",
    ]
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
