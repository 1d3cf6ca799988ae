"""motor-safe.sh, the stop script: it drives the configured motor pins low after
every stop, with a recording pinctrl (helpers in tests/systemd_helpers.py)."""

import os
import subprocess
import sys

import pytest

from tests.systemd_helpers import (
    MOTOR_SAFE,
    ROOT,
    write_script,
)


@pytest.fixture
def motor_env(tmp_path):
    """A recording pinctrl and a showdown-unit that runs this checkout's CLI."""
    log = tmp_path / "pinctrl.log"
    pinctrl = write_script(tmp_path / "pinctrl", f'echo "$*" >> {log}\n')
    showdown_unit = write_script(
        tmp_path / "showdown-unit", f'cd {ROOT} && exec {sys.executable} -m firmware_host "$@"\n'
    )
    env = {**os.environ, "PINCTRL": str(pinctrl), "SHOWDOWN_UNIT": str(showdown_unit)}
    return env, log


def run_motor_safe(env, *args):
    return subprocess.run([str(MOTOR_SAFE), *args], env=env, capture_output=True, text=True)


def test_motor_safe_drives_the_configured_motor_pins_low(motor_env, tmp_path):
    env, log = motor_env
    config = tmp_path / "unit.toml"
    config.write_text("[pins]\nmotor_a = 25\nmotor_b = 16\nmotor_enable = 18\n")
    done = run_motor_safe(env, str(config))
    assert done.returncode == 0
    assert log.read_text() == "set 25 op dl\nset 16 op dl\nset 18 op dl\n"
    assert done.stderr == (
        "motor-safe: GPIO25 driven low\nmotor-safe: GPIO16 driven low\n"
        "motor-safe: GPIO18 driven low\n"
    )


def test_motor_safe_reads_the_pins_of_a_config_whose_token_it_cannot_check(motor_env, tmp_path):
    """check-config also runs the daemon's start checks now (the token file,
    the journal folder, ...); motor-safe.sh needs the pins alone, whatever
    else the config names (--file-only), never the default pins instead."""
    env, log = motor_env
    config = tmp_path / "unit.toml"
    config.write_text(
        '[server]\ntoken_file = "/nonexistent"\n[pins]\nmotor_a = 25\nmotor_b = 16\n'
        "motor_enable = 18\n"
    )
    done = run_motor_safe(env, str(config))
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "set 25 op dl\nset 16 op dl\nset 18 op dl\n"


def test_motor_safe_uses_the_packaged_pins_for_a_config_without_pins(motor_env, tmp_path):
    env, log = motor_env
    config = tmp_path / "unit.toml"
    config.write_text('unit_name = "bench"\n')
    assert run_motor_safe(env, str(config)).returncode == 0
    assert log.read_text() == "set 23 op dl\nset 24 op dl\nset 12 op dl\n"


def test_motor_safe_falls_back_to_default_pins_when_the_config_is_bad(motor_env, tmp_path):
    env, log = motor_env
    config = tmp_path / "unit.toml"
    config.write_text("[pins]\nmotor_a = 99\n")
    done = run_motor_safe(env, str(config))
    assert done.returncode == 0
    assert log.read_text() == "set 23 op dl\nset 24 op dl\nset 12 op dl\n"
    assert done.stderr.splitlines()[0] == (
        f"motor-safe: cannot read {config} (error: {config}: pins.motor_a: "
        "must be a BCM pin number 0-27, not 99); using the default pins"
    )


def test_motor_safe_falls_back_when_showdown_unit_is_gone(motor_env, tmp_path):
    env, log = motor_env
    env = {**env, "SHOWDOWN_UNIT": str(tmp_path / "no-such-venv" / "showdown-unit")}
    done = run_motor_safe(env, str(tmp_path / "unit.toml"))
    assert done.returncode == 0
    assert log.read_text() == "set 23 op dl\nset 24 op dl\nset 12 op dl\n"


def test_motor_safe_fails_loudly_without_pinctrl(motor_env, tmp_path):
    env, _log = motor_env
    env = {**env, "PINCTRL": str(tmp_path / "no-pinctrl")}
    done = run_motor_safe(env, str(tmp_path / "missing.toml"))
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "motor-safe: pinctrl not found (install raspi-utils); motor pins 23 24 12 NOT forced low"
    )


def test_motor_safe_tries_every_pin_and_fails_if_one_failed(motor_env, tmp_path):
    env, log = motor_env
    pinctrl = write_script(tmp_path / "flaky-pinctrl", f'echo "$*" >> {log}\n[[ $2 != 24 ]]\n')
    done = run_motor_safe({**env, "PINCTRL": str(pinctrl)}, str(tmp_path / "missing.toml"))
    assert done.returncode == 1
    assert log.read_text() == "set 23 op dl\nset 24 op dl\nset 12 op dl\n"
    assert "motor-safe: pinctrl failed for GPIO24\n" in done.stderr
