"""Choosing the pin factory, and the injectable mock pins themselves."""

import sys

import pytest
from gpiozero import BadPinFactory, Device, PWMOutputDevice
from gpiozero.exc import PinInvalidFunction
from gpiozero.pins.mock import MockFactory, MockPin

from hw.board import Board
from hw.mock import CardFeeder, InjectableMockPin, VirtualMockFactory
from hw.pinmap import PinMap
from hw.pins import PinBackendError, make_pin_factory

NO_PI = 'without a Raspberry Pi use --mock (or backend = "mock" in the config)'


@pytest.fixture
def no_env_factory(monkeypatch):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)


def test_mock_backend_has_pwm_capable_injectable_pins():
    factory = make_pin_factory("mock")
    try:
        assert type(factory) is MockFactory
        assert factory.pin_class is InjectableMockPin
        motor = PWMOutputDevice(12, pin_factory=factory)
        motor.value = 0.25
        assert factory.pin(12).state == 0.25
        motor.close()
    finally:
        factory.close()


def test_unknown_backend_is_a_value_error():
    with pytest.raises(
        ValueError,
        match=r"^unknown pin backend 'gpiod' \(choose from "
        r"'auto', 'mock', 'lgpio', 'rpigpio'\)$",
    ):
        make_pin_factory("gpiod")


@pytest.mark.parametrize(
    "backend, module, library", [("lgpio", "lgpio", "lgpio"), ("rpigpio", "RPi", "RPi.GPIO")]
)
def test_pi_backend_without_its_library_is_a_clear_error(monkeypatch, backend, module, library):
    # Make the import fail whether or not the library is installed here.
    monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.delitem(sys.modules, f"gpiozero.pins.{backend}", raising=False)
    with pytest.raises(PinBackendError) as caught:
        make_pin_factory(backend)
    message = str(caught.value)
    assert message.startswith(
        f"pin backend {backend!r} needs the {library} library, "
        "which is not installed (on a Raspberry Pi: pip install 'uno-showdown[pi]'"
    )
    assert message.endswith(NO_PI)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert isinstance(caught.value, ImportError) and isinstance(caught.value, BadPinFactory)


def test_pi_backend_that_cannot_start_is_a_clear_error(monkeypatch):
    class Broken:
        def LGPIOFactory(self):
            raise OSError("no /dev/gpiochip0")

    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", Broken())
    with pytest.raises(
        PinBackendError,
        match=r"^pin backend 'lgpio' cannot start: no /dev/gpiochip0; "
        r"is this a Raspberry Pi\? without a Raspberry Pi use --mock",
    ):
        make_pin_factory("lgpio")


@pytest.mark.parametrize("name", ["mock", "MOCK"])
def test_auto_honours_gpiozero_pin_factory_mock(monkeypatch, name):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", name)
    factory = make_pin_factory("auto")
    assert type(factory) is MockFactory
    assert factory.pin_class is InjectableMockPin


def test_auto_with_an_unknown_gpiozero_pin_factory(monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "nosuch")
    with pytest.raises(
        PinBackendError,
        match=r"^GPIOZERO_PIN_FACTORY='nosuch' cannot be used: "
        r"Unable to find pin factory 'nosuch'; without a Raspberry Pi",
    ):
        make_pin_factory("auto")


def test_auto_with_a_gpiozero_pin_factory_whose_library_is_missing(monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "pigpio")
    monkeypatch.setitem(sys.modules, "pigpio", None)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.pigpio", raising=False)
    with pytest.raises(
        PinBackendError,
        match=r"^GPIOZERO_PIN_FACTORY='pigpio' cannot start: "
        r"import of pigpio halted; None in sys.modules; "
        r"without a Raspberry Pi use --mock",
    ):
        make_pin_factory("auto")


def test_auto_with_an_unavailable_gpiozero_pin_factory(monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    monkeypatch.setitem(sys.modules, "lgpio", None)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    with pytest.raises(PinBackendError, match=r"^pin backend 'lgpio' needs the lgpio library"):
        make_pin_factory("auto")


def test_auto_with_nothing_installed_suggests_mock(no_env_factory, monkeypatch):
    def nothing_works():
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(nothing_works))
    with pytest.raises(PinBackendError) as caught:
        make_pin_factory("auto")
    assert str(caught.value) == (
        "no GPIO pin backend works here (gpiozero tried lgpio, RPi.GPIO, pigpio and native); "
        "on a Raspberry Pi install the pi extra (pip install 'uno-showdown[pi]'), " + NO_PI
    )


