"""The ``showdown-unit`` command: ``cli.main`` dispatches to one module per subcommand,
each with ``add_arguments(parser)`` and ``command(args) -> int``.
"""

from firmware_host.commands.cli import COMMANDS, main

__all__ = ["main", "COMMANDS"]
