"""The Board: every device built from a PinMap, exact pin levels, safe close."""

import pytest
from gpiozero import LED, GPIOPinInUse

import hw.board
from hw.board import Board
from hw.mock import InjectableMockPin
from hw.pinmap import PinMap

OUTPUTS = (5, 6, 13, 19, 20, 21, 26, 23, 24, 12)


@pytest.fixture
def changes(monkeypatch):
    """Every output/input level change on any mock pin, in order: (bcm, value)."""
    log = []
    original = InjectableMockPin._change_state

    def recording(self, value, ticks=None):
        changed = original(self, value, ticks)
        if changed:
            log.append((int(self.info.name[4:]), value))
        return changed

    monkeypatch.setattr(InjectableMockPin, "_change_state", recording)
    return log


def levels(mock_pin, *bcm):
    return [mock_pin(n).state for n in bcm]


def test_outputs_start_off_and_motor_stopped(board, mock_pin):
    assert levels(mock_pin, *OUTPUTS) == [0] * len(OUTPUTS)
    for bcm in OUTPUTS:
        pin = mock_pin(bcm)
        assert pin.function == "output"
        # Never pulsed on while being built: one entry, the initial low.
        assert len(pin.states) == 1 and pin.states[0].state == 0
    assert mock_pin(12).frequency == 1000
    assert board.launcher.direction is None


def test_inputs_use_pull_ups(board, mock_pin):
    for bcm in (17, 27, 22, 16):
        assert mock_pin(bcm).function == "input"
        assert mock_pin(bcm).pull == "up"
        assert mock_pin(bcm).bounce is None


@pytest.mark.parametrize(
    "lit, expected", [(0, [0, 0, 0]), (1, [1, 0, 0]), (2, [1, 1, 0]), (3, [1, 1, 1])]
)
def test_show_countdown_lights_the_first_leds(board, mock_pin, lit, expected):
    board.show_countdown(3)
    board.show_countdown(lit)
    assert levels(mock_pin, 5, 6, 13) == expected
    assert board.countdown_length == 3


@pytest.mark.parametrize("lit", [-1, 4, 1.5, True, "2"])
def test_show_countdown_refuses_a_bad_count(board, mock_pin, lit):
    board.show_countdown(2)
    with pytest.raises(ValueError, match=r"^lit must be a whole number 0-3, not "):
        board.show_countdown(lit)
    assert levels(mock_pin, 5, 6, 13) == [1, 1, 0]


def test_countdown_bar_of_another_length(mock_factory, mock_pin):
    with Board(PinMap(countdown_leds=(5, 6, 13, 7, 8)), pin_factory=mock_factory) as board:
        board.show_countdown(4)
        assert board.countdown_length == 5
        assert levels(mock_pin, 5, 6, 13, 7, 8) == [1, 1, 1, 1, 0]


def test_go_arrows_and_buzzer(board, mock_pin):
    board.set_go(True)
    board.set_buzzer(True)
    assert levels(mock_pin, 19, 26) == [1, 1]
    board.set_arrow("a")
    assert levels(mock_pin, 20, 21) == [1, 0]
    board.set_arrow("b")
    assert levels(mock_pin, 20, 21) == [0, 1]
    board.set_arrow(None)
    board.set_go(False)
    board.set_buzzer(False)
    assert levels(mock_pin, 19, 20, 21, 26) == [0, 0, 0, 0]


def test_arrows_are_never_both_lit(board, changes):
    board.set_arrow("a")
    board.set_arrow("b")
    board.set_arrow("a")
    lit = {20: 0, 21: 0}
    for bcm, value in changes:
        lit[bcm] = value
        assert not (lit[20] and lit[21])


@pytest.mark.parametrize("side", ["c", "A", None, 0])
def test_bad_side_is_refused(board, side):
    with pytest.raises(ValueError, match=r"^side must be 'a' or 'b', not "):
        board.launcher.launch_toward(side, 0.5)
    if side is not None:
        with pytest.raises(ValueError, match=r"^side must be 'a' or 'b', not "):
            board.set_arrow(side)
        with pytest.raises(ValueError, match=r"^side must be 'a' or 'b', not "):
            board.paddle_is_pressed(side)


def test_board_without_buzzer(mock_factory, mock_pin):
    with Board(PinMap(buzzer=None), pin_factory=mock_factory) as board:
        assert board.buzzer is None
        board.set_buzzer(True)  # a no-op, not an error
        assert 26 not in [int(info.name[4:]) for info in mock_factory.pins]
        assert board.has_card_sensor is False
        assert [name for name, _ in board.devices()] == [
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
        ]


