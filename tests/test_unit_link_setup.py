"""What ``showdown play`` checks before it links to a unit: the token file, read
as the daemon reads it, and the players' names, as the unit would keep them."""

import argparse

import pytest

from engine.apps import cli, play_cmd
from engine.units.remote import names_for_unit
from firmware_host.protocol import token_from_text

UNIT = "socket://127.0.0.1:7700"


def parse(*argv):
    parser = argparse.ArgumentParser(prog="showdown play")
    play_cmd.add_arguments(parser)
    return parser.parse_args(argv)


def play(capsys, monkeypatch, *argv):
    """Run ``showdown play``; the game itself is replaced by recording its arguments.
    Returns the status, stderr's last line (after the usage, if any) and the arguments."""
    seen = {}
    monkeypatch.setattr(
        play_cmd, "play_game", lambda players, **kwargs: seen.update(kwargs, players=players) or 0
    )
    status = cli.main(["play", *argv])
    err = capsys.readouterr().err
    if status == 2:
        assert err.startswith("usage: showdown play ")
    return status, err.splitlines()[-1] + "\n" if err else "", seen


def token_error(text: str, path) -> str:
    with pytest.raises(ValueError) as caught:
        token_from_text(text, str(path))
    return str(caught.value)


def test_a_token_is_read_as_the_daemon_reads_it(tmp_path):
    path = tmp_path / "token"
    path.write_bytes(b"  s3cr\xc3\xa9t \r\n")
    assert play_cmd.read_token(path) == "s3cr\u00e9t"


def test_a_two_line_token_file_is_the_daemon_s_error(tmp_path, capsys, monkeypatch):
    path = tmp_path / "token"
    path.write_text("one\ntwo\n")
    status, err, seen = play(capsys, monkeypatch, "--unit", UNIT, "--token-file", str(path))
    assert status == 2 and seen == {}
    assert err == "showdown play: error: " + token_error("one\ntwo\n", path) + "\n"
    assert err == (
        f"showdown play: error: {path}: holds 2 lines; a token file holds the token on one line\n"
    )


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "{path}: no such file"),
        (b"\n \n", "{path}: the file is empty"),
        (b"ok\xff\xfe", "{path}: not UTF-8 text (byte 2: 0xff)"),
        ("directory", "{path}: cannot read: Is a directory"),
        (b"ab\x07c", "{path}: the token holds U+0007 (Cc); use printable characters"),
    ],
)
def test_a_token_file_that_cannot_be_used_is_one_line_naming_it(
    tmp_path, capsys, monkeypatch, content, message
):
    path = tmp_path / "token"
    if content == "directory":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    status, err, _ = play(capsys, monkeypatch, "--unit", UNIT, "--token-file", str(path))
    assert status == 2
    assert err == f"showdown play: error: {message.format(path=path)}\n"


def test_names_are_kept_as_the_unit_keeps_them():
    assert names_for_unit([" Zoe\u0308   Smith", "Ann", "bot2"]) == [
        "Zo\u00eb Smith",
        "Ann",
        "bot2",
    ]


@pytest.mark.parametrize(
    "players, message",
    [
        (
            "Ann,Ann\u202eB",
            "the unit would refuse player 2's name: it must be a name of 1 to 40 "
            'printable characters, not "Ann\u202eB" (it holds U+202E (Cf))',
        ),
        (
            "Ann," + "x" * 41,
            "the unit would refuse player 2's name: it must be a name of 1 to 40 "
            'printable characters, not "' + "x" * 38 + "…",
        ),
        (
            "Zo\u00eb,bot,Zoe\u0308",
            "the unit would take players 1 and 3 for the same person: "
            '"Zo\u00eb" and "Zoe\u0308" are one name to it (it ignores '
            "case, runs of spaces and Unicode forms)",
        ),
    ],
)
def test_names_the_unit_would_refuse_stop_showdown_play_at_the_start(
    capsys, monkeypatch, players, message
):
    status, err, seen = play(capsys, monkeypatch, "--players", players, "--unit", UNIT)
    assert status == 2 and seen == {}
    assert err == f"showdown play: error: {message}\n"


def test_names_are_not_checked_without_a_unit(capsys, monkeypatch):
    status, _err, seen = play(capsys, monkeypatch, "--players", "Zo\u00eb,Zoe\u0308")
    assert status == 0 and seen["players"] == ["Zo\u00eb", "Zoe\u0308"]
