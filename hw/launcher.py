"""The card launcher: a DC motor behind an H-bridge (L298N, DRV8833, TB6612...).

``motor_a`` high spins the wheel to throw cards toward side A, ``motor_b``
toward side B; the enable pin carries the speed as PWM duty. The two
direction pins are never high together: a direction change takes the
enable and the old direction low before raising the new one.

>>> from hw.mock import VirtualMockFactory
>>> launcher = Launcher(23, 24, 12, pin_factory=VirtualMockFactory(lambda: 0.0))
>>> launcher.launch_toward("b", 0.8)
>>> launcher.direction, launcher.speed, launcher.value
('b', 0.8, LauncherValue(toward_a=0, toward_b=1, enable=0.8))
>>> launcher.stop(); launcher.direction, launcher.speed
(None, 0.0)
"""

from __future__ import annotations

import threading

from gpiozero import CompositeDevice, DigitalOutputDevice, PWMOutputDevice

__all__ = ["Launcher", "SIDES", "check_side"]

SIDES = ("a", "b")

#: PWM frequency on the enable pin. Within what lgpio's and RPi.GPIO's software
#: PWM do well, and above 100 Hz so a small motor runs smoothly.
PWM_FREQUENCY_HZ = 1000


def check_side(side) -> str:
    """``side`` if it is "a" or "b", else a ValueError that names it."""
    if side not in SIDES:
        raise ValueError(f"side must be 'a' or 'b', not {side!r}")
    return side


class Launcher(CompositeDevice):
    """The launcher motor on an H-bridge; starts, and closes, stopped."""

    def __init__(
        self,
        motor_a=None,
        motor_b=None,
        motor_enable=None,
        *,
        pwm_frequency: float = PWM_FREQUENCY_HZ,
        pin_factory=None,
    ):
        # launch_toward() and stop() are each one step as seen from other
        # threads: a stop from another thread (a close while the loop still
        # runs) cannot land mid-launch and be undone by the launch's last line.
        # A signal handler must not call stop(): the lock is re-entrant, so a
        # handler running inside launch_toward() on the same thread would get in.
        self._motor_lock = threading.RLock()
        devices = {}
        try:
            devices["toward_a"] = DigitalOutputDevice(
                motor_a, initial_value=False, pin_factory=pin_factory
            )
            devices["toward_b"] = DigitalOutputDevice(
                motor_b, initial_value=False, pin_factory=pin_factory
            )
            devices["enable"] = PWMOutputDevice(
                motor_enable, initial_value=0, frequency=pwm_frequency, pin_factory=pin_factory
            )
        except BaseException:
            for device in devices.values():
                device.close()
            raise
        super().__init__(
            _order=("toward_a", "toward_b", "enable"), pin_factory=pin_factory, **devices
        )

    def launch_toward(self, side: str, speed: float) -> None:
        """Run the motor so cards fly toward ``side`` at ``speed`` (0 < speed <= 1)."""
        check_side(side)
        if not 0 < speed <= 1:
            raise ValueError(f"speed must be > 0 and <= 1, not {speed!r}")
        on, off = (self.toward_a, self.toward_b) if side == "a" else (self.toward_b, self.toward_a)
        with self._motor_lock:
            if not on.is_active:
                self.enable.off()
                off.off()
                on.on()
            self.enable.value = speed

    def stop(self) -> None:
        """Cut the drive (enable low) first, then both direction pins low."""
        with self._motor_lock:
            self.enable.off()
            self.toward_a.off()
            self.toward_b.off()

    @property
    def direction(self) -> str | None:
        """ "a" or "b" while the motor is driven, else None."""
        if not self.enable.value:
            return None
        if self.toward_a.is_active:
            return "a"
        if self.toward_b.is_active:
            return "b"
        return None

    @property
    def speed(self) -> float:
        """The PWM duty on the enable pin (0.0 when stopped)."""
        return self.enable.value

    @property
    def is_running(self) -> bool:
        return self.direction is not None

    def close(self) -> None:
        """Stop the motor, then release the pins; safe to call twice, and on a
        half-built launcher (gpiozero calls close() from __del__)."""
        if getattr(self, "_all", None):  # built and not closed yet
            try:
                self.stop()
            finally:
                super().close()