def test_launcher_drives_direction_pins_and_pwm_duty(board, mock_pin):
    launcher = board.launcher
    launcher.launch_toward("a", 0.8)
    assert levels(mock_pin, 23, 24, 12) == [1, 0, 0.8]
    assert (launcher.direction, launcher.speed, launcher.is_running) == ("a", 0.8, True)
    launcher.launch_toward("a", 0.5)
    assert levels(mock_pin, 23, 24, 12) == [1, 0, 0.5]
    launcher.launch_toward("b", 1.0)
    assert levels(mock_pin, 23, 24, 12) == [0, 1, 1.0]
    assert launcher.direction == "b"
    launcher.stop()
    assert levels(mock_pin, 23, 24, 12) == [0, 0, 0]
    assert (launcher.direction, launcher.speed, launcher.is_running) == (None, 0.0, False)


@pytest.mark.parametrize("speed", [0, -0.5, 1.01])
def test_launcher_refuses_a_bad_speed_and_stays_stopped(board, mock_pin, speed):
    with pytest.raises(ValueError, match=r"^speed must be > 0 and <= 1, not "):
        board.launcher.launch_toward("a", speed)
    assert levels(mock_pin, 23, 24, 12) == [0, 0, 0]


def test_direction_pins_are_never_high_together(board, changes):
    launcher = board.launcher
    for side in ("a", "b", "a", "b", "b", "a"):
        launcher.launch_toward(side, 0.6)
    launcher.stop()
    level = {23: 0, 24: 0, 12: 0}
    for bcm, value in changes:
        level[bcm] = value
        assert not (level[23] and level[24])
    # A reversal cuts the drive before it swaps direction.
    first_reverse = changes.index((24, True))
    assert changes[first_reverse - 2 : first_reverse + 2] == [
        (12, 0.0),
        (23, False),
        (24, True),
        (12, 0.6),
    ]


def test_paddle_edges_reach_the_board_callback_with_side_and_ticks(board, mock_pin):
    edges = []
    board.on_paddle_edge = lambda side, ticks, pressed: edges.append((side, ticks, pressed))
    mock_pin(27).drive_low(ticks=7.0003)
    mock_pin(17).drive_low(ticks=7.0001)
    assert board.paddle_is_pressed("a") and board.paddle_is_pressed("b")
    mock_pin(17).drive_high(ticks=8.0)
    assert board.paddle_is_pressed("a") is False
    assert edges == [("b", 7.0003, True), ("a", 7.0001, True), ("a", 8.0, False)]


def test_paddle_is_pressed_reads_the_live_level_even_inside_the_lockout(board, mock_pin):
    mock_pin(17).drive_low(ticks=1.0)
    mock_pin(17).drive_high(ticks=1.001)
    assert board.paddle_is_pressed("a") is False


def test_board_lockout_applies_to_paddles_and_timer_button(mock_factory, mock_pin):
    with Board(PinMap(), pin_factory=mock_factory, lockout_s=0.125) as board:
        edges, presses = [], []
        board.on_paddle_edge = lambda side, ticks, pressed: edges.append((side, ticks, pressed))
        board.on_timer_button = presses.append
        mock_pin(17).drive_low(ticks=1.0)
        mock_pin(17).drive_high(ticks=1.1)
        mock_pin(22).drive_low(ticks=2.0)
        mock_pin(22).drive_high(ticks=2.1)
        mock_pin(22).drive_low(ticks=2.12)
        assert edges == [("a", 1.0, True)]
        assert presses == [2.0]


def test_timer_button_and_cards_reach_the_board(board, mock_pin):
    presses, cards = [], []
    board.on_timer_button = presses.append
    board.on_card = cards.append
    mock_pin(22).drive_low(ticks=3.5)
    mock_pin(22).drive_high(ticks=3.7)
    mock_pin(16).drive_low(ticks=4.0)
    mock_pin(16).drive_high(ticks=4.002)
    assert presses == [3.5]
    assert cards == [4.0]
    assert board.has_card_sensor is True
    assert board.card_sensor.count == 1


def test_edges_with_no_callback_set_are_dropped_quietly(board, mock_pin):
    mock_pin(17).drive_low(ticks=1.0)
    mock_pin(22).drive_low(ticks=1.0)
    mock_pin(16).drive_low(ticks=1.0)
    assert board.paddle_is_pressed("a")


def test_ticks_come_from_the_pin_factory(board, virtual_clock):
    virtual_clock.advance(12.5)
    assert board.ticks() == 12.5
    assert board.ticks_diff(12.5, 12.0) == 0.5
    assert board.pin_factory is not None


def test_safe_stops_the_motor_before_any_light_goes_off(board, changes):
    board.show_countdown(3)
    board.set_go(True)
    board.set_arrow("b")
    board.set_buzzer(True)
    board.launcher.launch_toward("a", 0.7)
    del changes[:]
    board.safe()
    assert changes == [
        (12, 0.0),
        (23, False),
        (5, False),
        (6, False),
        (13, False),
        (19, False),
        (21, False),
        (26, False),
    ]


