"""docs/wiring.md's pin table agrees with the PinMap defaults and the Pi header."""

import re
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from firmware_host.service.config import load_config
from hw.pinmap import PinMap

WIRING = Path(__file__).resolve().parents[1] / "docs" / "wiring.md"
ROW = re.compile(r"^\| [^|]+\| `(?P<key>[a-z_\[\]0-9]+)` +\| (?P<bcm>\d+) +\| (?P<header>\d+) +\|")


def table_rows():
    return [
        ROW.match(line).groupdict() for line in WIRING.read_text().splitlines() if ROW.match(line)
    ]


def test_wiring_table_lists_every_default_pin_and_its_header_pin():
    rows = table_rows()
    documented = [(row["key"], int(row["bcm"])) for row in rows]
    assert documented == PinMap(card_sensor=16).assignments()
    header = MockFactory().board_info.headers["J8"]
    for row in rows:
        assert header.pins[int(row["header"])].name == f"GPIO{row['bcm']}", row


def test_packaged_default_matches_the_table_with_the_card_sensor_left_out():
    assert load_config(None).pins == PinMap(card_sensor=None)
