"""Which BCM pin each part of the Showdown unit is wired to."""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["PinMap", "PinConflictError", "OPTIONAL_DEVICES"]

#: Devices a unit may be built without; the board skips them when their pin is None.
OPTIONAL_DEVICES = frozenset({"card_sensor", "buzzer"})


class PinConflictError(ValueError):
    """Two devices were given the same pin."""

    def __init__(self, pin: int, first: str, second: str):
        super().__init__(f"pin {pin} is used by both {first} and {second}")
        self.pin, self.devices = pin, (first, second)


@dataclass(frozen=True)
class PinMap:
    """BCM pin numbers, defaults as in the design brief.

    >>> PinMap().paddle_a, PinMap().countdown_leds
    (17, (5, 6, 13))
    >>> PinMap(go_led=17)
    Traceback (most recent call last):
    ...
    hw.pinmap.PinConflictError: pin 17 is used by both paddle_a and go_led
    """

    paddle_a: int = 17
    paddle_b: int = 27
    timer_button: int = 22
    countdown_leds: tuple[int, ...] = (5, 6, 13)
    go_led: int = 19
    arrow_a: int = 20
    arrow_b: int = 21
    buzzer: int | None = 26
    motor_a: int = 23
    motor_b: int = 24
    motor_enable: int = 12
    card_sensor: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "countdown_leds", tuple(self.countdown_leds))
        owner: dict[int, str] = {}
        for name, pin in self.assignments():
            if pin in owner:
                raise PinConflictError(pin, owner[pin], name)
            owner[pin] = name

    def assignments(self) -> list[tuple[str, int]]:
        """Every (device name, pin) pair, countdown LEDs numbered, absent devices left out."""
        pairs = []
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None:
                continue
            if isinstance(value, tuple):
                pairs += [(f"{field.name}[{i}]", pin) for i, pin in enumerate(value)]
            else:
                pairs.append((field.name, value))
        return pairs
