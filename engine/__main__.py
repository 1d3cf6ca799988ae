"""``python -m engine``: the ``showdown`` command."""

import sys

from engine.apps.cli import main

sys.exit(main())
