"""``python -m firmware_host``: the ``showdown-unit`` command."""

import sys

from firmware_host.commands.cli import main

sys.exit(main())
