"""run_selftest on mock pins, and the ``showdown-unit selftest`` command."""

import json

import pytest
from gpiozero import BadPinFactory, Device

import firmware_host.commands.selftest_cmd as selftest_cmd
import hw.selftest
from firmware_host.commands.cli import main
from hw.board import Board
from hw.mock import InjectableMockPin
from hw.pinmap import PinMap
from hw.pins import make_pin_factory
from hw.selftest import LIGHT_S, MOTOR_S, DeviceCheck, run_selftest

NAMES = [
    "paddle_a",
    "paddle_b",
    "timer_button",
    "countdown_leds[0]",
    "countdown_leds[1]",
    "countdown_leds[2]",
    "go_led",
    "arrow_a",
    "arrow_b",
    "buzzer",
    "launcher",
    "card_sensor",
]
OUTPUTS = (5, 6, 13, 19, 20, 21, 26, 23, 24, 12)
LAUNCHER_OK = (
    "toward a: GPIO23=1 GPIO24=0 GPIO12 duty 0.30, "
    "toward b: GPIO23=0 GPIO24=1 GPIO12 duty 0.30, stopped (mock pin)"
)


def no_sleep(seconds):
    pass


def test_every_device_passes_on_a_healthy_board(board):
    checks = run_selftest(board, sleep=no_sleep)
    assert [c.name for c in checks] == NAMES
    assert all(c.ok for c in checks)
    by_name = {c.name: c for c in checks}
    assert by_name["paddle_a"] == DeviceCheck("paddle_a", True, "GPIO17 idle (high, not pressed)")
    assert by_name["go_led"].detail == "GPIO19 read back high while on, low after (mock pin)"
    assert by_name["buzzer"].detail == "GPIO26 read back high while on, low after (mock pin)"
    assert by_name["launcher"].detail == LAUNCHER_OK
    assert by_name["card_sensor"].detail == "GPIO16 beam whole (high)"
    assert by_name["go_led"].to_dict() == {
        "name": "go_led",
        "ok": True,
        "detail": "GPIO19 read back high while on, low after (mock pin)",
    }


