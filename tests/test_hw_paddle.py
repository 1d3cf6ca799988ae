"""Paddles, timer button and card sensor: edges reported with the injected tick."""

import pytest

from hw.card_sensor import CardSensor
from hw.paddle import Paddle, TimerButton


def recorder(paddle):
    edges = []
    paddle.on_edge = lambda ticks, pressed: edges.append((ticks, pressed))
    return edges


def test_paddle_pulls_up_and_has_no_hardware_debounce(mock_factory):
    paddle = Paddle(17, pin_factory=mock_factory)
    assert paddle.pin.pull == "up"
    assert paddle.pin.bounce is None
    assert paddle.pin.edges == "both"
    assert paddle.is_pressed is False


def test_press_and_release_are_reported_with_the_injected_ticks(mock_factory):
    paddle = Paddle(17, lockout_s=0.05, pin_factory=mock_factory)
    edges = recorder(paddle)
    paddle.pin.drive_low(ticks=10.000123)
    paddle.pin.drive_high(ticks=10.5)
    assert edges == [(10.000123, True), (10.5, False)]


def test_edge_without_ticks_is_stamped_by_the_factory_clock(mock_factory, virtual_clock):
    paddle = Paddle(17, pin_factory=mock_factory)
    edges = recorder(paddle)
    virtual_clock.advance(3.25)
    paddle.pin.drive_low()
    assert edges == [(3.25, True)]


def test_bounces_inside_the_lockout_are_ignored_and_the_first_tick_kept(mock_factory):
    paddle = Paddle(17, lockout_s=0.05, pin_factory=mock_factory)
    edges = recorder(paddle)
    paddle.pin.drive_low(ticks=1.0)
    for t in (1.0002, 1.0004, 1.0010, 1.0020, 1.0300):
        paddle.pin.drive_high(ticks=t)
        paddle.pin.drive_low(ticks=t + 0.0001)
    assert edges == [(1.0, True)]
    assert paddle.is_pressed is True


def test_lockout_expires_exactly_after_lockout_s(mock_factory):
    # 0.0625 and these ticks are exact in binary, so "exactly" means exactly.
    paddle = Paddle(17, lockout_s=0.0625, pin_factory=mock_factory)
    edges = recorder(paddle)
    paddle.pin.drive_low(ticks=2.0)
    paddle.pin.drive_high(ticks=2.0615)  # inside: ignored
    paddle.pin.drive_low(ticks=2.062)
    paddle.pin.drive_high(ticks=2.0625)  # at the lockout's end: reported
    paddle.pin.drive_low(ticks=2.25)  # new press, after the release's lockout
    assert edges == [(2.0, True), (2.0625, False), (2.25, True)]


def test_a_release_starts_the_lockout_too(mock_factory):
    paddle = Paddle(17, lockout_s=0.05, pin_factory=mock_factory)
    edges = recorder(paddle)
    paddle.pin.drive_low(ticks=1.0)
    paddle.pin.drive_high(ticks=1.5)
    paddle.pin.drive_low(ticks=1.501)  # release bounce: no phantom press
    paddle.pin.drive_high(ticks=1.502)
    assert edges == [(1.0, True), (1.5, False)]


def test_release_swallowed_by_the_lockout_gives_two_presses_in_a_row(mock_factory):
    paddle = Paddle(17, lockout_s=0.05, pin_factory=mock_factory)
    edges = recorder(paddle)
    paddle.pin.drive_low(ticks=1.0)
    paddle.pin.drive_high(ticks=1.02)  # a real, very quick release: inside the lockout
    paddle.pin.drive_low(ticks=1.3)
    assert edges == [(1.0, True), (1.3, True)]


def test_a_press_read_as_open_by_a_late_level_read_is_still_a_press_at_its_tick(mock_factory):
    """RPi.GPIO's callback carries no level: gpiozero reads it when the callback
    runs, and by then contact bounce may have opened the switch again. Seen on a
    real kernel GPIO chip (tests/kernel): the press came as a release and was lost.
    A release of a switch that is not pressed is that press."""
    paddle = Paddle(17, lockout_s=0.05, pin_factory=mock_factory)
    edges = recorder(paddle)
    paddle._pin_changed(5.0, True)  # the press's edge, its level read as high (open)
    paddle._pin_changed(5.001, True)  # bounce: inside the lockout
    paddle.pin.drive_low(ticks=5.3)  # the level settles: still held
    paddle.pin.drive_high(ticks=5.6)  # released
    assert edges == [(5.0, True), (5.3, True), (5.6, False)]


def test_zero_lockout_reports_every_edge(mock_factory):
    paddle = Paddle(17, lockout_s=0.0, pin_factory=mock_factory)
    edges = recorder(paddle)
    for t in (1.0, 1.0001, 1.0002):
        paddle.pin.drive_low(ticks=t)
        paddle.pin.drive_high(ticks=t + 0.00005)
    assert len(edges) == 6