def test_auto_returns_gpiozeros_choice(no_env_factory, monkeypatch):
    chosen = MockFactory()
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(lambda: chosen))
    assert make_pin_factory("auto") is chosen


def test_auto_on_this_machine_either_works_or_says_use_mock(no_env_factory):
    # This laptop has no Pi backend: gpiozero's real default search fails.
    try:
        factory = make_pin_factory("auto")
    except PinBackendError as exc:
        assert str(exc).endswith(NO_PI)
    else:  # pragma: no cover - only on a Pi
        factory.close()


# -- InjectableMockPin and VirtualMockFactory ----------------------------------


def test_virtual_factory_ticks_follow_the_clock(mock_factory, virtual_clock):
    assert mock_factory.ticks() == 0.0
    virtual_clock.advance(2.5)
    assert mock_factory.ticks() == 2.5
    assert mock_factory.ticks_diff(2.5, 2.0) == 0.5


def test_virtual_factory_refuses_pins_that_ignore_its_clock():
    with pytest.raises(ValueError, match=r"^pin_class must be InjectableMockPin or a subclass"):
        VirtualMockFactory(lambda: 0.0, pin_class=MockPin)


def test_state_changes_are_stamped_with_the_virtual_clock(mock_factory, mock_pin, virtual_clock):
    pin = mock_pin(5)
    pin.function = "output"
    virtual_clock.advance(1.0)
    pin.state = 1
    virtual_clock.advance(0.25)
    pin.state = 0
    assert pin.states == [(0.0, False), (1.0, 1.0), (0.25, 0.0)]
    assert len(pin.states) == 3


def test_injected_edges_carry_exact_ticks_and_run_synchronously(mock_pin):
    pin = mock_pin(17)
    pin.pull = "up"
    seen = []

    def changed(ticks, state):
        seen.append((ticks, state))

    pin.when_changed = changed
    pin.drive_low(ticks=0.0)  # a tick of zero is a tick, not "now"
    assert seen == [(0.0, False)]
    pin.drive_high(ticks=1.0000005)
    assert seen == [(0.0, False), (1.0000005, True)]
    pin.drive_high(ticks=2.0)  # no change, no edge
    assert len(seen) == 2


def test_falling_only_edges(mock_pin):
    pin = mock_pin(17)
    pin.pull = "up"
    pin.edges = "falling"
    seen = []

    def changed(ticks, state):
        seen.append(ticks)

    pin.when_changed = changed
    pin.drive_low(ticks=1.0)
    pin.drive_high(ticks=2.0)
    assert seen == [1.0]


def test_driving_an_output_is_refused(mock_pin):
    pin = mock_pin(5)
    pin.function = "output"
    with pytest.raises(
        PinInvalidFunction, match=r"^cannot drive GPIO5: it is an output, not an input$"
    ):
        pin.drive_low(ticks=1.0)


def test_mock_factory_fixture_installs_and_restores_the_default(mock_factory):
    assert Device.pin_factory is mock_factory


# -- CardFeeder ----------------------------------------------------------------


def test_card_feeder_feeds_a_board_sensor_at_the_given_ticks(board):
    cards = []
    board.on_card = cards.append
    feeder = CardFeeder(board, dwell_s=0.004)
    assert feeder.feed([1.0, 1.25]) == 2
    assert cards == [1.0, 1.25]
    assert board.card_sensor.count == 2
    assert board.card_sensor.beam_broken is False
    # floating, pull-up, then two cards in and out of the beam
    assert [s.state for s in feeder.pin.states] == [False, True, False, True, False, True]


def test_card_feeder_releases_queued_cards_as_time_passes(board):
    cards = []
    board.on_card = cards.append
    feeder = CardFeeder(board.card_sensor.pin)
    feeder.load([2.5, 2.0])
    feeder.load([3.0])
    assert feeder.release_due(1.9) == 0
    assert feeder.release_due(2.5) == 2
    assert cards == [2.0, 2.5]
    assert feeder.pending == 1
    assert feeder.cancel() == 1
    assert feeder.release_due(10.0) == 0
    assert cards == [2.0, 2.5]


def test_card_feeder_needs_a_card_sensor(mock_factory):
    with (
        Board(PinMap(), pin_factory=mock_factory) as board,
        pytest.raises(ValueError, match=r"^the board has no card sensor to feed$"),
    ):
        CardFeeder(board)
    with pytest.raises(ValueError, match=r"^dwell_s must be > 0, not 0$"):
        CardFeeder(mock_factory.pin(16), dwell_s=0)
