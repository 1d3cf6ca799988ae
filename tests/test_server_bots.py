"""Bots and card counts over the protocol: the server's side (scripted peers, inline commands)."""

import pytest

from firmware_host.service.server import Server
from tests.test_protocol import THE_COMMANDS
from tests.test_server import PLAYERS, FakeUnit, Inline, ready_session, settings, talk


@pytest.fixture
def fake(tmp_path):
    unit = FakeUnit()
    server = Server(unit, tmp_path / "results.sqlite3", settings=settings(), runner=Inline())
    yield server, unit
    server.close()


def test_hello_offers_bots_on_real_pins_too(fake):
    server, _ = fake
    session = server.open_session("peer")
    [hello] = talk(server, session, {"id": 1, "cmd": "hello", "version": 1})
    assert hello["capabilities"] == ["bots", "outputs"]


def test_showdown_hands_the_bots_to_the_unit(fake):
    server, unit = fake
    session = ready_session(server)
    request = {"cmd": "showdown", "showdown_id": "sd-1", "cards": 2, "players": PLAYERS}
    [armed] = talk(server, session, {"id": 1, **request, "bots": {"b": {"reaction_ms": 230}}})
    assert armed["ok"] is True
    assert unit.calls[-1] == ("arm", ("sd-1", 2, PLAYERS, {"b": {"reaction_ms": 230.0}}), {})
    talk(server, session, {"id": 2, **request, "showdown_id": "sd-2", "bots": None})
    assert unit.calls[-1] == ("arm", ("sd-2", 2, PLAYERS, None), {})


@pytest.mark.parametrize(
    "bots, message",
    [
        ([], 'field \'bots\' must be an object like {"b": {"reaction_ms": 230}}, not []'),
        (
            {"b": {"reaction_ms": 50}},
            "field 'bots.b.reaction_ms' must be a number from 100 to 1000, not 50",
        ),
        (
            {"b": {"reaction_ms": "fast"}},
            "field 'bots.b.reaction_ms' must be a number from 100 to 1000, not \"fast\"",
        ),
        ({"x": {"reaction_ms": 200}}, 'field \'bots\' may only have the keys "a" and "b", not "x"'),
    ],
)
def test_bad_bots_are_invalid_argument_and_arm_nothing(fake, bots, message):
    server, unit = fake
    session = ready_session(server)
    request = {"cmd": "showdown", "showdown_id": "sd-1", "cards": 2, "players": PLAYERS}
    [reply] = talk(server, session, {"id": 7, **request, "bots": bots})
    assert reply == {
        "id": 7,
        "ok": False,
        "error": {"code": "invalid_argument", "message": message},
    }
    assert unit.calls == []


@pytest.mark.parametrize("cards, shown", [(0, "0"), (-1, "-1"), ("two", '"two"'), (1.5, "1.5")])
def test_every_bad_card_count_is_invalid_cards_on_the_wire(fake, cards, shown):
    server, unit = fake
    session = ready_session(server)
    request = {"cmd": "showdown", "showdown_id": "sd-1", "cards": cards, "players": PLAYERS}
    [reply] = talk(server, session, {"id": 3, **request})
    assert reply["error"] == {
        "code": "invalid_cards",
        "message": f"field 'cards' must be a whole number >= 1, not {shown}",
    }
    assert unit.calls == []


def test_unknown_command_lists_the_commands_on_the_wire(fake):
    server, _ = fake
    session = ready_session(server)
    [reply] = talk(server, session, {"id": 4, "cmd": "launch"})
    assert reply["error"] == {
        "code": "unknown_command",
        "message": f'unknown command "launch"; {THE_COMMANDS}',
    }
