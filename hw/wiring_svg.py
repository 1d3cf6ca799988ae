"""Draw the Pi's 40-pin header and what each pin of the pin map goes to, as an SVG.

    python -m hw.wiring_svg > docs/wiring.svg

The drawing is made from `PinMap` alone (the card sensor on its suggested pin 16), so
tests/test_hw_wiring_svg.py can check the committed file is what this makes today.
"""

from __future__ import annotations

import sys
from xml.sax.saxutils import escape

from hw.pinmap import PinMap

__all__ = ["HEADER_PIN", "GROUND_PINS", "PART", "wiring_svg", "main"]

#: BCM number -> physical pin on the 40-pin header (J8) of every Pi since the B+.
HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27,
    5: 29, 6: 31, 13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18,
    25: 22, 8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40,
}  # fmt: skip
GROUND_PINS = (6, 9, 14, 20, 25, 30, 34, 39)
POWER_PINS = {1: "3.3 V", 17: "3.3 V", 2: "5 V", 4: "5 V"}

#: What each pin map key is wired to, in a few words (docs/parts.md has the parts).
PART = {
    "paddle_a": "Paddle A: switch to GND",
    "paddle_b": "Paddle B: switch to GND",
    "timer_button": "Timer button: switch to GND",
    "countdown_leds": "Countdown LED {n} (red) + 330R to GND",
    "go_led": "GO LED (green) + 330R to GND",
    "arrow_a": "Arrow toward A (red) + 330R to GND",
    "arrow_b": "Arrow toward B (red) + 330R to GND",
    "buzzer": "Buzzer: 1k to NPN base (optional)",
    "motor_a": "H-bridge IN1 (10k pull-down)",
    "motor_b": "H-bridge IN2 (10k pull-down)",
    "motor_enable": "H-bridge ENA, PWM (10k pull-down)",
    "card_sensor": "Break-beam receiver out (optional)",
}

ROW_H, PIN_R, TOP = 24, 7, 70
WIDTH, MID = 1200, 600
COLOURS = {"input": "#1565c0", "output": "#c62828", "motor": "#6a1b9a", "gnd": "#222"}
INPUTS = {"paddle_a", "paddle_b", "timer_button", "card_sensor"}


def _label(key: str) -> tuple[str, str]:
    """(words, colour) for a key of PinMap.assignments(), e.g. 'countdown_leds[1]'."""
    base, _, index = key.partition("[")
    words = PART[base].format(n=int(index.rstrip("]") or 0) + 1)
    kind = "input" if base in INPUTS else "motor" if base.startswith("motor") else "output"
    return words, COLOURS[kind]


def wiring_svg(pins: PinMap | None = None) -> str:
    """The drawing for `pins` (default: the default map with the card sensor on 16)."""
    pins = pins or PinMap(card_sensor=16)
    used = {HEADER_PIN[bcm]: (key, bcm) for key, bcm in pins.assignments()}
    height = TOP + 20 * ROW_H + 90
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="13">',
        f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>',
        f'<text x="{MID}" y="26" text-anchor="middle" font-size="18" font-weight="bold">'
        "Raspberry Pi 40-pin header: the Showdown unit's default pin map</text>",
        f'<text x="{MID}" y="48" text-anchor="middle" fill="#555">'
        "pin 1 at the top left, SD-card end; GPIO = BCM number; made by "
        "python -m hw.wiring_svg from hw/pinmap.py</text>",
        f'<rect x="{MID - 58}" y="{TOP - 14}" width="116" height="{20 * ROW_H + 4}" '
        'rx="6" fill="#2e7d32"/>',
    ]
    for physical in range(1, 41):
        row, right = (physical - 1) // 2, physical % 2 == 0
        cy = TOP + row * ROW_H
        cx = MID + (18 if right else -18)
        side = 1 if right else -1
        fill, words, colour = "#ddd", "", "#888"
        if physical in used:
            key, bcm = used[physical]
            words, colour = _label(key)
            words = f"GPIO{bcm} · {key} · {words}"
            fill = colour
        elif physical in GROUND_PINS:
            fill, words, colour = "#222", "GND", "#222"
        elif physical in POWER_PINS:
            fill, words, colour = "#f9a825", POWER_PINS[physical], "#8d6e00"
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{PIN_R}" fill="{fill}" stroke="#fff"/>')
        num_x = cx + side * 2 * PIN_R + side * 4
        out.append(
            f'<text x="{num_x}" y="{cy + 4}" text-anchor="{"start" if right else "end"}" '
            f'font-size="11" fill="#fff">{physical}</text>'
        )
        if words:
            end_x = MID + side * 120
            out.append(
                f'<line x1="{MID + side * 62}" y1="{cy}" x2="{end_x}" y2="{cy}" '
                f'stroke="{colour}" stroke-width="2"/>'
            )
            out.append(
                f'<text x="{end_x + side * 6}" y="{cy + 4}" '
                f'text-anchor="{"start" if right else "end"}" fill="{colour}">'
                f"{escape(words)}</text>"
            )
    legend_y = TOP + 20 * ROW_H + 20
    legend = [
        ("input", "input: internal pull-up, pressed = low"),
        ("output", "output: LED or buzzer"),
        ("motor", "motor driver input"),
        ("gnd", "ground"),
    ]
    for i, (kind, words) in enumerate(legend):
        x = 150 + i * 260
        out.append(f'<circle cx="{x}" cy="{legend_y}" r="{PIN_R}" fill="{COLOURS[kind]}"/>')
        out.append(f'<text x="{x + 14}" y="{legend_y + 4}">{escape(words)}</text>')
    out.append(
        f'<text x="{MID}" y="{legend_y + 34}" text-anchor="middle" fill="#555">'
        "Motor on its own supply, grounds joined; card sensor not fitted by default "
        "(16 is its suggested pin). Details: docs/wiring.md, parts: docs/parts.md</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    sys.stdout.write(wiring_svg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
