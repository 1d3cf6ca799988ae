"""The command-line scaffold both commands share (firmware_host.people.console):
Ctrl-C, one-line errors and their exit statuses, the logging flags, renamed
subcommands, and the number checks."""

import argparse
import logging
import sys
import types

import pytest

from engine.apps import cli as engine_cli
from firmware_host.commands import cli as unit_cli
from firmware_host.people import console


class Boom(RuntimeError):
    """An error the test command knows."""


class Bust(Boom):
    """A more particular one, with its own status."""


@pytest.fixture
def tool(monkeypatch):
    """A command ``tool`` with one subcommand ``act`` whose body each test sets,
    run through the scaffold; returns (run(argv) -> status, the subcommand)."""
    module = types.ModuleType("fake_act")
    module.body = lambda args: 0

    def add_arguments(parser):
        parser.add_argument("--count", type=console.positive_int, default=1)

    module.add_arguments = add_arguments
    module.command = lambda args: module.body(args)
    monkeypatch.setitem(sys.modules, "fake_act", module)

    def run(*argv, **options):
        return console.run(
            list(argv),
            prog="tool",
            description="a test tool",
            commands=[("act", "fake_act", "do it")],
            errors={Boom: 3, Bust: 4},
            **options,
        )

    return run, module


def raiser(exc):
    def body(args):
        raise exc

    return body


def test_a_subcommands_status_is_the_exit_status(tool):
    run, act = tool
    act.body = lambda args: args.count + 40
    assert run("act", "--count", "2") == 42


def test_ctrl_c_is_one_line_and_exit_130(tool, capsys):
    run, act = tool
    act.body = raiser(KeyboardInterrupt)
    assert run("act") == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_a_command_error_is_one_line_and_its_status(tool, capsys):
    run, act = tool
    act.body = raiser(console.CommandError("/x/results.sqlite3: no such journal file"))
    assert run("act") == 1
    assert capsys.readouterr().err == "error: /x/results.sqlite3: no such journal file\n"
    act.body = raiser(console.CommandError("journal in use", 78))
    assert run("act") == 78
    assert capsys.readouterr().err == "error: journal in use\n"


def test_an_error_the_command_knows_is_one_line_and_its_status(tool, capsys):
    run, act = tool
    act.body = raiser(Boom("the motor driver is not answering"))
    assert run("act") == 3
    assert capsys.readouterr().err == "error: the motor driver is not answering\n"
    act.body = raiser(Bust("more particular"))
    assert run("act") == 4  # the most particular type listed wins


def test_an_error_nobody_knows_is_not_hidden(tool):
    run, act = tool
    act.body = raiser(ZeroDivisionError("a bug"))
    with pytest.raises(ZeroDivisionError):
        run("act")


def test_a_usage_error_reads_as_argparse_says_its_own(tool, capsys):
    run, act = tool
    act.body = raiser(console.UsageError("--token-file is for a unit at a URL"))
    assert run("act") == 2
    usage, line = capsys.readouterr().err.splitlines()
    assert usage.startswith("usage: tool act ")
    assert line == "tool act: error: --token-file is for a unit at a URL"
    with pytest.raises(SystemExit) as exit_:
        run("act", "--count", "0")  # argparse's own, in the same form
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "tool act: error: argument --count: must be a whole number >= 1, not '0'"
    )


@pytest.mark.parametrize(
    "flags, level",
    [
        ([], logging.WARNING),
        (["-v"], logging.INFO),
        (["-vv"], logging.DEBUG),
        (["-vvv"], logging.DEBUG),
        (["--verbose"], logging.INFO),
        (["-q"], logging.ERROR),
        (["--quiet"], logging.ERROR),
    ],
)
def test_the_logging_flags(tool, monkeypatch, flags, level):
    run, _act = tool
    configured = {}
    monkeypatch.setattr(logging, "basicConfig", lambda **kwargs: configured.update(kwargs))
    chatty = logging.getLogger("test_console.chatty")
    monkeypatch.setattr(chatty, "level", logging.NOTSET)
    assert run(*flags, "act", quieter=["test_console.chatty"]) == 0
    assert configured == {"level": level, "format": "%(levelname)s %(name)s: %(message)s"}
    assert chatty.level == max(level, logging.WARNING)


