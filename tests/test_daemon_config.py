"""Starting the daemon: flags over config, refusals with one clear line and
exit 78 (EX_CONFIG), tokens, and the auth flow on a real process."""

import logging
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from firmware_host.commands.cli import main
from firmware_host.service.config import ConfigError, JournalConfig, load_config
from firmware_host.service.daemon import (
    COMMAND_LINE,
    EX_CONFIG,
    Daemon,
    Links,
    apply_flags,
    check_links,
    read_token,
    restart_keys,
)
from firmware_host.service.sdnotify import Notifier
from tests.daemon_helpers import WAIT_S, Client, running_daemon


def flags(**given):
    names = ("mock", "listen", "allow_remote", "token_file", "serial", "baud", "journal")
    return SimpleNamespace(**{name: given.get(name) for name in names})


def token_file(tmp_path, text="correct horse\n", mode=0o600):
    path = tmp_path / "token"
    path.write_text(text)
    path.chmod(mode)
    return path


def test_flags_override_the_config_and_absent_flags_change_nothing():
    config = load_config(None)
    assert apply_flags(config, flags()) == config
    changed = apply_flags(
        config,
        flags(mock=True, listen="", serial="/dev/ttyUSB0", baud=9600, journal="/tmp/r.sqlite3"),
    )
    assert changed.backend == "mock" and changed.journal.path == "/tmp/r.sqlite3"
    assert (changed.server.listen, changed.server.serial, changed.server.baud) == (
        "",
        "/dev/ttyUSB0",
        9600,
    )
    assert check_links(changed) == Links(None, None, "/dev/ttyUSB0", 9600)
    with pytest.raises(
        ConfigError, match=r"^<command line>: --baud: must be 50 to 4000000, not 0$"
    ):
        apply_flags(config, flags(baud=0))


def test_loopback_needs_no_token_and_any_other_address_needs_both(tmp_path):
    config = load_config(None)
    assert check_links(config) == Links(("127.0.0.1", 7700), None, None, 115200)
    remote = apply_flags(config, flags(listen="0.0.0.0:7700"))
    sources = {"server.listen": COMMAND_LINE}
    with pytest.raises(ConfigError) as refused:
        check_links(remote, sources=sources)
    assert str(refused.value) == (
        "<command line>: server.listen: 0.0.0.0:7700 is not a loopback address; serving other "
        "hosts needs --allow-remote (server.allow_remote) and --token-file (server.token_file)"
    )
    allowed = apply_flags(remote, flags(allow_remote=True))
    with pytest.raises(ConfigError) as refused:
        check_links(allowed, sources=sources)
    assert str(refused.value) == (
        "<command line>: server.listen: 0.0.0.0:7700 is not loopback, so clients must "
        "authenticate: give --token-file FILE (server.token_file), which others may not read"
    )
    secret = token_file(tmp_path)
    links = check_links(apply_flags(allowed, flags(token_file=str(secret))))
    assert links == Links(("0.0.0.0", 7700), "correct horse", None, 115200)
    with pytest.raises(
        ConfigError,
        match=r"server.listen: must be HOST:PORT with a port "
        r"0-65535, not '7700'",
    ):
        check_links(apply_flags(config, flags(listen="7700")))


@pytest.mark.parametrize(
    "text, mode, message",
    [
        (None, 0o600, "{path}: no such file"),
        ("  \n", 0o600, "{path}: the file is empty"),
        ("s3cret", 0o604, "{path}: mode 0604 lets others use it; chmod o-rwx {path}"),
        ("s3cret", 0o602, "{path}: mode 0602 lets others use it; chmod o-rwx {path}"),
        ("one\ntwo\n", 0o600, "{path}: holds 2 lines; a token file holds the token on one line"),
        ("x" * 257, 0o600, "{path}: the token is 257 characters; at most 256"),
        ("s3\x1bcret", 0o600, "{path}: the token holds U+001B (Cc); use printable characters"),
    ],
)
def test_a_token_file_must_exist_hold_one_token_and_be_closed_to_others(
    tmp_path, text, mode, message
):
    path = tmp_path / "token"
    if text is not None:
        token_file(tmp_path, text, mode)
    with pytest.raises(ValueError) as refused:
        read_token(path)
    assert str(refused.value) == message.format(path=path)


def test_a_token_file_the_group_may_read_is_the_pi_install_s_and_is_taken(tmp_path):
    assert read_token(token_file(tmp_path, "  s3cret \n\n", mode=0o640)) == "s3cret"


def test_a_token_too_long_for_an_auth_line_is_refused_at_start(tmp_path):
    path = token_file(tmp_path, "é" * 200)
    with pytest.raises(ValueError) as refused:
        read_token(path, max_line_bytes=256)
    assert str(refused.value) == (
        f"{path}: the token is too long: its auth line would be 432 "
        "bytes, more than server.max_line_bytes (256)"
    )
    assert read_token(path) == "é" * 200


