import pytest

from firmware_host.commands.check_config import render
from firmware_host.commands.cli import main
from firmware_host.service.config import ConfigError, load_config


@pytest.fixture
def write(tmp_path):
    def write(text):
        path = tmp_path / "unit.toml"
        path.write_text(text)
        return path

    return write


def test_packaged_default_has_the_design_pins():
    pins = load_config().pins
    assert (pins.paddle_a, pins.paddle_b, pins.timer_button) == (17, 27, 22)
    assert pins.countdown_leds == (5, 6, 13)
    assert (pins.go_led, pins.arrow_a, pins.arrow_b, pins.buzzer) == (19, 20, 21, 26)
    assert (pins.motor_a, pins.motor_b, pins.motor_enable) == (23, 24, 12)
    assert pins.card_sensor is None


def test_user_file_overrides_single_keys(write):
    config = load_config(write("[pins]\ncard_sensor = 16\n[timing]\nsettle_s = 0.01\n"))
    assert config.pins.card_sensor == 16
    assert config.pins.paddle_a == 17
    assert config.timing.settle_s == 0.01
    assert config.timing.tie_policy == "rerun"


@pytest.mark.parametrize(
    "text, message",
    [
        ("[pins]\npaddle_a = 19\n", "pins.paddle_a: pin 19 is used by both paddle_a and go_led"),
        (
            "[pins]\ncountdown_leds = [5, 5]\n",
            "pins.countdown_leds: pin 5 is used by both countdown_leds[0] and countdown_leds[1]",
        ),
        (
            '[pins]\npaddle_b = ""\n',
            "pins.paddle_b: is required (only buzzer, card_sensor may be left empty)",
        ),
        ("[pins]\ngo_led = 40\n", "pins.go_led: must be a BCM pin number 0-27, not 40"),
        ("[timing]\nsettle_s = -1\n", "timing.settle_s: must be >= 0.0, not -1.0"),
        (
            '[timing]\ntie_policy = "coin"\n',
            "timing.tie_policy: must be one of 'rerun', 'void', not 'coin'",
        ),
        ("[timing]\nhold_min_s = 3.0\n", "timing.hold_max_s: must be >= timing.hold_min_s (3.0)"),
        ("[launcher]\nspeed = 0\n", "launcher.speed: must be > 0.0, not 0.0"),
        ("[server]\nallow_remote = 1\n", "server.allow_remote: must be true or false, not 1"),
        (
            "[showdown]\ncards = 2\n",
            "showdown.cards: unknown key (known: default_cards, max_cards)",
        ),
        (
            'backend = "pigpio"\n',
            "backend: must be one of 'auto', 'mock', 'lgpio', 'rpigpio', not 'pigpio'",
        ),
        ("timing = 3\n", "timing: must be a table [timing]"),
    ],
)
def test_bad_values_name_the_file_and_key(write, text, message):
    path = write(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    # hold_max_s is blamed on the packaged default, which the user's hold_min_s contradicts
    assert str(info.value).endswith(message)
    assert str(info.value).startswith(("<packaged default.toml>", str(path)))


def test_invalid_toml_names_the_file(write):
    path = write("[pins\n")
    with pytest.raises(ConfigError, match=f"^{path}: not valid TOML"):
        load_config(path)


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.toml")


def test_rendered_config_loads_back_to_the_same_value(write):
    config = load_config(write("[pins]\ncard_sensor = 16\n"))
    assert load_config(write(render(config))) == config


def test_check_config_prints_one_error_line_and_exits_1(write, capsys):
    path = write("[pins]\ngo_led = 17\n")
    assert main(["check-config", "--config", str(path)]) == 1
    err = capsys.readouterr().err
    assert err == f"error: {path}: pins.go_led: pin 17 is used by both paddle_a and go_led\n"


def test_check_config_prints_effective_config(write, capsys):
    assert main(["check-config", "--config", str(write('unit_name = "table 3"\n'))]) == 0
    out = capsys.readouterr().out
    assert 'unit_name = "table 3"' in out
    assert "paddle_a = 17" in out


@pytest.mark.parametrize("subcommand", [["check-config"], ["history"], ["selftest", "--mock"]])
def test_every_subcommand_reports_a_bad_config_in_the_same_one_line(write, capsys, subcommand):
    path = write("[timing]\nsettle_s = -1\n")
    assert main([*subcommand, "--config", str(path)]) == 1
    assert capsys.readouterr().err == f"error: {path}: timing.settle_s: must be >= 0.0, not -1.0\n"


def test_a_config_file_that_is_not_utf8_is_one_error_line(tmp_path, capsys):
    """Regression: a config file in another encoding raised UnicodeDecodeError
    with a traceback (from check-config, run, and a SIGHUP reload)."""
    path = tmp_path / "unit.toml"
    path.write_bytes(b'unit_name = "caf\xe9"\n')
    with pytest.raises(ConfigError, match=f"^{path}: not UTF-8 text \\(byte 16: 0xe9\\)$"):
        load_config(path)
    assert main(["check-config", "--config", str(path)]) == 1
    assert capsys.readouterr().err == f"error: {path}: not UTF-8 text (byte 16: 0xe9)\n"


def test_a_misspelt_section_names_the_file_and_the_known_sections(write):
    """Issue 22: `[timimg]` said "timimg: unknown key (known: backend, unit_name)"."""
    path = write("[timimg]\nhold_min_s = 2.0\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (
        f"{path}: [timimg]: unknown section (known: [journal], [launcher], [pins], "
        "[server], [showdown], [timing])"
    )
