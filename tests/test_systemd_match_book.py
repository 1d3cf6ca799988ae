"""The table's match book wired to the uplink (issue 23): with ``install.sh
--with-table --with-uplink`` the table service keeps its finished matches
(``--results``) in a folder the uplink service may read, and the new
``uplink.toml`` names that book (``matches``). Read from the unit files as
systemd reads them and from the installer's fake root (tests/systemd_helpers.py).
"""

from __future__ import annotations

import stat
from pathlib import PurePosixPath

import pytest

from firmware_host.uplink import load_uplink_config
from tests.systemd_helpers import (
    ROOT,
    TABLE_UNIT,
    is_inside,
    parse_unit,
    setting,
    setting_list,
    table_command,
    writable,
)

UPLINK = ROOT / "systemd" / "uno-showdown-uplink.service"
UPLINK_TOML = "etc/uno-showdown/uplink.toml"
MATCHES_DIR = "var/lib/uno-showdown-matches"
BOOK = f"{MATCHES_DIR}/matches.sqlite3"
PIP_BOTH = "pip install --quiet --disable-pip-version-check COPY[pi,table,league]"
BOTH = ("--with-table", "--with-uplink", "mqtt.local", "--venue", "bar-1")


@pytest.fixture(scope="module")
def table():
    return parse_unit(TABLE_UNIT.read_text())


@pytest.fixture(scope="module")
def uplink():
    return parse_unit(UPLINK.read_text())


def book_path(table) -> PurePosixPath:
    _, args = table_command(table)
    return PurePosixPath(args.results)


def test_the_table_keeps_its_matches_in_a_folder_it_may_write_outside_its_private_state(table):
    book = book_path(table)
    assert book == PurePosixPath("/", BOOK)
    # SQLite writes the book, its -wal and -shm beside it.
    for name in (book.name, f"{book.name}-wal", f"{book.name}-shm"):
        assert is_inside(book.with_name(name), writable(table))
    # DynamicUser= keeps a StateDirectory= under the 0700 /var/lib/private: not there.
    assert is_yes_dynamic(table)
    assert not is_inside(book, [PurePosixPath("/var/lib", n) for n in state_dirs(table)])
    # The saved match (the seats' secrets) stays the table user's alone.
    _, args = table_command(table)
    assert PurePosixPath(args.save).parent == PurePosixPath("/var/lib/uno-showdown-table")
    assert setting(table, "StateDirectoryMode") == "0700"
    assert setting(table, "UMask") == "0077"


def is_yes_dynamic(table) -> bool:
    return setting(table, "DynamicUser") == "yes"


def state_dirs(table) -> list[str]:
    return setting_list(table, "StateDirectory")


def test_the_uplink_may_read_the_book_and_not_write_it(table, uplink):
    book = book_path(table)
    assert not is_inside(book, writable(uplink))
    assert f"-{book.parent}" in setting_list(uplink, "ReadOnlyPaths")  # "-": no table, no folder
    # The uplink's group is the table's supplementary group: the folder's and the book's.
    assert setting(uplink, "Group") in setting_list(table, "SupplementaryGroups")


def test_with_table_and_uplink_the_new_uplink_toml_names_the_table_s_book(system, table):
    done = system.run(*BOTH)
    assert done.returncode == 0, done.stderr
    config = load_uplink_config(system.root / UPLINK_TOML, system=False)
    assert PurePosixPath(config.matches) == book_path(table)
    assert (config.broker, config.venue) == ("mqtt.local", "bar-1")
    assert not any(line.startswith("note:") for line in done.stdout.splitlines())
    for path, mode in ((MATCHES_DIR, 0o2770), (BOOK, 0o660)):
        assert stat.S_IMODE((system.root / path).stat().st_mode) == mode, path
        assert system.owner(path) == "root:uno-showdown", path
    assert (system.root / BOOK).read_bytes() == b""  # an empty SQLite file: no match yet
    assert system.changes[-3:] == [
        "systemctl enable --now uno-showdown-unit",
        "systemctl enable --now uno-showdown-table",
        "systemctl enable --now uno-showdown-uplink",
    ]


def test_a_second_run_changes_nothing_and_keeps_the_book(system):
    assert system.run(*BOTH).returncode == 0
    (system.root / BOOK).write_bytes(b"the table's matches")
    before = system.snapshot()
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert system.changes == [PIP_BOTH]
    assert system.snapshot() == before


def test_a_folder_or_book_whose_mode_was_changed_is_put_right(system):
    assert system.run("--with-table").returncode == 0
    (system.root / MATCHES_DIR).chmod(0o755)
    (system.root / BOOK).chmod(0o600)
    done = system.run()
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith("+ chmod")] == [
        f"+ chmod 02770 {system.root}/{MATCHES_DIR}",
        f"+ chmod 0660 {system.root}/{BOOK}",
    ]
    assert stat.S_IMODE((system.root / MATCHES_DIR).stat().st_mode) == 0o2770
    assert stat.S_IMODE((system.root / BOOK).stat().st_mode) == 0o660


def test_with_uplink_alone_the_book_is_a_comment_and_no_folder_is_made(system):
    assert system.run("--with-uplink", "mqtt.local").returncode == 0
    config = load_uplink_config(system.root / UPLINK_TOML, system=False)
    assert config.matches == ""
    text = (system.root / UPLINK_TOML).read_text()
    assert f'# matches = "/{BOOK}"' in text
    assert not (system.root / MATCHES_DIR).exists()


def test_a_kept_uplink_toml_without_the_book_is_told_how_to_add_it(system):
    assert system.run("--with-uplink", "mqtt.local").returncode == 0
    done = system.run("--with-table")
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith(("note:", "    "))] == [
        "note: /etc/uno-showdown/uplink.toml names no match book, so the table's matches "
        "stay on this Pi;",
        f'      add matches = "/{BOOK}" to its [uplink] table, then: '
        "sudo systemctl restart uno-showdown-uplink",
    ]
    assert load_uplink_config(system.root / UPLINK_TOML, system=False).matches == ""


def test_a_book_that_is_no_plain_file_is_refused(system):
    (system.root / BOOK).mkdir(parents=True)
    done = system.run("--with-table")
    assert done.returncode != 0
    assert f"/{BOOK} is not a plain file; remove it and run install.sh again" in done.stderr


def test_purge_removes_the_book_with_the_rest(system):
    assert system.run(*BOTH).returncode == 0
    assert system.run("--uninstall").returncode == 0
    assert (system.root / BOOK).exists()  # kept, as the results are
    assert system.run("--uninstall", "--purge").returncode == 0
    assert not (system.root / MATCHES_DIR).exists()