def test_lockouts_are_per_paddle(mock_factory):
    a = Paddle(17, lockout_s=0.05, pin_factory=mock_factory)
    b = Paddle(27, lockout_s=0.05, pin_factory=mock_factory)
    edges_a, edges_b = recorder(a), recorder(b)
    a.pin.drive_low(ticks=1.0)
    b.pin.drive_low(ticks=1.0001)
    assert edges_a == [(1.0, True)]
    assert edges_b == [(1.0001, True)]


def test_reversed_delivery_order_keeps_each_edges_own_tick(mock_factory):
    a = Paddle(17, pin_factory=mock_factory)
    b = Paddle(27, pin_factory=mock_factory)
    delivered = []
    a.on_edge = lambda ticks, pressed: delivered.append(("a", ticks))
    b.on_edge = lambda ticks, pressed: delivered.append(("b", ticks))
    # A pressed 0.4 ms before B, but B's callback runs first.
    b.pin.drive_low(ticks=5.0004)
    a.pin.drive_low(ticks=5.0)
    assert delivered == [("b", 5.0004), ("a", 5.0)]


def test_paddle_still_drives_gpiozero_state_and_events(mock_factory):
    paddle = Paddle(17, pin_factory=mock_factory)
    activated = []

    def when_pressed():
        activated.append(True)

    paddle.when_activated = when_pressed
    paddle.pin.drive_low(ticks=1.0)
    assert activated == [True]
    assert paddle.is_pressed is True
    assert paddle.value == 1


def test_negative_lockout_is_refused(mock_factory):
    with pytest.raises(ValueError, match=r"^lockout_s must be >= 0, not -0.1$"):
        Paddle(17, lockout_s=-0.1, pin_factory=mock_factory)


def test_timer_button_reports_presses_only_with_their_ticks(mock_factory):
    button = TimerButton(22, lockout_s=0.05, pin_factory=mock_factory)
    presses = []
    button.on_press = presses.append
    button.pin.drive_low(ticks=1.0)
    button.pin.drive_high(ticks=1.001)  # bounce
    button.pin.drive_low(ticks=1.002)  # bounce
    button.pin.drive_high(ticks=1.4)  # release: not a press
    button.pin.drive_low(ticks=2.0)
    assert presses == [1.0, 2.0]


def test_card_sensor_counts_each_beam_break_with_its_tick(mock_factory):
    sensor = CardSensor(16, pin_factory=mock_factory)
    cards = []
    sensor.on_card = cards.append
    assert sensor.beam_broken is False
    for t in (1.0, 1.25, 1.5):
        sensor.pin.drive_low(ticks=t)
        sensor.pin.drive_high(ticks=t + 0.003)
    assert cards == [1.0, 1.25, 1.5]
    assert sensor.count == 3
    sensor.reset_count()
    assert sensor.count == 0


def test_card_sensor_counts_a_flickering_card_once(mock_factory):
    sensor = CardSensor(16, lockout_s=0.01, pin_factory=mock_factory)
    cards = []
    sensor.on_card = cards.append
    sensor.pin.drive_low(ticks=1.0)
    sensor.pin.drive_high(ticks=1.002)
    sensor.pin.drive_low(ticks=1.003)  # the card's ragged edge
    sensor.pin.drive_high(ticks=1.006)
    assert cards == [1.0]
    assert sensor.count == 1


def test_a_card_whose_break_was_over_before_its_level_was_read_is_still_counted(mock_factory):
    """RPi.GPIO's callback carries no level: gpiozero reads it when the callback
    runs, and a card breaks the beam for some 20 ms. Seen on a kernel GPIO chip
    under load (tests/kernel, rpigpio): both edges of a card read "whole", the
    card was not counted and the launch ended as a jam. A beam made whole that
    was not seen broken was broken, at that edge's tick; the next edge read
    "whole" is that card leaving the beam."""
    sensor = CardSensor(16, pin_factory=mock_factory)
    cards = []
    sensor.on_card = cards.append
    for t in (2.0, 2.2):
        sensor._pin_changed(t, True)  # the break's edge, read high (whole) by then
        sensor._pin_changed(t + 0.03, True)  # the card leaving: whole, as it is
    sensor.pin.drive_low(ticks=2.4)  # a card read in time
    sensor.pin.drive_high(ticks=2.42)
    assert cards == [2.0, 2.2, 2.4]
    assert sensor.count == 3


def test_a_beam_broken_at_start_and_cleared_is_not_a_card(mock_factory):
    mock_factory.pin(16).drive_low()  # something in the beam before the unit starts
    sensor = CardSensor(16, pin_factory=mock_factory)
    sensor.pin.drive_high(ticks=1.0)
    assert sensor.count == 0
    sensor.pin.drive_low(ticks=1.5)
    assert sensor.count == 1