def test_verbose_and_quiet_together_are_a_usage_error(tool, capsys):
    run, _ = tool
    with pytest.raises(SystemExit) as exit_:
        run("-v", "-q", "act")
    assert exit_.value.code == 2
    assert "argument -q/--quiet: not allowed with argument -v/--verbose" in capsys.readouterr().err


def test_a_renamed_subcommand_still_runs_and_says_its_new_name(monkeypatch, capsys):
    module = types.ModuleType("fake_new")
    module.add_arguments = lambda parser: parser.add_argument("--n", type=int)
    module.command = lambda args: args.n
    monkeypatch.setitem(sys.modules, "fake_new", module)
    options = dict(
        prog="tool",
        description="a test tool",
        commands=[("new", "fake_new", "the new name")],
        renamed={"old": "new"},
    )
    assert console.run(["old", "--n", "5"], **options) == 5
    assert capsys.readouterr().err == "tool old is now tool new\n"
    assert console.run(["new", "--n", "6"], **options) == 6
    assert capsys.readouterr().err == ""
    with pytest.raises(SystemExit):
        console.run(["--help"], **options)
    assert "old" not in capsys.readouterr().out


@pytest.mark.parametrize("main", [unit_cli.main, engine_cli.main])
def test_both_commands_take_ctrl_c_the_same_way(main, monkeypatch, capsys):
    """Regression: ``showdown`` had no Ctrl-C handling (a traceback), ``showdown-unit`` had."""

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(console, "build_parser", interrupted)
    assert main(["--help"]) == 130
    assert capsys.readouterr().err == "interrupted\n"


@pytest.mark.parametrize("build", [unit_cli.build_parser, engine_cli.build_parser])
def test_both_commands_have_the_same_logging_flags(build):
    help_text = build().format_help()
    assert "-v, --verbose  log more (-v: info, -vv: debug)" in help_text
    assert "-q, --quiet    log errors only" in help_text


# -- the number checks ---------------------------------------------------------------


@pytest.mark.parametrize(
    "parse, text, value",
    [
        (console.positive_int, "1", 1),
        (console.positive_int, "007", 7),
        (console.seed, "0", 0),
        (console.whole_number(2, 10), "10", 10),
        (console.seconds, "0.5", 0.5),
        (console.seconds, "3", 3.0),
    ],
)
def test_numbers_that_pass(parse, text, value):
    assert parse(text) == value


@pytest.mark.parametrize(
    "parse, text, message",
    [
        (console.positive_int, "0", "must be a whole number >= 1, not '0'"),
        (console.positive_int, "-3", "must be a whole number >= 1, not '-3'"),
        (console.positive_int, "1.5", "must be a whole number >= 1, not '1.5'"),
        (console.positive_int, " 2", "must be a whole number >= 1, not ' 2'"),
        (console.positive_int, "²", "must be a whole number >= 1, not '²'"),
        (console.seed, "x", "must be a whole number >= 0, not 'x'"),
        (console.whole_number(2, 10), "11", "must be a whole number from 2 to 10, not '11'"),
        (console.whole_number(50), "49", "must be a whole number >= 50, not '49'"),
        (console.seconds, "0", "must be a number of seconds > 0, not '0'"),
        (console.seconds, "nan", "must be a number of seconds > 0, not 'nan'"),
        (console.seconds, "inf", "must be a number of seconds > 0, not 'inf'"),
        (console.seconds, "soon", "must be a number of seconds > 0, not 'soon'"),
    ],
)
def test_numbers_that_fail_say_why_in_the_same_words(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        parse(text)
    assert str(caught.value) == message
