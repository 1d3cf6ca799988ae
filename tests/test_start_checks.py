"""check-config runs the daemon's start checks: each config the daemon refuses
at start (exit 78, which systemd does not retry; exit 1 for a journal folder,
which may be a drive not mounted yet) fails check-config with the same line
(exit 1), and a config check-config passes, the daemon starts with.

Regression: check-config passed `listen = "0.0.0.0:7700"` and
`token_file = "/nonexistent"`, which the daemon then refused: on a Pi the
service would not start."""

import importlib.util
import os
from pathlib import Path

import pytest

from firmware_host.commands.cli import main
from firmware_host.service import daemon
from firmware_host.service.config import ConfigError, load_config
from firmware_host.service.daemon import EX_CONFIG, check_journal, check_start


def token(tmp_path, mode=0o600):
    path = tmp_path / "token"
    path.write_text("correct horse\n")
    path.chmod(mode)
    return path


def lgpio_installed() -> bool:
    return importlib.util.find_spec("lgpio") is not None


# Each: (config text, with {tmp} for the test's folder; the error after "<file>: ").
# The daemon exits 78 for each, but 1 for those about the journal.
REFUSED = {
    "a LAN address without allow_remote": (
        '[server]\nlisten = "0.0.0.0:7700"\n',
        "server.listen: 0.0.0.0:7700 is not a loopback address; serving other hosts needs "
        "--allow-remote (server.allow_remote) and --token-file (server.token_file)",
    ),
    "a LAN address without a token": (
        '[server]\nlisten = "0.0.0.0:7700"\nallow_remote = true\n',
        "server.listen: 0.0.0.0:7700 is not loopback, so clients must authenticate: give "
        "--token-file FILE (server.token_file), which others may not read",
    ),
    "a token file that is not there": (
        '[server]\ntoken_file = "/nonexistent"\n',
        "server.token_file: /nonexistent: no such file",
    ),
    "a token file others may read": (
        '[server]\ntoken_file = "{tmp}/loose-token"\n',
        "server.token_file: {tmp}/loose-token: mode 0644 lets others use it; "
        "chmod o-rwx {tmp}/loose-token",
    ),
    "a journal path that is a folder": (
        '[journal]\npath = "{tmp}"\n',
        "journal.path: {tmp}: is a folder (journal.path names the journal's file)",
    ),
    "a journal whose folder is a file": (
        '[journal]\npath = "{tmp}/loose-token/results.sqlite3"\n',
        "journal.path: {tmp}/loose-token/results.sqlite3: cannot create its folder: "
        "{tmp}/loose-token is not a folder",
    ),
    "a mistyped journal path": (
        '[journal]\npath = "{tmp}/no/such/results.sqlite3"\n',
        "journal.path: {tmp}/no/such/results.sqlite3: cannot create its folder: {tmp}/no "
        "does not exist (only the journal's own folder is created: check the path)",
    ),
    "a pin used twice": (
        "[pins]\ngo_led = 17\n",
        "pins.go_led: pin 17 is used by both paddle_a and go_led",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_check_config_refuses_what_the_daemon_refuses_with_the_same_line(tmp_path, capsys, case):
    text, message = REFUSED[case]
    (tmp_path / "loose-token").write_text("s3cret\n")
    (tmp_path / "loose-token").chmod(0o644)
    config = tmp_path / "unit.toml"
    config.write_text(text.format(tmp=tmp_path))
    expected = f"error: {config}: {message.format(tmp=tmp_path)}\n"
    assert main(["check-config", "--config", str(config)]) == 1
    checked = capsys.readouterr()
    assert (checked.out, checked.err) == ("", expected)
    status = 1 if message.startswith("journal.path") else EX_CONFIG
    assert main(["run", "--config", str(config)]) == status
    assert capsys.readouterr().err == expected
    assert not (tmp_path / "no").exists()  # nothing made on the way


@pytest.mark.skipif(lgpio_installed(), reason="lgpio is installed here")
def test_a_pin_backend_whose_library_is_missing_is_refused_by_both(tmp_path, capsys):
    config = tmp_path / "unit.toml"
    config.write_text(f'backend = "lgpio"\n[journal]\npath = "{tmp_path}/r.sqlite3"\n')
    expected = (
        f"error: {config}: backend: pin backend 'lgpio' needs the lgpio library, which is not "
        "installed (on a Raspberry Pi: pip install 'uno-showdown[pi]'); without a Raspberry "
        'Pi use --mock (or backend = "mock" in the config)\n'
    )
    assert main(["check-config", "--config", str(config)]) == 1
    assert capsys.readouterr().err == expected
    assert main(["run", "--config", str(config)]) == EX_CONFIG
    assert capsys.readouterr().err == expected


def test_a_journal_folder_the_daemon_may_not_write_is_refused(tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    # Root may write anywhere (CI runs as root): ask the kernel as a user would be answered.
    real_access = os.access
    monkeypatch.setattr(
        daemon.os,
        "access",
        lambda path, mode: False if Path(path) == locked else real_access(path, mode),
    )
    config = tmp_path / "unit.toml"
    config.write_text(f'[journal]\npath = "{locked}/results.sqlite3"\n')
    assert main(["check-config", "--config", str(config)]) == 1
    assert capsys.readouterr().err == (
        f"error: {config}: journal.path: {locked}/results.sqlite3: cannot write in its "
        f"folder: {locked}: permission denied\n"
    )


def test_run_and_check_config_call_the_one_start_check(monkeypatch, capsys):
    """They cannot drift: both commands go through daemon.check_start."""
    calls = []

    def refuse(config, **kwargs):
        calls.append(kwargs)
        raise ConfigError("somewhere: some.key: what is wrong")

    monkeypatch.setattr(daemon, "check_start", refuse)
    assert main(["check-config"]) == 1
    assert capsys.readouterr().err == "error: somewhere: some.key: what is wrong\n"
    assert main(["run", "--mock", "--listen", "127.0.0.1:0"]) == EX_CONFIG
    assert capsys.readouterr().err == "error: somewhere: some.key: what is wrong\n"
    assert len(calls) == 2
    assert calls[1]["sources"] == {"server.listen": "<command line>", "backend": "<command line>"}


def test_a_config_that_passes_is_printed_with_what_the_checks_found(tmp_path, capsys):
    secret = token(tmp_path, mode=0o640)
    config = tmp_path / "unit.toml"
    config.write_text(
        '[server]\nlisten = "0.0.0.0:7700"\nallow_remote = true\n'
        f'token_file = "{secret}"\n[journal]\npath = "{tmp_path}/new/results.sqlite3"\n'
    )
    assert main(["check-config", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert 'listen = "0.0.0.0:7700"' in out
    assert out.endswith(
        "\n# the daemon's start checks pass here:\n"
        "#   tcp 0.0.0.0:7700 (clients send the token)\n"
        f"#   journal {tmp_path}/new/results.sqlite3\n"
        "#   backend auto\n"
    )
    assert not (tmp_path / "new").exists()  # the journal's own folder may be made; not here


def test_file_only_checks_the_file_and_not_what_it_names_here(tmp_path, capsys):
    """What the installer and motor-safe.sh use: a config meant for the Pi,
    read elsewhere or by another user."""
    config = tmp_path / "unit.toml"
    config.write_text('[server]\ntoken_file = "/nonexistent"\n[pins]\nmotor_a = 25\n')
    assert main(["check-config", "--file-only", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "motor_a = 25" in out and "start checks" not in out
    config.write_text("[pins]\nmotor_a = 99\n")
    assert main(["check-config", "--file-only", "--config", str(config)]) == 1


def test_the_default_journal_may_need_its_parents_made_a_named_one_only_its_folder(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "fresh" / "state"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    config = load_config(None)
    assert check_journal(config) == tmp_path / "fresh/state/uno-showdown/results.sqlite3"
    named = config.replace(journal=config.journal.__class__(path=str(tmp_path / "a/b/r.sqlite3")))
    with pytest.raises(ConfigError, match=r"^<config>: journal.path: .*/a/b/r.sqlite3: "):
        check_journal(named)
    assert not (tmp_path / "fresh").exists() and not (tmp_path / "a").exists()


def test_check_start_gives_the_links_and_the_journal_the_daemon_opens(tmp_path):
    config = load_config(None).replace(backend="mock")
    config = config.replace(journal=config.journal.__class__(path=str(tmp_path / "r.sqlite3")))
    checked = check_start(config)
    assert checked.links == daemon.Links(("127.0.0.1", 7700), None, None, 115200)
    assert checked.journal == tmp_path / "r.sqlite3"


def test_a_journal_folder_the_kernel_refuses_is_refused_though_access_allows_it(tmp_path, capsys):
    """Issue 22: check-config passed a folder the daemon then could not create
    (root passes os.access; /proc refuses a new folder only when asked)."""
    config = tmp_path / "unit.toml"
    config.write_text('[journal]\npath = "/proc/uno-showdown/results.sqlite3"\n')
    assert main(["check-config", "--config", str(config)]) == 1
    assert capsys.readouterr().err == (
        f"error: {config}: journal.path: /proc/uno-showdown/results.sqlite3: cannot create "
        "its folder: /proc/uno-showdown: No such file or directory\n"
    )
    assert not Path("/proc/uno-showdown").exists()
