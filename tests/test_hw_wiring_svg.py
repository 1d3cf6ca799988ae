"""docs/wiring.svg is what hw/wiring_svg.py draws from the current pin map, so it cannot drift."""

from pathlib import Path

from gpiozero.pins.mock import MockFactory

from hw.pinmap import PinMap
from hw.wiring_svg import GROUND_PINS, HEADER_PIN, wiring_svg

SVG = Path(__file__).resolve().parents[1] / "docs" / "wiring.svg"


def test_committed_svg_is_what_the_script_makes_from_the_pin_map():
    assert SVG.read_text() == wiring_svg(), "run: python -m hw.wiring_svg > docs/wiring.svg"


def test_every_pin_of_the_map_is_in_the_drawing_with_its_header_pin():
    drawing = wiring_svg()
    for key, bcm in PinMap(card_sensor=16).assignments():
        assert f"GPIO{bcm} · {key} · " in drawing, key
        assert f">{HEADER_PIN[bcm]}</text>" in drawing, key


def test_header_numbers_and_grounds_agree_with_gpiozero_s_board_info():
    header = MockFactory().board_info.headers["J8"]
    for bcm, physical in HEADER_PIN.items():
        assert header.pins[physical].name == f"GPIO{bcm}"
    assert [n for n, pin in sorted(header.pins.items()) if pin.name == "GND"] == list(GROUND_PINS)


def test_a_moved_pin_moves_in_the_drawing():
    drawing = wiring_svg(PinMap(paddle_a=4, card_sensor=None))
    assert "GPIO4 · paddle_a · " in drawing
    assert "card_sensor" not in drawing