def test_each_output_is_on_alone_while_the_selftest_waits(board, mock_pin):
    seen = []

    def watching_sleep(seconds):
        seen.append((seconds, tuple(mock_pin(n).state for n in OUTPUTS)))

    run_selftest(board, sleep=watching_sleep)
    L = LIGHT_S
    assert seen == [
        (L, (1, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
        (L, (0, 1, 0, 0, 0, 0, 0, 0, 0, 0)),
        (L, (0, 0, 1, 0, 0, 0, 0, 0, 0, 0)),
        (L, (0, 0, 0, 1, 0, 0, 0, 0, 0, 0)),
        (L, (0, 0, 0, 0, 1, 0, 0, 0, 0, 0)),
        (L, (0, 0, 0, 0, 0, 1, 0, 0, 0, 0)),
        (L, (0, 0, 0, 0, 0, 0, 1, 0, 0, 0)),
        (MOTOR_S, (0, 0, 0, 0, 0, 0, 0, 1, 0, 0.3)),
        (MOTOR_S, (0, 0, 0, 0, 0, 0, 0, 0, 1, 0.3)),
    ]


def test_outputs_end_safe_even_if_they_were_on(board, mock_pin):
    board.show_countdown(3)
    board.set_go(True)
    board.launcher.launch_toward("a", 0.9)
    run_selftest(board, sleep=no_sleep)
    assert [mock_pin(n).state for n in OUTPUTS] == [0] * len(OUTPUTS)


def test_a_held_paddle_and_a_broken_beam_fail(board, mock_pin):
    mock_pin(27).drive_low(ticks=1.0)
    mock_pin(16).drive_low(ticks=1.0)
    checks = {c.name: c for c in run_selftest(board, sleep=no_sleep)}
    assert checks["paddle_b"] == DeviceCheck(
        "paddle_b", False, "GPIO27 reads pressed (low): release it, or look for a short to ground"
    )
    assert checks["card_sensor"] == DeviceCheck(
        "card_sensor",
        False,
        "GPIO16 beam broken (low): clear the card path, check the emitter's power and alignment",
    )
    assert checks["paddle_a"].ok and checks["go_led"].ok


def test_an_output_that_does_not_read_back_fails(board, monkeypatch):
    monkeypatch.setattr(board.arrow_b.pin, "_get_state", lambda: False)
    checks = {c.name: c for c in run_selftest(board, sleep=no_sleep)}
    assert checks["arrow_b"] == DeviceCheck(
        "arrow_b", False, "GPIO21 read back low while on, low after (mock pin)"
    )
    assert checks["arrow_a"].ok


def test_an_error_in_one_device_fails_that_device_only_and_stops_the_motor(board, mock_pin):
    def sleep(seconds):
        if board.launcher.is_running:
            raise RuntimeError("driver fault")

    checks = {c.name: c for c in run_selftest(board, sleep=sleep)}
    assert checks["launcher"] == DeviceCheck("launcher", False, "error: driver fault")
    assert checks["card_sensor"].ok
    assert [mock_pin(n).state for n in (23, 24, 12)] == [0, 0, 0]


def test_motor_is_stopped_when_the_selftest_is_interrupted(board, mock_pin):
    def sleep(seconds):
        if board.launcher.is_running:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_selftest(board, sleep=sleep)
    assert [mock_pin(n).state for n in (23, 24, 12)] == [0, 0, 0]


def test_absent_optional_devices_are_listed_as_not_fitted(mock_factory):
    with Board(PinMap(buzzer=None), pin_factory=mock_factory) as board:
        checks = run_selftest(board, sleep=no_sleep)
    assert checks[-2:] == [
        DeviceCheck("buzzer", True, "not fitted (pins.buzzer is empty)"),
        DeviceCheck("card_sensor", True, "not fitted (pins.card_sensor is empty)"),
    ]
    assert len(checks) == len(NAMES)


def test_on_real_pins_the_detail_says_a_read_back_is_all_there_is(board, monkeypatch):
    class NoMockPinHere:
        pass

    monkeypatch.setattr(hw.selftest, "MockPin", NoMockPinHere)
    checks = {c.name: c for c in run_selftest(board, sleep=no_sleep)}
    assert checks["go_led"].detail == (
        "GPIO19 read back high while on, low after; "
        "a read-back cannot see a dead part: watch and listen"
    )
    assert checks["launcher"].detail.endswith(
        "stopped; a read-back cannot see a dead part: watch and listen"
    )


# -- showdown-unit selftest ----------------------------------------------------


@pytest.fixture
def slept(monkeypatch):
    calls = []
    monkeypatch.setattr(selftest_cmd, "SLEEP", calls.append)
    return calls


@pytest.fixture
def config_file(tmp_path):
    def write(text=""):
        path = tmp_path / "unit.toml"
        path.write_text(text)
        return str(path)

    return write


def test_cli_selftest_mock_prints_one_line_per_device(capsys, slept, config_file):
    assert main(["selftest", "--mock", "--config", config_file()]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 12
    assert lines[0] == "ok   paddle_a           GPIO17 idle (high, not pressed)"
    assert (
        lines[6] == "ok   go_led             GPIO19 read back high while on, low after (mock pin)"
    )
    assert lines[10] == "ok   launcher           " + LAUNCHER_OK
    assert lines[11] == "ok   card_sensor        not fitted (pins.card_sensor is empty)"
    assert slept == [LIGHT_S] * 7 + [MOTOR_S] * 2


def test_cli_selftest_json(capsys, slept, config_file):
    path = config_file('[pins]\ncard_sensor = 16\nbuzzer = ""\n')
    assert main(["selftest", "--mock", "--config", path, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert list(report) == ["ok", "devices"]
    assert report["ok"] is True
    # Fitted devices in PinMap order, then the absent ones.
    assert [d["name"] for d in report["devices"]] == [
        "paddle_a",
        "paddle_b",
        "timer_button",
        "countdown_leds[0]",
        "countdown_leds[1]",
        "countdown_leds[2]",
        "go_led",
        "arrow_a",
        "arrow_b",
        "launcher",
        "card_sensor",
        "buzzer",
    ]
    assert report["devices"][-2] == {
        "name": "card_sensor",
        "ok": True,
        "detail": "GPIO16 beam whole (high)",
    }
    assert report["devices"][-1] == {
        "name": "buzzer",
        "ok": True,
        "detail": "not fitted (pins.buzzer is empty)",
    }
    assert all(set(d) == {"name", "ok", "detail"} for d in report["devices"])


class ShortedPin(InjectableMockPin):
    """A paddle input shorted to ground: it stays low whatever the pull."""

    def _set_pull(self, value):
        super()._set_pull(value)
        self._change_state(False)


def test_cli_selftest_fails_when_a_device_fails(capsys, slept, config_file, monkeypatch):
    factory = make_pin_factory("mock")
    factory.pin(17, pin_class=ShortedPin)
    monkeypatch.setattr(selftest_cmd, "make_pin_factory", lambda backend: factory)
    assert main(["selftest", "--config", config_file(), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert report["devices"][0] == {
        "name": "paddle_a",
        "ok": False,
        "detail": "GPIO17 reads pressed (low): release it, or look for a short to ground",
    }
    assert [d["ok"] for d in report["devices"][1:]] == [True] * 11


def test_cli_selftest_bad_config_is_one_error_line(capsys, slept, config_file):
    path = config_file("[pins]\ngo_led = 17\n")
    assert main(["selftest", "--mock", "--config", path]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert (
        captured.err == f"error: {path}: pins.go_led: pin 17 is used by both paddle_a and go_led\n"
    )
    assert slept == []


def test_cli_selftest_without_a_pin_backend_suggests_mock(capsys, slept, config_file, monkeypatch):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)

    def nothing_works():
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(nothing_works))
    assert main(["selftest", "--config", config_file()]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: no GPIO pin backend works here")
    assert captured.err.endswith('use --mock (or backend = "mock" in the config)\n')


def test_cli_selftest_honours_gpiozero_pin_factory_mock(capsys, slept, config_file, monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    assert main(["selftest", "--config", config_file()]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 12
