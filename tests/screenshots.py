"""Where the browser tests save their screenshots.

The pictures in docs/screenshots come from the browser tests, but a run that
rewrote them all (a few pixels differ from one run to the next) would leave a
checkout with dozens of changed files after every ``make test``. So the tests
save them under .pytest_cache/screenshots (ignored by git; the last run's are
there to look at), and into docs/screenshots only when asked:
``make screenshots``, or ``UPDATE_SCREENSHOTS=1`` before any pytest command.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["SHOTS"]

ROOT = Path(__file__).resolve().parents[1]
#: The folder every browser test saves its screenshots in.
SHOTS = (
    ROOT / "docs" / "screenshots"
    if os.environ.get("UPDATE_SCREENSHOTS")
    else ROOT / ".pytest_cache" / "screenshots"
)
SHOTS.mkdir(parents=True, exist_ok=True)