def test_close_makes_safe_first_then_releases_every_pin(mock_factory, mock_pin, changes):
    board = Board(PinMap(card_sensor=16), pin_factory=mock_factory)
    board.set_go(True)
    board.launcher.launch_toward("b", 0.5)
    del changes[:]
    board.close()
    assert changes[:3] == [(12, 0.0), (24, False), (19, False)]
    assert board.closed
    for bcm in (*OUTPUTS, 17, 27, 22, 16):
        assert mock_pin(bcm).function == "input"  # released: floating on a Pi
    # The pins are free again.
    LED(19, pin_factory=mock_factory).close()


def test_close_twice_and_as_context_manager(mock_factory):
    with Board(PinMap(), pin_factory=mock_factory) as board:
        pass
    assert board.closed
    board.close()
    board.close()
    assert board.closed


def test_closed_board_callbacks_no_longer_fire(mock_factory, mock_pin):
    board = Board(PinMap(), pin_factory=mock_factory)
    edges = []
    board.on_paddle_edge = lambda *edge: edges.append(edge)
    board.close()
    assert mock_pin(17).when_changed is None
    assert edges == []


def test_half_built_board_closes_what_it_built_and_reraises(mock_factory, mock_pin):
    # The 5th device (the GO LED, after the launcher and three countdown LEDs)
    # cannot get its pin.
    squatter = LED(19, pin_factory=mock_factory)
    with pytest.raises(GPIOPinInUse):
        Board(PinMap(), pin_factory=mock_factory)
    for bcm in (23, 24, 12, 5, 6, 13):
        assert mock_pin(bcm).function == "input"
    for bcm in (23, 24, 12, 5, 6, 13):
        LED(bcm, pin_factory=mock_factory).close()  # not reserved any more
    squatter.close()


def test_half_built_board_failing_in_a_constructor(mock_factory, mock_pin, monkeypatch):
    built = []

    class FailingTimerButton:
        def __init__(self, *args, **kwargs):
            built.append("timer")
            raise RuntimeError("timer button broke")

    monkeypatch.setattr(hw.board, "TimerButton", FailingTimerButton)
    with pytest.raises(RuntimeError, match=r"^timer button broke$"):
        Board(PinMap(), pin_factory=mock_factory)
    assert built == ["timer"]
    assert [mock_pin(bcm).function for bcm in (23, 24, 12, 19, 26, 17, 27)] == ["input"] * 7
    assert mock_pin(17).when_changed is None


def test_close_tries_every_step_and_reraises_the_first_failure(mock_factory, mock_pin, monkeypatch):
    board = Board(PinMap(), pin_factory=mock_factory)
    board.set_go(True)

    def broken_stop():
        raise OSError("H-bridge gone")

    monkeypatch.setattr(board.launcher, "stop", broken_stop, raising=False)
    with pytest.raises(OSError, match=r"^H-bridge gone$"):
        board.close()
    assert mock_pin(19).state == 0
    assert mock_pin(19).function == "input"
    assert board.closed
    board.close()


def test_half_built_launcher_releases_its_direction_pins(mock_factory, mock_pin):
    from hw.launcher import Launcher

    squatter = LED(12, pin_factory=mock_factory)
    with pytest.raises(GPIOPinInUse):
        Launcher(23, 24, 12, pin_factory=mock_factory)
    assert [mock_pin(n).function for n in (23, 24)] == ["input", "input"]
    squatter.close()
    launcher = Launcher(23, 24, 12, pin_factory=mock_factory)
    launcher.launch_toward("a", 0.4)
    launcher.close()
    launcher.close()
    assert launcher.closed
    assert [mock_pin(n).state for n in (23, 24, 12)] == [0, 0, 0]


def test_devices_lists_every_fitted_device_by_its_pinmap_name(board):
    names = [name for name, _ in board.devices()]
    assert names == [
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
    devices = dict(board.devices())
    assert devices["go_led"] is board.go_led
    assert devices["launcher"] is board.launcher
    assert repr(board).startswith("<hw.Board open PinMap(paddle_a=17, ")


def test_launch_and_stop_each_hold_the_motor_lock_against_other_threads(
    board, mock_pin, monkeypatch
):
    # A stop() from a signal handler must not land between a launch's
    # direction change and its speed (and be undone by it): while either call
    # changes a motor pin, another thread cannot take the launcher's lock.
    import threading

    launcher = board.launcher
    motor_pins = {mock_pin(n) for n in (23, 24, 12)}
    free_to_other_thread = []
    original = InjectableMockPin._change_state

    def change(self, value, ticks=None):
        if self in motor_pins:

            def try_lock():
                got = launcher._motor_lock.acquire(blocking=False)
                free_to_other_thread.append(got)
                if got:
                    launcher._motor_lock.release()

            thread = threading.Thread(target=try_lock)
            thread.start()
            thread.join()
        return original(self, value, ticks)

    monkeypatch.setattr(InjectableMockPin, "_change_state", change)
    launcher.launch_toward("a", 0.9)
    launcher.launch_toward("b", 0.5)
    launcher.stop()
    assert len(free_to_other_thread) >= 7
    assert not any(free_to_other_thread)