def test_run_refuses_a_remote_address_without_a_token_in_one_line(tmp_path, capsys):
    assert main(["run", "--mock", "--listen", "0.0.0.0:0", "--allow-remote"]) == 78
    assert capsys.readouterr().err == (
        "error: <command line>: server.listen: 0.0.0.0:0 is not loopback, so clients must "
        "authenticate: give --token-file FILE (server.token_file), which others may not read\n"
    )
    loose = token_file(tmp_path, mode=0o644)
    assert (
        main(
            ["run", "--mock", "--listen", "0.0.0.0:0", "--allow-remote", "--token-file", str(loose)]
        )
        == 78
    )
    assert capsys.readouterr().err == (
        f"error: <command line>: server.token_file: {loose}: mode 0644 lets others use it; "
        f"chmod o-rwx {loose}\n"
    )
    config = tmp_path / "unit.toml"
    config.write_text('[server]\nlisten = "192.0.2.1:7700"\n')
    assert main(["run", "--mock", "--config", str(config)]) == 78
    assert capsys.readouterr().err.startswith(
        f"error: {config}: server.listen: 192.0.2.1:7700 is not a loopback address;"
    )


@pytest.mark.slow  # starts two daemons
def test_a_port_in_use_says_how_to_choose_another_and_exits_78(tmp_path):
    """Regression: a second instance said only '[Errno 98] cannot listen on
    ...: Address already in use' and exited 1 (so systemd retried it)."""
    with running_daemon(tmp_path) as daemon:
        child = subprocess.run(
            [
                sys.executable,
                "-m",
                "firmware_host",
                "run",
                "--mock",
                "--journal",
                str(tmp_path / "other.sqlite3"),
                "--listen",
                f"127.0.0.1:{daemon.port}",
            ],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=WAIT_S,
        )
    assert child.returncode == EX_CONFIG
    assert child.stderr == (
        f"error: <command line>: server.listen: 127.0.0.1:{daemon.port} is in use (another "
        "unit daemon?): choose another with --listen 127.0.0.1:0 or stop the other one\n"
    )


def test_reload_reports_only_what_needs_a_restart():
    old = load_config(None)
    new = apply_flags(old, flags(mock=True, listen="127.0.0.1:7701"))
    assert restart_keys(old, new) == ["backend", "server.listen"]
    assert restart_keys(old, old.replace(unit_name="other")) == []


def test_the_auth_flow_on_a_remote_listener(tmp_path):
    secret = token_file(tmp_path)
    with running_daemon(
        tmp_path, ["--allow-remote", "--token-file", str(secret)], listen="0.0.0.0:0"
    ) as daemon:
        with Client.tcp(daemon.port) as client:
            assert client.request("hello", version=1)["error"] == {
                "code": "unauthorized",
                "message": 'send auth with the unit\'s token before "hello"',
            }
            assert client.request("auth", token="wrong")["error"]["code"] == "unauthorized"
            assert client.request("status")["error"]["code"] == "unauthorized"
            assert client.request("auth", token="correct horse") == {"id": 4, "ok": True}
            assert client.request("status")["error"]["code"] == "hello_required"
            assert client.hello()["version"] == 1
            assert client.request("status")["state"] == "idle"
        assert daemon.stop(signal.SIGTERM) == 0
    log = daemon.log_text()
    assert "listening on 0.0.0.0:" in log and "correct horse" not in log


def test_the_service_does_not_restart_a_daemon_that_refused_its_config():
    unit = Path(__file__).resolve().parent.parent / "systemd" / "uno-showdown-unit.service"
    assert f"\nRestartPreventExitStatus={EX_CONFIG}\n" in unit.read_text()


def test_run_names_the_journal_and_the_serial_device_it_cannot_open(tmp_path, capsys):
    """Regression: a journal folder that could not be made was a bare
    '[Errno 20] ...' line, and a serial 'device' that is no tty said only
    'Could not configure port', naming neither. The journal's folder is now
    checked before anything starts (exit 1: systemd tries again, as for a
    drive not mounted yet)."""
    (tmp_path / "file").write_text("")
    journal = tmp_path / "file" / "results.sqlite3"
    assert main(["run", "--mock", "--listen", "", "--journal", str(journal)]) == 1
    assert capsys.readouterr().err == (
        f"error: <command line>: journal.path: {journal}: cannot create its folder: "
        f"{tmp_path / 'file'} is not a folder\n"
    )
    not_a_tty = tmp_path / "not-a-tty"
    not_a_tty.write_text("")
    assert (
        main(
            [
                "run",
                "--mock",
                "--listen",
                "",
                "--journal",
                str(tmp_path / "r.sqlite3"),
                "--serial",
                str(not_a_tty),
            ]
        )
        == 1
    )
    assert capsys.readouterr().err == (
        f"error: serial {not_a_tty}: Could not configure port: "
        "(25, 'Inappropriate ioctl for device')\n"
    )


def test_a_reload_that_fails_unexpectedly_keeps_the_daemon_running(tmp_path, caplog):
    """Regression: only ConfigError was caught around a SIGHUP reload, so any
    other error (a non-UTF-8 file raised UnicodeDecodeError) ended the daemon."""

    def load():
        raise RuntimeError("a bug while loading")

    config = load_config(None).replace(
        backend="mock", journal=JournalConfig(path=str(tmp_path / "results.sqlite3"))
    )
    daemon = Daemon(config, Links(None, None, None, 115200), load=load, notifier=Notifier(None))
    daemon.request_reload()
    daemon.request_stop()
    caplog.set_level(logging.INFO, logger="firmware_host")
    assert daemon.run() == 0
    messages = caplog.messages
    assert messages.index("reload failed, keeping the running config") < messages.index(
        "stopping (request)"
    )
