"""``timing.bot_start_s``: how long a showdown of two bots waits before it starts itself."""

import pytest

from firmware_host.service.config import ConfigError, load_config


def test_the_packaged_default_waits_one_second():
    assert load_config().timing.bot_start_s == 1.0


def test_a_bot_start_s_from_the_file(tmp_path):
    path = tmp_path / "unit.toml"
    path.write_text("[timing]\nbot_start_s = 0\n")
    assert load_config(path).timing.bot_start_s == 0.0


@pytest.mark.parametrize(
    "value, message",
    [
        ("-0.5", "timing.bot_start_s: must be >= 0.0, not -0.5"),
        ("61", "timing.bot_start_s: must be <= 60.0, not 61.0"),
        ('"soon"', "timing.bot_start_s: must be a number, not 'soon'"),
    ],
)
def test_a_bad_bot_start_s_names_the_file_and_key(tmp_path, value, message):
    path = tmp_path / "unit.toml"
    path.write_text(f"[timing]\nbot_start_s = {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}: {message}"
