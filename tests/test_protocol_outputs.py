"""The protocol's ``outputs`` object as one typed value: its wire form both
ways, and an object out of shape refused with the field named."""

import json

import pytest

from firmware_host.protocol import Motor, Outputs, Side, SideFlags

LAUNCHING = Outputs(
    leds=(True, True, False),
    go=False,
    arrows=SideFlags(b=True),
    buzzer=None,
    motor=Motor(Side.B, 0.8),
    paddles=SideFlags(a=True),
)


def test_the_wire_form_round_trips_through_json():
    wire = LAUNCHING.to_wire()
    assert wire == {
        "leds": [True, True, False],
        "go": False,
        "arrows": {"a": False, "b": True},
        "buzzer": None,
        "motor": {"direction": "b", "speed": 0.8},
        "paddles": {"a": True, "b": False},
    }
    assert list(wire) == ["leds", "go", "arrows", "buzzer", "motor", "paddles"]
    assert Outputs.from_wire(json.loads(json.dumps(wire))) == LAUNCHING
    assert Outputs.from_wire(Outputs.idle(5).to_wire()) == Outputs.idle(5)


def test_a_newer_units_extra_fields_are_passed_over_and_a_whole_speed_is_a_number():
    wire = {**Outputs.idle(3).to_wire(), "fan": True, "motor": {"direction": None, "speed": 0}}
    assert Outputs.from_wire(wire) == Outputs.idle(3)


def test_the_sides_read_by_name():
    assert (LAUNCHING.arrows[Side.B], LAUNCHING.arrows["a"], LAUNCHING.paddles[Side.A]) == (
        True,
        False,
        True,
    )
    assert SideFlags.of({"a": 1, "b": 0}) == SideFlags(a=True)


def test_a_stopped_motor_has_speed_zero_whatever_its_duty():
    assert Motor.driven(None, 0.8) == Motor()
    assert Motor.driven("a", 0.80004) == Motor(Side.A, 0.8)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"leds": []}, "field 'leds' must be a non-empty array of true/false, not []"),
        ({"go": 1}, "field 'go' must be true or false, not 1"),
        ({"arrows": {"a": True}}, "missing field 'arrows.b'"),
        ({"buzzer": "on"}, "field 'buzzer' must be true or false or null, not \"on\""),
        ({"motor": {"direction": "up", "speed": 0.5}}, "field 'motor.direction' must be"),
        ({"motor": {"direction": "a", "speed": -1}}, "field 'motor.speed' must be a number"),
        ({"motor": {"direction": None, "speed": 0.3}}, "field 'motor' must have speed 0"),
        ({"paddles": None}, "field 'paddles' must be an object, not null"),
    ],
)
def test_an_object_out_of_shape_is_refused_naming_the_field(change, message):
    with pytest.raises(ValueError) as caught:
        Outputs.from_wire({**LAUNCHING.to_wire(), **change})
    assert str(caught.value).startswith(message)


def test_the_field_names_where_the_object_sits_and_what_is_missing():
    wire = LAUNCHING.to_wire()
    del wire["motor"]
    with pytest.raises(ValueError, match=r"^missing field 'outputs\.motor'$"):
        Outputs.from_wire(wire, "outputs")
    with pytest.raises(ValueError, match=r"^field 'outputs' must be an object, not \[\]$"):
        Outputs.from_wire([], "outputs")


def test_a_value_out_of_range_cannot_be_built_either():
    with pytest.raises(ValueError, match="field 'leds' must be a non-empty array"):
        Outputs(leds=())
    with pytest.raises(ValueError, match=r"field 'motor\.speed' must be a number from 0 to 1"):
        Motor(Side.A, 1.5)
    with pytest.raises(ValueError, match="field 'motor' must have speed 0"):
        Motor(None, 0.5)
