"""The command-line scaffold both commands share: ``showdown-unit`` and ``showdown``.

A command is a list of subcommands, each a module with ``add_arguments(parser)``
and ``command(args) -> int``, imported when the parser is built. :func:`run`
parses, configures logging (``-v`` info, ``-vv`` debug, ``-q`` errors only; the
format carries no time, as journald stamps each line itself), runs the
subcommand, and turns what ends it early into one line and an exit status:

- Ctrl-C (``KeyboardInterrupt``) that the subcommand did not take charge of:
  ``interrupted``, 130;
- :class:`CommandError`: ``error: <message>``, its code (1 unless it says);
- an error the command knows (``errors``: exception type -> exit status):
  ``error: <the exception>``, that status;
- :class:`UsageError` (arguments that parse but do not fit together): the
  subcommand's usage and ``<prog> <subcommand>: error: <message>``, 2, as
  argparse says it of the arguments it checks itself.

The argparse types below check numbers the same way everywhere, in the same
words: ``must be a whole number >= 1, not '0'``.

Standard library only; library code never configures logging, :func:`run` does.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="demo")
>>> _ = parser.add_argument("--games", type=positive_int)
>>> _ = parser.add_argument("--players", type=whole_number(2, 10))
>>> parser.parse_args(["--games", "3", "--players", "4"])
Namespace(games=3, players=4)
>>> positive_int("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be a whole number >= 1, not '0'
>>> whole_number(2, 10)("11")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be a whole number from 2 to 10, not '11'
>>> seconds("-1")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be a number of seconds > 0, not '-1'
"""

from __future__ import annotations

import argparse
import importlib
import logging
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence

__all__ = [
    "run",
    "build_parser",
    "configure_logging",
    "CommandError",
    "UsageError",
    "whole_number",
    "positive_int",
    "seed",
    "seconds",
    "INTERRUPTED",
    "LOG_FORMAT",
]

#: Ctrl-C: the line on stderr and the exit status (128 + SIGINT, as a shell says it).
INTERRUPTED = ("interrupted", 130)
#: One line per record, no time: journald (or the terminal's user) has it already.
LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"

_WHOLE = re.compile(r"[0-9]+")


class CommandError(Exception):
    """A subcommand could not do its job: ``error: <message>`` and exit ``code``."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


class UsageError(CommandError):
    """Arguments that parsed but do not fit together: said as argparse says
    its own usage errors, exit 2."""

    def __init__(self, message: str):
        super().__init__(message, 2)


# -- argparse types ------------------------------------------------------------------


def whole_number(low: int = 0, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` (to ``high``), written in digits."""
    bound = f">= {low}" if high is None else f"from {low} to {high}"

    def parse(text: str) -> int:
        if not _WHOLE.fullmatch(text) or int(text) < low or (high is not None and int(text) > high):
            raise argparse.ArgumentTypeError(f"must be a whole number {bound}, not {text!r}")
        return int(text)

    parse.__name__ = "whole_number"
    return parse


#: A count of things: 1 or more.
positive_int = whole_number(1)
#: A random seed: any whole number from 0.
seed = whole_number(0)


def seconds(text: str) -> float:
    """An argparse type: a time in seconds, more than 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, not {text!r}")
    return value


# -- the scaffold --------------------------------------------------------------------


def configure_logging(verbose: int = 0, quiet: bool = False, *, quieter: Sequence[str] = ()) -> int:
    """Log WARNING and up (``verbose`` 1: INFO, 2 or more: DEBUG; ``quiet``:
    ERROR only) to stderr in :data:`LOG_FORMAT`; the loggers named in ``quieter``
    (chatty libraries) never below WARNING. Returns the level."""
    if quiet:
        level = logging.ERROR
    else:
        level = {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    logging.basicConfig(level=level, format=LOG_FORMAT)
    for name in quieter:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
    return level


def build_parser(
    prog: str,
    description: str,
    commands: Sequence[tuple[str, str, str]],
    *,
    renamed: Mapping[str, str] | None = None,
) -> argparse.ArgumentParser:
    """The parser: ``-v``/``-q``, then one subcommand per ``(name, module, help)``
    of ``commands``, in that order. ``renamed`` maps an old subcommand name
    to its new one: the old name still works (hidden from ``--help``) and says
    once on stderr that it moved."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    volume = parser.add_mutually_exclusive_group()
    volume.add_argument(
        "-v", "--verbose", action="count", default=0, help="log more (-v: info, -vv: debug)"
    )
    volume.add_argument("-q", "--quiet", action="store_true", help="log errors only")
    sub = parser.add_subparsers(dest="subcommand", metavar="COMMAND", required=True)
    modules = {}
    for name, module_name, help_text in commands:
        module = modules[name] = importlib.import_module(module_name)
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command_parser)
        command_parser.set_defaults(handler=module.command, parser=command_parser)
    for old, new in (renamed or {}).items():
        # No help=: argparse then lists no line for it in --help.
        command_parser = sub.add_parser(old, description=f"{prog} {old} is now {prog} {new}")
        modules[new].add_arguments(command_parser)
        command_parser.set_defaults(
            handler=modules[new].command, parser=command_parser, renamed_from=old, renamed_to=new
        )
    return parser


def run(
    argv: Sequence[str] | None,
    *,
    prog: str,
    description: str,
    commands: Sequence[tuple[str, str, str]],
    errors: Mapping[type[BaseException], int] | None = None,
    renamed: Mapping[str, str] | None = None,
    quieter: Sequence[str] = (),
) -> int:
    """Parse ``argv``, configure logging, run the subcommand; returns the exit
    status (see the module docstring). argparse's own usage errors exit 2 as
    usual (SystemExit)."""
    try:
        args = build_parser(prog, description, commands, renamed=renamed).parse_args(argv)
        configure_logging(args.verbose, args.quiet, quieter=quieter)
        if getattr(args, "renamed_from", None):
            print(f"{prog} {args.renamed_from} is now {prog} {args.renamed_to}", file=sys.stderr)
        status: int = args.handler(args)  # argparse's Namespace holds Any: the handler's int
        return status
    except KeyboardInterrupt:
        # Ctrl-C before a subcommand took charge of it (``run`` and ``play``
        # handle their own): one line, no traceback.
        line, status = INTERRUPTED
        print(line, file=sys.stderr)
        return status
    except UsageError as exc:
        args.parser.print_usage(sys.stderr)
        print(f"{args.parser.prog}: error: {exc}", file=sys.stderr)
        return exc.code
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code
    except tuple(errors or ()) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return _status(exc, errors or {})


def _status(exc: BaseException, errors: Mapping[type[BaseException], int]) -> int:
    """The status of the most specific type in ``errors`` that ``exc`` is."""
    for kind in type(exc).__mro__:
        if kind in errors:
            return errors[kind]
    return 1
