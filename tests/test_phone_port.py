"""The phones' unit port (engine.apps.table.phone_port) with the phones played by the test."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.apps.table.phone_port import PhonePaddles
from engine.game.errors import UnitProblem
from engine.units.ports import ShowdownRequest
from firmware_host.protocol import Reason

REQ = ShowdownRequest("m1:r1:s1", 0, 2, "Ann", "Bob", 2)


class Phones:
    """Answers each paddle_round at once with the next scripted taps (seat ->
    (reaction_ms, uncertainty_ms), a seat left out never answers), on a
    virtual clock that jumps past the deadline when someone does not answer."""

    def __init__(self, rounds: list[dict[int, tuple[float | None, float]]]):
        self.rounds = rounds
        self.sent: list[dict] = []
        self.now = 100.0
        self.port: PhonePaddles | None = None

    def clock(self) -> float:
        return self.now

    def send(self, message: dict) -> None:
        self.sent.append(message)
        if message["type"] != "paddle_round":
            return
        assert self.port is not None
        taps = self.rounds.pop(0)
        for seat, (reaction, uncertainty) in taps.items():
            answer = {
                "type": "paddle_tap",
                "showdown_id": message["showdown_id"],
                "round": message["round"],
                "reaction_ms": reaction,
                "uncertainty_ms": uncertainty,
            }
            assert self.port.report(seat, answer) is None
        self.now = message["go_ms"] / 1000 + 60  # a phone that never answers: past the deadline


def port_for(phones: Phones, ask_host: Callable | None = None) -> PhonePaddles:
    port = PhonePaddles(
        phones.send,
        pace_rng=random.Random(1),
        bot_rng=random.Random(2),
        clock=phones.clock,
        ask_host=ask_host,
    )
    phones.port = port
    return port


def test_the_faster_tap_wins_and_the_round_names_go_ahead() -> None:
    phones = Phones([{0: (250.0, 1.0), 2: (310.5, 2.0)}])
    outcome = port_for(phones).run_showdown(REQ)
    assert (outcome.winner, outcome.reason, outcome.margin_us) == (0, Reason.FASTER, 60_500)
    assert outcome.reaction_us == {0: 250_000, 2: 310_500}
    first = phones.sent[0]
    assert first["type"] == "paddle_round" and first["players"] == [0, 2]
    assert first["start_ms"] == 101_000 and 104_500 <= first["go_ms"] <= 106_500
    assert phones.sent[-1]["kind"] == "decided" and phones.sent[-1]["loser"] == 2


def test_a_tie_within_the_phones_uncertainty_is_fought_again() -> None:
    phones = Phones([{0: (250.0, 1.0), 2: (251.0, 1.0)}, {0: (300.0, 1.0), 2: (200.0, 1.0)}])
    outcome = port_for(phones).run_showdown(REQ)
    assert (outcome.winner, outcome.tie_reruns) == (2, 1)
    rounds = [m for m in phones.sent if m["type"] == "paddle_round"]
    assert [m["round"] for m in rounds] == [1, 2] and rounds[0]["go_ms"] != rounds[1]["go_ms"]


def test_a_false_start_on_a_phone_loses() -> None:
    phones = Phones([{0: (-120.0, 1.0), 2: (None, 1.0)}])
    outcome = port_for(phones).run_showdown(REQ)
    assert (outcome.loser, outcome.reason) == (0, Reason.FALSE_START)


def test_a_missing_phone_pauses_the_game_unless_the_host_decides() -> None:
    with pytest.raises(UnitProblem, match="Bob's phone did not answer"):
        port_for(Phones([{0: (250.0, 1.0)}])).run_showdown(REQ)
    asked = []

    def by_hand(request, missing):
        asked.append(missing)
        return 2  # Bob loses

    outcome = port_for(Phones([{0: (250.0, 1.0)}]), by_hand).run_showdown(REQ)
    assert asked == [(2,)] and outcome.loser == 2 and outcome.reaction_us == {0: None, 2: None}
    # a bot presses for Bob in the next round
    phones = Phones([{0: (250.0, 1.0)}, {0: (150.0, 1.0)}])
    outcome = port_for(phones, lambda request, missing: "bot").run_showdown(REQ)
    # the bot's press decided it, but it is no reaction of Bob's: none is invented for him
    assert outcome.reaction_us == {0: 150_000, 2: None} and outcome.margin_us is None
    assert "a bot pressed for Bob" in outcome.detail
    assert phones.sent[-2]["bots"] == [2]


def test_the_pause_names_the_missing_phone_and_the_hosts_stand_in_presses_for_it() -> None:
    phones = Phones([{0: (250.0, 1.0)}, {0: (180.0, 1.0)}])
    port = port_for(phones)
    with pytest.raises(UnitProblem) as problem:
        port.run_showdown(REQ)
    assert "a bot presses for Bob, or Bob loses this one" in problem.value.what_to_do
    assert port.missing == (2,)
    port.stand_in(2)  # the host's choice; then the showdown is fought again
    outcome = port.run_showdown(REQ)
    assert phones.sent[-2]["bots"] == [2] and port.missing == ()
    assert outcome.reaction_us == {0: 180_000, 2: None}
    # for this showdown only: the next one is Bob's phone's again
    phones.rounds.append({0: (200.0, 1.0)})
    with pytest.raises(UnitProblem):
        port.run_showdown(REQ)


def test_only_bots_need_no_phone() -> None:
    phones = Phones([])
    bots = ShowdownRequest("m1:r1:s2", 0, 1, "B1", "B2", 1, bots={0: 200.0, 1: 300.0})
    outcome = port_for(phones).run_showdown(bots)
    assert all(us is not None for us in outcome.reaction_us.values())
    assert [m["type"] for m in phones.sent] == ["paddle_result"]


def test_a_report_for_another_round_or_seat_is_refused() -> None:
    port = port_for(Phones([]))
    tap = {"showdown_id": "x", "round": 1, "reaction_ms": 1.0, "uncertainty_ms": 1.0}
    assert port.report(0, tap) == "that showdown round is over"


def test_unit_phones_wires_the_port_that_the_room_hands_the_taps() -> None:
    import argparse

    from engine.apps.table import table_cmd
    from engine.apps.table.server import UnitHooks

    parser = argparse.ArgumentParser()
    table_cmd._unit_and_address_arguments(parser)
    args = parser.parse_args(["--unit", "phones"])
    args.pace = 1.0
    wiring = table_cmd._wiring(args, random.Random(1), UnitHooks())
    assert isinstance(wiring.paddles, PhonePaddles) and not wiring.panel


@pytest.mark.parametrize(
    ("argv", "unit"),
    [([], "phones"), (["--companion"], "sim"), (["--unit", "sim"], "sim")],
)
def test_the_phones_are_the_default_unit_where_there_are_phones(argv, unit) -> None:
    from engine.apps.cli import build_parser
    from engine.apps.table import table_cmd

    args = build_parser().parse_args(["table", *argv])
    table_cmd._checked_options(args)
    assert args.unit == unit


def test_the_tables_help_says_the_phones_are_the_default(capsys) -> None:
    from engine.apps.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["table", "--help"])
    assert "(phones, the default;" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--companion", "--unit", "phones"], "--companion has no phones"),
        (["--token-file", "t"], "--token-file is for a unit at a URL"),
    ],
)
def test_the_phones_unit_refuses_what_does_not_go_with_it(argv, said) -> None:
    from engine.apps.cli import build_parser
    from engine.apps.table import table_cmd
    from firmware_host.people.console import UsageError

    with pytest.raises(UsageError, match=said):
        table_cmd._checked_options(build_parser().parse_args(["table", *argv]))


def test_the_room_hands_a_phones_tap_to_the_port_and_a_round_to_every_page() -> None:
    from tests.room_helpers import hello, make_room, phone, refusals, send, taken

    room = make_room()
    display = hello(room)
    ann = phone(room, 0, "Ann")
    stranger = hello(room, "phone")
    tap = {"type": "paddle_tap", "showdown_id": "s", "round": 1, "reaction_ms": 200.0}
    assert refusals(send(room, ann, **tap, uncertainty_ms=1.0))  # no phones' port here
    reports: list = []

    class Port:
        def report(self, player, message):
            reports.append((player, message["reaction_ms"]))

    room.paddles = Port()
    taken(room, display)
    taken(room, ann)
    assert send(room, ann, **tap, uncertainty_ms=1.0) == []
    assert reports == [(0, 200.0)]
    assert refusals(send(room, stranger, **tap, uncertainty_ms=1.0))  # no seat, no tap
    room.paddle_message({"type": "paddle_round", "round": 1})
    for conn in (display, ann):
        assert taken(room, conn) == [{"type": "paddle_round", "round": 1}]
    fresh = hello(room, "phone")  # its welcome says the showdowns are on the phones
    assert taken(room, fresh)[0]["paddles"] is True
    room.unit_words = "Showdowns on the players' phones"
    assert taken(room, hello(room))[0]["unit"] == "Showdowns on the players' phones"


def test_the_showdown_panel_follows_the_phones_rounds_and_invents_no_reaction() -> None:
    from engine.apps.table import showdown_view
    from tests.room_helpers import hello, make_room, taken

    room = make_room()
    display = hello(room)
    room.showdown = showdown_view.armed(0, 1, ["Ann", "Bob"], 2)
    taken(room, display)
    round_1 = {"type": "paddle_round", "showdown_id": "s", "round": 1, "steps": 3}
    room.paddle_message({**round_1, "start_ms": 10.0, "go_ms": 3010.0})
    panel = taken(room, display)[-1]["view"]["showdown"]
    assert (panel["stage"], panel["step"], panel["steps"]) == ("countdown", 0, 3)
    assert panel["paddle"] == {"showdown_id": "s", "round": 1, "start_ms": 10.0, "go_ms": 3010.0}
    room.paddle_message({"type": "paddle_result", "showdown_id": "s", "round": 1, "kind": "tie"})
    panel = taken(room, display)[-1]["view"]["showdown"]
    assert panel["rerun"] == 1 and panel["paddle"] is None and "again" in panel["message"]
    assert panel["reactions"] is None and panel["verdict"] is None  # only the outcome gives them


def test_the_host_chooses_for_a_missing_phone_on_the_display_or_at_the_terminal() -> None:
    from engine.apps.table.host_console import HostConsole
    from tests.room_helpers import hello, last_view, make_room, phone, refusals, send, taken

    room = make_room(seats=2)
    display = hello(room)
    ann = phone(room, 0, "Ann")
    phones = Phones([{}, {}])  # Ann's phone never answers
    port = port_for(phones)
    room.unit = room.paddles = port
    send(room, display, type="host", cmd="start")
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    send(room, ann, type="act", action="R5!2", id=1)
    request = room.showdown_request()
    with pytest.raises(UnitProblem) as problem:  # the server pauses the game with it
        port.run_showdown(request)
    room.pause(f"The game is paused: {problem.value}. What to do: {problem.value.what_to_do}")
    view = last_view(taken(room, display))
    assert "Ann's phone did not answer" in view["paused"] and view["phone_missing"] == [0]
    # a bot presses only for the phone that did not answer
    refused = refusals(send(room, display, type="host", cmd="stand_in", seat=1))
    assert refused[0]["message"] == "a bot presses only for a phone that did not answer (Ann)"
    said: list[str] = []
    console = HostConsole(room, "http://10.0.0.2:8700", out=said.append, read_stdin=False)
    console.line("Bot for  ANN")  # the host at the server's terminal
    assert said == ["Done: see the display."]
    view = last_view(taken(room, display))
    assert view["paused"] is None and "phone_missing" not in view
    assert view["log"][0] == "The host: a bot presses for Ann in this showdown."
    assert room.next_task() == "showdown"  # fought again, a bot pressing for Ann
    sent = len(phones.sent)
    outcome = port.run_showdown(room.showdown_request())
    # Ann's stand-in and bot1 press: no phone is asked, one round decides it
    assert [m["type"] for m in phones.sent[sent:]] == ["paddle_result"]
    assert outcome.reaction_us[0] is None  # the bot's press is no reaction of Ann's
    room.finish_showdown(outcome)
    assert last_view(taken(room, display))["showdown"]["stage"] == "decided"
    console.line("fight again")
    assert said[-1] == "Not done: the game is not paused."


SHOWDOWN_NEXT = "showdown R5!2,G2/B1,Y1 G1,B2,G3,G4 R1 R + 0 play - - 0,0 1 1 500 - 1:0"


def test_a_showdown_fought_again_after_a_pause_counts_on_so_a_late_tap_cannot_count() -> None:
    phones = Phones([{0: (250.0, 1.0)}, {0: (200.0, 1.0), 2: (300.0, 1.0)}])
    port = port_for(phones)
    with pytest.raises(UnitProblem):  # Bob's phone did not answer round 1: the game pauses
        port.run_showdown(REQ)
    stale: list[str | None] = []
    send = phones.send

    def send_and_tap_late(message: dict) -> None:
        if message["type"] == "paddle_round":  # Bob's tap of round 1 arrives only now
            late = {"showdown_id": REQ.showdown_id, "round": 1, "reaction_ms": 5.0}
            stale.append(port.report(2, {**late, "uncertainty_ms": 1.0}))
        send(message)

    port.send = send_and_tap_late
    outcome = port.run_showdown(REQ)  # resumed: fought again
    rounds = [m["round"] for m in phones.sent if m["type"] == "paddle_round"]
    assert rounds == [1, 2] and stale == ["that showdown round is over"]
    assert outcome.winner == 0 and outcome.reaction_us == {0: 200_000, 2: 300_000}
